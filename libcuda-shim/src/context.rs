//! Contexts: the device's primary context, created contexts, the per-thread context stack,
//! context-local storage (for cudart's export table) and the sticky error a kernel fault leaves.
//!
//! Every device has its own primary context (and budget of memory, `engine::mem`), but the
//! devices share one address space, so memory and modules can be reached from any context; a
//! context carries what CUDA makes per context and observable: flags, limits, the
//! CLS map and the sticky error, and its queues: the legacy default stream's and those of its
//! other streams (created streams and per-thread default streams), for implicit
//! synchronisation and `cuCtxSynchronize`. What was made in a context (allocations, streams,
//! events, modules loaded with `cuModuleLoad*`) goes away with it.
//!
//! This is the model every other part of the driver uses; the `cuCtx*` and
//! `cuDevicePrimaryCtx*` calls, which reach into streams, events and memory when a context
//! goes away, are `context::calls`.

pub mod calls;
pub mod peer;

use crate::device;
use crate::errors::{CuResult, INVALID_CONTEXT};
use crate::handles::Registry;
use crate::queue::{self, Owner};
use abi::*;
use once_cell::sync::OnceCell;
use parking_lot::Mutex;
use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

/// The destructor cudart registers with a CLS value: `dtor(ctx, key, value)`.
pub type ClsDtor = unsafe extern "C" fn(CUcontext, *mut c_void, *mut c_void);

struct ClsEntry {
    key: usize,
    value: usize,
    dtor: Option<ClsDtor>,
}

/// Every context handed out (the primary one and created ones).
pub static CONTEXTS: Registry<Context> = Registry::new(INVALID_CONTEXT);

/// A context's queues (the streams' work), the completion of an item on one, and an item.
pub type Queue = queue::Queue<Context>;
pub type Dep = queue::Dep<Context>;
pub type Work = queue::Work<Context>;

pub struct Context {
    pub id: u64,
    pub device: CUdevice,
    pub primary: bool,
    pub flags: AtomicU32,
    /// Primary context: retain count (active when > 0).
    pub(crate) refcount: AtomicU32,
    /// The first fault of asynchronous work; returned by every later call until reset.
    sticky: Mutex<Option<CUresult>>,
    cls: Mutex<Vec<ClsEntry>>,
    pub(crate) limits: Mutex<[usize; 11]>,
    pub(crate) cache_config: AtomicU32,
    /// The legacy default stream's queue, created at its first use.
    legacy: OnceCell<Arc<Queue>>,
    /// The queues of this context's other streams (dead ones are pruned as found).
    streams: Mutex<Vec<Weak<Queue>>>,
    /// The contexts (handles) whose memory this one may access, as cuCtxEnablePeerAccess
    /// granted it.
    pub(crate) peers: Mutex<Vec<usize>>,
    /// Held while work is submitted, so implicit dependencies are captured atomically.
    pub(crate) submission: Mutex<()>,
    /// What every later submission to any stream of the context waits for (cuCtxWaitEvent);
    /// completed entries are dropped as submissions find them.
    pub(crate) waits: Mutex<Vec<Dep>>,
}

impl Context {
    pub(crate) fn new(device: CUdevice, primary: bool, flags: u32) -> Context {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Context {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            device,
            primary,
            flags: AtomicU32::new(flags),
            refcount: AtomicU32::new(0),
            sticky: Mutex::new(None),
            cls: Mutex::new(Vec::new()),
            // Stack 1 KiB, printf FIFO 1 MiB, malloc heap 8 MiB, sync depth 2, pending
            // launches 2048, L2 fetch 64: the real driver's defaults.
            limits: Mutex::new([1024, 1 << 20, 8 << 20, 2, 2048, 64, 0, 0, 0, 0, 0]),
            cache_config: AtomicU32::new(0),
            legacy: OnceCell::new(),
            streams: Mutex::new(Vec::new()),
            peers: Mutex::new(Vec::new()),
            submission: Mutex::new(()),
            waits: Mutex::new(Vec::new()),
        }
    }

    /// The legacy default stream's queue.
    pub fn legacy(self: &Arc<Self>) -> Arc<Queue> {
        self.legacy
            .get_or_init(|| Queue::new(true, Arc::downgrade(self)))
            .clone()
    }

    /// Creates the queue of a new stream of this context.
    pub fn new_queue(self: &Arc<Self>, blocking: bool) -> Arc<Queue> {
        let q = Queue::new(blocking, Arc::downgrade(self));
        let mut streams = self.streams.lock();
        streams.retain(|w| w.strong_count() > 0);
        streams.push(Arc::downgrade(&q));
        q
    }

    /// The live queues of this context's streams other than the legacy default stream.
    pub fn stream_queues(&self) -> Vec<Arc<Queue>> {
        self.streams
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// Waits for all work submitted to this context so far (every stream), then flushes
    /// device printf output: what `cuCtxSynchronize` does. Does not check the sticky error.
    pub fn wait_idle(self: &Arc<Self>) {
        if let Some(l) = self.legacy.get() {
            l.wait_all();
        }
        for q in self.stream_queues() {
            q.wait_all();
        }
        crate::printf::flush();
    }

    pub fn handle(self: &Arc<Self>) -> CUcontext {
        Arc::as_ptr(self) as CUcontext
    }

    /// The sticky error, if asynchronous work of this context has faulted.
    pub fn check(&self) -> CuResult {
        match *self.sticky.lock() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Records a fault of asynchronous work (the first one wins, as on a GPU).
    pub fn set_sticky(&self, error: CUresult) {
        self.sticky.lock().get_or_insert(error);
    }

    /// Runs the CLS destructors cudart registered (once each, after removal), as the context
    /// goes away.
    pub(crate) fn run_cls_destructors(self: &Arc<Self>) {
        let entries = std::mem::take(&mut *self.cls.lock());
        for e in entries {
            if let Some(dtor) = e.dtor {
                // SAFETY: cudart registered `dtor` with this value for this context, to be
                // called when the context goes away; it is called once, after removal.
                unsafe { dtor(self.handle(), e.key as *mut c_void, e.value as *mut c_void) };
            }
        }
    }

    /// Forgets the sticky error (the end of a reset or destruction).
    pub(crate) fn clear_sticky(&self) {
        *self.sticky.lock() = None;
    }

    pub fn cls_put(&self, key: usize, value: usize, dtor: Option<ClsDtor>) {
        let mut cls = self.cls.lock();
        cls.retain(|e| e.key != key);
        cls.push(ClsEntry { key, value, dtor });
    }

    pub fn cls_get(&self, key: usize) -> Option<usize> {
        self.cls
            .lock()
            .iter()
            .find(|e| e.key == key)
            .map(|e| e.value)
    }

    /// Removes a value without running its destructor (cudart deletes what it cleans itself).
    pub fn cls_delete(&self, key: usize) -> bool {
        let mut cls = self.cls.lock();
        let before = cls.len();
        cls.retain(|e| e.key != key);
        cls.len() != before
    }
}

impl Owner for Context {
    fn work_panicked(&self) {
        self.set_sticky(CUresult::CUDA_ERROR_LAUNCH_FAILED);
    }
}

/// The primary context of each device, by ordinal.
static PRIMARY: OnceCell<Vec<Arc<Context>>> = OnceCell::new();

/// Creates the devices' primary context objects (inactive) at `cuInit`; their handles never
/// change, so CUDART_INTERFACE[2] can hand one out before it is retained.
pub fn init_primary() {
    PRIMARY.get_or_init(|| {
        (0..device::count().max(1) as CUdevice)
            .map(|dev| {
                let ctx = Arc::new(Context::new(dev, true, 0));
                CONTEXTS.insert(ctx.clone());
                ctx
            })
            .collect()
    });
}

/// The primary context of device `dev`, which the caller has checked (an ordinal out of range
/// gets device 0's).
pub fn primary(dev: CUdevice) -> &'static Arc<Context> {
    init_primary();
    let all = PRIMARY.get().expect("initialised above");
    all.get(dev as usize).unwrap_or(&all[0])
}

thread_local! {
    /// This thread's context stack; the top is the current context.
    pub(crate) static STACK: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

pub(crate) fn top() -> Option<usize> {
    // At process exit (cudart unloads from an atexit handler) the stack may be gone already.
    STACK
        .try_with(|s| s.borrow().last().copied())
        .ok()
        .flatten()
}

/// The current context, without the sticky-error check. The primary context after
/// `cuDevicePrimaryCtxReset` (or its last release), until it is retained again, stays current
/// with the same handle, but work in it is CUDA_ERROR_CONTEXT_IS_DESTROYED (see [`live`]).
pub fn current() -> CuResult<Arc<Context>> {
    let h = top().ok_or(INVALID_CONTEXT)?;
    let ctx = CONTEXTS.get(h as *mut c_void)?;
    live(&ctx)?;
    Ok(ctx)
}

/// CUDA_ERROR_CONTEXT_IS_DESTROYED for the primary context while no one retains it (after a
/// reset or its last release): the real driver keeps it current, with the same handle, and
/// answers calls that work in it so, stale handles included, until it is retained again
/// (driver 580.159, scripts/ground-truth/results/limits-and-stale-h200.txt).
pub fn live(ctx: &Context) -> CuResult {
    if ctx.primary && ctx.refcount.load(Ordering::Acquire) == 0 {
        return Err(CUresult::CUDA_ERROR_CONTEXT_IS_DESTROYED);
    }
    Ok(())
}

/// Fails as [`current`] does when there is a current context that is destroyed, and succeeds
/// when there is none or it lives: the check calls that name their object by a handle (a
/// stream, an event) make first, so that a stale handle after a reset is
/// CUDA_ERROR_CONTEXT_IS_DESTROYED rather than an invalid handle, as the real driver answers.
pub fn check_current_live() -> CuResult {
    match top().and_then(|h| CONTEXTS.find(h as *mut c_void)) {
        Some(ctx) => live(&ctx),
        None => Ok(()),
    }
}

/// The current context, failing with its sticky error if asynchronous work faulted: what
/// almost every call that works in a context does first.
pub fn active() -> CuResult<Arc<Context>> {
    let ctx = current()?;
    ctx.check()?;
    Ok(ctx)
}
