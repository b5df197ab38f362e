//! Executable graphs: instantiation (a snapshot of the graph's nodes in a topological order,
//! child graphs flattened in place), launch in stream order, whole-graph update and the
//! per-node `cuGraphExec*SetParams` calls.
//!
//! A launch submits the nodes one after another to the launch stream, which is a valid
//! schedule of the graph (every node after its dependencies) and gives the stream ordering the
//! driver documents: the graph starts after earlier work of the stream and later work waits
//! for all of it. Launches of one executable graph never overlap, as in the driver: each starts
//! after the previous launch's end, whatever the streams.

use crate::context::Context;
use crate::context::Dep;
use crate::context::CONTEXTS;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::graph::conditional;
use crate::graph::params;
use crate::handles::Registry;
use crate::launch::kernel as launch;
use crate::memory::copy;
use crate::module::Function;
use crate::stream::capture;
use crate::stream::event::EVENTS;
use crate::stream::event::{self, Event};
use crate::stream::{self, Target};
use crate::work::cond::CondHandle;
use crate::work::user_objects::Refs;
use crate::work::{graph_alloc, topological, Graph, GraphAlloc, KernelNode, Kind, GRAPHS, NODES};
use abi::*;
use parking_lot::Mutex;
use std::ffi::{c_char, c_uint, c_ulonglong, c_void};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

#[derive(Clone)]
struct Step {
    /// The node of the instantiated graph (or of one of its child graphs) this step came from.
    origin: usize,
    kind: Kind,
    /// cuGraphNodeSetEnabled: a disabled node runs as an empty one.
    enabled: bool,
    /// A conditional node's body graphs, each flattened as the executable is.
    bodies: Vec<Vec<Step>>,
}

/// Live executable graphs.
pub static EXECS: Registry<GraphExec> = Registry::new(INVALID_VALUE);

pub struct GraphExec {
    pub id: u32,
    pub flags: u64,
    steps: Mutex<Vec<Step>>,
    /// The user-object references the executable owns; each launch keeps them until its end.
    refs: Arc<Refs>,
    /// The conditional handles of the graph, its child graphs and conditional bodies.
    conds: Vec<Arc<CondHandle>>,
    /// The topology the executable was made from (cuGraphExecUpdate needs an equal one).
    topology: String,
    types: String,
    /// The end of the latest launch.
    last: Mutex<Option<Dep>>,
}

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// A graph's steps in launch order, or the node that lies on a cycle.
fn flatten(g: &Graph, out: &mut Vec<Step>) -> Result<(), usize> {
    for n in topological(g)? {
        let kind = n.kind.lock().clone();
        match kind {
            Kind::Child(c) => flatten(&c, out)?,
            kind => {
                let mut bodies = Vec::new();
                if let Kind::Conditional(c) = &kind {
                    for b in &c.bodies {
                        let mut steps = Vec::new();
                        flatten(b, &mut steps)?;
                        bodies.push(steps);
                    }
                }
                out.push(Step {
                    origin: n.handle(),
                    kind,
                    enabled: true,
                    bodies,
                })
            }
        }
    }
    Ok(())
}

/// What an executable takes from `g` and the graphs inside it (child graphs, conditional
/// bodies): new references to their user objects and their conditional handles.
fn owned(g: &Graph, refs: &mut Refs, conds: &mut Vec<Arc<CondHandle>>) {
    refs.absorb(g.user_objects.lock().duplicate());
    conds.extend(g.conds.lock().iter().cloned());
    let nodes = g.inner.lock().nodes.clone();
    for n in nodes {
        match &*n.kind.lock() {
            Kind::Child(c) => owned(c, refs, conds),
            Kind::Conditional(c) => c.bodies.iter().for_each(|b| owned(b, refs, conds)),
            _ => {}
        }
    }
}

/// The first step of a conditional body that a body may not hold: cuda.h allows kernel,
/// empty, child graph, memset, memcpy and conditional nodes there.
fn bad_body_step(bodies: &[Vec<Step>]) -> Option<usize> {
    bodies.iter().flatten().find_map(|s| match &s.kind {
        Kind::Kernel(_) | Kind::Empty | Kind::Memset(_) | Kind::Memcpy(_) => None,
        Kind::Conditional(_) => bad_body_step(&s.bodies),
        _ => Some(s.origin),
    })
}

/// The graph's shape (node count and edges by creation index, child graphs nested) and its
/// node types, for cuGraphExecUpdate.
fn shape(g: &Graph, topology: &mut String, types: &mut String) {
    let inner = g.inner.lock();
    let index = |h: usize| {
        inner
            .nodes
            .iter()
            .position(|n| n.handle() == h)
            .unwrap_or(0)
    };
    let _ = write!(topology, "{}[", inner.nodes.len());
    let mut edges: Vec<(usize, usize)> = inner
        .edges
        .iter()
        .map(|(a, b)| (index(*a), index(*b)))
        .collect();
    edges.sort_unstable();
    for (a, b) in edges {
        let _ = write!(topology, "{a}>{b},");
    }
    types.push('[');
    for n in &inner.nodes {
        let k = n.kind.lock().clone();
        let _ = write!(types, "{},", k.node_type().0);
        match k {
            Kind::Child(c) => shape(&c, topology, types),
            Kind::Conditional(c) => c.bodies.iter().for_each(|b| shape(b, topology, types)),
            _ => {}
        }
    }
    topology.push(']');
    types.push(']');
}

fn exec(h: CUgraphExec) -> CuResult<Arc<GraphExec>> {
    EXECS.get(h)
}

/// Why a graph could not be instantiated.
enum Failure {
    /// This node lies on a cycle.
    Cycle(usize),
    /// This node's launch is invalid (a cluster shape the kernel node cannot run with).
    Node(usize, CUresult),
}

/// The cluster shape a kernel node runs with and whether it is explicit: its
/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`, else the function's required shape, checked as
/// `cuLaunchKernelEx` checks it ([`launch::cluster_shape`]).
fn node_cluster(k: &KernelNode) -> CuResult<([u32; 3], bool)> {
    launch::cluster_shape(&k.function, k.attrs.cluster(), k.grid, k.block, k.shared)
}

/// Instantiates `g`. Kernel nodes' cluster shapes are validated here, as the driver validates
/// a node's launch configuration when it builds the executable graph (the error node is the
/// kernel node), and again at each launch (function attributes may change in between).
fn instantiate(g: &Graph, flags: u64) -> Result<Arc<GraphExec>, Failure> {
    let mut steps = Vec::new();
    flatten(g, &mut steps).map_err(Failure::Cycle)?;
    for s in &steps {
        if let Kind::Kernel(k) = &s.kind {
            node_cluster(k).map_err(|e| Failure::Node(s.origin, e))?;
        }
        if let Some(bad) = bad_body_step(&s.bodies) {
            return Err(Failure::Node(bad, INVALID_VALUE));
        }
    }
    let (mut topology, mut types) = (String::new(), String::new());
    shape(g, &mut topology, &mut types);
    let (mut refs, mut conds) = (Refs::default(), Vec::new());
    owned(g, &mut refs, &mut conds);
    // A new executable starts from the handles' default values.
    conds.iter().for_each(|c| c.set(c.default));
    let e = Arc::new(GraphExec {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        flags,
        steps: Mutex::new(steps),
        refs: Arc::new(refs),
        conds,
        topology,
        types,
        last: Mutex::new(None),
    });
    EXECS.insert(e.clone());
    Ok(e)
}

/// CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | UPLOAD | DEVICE_LAUNCH | USE_NODE_PRIORITY.
const KNOWN_FLAGS: u64 = 0x1 | 0x2 | 0x4 | 0x8;

pub(crate) unsafe fn instantiate_with_flags(
    out: *mut CUgraphExec,
    g: CUgraph,
    flags: c_ulonglong,
) -> CuResult {
    if out.is_null() || flags & !KNOWN_FLAGS != 0 {
        return Err(INVALID_VALUE);
    }
    let g = GRAPHS.get(g)?;
    let e = instantiate(&g, flags).map_err(|f| match f {
        Failure::Cycle(_) => INVALID_VALUE,
        Failure::Node(_, e) => e,
    })?;
    // SAFETY: checked non-null.
    unsafe { *out = Arc::as_ptr(&e) as CUgraphExec };
    Ok(())
}

/// `cuGraphInstantiate` (and `_v2`, the same ABI): the error node and a log on failure.
pub(crate) unsafe fn instantiate_v1(
    out: *mut CUgraphExec,
    g: CUgraph,
    error_node: *mut CUgraphNode,
    log: *mut c_char,
    log_size: usize,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let g = GRAPHS.get(g)?;
    if !log.is_null() && log_size > 0 {
        // SAFETY: the caller's buffer holds `log_size` bytes; an empty log.
        unsafe { *log = 0 };
    }
    match instantiate(&g, 0) {
        Ok(e) => {
            // SAFETY: checked non-null.
            unsafe { *out = Arc::as_ptr(&e) as CUgraphExec };
            Ok(())
        }
        Err(f) => {
            let (node, e) = match f {
                Failure::Cycle(n) => (n, INVALID_VALUE),
                Failure::Node(n, e) => (n, e),
            };
            if !error_node.is_null() {
                // SAFETY: checked non-null.
                unsafe { *error_node = node as CUgraphNode };
            }
            Err(e)
        }
    }
}

pub(crate) unsafe fn instantiate_with_params(
    out: *mut CUgraphExec,
    g: CUgraph,
    params: *mut CUDA_GRAPH_INSTANTIATE_PARAMS,
) -> CuResult {
    if out.is_null() || params.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    let p = unsafe { &mut *params };
    if p.flags & !KNOWN_FLAGS != 0 {
        return Err(INVALID_VALUE);
    }
    let g = GRAPHS.get(g)?;
    p.hErrNode_out = std::ptr::null_mut();
    match instantiate(&g, p.flags) {
        Ok(e) => {
            p.result_out = CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_SUCCESS;
            // SAFETY: checked non-null.
            unsafe { *out = Arc::as_ptr(&e) as CUgraphExec };
            Ok(())
        }
        Err(Failure::Cycle(node)) => {
            p.result_out = CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
            p.hErrNode_out = node as CUgraphNode;
            Err(INVALID_VALUE)
        }
        Err(Failure::Node(node, e)) => {
            p.result_out = CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_ERROR;
            p.hErrNode_out = node as CUgraphNode;
            Err(e)
        }
    }
}

pub(crate) unsafe fn exec_destroy(h: CUgraphExec) -> CuResult {
    exec(h)?;
    // A launch in flight keeps what it needs (its work owns copies of the steps).
    EXECS.remove(h as usize);
    Ok(())
}

pub(crate) unsafe fn exec_get_flags(h: CUgraphExec, flags: *mut cuuint64_t) -> CuResult {
    if flags.is_null() {
        return Err(INVALID_VALUE);
    }
    let e = exec(h)?;
    // SAFETY: checked non-null.
    unsafe { *flags = e.flags };
    Ok(())
}

pub(crate) unsafe fn exec_get_id(h: CUgraphExec, id: *mut c_uint) -> CuResult {
    if id.is_null() {
        return Err(INVALID_VALUE);
    }
    let e = exec(h)?;
    // SAFETY: checked non-null.
    unsafe { *id = e.id };
    Ok(())
}

pub(crate) unsafe fn upload(h: CUgraphExec, s: CUstream) -> CuResult {
    exec(h)?;
    stream::target(s)?;
    // Nothing to upload: device memory is host memory.
    Ok(())
}

/// A step made ready to submit: everything it refers to looked up and validated.
enum Ready {
    Nothing,
    Kernel(Arc<Function>, engine::LaunchConfig, Vec<u8>),
    Copy(copy::CopyPlan),
    Fill(copy::FillPlan),
    Host(unsafe extern "C" fn(*mut c_void), usize),
    Record(Arc<Event>),
    Wait(Arc<Event>),
    Alloc(Arc<GraphAlloc>),
    Free(u64),
    /// A conditional node: its handle, type and prepared bodies.
    Cond(Arc<CondHandle>, CUgraphConditionalNodeType, Vec<Vec<Ready>>),
}

fn prepare(step: &Step) -> CuResult<Ready> {
    if !step.enabled {
        return Ok(Ready::Nothing);
    }
    Ok(match &step.kind {
        Kind::Conditional(c) => Ready::Cond(
            c.handle.clone(),
            c.ty,
            step.bodies
                .iter()
                .map(|b| b.iter().map(prepare).collect::<CuResult<Vec<_>>>())
                .collect::<CuResult<Vec<_>>>()?,
        ),
        Kind::MemAlloc(a) => Ready::Alloc(a.clone()),
        Kind::MemFree(p) => Ready::Free(*p),
        kind => prepare_kind(kind)?,
    })
}

fn prepare_kind(kind: &Kind) -> CuResult<Ready> {
    Ok(match kind {
        Kind::Empty | Kind::Child(_) => Ready::Nothing,
        Kind::MemAlloc(_) | Kind::MemFree(_) | Kind::Conditional(_) => unreachable!(),
        Kind::Kernel(k) => {
            let (cluster, explicit_cluster) = node_cluster(k)?;
            Ready::Kernel(
                k.function.clone(),
                engine::LaunchConfig {
                    grid: k.grid,
                    block: k.block,
                    dynamic_shared_bytes: k.shared,
                    cluster,
                    explicit_cluster,
                },
                k.params.clone(),
            )
        }
        Kind::Memcpy(d) => Ready::Copy(copy::plan_3d(d)?),
        Kind::Memset(d) => Ready::Fill(copy::plan_memset(d)?),
        Kind::Host(h) => Ready::Host(h.fn_.ok_or(INVALID_VALUE)?, h.userData as usize),
        Kind::EventRecord(e) => Ready::Record(EVENTS.get(*e)?),
        Kind::EventWait(e) => Ready::Wait(EVENTS.get(*e)?),
    })
}

fn submit(t: &Target, r: Ready) {
    match r {
        Ready::Nothing => {}
        Ready::Kernel(f, config, bytes) => {
            launch::submit_kernel(t, f, config, bytes);
        }
        Ready::Copy(plan) => copy::submit_plan(t, plan),
        Ready::Fill(plan) => {
            copy::submit_fill(t, plan);
        }
        Ready::Host(f, data) => {
            stream::submit_unless_faulted(t, move |_| {
                // SAFETY: the program registered this host function and data in the graph;
                // every earlier node has completed.
                unsafe { f(data as *mut c_void) }
            });
        }
        Ready::Record(e) => event::record_on(&e, t),
        Ready::Wait(e) => {
            if let Some(dep) = e.captured() {
                stream::submit(t, vec![dep], Box::new(|_| {}));
            }
        }
        // Graph memory is accounted when the launch is enqueued (see `crate::graph::mem`).
        Ready::Alloc(a) => a.allocate(),
        Ready::Free(p) => {
            graph_alloc::free(p);
        }
        Ready::Cond(h, ty, bodies) => {
            stream::submit_unless_faulted(t, move |ctx| run_conditional(ctx, &h, ty, &bodies));
        }
    }
}

/// Runs a conditional node on the stream worker, once its dependencies are done: the body
/// the condition chooses, again while a WHILE condition holds, each body's nodes in order on
/// this thread. A fault stops it (and the launch's later work, through the sticky error).
fn run_conditional(
    ctx: &Context,
    h: &CondHandle,
    ty: CUgraphConditionalNodeType,
    bodies: &[Vec<Ready>],
) {
    while let Some(i) = conditional::choose(ty, bodies.len(), h.get()) {
        for r in &bodies[i] {
            if ctx.check().is_err() {
                return;
            }
            match r {
                Ready::Kernel(f, config, bytes) => launch::run_now(ctx, f, config, bytes, false),
                Ready::Copy(p) => p.run(),
                Ready::Fill(p) => p.run(),
                Ready::Cond(h, ty, b) => run_conditional(ctx, h, *ty, b),
                // Bodies hold nothing else (checked at instantiation).
                _ => {}
            }
        }
        if ty != CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_WHILE || ctx.check().is_err() {
            return;
        }
    }
}

/// A graph of the executable's current steps, one after another (for a launch into a
/// capturing stream, which captures the executable graph as a child graph node).
fn as_graph(steps: &[Step]) -> Arc<Graph> {
    let g = Graph::create();
    let mut prev: Vec<usize> = Vec::new();
    for s in steps {
        let n = g.add(s.kind.clone(), &prev, 0);
        prev = vec![n.handle()];
    }
    g
}

pub(crate) unsafe fn graph_launch(h: CUgraphExec, s: CUstream) -> CuResult {
    let e = exec(h)?;
    let t = stream::target(s)?;
    let steps = e.steps.lock().clone();
    if capture::intercept(&t, || Kind::Child(as_graph(&steps)))? {
        return Ok(());
    }
    // An allocation of the previous launch not freed yet: freed now with
    // AUTO_FREE_ON_LAUNCH, else the launch fails (cuGraphLaunch's documentation).
    let allocs: Vec<&Arc<GraphAlloc>> = steps
        .iter()
        .filter_map(|s| match &s.kind {
            Kind::MemAlloc(a) if a.live() => Some(a),
            _ => None,
        })
        .collect();
    if !allocs.is_empty() && e.flags & AUTO_FREE_ON_LAUNCH == 0 {
        return Err(INVALID_VALUE);
    }
    // Everything is looked up before anything is submitted, so a failed launch runs nothing.
    let ready = steps.iter().map(prepare).collect::<CuResult<Vec<_>>>()?;
    for a in allocs {
        graph_alloc::free(a.dptr);
    }
    let mut last = e.last.lock();
    // Serialised with the previous launch of this executable, in whatever stream it ran.
    stream::submit(&t, last.take().into_iter().collect(), Box::new(|_| {}));
    let defaults: Vec<Arc<CondHandle>> = e
        .conds
        .iter()
        .filter(|c| c.assign_default)
        .cloned()
        .collect();
    if !defaults.is_empty() {
        stream::submit_unless_faulted(&t, move |_| {
            defaults.iter().for_each(|c| c.set(c.default));
        });
    }
    for r in ready {
        submit(&t, r);
    }
    // The launch keeps the executable's user objects alive until it is done.
    let refs = e.refs.clone();
    *last = Some(stream::submit(
        &t,
        Vec::new(),
        Box::new(move |_| drop(refs)),
    ));
    Ok(())
}

const AUTO_FREE_ON_LAUNCH: u64 = 0x1;

/// The step `node` became in executable `h`, for `f`.
fn with_step<R>(
    h: CUgraphExec,
    node: CUgraphNode,
    f: impl FnOnce(&mut Step) -> CuResult<R>,
) -> CuResult<R> {
    let e = exec(h)?;
    NODES.get(node)?;
    let mut steps = e.steps.lock();
    let step = steps
        .iter_mut()
        .find(|s| s.origin == node as usize)
        .ok_or(INVALID_VALUE)?;
    f(step)
}

/// Kernel, memset and memcpy nodes can be disabled (cuda.h lists these).
fn can_disable(k: &Kind) -> CuResult {
    match k {
        Kind::Kernel(_) | Kind::Memset(_) | Kind::Memcpy(_) => Ok(()),
        _ => Err(INVALID_VALUE),
    }
}

pub(crate) unsafe fn node_set_enabled(h: CUgraphExec, node: CUgraphNode, on: c_uint) -> CuResult {
    with_step(h, node, |s| {
        can_disable(&s.kind)?;
        s.enabled = on != 0;
        Ok(())
    })
}

pub(crate) unsafe fn node_get_enabled(
    h: CUgraphExec,
    node: CUgraphNode,
    out: *mut c_uint,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let on = with_step(h, node, |s| {
        can_disable(&s.kind)?;
        Ok(s.enabled)
    })?;
    // SAFETY: checked non-null.
    unsafe { *out = on as c_uint };
    Ok(())
}

/// `cuGraphExecChildGraphNodeSetParams`: `child` must have the topology, creation order and
/// node types of the node's graph; its nodes' parameters replace those of the steps that graph
/// became.
pub(crate) unsafe fn exec_child_graph_node_set_params(
    h: CUgraphExec,
    node: CUgraphNode,
    child: CUgraph,
) -> CuResult {
    let e = exec(h)?;
    let n = NODES.get(node)?;
    let new = GRAPHS.get(child)?;
    let Kind::Child(old) = n.kind.lock().clone() else {
        return Err(INVALID_VALUE);
    };
    let (mut t0, mut y0, mut t1, mut y1) = Default::default();
    shape(&old, &mut t0, &mut y0);
    shape(&new, &mut t1, &mut y1);
    if t0 != t1 || y0 != y1 {
        return Err(INVALID_VALUE);
    }
    let (mut was, mut now) = (Vec::new(), Vec::new());
    flatten(&old, &mut was).map_err(|_| INVALID_VALUE)?;
    flatten(&new, &mut now).map_err(|_| INVALID_VALUE)?;
    let mut steps = e.steps.lock();
    for (w, f) in was.iter().zip(now) {
        if let Kind::Kernel(k) = &f.kind {
            node_cluster(k)?;
        }
        if let Some(s) = steps.iter_mut().find(|s| s.origin == w.origin) {
            s.kind = f.kind;
            s.bodies = f.bodies;
        }
    }
    Ok(())
}

/// `cuGraphExecNodeSetParams`: the per-type calls through the generic structure; memory
/// nodes cannot be changed (CUDA_ERROR_NOT_SUPPORTED, "API unsupported" in cuda.h).
pub(crate) unsafe fn exec_node_set_params(
    h: CUgraphExec,
    node: CUgraphNode,
    p: *mut CUgraphNodeParams,
) -> CuResult {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    let p = unsafe { &*p };
    use CUgraphNodeType as T;
    let current = with_step(h, node, |s| Ok(s.kind.node_type()))?;
    if current != p.type_ {
        return Err(INVALID_VALUE);
    }
    let active = || crate::context::active().map(|c| c.handle());
    // SAFETY: the union member read is the one `type_` names; forwarded contract otherwise.
    unsafe {
        let u = &p.__bindgen_anon_1;
        match p.type_ {
            T::CU_GRAPH_NODE_TYPE_KERNEL => exec_kernel_node_set_params(
                h,
                node,
                &u.kernel as *const CUDA_KERNEL_NODE_PARAMS_v3 as *const CUDA_KERNEL_NODE_PARAMS,
            ),
            T::CU_GRAPH_NODE_TYPE_MEMCPY => {
                let ctx = match u.memcpy.copyCtx.is_null() {
                    true => active()?,
                    false => u.memcpy.copyCtx,
                };
                exec_memcpy_node_set_params(h, node, &u.memcpy.copyParams, ctx)
            }
            T::CU_GRAPH_NODE_TYPE_MEMSET => {
                let ctx = match u.memset.ctx.is_null() {
                    true => active()?,
                    false => u.memset.ctx,
                };
                exec_memset_node_set_params(h, node, &params::memset_v1(&u.memset), ctx)
            }
            T::CU_GRAPH_NODE_TYPE_HOST => exec_host_node_set_params(
                h,
                node,
                &CUDA_HOST_NODE_PARAMS {
                    fn_: u.host.fn_,
                    userData: u.host.userData,
                },
            ),
            T::CU_GRAPH_NODE_TYPE_GRAPH => exec_child_graph_node_set_params(h, node, u.graph.graph),
            T::CU_GRAPH_NODE_TYPE_EVENT_RECORD => {
                exec_event_record_node_set_event(h, node, u.eventRecord.event)
            }
            T::CU_GRAPH_NODE_TYPE_WAIT_EVENT => {
                exec_event_wait_node_set_event(h, node, u.eventWait.event)
            }
            T::CU_GRAPH_NODE_TYPE_EMPTY => Ok(()),
            _ => Err(CUresult::CUDA_ERROR_NOT_SUPPORTED),
        }
    }
}

/// Replaces the kind of the step that came from `node`, which must be of the same type.
fn set_step(h: CUgraphExec, node: CUgraphNode, kind: Kind) -> CuResult {
    let e = exec(h)?;
    NODES.get(node)?;
    let mut steps = e.steps.lock();
    let step = steps
        .iter_mut()
        .find(|s| s.origin == node as usize)
        .ok_or(INVALID_VALUE)?;
    if step.kind.node_type() != kind.node_type() {
        return Err(INVALID_VALUE);
    }
    step.kind = kind;
    Ok(())
}

pub(crate) unsafe fn exec_kernel_node_set_params(
    h: CUgraphExec,
    node: CUgraphNode,
    p: *const CUDA_KERNEL_NODE_PARAMS,
) -> CuResult {
    // SAFETY: forwarded contract.
    let mut k = unsafe { params::kernel_node(p) }?;
    let e = exec(h)?;
    NODES.get(node)?;
    let mut steps = e.steps.lock();
    let step = steps
        .iter_mut()
        .find(|s| s.origin == node as usize)
        .ok_or(INVALID_VALUE)?;
    let Kind::Kernel(old) = &step.kind else {
        return Err(INVALID_VALUE);
    };
    // New launch parameters, the node's attributes (its cluster shape) as instantiated; the
    // shape must still fit the new grid, as at instantiation.
    k.attrs = old.attrs.clone();
    node_cluster(&k)?;
    step.kind = Kind::Kernel(k);
    Ok(())
}

pub(crate) unsafe fn exec_memcpy_node_set_params(
    h: CUgraphExec,
    node: CUgraphNode,
    p: *const CUDA_MEMCPY3D,
    ctx: CUcontext,
) -> CuResult {
    CONTEXTS.get(ctx)?;
    // SAFETY: forwarded contract.
    let d = unsafe { params::memcpy_desc(p) }?;
    set_step(h, node, Kind::Memcpy(d))
}

pub(crate) unsafe fn exec_memset_node_set_params(
    h: CUgraphExec,
    node: CUgraphNode,
    p: *const CUDA_MEMSET_NODE_PARAMS,
    ctx: CUcontext,
) -> CuResult {
    CONTEXTS.get(ctx)?;
    // SAFETY: forwarded contract.
    let d = unsafe { params::memset_desc(p) }?;
    set_step(h, node, Kind::Memset(d))
}

pub(crate) unsafe fn exec_host_node_set_params(
    h: CUgraphExec,
    node: CUgraphNode,
    p: *const CUDA_HOST_NODE_PARAMS,
) -> CuResult {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    let d = unsafe { *p };
    if d.fn_.is_none() {
        return Err(INVALID_VALUE);
    }
    set_step(h, node, Kind::Host(d))
}

pub(crate) unsafe fn exec_event_record_node_set_event(
    h: CUgraphExec,
    node: CUgraphNode,
    event: CUevent,
) -> CuResult {
    EVENTS.get(event)?;
    set_step(h, node, Kind::EventRecord(event))
}

pub(crate) unsafe fn exec_event_wait_node_set_event(
    h: CUgraphExec,
    node: CUgraphNode,
    event: CUevent,
) -> CuResult {
    EVENTS.get(event)?;
    set_step(h, node, Kind::EventWait(event))
}

/// `cuGraphExecUpdate_v2`: `g` must have the executable's topology (nodes paired in creation
/// order, child graphs included) and node types; then every node's parameters are taken from
/// `g`. Otherwise nothing changes and the result says why.
pub(crate) unsafe fn exec_update(
    h: CUgraphExec,
    g: CUgraph,
    info: *mut CUgraphExecUpdateResultInfo,
) -> CuResult {
    if info.is_null() {
        return Err(INVALID_VALUE);
    }
    let e = exec(h)?;
    let g = GRAPHS.get(g)?;
    let (mut topology, mut types) = (String::new(), String::new());
    shape(&g, &mut topology, &mut types);
    use CUgraphExecUpdateResult as R;
    let result = if topology != e.topology {
        R::CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED
    } else if types != e.types {
        R::CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED
    } else {
        R::CU_GRAPH_EXEC_UPDATE_SUCCESS
    };
    let mut fresh = Vec::new();
    if result == R::CU_GRAPH_EXEC_UPDATE_SUCCESS && flatten(&g, &mut fresh).is_err() {
        // SAFETY: checked non-null.
        unsafe {
            *info = CUgraphExecUpdateResultInfo {
                result: R::CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED,
                errorNode: std::ptr::null_mut(),
                errorFromNode: std::ptr::null_mut(),
            }
        };
        return Err(CUresult::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    }
    // SAFETY: checked non-null.
    unsafe {
        *info = CUgraphExecUpdateResultInfo {
            result,
            errorNode: std::ptr::null_mut(),
            errorFromNode: std::ptr::null_mut(),
        }
    };
    if result != R::CU_GRAPH_EXEC_UPDATE_SUCCESS {
        return Err(CUresult::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    }
    // Same topology and creation order, so the flattened orders pair up step by step.
    let mut steps = e.steps.lock();
    // A kernel node whose cluster shape no longer fits its launch cannot be taken, as it could
    // not be instantiated: nothing changes and the result names the node.
    for (s, f) in steps.iter().zip(&fresh) {
        if let Kind::Kernel(k) = &f.kind {
            if node_cluster(k).is_err() {
                // SAFETY: checked non-null.
                unsafe {
                    *info = CUgraphExecUpdateResultInfo {
                        result: R::CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED,
                        errorNode: f.origin as CUgraphNode,
                        errorFromNode: s.origin as CUgraphNode,
                    }
                };
                return Err(CUresult::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
            }
        }
    }
    for (s, f) in steps.iter_mut().zip(fresh) {
        s.kind = f.kind;
        s.bodies = f.bodies;
    }
    Ok(())
}
