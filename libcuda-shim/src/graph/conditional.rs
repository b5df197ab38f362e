//! Conditional nodes (CUDA 12.4): `cuGraphConditionalHandleCreate` and the IF, WHILE and
//! SWITCH nodes of `cuGraphAddNode` (`CU_GRAPH_NODE_TYPE_CONDITIONAL`).
//!
//! A conditional handle is a 32-bit condition variable in device memory; the handle's value
//! is that variable's address. Device code sets it with `cudaGraphSetConditional(handle,
//! value)`, which nvcc emits as a call of the extern function `cudaGraphSetConditional`; the
//! engine implements that call as a 32-bit store to the handle's address (see
//! `engine::exec::sys`), so the condition needs no round trip through the driver. The handle
//! is opaque to programs, which only pass it to kernels and to these calls.
//!
//! When an executable graph runs a conditional node, a stream worker reads the variable (after
//! the node's dependencies, in stream order) and runs the chosen body graph's nodes on the
//! same thread, again and again for WHILE; `CU_GRAPH_COND_ASSIGN_DEFAULT` stores the default
//! value at the start of every launch of the executable graph.

use crate::context::CONTEXTS;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::work::cond::{self, CondHandle};
use crate::work::{CondNode, Graph, Kind, GRAPHS};
use abi::*;
use engine::mem as dmem;
use std::ffi::c_uint;
use std::sync::Arc;

/// Which bodies a conditional node runs for the condition value `v` (an index into the
/// bodies), or None when it runs none; WHILE asks again after each run.
pub fn choose(ty: CUgraphConditionalNodeType, bodies: usize, v: u32) -> Option<usize> {
    use CUgraphConditionalNodeType as C;
    match ty {
        C::CU_GRAPH_COND_TYPE_IF if v != 0 => Some(0),
        // IF with an ELSE body (size 2) runs it when the condition is zero.
        C::CU_GRAPH_COND_TYPE_IF => (bodies == 2).then_some(1),
        C::CU_GRAPH_COND_TYPE_WHILE => (v != 0).then_some(0),
        _ => ((v as usize) < bodies).then_some(v as usize),
    }
}

/// Validates `p` and makes the node (with new, empty body graphs), writing `phGraph_out`.
pub(crate) fn make_node(p: &mut CUDA_CONDITIONAL_NODE_PARAMS) -> CuResult<Kind> {
    use CUgraphConditionalNodeType as C;
    let ok = match p.type_ {
        C::CU_GRAPH_COND_TYPE_IF => matches!(p.size, 1 | 2),
        C::CU_GRAPH_COND_TYPE_WHILE => p.size == 1,
        C::CU_GRAPH_COND_TYPE_SWITCH => p.size > 0,
        _ => false,
    };
    if !ok {
        return Err(INVALID_VALUE);
    }
    if !p.ctx.is_null() {
        CONTEXTS.get(p.ctx)?;
    }
    let handle = cond::lookup(p.handle)?;
    let bodies: Vec<Arc<Graph>> = (0..p.size).map(|_| Graph::create()).collect();
    let out = Arc::new(
        bodies
            .iter()
            .map(|g| g.handle() as usize)
            .collect::<Vec<_>>(),
    );
    p.phGraph_out = out.as_ptr() as *mut CUgraph;
    Ok(Kind::Conditional(CondNode {
        handle,
        ty: p.type_,
        bodies,
        out,
    }))
}

// ---- Entry points.

pub(crate) unsafe fn handle_create(
    out: *mut CUgraphConditionalHandle,
    g: CUgraph,
    ctx: CUcontext,
    default: c_uint,
    flags: c_uint,
) -> CuResult {
    if out.is_null() || flags & !CU_GRAPH_COND_ASSIGN_DEFAULT != 0 {
        return Err(INVALID_VALUE);
    }
    let g = GRAPHS.get(g)?;
    CONTEXTS.get(ctx)?;
    let cell = dmem::alloc(4).map_err(|_| CUresult::CUDA_ERROR_OUT_OF_MEMORY)?;
    let c = Arc::new(CondHandle {
        cell,
        default,
        assign_default: flags & CU_GRAPH_COND_ASSIGN_DEFAULT != 0,
    });
    // The variable starts with the default value, with or without the flag.
    c.set(default);
    cond::register(&c);
    g.conds.lock().push(c);
    // SAFETY: checked non-null.
    unsafe { *out = cell };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use CUgraphConditionalNodeType as C;

    /// The body each type runs, as cuda.h's CUgraphConditionalNodeType documents it.
    #[test]
    fn bodies_chosen_as_documented() {
        assert_eq!(choose(C::CU_GRAPH_COND_TYPE_IF, 1, 7), Some(0));
        assert_eq!(choose(C::CU_GRAPH_COND_TYPE_IF, 1, 0), None);
        assert_eq!(choose(C::CU_GRAPH_COND_TYPE_IF, 2, 0), Some(1));
        assert_eq!(choose(C::CU_GRAPH_COND_TYPE_WHILE, 1, 1), Some(0));
        assert_eq!(choose(C::CU_GRAPH_COND_TYPE_WHILE, 1, 0), None);
        assert_eq!(choose(C::CU_GRAPH_COND_TYPE_SWITCH, 3, 2), Some(2));
        assert_eq!(choose(C::CU_GRAPH_COND_TYPE_SWITCH, 3, 3), None);
    }
}
