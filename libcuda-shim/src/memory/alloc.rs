//! Device and managed allocation (`cuMemAlloc*`, `cuMemFree`, `cuMemGetInfo`,
//! `cuMemGetAddressRange`), and what destroying a context does to the memory allocated in it.

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory::{
    forget_buffer, host_range, is_managed, mem_error, new_buffer, BUFFERS, HOST, MANAGED,
};
use crate::stream::capture;
use abi::*;
use engine::mem as dmem;
use std::ffi::{c_uint, c_void};

pub(crate) unsafe fn get_info(free: *mut usize, total: *mut usize) -> CuResult {
    if free.is_null() || total.is_null() {
        return Err(INVALID_VALUE);
    }
    // The budget of the current context's device.
    let ctx = context::active()?;
    let (t, f) = dmem::info_of(ctx.device as usize);
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
    let ctx = context::active()?;
    // Allocation is a potentially unsafe call during stream capture.
    capture::check_unsafe_call()?;
    if bytesize == 0 {
        return Err(INVALID_VALUE);
    }
    let p = dmem::alloc_on(ctx.device as usize, bytesize as u64).map_err(mem_error)?;
    new_buffer(p, &ctx);
    crate::sanitizer::allocated(p, bytesize as u64, ctx.handle() as usize);
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
    let ctx = context::active()?;
    capture::check_unsafe_call()?;
    // Rows aligned to the texture pitch alignment the profile reports (512 bytes).
    let row = width.div_ceil(512) * 512;
    let total = row.checked_mul(height).ok_or(INVALID_VALUE)?;
    let p = dmem::alloc_on(ctx.device as usize, total as u64).map_err(mem_error)?;
    new_buffer(p, &ctx);
    crate::sanitizer::allocated(p, total as u64, ctx.handle() as usize);
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
    let ctx = context::active()?;
    capture::check_unsafe_call()?;
    // Device memory is host-addressable, so managed memory is device memory, which kernels
    // of every device reach (it migrates to whichever touches it).
    let p = dmem::alloc_shared_on(ctx.device as usize, bytesize as u64).map_err(mem_error)?;
    new_buffer(p, &ctx);
    crate::sanitizer::allocated(p, bytesize as u64, ctx.handle() as usize);
    MANAGED.lock().insert(p);
    // SAFETY: checked non-null.
    unsafe { *dptr = p };
    Ok(())
}

pub(crate) unsafe fn free(dptr: CUdeviceptr) -> CuResult {
    let ctx = context::active()?;
    // Freeing synchronises, which no capture may contain.
    capture::check_unsafe_call()?;
    if dptr == 0 {
        return Ok(());
    }
    if crate::work::graph_alloc::find(dptr).is_some() {
        // A graph allocation: its lifetime ends, its memory stays with its node.
        ctx.wait_idle();
        ctx.check()?;
        return crate::work::graph_alloc::free(dptr)
            .then_some(())
            .ok_or(INVALID_VALUE);
    }
    if dmem::find(dptr).is_none_or(|a| a.base != dptr) || host_range(dptr as usize).is_some() {
        return Err(INVALID_VALUE);
    }
    // cuMemFree synchronises: queued work may still use the memory.
    ctx.wait_idle();
    ctx.check()?;
    // A pointer imported from another process's pool is unmapped.
    if crate::memory::pool_ipc::free_imported(dptr) {
        return Ok(());
    }
    if let Some(a) = dmem::find(dptr).filter(|_| is_managed(dptr)) {
        crate::memory::managed::forget(a.base, a.size);
    }
    dmem::free(dptr).map_err(mem_error)?;
    crate::sanitizer::freed(dptr);
    forget_buffer(dptr);
    MANAGED.lock().remove(&dptr);
    crate::memory::pool::forget(dptr);
    Ok(())
}

pub(crate) unsafe fn get_address_range(
    base: *mut CUdeviceptr,
    size: *mut usize,
    dptr: CUdeviceptr,
) -> CuResult {
    context::active()?;
    // A virtual-memory mapping counts whether or not access was granted to it yet.
    let (b, s) = match crate::memory::vmm::mapping_at(dptr) {
        Some((va, size, _, _)) => (va, size),
        None => dmem::find(dptr)
            .map(|a| (a.base, a.size))
            .ok_or(CUresult::CUDA_ERROR_NOT_FOUND)?,
    };
    // SAFETY: each out-pointer is optional and written only when non-null.
    unsafe {
        if !base.is_null() {
            *base = b;
        }
        if !size.is_null() {
            *size = s as usize;
        }
    }
    Ok(())
}

/// Frees every allocation the program made in the context `ctx` (a handle) and has not freed:
/// what destroying or resetting a context does to its memory on a GPU. Device, managed and
/// stream-ordered allocations go back to the device; pinned host allocations are freed and
/// registrations undone. Graph allocations stay with their graphs. The context is idle.
pub(crate) fn release_context(ctx: usize) {
    crate::sanitizer::context_released(ctx);
    crate::memory::ipc::release_context(ctx);
    let bases: Vec<u64> = BUFFERS
        .lock()
        .iter()
        .filter(|(_, b)| b.ctx == ctx && b.owned)
        .map(|(&base, _)| base)
        .collect();
    for base in bases {
        if crate::work::graph_alloc::find(base).is_some() {
            continue;
        }
        let host = HOST.lock().remove(&(base as usize));
        match host {
            Some((_, _, owned)) => {
                let _ = std::panic::catch_unwind(|| dmem::unregister_host(base));
                if owned {
                    // SAFETY: cuMemHostAlloc's posix_memalign block, freed once: its HOST
                    // entry is gone, so no other path frees it.
                    unsafe { libc::free(base as *mut c_void) };
                }
            }
            None => {
                if let Some(a) = dmem::find(base).filter(|a| a.base == base) {
                    if is_managed(base) {
                        crate::memory::managed::forget(a.base, a.size);
                    }
                    let _ = dmem::free(base);
                }
                MANAGED.lock().remove(&base);
                crate::memory::pool::forget(base);
            }
        }
        forget_buffer(base);
    }
}
