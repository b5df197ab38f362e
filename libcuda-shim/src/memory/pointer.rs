//! Pointer attributes (`cuPointerGetAttribute(s)`, `cuPointerSetAttribute`): what a pointer
//! is (device, managed, page-locked host, reserved but unmapped) and what is reported about it,
//! and whether synchronous memory operations on it must synchronise (SYNC_MEMOPS).

use crate::context::{self, CONTEXTS};
use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory::{buffer, host_range, is_managed, Buffer, BUFFERS};
use abi::*;
use engine::mem as dmem;
use std::ffi::{c_uint, c_void};

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
            // Virtual memory belongs to no context; its device's primary one answers.
            ctx: context::primary(a.device()).handle() as usize,
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

/// The device of the context (a handle) an allocation was made in: device 0 when the context
/// is gone (or for memory of no context).
fn device_of(ctx: usize) -> i32 {
    CONTEXTS
        .find(ctx as *mut c_void)
        .map_or(crate::device::DEVICE, |c| c.device)
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
            P::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => *(data as *mut i32) = device_of(info.ctx),
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
