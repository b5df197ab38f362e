//! Adding nodes: `cuGraphAdd*Node` for each type and the generic `cuGraphAddNode`, each
//! after the dependencies it names.

use crate::context::CONTEXTS;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::graph::params::{host_desc, kernel_node, memcpy_desc, memset_desc};
use crate::graph::topology::check_default_edges;
use crate::graph::{conditional, mem};
use crate::stream::event::EVENTS;
use crate::work::{graph_alloc, Graph, Kind, GRAPHS};
use abi::*;

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
    let g = GRAPHS.get(h)?;
    // SAFETY: forwarded contract.
    let deps = unsafe { dependencies(&g, deps, n) }?;
    let kind = make()?;
    let node = g.add(kind, &deps, 0);
    // SAFETY: checked non-null.
    unsafe { *out = node.handle() as CUgraphNode };
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
            let child = GRAPHS.get(child)?;
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
                add_node(out, g, deps, n, || conditional::make_node(c))
            }
            _ => Err(CUresult::CUDA_ERROR_NOT_SUPPORTED),
        }
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
            let kind = mem::alloc_params(p)?;
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
    let g = GRAPHS.get(h)?;
    let twice = g
        .inner
        .lock()
        .nodes
        .iter()
        .any(|m| matches!(&*m.kind.lock(), Kind::MemFree(p) if *p == dptr));
    // SAFETY: forwarded contract.
    unsafe {
        add_node(out, h, deps, n, || {
            if twice || graph_alloc::find(dptr).is_none() {
                return Err(INVALID_VALUE);
            }
            Ok(Kind::MemFree(dptr))
        })
    }
}
