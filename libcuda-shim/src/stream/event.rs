//! Events. Recording submits a marker to the stream; the marker runs once every piece of work
//! the event captures has completed and stamps the time then, so elapsed times are real times
//! of completion. Query, synchronize and `cuStreamWaitEvent` look at the completion of the
//! latest record's marker; later records overwrite earlier ones, as the driver documents.

use crate::context::Dep;
use crate::context::CONTEXTS;
use crate::context::{self, Context};
use crate::errors::{CuResult, INVALID_HANDLE, INVALID_VALUE};
use crate::handles::Registry;
use crate::stream;
use crate::stream::event_share::Shared;
use abi::*;
use parking_lot::Mutex;
use std::ffi::c_uint;
use std::sync::Arc;
use std::time::Instant;

/// Live events.
pub static EVENTS: Registry<Event> = Registry::new(INVALID_HANDLE);

/// The event a handle names, after the check that the current context is not destroyed (see
/// [`crate::stream::stream_object`]).
pub(crate) fn event_object(event: CUevent) -> CuResult<Arc<Event>> {
    context::check_current_live()?;
    EVENTS.get(event)
}

pub struct Event {
    pub flags: u32,
    pub ctx: Arc<Context>,
    state: Mutex<Recording>,
    /// The completion page other processes see (interprocess events only).
    pub shared: Option<Arc<Shared>>,
}

#[derive(Default)]
struct Recording {
    /// Incremented by every record, so a stale marker does not stamp a newer record.
    generation: u64,
    /// The latest record's marker (None: never recorded).
    marker: Option<Dep>,
    /// When the latest record's marker ran.
    time: Option<Instant>,
    /// The shared record number of this process's latest record (interprocess events).
    shared_seq: u64,
}

impl Event {
    /// The completion the latest record captured, if it was ever recorded.
    pub fn captured(&self) -> Option<Dep> {
        let st = self.state.lock();
        if let Some(sh) = &self.shared {
            let latest = sh.recorded();
            if latest != st.shared_seq {
                // Another process made the latest record: wait for it through the page.
                drop(st);
                return sh.dep(latest, &self.ctx);
            }
        }
        st.marker.clone()
    }

    /// Whether the work the latest record captured has completed (true before any record).
    pub fn complete(&self) -> bool {
        let st = self.state.lock();
        if let Some(sh) = &self.shared {
            let latest = sh.recorded();
            if latest != st.shared_seq {
                return sh.is_complete(latest);
            }
        }
        st.marker.as_ref().is_none_or(|m| m.done())
    }

    /// An event opened from another process's handle (`cuIpcOpenEventHandle`), in `ctx`.
    pub(crate) fn opened(ctx: Arc<Context>, shared: Shared) -> Event {
        Event {
            flags: DISABLE_TIMING | INTERPROCESS,
            ctx,
            state: Mutex::new(Recording::default()),
            shared: Some(Arc::new(shared)),
        }
    }
}

/// CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS; the last needs
/// DISABLE_TIMING, as the driver requires.
const BLOCKING_SYNC: u32 = 0x1;
const DISABLE_TIMING: u32 = 0x2;
pub(crate) const INTERPROCESS: u32 = 0x4;

pub(crate) unsafe fn create(event: *mut CUevent, flags: c_uint) -> CuResult {
    if event.is_null() || flags & !(BLOCKING_SYNC | DISABLE_TIMING | INTERPROCESS) != 0 {
        return Err(INVALID_VALUE);
    }
    if flags & INTERPROCESS != 0 && flags & DISABLE_TIMING == 0 {
        return Err(INVALID_VALUE);
    }
    let ctx = context::active()?;
    // An interprocess event keeps its completion in a page other processes can map, from the
    // start, so records made before its handle is taken are seen too.
    let shared = if flags & INTERPROCESS != 0 {
        Some(Arc::new(
            Shared::create().map_err(|_| CUresult::CUDA_ERROR_OUT_OF_MEMORY)?,
        ))
    } else {
        None
    };
    let e = Arc::new(Event {
        flags,
        ctx,
        state: Mutex::new(Recording::default()),
        shared,
    });
    let h = EVENTS.insert(e);
    // SAFETY: checked non-null.
    unsafe { *event = h as CUevent };
    Ok(())
}

/// The handle dies now; a record still pending completes harmlessly (its marker holds the
/// event), as the driver documents for an event destroyed before it completes.
pub(crate) unsafe fn destroy(event: CUevent) -> CuResult {
    event_object(event)?;
    EVENTS.remove(event as usize);
    Ok(())
}

pub(crate) unsafe fn record(event: CUevent, s: CUstream) -> CuResult {
    let e = event_object(event)?;
    let t = stream::target(s)?;
    if !Arc::ptr_eq(&t.ctx, &e.ctx) {
        return Err(INVALID_HANDLE);
    }
    // In a capturing stream the event comes to stand for the captured work instead.
    if crate::stream::capture::record_event(&t, event as usize)? {
        return Ok(());
    }
    record_on(&e, &t);
    Ok(())
}

/// Records `e` in `t`'s queue (also the body of a graph's event record node).
pub(crate) fn record_on(e: &Arc<Event>, t: &stream::Target) {
    record_after(e, t, Vec::new())
}

/// Records `e` in `t`'s queue, also after `deps`.
fn record_after(e: &Arc<Event>, t: &stream::Target, deps: Vec<Dep>) {
    let (generation, shared_seq) = {
        let mut st = e.state.lock();
        st.generation += 1;
        st.time = None;
        if let Some(sh) = &e.shared {
            st.shared_seq = sh.record();
        }
        (st.generation, st.shared_seq)
    };
    let stamp = e.clone();
    let marker = stream::submit(
        t,
        deps,
        Box::new(move |_| {
            if let Some(sh) = &stamp.shared {
                sh.complete(shared_seq);
            }
            let mut st = stamp.state.lock();
            if st.generation == generation {
                st.time = Some(Instant::now());
            }
        }),
    );
    let mut st = e.state.lock();
    if st.generation == generation {
        st.marker = Some(marker);
    }
}

pub(crate) unsafe fn record_with_flags(event: CUevent, s: CUstream, flags: c_uint) -> CuResult {
    // CU_EVENT_RECORD_DEFAULT or CU_EVENT_RECORD_EXTERNAL (graphs only; same effect here).
    if flags > 1 {
        return Err(INVALID_VALUE);
    }
    if flags == 1 {
        // CU_EVENT_RECORD_EXTERNAL: in a capture, an event record node.
        event_object(event)?;
        let t = stream::target(s)?;
        if crate::stream::capture::intercept(&t, || crate::work::Kind::EventRecord(event))? {
            return Ok(());
        }
    }
    // SAFETY: forwarded contract.
    unsafe { record(event, s) }
}

pub(crate) unsafe fn synchronize(event: CUevent) -> CuResult {
    let e = event_object(event)?;
    if let Some(m) = e.captured() {
        m.wait();
    }
    crate::printf::flush();
    e.ctx.check()
}

pub(crate) unsafe fn query(event: CUevent) -> CuResult {
    let e = event_object(event)?;
    e.ctx.check()?;
    // Before its first record an event stands for no work: complete.
    if e.complete() {
        Ok(())
    } else {
        Err(CUresult::CUDA_ERROR_NOT_READY)
    }
}

/// What elapsed time needs of an event: recorded (else INVALID_HANDLE), complete (else
/// NOT_READY), and its completion time.
fn completion_time(e: &Event) -> CuResult<Instant> {
    let st = e.state.lock();
    let marker = st.marker.as_ref().ok_or(INVALID_HANDLE)?;
    if !marker.done() {
        return Err(CUresult::CUDA_ERROR_NOT_READY);
    }
    st.time.ok_or(CUresult::CUDA_ERROR_NOT_READY)
}

pub(crate) unsafe fn elapsed_time(ms: *mut f32, start: CUevent, end: CUevent) -> CuResult {
    if ms.is_null() {
        return Err(INVALID_VALUE);
    }
    let (s, e) = (event_object(start)?, event_object(end)?);
    if (s.flags | e.flags) & DISABLE_TIMING != 0 {
        return Err(INVALID_HANDLE);
    }
    let (t0, t1) = (completion_time(&s)?, completion_time(&e)?);
    let v = if t1 >= t0 {
        (t1 - t0).as_secs_f64() * 1e3
    } else {
        -((t0 - t1).as_secs_f64() * 1e3)
    };
    // SAFETY: checked non-null.
    unsafe { *ms = v as f32 };
    Ok(())
}

/// cuCtxRecordEvent: the event captures all work submitted to the context so far, on every
/// stream (non-blocking ones included). Its marker runs on a queue of its own, so no stream
/// of the context waits for it.
pub(crate) unsafe fn ctx_record_event(ctx: CUcontext, event: CUevent) -> CuResult {
    let c = CONTEXTS.get(ctx)?;
    let e = event_object(event)?;
    if !Arc::ptr_eq(&c, &e.ctx) {
        return Err(INVALID_HANDLE);
    }
    crate::stream::capture::refuse_context(&c, None)?;
    let mut deps: Vec<Dep> = c
        .stream_queues()
        .iter()
        .filter_map(|q| q.pending())
        .collect();
    deps.extend(c.legacy().pending());
    let own = stream::Target {
        ctx: c.clone(),
        queue: crate::context::Queue::new(false, Arc::downgrade(&c)),
    };
    record_after(&e, &own, deps);
    Ok(())
}

/// cuCtxWaitEvent: all work submitted to the context after this call, on any stream, waits
/// for the work the event's latest record captured (the event may belong to another context).
pub(crate) unsafe fn ctx_wait_event(ctx: CUcontext, event: CUevent) -> CuResult {
    let c = CONTEXTS.get(ctx)?;
    let e = event_object(event)?;
    crate::stream::capture::refuse_context(&c, Some(event as usize))?;
    if let Some(dep) = e.captured() {
        c.waits.lock().push(dep);
    }
    Ok(())
}
