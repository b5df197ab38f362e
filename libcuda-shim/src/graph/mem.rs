//! Graph memory: memory allocation and free nodes (`cuGraphAddMemAllocNode`,
//! `cuGraphAddMemFreeNode`, their parameters, and stream-ordered allocation captured into a
//! graph), the device's graph memory attributes and `cuDeviceGraphMemTrim`.
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

use crate::errors::{CuResult, INVALID_VALUE};
use crate::{device, memory};
use engine::mem as dmem;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use abi::*;

pub struct GraphAlloc {
    pub dptr: u64,
    pub size: u64,
    pub props: CUmemPoolProps,
    pub access: Vec<CUmemAccessDesc>,
    /// Whether the graph allocator holds memory for it (counted in RESERVED_MEM_CURRENT).
    reserved: AtomicBool,
}

// SAFETY: the pool properties' raw pointer (`win32SecurityAttributes`) is never dereferenced.
unsafe impl Send for GraphAlloc {}
// SAFETY: as above; the mutable state is atomic.
unsafe impl Sync for GraphAlloc {}

#[derive(Default)]
struct Counters {
    used: AtomicU64,
    used_high: AtomicU64,
    reserved: AtomicU64,
    reserved_high: AtomicU64,
}

static COUNTERS: Lazy<Counters> = Lazy::new(Default::default);
/// Every graph allocation by address, and the ones allocated now (kept alive by that).
static ALL: Lazy<Mutex<HashMap<u64, Weak<GraphAlloc>>>> = Lazy::new(Default::default);
static LIVE: Lazy<Mutex<HashMap<u64, Arc<GraphAlloc>>>> = Lazy::new(Default::default);

fn add(c: &AtomicU64, high: &AtomicU64, n: u64) {
    let v = c.fetch_add(n, Ordering::AcqRel) + n;
    high.fetch_max(v, Ordering::AcqRel);
}

impl GraphAlloc {
    /// A new allocation node's memory.
    pub fn new(
        size: u64,
        props: CUmemPoolProps,
        access: Vec<CUmemAccessDesc>,
    ) -> CuResult<Arc<GraphAlloc>> {
        let ctx = crate::context::active()?;
        let dptr = dmem::alloc(size).map_err(|_| CUresult::CUDA_ERROR_OUT_OF_MEMORY)?;
        memory::new_buffer(dptr, &ctx);
        let a = Arc::new(GraphAlloc {
            dptr,
            size,
            props,
            access,
            reserved: AtomicBool::new(false),
        });
        ALL.lock().insert(dptr, Arc::downgrade(&a));
        Ok(a)
    }

    pub fn live(&self) -> bool {
        LIVE.lock().contains_key(&self.dptr)
    }

    /// A launch runs the allocation node.
    pub fn allocate(self: &Arc<Self>) {
        if !self.reserved.swap(true, Ordering::AcqRel) {
            add(&COUNTERS.reserved, &COUNTERS.reserved_high, self.size);
        }
        if LIVE.lock().insert(self.dptr, self.clone()).is_none() {
            add(&COUNTERS.used, &COUNTERS.used_high, self.size);
        }
    }
}

impl Drop for GraphAlloc {
    fn drop(&mut self) {
        if *self.reserved.get_mut() {
            COUNTERS.reserved.fetch_sub(self.size, Ordering::AcqRel);
        }
        ALL.lock().remove(&self.dptr);
        memory::forget_buffer(self.dptr);
        let _ = dmem::free(self.dptr);
    }
}

/// The graph allocation at `dptr` (its base address), allocated or not.
pub fn find(dptr: u64) -> Option<Arc<GraphAlloc>> {
    ALL.lock().get(&dptr).and_then(Weak::upgrade)
}

/// Ends the allocation at `dptr`: true if it was a graph allocation that was allocated.
pub fn free(dptr: u64) -> bool {
    let gone = LIVE.lock().remove(&dptr);
    match gone {
        Some(a) => {
            COUNTERS.used.fetch_sub(a.size, Ordering::AcqRel);
            // Dropped outside the lock: the last reference frees the memory.
            drop(a);
            true
        }
        None => false,
    }
}

/// The parameters of an allocation node, validated: device-pinned memory on this device, no
/// IPC handle types, access descriptors for this device only.
pub(crate) unsafe fn alloc_params(
    p: *const CUDA_MEM_ALLOC_NODE_PARAMS,
) -> CuResult<crate::graph::Kind> {
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
    Ok(crate::graph::Kind::MemAlloc(a))
}

// ---- Entry points.

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

/// `cuMemAllocAsync` in a capturing stream: a memory allocation node on the device, its
/// address returned now. None when `t` does not capture.
pub(crate) fn capture_alloc(t: &crate::stream::Target, size: usize) -> CuResult<Option<u64>> {
    let mut made = None;
    let captured = crate::stream::capture::intercept(t, || {
        let r = if size == 0 {
            Err(INVALID_VALUE)
        } else {
            // SAFETY: all-zero bytes are valid pool properties (plain data, a null pointer).
            let mut props: CUmemPoolProps = unsafe { std::mem::zeroed() };
            props.allocType = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
            props.location.type_ = CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
            GraphAlloc::new(size as u64, props, Vec::new())
        };
        let kind = match &r {
            Ok(a) => crate::graph::Kind::MemAlloc(a.clone()),
            // The node is empty and the call fails.
            Err(_) => crate::graph::Kind::Empty,
        };
        made = Some(r);
        kind
    })?;
    match made {
        Some(r) if captured => r.map(|a| Some(a.dptr)),
        _ => Ok(None),
    }
}

/// `cuMemFreeAsync` of a graph allocation: a free node in a capturing stream, else the end of
/// the allocation (CUDA_ERROR_INVALID_VALUE if it is not allocated).
pub(crate) fn free_async(t: &crate::stream::Target, dptr: u64) -> CuResult {
    if crate::stream::capture::intercept(t, || crate::graph::Kind::MemFree(dptr))? {
        return Ok(());
    }
    free(dptr).then_some(()).ok_or(INVALID_VALUE)
}
