//! Device memory (on `engine::mem`: device pointers are host addresses), managed memory and its
//! advice/prefetch, page-locked host memory and pointer attributes. Copies and memsets are in
//! `copy`, stream-ordered allocation and pools in `pool`.

pub mod array;
pub mod batch;
pub mod copy;
pub mod copy_batch;
pub mod managed;
pub mod memops;
pub mod pool;
pub mod vmm;

use crate::context;
use crate::context::CONTEXTS;
use crate::errors::{CuResult, INVALID_VALUE};
use abi::*;
use engine::mem::{self as dmem, MemError};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_uint, c_void};
use std::sync::Arc;

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
    let ctx = context::active()?;
    // Allocation is a potentially unsafe call during stream capture.
    crate::stream::capture::check_unsafe_call()?;
    if bytesize == 0 {
        return Err(INVALID_VALUE);
    }
    let p = dmem::alloc(bytesize as u64).map_err(mem_error)?;
    new_buffer(p, &ctx);
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
    crate::stream::capture::check_unsafe_call()?;
    // Rows aligned to the texture pitch alignment the profile reports (512 bytes).
    let row = width.div_ceil(512) * 512;
    let total = row.checked_mul(height).ok_or(INVALID_VALUE)?;
    let p = dmem::alloc(total as u64).map_err(mem_error)?;
    new_buffer(p, &ctx);
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
    crate::stream::capture::check_unsafe_call()?;
    // Device memory is host-addressable, so managed memory is device memory.
    let p = dmem::alloc(bytesize as u64).map_err(mem_error)?;
    new_buffer(p, &ctx);
    MANAGED.lock().insert(p);
    // SAFETY: checked non-null.
    unsafe { *dptr = p };
    Ok(())
}

pub(crate) unsafe fn free(dptr: CUdeviceptr) -> CuResult {
    let ctx = context::active()?;
    // Freeing synchronises, which no capture may contain.
    crate::stream::capture::check_unsafe_call()?;
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
    if let Some(a) = dmem::find(dptr).filter(|_| is_managed(dptr)) {
        crate::memory::managed::forget(a.base, a.size);
    }
    dmem::free(dptr).map_err(mem_error)?;
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

unsafe fn host_alloc_impl(pp: *mut *mut c_void, bytesize: usize, flags: u32) -> CuResult {
    if pp.is_null() {
        return Err(INVALID_VALUE);
    }
    if flags & !0xf != 0 {
        return Err(INVALID_VALUE);
    }
    let ctx = context::active()?;
    crate::stream::capture::check_unsafe_call()?;
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
    crate::stream::capture::check_unsafe_call()?;
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

/// Process-wide buffer IDs and the allocating context, by allocation base. An ID is never
/// reused (CU_POINTER_ATTRIBUTE_BUFFER_ID), so the entry goes when the allocation is freed;
/// allocations made elsewhere (module globals) get theirs when first asked.
struct Buffer {
    id: u64,
    ctx: usize,
    /// Made by an allocation call of the program (so freed with its context), not a module
    /// global or another allocation first seen by a pointer query.
    owned: bool,
    /// CU_POINTER_ATTRIBUTE_SYNC_MEMOPS as cuPointerSetAttribute set it (None: the context's
    /// CU_CTX_SYNC_MEMOPS flag decides).
    sync_memops: Option<bool>,
}
static BUFFERS: Lazy<Mutex<HashMap<u64, Buffer>>> = Lazy::new(Default::default);
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

/// Frees every allocation the program made in the context `ctx` (a handle) and has not freed:
/// what destroying or resetting a context does to its memory on a GPU. Device, managed and
/// stream-ordered allocations go back to the device; pinned host allocations are freed and
/// registrations undone. Graph allocations stay with their graphs. The context is idle.
pub(crate) fn release_context(ctx: usize) {
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

/// Forgets a freed allocation: a later one at the same address is a new buffer.
pub(crate) fn forget_buffer(base: u64) {
    BUFFERS.lock().remove(&base);
}

/// (buffer ID, context handle) of the allocation at `base`.
fn buffer(base: u64) -> (u64, usize) {
    let mut b = BUFFERS.lock();
    let e = b.entry(base).or_insert_with(|| Buffer {
        id: next_buffer_id(),
        ctx: context::current()
            .map(|c| c.handle() as usize)
            .unwrap_or_else(|_| context::primary().handle() as usize),
        owned: false,
        sync_memops: None,
    });
    (e.id, e.ctx)
}

/// What a pointer is, for the pointer attributes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Device,
    Managed,
    Host,
    /// Inside a `cuMemAddressReserve` range where nothing is mapped.
    Unmapped,
}

/// Everything the pointer attributes report about one pointer.
struct PointerInfo {
    kind: Kind,
    /// The allocation, or for virtual memory the reservation (RANGE_START_ADDR, RANGE_SIZE).
    range: (u64, u64),
    /// The mapping (MAPPING_BASE_ADDR, MAPPING_SIZE): the allocation itself except for
    /// virtual memory.
    mapping: (u64, u64),
    access: u32,
    handle_types: u64,
    pool: usize,
    ctx: usize,
    buffer_id: u64,
    block_id: u64,
}

fn classify(ptr: CUdeviceptr) -> Option<PointerInfo> {
    const READWRITE: u32 = 3;
    if let Some((b, s, _)) = host_range(ptr as usize) {
        let (id, ctx) = buffer(b as u64);
        let r = (b as u64, s as u64);
        return Some(PointerInfo {
            kind: Kind::Host,
            range: r,
            mapping: r,
            access: READWRITE,
            handle_types: 0,
            pool: 0,
            ctx,
            buffer_id: id,
            block_id: id,
        });
    }
    if let Some((va, size, access, a)) = crate::memory::vmm::mapping_at(ptr) {
        let (id, _) = buffer(va);
        return Some(PointerInfo {
            kind: Kind::Device,
            range: crate::memory::vmm::reservation_at(ptr).unwrap_or((va, size)),
            mapping: (va, size),
            access,
            handle_types: a.handle_types() as u64,
            pool: 0,
            // Virtual memory belongs to no context; the device's primary one answers.
            ctx: context::primary().handle() as usize,
            buffer_id: id,
            block_id: a.id(),
        });
    }
    if let Some(r) = crate::memory::vmm::reservation_at(ptr) {
        return Some(PointerInfo {
            kind: Kind::Unmapped,
            range: r,
            mapping: (0, 0),
            access: 0,
            handle_types: 0,
            pool: 0,
            ctx: 0,
            buffer_id: 0,
            block_id: 0,
        });
    }
    let a = dmem::find(ptr)?;
    let (id, ctx) = buffer(a.base);
    Some(PointerInfo {
        kind: if is_managed(a.base) {
            Kind::Managed
        } else {
            Kind::Device
        },
        range: (a.base, a.size),
        mapping: (a.base, a.size),
        access: READWRITE,
        handle_types: 0,
        pool: crate::memory::pool::pool_of(a.base).unwrap_or(0),
        ctx,
        buffer_id: id,
        block_id: id,
    })
}

/// The bytes an attribute's value takes (what the caller's storage holds).
fn attribute_width(attr: CUpointer_attribute) -> usize {
    use CUpointer_attribute as P;
    match attr {
        P::CU_POINTER_ATTRIBUTE_CONTEXT
        | P::CU_POINTER_ATTRIBUTE_DEVICE_POINTER
        | P::CU_POINTER_ATTRIBUTE_HOST_POINTER
        | P::CU_POINTER_ATTRIBUTE_BUFFER_ID
        | P::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
        | P::CU_POINTER_ATTRIBUTE_RANGE_SIZE
        | P::CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
        | P::CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE
        | P::CU_POINTER_ATTRIBUTE_MAPPING_SIZE
        | P::CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR
        | P::CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID => 8,
        _ => 4,
    }
}

/// Writes one attribute; `Err` when it does not apply to this pointer.
unsafe fn write_attribute(
    data: *mut c_void,
    attr: CUpointer_attribute,
    ptr: CUdeviceptr,
    info: &PointerInfo,
) -> CuResult {
    use CUpointer_attribute as P;
    let k = info.kind;
    // Reserved address space without a mapping only has its range and its (un)mapped state.
    if k == Kind::Unmapped
        && !matches!(
            attr,
            P::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
                | P::CU_POINTER_ATTRIBUTE_RANGE_SIZE
                | P::CU_POINTER_ATTRIBUTE_MAPPED
        )
    {
        return Err(INVALID_VALUE);
    }
    // SAFETY (whole block): `data` is non-null (checked by the callers) and points to storage
    // of the type the attribute's documentation names.
    unsafe {
        let u32_out = data as *mut u32;
        let u64_out = data as *mut u64;
        match attr {
            P::CU_POINTER_ATTRIBUTE_CONTEXT => *u64_out = info.ctx as u64,
            P::CU_POINTER_ATTRIBUTE_MEMORY_TYPE => {
                *u32_out = match k {
                    Kind::Host => CUmemorytype::CU_MEMORYTYPE_HOST.0,
                    _ => CUmemorytype::CU_MEMORYTYPE_DEVICE.0,
                }
            }
            // Unified addressing: the device and the host see memory at the same address.
            P::CU_POINTER_ATTRIBUTE_DEVICE_POINTER => *u64_out = ptr,
            P::CU_POINTER_ATTRIBUTE_HOST_POINTER => match k {
                Kind::Host | Kind::Managed => *u64_out = ptr,
                // The host cannot address device memory.
                _ => return Err(INVALID_VALUE),
            },
            P::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS => *u32_out = u32::from(sync_memops_of(info)),
            P::CU_POINTER_ATTRIBUTE_BUFFER_ID => *u64_out = info.buffer_id,
            P::CU_POINTER_ATTRIBUTE_IS_MANAGED => *u32_out = u32::from(k == Kind::Managed),
            P::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => *(data as *mut i32) = 0,
            P::CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE => *u32_out = 0,
            P::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR => *u64_out = info.range.0,
            P::CU_POINTER_ATTRIBUTE_RANGE_SIZE => *u64_out = info.range.1,
            P::CU_POINTER_ATTRIBUTE_MAPPED => *u32_out = u32::from(k != Kind::Unmapped),
            P::CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES => *u64_out = info.handle_types,
            P::CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE => *u32_out = 0,
            P::CU_POINTER_ATTRIBUTE_ACCESS_FLAGS => *u32_out = info.access,
            P::CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE => *u64_out = info.pool as u64,
            P::CU_POINTER_ATTRIBUTE_MAPPING_SIZE => *u64_out = info.mapping.1,
            P::CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR => *u64_out = info.mapping.0,
            P::CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID => *u64_out = info.block_id,
            P::CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE => *u32_out = 0,
            // Not localized to a locality domain.
            P::CU_POINTER_ATTRIBUTE_LOCALITY_DOMAIN_ORDINAL => *(data as *mut i32) = -1,
            // P2P tokens need the nv-p2p kernel interface, which no CPU device has.
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
    // A pointer no CUDA API allocated, mapped or registered.
    let info = classify(ptr).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { write_attribute(data, attribute, ptr, &info) }
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
    let info = classify(ptr);
    for i in 0..count as usize {
        // SAFETY: both arrays hold `count` elements (API contract).
        let (attr, slot) = unsafe { (*attributes.add(i), *data.add(i)) };
        if slot.is_null() {
            continue;
        }
        // An unknown pointer is not an error here: every attribute gets its NULL value, and
        // so does one that does not apply to this pointer.
        // SAFETY: `slot` is non-null and holds the attribute's type, `attribute_width` bytes.
        let applies = info
            .as_ref()
            .is_some_and(|k| unsafe { write_attribute(slot, attr, ptr, k) }.is_ok());
        if !applies {
            // SAFETY: as above.
            unsafe { std::ptr::write_bytes(slot as *mut u8, 0, attribute_width(attr)) };
            if info.is_none() && attr == CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL {
                // cudaPointerGetAttributes reports device -2 for memory CUDA does not know.
                // SAFETY: as above (an int).
                unsafe { *(slot as *mut i32) = -2 };
            }
        }
    }
    Ok(())
}

/// CU_CTX_SYNC_MEMOPS: synchronous memory operations of the context always synchronise.
const CTX_SYNC_MEMOPS: u32 = 0x80;

/// Whether synchronous memory operations on `info`'s allocation must synchronise: as
/// cuPointerSetAttribute(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) set it, else as the allocating
/// context's CU_CTX_SYNC_MEMOPS flag says.
fn sync_memops_of(info: &PointerInfo) -> bool {
    let set = BUFFERS
        .lock()
        .get(&info.range.0)
        .and_then(|b| b.sync_memops);
    set.unwrap_or_else(|| {
        CONTEXTS.get(info.ctx as *mut c_void).is_ok_and(|c| {
            c.flags.load(std::sync::atomic::Ordering::Acquire) & CTX_SYNC_MEMOPS != 0
        })
    })
}

/// Whether a synchronous copy or memset touching `ptr` must wait for its completion because
/// the memory has CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set.
pub(crate) fn sync_memops(ptr: u64) -> bool {
    classify(ptr).is_some_and(|i| i.kind != Kind::Unmapped && sync_memops_of(&i))
}

/// cuPointerSetAttribute: only CU_POINTER_ATTRIBUTE_SYNC_MEMOPS can be set (the other pointer
/// attributes are properties of the allocation: CUDA_ERROR_INVALID_VALUE). `value` points to
/// an unsigned int, 1 to set and 0 to unset. Setting it waits for the synchronous memory
/// operations still pending, as the documentation says.
pub(crate) unsafe fn pointer_set_attribute(
    value: *const c_void,
    attribute: CUpointer_attribute,
    ptr: CUdeviceptr,
) -> CuResult {
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = context::active()?;
    if attribute != CUpointer_attribute::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS {
        return Err(INVALID_VALUE);
    }
    let info = classify(ptr).ok_or(INVALID_VALUE)?;
    if info.kind == Kind::Unmapped {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the documentation makes it an unsigned int.
    let on = unsafe { *(value as *const c_uint) } != 0;
    if on {
        // Synchronous memory operations run on the legacy default stream: wait for what it
        // holds (not for other streams, which may be blocked on memory the program has yet
        // to write).
        ctx.legacy().wait_all();
    }
    let mut b = BUFFERS.lock();
    let e = b.entry(info.range.0).or_insert_with(|| Buffer {
        id: info.buffer_id,
        ctx: info.ctx,
        owned: false,
        sync_memops: None,
    });
    e.sync_memops = Some(on);
    Ok(())
}
