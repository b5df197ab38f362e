//! Page-locked host memory: `cuMemAllocHost`, `cuMemHostAlloc` and `cuMemFreeHost`, and the
//! program's registrations (`cuMemHostRegister`, `cuMemHostUnregister`); the device sees it at
//! its host address (unified addressing).

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory::{forget_buffer, host_range, new_buffer, HOST};
use crate::stream::capture;
use abi::*;
use engine::mem as dmem;
use std::ffi::{c_uint, c_void};

unsafe fn host_alloc_impl(pp: *mut *mut c_void, bytesize: usize, flags: u32) -> CuResult {
    if pp.is_null() {
        return Err(INVALID_VALUE);
    }
    if flags & !0xf != 0 {
        return Err(INVALID_VALUE);
    }
    let ctx = context::active()?;
    capture::check_unsafe_call()?;
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: posix_memalign writes `p` on success; the size is at least 1.
    let rc = unsafe { libc::posix_memalign(&mut p, 4096, bytesize.max(1)) };
    if rc != 0 || p.is_null() {
        return Err(CUresult::CUDA_ERROR_OUT_OF_MEMORY);
    }
    // Kernels may access it through its host address (mapped pinned memory).
    let _ = std::panic::catch_unwind(|| dmem::register_host(p as u64, bytesize as u64));
    HOST.lock().insert(p as usize, (bytesize, flags, true));
    new_buffer(p as u64, &ctx);
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
    capture::check_unsafe_call()?;
    ctx.wait_idle();
    let entry = HOST.lock().remove(&(p as usize));
    match entry {
        Some((_, _, true)) => {
            let _ = std::panic::catch_unwind(|| dmem::unregister_host(p as u64));
            forget_buffer(p as u64);
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
    let ctx = context::active()?;
    if host_range(p as usize).is_some() {
        return Err(CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    }
    let _ = std::panic::catch_unwind(|| dmem::register_host(p as u64, bytesize as u64));
    HOST.lock().insert(p as usize, (bytesize, flags, false));
    new_buffer(p as u64, &ctx);
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
            forget_buffer(p as u64);
            Ok(())
        }
        _ => Err(CUresult::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED),
    }
}
