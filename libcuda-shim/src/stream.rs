//! Streams: created streams, the legacy default stream and the per-thread default stream, each
//! a [`Queue`] served by its own worker thread (see `queue`). Launches, asynchronous copies and
//! memsets, event records, waits and host functions are submitted here with [`submit`], which
//! adds the implicit synchronisation of the legacy default stream: its work waits for all
//! earlier work of the context's blocking streams, and their work waits for its earlier work;
//! `CU_STREAM_NON_BLOCKING` streams take no part. The per-thread default stream is a blocking
//! stream of its (thread, context).
//!
//! A fault of asynchronous work becomes the context's sticky error (see `launch::kernel`); work queued
//! after it is skipped, as a faulted GPU context runs nothing more.
//!
//! This is what every enqueueing call uses; the `cuStream*` calls themselves are
//! `stream::calls`, stream capture `stream::capture` and events `stream::event`.

pub mod calls;
pub mod capture;
pub mod event;
pub mod event_share;

use crate::context::{self, Context};
use crate::context::{Dep, Queue, Work};
use crate::errors::{CuResult, INVALID_HANDLE};
use crate::handles::Registry;
use abi::*;
use std::cell::{Cell, RefCell};
use std::sync::Arc;

/// Created streams (the special handles NULL, `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`
/// are resolved by [`lookup`] without it).
pub static STREAMS: Registry<Stream> = Registry::new(INVALID_HANDLE);

/// The stream a handle names. A destroyed current context comes first
/// (CUDA_ERROR_CONTEXT_IS_DESTROYED, [`context::check_current_live`]): a stream of a reset
/// primary context is answered so until the context is retained again, and an invalid handle
/// after that, as the real driver answers.
pub fn stream_object(s: CUstream) -> CuResult<Arc<Stream>> {
    context::check_current_live()?;
    STREAMS.get(s)
}

pub struct Stream {
    pub id: u64,
    pub flags: u32,
    pub ctx: Arc<Context>,
    pub queue: Arc<Queue>,
}

/// `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`, the special handles.
pub(crate) const LEGACY: usize = 0x1;
pub(crate) const PER_THREAD: usize = 0x2;

thread_local! {
    /// Whether the entry point running on this thread is a `_ptds`/`_ptsz` variant (set by
    /// `exports::call`), which makes the NULL stream mean the per-thread default stream.
    static PER_THREAD_CALL: Cell<bool> = const { Cell::new(false) };
    /// This thread's per-thread default streams, one per context id.
    static PER_THREAD_QUEUES: RefCell<Vec<(u64, Arc<Queue>)>> = const { RefCell::new(Vec::new()) };
}

/// Whether the entry point running on this thread is a `_ptds`/`_ptsz` variant.
pub(crate) fn per_thread_call() -> bool {
    PER_THREAD_CALL.try_with(Cell::get).unwrap_or(false)
}

pub(crate) fn set_per_thread_call(on: bool) {
    // At process exit this thread's storage may be gone; the flag is then moot.
    let _ = PER_THREAD_CALL.try_with(|c| c.set(on));
}

fn per_thread_queue(ctx: &Arc<Context>) -> Arc<Queue> {
    let found = PER_THREAD_QUEUES.try_with(|m| {
        let mut m = m.borrow_mut();
        if let Some((_, q)) = m.iter().find(|(id, _)| *id == ctx.id) {
            return q.clone();
        }
        let q = ctx.new_queue(true);
        m.push((ctx.id, q.clone()));
        q
    });
    // Past this thread's storage (process exit): a fresh blocking queue behaves the same.
    found.unwrap_or_else(|_| ctx.new_queue(true))
}

/// Where work for a stream argument goes.
#[derive(Clone)]
pub struct Target {
    pub ctx: Arc<Context>,
    pub queue: Arc<Queue>,
}

/// Resolves a stream argument without the sticky-error check: NULL is the legacy default
/// stream (the per-thread one in a `_ptsz` call), `CU_STREAM_LEGACY`/`CU_STREAM_PER_THREAD`
/// name theirs, anything else must be a live created stream.
pub fn lookup(s: CUstream) -> CuResult<Target> {
    let special = |per_thread: bool| -> CuResult<Target> {
        let ctx = context::current()?;
        let queue = if per_thread {
            per_thread_queue(&ctx)
        } else {
            ctx.legacy()
        };
        Ok(Target { ctx, queue })
    };
    match s as usize {
        0 => special(per_thread_call()),
        LEGACY => special(false),
        PER_THREAD => special(true),
        _ => {
            let st = stream_object(s)?;
            Ok(Target {
                ctx: st.ctx.clone(),
                queue: st.queue.clone(),
            })
        }
    }
}

/// Resolves a stream argument, failing with the sticky error if its context has faulted.
pub fn target(s: CUstream) -> CuResult<Target> {
    let t = lookup(s)?;
    t.ctx.check()?;
    Ok(t)
}

/// Validates a stream argument and returns its context (see [`target`]).
pub fn resolve(s: CUstream) -> CuResult<Arc<Context>> {
    target(s).map(|t| t.ctx)
}

/// Submits `work` to `t`'s queue after `deps` and the legacy default stream's implicit
/// dependencies; returns its completion.
pub fn submit(t: &Target, deps: Vec<Dep>, work: Work) -> Dep {
    let _order = t.ctx.submission.lock();
    let mut deps = deps;
    implicit_deps(t, &mut deps);
    t.queue.push(deps, work)
}

/// The context's submission lock, when `t` has nothing to wait for: its queue is idle and no
/// implicit dependency (cuCtxWaitEvent's, the legacy stream's) is pending. Work done while the
/// lock is held is in stream order, as nothing can be submitted around it: a copy the caller
/// would wait for runs on the calling thread, without the hand-off to the stream's worker.
pub fn idle(t: &Target) -> Option<parking_lot::MutexGuard<'_, ()>> {
    let order = t.ctx.submission.lock();
    let mut deps = Vec::new();
    implicit_deps(t, &mut deps);
    (t.queue.idle() && deps.iter().all(|d| d.done())).then_some(order)
}

/// Adds what work submitted to `t` must wait for besides its own queue: the context's
/// cuCtxWaitEvent dependencies and the legacy default stream's implicit synchronisation. The
/// caller holds the context's submission lock.
fn implicit_deps(t: &Target, deps: &mut Vec<Dep>) {
    {
        let mut waits = t.ctx.waits.lock();
        if !waits.is_empty() {
            waits.retain(|d| !d.done());
            deps.extend(waits.iter().cloned());
        }
    }
    let legacy = t.ctx.legacy();
    if Arc::ptr_eq(&t.queue, &legacy) {
        deps.extend(
            t.ctx
                .stream_queues()
                .iter()
                .filter(|q| q.blocking)
                .filter_map(|q| q.pending()),
        );
    } else if t.queue.blocking {
        deps.extend(legacy.pending());
    }
}

/// Submits `work` that runs only while the context has no sticky error.
pub fn submit_unless_faulted(t: &Target, work: impl FnOnce(&Arc<Context>) + Send + 'static) -> Dep {
    submit(
        t,
        Vec::new(),
        Box::new(move |ctx| {
            if ctx.check().is_ok() {
                work(ctx)
            }
        }),
    )
}

/// Waits for `dep`, flushes device printf output and reports the context's sticky error: the
/// end of every call that blocks the host on stream work.
pub fn wait(t: &Target, dep: &Dep) -> CuResult {
    dep.wait();
    crate::printf::flush();
    t.ctx.check()
}
