//! Launching: CTAs of a grid run in parallel on a pool of host threads (created lazily at the
//! first launch, so loading the library starts no thread); each CTA runs its warps on one host
//! thread, which keeps barriers and shared memory simple and runs deterministic.

pub mod cta;
pub mod mbar;
pub mod sys;
pub mod warp;

use crate::{ExecError, ExecErrorKind, Kernel, LaunchConfig};
use parking_lot::{Condvar, Mutex};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

/// 0 = all cores.
static WORKERS: AtomicUsize = AtomicUsize::new(0);
static THREAD_INSTRUCTIONS: AtomicU64 = AtomicU64::new(0);
/// Per-thread stack bytes (CUDA's `cudaLimitStackSize`, 1 KiB by default).
static STACK_SIZE: AtomicUsize = AtomicUsize::new(1024);

pub fn set_stack_size(bytes: usize) {
    STACK_SIZE.store(bytes.min(u32::MAX as usize), Ordering::Relaxed);
}

pub fn stack_size() -> usize {
    STACK_SIZE.load(Ordering::Relaxed)
}

pub fn set_worker_threads(n: usize) {
    WORKERS.store(n, Ordering::Relaxed);
}

pub fn worker_threads() -> usize {
    match WORKERS.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

pub fn thread_instructions() -> u64 {
    THREAD_INSTRUCTIONS.load(Ordering::Relaxed)
}

struct Job {
    kernel: Arc<Kernel>,
    cfg: LaunchConfig,
    params: Vec<u8>,
    stack_size: u32,
    next: AtomicU64,
    total: u64,
    stop: AtomicBool,
    /// The error of the lowest-numbered failing CTA (deterministic across thread counts when a
    /// single CTA faults).
    error: Mutex<Option<(u64, ExecError)>>,
    pending: Mutex<usize>,
    done: Condvar,
}

/// Reusable per-thread buffers so CTAs do not allocate.
#[derive(Default)]
struct Scratch {
    regs: Vec<u64>,
    shared: Vec<u8>,
    local: Vec<u8>,
}

impl Job {
    fn work(&self, scratch: &mut Scratch) {
        let prog = &self.kernel.program;
        let [gx, gy, _] = self.cfg.grid;
        let ntid = self.cfg.block;
        let nthreads = (ntid[0] * ntid[1] * ntid[2]) as usize;
        let shared_len = prog.dyn_shared_off as usize + self.cfg.dynamic_shared_bytes as usize;
        let shared_len = shared_len.max(prog.shared_static as usize);
        // With alloca, each thread's stack follows its locals (its top is the end of the area).
        let local_bytes = prog.local_bytes as usize
            + if prog.uses_alloca {
                self.stack_size as usize
            } else {
                0
            };
        let mut count = 0;
        // This thread's allocation cache for the launch (see `cta::GCache`).
        let mut gcache = cta::GCache::default();
        loop {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let idx = self.next.fetch_add(1, Ordering::Relaxed);
            if idx >= self.total {
                break;
            }
            let ctaid = [
                (idx % gx as u64) as u32,
                ((idx / gx as u64) % gy as u64) as u32,
                (idx / (gx as u64 * gy as u64)) as u32,
            ];
            scratch.shared.clear();
            scratch.shared.resize(shared_len, 0);
            scratch.local.clear();
            scratch
                .local
                .resize(local_bytes * nthreads.div_ceil(32) * 32, 0);
            let generation = sys::heap_generation();
            if gcache.generation != generation {
                gcache = cta::GCache::new(generation);
            }
            let r = catch_unwind(AssertUnwindSafe(|| {
                let mut c = cta::Cta {
                    prog,
                    kernel: &self.kernel.name,
                    params: &self.params,
                    shared: &mut scratch.shared,
                    local: &mut scratch.local,
                    local_bytes,
                    stack_size: self.stack_size,
                    ctaid,
                    ntid,
                    nctaid: self.cfg.grid,
                    nwarps: nthreads.div_ceil(32) as u32,
                    dyn_bytes: self.cfg.dynamic_shared_bytes,
                    thread_instructions: 0,
                    epoch: 0,
                    expire_waits: false,
                    gcache: &mut gcache,
                    tmp: [[0; 32]; 4],
                };
                let r = cta::run_cta(&mut c, &mut scratch.regs);
                (r, c.thread_instructions)
            }));
            let err = match r {
                Ok((Ok(()), n)) => {
                    count += n;
                    None
                }
                Ok((Err(e), n)) => {
                    count += n;
                    Some(e)
                }
                Err(p) => Some(ExecError {
                    kind: ExecErrorKind::Trap,
                    message: format!(
                        "internal error in kernel '{}' at block ({},{},{}): {}",
                        self.kernel.name,
                        ctaid[0],
                        ctaid[1],
                        ctaid[2],
                        p.downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| p.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "panic".into())
                    ),
                }),
            };
            if let Some(e) = err {
                let mut g = self.error.lock();
                if g.as_ref().is_none_or(|(i, _)| idx < *i) {
                    *g = Some((idx, e));
                }
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        THREAD_INSTRUCTIONS.fetch_add(count, Ordering::Relaxed);
    }

    fn finish(&self) {
        let mut p = self.pending.lock();
        *p -= 1;
        if *p == 0 {
            self.done.notify_all();
        }
    }
}

struct Pool {
    senders: Vec<mpsc::Sender<Arc<Job>>>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    senders: Vec::new(),
});

fn spawn_worker() -> mpsc::Sender<Arc<Job>> {
    let (tx, rx) = mpsc::channel::<Arc<Job>>();
    std::thread::Builder::new()
        .name("cuda-shim-worker".into())
        .spawn(move || {
            let mut scratch = Scratch::default();
            while let Ok(job) = rx.recv() {
                // Job::work catches panics per CTA; this guard keeps the worker alive even if
                // bookkeeping itself panics.
                let _ = catch_unwind(AssertUnwindSafe(|| job.work(&mut scratch)));
                job.finish();
            }
        })
        .expect("spawn worker thread");
    tx
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

pub fn launch(kernel: &Arc<Kernel>, cfg: &LaunchConfig, params: &[u8]) -> Result<(), ExecError> {
    let bad = |m: String| {
        Err(ExecError {
            kind: ExecErrorKind::InvalidLaunch,
            message: m,
        })
    };
    let nthreads = cfg.block.iter().map(|&x| x as u64).product::<u64>();
    if cfg.block.contains(&0) || cfg.grid.contains(&0) {
        return bad(format!("kernel '{}': empty grid or block", kernel.name));
    }
    if nthreads > 1024 || cfg.block[2] > 64 {
        return bad(format!(
            "kernel '{}': {nthreads} threads per block exceed 1024",
            kernel.name
        ));
    }
    if kernel.max_threads_per_block != 0 && nthreads > kernel.max_threads_per_block as u64 {
        return Err(ExecError {
            kind: ExecErrorKind::OutOfResources,
            message: format!(
                "kernel '{}': {nthreads} threads per block exceed its .maxntid {}",
                kernel.name, kernel.max_threads_per_block
            ),
        });
    }
    if params.len() < kernel.param_bytes {
        return bad(format!(
            "kernel '{}': parameter block of {} bytes, {} needed",
            kernel.name,
            params.len(),
            kernel.param_bytes
        ));
    }
    let total = cfg.grid.iter().map(|&x| x as u64).product::<u64>();
    let helpers = (worker_threads().max(1) - 1).min(total as usize - 1);
    let job = Arc::new(Job {
        kernel: kernel.clone(),
        cfg: *cfg,
        params: params.to_vec(),
        stack_size: stack_size() as u32,
        next: AtomicU64::new(0),
        total,
        stop: AtomicBool::new(false),
        error: Mutex::new(None),
        pending: Mutex::new(helpers),
        done: Condvar::new(),
    });
    if helpers > 0 {
        let mut pool = POOL.lock();
        while pool.senders.len() < helpers {
            let s = spawn_worker();
            pool.senders.push(s);
        }
        for s in pool.senders.iter().take(helpers) {
            if s.send(job.clone()).is_err() {
                job.finish();
            }
        }
    }
    // The launching thread works too: with one worker no thread is ever spawned.
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => job.work(&mut s),
        Err(_) => job.work(&mut Scratch::default()),
    });
    let mut p = job.pending.lock();
    while *p > 0 {
        job.done.wait(&mut p);
    }
    drop(p);
    let e = job.error.lock().take();
    match e {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}
