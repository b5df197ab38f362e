//! Graph memory: the parameters of memory allocation nodes (`cuGraphAddMemAllocNode`), the
//! device's graph memory attributes and `cuDeviceGraphMemTrim`. The allocations themselves are
//! `work::graph_alloc`; stream-ordered allocation captured into a graph is in `memory::pool`.
//!
//! As in the driver, an allocation node's address is fixed when the node is made and is the
//! same in every launch. Here the memory behind it is taken then too (device memory is host
//! memory) and kept while a node or executable graph refers to it, or while it is allocated.
//! The allocation's lifetime is the driver's: it begins when a launch runs its allocation node
//! and ends at a free node, `cuMemFreeAsync`/`cuMemFree`, or the next launch of an executable
//! graph instantiated with `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH`; relaunching
//! while it is still allocated, without that flag, is CUDA_ERROR_INVALID_VALUE.
//!
//! Accounting (`cuDeviceGetGraphMemAttribute`): USED_MEM_CURRENT counts allocations between
//! their allocation and their free, RESERVED_MEM_CURRENT the memory the graph allocator holds
//! for allocation nodes that have run, until `cuDeviceGraphMemTrim` gives back the part not
//! allocated (or the node goes away); both have high-water marks, which can only be reset to
//! zero. The counts change when the launch is enqueued, not when its nodes run.

use crate::device;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::work::graph_alloc::{GraphAlloc, ALL, COUNTERS, LIVE};
use crate::work::Kind;
use abi::*;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

/// The parameters of an allocation node, validated: device-pinned memory on this device, no
/// IPC handle types, access descriptors for this device only.
pub(crate) unsafe fn alloc_params(p: *const CUDA_MEM_ALLOC_NODE_PARAMS) -> CuResult<Kind> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    let p = unsafe { &*p };
    let props = p.poolProps;
    let loc_id = |l: &CUmemLocation| {
        // SAFETY: every member of the union is a 32-bit integer id.
        unsafe { l.__bindgen_anon_1.id }
    };
    if p.bytesize == 0
        || props.allocType != CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED
        || props.location.type_ != CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE
        || props.handleTypes != CUmemAllocationHandleType(0)
        || (p.accessDescCount > 0 && p.accessDescs.is_null())
    {
        return Err(INVALID_VALUE);
    }
    device::check(loc_id(&props.location)).map_err(|_| INVALID_VALUE)?;
    let access: Vec<CUmemAccessDesc> = if p.accessDescCount == 0 {
        Vec::new()
    } else {
        // SAFETY: the caller passes accessDescCount descriptors.
        unsafe { std::slice::from_raw_parts(p.accessDescs, p.accessDescCount) }.to_vec()
    };
    // "Must not exceed the number of GPUs": one here.
    if access.len() > 1
        || access.iter().any(|a| {
            a.location.type_ != CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE
                || device::check(loc_id(&a.location)).is_err()
        })
    {
        return Err(INVALID_VALUE);
    }
    let a = GraphAlloc::new(p.bytesize as u64, props, access)?;
    Ok(Kind::MemAlloc(a))
}

pub(crate) unsafe fn trim(dev: CUdevice) -> CuResult {
    device::check(dev)?;
    let all: Vec<Arc<GraphAlloc>> = ALL.lock().values().filter_map(Weak::upgrade).collect();
    let live = LIVE.lock();
    for a in all.iter().filter(|a| !live.contains_key(&a.dptr)) {
        if a.reserved.swap(false, Ordering::AcqRel) {
            COUNTERS.reserved.fetch_sub(a.size, Ordering::AcqRel);
        }
    }
    drop(live);
    Ok(())
}

fn counter(attr: CUgraphMem_attribute) -> CuResult<&'static AtomicU64> {
    use CUgraphMem_attribute as A;
    let c = &*COUNTERS;
    Ok(match attr {
        A::CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT => &c.used,
        A::CU_GRAPH_MEM_ATTR_USED_MEM_HIGH => &c.used_high,
        A::CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT => &c.reserved,
        A::CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH => &c.reserved_high,
        _ => return Err(INVALID_VALUE),
    })
}

pub(crate) unsafe fn get_attribute(
    dev: CUdevice,
    attr: CUgraphMem_attribute,
    value: *mut c_void,
) -> CuResult {
    device::check(dev)?;
    let c = counter(attr)?;
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; every attribute is a cuuint64_t.
    unsafe { *(value as *mut u64) = c.load(Ordering::Acquire) };
    Ok(())
}

pub(crate) unsafe fn set_attribute(
    dev: CUdevice,
    attr: CUgraphMem_attribute,
    value: *mut c_void,
) -> CuResult {
    device::check(dev)?;
    use CUgraphMem_attribute as A;
    // Only the high-water marks can be set, and only to zero (which resets them to the
    // current value, the driver's reading of "reset").
    let (high, current) = match attr {
        A::CU_GRAPH_MEM_ATTR_USED_MEM_HIGH => (&COUNTERS.used_high, &COUNTERS.used),
        A::CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH => (&COUNTERS.reserved_high, &COUNTERS.reserved),
        _ => return Err(INVALID_VALUE),
    };
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the value is a cuuint64_t.
    if unsafe { *(value as *const u64) } != 0 {
        return Err(INVALID_VALUE);
    }
    high.store(current.load(Ordering::Acquire), Ordering::Release);
    Ok(())
}
