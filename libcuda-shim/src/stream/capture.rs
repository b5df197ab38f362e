//! Stream capture: while a stream captures, the work enqueued to it becomes nodes of a graph
//! instead of running. Each capturing stream has a set of "current" nodes that the next
//! captured operation depends on; `cuEventRecord` in a capturing stream makes the event stand
//! for that set, and `cuStreamWaitEvent` on such an event joins another stream to the capture
//! (or adds the set to its dependencies), which is how captures fork and join across streams.
//!
//! The rules follow the driver documentation (cuStreamBeginCapture, cuStreamEndCapture,
//! cuThreadExchangeStreamCaptureMode, "Stream Capture" in the programming guide):
//! - the legacy NULL stream cannot capture (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED), a stream
//!   already capturing cannot begin again (CUDA_ERROR_ILLEGAL_STATE);
//! - a potentially unsafe call (synchronous copies and memsets, allocation and free,
//!   context synchronisation) is refused with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED when the
//!   calling thread's capture mode forbids it, and the caller's own captures are invalidated:
//!   global mode forbids it while this thread has a non-relaxed capture or any thread has a
//!   global-mode capture, thread-local mode only for this thread's non-relaxed captures,
//!   relaxed mode never;
//! - synchronising or querying a capturing stream is CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and
//!   invalidates its capture; work on the legacy stream that would synchronise implicitly with
//!   a capturing blocking stream is CUDA_ERROR_STREAM_CAPTURE_IMPLICIT and invalidates it;
//! - waiting in a capture for an event recorded outside it is CUDA_ERROR_STREAM_CAPTURE_ISOLATION
//!   unless `CU_EVENT_WAIT_EXTERNAL` asks for an event-wait node;
//! - cuStreamEndCapture must be called on the origin stream (CUDA_ERROR_STREAM_CAPTURE_UNMATCHED
//!   on a joined one), from the beginning thread unless the mode is relaxed
//!   (CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD), with every forked stream joined back
//!   (CUDA_ERROR_STREAM_CAPTURE_UNJOINED); an invalidated capture ends with
//!   CUDA_ERROR_STREAM_CAPTURE_INVALIDATED and no graph.

use crate::context::Queue;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::stream::{self, Target};
use crate::work::GRAPHS;
use crate::work::NODES;
use crate::work::{Graph, Kind};
use abi::*;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::ffi::c_uint;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::ThreadId;

const UNSUPPORTED: CUresult = CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
const MODE_GLOBAL: u32 = 0;
const MODE_RELAXED: u32 = 2;

pub struct Capture {
    pub id: u64,
    pub graph: Arc<Graph>,
    mode: u32,
    thread: ThreadId,
    /// The queue that began the capture.
    origin: usize,
    invalidated: AtomicBool,
    /// Captured into the program's graph (cuStreamBeginCaptureToGraph), which a failed capture
    /// leaves to the program.
    into_existing: bool,
}

/// One stream taking part in a capture.
struct Member {
    capture: Arc<Capture>,
    queue: Arc<Queue>,
    ctx: usize,
    /// The nodes the next captured operation depends on.
    deps: Vec<usize>,
    /// What cuStreamGetCaptureInfo last handed out (valid until the next call on the stream).
    out_deps: Vec<usize>,
    out_edges: Vec<CUgraphEdgeData>,
}

#[derive(Default)]
struct State {
    /// By queue address.
    streams: HashMap<usize, Member>,
    /// Events recorded in a capture: the capture and the nodes they stand for.
    events: HashMap<usize, (Arc<Capture>, Vec<usize>)>,
}

static STATE: Lazy<Mutex<State>> = Lazy::new(Default::default);
/// Number of capturing streams: lets every enqueue skip the lock when nothing captures.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This thread's capture interaction mode (cuThreadExchangeStreamCaptureMode).
    static MODE: Cell<u32> = const { Cell::new(MODE_GLOBAL) };
}

fn key(q: &Arc<Queue>) -> usize {
    Arc::as_ptr(q) as usize
}

fn is_legacy(t: &Target) -> bool {
    Arc::ptr_eq(&t.queue, &t.ctx.legacy())
}

fn invalidate(c: &Capture) {
    c.invalidated.store(true, Ordering::Release);
}

/// Capturing blocking streams of `t`'s context, when `t` is the legacy stream: legacy work
/// would synchronise with them implicitly, which no capture can express.
fn implicit_conflict(s: &State, t: &Target) -> bool {
    if !is_legacy(t) {
        return false;
    }
    let ctx = Arc::as_ptr(&t.ctx) as usize;
    let mut hit = false;
    for m in s
        .streams
        .values()
        .filter(|m| m.ctx == ctx && m.queue.blocking)
    {
        invalidate(&m.capture);
        hit = true;
    }
    hit
}

/// Called by every enqueueing operation: when `t` captures, adds the node `make` describes
/// and returns true (the caller must not run the work); false when `t` does not capture.
pub fn intercept(t: &Target, make: impl FnOnce() -> Kind) -> CuResult<bool> {
    if ACTIVE.load(Ordering::Acquire) == 0 {
        return Ok(false);
    }
    let mut s = STATE.lock();
    if let Some(m) = s.streams.get_mut(&key(&t.queue)) {
        if m.capture.invalidated.load(Ordering::Acquire) {
            return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        }
        let node = m.capture.graph.add(make(), &m.deps, 0);
        m.deps = vec![node.handle()];
        return Ok(true);
    }
    if implicit_conflict(&s, t) {
        return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    }
    Ok(false)
}

/// Refuses an operation that may not be captured at all (stream callbacks, stream-ordered
/// allocation here), invalidating the capture.
pub fn refuse(t: &Target) -> CuResult {
    if ACTIVE.load(Ordering::Acquire) == 0 {
        return Ok(());
    }
    let s = STATE.lock();
    if let Some(m) = s.streams.get(&key(&t.queue)) {
        invalidate(&m.capture);
        return Err(UNSUPPORTED);
    }
    if implicit_conflict(&s, t) {
        return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    }
    Ok(())
}

/// The check of a potentially unsafe call (see the module documentation).
pub fn check_unsafe_call() -> CuResult {
    if ACTIVE.load(Ordering::Acquire) == 0 {
        return Ok(());
    }
    let mode = MODE.try_with(Cell::get).unwrap_or(MODE_GLOBAL);
    if mode == MODE_RELAXED {
        return Ok(());
    }
    let me = std::thread::current().id();
    let s = STATE.lock();
    let mut forbidden = false;
    for m in s.streams.values() {
        let c = &m.capture;
        if c.thread == me && c.mode != MODE_RELAXED {
            invalidate(c);
            forbidden = true;
        } else if mode == MODE_GLOBAL && c.mode == MODE_GLOBAL {
            forbidden = true;
        }
    }
    if forbidden {
        Err(UNSUPPORTED)
    } else {
        Ok(())
    }
}

/// cuStreamSynchronize / cuStreamQuery: not allowed on a capturing stream (or on the legacy
/// stream while a blocking stream captures).
pub fn check_sync(t: &Target) -> CuResult {
    if ACTIVE.load(Ordering::Acquire) == 0 {
        return Ok(());
    }
    let s = STATE.lock();
    if let Some(m) = s.streams.get(&key(&t.queue)) {
        invalidate(&m.capture);
        return Err(UNSUPPORTED);
    }
    if implicit_conflict(&s, t) {
        return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    }
    Ok(())
}

/// cuEventRecord: in a capturing stream the event comes to stand for the stream's current
/// nodes (returns true); elsewhere a record replaces any captured state (returns false).
pub fn record_event(t: &Target, event: usize) -> CuResult<bool> {
    if ACTIVE.load(Ordering::Acquire) == 0 {
        // No capture runs, so no event stands for captured work (an ended capture forgets
        // its events).
        return Ok(false);
    }
    let mut s = STATE.lock();
    if let Some(m) = s.streams.get(&key(&t.queue)) {
        if m.capture.invalidated.load(Ordering::Acquire) {
            return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        }
        let entry = (m.capture.clone(), m.deps.clone());
        s.events.insert(event, entry);
        return Ok(true);
    }
    if implicit_conflict(&s, t) {
        return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    }
    s.events.remove(&event);
    Ok(false)
}

/// Whether an event stands for captured work (cuEventQuery/Synchronize may not wait for it).
pub fn event_is_captured(event: usize) -> bool {
    ACTIVE.load(Ordering::Acquire) != 0 && STATE.lock().events.contains_key(&event)
}

/// cuStreamWaitEvent: joins or extends a capture (returns true), or adds an event-wait node
/// for `CU_EVENT_WAIT_EXTERNAL`; false when neither the stream nor the event is in a capture.
pub fn wait_event(t: &Target, event: CUevent, flags: c_uint) -> CuResult<bool> {
    if ACTIVE.load(Ordering::Acquire) == 0 {
        return Ok(false);
    }
    let mut s = STATE.lock();
    let k = key(&t.queue);
    let recorded = s.events.get(&(event as usize)).cloned();
    let live = recorded.filter(|(c, _)| s.streams.values().any(|m| Arc::ptr_eq(&m.capture, c)));
    match (s.streams.get_mut(&k), live) {
        (Some(m), Some((c, nodes))) => {
            if !Arc::ptr_eq(&m.capture, &c) {
                invalidate(&m.capture);
                invalidate(&c);
                return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
            }
            for n in nodes {
                if !m.deps.contains(&n) {
                    m.deps.push(n);
                }
            }
            Ok(true)
        }
        (Some(m), None) => {
            if flags & 1 != 0 {
                let node = m.capture.graph.add(Kind::EventWait(event), &m.deps, 0);
                m.deps = vec![node.handle()];
                return Ok(true);
            }
            invalidate(&m.capture);
            Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_ISOLATION)
        }
        (None, Some((c, nodes))) => {
            // The stream joins the capture, after the event's nodes.
            s.streams.insert(
                k,
                Member {
                    capture: c,
                    queue: t.queue.clone(),
                    ctx: Arc::as_ptr(&t.ctx) as usize,
                    deps: nodes,
                    out_deps: Vec::new(),
                    out_edges: Vec::new(),
                },
            );
            ACTIVE.fetch_add(1, Ordering::AcqRel);
            Ok(true)
        }
        (None, None) => {
            if implicit_conflict(&s, t) {
                return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
            }
            Ok(false)
        }
    }
}

/// cuCtxRecordEvent / cuCtxWaitEvent: refused with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED while
/// a stream of `ctx` captures (those captures are invalidated) or, with `event`, while the
/// event stands for captured work.
pub fn refuse_context(ctx: &Arc<crate::context::Context>, event: Option<usize>) -> CuResult {
    if ACTIVE.load(Ordering::Acquire) == 0 {
        return Ok(());
    }
    let s = STATE.lock();
    let key = Arc::as_ptr(ctx) as usize;
    let mut hit = event.is_some_and(|e| s.events.contains_key(&e));
    for m in s.streams.values().filter(|m| m.ctx == key) {
        invalidate(&m.capture);
        hit = true;
    }
    if hit {
        Err(UNSUPPORTED)
    } else {
        Ok(())
    }
}

// ---- Entry points.

unsafe fn begin(stream: CUstream, mode: u32) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { begin_into(stream, mode, None, Vec::new()) }
}

/// Begins a capture into `into` (a new graph when None), the first captured work after the
/// nodes `deps` of that graph.
unsafe fn begin_into(
    stream: CUstream,
    mode: u32,
    into: Option<Arc<Graph>>,
    deps: Vec<usize>,
) -> CuResult {
    let t = stream::target(stream)?;
    if mode > MODE_RELAXED {
        return Err(INVALID_VALUE);
    }
    if is_legacy(&t) {
        return Err(UNSUPPORTED);
    }
    let mut s = STATE.lock();
    let k = key(&t.queue);
    if s.streams.contains_key(&k) {
        return Err(CUresult::CUDA_ERROR_ILLEGAL_STATE);
    }
    let c = Arc::new(Capture {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        into_existing: into.is_some(),
        graph: into.unwrap_or_else(Graph::create),
        mode,
        thread: std::thread::current().id(),
        origin: k,
        invalidated: AtomicBool::new(false),
    });
    s.streams.insert(
        k,
        Member {
            capture: c,
            queue: t.queue.clone(),
            ctx: Arc::as_ptr(&t.ctx) as usize,
            deps,
            out_deps: Vec::new(),
            out_edges: Vec::new(),
        },
    );
    ACTIVE.fetch_add(1, Ordering::AcqRel);
    Ok(())
}

pub(crate) unsafe fn begin_capture(stream: CUstream) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { begin(stream, MODE_GLOBAL) }
}

pub(crate) unsafe fn begin_capture_v2(stream: CUstream, mode: CUstreamCaptureMode) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { begin(stream, mode.0) }
}

/// `cuStreamBeginCaptureToGraph`: captures into the program's graph, after `deps` (distinct
/// nodes of it; edge data, when given, must be the default full dependency, the only kind of
/// edge this driver has); cuStreamEndCapture then returns that graph.
pub(crate) unsafe fn begin_capture_to_graph(
    stream: CUstream,
    g: CUgraph,
    deps: *const CUgraphNode,
    edges: *const CUgraphEdgeData,
    n: usize,
    mode: CUstreamCaptureMode,
) -> CuResult {
    let graph = GRAPHS.get(g)?;
    if n > 0 && deps.is_null() {
        return Err(INVALID_VALUE);
    }
    let list: Vec<usize> = if n == 0 {
        Vec::new()
    } else {
        // SAFETY: checked non-null; the caller passes `n` handles.
        unsafe { std::slice::from_raw_parts(deps, n) }
            .iter()
            .map(|&d| d as usize)
            .collect()
    };
    for (i, &d) in list.iter().enumerate() {
        let ours = NODES
            .get(d as CUgraphNode)
            .ok()
            .and_then(|n| n.graph.upgrade())
            .is_some_and(|o| Arc::ptr_eq(&o, &graph));
        if !ours || list[..i].contains(&d) {
            return Err(INVALID_VALUE);
        }
    }
    if !edges.is_null() && n > 0 {
        // SAFETY: the caller passes `n` entries.
        let e = unsafe { std::slice::from_raw_parts(edges, n) };
        if e.iter().any(|e| *e != CUgraphEdgeData::default()) {
            return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
        }
    }
    // SAFETY: forwarded contract.
    unsafe { begin_into(stream, mode.0, Some(graph), list) }
}

/// Nodes from which some node of `targets` can be reached (the targets included).
fn ancestors(g: &Graph, targets: &[usize]) -> HashSet<usize> {
    let edges = g.inner.lock().edges.clone();
    let mut seen: HashSet<usize> = targets.iter().copied().collect();
    let mut work: Vec<usize> = targets.to_vec();
    while let Some(n) = work.pop() {
        for &(a, b) in &edges {
            if b == n && seen.insert(a) {
                work.push(a);
            }
        }
    }
    seen
}

pub(crate) unsafe fn end_capture(stream: CUstream, out: *mut CUgraph) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let t = stream::lookup(stream)?;
    let mut s = STATE.lock();
    let k = key(&t.queue);
    let Some(m) = s.streams.get(&k) else {
        return Err(CUresult::CUDA_ERROR_ILLEGAL_STATE);
    };
    let c = m.capture.clone();
    if c.origin != k {
        return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
    }
    if c.mode != MODE_RELAXED && c.thread != std::thread::current().id() {
        return Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
    }
    let joined = {
        let reach = ancestors(&c.graph, &m.deps);
        s.streams
            .values()
            .filter(|o| Arc::ptr_eq(&o.capture, &c))
            .all(|o| o.deps.iter().all(|d| reach.contains(d)))
    };
    // Every stream of the capture stops capturing, whatever the outcome.
    let before = s.streams.len();
    s.streams.retain(|_, o| !Arc::ptr_eq(&o.capture, &c));
    ACTIVE.fetch_sub(before - s.streams.len(), Ordering::AcqRel);
    s.events.retain(|_, (ec, _)| !Arc::ptr_eq(ec, &c));
    drop(s);
    if c.invalidated.load(Ordering::Acquire) || !joined {
        if !c.into_existing {
            c.graph.unregister();
        }
        // SAFETY: checked non-null.
        unsafe { *out = std::ptr::null_mut() };
        return Err(if joined {
            CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        } else {
            CUresult::CUDA_ERROR_STREAM_CAPTURE_UNJOINED
        });
    }
    // SAFETY: checked non-null.
    unsafe { *out = c.graph.handle() };
    Ok(())
}

fn status_of(t: &Target) -> CuResult<CUstreamCaptureStatus> {
    use CUstreamCaptureStatus as S;
    if ACTIVE.load(Ordering::Acquire) == 0 {
        return Ok(S::CU_STREAM_CAPTURE_STATUS_NONE);
    }
    let s = STATE.lock();
    match s.streams.get(&key(&t.queue)) {
        Some(m) if m.capture.invalidated.load(Ordering::Acquire) => {
            Ok(S::CU_STREAM_CAPTURE_STATUS_INVALIDATED)
        }
        Some(_) => Ok(S::CU_STREAM_CAPTURE_STATUS_ACTIVE),
        None if is_legacy(t)
            && s.streams
                .values()
                .any(|m| m.ctx == Arc::as_ptr(&t.ctx) as usize && m.queue.blocking) =>
        {
            // Asking about the legacy stream is itself an implicit synchronisation.
            Err(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
        }
        None => Ok(S::CU_STREAM_CAPTURE_STATUS_NONE),
    }
}

pub(crate) unsafe fn is_capturing(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
) -> CuResult {
    if status.is_null() {
        return Err(INVALID_VALUE);
    }
    let t = stream::lookup(stream)?;
    let st = status_of(&t)?;
    // SAFETY: checked non-null.
    unsafe { *status = st };
    Ok(())
}

/// The common body of the cuStreamGetCaptureInfo versions; every out pointer may be NULL
/// except the status.
unsafe fn info(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
    id: *mut cuuint64_t,
    graph: *mut CUgraph,
    deps: *mut *const CUgraphNode,
    edges: *mut *const CUgraphEdgeData,
    count: *mut usize,
) -> CuResult {
    if status.is_null() {
        return Err(INVALID_VALUE);
    }
    let t = stream::lookup(stream)?;
    let st = status_of(&t)?;
    // SAFETY: checked non-null.
    unsafe { *status = st };
    if st == CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
        return Ok(());
    }
    let mut s = STATE.lock();
    let Some(m) = s.streams.get_mut(&key(&t.queue)) else {
        return Ok(());
    };
    m.out_deps = m.deps.clone();
    m.out_edges = vec![CUgraphEdgeData::default(); m.deps.len()];
    // SAFETY: each pointer is checked for null before the write; the arrays handed out live
    // in the stream's capture state until the next call on the stream.
    unsafe {
        if !id.is_null() {
            *id = m.capture.id;
        }
        if !graph.is_null() {
            *graph = m.capture.graph.handle();
        }
        if !deps.is_null() {
            *deps = m.out_deps.as_ptr() as *const CUgraphNode;
        }
        if !edges.is_null() {
            *edges = m.out_edges.as_ptr();
        }
        if !count.is_null() {
            *count = m.out_deps.len();
        }
    }
    Ok(())
}

pub(crate) unsafe fn get_capture_info(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
    id: *mut cuuint64_t,
) -> CuResult {
    let null = std::ptr::null_mut();
    // SAFETY: forwarded contract.
    unsafe { info(stream, status, id, null, null as _, null as _, null as _) }
}

pub(crate) unsafe fn get_capture_info_v2(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
    id: *mut cuuint64_t,
    graph: *mut CUgraph,
    deps: *mut *const CUgraphNode,
    count: *mut usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { info(stream, status, id, graph, deps, std::ptr::null_mut(), count) }
}

pub(crate) unsafe fn get_capture_info_v3(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
    id: *mut cuuint64_t,
    graph: *mut CUgraph,
    deps: *mut *const CUgraphNode,
    edges: *mut *const CUgraphEdgeData,
    count: *mut usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { info(stream, status, id, graph, deps, edges, count) }
}

pub(crate) unsafe fn update_capture_dependencies(
    stream: CUstream,
    deps: *mut CUgraphNode,
    n: usize,
    flags: c_uint,
) -> CuResult {
    // CU_STREAM_ADD_CAPTURE_DEPENDENCIES = 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES = 1.
    if flags > 1 || (n > 0 && deps.is_null()) {
        return Err(INVALID_VALUE);
    }
    let t = stream::lookup(stream)?;
    let mut s = STATE.lock();
    let Some(m) = s.streams.get_mut(&key(&t.queue)) else {
        return Err(CUresult::CUDA_ERROR_ILLEGAL_STATE);
    };
    let list: Vec<usize> = if n == 0 {
        Vec::new()
    } else {
        // SAFETY: checked non-null; the caller passes `n` handles.
        unsafe { std::slice::from_raw_parts(deps, n) }
            .iter()
            .map(|&d| d as usize)
            .collect()
    };
    for &d in &list {
        match NODES.get(d as CUgraphNode) {
            Ok(node)
                if node
                    .graph
                    .upgrade()
                    .is_some_and(|g| Arc::ptr_eq(&g, &m.capture.graph)) => {}
            _ => return Err(INVALID_VALUE),
        }
    }
    if flags == 1 {
        m.deps.clear();
    }
    for d in list {
        if !m.deps.contains(&d) {
            m.deps.push(d);
        }
    }
    Ok(())
}

pub(crate) unsafe fn update_capture_dependencies_v2(
    stream: CUstream,
    deps: *mut CUgraphNode,
    edges: *const CUgraphEdgeData,
    n: usize,
    flags: c_uint,
) -> CuResult {
    if !edges.is_null() && n > 0 {
        // SAFETY: the caller passes `n` entries.
        let list = unsafe { std::slice::from_raw_parts(edges, n) };
        if list.iter().any(|e| *e != CUgraphEdgeData::default()) {
            return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
        }
    }
    // SAFETY: forwarded contract.
    unsafe { update_capture_dependencies(stream, deps, n, flags) }
}

pub(crate) unsafe fn exchange_capture_mode(mode: *mut CUstreamCaptureMode) -> CuResult {
    if mode.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; swaps the caller's mode with this thread's.
    unsafe {
        let new = (*mode).0;
        if new > MODE_RELAXED {
            return Err(INVALID_VALUE);
        }
        (*mode).0 = MODE.with(|m| m.replace(new));
    }
    Ok(())
}
