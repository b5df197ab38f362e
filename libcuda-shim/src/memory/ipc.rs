//! Interprocess memory and events (`cuIpcGetMemHandle`, `cuIpcOpenMemHandle`,
//! `cuIpcCloseMemHandle`, `cuIpcGetEventHandle`, `cuIpcOpenEventHandle`) between processes of
//! one machine that both run the shim.
//!
//! Exporting an allocation backs its pages with memfds at the same addresses
//! (`engine::mem::share`); the 64-byte handle names the exporter's process and the descriptors
//! (at most three pieces: an allocation's first and last page may belong to a neighbour's
//! export), which the importer opens through `/proc/PID/fd/N` and maps into its own device
//! region. An interprocess event keeps its completion in a shared page
//! (`stream::event_share`), which the handle names the same way.
//!
//! Handle layout (little-endian), memory: `"CM"`, the allocation's buffer number (16 bits),
//! exporter pid, (size << 12 | offset of the
//! allocation in its first page), then three pieces of (descriptor, memfd name number, first
//! page in the memfd, pages); a piece of 0 pages ends the list. Event: `"CSEV"`, pid,
//! descriptor, name number. The names are checked before anything is mapped, so a forged or
//! stale handle is an error, never a mapping of some other file.

use crate::context;
use crate::errors::{CuResult, INVALID_CONTEXT, INVALID_HANDLE, INVALID_VALUE};
use crate::memory::{buffer, forget_buffer, host_range, is_managed};
use crate::stream::event::{event_object, Event, EVENTS, INTERPROCESS};
use crate::stream::event_share::Shared;
use abi::*;
use engine::mem as dmem;
use engine::mem::share::{self, Export, Piece, ShareError};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::c_uint;
use std::sync::Arc;

const MEM_MAGIC: &[u8; 2] = b"CM";
const EVENT_MAGIC: &[u8; 4] = b"CSEV";
const MAX_PIECES: usize = 3;

pub(crate) fn share_error(e: ShareError) -> CUresult {
    match e {
        ShareError::NotAllocated => INVALID_VALUE,
        ShareError::MapFailed => CUresult::CUDA_ERROR_MAP_FAILED,
        ShareError::BadHandle => INVALID_HANDLE,
        ShareError::OutOfMemory => CUresult::CUDA_ERROR_OUT_OF_MEMORY,
    }
}

fn put(b: &mut [u8; 64], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

fn u32_at(b: &[u8; 64], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or_default())
}

fn u64_at(b: &[u8; 64], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default())
}

fn bytes(reserved: &[std::ffi::c_char; 64]) -> [u8; 64] {
    reserved.map(|c| c as u8)
}

/// The 64 bytes naming export `e` of process `pid`, starting with `magic` (a memory handle's,
/// or a pool pointer's, `pool_ipc`) and the allocation's buffer number (`generation`): a new
/// allocation at the address of a freed one gets another handle, as documented.
pub(crate) fn encode_mem(
    magic: &[u8; 2],
    generation: u64,
    pid: u32,
    e: &Export,
) -> CuResult<[u8; 64]> {
    if e.pieces.len() > MAX_PIECES {
        return Err(CUresult::CUDA_ERROR_MAP_FAILED);
    }
    let mut b = [0u8; 64];
    put(&mut b, 0, magic);
    put(&mut b, 2, &(generation as u16).to_le_bytes());
    put(&mut b, 4, &pid.to_le_bytes());
    put(&mut b, 8, &(e.size << 12 | e.offset).to_le_bytes());
    for (i, p) in e.pieces.iter().enumerate() {
        let at = 16 + 16 * i;
        put(&mut b, at, &p.fd.to_le_bytes());
        put(&mut b, at + 4, &p.id.to_le_bytes());
        put(&mut b, at + 8, &p.fd_page.to_le_bytes());
        put(&mut b, at + 12, &p.pages.to_le_bytes());
    }
    Ok(b)
}

/// The exporter's pid and what to map, or INVALID_VALUE for bytes no export produced.
pub(crate) fn decode_mem(magic: &[u8; 2], b: &[u8; 64]) -> CuResult<(u32, Export)> {
    if &b[0..2] != magic {
        return Err(INVALID_VALUE);
    }
    let pid = u32_at(b, 4);
    let word = u64_at(b, 8);
    let mut pieces = Vec::new();
    for i in 0..MAX_PIECES {
        let at = 16 + 16 * i;
        let pages = u32_at(b, at + 12);
        if pages == 0 {
            break;
        }
        pieces.push(Piece {
            fd: u32_at(b, at) as i32,
            id: u32_at(b, at + 4),
            fd_page: u32_at(b, at + 8),
            pages,
        });
    }
    if pid == 0 || pieces.is_empty() {
        return Err(INVALID_VALUE);
    }
    Ok((
        pid,
        Export {
            pieces,
            offset: word & 0xfff,
            size: word >> 12,
        },
    ))
}

pub(crate) unsafe fn get_mem_handle(handle: *mut CUipcMemHandle, dptr: CUdeviceptr) -> CuResult {
    if handle.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = context::active()?;
    // Memory of cuMemAlloc only: not host memory, managed memory, a virtual-memory mapping
    // (exported with cuMemExportToShareableHandle instead), memory opened from another
    // process, or a memory pool's (cuMemPoolExportPointer's; an H200 refused a pool allocation
    // with CUDA_ERROR_INVALID_VALUE, scripts/ground-truth/results/ipc-h200.txt).
    let a = dmem::find(dptr)
        .filter(|a| dmem::in_device_region(a.base))
        .ok_or(INVALID_VALUE)?;
    if host_range(a.base as usize).is_some()
        || is_managed(a.base)
        || share::is_import(a.base)
        || crate::memory::pool::ALLOCATIONS
            .lock()
            .contains_key(&a.base)
    {
        return Err(INVALID_VALUE);
    }
    // Backing the pages with a memfd copies them: no queued kernel may write them meanwhile.
    ctx.wait_idle();
    let e = share::export(a.base).map_err(share_error)?;
    let b = encode_mem(MEM_MAGIC, buffer(a.base).0, std::process::id(), &e)?;
    // SAFETY: checked non-null; the caller provides a CUipcMemHandle.
    unsafe { (*handle).reserved = b.map(|c| c as std::ffi::c_char) };
    Ok(())
}

/// An opened allocation: the handle's bytes, how many opens it has had, and its context.
struct Opened {
    handle: [u8; 64],
    refs: u32,
    ctx: usize,
}

/// Opened allocations by their pointer here.
static OPENED: Lazy<Mutex<HashMap<u64, Opened>>> = Lazy::new(Default::default);

pub(crate) unsafe fn open_mem_handle(
    pdptr: *mut CUdeviceptr,
    handle: CUipcMemHandle,
    flags: c_uint,
) -> CuResult {
    // CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS is the only flag and it is required: an H200 answered
    // CUDA_ERROR_INVALID_VALUE for flags 0 and 2 (scripts/ground-truth/results/ipc-h200.txt).
    if pdptr.is_null() || flags != CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS.0 {
        return Err(INVALID_VALUE);
    }
    let ctx = context::active()?;
    let b = bytes(&handle.reserved);
    let (pid, e) = decode_mem(MEM_MAGIC, &b)?;
    if pid == std::process::id() {
        // Measured on an H100 and an H200 (scripts/ground-truth/results/fork-h200.txt): a
        // process opening its own handle gets CUDA_ERROR_INVALID_CONTEXT.
        return Err(INVALID_CONTEXT);
    }
    let me = ctx.handle() as usize;
    let mut opened = OPENED.lock();
    // Opened again by the same context: the same pointer, one more reference (documented).
    if let Some((&p, o)) = opened
        .iter_mut()
        .find(|(_, o)| o.handle == b && o.ctx == me)
    {
        o.refs += 1;
        // SAFETY: checked non-null.
        unsafe { *pdptr = p };
        return Ok(());
    }
    let p = share::import(pid, &e).map_err(share_error)?;
    opened.insert(
        p,
        Opened {
            handle: b,
            refs: 1,
            ctx: me,
        },
    );
    // SAFETY: checked non-null.
    unsafe { *pdptr = p };
    Ok(())
}

pub(crate) unsafe fn close_mem_handle(dptr: CUdeviceptr) -> CuResult {
    let ctx = context::active()?;
    let mut opened = OPENED.lock();
    // Never opened (or closed as often as opened): measured CUDA_ERROR_INVALID_VALUE.
    let o = opened.get_mut(&dptr).ok_or(INVALID_VALUE)?;
    o.refs -= 1;
    if o.refs > 0 {
        return Ok(());
    }
    opened.remove(&dptr);
    drop(opened);
    // Queued work may still use the memory.
    ctx.wait_idle();
    unmap(dptr);
    Ok(())
}

fn unmap(dptr: u64) {
    let _ = share::close(dptr);
    forget_buffer(dptr);
}

/// Closes what the context `ctx` (a handle) opened and has not closed: destroying or resetting
/// a context unmaps it, as it frees the context's memory. The context is idle.
pub(crate) fn release_context(ctx: usize) {
    let gone: Vec<u64> = {
        let mut opened = OPENED.lock();
        let gone: Vec<u64> = opened
            .iter()
            .filter(|(_, o)| o.ctx == ctx)
            .map(|(&p, _)| p)
            .collect();
        for p in &gone {
            opened.remove(p);
        }
        gone
    };
    for p in gone {
        unmap(p);
    }
}

pub(crate) unsafe fn get_event_handle(handle: *mut CUipcEventHandle, event: CUevent) -> CuResult {
    if handle.is_null() {
        return Err(INVALID_VALUE);
    }
    let e = event_object(event)?;
    // Measured on an H200 (fork-h200.txt): an event without CU_EVENT_INTERPROCESS gives
    // CUDA_ERROR_INVALID_HANDLE.
    let sh = e
        .shared
        .as_ref()
        .filter(|_| e.flags & INTERPROCESS != 0)
        .ok_or(INVALID_HANDLE)?;
    // An event opened from another process's handle is handed on with that process's handle.
    let fd = match sh.fd() {
        Some(fd) => fd,
        None => return Err(INVALID_HANDLE),
    };
    let mut b = [0u8; 64];
    put(&mut b, 0, EVENT_MAGIC);
    put(&mut b, 4, &sh.owner.to_le_bytes());
    put(&mut b, 8, &fd.to_le_bytes());
    put(&mut b, 12, &sh.id.to_le_bytes());
    // SAFETY: checked non-null; the caller provides a CUipcEventHandle.
    unsafe { (*handle).reserved = b.map(|c| c as std::ffi::c_char) };
    Ok(())
}

pub(crate) unsafe fn open_event_handle(event: *mut CUevent, handle: CUipcEventHandle) -> CuResult {
    if event.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = context::active()?;
    let b = bytes(&handle.reserved);
    // A handle no export made is one whose shared memory cannot be mapped: an H200 answered 64
    // zero bytes with CUDA_ERROR_MAP_FAILED (scripts/ground-truth/results/ipc-h200.txt), and
    // every other handle that names no live event here is answered the same way.
    let map_failed = CUresult::CUDA_ERROR_MAP_FAILED;
    if &b[0..4] != EVENT_MAGIC {
        return Err(map_failed);
    }
    let (pid, fd, id) = (u32_at(&b, 4), u32_at(&b, 8) as i32, u32_at(&b, 12));
    if pid == std::process::id() {
        // Measured on an H200 (ipc-h200.txt): a process opening its own event handle gets
        // CUDA_ERROR_INVALID_CONTEXT, as for memory handles.
        return Err(INVALID_CONTEXT);
    }
    let shared = Shared::open(pid, fd, id).map_err(|e| match e {
        ShareError::OutOfMemory => CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        _ => map_failed,
    })?;
    let h = EVENTS.insert(Arc::new(Event::opened(ctx, shared)));
    // SAFETY: checked non-null.
    unsafe { *event = h as CUevent };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_handles_round_trip_and_reject_other_bytes() {
        let e = Export {
            pieces: vec![
                Piece {
                    fd: 7,
                    id: 3,
                    fd_page: 0,
                    pages: 1,
                },
                Piece {
                    fd: 9,
                    id: 4,
                    fd_page: 2,
                    pages: 300,
                },
            ],
            offset: 0xf00,
            size: 5 << 30,
        };
        let b = encode_mem(MEM_MAGIC, 7, 1234, &e).unwrap();
        assert_eq!(decode_mem(MEM_MAGIC, &b).unwrap(), (1234, e.clone()));
        assert_eq!(decode_mem(b"CP", &b).unwrap_err(), INVALID_VALUE);
        assert_ne!(encode_mem(MEM_MAGIC, 8, 1234, &e).unwrap(), b);
        assert_eq!(decode_mem(MEM_MAGIC, &[0; 64]).unwrap_err(), INVALID_VALUE);
        let mut no_pieces = b;
        no_pieces[16..].fill(0);
        assert_eq!(
            decode_mem(MEM_MAGIC, &no_pieces).unwrap_err(),
            INVALID_VALUE
        );
    }
}
