//! The unversioned names that `cuda.h` redirects to `_v2`/`_v3` with macros (`cuMemAlloc` ->
//! `cuMemAlloc_v2`), under their original ABI. The real `libcuda.so.1` still exports them, and
//! programs that `dlsym()` a base name (or were built before CUDA 3.2) call them.
//!
//! Their signatures are the ones the pinned `cuda.h` keeps under
//! `#if defined(__CUDA_API_VERSION_INTERNAL)`: sizes, offsets and pitches are `unsigned int`,
//! and a device pointer is a 32-bit `CUdeviceptr_v1`. Each body widens its arguments and calls
//! the current implementation. A device address or size that does not fit the 32-bit form is
//! refused rather than truncated: an allocation the program could not address is freed again
//! and reported as CUDA_ERROR_OUT_OF_MEMORY (no memory in the range the old ABI can name), a
//! query whose answer does not fit is CUDA_ERROR_INVALID_VALUE. Device addresses here are host
//! addresses, which are above 4 GiB, so allocations through these names fail that way.
//! Functions whose legacy ABI equals the current one (`cuCtxDestroy`, `cuStreamDestroy`, ...)
//! are bound to the current bodies directly in `exports`.

use crate::errors::{CuResult, INVALID_VALUE};
use crate::{
    device, graph, graph::exec as graph_exec, memory, memory::array, memory::copy, module,
};
use abi::*;
use std::ffi::{c_char, c_uchar, c_uint, c_ushort, c_void};

/// `CUdeviceptr_v1`.
pub type DevPtr32 = c_uint;

/// `CUDA_MEMCPY2D_v1`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Memcpy2DV1 {
    pub src_x_in_bytes: c_uint,
    pub src_y: c_uint,
    pub src_memory_type: CUmemorytype,
    pub src_host: *const c_void,
    pub src_device: DevPtr32,
    pub src_array: CUarray,
    pub src_pitch: c_uint,
    pub dst_x_in_bytes: c_uint,
    pub dst_y: c_uint,
    pub dst_memory_type: CUmemorytype,
    pub dst_host: *mut c_void,
    pub dst_device: DevPtr32,
    pub dst_array: CUarray,
    pub dst_pitch: c_uint,
    pub width_in_bytes: c_uint,
    pub height: c_uint,
}

/// `CUDA_MEMCPY3D_v1`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Memcpy3DV1 {
    pub src_x_in_bytes: c_uint,
    pub src_y: c_uint,
    pub src_z: c_uint,
    pub src_lod: c_uint,
    pub src_memory_type: CUmemorytype,
    pub src_host: *const c_void,
    pub src_device: DevPtr32,
    pub src_array: CUarray,
    pub reserved0: *mut c_void,
    pub src_pitch: c_uint,
    pub src_height: c_uint,
    pub dst_x_in_bytes: c_uint,
    pub dst_y: c_uint,
    pub dst_z: c_uint,
    pub dst_lod: c_uint,
    pub dst_memory_type: CUmemorytype,
    pub dst_host: *mut c_void,
    pub dst_device: DevPtr32,
    pub dst_array: CUarray,
    pub reserved1: *mut c_void,
    pub dst_pitch: c_uint,
    pub dst_height: c_uint,
    pub width_in_bytes: c_uint,
    pub height: c_uint,
    pub depth: c_uint,
}

/// `CUDA_ARRAY_DESCRIPTOR_v1`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ArrayDescriptorV1 {
    pub width: c_uint,
    pub height: c_uint,
    pub format: CUarray_format,
    pub num_channels: c_uint,
}

/// `CUDA_ARRAY3D_DESCRIPTOR_v1`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Array3DDescriptorV1 {
    pub width: c_uint,
    pub height: c_uint,
    pub depth: c_uint,
    pub format: CUarray_format,
    pub num_channels: c_uint,
    pub flags: c_uint,
}

fn dev(p: DevPtr32) -> CUdeviceptr {
    p as CUdeviceptr
}

fn narrow(v: u64) -> CuResult<c_uint> {
    c_uint::try_from(v).map_err(|_| INVALID_VALUE)
}

/// Writes `v` to an optional 32-bit out-parameter.
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn put(out: *mut c_uint, v: u64) -> CuResult {
    let v = narrow(v)?;
    if !out.is_null() {
        // SAFETY: the caller's guarantee.
        unsafe { *out = v };
    }
    Ok(())
}

/// An allocation the 32-bit ABI cannot name is given back and reported as out of memory.
fn fit_allocation(p: CUdeviceptr) -> CuResult<DevPtr32> {
    match DevPtr32::try_from(p) {
        Ok(p) => Ok(p),
        Err(_) => {
            // SAFETY: `p` was just allocated by this driver.
            let _ = unsafe { memory::alloc::free(p) };
            crate::trace::trace!(
                "  allocation at {p:#x} does not fit a 32-bit CUdeviceptr_v1: freed, \
                 CUDA_ERROR_OUT_OF_MEMORY"
            );
            Err(CUresult::CUDA_ERROR_OUT_OF_MEMORY)
        }
    }
}

pub(crate) unsafe fn device_total_mem(bytes: *mut c_uint, d: CUdevice) -> CuResult {
    if bytes.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut total = 0usize;
    // SAFETY: a valid out-pointer.
    unsafe { device::total_mem(&mut total, d) }?;
    // SAFETY: checked non-null.
    unsafe { put(bytes, total as u64) }
}

pub(crate) unsafe fn mem_get_info(free: *mut c_uint, total: *mut c_uint) -> CuResult {
    if free.is_null() || total.is_null() {
        return Err(INVALID_VALUE);
    }
    let (mut f, mut t) = (0usize, 0usize);
    // SAFETY: valid out-pointers.
    unsafe { memory::alloc::get_info(&mut f, &mut t) }?;
    // SAFETY: checked non-null.
    unsafe {
        put(free, f as u64)?;
        put(total, t as u64)
    }
}

pub(crate) unsafe fn mem_alloc(dptr: *mut DevPtr32, bytesize: c_uint) -> CuResult {
    if dptr.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut p: CUdeviceptr = 0;
    // SAFETY: a valid out-pointer.
    unsafe { memory::alloc::alloc(&mut p, bytesize as usize) }?;
    let p = fit_allocation(p)?;
    // SAFETY: checked non-null.
    unsafe { *dptr = p };
    Ok(())
}

pub(crate) unsafe fn mem_alloc_pitch(
    dptr: *mut DevPtr32,
    pitch: *mut c_uint,
    width: c_uint,
    height: c_uint,
    element_size: c_uint,
) -> CuResult {
    if dptr.is_null() || pitch.is_null() {
        return Err(INVALID_VALUE);
    }
    let (mut p, mut row) = (0 as CUdeviceptr, 0usize);
    // SAFETY: valid out-pointers.
    unsafe {
        memory::alloc::alloc_pitch(
            &mut p,
            &mut row,
            width as usize,
            height as usize,
            element_size,
        )
    }?;
    let p = fit_allocation(p)?;
    // SAFETY: checked non-null.
    unsafe {
        *dptr = p;
        *pitch = row as c_uint;
    }
    Ok(())
}

pub(crate) unsafe fn mem_free(dptr: DevPtr32) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { memory::alloc::free(dev(dptr)) }
}

pub(crate) unsafe fn mem_get_address_range(
    base: *mut DevPtr32,
    size: *mut c_uint,
    dptr: DevPtr32,
) -> CuResult {
    let (mut b, mut s) = (0 as CUdeviceptr, 0usize);
    // SAFETY: valid out-pointers.
    unsafe { memory::alloc::get_address_range(&mut b, &mut s, dev(dptr)) }?;
    // SAFETY: optional out-pointers.
    unsafe {
        put(base, b)?;
        put(size, s as u64)
    }
}

pub(crate) unsafe fn mem_alloc_host(pp: *mut *mut c_void, bytesize: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { memory::host::alloc_host(pp, bytesize as usize) }
}

pub(crate) unsafe fn mem_host_get_device_pointer(
    pdptr: *mut DevPtr32,
    p: *mut c_void,
    flags: c_uint,
) -> CuResult {
    if pdptr.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut d: CUdeviceptr = 0;
    // SAFETY: a valid out-pointer; `p` forwarded.
    unsafe { memory::host::host_get_device_pointer(&mut d, p, flags) }?;
    // SAFETY: checked non-null.
    unsafe { put(pdptr, d) }
}

pub(crate) unsafe fn module_get_global(
    dptr: *mut DevPtr32,
    bytes: *mut c_uint,
    m: CUmodule,
    name: *const c_char,
) -> CuResult {
    let (mut d, mut n) = (0 as CUdeviceptr, 0usize);
    // SAFETY: valid out-pointers; the rest forwarded.
    unsafe { module::get_global(&mut d, &mut n, m, name) }?;
    // SAFETY: optional out-pointers.
    unsafe {
        put(dptr, d)?;
        put(bytes, n as u64)
    }
}

pub(crate) unsafe fn memcpy_htod(dst: DevPtr32, src: *const c_void, n: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_htod(dev(dst), src, n as usize) }
}

pub(crate) unsafe fn memcpy_dtoh(dst: *mut c_void, src: DevPtr32, n: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_dtoh(dst, dev(src), n as usize) }
}

pub(crate) unsafe fn memcpy_dtod(dst: DevPtr32, src: DevPtr32, n: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_dtod(dev(dst), dev(src), n as usize) }
}

pub(crate) unsafe fn memcpy_htod_async(
    dst: DevPtr32,
    src: *const c_void,
    n: c_uint,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_htod_async(dev(dst), src, n as usize, s) }
}

pub(crate) unsafe fn memcpy_dtoh_async(
    dst: *mut c_void,
    src: DevPtr32,
    n: c_uint,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_dtoh_async(dst, dev(src), n as usize, s) }
}

pub(crate) unsafe fn memcpy_dtod_async(
    dst: DevPtr32,
    src: DevPtr32,
    n: c_uint,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_dtod_async(dev(dst), dev(src), n as usize, s) }
}

pub(crate) unsafe fn memcpy_dtoa(
    dst: CUarray,
    offset: c_uint,
    src: DevPtr32,
    n: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_dtoa(dst, offset as usize, dev(src), n as usize) }
}

pub(crate) unsafe fn memcpy_atod(
    dst: DevPtr32,
    src: CUarray,
    offset: c_uint,
    n: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_atod(dev(dst), src, offset as usize, n as usize) }
}

pub(crate) unsafe fn memcpy_htoa(
    dst: CUarray,
    offset: c_uint,
    src: *const c_void,
    n: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_htoa(dst, offset as usize, src, n as usize) }
}

pub(crate) unsafe fn memcpy_atoh(
    dst: *mut c_void,
    src: CUarray,
    offset: c_uint,
    n: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_atoh(dst, src, offset as usize, n as usize) }
}

pub(crate) unsafe fn memcpy_atoa(
    dst: CUarray,
    dst_offset: c_uint,
    src: CUarray,
    src_offset: c_uint,
    n: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe {
        copy::copy_atoa(
            dst,
            dst_offset as usize,
            src,
            src_offset as usize,
            n as usize,
        )
    }
}

pub(crate) unsafe fn memcpy_htoa_async(
    dst: CUarray,
    offset: c_uint,
    src: *const c_void,
    n: c_uint,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_htoa_async(dst, offset as usize, src, n as usize, s) }
}

pub(crate) unsafe fn memcpy_atoh_async(
    dst: *mut c_void,
    src: CUarray,
    offset: c_uint,
    n: c_uint,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::copy_atoh_async(dst, src, offset as usize, n as usize, s) }
}

fn widen_2d(c: &Memcpy2DV1) -> CUDA_MEMCPY2D {
    CUDA_MEMCPY2D {
        srcXInBytes: c.src_x_in_bytes as usize,
        srcY: c.src_y as usize,
        srcMemoryType: c.src_memory_type,
        srcHost: c.src_host,
        srcDevice: dev(c.src_device),
        srcArray: c.src_array,
        srcPitch: c.src_pitch as usize,
        dstXInBytes: c.dst_x_in_bytes as usize,
        dstY: c.dst_y as usize,
        dstMemoryType: c.dst_memory_type,
        dstHost: c.dst_host,
        dstDevice: dev(c.dst_device),
        dstArray: c.dst_array,
        dstPitch: c.dst_pitch as usize,
        WidthInBytes: c.width_in_bytes as usize,
        Height: c.height as usize,
    }
}

fn widen_3d(c: &Memcpy3DV1) -> CUDA_MEMCPY3D {
    CUDA_MEMCPY3D {
        srcXInBytes: c.src_x_in_bytes as usize,
        srcY: c.src_y as usize,
        srcZ: c.src_z as usize,
        srcLOD: c.src_lod as usize,
        srcMemoryType: c.src_memory_type,
        srcHost: c.src_host,
        srcDevice: dev(c.src_device),
        srcArray: c.src_array,
        reserved0: c.reserved0,
        srcPitch: c.src_pitch as usize,
        srcHeight: c.src_height as usize,
        dstXInBytes: c.dst_x_in_bytes as usize,
        dstY: c.dst_y as usize,
        dstZ: c.dst_z as usize,
        dstLOD: c.dst_lod as usize,
        dstMemoryType: c.dst_memory_type,
        dstHost: c.dst_host,
        dstDevice: dev(c.dst_device),
        dstArray: c.dst_array,
        reserved1: c.reserved1,
        dstPitch: c.dst_pitch as usize,
        dstHeight: c.dst_height as usize,
        WidthInBytes: c.width_in_bytes as usize,
        Height: c.height as usize,
        Depth: c.depth as usize,
    }
}

/// # Safety
/// `p` is NULL or points to a readable `T`.
unsafe fn read<T: Copy>(p: *const T) -> CuResult<T> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller's guarantee.
    Ok(unsafe { *p })
}

/// cuTexRefSetAddress: the offset (below the 256-byte texture alignment) always fits its
/// 32-bit out-parameter; a 32-bit pointer names no device memory here, so the binding is
/// refused as `_v2` refuses memory that is not the device's.
pub(crate) unsafe fn tex_ref_set_address(
    offset: *mut c_uint,
    h: CUtexref,
    dptr: DevPtr32,
    bytes: c_uint,
) -> CuResult {
    let mut off = 0usize;
    // SAFETY: a valid out-pointer; the rest forwarded.
    unsafe { memory::texref::set_address(&mut off, h, dev(dptr), bytes as usize) }?;
    // SAFETY: an optional out-pointer.
    unsafe { put(offset, off as u64) }
}

pub(crate) unsafe fn tex_ref_get_address(out: *mut DevPtr32, h: CUtexref) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut p: CUdeviceptr = 0;
    // SAFETY: a valid out-pointer.
    unsafe { memory::texref::get_address(&mut p, h) }?;
    // SAFETY: checked non-null.
    unsafe { put(out, p) }
}

pub(crate) unsafe fn tex_ref_set_address_2d(
    h: CUtexref,
    desc: *const ArrayDescriptorV1,
    dptr: DevPtr32,
    pitch: c_uint,
) -> CuResult {
    // SAFETY: the caller's descriptor.
    let d = unsafe { read(desc) }?;
    let wide = CUDA_ARRAY_DESCRIPTOR {
        Width: d.width as usize,
        Height: d.height as usize,
        Format: d.format,
        NumChannels: d.num_channels,
    };
    // SAFETY: a complete descriptor; the rest forwarded.
    unsafe { memory::texref::set_address_2d(h, &wide, dev(dptr), pitch as usize) }
}

pub(crate) unsafe fn memcpy_2d(p: *const Memcpy2DV1) -> CuResult {
    // SAFETY: the caller's descriptor.
    let c = widen_2d(&unsafe { read(p) }?);
    // SAFETY: a complete descriptor.
    unsafe { copy::copy_2d(&c) }
}

pub(crate) unsafe fn memcpy_2d_async(p: *const Memcpy2DV1, s: CUstream) -> CuResult {
    // SAFETY: the caller's descriptor.
    let c = widen_2d(&unsafe { read(p) }?);
    // SAFETY: a complete descriptor (read before the call returns).
    unsafe { copy::copy_2d_async(&c, s) }
}

pub(crate) unsafe fn memcpy_3d(p: *const Memcpy3DV1) -> CuResult {
    // SAFETY: the caller's descriptor.
    let c = widen_3d(&unsafe { read(p) }?);
    // SAFETY: a complete descriptor.
    unsafe { copy::copy_3d(&c) }
}

pub(crate) unsafe fn memcpy_3d_async(p: *const Memcpy3DV1, s: CUstream) -> CuResult {
    // SAFETY: the caller's descriptor.
    let c = widen_3d(&unsafe { read(p) }?);
    // SAFETY: a complete descriptor (read before the call returns).
    unsafe { copy::copy_3d_async(&c, s) }
}

pub(crate) unsafe fn memset_d8(dst: DevPtr32, v: c_uchar, n: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::set_d8(dev(dst), v, n as usize) }
}

pub(crate) unsafe fn memset_d16(dst: DevPtr32, v: c_ushort, n: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::set_d16(dev(dst), v, n as usize) }
}

pub(crate) unsafe fn memset_d32(dst: DevPtr32, v: c_uint, n: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::set_d32(dev(dst), v, n as usize) }
}

pub(crate) unsafe fn memset_d2d8(
    dst: DevPtr32,
    pitch: c_uint,
    v: c_uchar,
    w: c_uint,
    h: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::set_d2d8(dev(dst), pitch as usize, v, w as usize, h as usize) }
}

pub(crate) unsafe fn memset_d2d16(
    dst: DevPtr32,
    pitch: c_uint,
    v: c_ushort,
    w: c_uint,
    h: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::set_d2d16(dev(dst), pitch as usize, v, w as usize, h as usize) }
}

pub(crate) unsafe fn memset_d2d32(
    dst: DevPtr32,
    pitch: c_uint,
    v: c_uint,
    w: c_uint,
    h: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy::set_d2d32(dev(dst), pitch as usize, v, w as usize, h as usize) }
}

pub(crate) unsafe fn array_create(out: *mut CUarray, d: *const ArrayDescriptorV1) -> CuResult {
    // SAFETY: the caller's descriptor.
    let d = unsafe { read(d) }?;
    let wide = CUDA_ARRAY_DESCRIPTOR {
        Width: d.width as usize,
        Height: d.height as usize,
        Format: d.format,
        NumChannels: d.num_channels,
    };
    // SAFETY: forwarded out-pointer, a complete descriptor.
    unsafe { array::create_2d(out, &wide) }
}

pub(crate) unsafe fn array_get_descriptor(out: *mut ArrayDescriptorV1, a: CUarray) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut wide = CUDA_ARRAY_DESCRIPTOR::default();
    // SAFETY: a valid out-pointer.
    unsafe { array::get_descriptor(&mut wide, a) }?;
    let d = ArrayDescriptorV1 {
        width: narrow(wide.Width as u64)?,
        height: narrow(wide.Height as u64)?,
        format: wide.Format,
        num_channels: wide.NumChannels,
    };
    // SAFETY: checked non-null.
    unsafe { *out = d };
    Ok(())
}

pub(crate) unsafe fn array_3d_create(out: *mut CUarray, d: *const Array3DDescriptorV1) -> CuResult {
    // SAFETY: the caller's descriptor.
    let d = unsafe { read(d) }?;
    let wide = CUDA_ARRAY3D_DESCRIPTOR {
        Width: d.width as usize,
        Height: d.height as usize,
        Depth: d.depth as usize,
        Format: d.format,
        NumChannels: d.num_channels,
        Flags: d.flags,
    };
    // SAFETY: forwarded out-pointer, a complete descriptor.
    unsafe { array::create_3d(out, &wide) }
}

pub(crate) unsafe fn array_3d_get_descriptor(
    out: *mut Array3DDescriptorV1,
    a: CUarray,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut wide = CUDA_ARRAY3D_DESCRIPTOR::default();
    // SAFETY: a valid out-pointer.
    unsafe { array::get_descriptor_3d(&mut wide, a) }?;
    let d = Array3DDescriptorV1 {
        width: narrow(wide.Width as u64)?,
        height: narrow(wide.Height as u64)?,
        depth: narrow(wide.Depth as u64)?,
        format: wide.Format,
        num_channels: wide.NumChannels,
        flags: wide.Flags,
    };
    // SAFETY: checked non-null.
    unsafe { *out = d };
    Ok(())
}

// Graph kernel nodes before CUDA 12: `CUDA_KERNEL_NODE_PARAMS_v1` lacks the `kern` and `ctx`
// fields of the current structure (which take effect only when `func` is NULL).

fn widen_kernel_params(p: &CUDA_KERNEL_NODE_PARAMS_v1) -> CUDA_KERNEL_NODE_PARAMS {
    CUDA_KERNEL_NODE_PARAMS {
        func: p.func,
        gridDimX: p.gridDimX,
        gridDimY: p.gridDimY,
        gridDimZ: p.gridDimZ,
        blockDimX: p.blockDimX,
        blockDimY: p.blockDimY,
        blockDimZ: p.blockDimZ,
        sharedMemBytes: p.sharedMemBytes,
        kernelParams: p.kernelParams,
        extra: p.extra,
        kern: std::ptr::null_mut(),
        ctx: std::ptr::null_mut(),
    }
}

pub(crate) unsafe fn graph_add_kernel_node(
    out: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *const CUDA_KERNEL_NODE_PARAMS_v1,
) -> CuResult {
    // SAFETY: the caller's parameters.
    let wide = widen_kernel_params(&unsafe { read(p) }?);
    // SAFETY: forwarded contract.
    unsafe { graph::nodes::add_kernel_node(out, g, deps, n, &wide) }
}

pub(crate) unsafe fn graph_kernel_node_get_params(
    node: CUgraphNode,
    out: *mut CUDA_KERNEL_NODE_PARAMS_v1,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut wide = CUDA_KERNEL_NODE_PARAMS::default();
    // SAFETY: a valid out-pointer.
    unsafe { graph::params::kernel_node_get_params(node, &mut wide) }?;
    let v1 = CUDA_KERNEL_NODE_PARAMS_v1 {
        func: wide.func,
        gridDimX: wide.gridDimX,
        gridDimY: wide.gridDimY,
        gridDimZ: wide.gridDimZ,
        blockDimX: wide.blockDimX,
        blockDimY: wide.blockDimY,
        blockDimZ: wide.blockDimZ,
        sharedMemBytes: wide.sharedMemBytes,
        kernelParams: wide.kernelParams,
        extra: wide.extra,
    };
    // SAFETY: checked non-null.
    unsafe { *out = v1 };
    Ok(())
}

pub(crate) unsafe fn graph_kernel_node_set_params(
    node: CUgraphNode,
    p: *const CUDA_KERNEL_NODE_PARAMS_v1,
) -> CuResult {
    // SAFETY: the caller's parameters.
    let wide = widen_kernel_params(&unsafe { read(p) }?);
    // SAFETY: a complete structure.
    unsafe { graph::params::kernel_node_set_params(node, &wide) }
}

pub(crate) unsafe fn graph_exec_kernel_node_set_params(
    exec: CUgraphExec,
    node: CUgraphNode,
    p: *const CUDA_KERNEL_NODE_PARAMS_v1,
) -> CuResult {
    // SAFETY: the caller's parameters.
    let wide = widen_kernel_params(&unsafe { read(p) }?);
    // SAFETY: a complete structure.
    unsafe { graph_exec::exec_kernel_node_set_params(exec, node, &wide) }
}

/// `cuGraphExecUpdate` before CUDA 12: the error node and the result code as two
/// out-parameters instead of a `CUgraphExecUpdateResultInfo`.
pub(crate) unsafe fn graph_exec_update(
    exec: CUgraphExec,
    g: CUgraph,
    error_node: *mut CUgraphNode,
    result: *mut CUgraphExecUpdateResult,
) -> CuResult {
    if error_node.is_null() || result.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut info = CUgraphExecUpdateResultInfo::default();
    // SAFETY: a valid out-pointer.
    let r = unsafe { graph_exec::exec_update(exec, g, &mut info) };
    // SAFETY: both checked non-null.
    unsafe {
        *error_node = info.errorNode;
        *result = info.result;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_structures_have_the_layout_of_cuda_h() {
        // What gcc gives for the `_v1` structures of the pinned cuda.h on x86-64 (compiled
        // with __CUDA_API_VERSION_INTERNAL defined: sizeof and offsetof).
        assert_eq!(std::mem::size_of::<Memcpy2DV1>(), 96);
        assert_eq!(std::mem::offset_of!(Memcpy2DV1, src_device), 24);
        assert_eq!(std::mem::offset_of!(Memcpy2DV1, dst_device), 64);
        assert_eq!(std::mem::size_of::<Memcpy3DV1>(), 144);
        assert_eq!(std::mem::offset_of!(Memcpy3DV1, dst_device), 96);
        assert_eq!(std::mem::offset_of!(Memcpy3DV1, depth), 136);
        assert_eq!(std::mem::size_of::<ArrayDescriptorV1>(), 16);
        assert_eq!(std::mem::size_of::<Array3DDescriptorV1>(), 24);
    }
}
