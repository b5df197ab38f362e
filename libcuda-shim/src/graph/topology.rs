//! The graph calls about a graph's shape: create, destroy and clone a graph, its nodes and
//! edges listed, dependencies added and removed, a node destroyed, and the ids and lookups
//! (`cuGraphNodeFindInClone`, `cuGraphNodeGetContainingGraph`).

use crate::errors::{CuResult, INVALID_VALUE};
use crate::work::{Graph, Kind, Node, GRAPHS, NODES};
use abi::*;
use std::ffi::c_uint;

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
    let g = GRAPHS.get(h)?;
    g.unregister();
    Ok(())
}

pub(crate) unsafe fn clone(out: *mut CUgraph, h: CUgraph) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let g = GRAPHS.get(h)?;
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
    let g = GRAPHS.get(cloned)?;
    let o = NODES.get(original)?;
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

pub(crate) unsafe fn node_get_containing_graph(h: CUgraphNode, out: *mut CUgraph) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let g = NODES
        .get(h)?
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
    let id = NODES.get(h)?.local_id;
    // SAFETY: checked non-null.
    unsafe { *out = id };
    Ok(())
}

pub(crate) unsafe fn get_id(h: CUgraph, out: *mut c_uint) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let id = GRAPHS.get(h)?.id;
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
    let g = GRAPHS.get(h)?;
    let items: Vec<usize> = g.inner.lock().nodes.iter().map(|n| n.handle()).collect();
    // SAFETY: forwarded contract.
    unsafe { list_out(&items, out, count) }
}

pub(crate) unsafe fn get_root_nodes(
    h: CUgraph,
    out: *mut CUgraphNode,
    count: *mut usize,
) -> CuResult {
    let g = GRAPHS.get(h)?;
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
    let g = GRAPHS.get(h)?;
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
    let n = NODES.get(h)?;
    let items = neighbours(&n, h as usize, true)?;
    // SAFETY: forwarded contract.
    unsafe { list_out(&items, out, count) }
}

pub(crate) unsafe fn node_get_dependent_nodes(
    h: CUgraphNode,
    out: *mut CUgraphNode,
    count: *mut usize,
) -> CuResult {
    let n = NODES.get(h)?;
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
    let g = GRAPHS.get(h)?;
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
    let g = GRAPHS.get(h)?;
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
    let n = NODES.get(h)?;
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

/// Edge data must be absent or all default (zero): only full dependencies exist here.
pub(crate) unsafe fn check_default_edges(data: *const CUgraphEdgeData, n: usize) -> CuResult {
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
