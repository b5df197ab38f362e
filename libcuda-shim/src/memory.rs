//! Device memory (on `engine::mem`: device pointers are host addresses), managed memory and its
//! advice/prefetch, page-locked host memory and pointer attributes. Copies and memsets are in
//! `copy`, stream-ordered allocation and pools in `pool`.

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use abi::*;
use engine::mem::{self as dmem, MemError};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_uint, c_void};

fn mem_error(e: MemError) -> CUresult {
    match e {
        MemError::OutOfMemory => CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        MemError::NotAllocated => INVALID_VALUE,
    }
}

/// Page-locked host allocations (ours) and registrations (the program's): base -> (size, flags,
/// allocated by us).
/// (size, flags, allocated by us).
type HostEntry = (usize, u32, bool);
static HOST: Lazy<Mutex<HashMap<usize, HostEntry>>> = Lazy::new(Default::default);
/// Bases of managed allocations (for CU_POINTER_ATTRIBUTE_IS_MANAGED).
static MANAGED: Lazy<Mutex<std::collections::HashSet<u64>>> = Lazy::new(Default::default);

/// The page-locked host range containing `p`: (base, size, flags).
pub(crate) fn host_range(p: usize) -> Option<(usize, usize, u32)> {
    HOST.lock()
        .iter()
        .find(|(&b, &(s, _, _))| p >= b && p < b + s.max(1))
        .map(|(&b, &(s, f, _))| (b, s, f))
}

/// Whether `base` is the base of a managed allocation.
pub(crate) fn is_managed(base: u64) -> bool {
    MANAGED.lock().contains(&base)
}

/// `[ptr, ptr + n)` must lie in one device allocation.
pub(crate) fn check_device(ptr: CUdeviceptr, n: usize) -> CuResult {
    if ptr == 0 || !dmem::contains(ptr, n as u64) {
        return Err(INVALID_VALUE);
    }
    Ok(())
}

pub(crate) unsafe fn get_info(free: *mut usize, total: *mut usize) -> CuResult {
    if free.is_null() || total.is_null() {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    let (t, f) = dmem::info();
    // SAFETY: both checked non-null.
    unsafe {
        *free = f as usize;
        *total = t as usize;
    }
    Ok(())
}

pub(crate) unsafe fn alloc(dptr: *mut CUdeviceptr, bytesize: usize) -> CuResult {
    if dptr.is_null() {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    // Allocation is a potentially unsafe call during stream capture.
    crate::capture::check_unsafe_call()?;
    if bytesize == 0 {
        return Err(INVALID_VALUE);
    }
    let p = dmem::alloc(bytesize as u64).map_err(mem_error)?;
    // SAFETY: checked non-null.
    unsafe { *dptr = p };
    Ok(())
}

pub(crate) unsafe fn alloc_pitch(
    dptr: *mut CUdeviceptr,
    pitch: *mut usize,
    width: usize,
    height: usize,
    element_size: c_uint,
) -> CuResult {
    if dptr.is_null() || pitch.is_null() || width == 0 || height == 0 {
        return Err(INVALID_VALUE);
    }
    if ![4, 8, 16].contains(&element_size) {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    crate::capture::check_unsafe_call()?;
    // Rows aligned to the texture pitch alignment the profile reports (512 bytes).
    let row = width.div_ceil(512) * 512;
    let total = row.checked_mul(height).ok_or(INVALID_VALUE)?;
    let p = dmem::alloc(total as u64).map_err(mem_error)?;
    // SAFETY: both checked non-null.
    unsafe {
        *dptr = p;
        *pitch = row;
    }
    Ok(())
}

pub(crate) unsafe fn alloc_managed(
    dptr: *mut CUdeviceptr,
    bytesize: usize,
    flags: c_uint,
) -> CuResult {
    if dptr.is_null() || bytesize == 0 || !(flags == 1 || flags == 2) {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    crate::capture::check_unsafe_call()?;
    // Device memory is host-addressable, so managed memory is device memory.
    let p = dmem::alloc(bytesize as u64).map_err(mem_error)?;
    MANAGED.lock().insert(p);
    // SAFETY: checked non-null.
    unsafe { *dptr = p };
    Ok(())
}

pub(crate) unsafe fn free(dptr: CUdeviceptr) -> CuResult {
    let ctx = context::active()?;
    // Freeing synchronises, which no capture may contain.
    crate::capture::check_unsafe_call()?;
    if dptr == 0 {
        return Ok(());
    }
    if dmem::find(dptr).is_none_or(|a| a.base != dptr) || host_range(dptr as usize).is_some() {
        return Err(INVALID_VALUE);
    }
    // cuMemFree synchronises: queued work may still use the memory.
    ctx.wait_idle();
    ctx.check()?;
    dmem::free(dptr).map_err(mem_error)?;
    MANAGED.lock().remove(&dptr);
    crate::pool::forget(dptr);
    Ok(())
}

pub(crate) unsafe fn get_address_range(
    base: *mut CUdeviceptr,
    size: *mut usize,
    dptr: CUdeviceptr,
) -> CuResult {
    context::active()?;
    let a = dmem::find(dptr).ok_or(CUresult::CUDA_ERROR_NOT_FOUND)?;
    // SAFETY: each out-pointer is optional and written only when non-null.
    unsafe {
        if !base.is_null() {
            *base = a.base;
        }
        if !size.is_null() {
            *size = a.size as usize;
        }
    }
    Ok(())
}

unsafe fn host_alloc_impl(pp: *mut *mut c_void, bytesize: usize, flags: u32) -> CuResult {
    if pp.is_null() {
        return Err(INVALID_VALUE);
    }
    if flags & !0xf != 0 {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    crate::capture::check_unsafe_call()?;
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: posix_memalign writes `p` on success; the size is at least 1.
    let rc = unsafe { libc::posix_memalign(&mut p, 4096, bytesize.max(1)) };
    if rc != 0 || p.is_null() {
        return Err(CUresult::CUDA_ERROR_OUT_OF_MEMORY);
    }
    // Kernels may access it through its host address (mapped pinned memory).
    let _ = std::panic::catch_unwind(|| dmem::register_host(p as u64, bytesize as u64));
    HOST.lock().insert(p as usize, (bytesize, flags, true));
    // SAFETY: checked non-null.
    unsafe { *pp = p };
    Ok(())
}

pub(crate) unsafe fn alloc_host(pp: *mut *mut c_void, bytesize: usize) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { host_alloc_impl(pp, bytesize, 0) }
}

pub(crate) unsafe fn host_alloc(pp: *mut *mut c_void, bytesize: usize, flags: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { host_alloc_impl(pp, bytesize, flags) }
}

pub(crate) unsafe fn free_host(p: *mut c_void) -> CuResult {
    // Synchronises, as cuMemFree does: queued copies may still use the memory.
    let ctx = context::active()?;
    crate::capture::check_unsafe_call()?;
    ctx.wait_idle();
    let entry = HOST.lock().remove(&(p as usize));
    match entry {
        Some((_, _, true)) => {
            let _ = std::panic::catch_unwind(|| dmem::unregister_host(p as u64));
            // SAFETY: `p` came from posix_memalign in host_alloc_impl and is freed once (it was
            // just removed from the map).
            unsafe { libc::free(p) };
            Ok(())
        }
        Some(e) => {
            HOST.lock().insert(p as usize, e);
            Err(INVALID_VALUE)
        }
        None => Err(INVALID_VALUE),
    }
}

pub(crate) unsafe fn host_get_device_pointer(
    pdptr: *mut CUdeviceptr,
    p: *mut c_void,
    flags: c_uint,
) -> CuResult {
    if pdptr.is_null() || flags != 0 {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    host_range(p as usize).ok_or(INVALID_VALUE)?;
    // Unified addressing: the device sees host memory at its host address.
    // SAFETY: checked non-null.
    unsafe { *pdptr = p as CUdeviceptr };
    Ok(())
}

pub(crate) unsafe fn host_get_flags(flags: *mut c_uint, p: *mut c_void) -> CuResult {
    if flags.is_null() {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    let (_, _, f) = host_range(p as usize).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *flags = f };
    Ok(())
}

pub(crate) unsafe fn host_register(p: *mut c_void, bytesize: usize, flags: c_uint) -> CuResult {
    if p.is_null() || bytesize == 0 || flags & !0xf != 0 {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    if host_range(p as usize).is_some() {
        return Err(CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    }
    let _ = std::panic::catch_unwind(|| dmem::register_host(p as u64, bytesize as u64));
    HOST.lock().insert(p as usize, (bytesize, flags, false));
    Ok(())
}

pub(crate) unsafe fn host_unregister(p: *mut c_void) -> CuResult {
    context::active()?.wait_idle();
    let mut host = HOST.lock();
    match host.get(&(p as usize)) {
        Some(&(_, _, false)) => {
            host.remove(&(p as usize));
            drop(host);
            let _ = std::panic::catch_unwind(|| dmem::unregister_host(p as u64));
            Ok(())
        }
        _ => Err(CUresult::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED),
    }
}

/// What a pointer is, for the pointer attributes.
enum Kind {
    Device { base: u64, size: u64, managed: bool },
    Host { base: u64, size: u64 },
}

fn classify(ptr: CUdeviceptr) -> Option<Kind> {
    if let Some((b, s, _)) = host_range(ptr as usize) {
        return Some(Kind::Host {
            base: b as u64,
            size: s as u64,
        });
    }
    dmem::find(ptr).map(|a| Kind::Device {
        base: a.base,
        size: a.size,
        managed: MANAGED.lock().contains(&a.base),
    })
}

/// Writes one attribute; `Err` when it does not apply to this pointer.
unsafe fn write_attribute(
    data: *mut c_void,
    attr: CUpointer_attribute,
    ptr: CUdeviceptr,
    kind: &Kind,
) -> CuResult {
    use CUpointer_attribute as P;
    // SAFETY (whole function): `data` is non-null (checked by the callers) and points to
    // storage of the type the attribute's documentation names.
    unsafe {
        let (base, size) = match *kind {
            Kind::Device { base, size, .. } | Kind::Host { base, size, .. } => (base, size),
        };
        match attr {
            P::CU_POINTER_ATTRIBUTE_CONTEXT => {
                *(data as *mut CUcontext) = context::primary().handle()
            }
            P::CU_POINTER_ATTRIBUTE_MEMORY_TYPE => {
                *(data as *mut u32) = match kind {
                    Kind::Device { .. } => CUmemorytype::CU_MEMORYTYPE_DEVICE.0,
                    Kind::Host { .. } => CUmemorytype::CU_MEMORYTYPE_HOST.0,
                }
            }
            P::CU_POINTER_ATTRIBUTE_DEVICE_POINTER => *(data as *mut u64) = ptr,
            P::CU_POINTER_ATTRIBUTE_HOST_POINTER => match kind {
                Kind::Host { .. } | Kind::Device { managed: true, .. } => *(data as *mut u64) = ptr,
                _ => return Err(INVALID_VALUE),
            },
            P::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS => *(data as *mut u32) = 1,
            P::CU_POINTER_ATTRIBUTE_BUFFER_ID => *(data as *mut u64) = base,
            P::CU_POINTER_ATTRIBUTE_IS_MANAGED => {
                *(data as *mut u32) = u32::from(matches!(kind, Kind::Device { managed: true, .. }))
            }
            P::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => *(data as *mut i32) = 0,
            P::CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE => *(data as *mut u32) = 0,
            P::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR => *(data as *mut u64) = base,
            P::CU_POINTER_ATTRIBUTE_RANGE_SIZE => *(data as *mut usize) = size as usize,
            P::CU_POINTER_ATTRIBUTE_MAPPED => *(data as *mut u32) = 1,
            P::CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES => *(data as *mut u64) = 0,
            P::CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE => *(data as *mut u32) = 0,
            P::CU_POINTER_ATTRIBUTE_ACCESS_FLAGS => *(data as *mut u32) = 0,
            P::CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE => *(data as *mut usize) = 0,
            P::CU_POINTER_ATTRIBUTE_MAPPING_SIZE => *(data as *mut usize) = size as usize,
            P::CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR => *(data as *mut u64) = base,
            P::CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID => *(data as *mut u64) = base,
            _ => return Err(INVALID_VALUE),
        }
    }
    Ok(())
}

pub(crate) unsafe fn pointer_get_attribute(
    data: *mut c_void,
    attribute: CUpointer_attribute,
    ptr: CUdeviceptr,
) -> CuResult {
    if data.is_null() {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    let kind = classify(ptr).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { write_attribute(data, attribute, ptr, &kind) }
}

pub(crate) unsafe fn pointer_get_attributes(
    count: c_uint,
    attributes: *mut CUpointer_attribute,
    data: *mut *mut c_void,
    ptr: CUdeviceptr,
) -> CuResult {
    if count == 0 || attributes.is_null() || data.is_null() {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    let kind = classify(ptr);
    for i in 0..count as usize {
        // SAFETY: both arrays hold `count` elements (API contract).
        let (attr, slot) = unsafe { (*attributes.add(i), *data.add(i)) };
        if slot.is_null() {
            continue;
        }
        match &kind {
            // SAFETY: `slot` non-null, typed per the attribute.
            Some(k) => {
                if unsafe { write_attribute(slot, attr, ptr, k) }.is_err() {
                    // Not applicable to this pointer: the real driver leaves a zero/NULL.
                    // SAFETY: every attribute's storage is at least 4 bytes.
                    unsafe { *(slot as *mut u32) = 0 };
                }
            }
            // An unknown pointer is not an error here: memory type 0 (unregistered host).
            // SAFETY: as above.
            None => unsafe {
                match attr {
                    CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => {
                        *(slot as *mut i32) = -2
                    }
                    CUpointer_attribute::CU_POINTER_ATTRIBUTE_CONTEXT
                    | CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_POINTER
                    | CUpointer_attribute::CU_POINTER_ATTRIBUTE_HOST_POINTER
                    | CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
                    | CUpointer_attribute::CU_POINTER_ATTRIBUTE_BUFFER_ID
                    | CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_SIZE => {
                        *(slot as *mut u64) = 0
                    }
                    _ => *(slot as *mut u32) = 0,
                }
            },
        }
    }
    Ok(())
}
