//! Node parameters: validating and copying what a node is given (`kernel_node`,
//! `memcpy_desc`, ...: a kernel node's launch is checked as `cuLaunchKernel` checks it, a
//! copy's as the copy would be), and the calls that read and replace one node's parameters
//! (`cuGraph*NodeGetParams`/`SetParams`, `cuGraphNodeGetParams`/`SetParams`, the kernel node
//! attributes, the event of an event node).

use crate::errors::{CuResult, INVALID_VALUE};
use crate::launch::kernel as launch;
use crate::memory::copy;
use crate::module;
use crate::stream::event::EVENTS;
use crate::work::{GraphAlloc, KernelNode, Kind, LaunchAttrs, Node, NODES};
use abi::*;
use std::ffi::c_void;

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

pub(crate) unsafe fn host_desc(p: *const CUDA_HOST_NODE_PARAMS) -> CuResult<CUDA_HOST_NODE_PARAMS> {
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

/// Runs `f` on the node's kind when it is of type `t`, else INVALID_VALUE.
fn with_kind<R>(
    h: CUgraphNode,
    t: CUgraphNodeType,
    f: impl FnOnce(&Node, &mut Kind) -> CuResult<R>,
) -> CuResult<R> {
    let n = NODES.get(h)?;
    let mut k = n.kind.lock();
    if k.node_type() != t {
        return Err(INVALID_VALUE);
    }
    f(&n, &mut k)
}

pub(crate) unsafe fn node_get_type(h: CUgraphNode, out: *mut CUgraphNodeType) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let n = NODES.get(h)?;
    let t = n.kind.lock().node_type();
    // SAFETY: checked non-null.
    unsafe { *out = t };
    Ok(())
}

/// `cuGraphNodeGetParams`: the node's parameters in the generic structure (pointers in it
/// refer to storage the node owns).
pub(crate) unsafe fn node_get_params(h: CUgraphNode, p: *mut CUgraphNodeParams) -> CuResult {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    let t = NODES.get(h)?.kind.lock().node_type();
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
                let n = NODES.get(h)?;
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
    let n = NODES.get(h)?;
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
        let (func, kern) = reported_handles(kn)?;
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

/// The `func` and `kern` a kernel node reports: a node made from a `CUkernel` reports it in
/// `kern` (cudart maps it back to the host-side function) and its function in `func`.
fn reported_handles(k: &KernelNode) -> CuResult<(CUfunction, CUkernel)> {
    if !k.via_kernel {
        return Ok((k.handle as CUfunction, std::ptr::null_mut()));
    }
    let f = &k.function;
    let func = module::function_handle(&f.module, f.name.to_str().unwrap_or_default())?;
    Ok((func as CUfunction, k.handle as CUkernel))
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
    NODES.get(h)?;
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
    NODES.get(h)?;
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
