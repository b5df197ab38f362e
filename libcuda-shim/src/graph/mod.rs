//! CUDA graphs: the graph object, its nodes and edges, and the explicit node API
//! (`cuGraphAdd*Node`, get/set params, dependencies, clone, destroy). A node's parameters are
//! validated and copied when they are set (kernel arguments included), as the driver does, so
//! the caller's storage may go away; instantiation and launch are in `graph_exec`, stream
//! capture (which builds graphs from stream work) in `capture`.
//!
//! Handles: a `CUgraph` is the address of a [`Graph`], a `CUgraphNode` that of a [`Node`], both
//! registered in `handles`. Nodes are kept in creation order, which is the order
//! `cuGraphGetNodes` reports and `cuGraphExecUpdate` pairs them in.

pub mod conditional;
pub mod dot;
pub mod exec;
pub mod mem;
pub mod user_object;

use crate::context::CONTEXTS;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::graph::conditional::{CondHandle, CondNode};
use crate::graph::mem::GraphAlloc;
use crate::graph::user_object::Refs;
use crate::handles::Registry;
use crate::launch::kernel as launch;
use crate::memory::copy;
use crate::module;
use crate::module::Function;
use crate::stream::event::EVENTS;
use abi::*;
use parking_lot::Mutex;
use std::ffi::{c_uint, c_void};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Weak};

/// A kernel node's launch: the function, its shape and a copy of its parameter block.
#[derive(Clone)]
pub struct KernelNode {
    /// The handle the program gave (`CUfunction`, or a `CUkernel` in `kern`).
    pub handle: usize,
    /// Whether `handle` came in `kern` (a `CUkernel`), as cudart 13 passes it.
    pub via_kernel: bool,
    pub function: Arc<Function>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub params: Vec<u8>,
    /// The node's launch attributes (cluster shape, priority, ...): set by
    /// cuGraphKernelNodeSetAttribute or recorded from a captured cuLaunchKernelEx.
    pub attrs: LaunchAttrs,
}

/// The launch attributes of a kernel node, as `cuGraphKernelNode{Get,Set}Attribute` and
/// `cuGraphKernelNodeCopyAttributes` see them: the last value set for each attribute a kernel
/// node takes. A replay runs with the cluster shape set here (an explicit one, 1x1x1 included,
/// makes `%is_explicit_cluster` true); the others are scheduling hints on one emulated device
/// (priority, cluster scheduling policy, access policy window, memory sync domain, carveout),
/// stored and reported back but without effect.
#[derive(Clone, Default)]
pub struct LaunchAttrs(Vec<(CUlaunchAttributeID, CUlaunchAttributeValue)>);

impl LaunchAttrs {
    /// Whether a kernel node takes attribute `id` with `value`. Launch-only attributes
    /// (synchronization policy, programmatic serialization and events, launch completion event:
    /// graphs express these as edges) and unknown ids are CUDA_ERROR_INVALID_VALUE, as the driver
    /// documents for node attributes; a cooperative or device-updatable node, which this driver
    /// cannot replay, is CUDA_ERROR_NOT_SUPPORTED rather than recorded and run wrongly.
    pub fn check(id: CUlaunchAttributeID, value: &CUlaunchAttributeValue) -> CuResult {
        use CUlaunchAttributeID as A;
        match id {
            A::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
            | A::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            | A::CU_LAUNCH_ATTRIBUTE_PRIORITY
            | A::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP
            | A::CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN
            | A::CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION
            | A::CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
            | A::CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING
            | A::CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE
            | A::CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE => Ok(()),
            A::CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => {
                // SAFETY: the member this id selects; every bit pattern is a valid u32 enum.
                let p = unsafe { value.clusterSchedulingPolicyPreference };
                // DEFAULT, SPREAD, LOAD_BALANCING, RUBIN_DSMEM_LOCALITY.
                if p.0 <= 3 {
                    Ok(())
                } else {
                    Err(INVALID_VALUE)
                }
            }
            // SAFETY (both): the member the id selects, a plain integer.
            A::CU_LAUNCH_ATTRIBUTE_COOPERATIVE if unsafe { value.cooperative } == 0 => Ok(()),
            A::CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE
                if unsafe { value.deviceUpdatableKernelNode.deviceUpdatable } == 0 =>
            {
                Ok(())
            }
            A::CU_LAUNCH_ATTRIBUTE_COOPERATIVE
            | A::CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE => {
                Err(CUresult::CUDA_ERROR_NOT_SUPPORTED)
            }
            _ => Err(INVALID_VALUE),
        }
    }

    /// Sets `id` (already [`check`](Self::check)ed).
    pub fn set(&mut self, id: CUlaunchAttributeID, value: CUlaunchAttributeValue) {
        match self.0.iter_mut().find(|(i, _)| *i == id) {
            Some(slot) => slot.1 = value,
            None => self.0.push((id, value)),
        }
    }

    /// The value of `id`: the one set, else zero (the attribute's default: no cluster shape,
    /// priority 0, default policies).
    pub fn get(&self, id: CUlaunchAttributeID) -> CUlaunchAttributeValue {
        self.0
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, v)| *v)
            // SAFETY: the union is plain data; all-zero bytes are a valid value of each member.
            .unwrap_or_else(|| unsafe { std::mem::zeroed() })
    }

    /// The attributes of a `cuLaunchKernelEx` configuration a kernel node keeps, as stream
    /// capture records them; launch-only ones are dropped (the capture's edges already order
    /// the node after the preceding work, a stronger ordering than programmatic serialization).
    pub fn from_launch(attrs: &[CUlaunchAttribute]) -> LaunchAttrs {
        let mut out = LaunchAttrs::default();
        for a in attrs {
            if LaunchAttrs::check(a.id, &a.value).is_ok() {
                out.set(a.id, a.value);
            }
        }
        out
    }

    /// The cluster shape set (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`), None when unset or
    /// all zero (no shape named: the function's required one, else single-CTA clusters).
    pub fn cluster(&self) -> Option<[u32; 3]> {
        let id = CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        self.0.iter().find(|(i, _)| *i == id).and_then(|(_, v)| {
            // SAFETY: `clusterDim` is the member this attribute uses.
            let d = unsafe { v.clusterDim };
            let d = [d.x, d.y, d.z];
            (d != [0, 0, 0]).then_some(d)
        })
    }
}

/// What a node does.
#[derive(Clone)]
pub enum Kind {
    Empty,
    Kernel(KernelNode),
    Memcpy(CUDA_MEMCPY3D),
    Memset(CUDA_MEMSET_NODE_PARAMS),
    Host(CUDA_HOST_NODE_PARAMS),
    EventRecord(CUevent),
    EventWait(CUevent),
    /// The node owns this graph (a clone of the one the program gave).
    Child(Arc<Graph>),
    /// A memory allocation node (see `graph_mem`).
    MemAlloc(Arc<GraphAlloc>),
    /// A memory free node: the address of a graph allocation.
    MemFree(u64),
    /// An IF, WHILE or SWITCH node (see `conditional`).
    Conditional(CondNode),
}

// SAFETY: the raw pointers inside are program addresses (device or host memory, host function
// user data, event handles) kept as plain values; they are only dereferenced by the work a
// launch submits, under the same contract as the equivalent stream calls.
unsafe impl Send for Kind {}
// SAFETY: as above; a Kind is never mutated through a shared reference.
unsafe impl Sync for Kind {}

impl Kind {
    pub fn node_type(&self) -> CUgraphNodeType {
        use CUgraphNodeType as T;
        match self {
            Kind::Empty => T::CU_GRAPH_NODE_TYPE_EMPTY,
            Kind::Kernel(_) => T::CU_GRAPH_NODE_TYPE_KERNEL,
            Kind::Memcpy(_) => T::CU_GRAPH_NODE_TYPE_MEMCPY,
            Kind::Memset(_) => T::CU_GRAPH_NODE_TYPE_MEMSET,
            Kind::Host(_) => T::CU_GRAPH_NODE_TYPE_HOST,
            Kind::EventRecord(_) => T::CU_GRAPH_NODE_TYPE_EVENT_RECORD,
            Kind::EventWait(_) => T::CU_GRAPH_NODE_TYPE_WAIT_EVENT,
            Kind::Child(_) => T::CU_GRAPH_NODE_TYPE_GRAPH,
            Kind::MemAlloc(_) => T::CU_GRAPH_NODE_TYPE_MEM_ALLOC,
            Kind::MemFree(_) => T::CU_GRAPH_NODE_TYPE_MEM_FREE,
            Kind::Conditional(_) => T::CU_GRAPH_NODE_TYPE_CONDITIONAL,
        }
    }
}

/// Live graphs: created, cloned, captured, and the child graphs and conditional bodies nodes
/// own.
pub static GRAPHS: Registry<Graph> = Registry::new(INVALID_VALUE);
/// Live nodes of those graphs.
pub static NODES: Registry<Node> = Registry::new(INVALID_VALUE);

pub struct Node {
    pub graph: Weak<Graph>,
    /// Position in the graph's creation order when it was added (cuGraphNodeGetLocalId).
    pub local_id: u32,
    /// The node this one was cloned from (cuGraphNodeFindInClone), 0 if none.
    pub origin: usize,
    pub kind: Mutex<Kind>,
    /// The `kernelParams` array cuGraphKernelNodeGetParams hands out: pointers into the
    /// node's parameter copy, valid until the node's parameters change.
    scratch: Mutex<Vec<usize>>,
}

impl Node {
    pub fn handle(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as usize
    }
}

#[derive(Default)]
pub struct Inner {
    /// In creation order.
    pub nodes: Vec<Arc<Node>>,
    /// (from, to) node handles, in the order they were added.
    pub edges: Vec<(usize, usize)>,
    next_id: u32,
}

pub struct Graph {
    pub id: u32,
    pub inner: Mutex<Inner>,
    /// The user-object references this graph owns (cuGraphRetainUserObject).
    pub user_objects: Mutex<Refs>,
    /// The conditional handles made for this graph (cuGraphConditionalHandleCreate).
    pub conds: Mutex<Vec<Arc<CondHandle>>>,
}

static NEXT_GRAPH_ID: AtomicU32 = AtomicU32::new(1);

impl Graph {
    /// A new empty graph, registered as a handle.
    pub fn create() -> Arc<Graph> {
        let g = Arc::new(Graph {
            id: NEXT_GRAPH_ID.fetch_add(1, Ordering::Relaxed),
            inner: Mutex::new(Inner::default()),
            user_objects: Mutex::new(Refs::default()),
            conds: Mutex::new(Vec::new()),
        });
        GRAPHS.insert(g.clone());
        g
    }

    pub fn handle(self: &Arc<Self>) -> CUgraph {
        Arc::as_ptr(self) as CUgraph
    }

    /// Adds a node after `deps` (nodes of this graph) and registers it.
    pub fn add(self: &Arc<Self>, kind: Kind, deps: &[usize], origin: usize) -> Arc<Node> {
        let mut inner = self.inner.lock();
        let node = Arc::new(Node {
            graph: Arc::downgrade(self),
            local_id: inner.next_id,
            origin,
            kind: Mutex::new(kind),
            scratch: Mutex::new(Vec::new()),
        });
        inner.next_id += 1;
        let h = node.handle();
        inner.nodes.push(node.clone());
        for &d in deps {
            inner.edges.push((d, h));
        }
        NODES.insert(node.clone());
        node
    }

    /// Whether `h` is a node of this graph.
    fn contains(inner: &Inner, h: usize) -> bool {
        inner.nodes.iter().any(|n| n.handle() == h)
    }

    /// Whether the graph (or a child graph) has memory or conditional nodes, which make it
    /// one that cannot be cloned or used as a child graph (cuGraphClone, cuGraphAddChildGraphNode).
    pub fn has_special_nodes(&self) -> bool {
        self.inner
            .lock()
            .nodes
            .iter()
            .any(|n| match &*n.kind.lock() {
                Kind::MemAlloc(_) | Kind::MemFree(_) | Kind::Conditional(_) => true,
                Kind::Child(c) => c.has_special_nodes(),
                _ => false,
            })
    }

    /// A deep copy (child graphs included), registered; cloned nodes remember their origin.
    /// The copy owns as many user-object references as the original.
    pub fn deep_clone(self: &Arc<Self>) -> Arc<Graph> {
        let copy = Graph::create();
        *copy.user_objects.lock() = self.user_objects.lock().duplicate();
        let inner = self.inner.lock();
        let mut map = std::collections::HashMap::new();
        for n in &inner.nodes {
            let kind = match &*n.kind.lock() {
                Kind::Child(g) => Kind::Child(g.deep_clone()),
                k => k.clone(),
            };
            let c = copy.add(kind, &[], n.handle());
            map.insert(n.handle(), c.handle());
        }
        copy.inner.lock().edges = inner.edges.iter().map(|(a, b)| (map[a], map[b])).collect();
        copy
    }

    /// Unregisters the graph, its nodes, its child graphs and conditional bodies, and
    /// releases what it owns: its user-object references and conditional handles.
    pub fn unregister(self: &Arc<Self>) {
        let nodes = std::mem::take(&mut self.inner.lock().nodes);
        for n in &nodes {
            match &*n.kind.lock() {
                Kind::Child(g) => g.unregister(),
                Kind::Conditional(c) => c.bodies.iter().for_each(|b| b.unregister()),
                _ => {}
            }
            NODES.remove(n.handle());
        }
        self.inner.lock().nodes = nodes;
        GRAPHS.remove(Arc::as_ptr(self) as usize);
        crate::graph::conditional::forget(&std::mem::take(&mut *self.conds.lock()));
        // Taken out first: a destructor may run now, with no lock held.
        let refs = std::mem::take(&mut *self.user_objects.lock());
        drop(refs);
    }
}

fn graph(h: CUgraph) -> CuResult<Arc<Graph>> {
    GRAPHS.get(h)
}

fn node(h: CUgraphNode) -> CuResult<Arc<Node>> {
    NODES.get(h)
}

/// The dependency list of an add call: every entry a distinct node of `g`.
unsafe fn dependencies(g: &Graph, deps: *const CUgraphNode, n: usize) -> CuResult<Vec<usize>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if deps.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: the caller passes `n` node handles.
    let list = unsafe { std::slice::from_raw_parts(deps, n) };
    let inner = g.inner.lock();
    let mut out = Vec::with_capacity(n);
    for &d in list {
        let d = d as usize;
        if !Graph::contains(&inner, d) || out.contains(&d) {
            return Err(INVALID_VALUE);
        }
        out.push(d);
    }
    Ok(out)
}

/// The common start of every `cuGraphAdd*Node`: checks, then adds `kind` built by `make`.
unsafe fn add_node(
    out: *mut CUgraphNode,
    h: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    make: impl FnOnce() -> CuResult<Kind>,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let g = graph(h)?;
    // SAFETY: forwarded contract.
    let deps = unsafe { dependencies(&g, deps, n) }?;
    let kind = make()?;
    let node = g.add(kind, &deps, 0);
    // SAFETY: checked non-null.
    unsafe { *out = node.handle() as CUgraphNode };
    Ok(())
}

// ---- Node parameters: validation and copies.

/// A kernel node from its parameters: the launch is validated as `cuLaunchKernel` would and
/// the arguments copied now.
pub(crate) unsafe fn kernel_node(p: *const CUDA_KERNEL_NODE_PARAMS) -> CuResult<KernelNode> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes the v2 structure.
    let p = unsafe { &*p };
    let via_kernel = p.func.is_null();
    let handle = if via_kernel {
        p.kern as usize
    } else {
        p.func as usize
    };
    let function = module::function(handle as CUfunction)?;
    let grid = [p.gridDimX, p.gridDimY, p.gridDimZ];
    let block = [p.blockDimX, p.blockDimY, p.blockDimZ];
    launch::validate(&function, grid, block, p.sharedMemBytes)?;
    // SAFETY: forwarded contract (kernelParams/extra as for cuLaunchKernel).
    let params = unsafe { launch::param_block(&function, p.kernelParams, p.extra) }?;
    Ok(KernelNode {
        handle,
        via_kernel,
        function,
        grid,
        block,
        shared: p.sharedMemBytes,
        params,
        attrs: LaunchAttrs::default(),
    })
}

/// A memcpy node's copy, validated now as the copy would be.
pub(crate) unsafe fn memcpy_desc(p: *const CUDA_MEMCPY3D) -> CuResult<CUDA_MEMCPY3D> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    let d = unsafe { *p };
    copy::plan_3d(&d)?;
    Ok(d)
}

pub(crate) unsafe fn memset_desc(
    p: *const CUDA_MEMSET_NODE_PARAMS,
) -> CuResult<CUDA_MEMSET_NODE_PARAMS> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    let d = unsafe { *p };
    copy::plan_memset(&d)?;
    Ok(d)
}

unsafe fn host_desc(p: *const CUDA_HOST_NODE_PARAMS) -> CuResult<CUDA_HOST_NODE_PARAMS> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    let d = unsafe { *p };
    if d.fn_.is_none() {
        return Err(INVALID_VALUE);
    }
    Ok(d)
}

// ---- Entry points.

pub(crate) unsafe fn create(out: *mut CUgraph, flags: c_uint) -> CuResult {
    if out.is_null() || flags != 0 {
        return Err(INVALID_VALUE);
    }
    crate::context::active()?;
    let g = Graph::create();
    // SAFETY: checked non-null.
    unsafe { *out = g.handle() };
    Ok(())
}

pub(crate) unsafe fn destroy(h: CUgraph) -> CuResult {
    let g = graph(h)?;
    g.unregister();
    Ok(())
}

pub(crate) unsafe fn clone(out: *mut CUgraph, h: CUgraph) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let g = graph(h)?;
    // cuda.h: "Cloning is not supported for graphs which contain memory allocation nodes,
    // memory free nodes, or conditional nodes".
    if g.has_special_nodes() {
        return Err(INVALID_VALUE);
    }
    let c = g.deep_clone();
    // SAFETY: checked non-null.
    unsafe { *out = c.handle() };
    Ok(())
}

pub(crate) unsafe fn node_find_in_clone(
    out: *mut CUgraphNode,
    original: CUgraphNode,
    cloned: CUgraph,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let g = graph(cloned)?;
    let o = node(original)?;
    let found = g
        .inner
        .lock()
        .nodes
        .iter()
        .find(|n| n.origin == o.handle())
        .map(|n| n.handle())
        .ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *out = found as CUgraphNode };
    Ok(())
}

pub(crate) unsafe fn add_empty_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { add_node(out, g, deps, n, || Ok(Kind::Empty)) }
}

pub(crate) unsafe fn add_kernel_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *const CUDA_KERNEL_NODE_PARAMS,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { add_node(out, g, deps, n, || Ok(Kind::Kernel(kernel_node(p)?))) }
}

pub(crate) unsafe fn add_memcpy_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *const CUDA_MEMCPY3D,
    ctx: CUcontext,
) -> CuResult {
    CONTEXTS.get(ctx)?;
    // SAFETY: forwarded contract.
    unsafe { add_node(out, g, deps, n, || Ok(Kind::Memcpy(memcpy_desc(p)?))) }
}

pub(crate) unsafe fn add_memset_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *const CUDA_MEMSET_NODE_PARAMS,
    ctx: CUcontext,
) -> CuResult {
    CONTEXTS.get(ctx)?;
    // SAFETY: forwarded contract.
    unsafe { add_node(out, g, deps, n, || Ok(Kind::Memset(memset_desc(p)?))) }
}

pub(crate) unsafe fn add_host_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *const CUDA_HOST_NODE_PARAMS,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { add_node(out, g, deps, n, || Ok(Kind::Host(host_desc(p)?))) }
}

pub(crate) unsafe fn add_child_graph_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    child: CUgraph,
) -> CuResult {
    // The child is cloned: later changes to it do not affect the node (driver semantics).
    // SAFETY: forwarded contract.
    unsafe {
        add_node(out, g, deps, n, || {
            let child = graph(child)?;
            // "If childGraph contains allocation nodes, free nodes, or conditional nodes,
            // this call will return an error."
            if child.has_special_nodes() {
                return Err(INVALID_VALUE);
            }
            Ok(Kind::Child(child.deep_clone()))
        })
    }
}

pub(crate) unsafe fn add_event_record_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    event: CUevent,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe {
        add_node(out, g, deps, n, || {
            EVENTS.get(event)?;
            Ok(Kind::EventRecord(event))
        })
    }
}

pub(crate) unsafe fn add_event_wait_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    event: CUevent,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe {
        add_node(out, g, deps, n, || {
            EVENTS.get(event)?;
            Ok(Kind::EventWait(event))
        })
    }
}

/// `cuGraphAddNode`: the generic form, for the node types above.
pub(crate) unsafe fn add_generic_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *mut CUgraphNodeParams,
) -> CuResult {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    let raw = p;
    // SAFETY: checked non-null.
    let p = unsafe { &*raw };
    use CUgraphNodeType as T;
    // SAFETY: the union member read is the one `type_` names; forwarded contract otherwise.
    unsafe {
        match p.type_ {
            T::CU_GRAPH_NODE_TYPE_EMPTY => add_empty_node(out, g, deps, n),
            T::CU_GRAPH_NODE_TYPE_KERNEL => {
                // The v3 kernel parameters have the v2 layout.
                let k = &p.__bindgen_anon_1.kernel as *const CUDA_KERNEL_NODE_PARAMS_v3
                    as *const CUDA_KERNEL_NODE_PARAMS;
                add_kernel_node(out, g, deps, n, k)
            }
            T::CU_GRAPH_NODE_TYPE_MEMCPY => {
                let m = &p.__bindgen_anon_1.memcpy;
                let ctx = if m.copyCtx.is_null() {
                    crate::context::active()?.handle()
                } else {
                    m.copyCtx
                };
                add_memcpy_node(out, g, deps, n, &m.copyParams, ctx)
            }
            T::CU_GRAPH_NODE_TYPE_MEMSET => {
                let m = &p.__bindgen_anon_1.memset;
                let v1 = CUDA_MEMSET_NODE_PARAMS {
                    dst: m.dst,
                    pitch: m.pitch,
                    value: m.value,
                    elementSize: m.elementSize,
                    width: m.width,
                    height: m.height,
                };
                let ctx = if m.ctx.is_null() {
                    crate::context::active()?.handle()
                } else {
                    m.ctx
                };
                add_memset_node(out, g, deps, n, &v1, ctx)
            }
            T::CU_GRAPH_NODE_TYPE_HOST => {
                let h = &p.__bindgen_anon_1.host;
                let v1 = CUDA_HOST_NODE_PARAMS {
                    fn_: h.fn_,
                    userData: h.userData,
                };
                add_host_node(out, g, deps, n, &v1)
            }
            T::CU_GRAPH_NODE_TYPE_GRAPH => {
                add_child_graph_node(out, g, deps, n, p.__bindgen_anon_1.graph.graph)
            }
            T::CU_GRAPH_NODE_TYPE_EVENT_RECORD => {
                add_event_record_node(out, g, deps, n, p.__bindgen_anon_1.eventRecord.event)
            }
            T::CU_GRAPH_NODE_TYPE_WAIT_EVENT => {
                add_event_wait_node(out, g, deps, n, p.__bindgen_anon_1.eventWait.event)
            }
            T::CU_GRAPH_NODE_TYPE_MEM_ALLOC => {
                // The v2 parameters have the v1 layout; dptr is written back.
                let a = &mut (*raw).__bindgen_anon_1.alloc as *mut CUDA_MEM_ALLOC_NODE_PARAMS_v2
                    as *mut CUDA_MEM_ALLOC_NODE_PARAMS;
                add_mem_alloc_node(out, g, deps, n, a)
            }
            T::CU_GRAPH_NODE_TYPE_MEM_FREE => {
                add_mem_free_node(out, g, deps, n, p.__bindgen_anon_1.free.dptr)
            }
            T::CU_GRAPH_NODE_TYPE_CONDITIONAL => {
                let c = &mut (*raw).__bindgen_anon_1.conditional;
                add_node(out, g, deps, n, || crate::graph::conditional::make_node(c))
            }
            _ => Err(CUresult::CUDA_ERROR_NOT_SUPPORTED),
        }
    }
}

pub(crate) unsafe fn add_mem_alloc_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *mut CUDA_MEM_ALLOC_NODE_PARAMS,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe {
        add_node(out, g, deps, n, || {
            let kind = crate::graph::mem::alloc_params(p)?;
            if let Kind::MemAlloc(a) = &kind {
                (*p).dptr = a.dptr;
            }
            Ok(kind)
        })
    }
}

/// A free node for a graph allocation; an address freed by another free node of the same
/// graph, or that is no graph allocation's base, is CUDA_ERROR_INVALID_VALUE (cuda.h).
pub(crate) unsafe fn add_mem_free_node(
    out: *mut CUgraphNode,
    h: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    dptr: CUdeviceptr,
) -> CuResult {
    let g = graph(h)?;
    let twice = g
        .inner
        .lock()
        .nodes
        .iter()
        .any(|m| matches!(&*m.kind.lock(), Kind::MemFree(p) if *p == dptr));
    // SAFETY: forwarded contract.
    unsafe {
        add_node(out, h, deps, n, || {
            if twice || crate::graph::mem::find(dptr).is_none() {
                return Err(INVALID_VALUE);
            }
            Ok(Kind::MemFree(dptr))
        })
    }
}

pub(crate) unsafe fn mem_alloc_node_get_params(
    h: CUgraphNode,
    out: *mut CUDA_MEM_ALLOC_NODE_PARAMS,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEM_ALLOC, |_, k| {
        let Kind::MemAlloc(a) = k else { unreachable!() };
        // SAFETY: checked non-null; the descriptors live as long as the node.
        unsafe { *out = alloc_params_of(a) };
        Ok(())
    })
}

fn alloc_params_of(a: &GraphAlloc) -> CUDA_MEM_ALLOC_NODE_PARAMS {
    CUDA_MEM_ALLOC_NODE_PARAMS {
        poolProps: a.props,
        accessDescs: if a.access.is_empty() {
            std::ptr::null()
        } else {
            a.access.as_ptr()
        },
        accessDescCount: a.access.len(),
        bytesize: a.size as usize,
        dptr: a.dptr,
    }
}

pub(crate) unsafe fn mem_free_node_get_params(h: CUgraphNode, out: *mut CUdeviceptr) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEM_FREE, |_, k| {
        let Kind::MemFree(p) = k else { unreachable!() };
        // SAFETY: checked non-null.
        unsafe { *out = *p };
        Ok(())
    })
}

/// `cuGraphNodeGetParams`: the node's parameters in the generic structure (pointers in it
/// refer to storage the node owns).
pub(crate) unsafe fn node_get_params(h: CUgraphNode, p: *mut CUgraphNodeParams) -> CuResult {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    let t = node(h)?.kind.lock().node_type();
    // SAFETY: all-zero bytes are a valid CUgraphNodeParams (plain data and pointers).
    let mut v: CUgraphNodeParams = unsafe { std::mem::zeroed() };
    v.type_ = t;
    use CUgraphNodeType as T;
    // SAFETY: each arm writes the union member `t` selects, through the matching getter.
    unsafe {
        let u = &mut v.__bindgen_anon_1;
        match t {
            T::CU_GRAPH_NODE_TYPE_KERNEL => kernel_node_get_params(
                h,
                &mut u.kernel as *mut CUDA_KERNEL_NODE_PARAMS_v3 as *mut CUDA_KERNEL_NODE_PARAMS,
            )?,
            T::CU_GRAPH_NODE_TYPE_MEMCPY => {
                memcpy_node_get_params(h, &mut u.memcpy.copyParams)?;
                u.memcpy.copyCtx = crate::context::active()?.handle();
            }
            T::CU_GRAPH_NODE_TYPE_MEMSET => {
                let mut m = CUDA_MEMSET_NODE_PARAMS::default();
                memset_node_get_params(h, &mut m)?;
                u.memset.dst = m.dst;
                u.memset.pitch = m.pitch;
                u.memset.value = m.value;
                u.memset.elementSize = m.elementSize;
                u.memset.width = m.width;
                u.memset.height = m.height;
                u.memset.ctx = crate::context::active()?.handle();
            }
            T::CU_GRAPH_NODE_TYPE_HOST => {
                let mut m = CUDA_HOST_NODE_PARAMS {
                    fn_: None,
                    userData: std::ptr::null_mut(),
                };
                host_node_get_params(h, &mut m)?;
                u.host.fn_ = m.fn_;
                u.host.userData = m.userData;
            }
            T::CU_GRAPH_NODE_TYPE_GRAPH => child_graph_node_get_graph(h, &mut u.graph.graph)?,
            T::CU_GRAPH_NODE_TYPE_EVENT_RECORD => {
                event_record_node_get_event(h, &mut u.eventRecord.event)?
            }
            T::CU_GRAPH_NODE_TYPE_WAIT_EVENT => {
                event_wait_node_get_event(h, &mut u.eventWait.event)?
            }
            T::CU_GRAPH_NODE_TYPE_MEM_ALLOC => mem_alloc_node_get_params(
                h,
                &mut u.alloc as *mut CUDA_MEM_ALLOC_NODE_PARAMS_v2
                    as *mut CUDA_MEM_ALLOC_NODE_PARAMS,
            )?,
            T::CU_GRAPH_NODE_TYPE_MEM_FREE => mem_free_node_get_params(h, &mut u.free.dptr)?,
            T::CU_GRAPH_NODE_TYPE_CONDITIONAL => {
                let n = node(h)?;
                let k = n.kind.lock();
                let Kind::Conditional(c) = &*k else {
                    return Err(INVALID_VALUE);
                };
                u.conditional.handle = c.handle.cell;
                u.conditional.type_ = c.ty;
                u.conditional.size = c.bodies.len() as u32;
                u.conditional.phGraph_out = c.out.as_ptr() as *mut CUgraph;
                u.conditional.ctx = crate::context::active()?.handle();
            }
            _ => {}
        }
        *p = v;
    }
    Ok(())
}

/// `cuGraphNodeSetParams` (and `_v2`): the type must be the node's; memory nodes cannot be
/// changed (CUDA_ERROR_NOT_SUPPORTED, as cuda.h says), nor here a child graph node's graph or
/// a conditional node's shape.
pub(crate) unsafe fn node_set_params(h: CUgraphNode, p: *mut CUgraphNodeParams) -> CuResult {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    let n = node(h)?;
    // SAFETY: checked non-null.
    let p = unsafe { &*p };
    if n.kind.lock().node_type() != p.type_ {
        return Err(INVALID_VALUE);
    }
    use CUgraphNodeType as T;
    // SAFETY: the union member read is the one `type_` names.
    unsafe {
        let u = &p.__bindgen_anon_1;
        match p.type_ {
            T::CU_GRAPH_NODE_TYPE_KERNEL => kernel_node_set_params(
                h,
                &u.kernel as *const CUDA_KERNEL_NODE_PARAMS_v3 as *const CUDA_KERNEL_NODE_PARAMS,
            ),
            T::CU_GRAPH_NODE_TYPE_MEMCPY => memcpy_node_set_params(h, &u.memcpy.copyParams),
            T::CU_GRAPH_NODE_TYPE_MEMSET => memset_node_set_params(h, &memset_v1(&u.memset)),
            T::CU_GRAPH_NODE_TYPE_HOST => host_node_set_params(
                h,
                &CUDA_HOST_NODE_PARAMS {
                    fn_: u.host.fn_,
                    userData: u.host.userData,
                },
            ),
            T::CU_GRAPH_NODE_TYPE_EVENT_RECORD => {
                event_record_node_set_event(h, u.eventRecord.event)
            }
            T::CU_GRAPH_NODE_TYPE_WAIT_EVENT => event_wait_node_set_event(h, u.eventWait.event),
            T::CU_GRAPH_NODE_TYPE_EMPTY => Ok(()),
            _ => Err(CUresult::CUDA_ERROR_NOT_SUPPORTED),
        }
    }
}

pub(crate) fn memset_v1(m: &CUDA_MEMSET_NODE_PARAMS_v2) -> CUDA_MEMSET_NODE_PARAMS {
    CUDA_MEMSET_NODE_PARAMS {
        dst: m.dst,
        pitch: m.pitch,
        value: m.value,
        elementSize: m.elementSize,
        width: m.width,
        height: m.height,
    }
}

pub(crate) unsafe fn add_generic_node_v2(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    edge_data: *const CUgraphEdgeData,
    n: usize,
    p: *mut CUgraphNodeParams,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { check_default_edges(edge_data, n) }?;
    // SAFETY: forwarded contract.
    unsafe { add_generic_node(out, g, deps, n, p) }
}

/// Edge data must be absent or all default (zero): only full dependencies exist here.
unsafe fn check_default_edges(data: *const CUgraphEdgeData, n: usize) -> CuResult {
    if data.is_null() || n == 0 {
        return Ok(());
    }
    // SAFETY: the caller passes `n` entries.
    let list = unsafe { std::slice::from_raw_parts(data, n) };
    if list.iter().all(|e| *e == CUgraphEdgeData::default()) {
        Ok(())
    } else {
        Err(CUresult::CUDA_ERROR_NOT_SUPPORTED)
    }
}

/// Runs `f` on the node's kind when it is of type `t`, else INVALID_VALUE.
fn with_kind<R>(
    h: CUgraphNode,
    t: CUgraphNodeType,
    f: impl FnOnce(&Node, &mut Kind) -> CuResult<R>,
) -> CuResult<R> {
    let n = node(h)?;
    let mut k = n.kind.lock();
    if k.node_type() != t {
        return Err(INVALID_VALUE);
    }
    f(&n, &mut k)
}

pub(crate) unsafe fn kernel_node_get_params(
    h: CUgraphNode,
    out: *mut CUDA_KERNEL_NODE_PARAMS,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL, |n, k| {
        let Kind::Kernel(kn) = k else { unreachable!() };
        let mut scratch = n.scratch.lock();
        let base = kn.params.as_ptr() as usize;
        *scratch = kn
            .function
            .kernel
            .params
            .iter()
            .map(|p| base + p.offset)
            .collect();
        let (func, kern) = kn.handles()?;
        let v = CUDA_KERNEL_NODE_PARAMS {
            func,
            gridDimX: kn.grid[0],
            gridDimY: kn.grid[1],
            gridDimZ: kn.grid[2],
            blockDimX: kn.block[0],
            blockDimY: kn.block[1],
            blockDimZ: kn.block[2],
            sharedMemBytes: kn.shared,
            kernelParams: scratch.as_mut_ptr() as *mut *mut c_void,
            extra: std::ptr::null_mut(),
            kern,
            ctx: std::ptr::null_mut(),
        };
        // SAFETY: checked non-null.
        unsafe { *out = v };
        Ok(())
    })
}

impl KernelNode {
    /// The `func` and `kern` to report: a node made from a `CUkernel` reports it in `kern`
    /// (cudart maps it back to the host-side function) and its function in `func`.
    fn handles(&self) -> CuResult<(CUfunction, CUkernel)> {
        if !self.via_kernel {
            return Ok((self.handle as CUfunction, std::ptr::null_mut()));
        }
        let f = &self.function;
        let func = crate::module::function_handle(&f.module, f.name.to_str().unwrap_or_default())?;
        Ok((func as CUfunction, self.handle as CUkernel))
    }
}

pub(crate) unsafe fn kernel_node_set_params(
    h: CUgraphNode,
    p: *const CUDA_KERNEL_NODE_PARAMS,
) -> CuResult {
    // SAFETY: forwarded contract.
    let mut kn = unsafe { kernel_node(p) }?;
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL, |_, k| {
        // The parameters replace the launch, not the node's attributes (set separately).
        let Kind::Kernel(old) = k else { unreachable!() };
        kn.attrs = std::mem::take(&mut old.attrs);
        *k = Kind::Kernel(kn);
        Ok(())
    })
}

/// `cuGraphKernelNodeSetAttribute`: see [`LaunchAttrs`]. Validity of a cluster shape against
/// the node's grid and function is checked when the graph is instantiated and launched, as the
/// node's launch parameters may still change.
pub(crate) unsafe fn kernel_node_set_attribute(
    h: CUgraphNode,
    id: CUlaunchAttributeID,
    value: *const CUlaunchAttributeValue,
) -> CuResult {
    node(h)?;
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes one value.
    let value = unsafe { *value };
    LaunchAttrs::check(id, &value)?;
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL, |_, k| {
        let Kind::Kernel(kn) = k else { unreachable!() };
        kn.attrs.set(id, value);
        Ok(())
    })
}

/// `cuGraphKernelNodeGetAttribute`: the value set, else the attribute's default (zero).
pub(crate) unsafe fn kernel_node_get_attribute(
    h: CUgraphNode,
    id: CUlaunchAttributeID,
    out: *mut CUlaunchAttributeValue,
) -> CuResult {
    node(h)?;
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    // Only the attributes a kernel node takes can be read; the value checked is a default.
    // SAFETY: the union is plain data; all-zero bytes are a valid value of each member.
    let zero: CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
    match LaunchAttrs::check(id, &zero) {
        Err(e) if e == INVALID_VALUE => return Err(e),
        _ => {}
    }
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL, |_, k| {
        let Kind::Kernel(kn) = k else { unreachable!() };
        // SAFETY: checked non-null.
        unsafe { *out = kn.attrs.get(id) };
        Ok(())
    })
}

/// `cuGraphKernelNodeCopyAttributes`: `dst` takes every attribute of `src` (both kernel
/// nodes).
pub(crate) unsafe fn kernel_node_copy_attributes(dst: CUgraphNode, src: CUgraphNode) -> CuResult {
    let attrs = with_kind(src, CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL, |_, k| {
        let Kind::Kernel(kn) = k else { unreachable!() };
        Ok(kn.attrs.clone())
    })?;
    with_kind(dst, CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL, |_, k| {
        let Kind::Kernel(kn) = k else { unreachable!() };
        kn.attrs = attrs;
        Ok(())
    })
}

pub(crate) unsafe fn memcpy_node_get_params(h: CUgraphNode, out: *mut CUDA_MEMCPY3D) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMCPY, |_, k| {
        let Kind::Memcpy(d) = k else { unreachable!() };
        // SAFETY: checked non-null.
        unsafe { *out = *d };
        Ok(())
    })
}

pub(crate) unsafe fn memcpy_node_set_params(h: CUgraphNode, p: *const CUDA_MEMCPY3D) -> CuResult {
    // SAFETY: forwarded contract.
    let d = unsafe { memcpy_desc(p) }?;
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMCPY, |_, k| {
        *k = Kind::Memcpy(d);
        Ok(())
    })
}

pub(crate) unsafe fn memset_node_get_params(
    h: CUgraphNode,
    out: *mut CUDA_MEMSET_NODE_PARAMS,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMSET, |_, k| {
        let Kind::Memset(d) = k else { unreachable!() };
        // SAFETY: checked non-null.
        unsafe { *out = *d };
        Ok(())
    })
}

pub(crate) unsafe fn memset_node_set_params(
    h: CUgraphNode,
    p: *const CUDA_MEMSET_NODE_PARAMS,
) -> CuResult {
    // SAFETY: forwarded contract.
    let d = unsafe { memset_desc(p) }?;
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMSET, |_, k| {
        *k = Kind::Memset(d);
        Ok(())
    })
}

pub(crate) unsafe fn host_node_get_params(
    h: CUgraphNode,
    out: *mut CUDA_HOST_NODE_PARAMS,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_HOST, |_, k| {
        let Kind::Host(d) = k else { unreachable!() };
        // SAFETY: checked non-null.
        unsafe { *out = *d };
        Ok(())
    })
}

pub(crate) unsafe fn host_node_set_params(
    h: CUgraphNode,
    p: *const CUDA_HOST_NODE_PARAMS,
) -> CuResult {
    // SAFETY: forwarded contract.
    let d = unsafe { host_desc(p) }?;
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_HOST, |_, k| {
        *k = Kind::Host(d);
        Ok(())
    })
}

pub(crate) unsafe fn child_graph_node_get_graph(h: CUgraphNode, out: *mut CUgraph) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    with_kind(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_GRAPH, |_, k| {
        let Kind::Child(g) = k else { unreachable!() };
        // SAFETY: checked non-null.
        unsafe { *out = g.handle() };
        Ok(())
    })
}

unsafe fn event_of(h: CUgraphNode, t: CUgraphNodeType, out: *mut CUevent) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    with_kind(h, t, |_, k| {
        let (Kind::EventRecord(e) | Kind::EventWait(e)) = k else {
            unreachable!()
        };
        // SAFETY: checked non-null.
        unsafe { *out = *e };
        Ok(())
    })
}

fn set_event(h: CUgraphNode, t: CUgraphNodeType, event: CUevent) -> CuResult {
    EVENTS.get(event)?;
    with_kind(h, t, |_, k| {
        match k {
            Kind::EventRecord(e) | Kind::EventWait(e) => *e = event,
            _ => unreachable!(),
        }
        Ok(())
    })
}

pub(crate) unsafe fn event_record_node_get_event(h: CUgraphNode, out: *mut CUevent) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { event_of(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_EVENT_RECORD, out) }
}

pub(crate) unsafe fn event_record_node_set_event(h: CUgraphNode, event: CUevent) -> CuResult {
    set_event(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_EVENT_RECORD, event)
}

pub(crate) unsafe fn event_wait_node_get_event(h: CUgraphNode, out: *mut CUevent) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { event_of(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_WAIT_EVENT, out) }
}

pub(crate) unsafe fn event_wait_node_set_event(h: CUgraphNode, event: CUevent) -> CuResult {
    set_event(h, CUgraphNodeType::CU_GRAPH_NODE_TYPE_WAIT_EVENT, event)
}

pub(crate) unsafe fn node_get_type(h: CUgraphNode, out: *mut CUgraphNodeType) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let n = node(h)?;
    let t = n.kind.lock().node_type();
    // SAFETY: checked non-null.
    unsafe { *out = t };
    Ok(())
}

pub(crate) unsafe fn node_get_containing_graph(h: CUgraphNode, out: *mut CUgraph) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let g = node(h)?
        .graph
        .upgrade()
        .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
    // SAFETY: checked non-null.
    unsafe { *out = g.handle() };
    Ok(())
}

pub(crate) unsafe fn node_get_local_id(h: CUgraphNode, out: *mut c_uint) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let id = node(h)?.local_id;
    // SAFETY: checked non-null.
    unsafe { *out = id };
    Ok(())
}

pub(crate) unsafe fn get_id(h: CUgraph, out: *mut c_uint) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let id = graph(h)?.id;
    // SAFETY: checked non-null.
    unsafe { *out = id };
    Ok(())
}

/// The two-call protocol of the listing calls: with a NULL array, report the count; else fill
/// up to `*count` entries and set `*count` to the number written... except that the driver
/// sets `*count` to the number written only when there are fewer; extra slots are NULLed.
unsafe fn list_out(items: &[usize], out: *mut CUgraphNode, count: *mut usize) -> CuResult {
    if count.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    let cap = unsafe { *count };
    if out.is_null() {
        // SAFETY: checked non-null.
        unsafe { *count = items.len() };
        return Ok(());
    }
    for i in 0..cap {
        // SAFETY: the caller's array has `cap` entries.
        unsafe { *out.add(i) = items.get(i).copied().unwrap_or(0) as CUgraphNode };
    }
    // SAFETY: checked non-null.
    unsafe { *count = items.len().min(cap) };
    Ok(())
}

pub(crate) unsafe fn get_nodes(h: CUgraph, out: *mut CUgraphNode, count: *mut usize) -> CuResult {
    let g = graph(h)?;
    let items: Vec<usize> = g.inner.lock().nodes.iter().map(|n| n.handle()).collect();
    // SAFETY: forwarded contract.
    unsafe { list_out(&items, out, count) }
}

pub(crate) unsafe fn get_root_nodes(
    h: CUgraph,
    out: *mut CUgraphNode,
    count: *mut usize,
) -> CuResult {
    let g = graph(h)?;
    let inner = g.inner.lock();
    let items: Vec<usize> = inner
        .nodes
        .iter()
        .map(|n| n.handle())
        .filter(|h| !inner.edges.iter().any(|(_, to)| to == h))
        .collect();
    drop(inner);
    // SAFETY: forwarded contract.
    unsafe { list_out(&items, out, count) }
}

pub(crate) unsafe fn get_edges(
    h: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    count: *mut usize,
) -> CuResult {
    if count.is_null() || from.is_null() != to.is_null() {
        return Err(INVALID_VALUE);
    }
    let g = graph(h)?;
    let edges = g.inner.lock().edges.clone();
    let froms: Vec<usize> = edges.iter().map(|e| e.0).collect();
    let tos: Vec<usize> = edges.iter().map(|e| e.1).collect();
    // SAFETY: checked non-null; `*count` is the capacity of both arrays.
    let cap = unsafe { *count };
    // SAFETY: forwarded contract.
    unsafe { list_out(&froms, from, count) }?;
    if !to.is_null() {
        // SAFETY: checked non-null.
        unsafe { *count = cap };
        // SAFETY: forwarded contract.
        unsafe { list_out(&tos, to, count) }?;
    }
    Ok(())
}

pub(crate) unsafe fn get_edges_v2(
    h: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    data: *mut CUgraphEdgeData,
    count: *mut usize,
) -> CuResult {
    if !data.is_null() && from.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null where needed; forwarded contract.
    let cap = if count.is_null() {
        0
    } else {
        unsafe { *count }
    };
    // SAFETY: forwarded contract.
    unsafe { get_edges(h, from, to, count) }?;
    zero_edge_data(data, cap);
    Ok(())
}

fn zero_edge_data(data: *mut CUgraphEdgeData, n: usize) {
    for i in 0..n {
        if data.is_null() {
            break;
        }
        // SAFETY: the caller's array has `n` entries.
        unsafe { *data.add(i) = CUgraphEdgeData::default() };
    }
}

fn neighbours(n: &Node, h: usize, upstream: bool) -> CuResult<Vec<usize>> {
    let g = n
        .graph
        .upgrade()
        .ok_or(CUresult::CUDA_ERROR_INVALID_HANDLE)?;
    let inner = g.inner.lock();
    Ok(inner
        .edges
        .iter()
        .filter_map(|&(a, b)| match upstream {
            true if b == h => Some(a),
            false if a == h => Some(b),
            _ => None,
        })
        .collect())
}

pub(crate) unsafe fn node_get_dependencies(
    h: CUgraphNode,
    out: *mut CUgraphNode,
    count: *mut usize,
) -> CuResult {
    let n = node(h)?;
    let items = neighbours(&n, h as usize, true)?;
    // SAFETY: forwarded contract.
    unsafe { list_out(&items, out, count) }
}

pub(crate) unsafe fn node_get_dependent_nodes(
    h: CUgraphNode,
    out: *mut CUgraphNode,
    count: *mut usize,
) -> CuResult {
    let n = node(h)?;
    let items = neighbours(&n, h as usize, false)?;
    // SAFETY: forwarded contract.
    unsafe { list_out(&items, out, count) }
}

pub(crate) unsafe fn node_get_dependencies_v2(
    h: CUgraphNode,
    out: *mut CUgraphNode,
    data: *mut CUgraphEdgeData,
    count: *mut usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    let cap = if count.is_null() {
        0
    } else {
        unsafe { *count }
    };
    // SAFETY: forwarded contract.
    unsafe { node_get_dependencies(h, out, count) }?;
    zero_edge_data(data, cap);
    Ok(())
}

pub(crate) unsafe fn node_get_dependent_nodes_v2(
    h: CUgraphNode,
    out: *mut CUgraphNode,
    data: *mut CUgraphEdgeData,
    count: *mut usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    let cap = if count.is_null() {
        0
    } else {
        unsafe { *count }
    };
    // SAFETY: forwarded contract.
    unsafe { node_get_dependent_nodes(h, out, count) }?;
    zero_edge_data(data, cap);
    Ok(())
}

/// The (from, to) pairs of an add/remove-dependencies call, each end a node of `g`.
unsafe fn pairs(
    g: &Graph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    n: usize,
) -> CuResult<Vec<(usize, usize)>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if from.is_null() || to.is_null() {
        return Err(INVALID_VALUE);
    }
    let inner = g.inner.lock();
    (0..n)
        .map(|i| {
            // SAFETY: both arrays hold `n` handles.
            let (a, b) = unsafe { (*from.add(i) as usize, *to.add(i) as usize) };
            if a == b || !Graph::contains(&inner, a) || !Graph::contains(&inner, b) {
                return Err(INVALID_VALUE);
            }
            Ok((a, b))
        })
        .collect()
}

pub(crate) unsafe fn add_dependencies(
    h: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    n: usize,
) -> CuResult {
    let g = graph(h)?;
    // SAFETY: forwarded contract.
    let list = unsafe { pairs(&g, from, to, n) }?;
    let mut inner = g.inner.lock();
    // An edge that exists already is an error, as in the driver.
    if list.iter().any(|e| inner.edges.contains(e)) {
        return Err(INVALID_VALUE);
    }
    inner.edges.extend(list);
    Ok(())
}

pub(crate) unsafe fn add_dependencies_v2(
    h: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    data: *const CUgraphEdgeData,
    n: usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { check_default_edges(data, n) }?;
    // SAFETY: forwarded contract.
    unsafe { add_dependencies(h, from, to, n) }
}

pub(crate) unsafe fn remove_dependencies(
    h: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    n: usize,
) -> CuResult {
    let g = graph(h)?;
    // SAFETY: forwarded contract.
    let list = unsafe { pairs(&g, from, to, n) }?;
    let mut inner = g.inner.lock();
    if list.iter().any(|e| !inner.edges.contains(e)) {
        return Err(INVALID_VALUE);
    }
    inner.edges.retain(|e| !list.contains(e));
    Ok(())
}

pub(crate) unsafe fn remove_dependencies_v2(
    h: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    data: *const CUgraphEdgeData,
    n: usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { check_default_edges(data, n) }?;
    // SAFETY: forwarded contract.
    unsafe { remove_dependencies(h, from, to, n) }
}

pub(crate) unsafe fn destroy_node(h: CUgraphNode) -> CuResult {
    let n = node(h)?;
    let h = h as usize;
    if let Some(g) = n.graph.upgrade() {
        let mut inner = g.inner.lock();
        inner.nodes.retain(|m| m.handle() != h);
        inner.edges.retain(|&(a, b)| a != h && b != h);
    }
    match &*n.kind.lock() {
        Kind::Child(c) => c.unregister(),
        Kind::Conditional(c) => c.bodies.iter().for_each(|b| b.unregister()),
        _ => {}
    }
    NODES.remove(h);
    Ok(())
}

/// The nodes of `g` in a topological order (ties broken by creation order), or the first node
/// on a cycle.
pub fn topological(g: &Graph) -> Result<Vec<Arc<Node>>, usize> {
    let inner = g.inner.lock();
    let index: std::collections::HashMap<usize, usize> = inner
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.handle(), i))
        .collect();
    let mut indegree = vec![0usize; inner.nodes.len()];
    for (_, b) in &inner.edges {
        indegree[index[b]] += 1;
    }
    let mut done = vec![false; inner.nodes.len()];
    let mut order = Vec::with_capacity(inner.nodes.len());
    while order.len() < inner.nodes.len() {
        let Some(i) = (0..inner.nodes.len()).find(|&i| !done[i] && indegree[i] == 0) else {
            let stuck = (0..inner.nodes.len()).find(|&i| !done[i]).unwrap();
            return Err(inner.nodes[stuck].handle());
        };
        done[i] = true;
        let h = inner.nodes[i].handle();
        for (a, b) in &inner.edges {
            if *a == h {
                indegree[index[b]] -= 1;
            }
        }
        order.push(inner.nodes[i].clone());
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(
        id: CUlaunchAttributeID,
        set: impl FnOnce(&mut CUlaunchAttributeValue),
    ) -> CUlaunchAttribute {
        // SAFETY: an all-zero union of plain data is valid.
        let mut value: CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
        set(&mut value);
        CUlaunchAttribute {
            id,
            pad: [0; 4],
            value,
        }
    }

    /// What a kernel node keeps of a launch configuration: the cluster shape (last one wins,
    /// all-zero meaning none) and hints such as the priority; launch-only attributes dropped.
    #[test]
    fn launch_attributes_a_kernel_node_keeps() {
        use CUlaunchAttributeID as A;
        let cluster = |x, y, z| {
            attr(A::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, |v| {
                v.clusterDim.x = x;
                v.clusterDim.y = y;
                v.clusterDim.z = z;
            })
        };
        assert_eq!(LaunchAttrs::from_launch(&[]).cluster(), None);
        let a = LaunchAttrs::from_launch(&[
            cluster(4, 1, 1),
            attr(A::CU_LAUNCH_ATTRIBUTE_PRIORITY, |v| v.priority = -2),
            attr(
                A::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                |v| v.programmaticStreamSerializationAllowed = 1,
            ),
            cluster(2, 1, 4),
        ]);
        assert_eq!(a.cluster(), Some([2, 1, 4]));
        // SAFETY: the member each id selects.
        unsafe {
            assert_eq!(a.get(A::CU_LAUNCH_ATTRIBUTE_PRIORITY).priority, -2);
            let p = a.get(A::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
            assert_eq!(p.programmaticStreamSerializationAllowed, 0);
        }
        assert_eq!(a.0.len(), 2);
        assert_eq!(
            LaunchAttrs::from_launch(&[cluster(0, 0, 0)]).cluster(),
            None
        );
        assert_eq!(
            LaunchAttrs::from_launch(&[cluster(1, 1, 1)]).cluster(),
            Some([1, 1, 1])
        );
        let check = |a: CUlaunchAttribute| LaunchAttrs::check(a.id, &a.value);
        assert_eq!(check(cluster(2, 1, 1)), Ok(()));
        let policy = |p| {
            attr(
                A::CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE,
                |v| v.clusterSchedulingPolicyPreference = CUclusterSchedulingPolicy(p),
            )
        };
        assert_eq!(check(policy(1)), Ok(()));
        assert_eq!(check(policy(9)), Err(INVALID_VALUE));
        let coop = |c| attr(A::CU_LAUNCH_ATTRIBUTE_COOPERATIVE, |v| v.cooperative = c);
        assert_eq!(check(coop(0)), Ok(()));
        assert_eq!(check(coop(1)), Err(CUresult::CUDA_ERROR_NOT_SUPPORTED));
        let sync = attr(A::CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, |_| {});
        assert_eq!(check(sync), Err(INVALID_VALUE));
        assert_eq!(
            check(attr(CUlaunchAttributeID(0), |_| {})),
            Err(INVALID_VALUE)
        );
        assert_eq!(
            check(attr(CUlaunchAttributeID(99), |_| {})),
            Err(INVALID_VALUE)
        );
    }

    #[test]
    fn topological_order_follows_edges_and_finds_cycles() {
        let g = Graph::create();
        let a = g.add(Kind::Empty, &[], 0);
        let b = g.add(Kind::Empty, &[], 0);
        let c = g.add(Kind::Empty, &[b.handle()], 0);
        // a after c: creation order alone would put a first.
        g.inner.lock().edges.push((c.handle(), a.handle()));
        let order: Vec<usize> = topological(&g)
            .unwrap()
            .iter()
            .map(|n| n.handle())
            .collect();
        assert_eq!(order, vec![b.handle(), c.handle(), a.handle()]);
        g.inner.lock().edges.push((a.handle(), b.handle()));
        assert!(topological(&g).is_err());
        let copy = g.deep_clone();
        assert_eq!(copy.inner.lock().edges.len(), 3);
        assert!(copy
            .inner
            .lock()
            .nodes
            .iter()
            .any(|n| n.origin == a.handle()));
        copy.unregister();
        g.unregister();
        assert!(NODES.get(a.handle() as CUgraphNode).is_err());
    }
}
