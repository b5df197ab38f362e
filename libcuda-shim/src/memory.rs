//! What the driver knows of each allocation, shared by every memory call: the page-locked host
//! ranges (ours and the program's registrations), the managed allocations, and each
//! allocation's buffer id and allocating context. Device memory itself is `engine::mem`
//! (device pointers are host addresses).
//!
//! The calls are in `memory/`: device and managed allocation (`alloc`), page-locked host memory
//! (`host`), pointer attributes (`pointer`), copies and memsets (`copy`, `copy_batch`,
//! `memops`, and `bulk`, which moves the bytes), stream-ordered allocation and pools (`pool`), virtual memory (`vmm`),
//! memory and events shared with other processes (`ipc`, and `pool_ipc` for pools), managed
//! memory advice (`managed`), CUDA arrays (`array`) and texture objects over them (`texture`).

pub mod alloc;
pub mod array;
pub mod batch;
pub mod bulk;
pub mod copy;
pub mod copy_batch;
pub mod host;
pub mod ipc;
pub mod managed;
pub mod memops;
pub mod pointer;
pub mod pool;
pub mod pool_ipc;
pub mod surface;
pub mod surface_ref;
pub mod tensor_map;
pub mod texref;
pub mod texture;
pub mod vmm;

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use abi::*;
use engine::mem::{self as dmem, MemError};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

pub(crate) fn mem_error(e: MemError) -> CUresult {
    match e {
        MemError::OutOfMemory => CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        MemError::NotAllocated => INVALID_VALUE,
    }
}

/// Page-locked host allocations (ours) and registrations (the program's): base -> (size, flags,
/// allocated by us).
/// (size, flags, allocated by us).
pub(crate) type HostEntry = (usize, u32, bool);

pub(crate) static HOST: Lazy<Mutex<HashMap<usize, HostEntry>>> = Lazy::new(Default::default);

/// Bases of managed allocations (for CU_POINTER_ATTRIBUTE_IS_MANAGED).
pub(crate) static MANAGED: Lazy<Mutex<std::collections::HashSet<u64>>> =
    Lazy::new(Default::default);

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

/// Process-wide buffer IDs and the allocating context, by allocation base. An ID is never
/// reused (CU_POINTER_ATTRIBUTE_BUFFER_ID), so the entry goes when the allocation is freed;
/// allocations made elsewhere (module globals) get theirs when first asked.
pub(crate) struct Buffer {
    pub(crate) id: u64,
    pub(crate) ctx: usize,
    /// Made by an allocation call of the program (so freed with its context), not a module
    /// global or another allocation first seen by a pointer query.
    pub(crate) owned: bool,
    /// CU_POINTER_ATTRIBUTE_SYNC_MEMOPS as cuPointerSetAttribute set it (None: the context's
    /// CU_CTX_SYNC_MEMOPS flag decides).
    pub(crate) sync_memops: Option<bool>,
}

pub(crate) static BUFFERS: Lazy<Mutex<HashMap<u64, Buffer>>> = Lazy::new(Default::default);

static NEXT_BUFFER_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_buffer_id() -> u64 {
    NEXT_BUFFER_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Records a new allocation at `base`, made in `ctx`.
pub(crate) fn new_buffer(base: u64, ctx: &Arc<context::Context>) {
    BUFFERS.lock().insert(
        base,
        Buffer {
            id: next_buffer_id(),
            ctx: ctx.handle() as usize,
            owned: true,
            sync_memops: None,
        },
    );
}

/// Forgets a freed allocation: a later one at the same address is a new buffer.
pub(crate) fn forget_buffer(base: u64) {
    BUFFERS.lock().remove(&base);
}

/// (buffer ID, context handle) of the allocation at `base`.
pub(crate) fn buffer(base: u64) -> (u64, usize) {
    let mut b = BUFFERS.lock();
    let e = b.entry(base).or_insert_with(|| Buffer {
        id: next_buffer_id(),
        ctx: context::current()
            .map(|c| c.handle() as usize)
            .unwrap_or_else(|_| context::primary(crate::device::DEVICE).handle() as usize),
        owned: false,
        sync_memops: None,
    });
    (e.id, e.ctx)
}
