//! Memory pools shared between processes (`cuMemPoolExportToShareableHandle`,
//! `cuMemPoolImportFromShareableHandle`, `cuMemPoolExportPointer`, `cuMemPoolImportPointer`).
//!
//! A pool created with `CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR` is exportable, and its
//! allocations are once the pool itself has been exported (as on an H200). Its shareable
//! handle is a descriptor of a small memfd whose name, `cuda-shim-ipcpool-PID-ID`, says which
//! process and pool it stands for; the importer reads that name (through `/proc/self/fd`) and
//! makes a pool that only imports pointers. A pointer's export data is a memory handle's bytes
//! (`memory::ipc`, here starting `"CP"`): the allocation's pages are backed by memfds as for
//! `cuIpcGetMemHandle`, and the importer maps them the same way. An imported pointer is freed
//! with `cuMemFree` or `cuMemFreeAsync`, which unmap it.

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory;
use crate::memory::ipc::{decode_mem, encode_mem, share_error};
use crate::memory::pool::{self, Pool, ALLOCATIONS};
use abi::*;
use engine::mem as dmem;
use engine::mem::share;
use std::ffi::{c_ulonglong, c_void};
use std::os::fd::IntoRawFd;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

const POSIX_FD: u32 = CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR.0;
const PTR_MAGIC: &[u8; 2] = b"CP";

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

fn name(pid: u32, id: u32) -> String {
    format!("cuda-shim-ipcpool-{pid}-{id}")
}

/// (pid, pool number) from an exported pool's memfd name as `/proc/self/fd` shows it.
fn parse_name(link: &str) -> Option<(u32, u32)> {
    let rest = link.strip_prefix("/memfd:cuda-shim-ipcpool-")?;
    let rest = rest.strip_suffix(" (deleted)").unwrap_or(rest);
    let (pid, id) = rest.split_once('-')?;
    Some((pid.parse().ok()?, id.parse().ok()?))
}

pub(crate) unsafe fn export_to_shareable_handle(
    handle_out: *mut c_void,
    p: CUmemoryPool,
    handle_type: CUmemAllocationHandleType,
    flags: c_ulonglong,
) -> CuResult {
    if handle_out.is_null() || flags != 0 {
        return Err(INVALID_VALUE);
    }
    let pl = pool::pool(p)?;
    // Only what the pool was created for, and never a pool imported from elsewhere.
    if handle_type.0 != POSIX_FD || pl.handle_types & POSIX_FD == 0 || pl.imported.is_some() {
        return Err(INVALID_VALUE);
    }
    let mut export = pl.export.lock();
    if export.is_none() {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let fd = share::small_memfd(&name(std::process::id(), id), 4096)
            .map_err(|_| CUresult::CUDA_ERROR_OUT_OF_MEMORY)?;
        *export = Some((fd, id));
    }
    let (fd, _) = export.as_ref().ok_or(INVALID_VALUE)?;
    let dup = fd
        .try_clone()
        .map_err(|_| CUresult::CUDA_ERROR_OUT_OF_MEMORY)?;
    // SAFETY: checked non-null; a POSIX descriptor handle is an `int`, the caller's from here.
    unsafe { *(handle_out as *mut i32) = dup.into_raw_fd() };
    Ok(())
}

pub(crate) unsafe fn import_from_shareable_handle(
    pool_out: *mut CUmemoryPool,
    handle: *mut c_void,
    handle_type: CUmemAllocationHandleType,
    flags: c_ulonglong,
) -> CuResult {
    if pool_out.is_null() || flags != 0 || handle_type.0 != POSIX_FD {
        return Err(INVALID_VALUE);
    }
    // A POSIX file descriptor is passed by value, cast to a pointer.
    let fd = handle as usize as i32;
    if fd < 0 {
        return Err(INVALID_VALUE);
    }
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).map_err(|_| INVALID_VALUE)?;
    let (pid, id) = parse_name(&link.to_string_lossy()).ok_or(INVALID_VALUE)?;
    // It allocates nothing; its device is the importing context's.
    let dev = crate::context::current().map_or(0, |c| c.device);
    let h = pool::insert(Arc::new(Pool::shared(dev, POSIX_FD, Some((pid, id)))));
    // SAFETY: checked non-null.
    unsafe { *pool_out = h as CUmemoryPool };
    Ok(())
}

pub(crate) unsafe fn export_pointer(
    share_data: *mut CUmemPoolPtrExportData,
    ptr: CUdeviceptr,
) -> CuResult {
    if share_data.is_null() {
        return Err(INVALID_VALUE);
    }
    let base = dmem::find(ptr).map(|a| a.base).ok_or(INVALID_VALUE)?;
    let pl = ALLOCATIONS
        .lock()
        .get(&base)
        .map(|(p, _)| p.clone())
        .ok_or(INVALID_VALUE)?;
    if pl.handle_types & POSIX_FD == 0 || pl.imported.is_some() {
        return Err(INVALID_VALUE);
    }
    // The documentation exports an allocation "from an already shared memory pool", and an
    // H200 holds to it: the pointer of an exportable pool that cuMemPoolExportToShareableHandle
    // had not exported yet was refused with CUDA_ERROR_INVALID_VALUE, and exported once the pool
    // had been (scripts/ground-truth/results/ipc-h200.txt).
    if pl.export.lock().is_none() {
        return Err(INVALID_VALUE);
    }
    // Backing the pages with a memfd copies them: no queued work may write them meanwhile.
    match context::current() {
        Ok(ctx) => ctx.wait_idle(),
        Err(_) => context::primary(pl.device).wait_idle(),
    }
    let e = share::export(base).map_err(share_error)?;
    let b = encode_mem(PTR_MAGIC, memory::buffer(base).0, std::process::id(), &e)?;
    // SAFETY: checked non-null; the caller provides a CUmemPoolPtrExportData.
    unsafe { (*share_data).reserved = b };
    Ok(())
}

pub(crate) unsafe fn import_pointer(
    ptr_out: *mut CUdeviceptr,
    p: CUmemoryPool,
    share_data: *mut CUmemPoolPtrExportData,
) -> CuResult {
    if ptr_out.is_null() || share_data.is_null() {
        return Err(INVALID_VALUE);
    }
    let pl = pool::pool(p)?;
    let (pool_pid, _) = pl.imported.ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null; the caller passes export data.
    let b = unsafe { (*share_data).reserved };
    let (pid, e) = decode_mem(PTR_MAGIC, &b)?;
    // Data of another process's pool is not this pool's.
    if pid != pool_pid {
        return Err(INVALID_VALUE);
    }
    let ptr = share::import(pid, &e).map_err(|e| match e {
        share::ShareError::OutOfMemory => CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        _ => INVALID_VALUE,
    })?;
    ALLOCATIONS.lock().insert(ptr, (pl, e.size));
    // SAFETY: checked non-null.
    unsafe { *ptr_out = ptr };
    Ok(())
}

/// cuMemFree of a pointer imported from another process's pool: unmapped. False for any other
/// pointer.
pub(crate) fn free_imported(ptr: CUdeviceptr) -> bool {
    let mut allocations = ALLOCATIONS.lock();
    let imported = allocations
        .get(&ptr)
        .is_some_and(|(p, _)| p.imported.is_some());
    if !imported {
        return false;
    }
    allocations.remove(&ptr);
    drop(allocations);
    let _ = share::close(ptr);
    crate::memory::forget_buffer(ptr);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_names_parse() {
        assert_eq!(
            parse_name("/memfd:cuda-shim-ipcpool-12-3 (deleted)"),
            Some((12, 3))
        );
        assert_eq!(parse_name("/memfd:cuda-shim-ipcpool-12-3"), Some((12, 3)));
        assert_eq!(parse_name("/memfd:cuda-shim-ipc-12-3 (deleted)"), None);
        assert_eq!(parse_name("/tmp/x"), None);
    }
}
