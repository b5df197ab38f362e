//! Stream-ordered allocation (`cuMemAllocAsync`, `cuMemFreeAsync`) and memory pools: the
//! device's default pool and created ones, with the common attributes (reuse policies, release
//! threshold, reserved/used current and high-water marks).
//!
//! An asynchronous allocation takes its memory at the call (the address is returned at once,
//! as the driver does, and is usable by the stream's later work); an asynchronous free runs in
//! stream order, after the work queued before it.

use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory::managed::Loc;
use crate::stream::{self, capture, Target};
use crate::work::graph_alloc::{self, GraphAlloc};
use crate::work::Kind;
use crate::{device, memory};
use abi::*;
use engine::mem as dmem;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

fn location_id(l: &CUmemLocation) -> i32 {
    // SAFETY: every member of the union is a 32-bit integer id, so reading `id` is defined.
    unsafe { l.__bindgen_anon_1.id }
}

#[derive(Default)]
pub struct Pool {
    /// The device whose memory it hands out.
    pub(crate) device: CUdevice,
    used: AtomicU64,
    used_high: AtomicU64,
    release_threshold: AtomicU64,
    /// REUSE_FOLLOW_EVENT_DEPENDENCIES, REUSE_ALLOW_OPPORTUNISTIC, ..._INTERNAL_DEPENDENCIES.
    reuse: [AtomicU64; 3],
    /// The shareable handle types it was created with (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    /// makes it exportable, `pool_ipc`).
    pub(crate) handle_types: u32,
    /// For a pool imported from another process: that process and its pool's number. Such a
    /// pool only imports pointers; it never allocates.
    pub(crate) imported: Option<(u32, u32)>,
    /// The descriptor naming an exported pool (made at its first export).
    pub(crate) export: Mutex<Option<(std::os::fd::OwnedFd, u32)>>,
}

impl Pool {
    /// A pool of `device` for `handle_types`, or one imported from another process
    /// (`pool_ipc`).
    pub(crate) fn shared(
        device: CUdevice,
        handle_types: u32,
        imported: Option<(u32, u32)>,
    ) -> Pool {
        Pool {
            handle_types,
            imported,
            ..Pool::new(device)
        }
    }

    fn new(device: CUdevice) -> Pool {
        let p = Pool {
            device,
            ..Pool::default()
        };
        // All three reuse policies are enabled by default.
        for r in &p.reuse {
            r.store(1, Ordering::Relaxed);
        }
        p
    }
}

/// Live pools by handle (the devices' default pools and created ones). Each default pool is
/// its own value (taking "the first key" of the map named whichever pool the hash order put
/// first once a pool had been created before the default was asked for).
static POOLS: Lazy<Mutex<HashMap<usize, Arc<Pool>>>> = Lazy::new(Default::default);
/// Each device's default pool, by ordinal.
static DEFAULT: Lazy<Vec<usize>> = Lazy::new(|| {
    let mut pools = POOLS.lock();
    (0..device::count().max(1) as CUdevice)
        .map(|dev| {
            let p = Arc::new(Pool::new(dev));
            let h = Arc::as_ptr(&p) as usize;
            pools.insert(h, p);
            h
        })
        .collect()
});
/// The pool each device allocates from by default (cuDeviceSetMemPool changes it).
static CURRENT: Lazy<Mutex<Vec<usize>>> = Lazy::new(|| Mutex::new(DEFAULT.clone()));

/// The default pool of `dev` (checked).
fn default_of(dev: CUdevice) -> usize {
    DEFAULT.get(dev as usize).copied().unwrap_or(DEFAULT[0])
}

/// The current pool of `dev` (checked).
fn current_of(dev: CUdevice) -> usize {
    let current = CURRENT.lock();
    current.get(dev as usize).copied().unwrap_or(current[0])
}
/// Pool allocations: base -> (pool, size).
type Allocations = HashMap<u64, (Arc<Pool>, u64)>;
pub(crate) static ALLOCATIONS: Lazy<Mutex<Allocations>> = Lazy::new(Default::default);

/// Adds a pool (created or imported); its handle.
pub(crate) fn insert(p: Arc<Pool>) -> usize {
    let h = Arc::as_ptr(&p) as usize;
    POOLS.lock().insert(h, p);
    h
}

pub(crate) fn pool(h: CUmemoryPool) -> CuResult<Arc<Pool>> {
    POOLS
        .lock()
        .get(&(h as usize))
        .cloned()
        .ok_or(INVALID_VALUE)
}

unsafe fn alloc_in(dptr: *mut CUdeviceptr, bytesize: usize, p: Arc<Pool>, s: CUstream) -> CuResult {
    if dptr.is_null() {
        return Err(INVALID_VALUE);
    }
    let t = stream::target(s)?;
    // In a capture the allocation becomes a memory allocation node.
    if let Some(a) = capture_alloc(&t, bytesize)? {
        // SAFETY: checked non-null.
        unsafe { *dptr = a };
        return Ok(());
    }
    if bytesize == 0 {
        return Err(INVALID_VALUE);
    }
    // The pool's device's memory, whichever device's stream asks. Which other devices may
    // reach it is cuMemPoolSetAccess's to say, not peer access's, and is not checked: every
    // launch may.
    let a = dmem::alloc_shared_on(p.device as usize, bytesize as u64)
        .map_err(|_| CUresult::CUDA_ERROR_OUT_OF_MEMORY)?;
    let used = p.used.fetch_add(bytesize as u64, Ordering::AcqRel) + bytesize as u64;
    p.used_high.fetch_max(used, Ordering::AcqRel);
    ALLOCATIONS.lock().insert(a, (p, bytesize as u64));
    memory::new_buffer(a, &t.ctx);
    crate::sanitizer::initcheck_allocated(a, bytesize as u64);
    // SAFETY: checked non-null.
    unsafe { *dptr = a };
    Ok(())
}

pub(crate) unsafe fn alloc_async(dptr: *mut CUdeviceptr, bytesize: usize, s: CUstream) -> CuResult {
    // The current pool of the stream's device.
    let dev = stream::target(s)?.ctx.device;
    let p = pool(current_of(dev) as CUmemoryPool)?;
    // SAFETY: forwarded contract.
    unsafe { alloc_in(dptr, bytesize, p, s) }
}

pub(crate) unsafe fn alloc_from_pool_async(
    dptr: *mut CUdeviceptr,
    bytesize: usize,
    pool_handle: CUmemoryPool,
    s: CUstream,
) -> CuResult {
    let p = pool(pool_handle)?;
    // Imported pools do not allocate (documented).
    if p.imported.is_some() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    unsafe { alloc_in(dptr, bytesize, p, s) }
}

pub(crate) unsafe fn free_async(dptr: CUdeviceptr, s: CUstream) -> CuResult {
    let t = stream::target(s)?;
    if graph_alloc::find(dptr).is_some() {
        return free_graph_alloc(&t, dptr);
    }
    capture::refuse(&t)?;
    let (p, size) = ALLOCATIONS.lock().remove(&dptr).ok_or(INVALID_VALUE)?;
    // From here the pointer is no longer a pool allocation (its attributes are undefined).
    memory::forget_buffer(dptr);
    stream::submit(
        &t,
        Vec::new(),
        Box::new(move |_| {
            // A pointer imported from another process's pool is unmapped instead.
            if dmem::share::is_import(dptr) {
                let _ = dmem::share::close(dptr);
            } else {
                let _ = dmem::free(dptr);
            }
            p.used.fetch_sub(size, Ordering::AcqRel);
        }),
    );
    Ok(())
}

/// The handle of the pool `base` was allocated from (CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE).
pub(crate) fn pool_of(base: u64) -> Option<usize> {
    ALLOCATIONS
        .lock()
        .get(&base)
        .map(|(p, _)| Arc::as_ptr(p) as usize)
}

/// cuMemFree of a pool allocation: the pool's accounting follows.
pub(crate) fn forget(dptr: CUdeviceptr) {
    if let Some((p, size)) = ALLOCATIONS.lock().remove(&dptr) {
        p.used.fetch_sub(size, Ordering::AcqRel);
    }
}

pub(crate) unsafe fn device_get_default_mem_pool(
    out: *mut CUmemoryPool,
    dev: CUdevice,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    device::check(dev)?;
    // SAFETY: checked non-null.
    unsafe { *out = default_of(dev) as CUmemoryPool };
    Ok(())
}

pub(crate) unsafe fn device_get_mem_pool(out: *mut CUmemoryPool, dev: CUdevice) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    device::check(dev)?;
    // SAFETY: checked non-null.
    unsafe { *out = current_of(dev) as CUmemoryPool };
    Ok(())
}

pub(crate) unsafe fn device_set_mem_pool(dev: CUdevice, p: CUmemoryPool) -> CuResult {
    device::check(dev)?;
    // A pool serves the device it was made for; an imported pool allocates nothing.
    let p = pool(p)?;
    if p.device != dev || p.imported.is_some() {
        return Err(INVALID_VALUE);
    }
    if let Some(c) = CURRENT.lock().get_mut(dev as usize) {
        *c = Arc::as_ptr(&p) as usize;
    }
    Ok(())
}

pub(crate) unsafe fn create(out: *mut CUmemoryPool, props: *const CUmemPoolProps) -> CuResult {
    if out.is_null() || props.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUmemPoolProps.
    let pr = unsafe { &*props };
    if pr.allocType != CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED
        || pr.location.type_ != CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE
    {
        return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
    }
    let dev = location_id(&pr.location);
    device::check(dev)?;
    // Windows handles do not exist on Linux: an H200 answered CUDA_ERROR_INVALID_VALUE for
    // CU_MEM_HANDLE_TYPE_WIN32 (scripts/ground-truth/results/ipc-h200.txt); the KMT handle is
    // taken as the same case.
    let windows = CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_WIN32.0
        | CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_WIN32_KMT.0;
    if pr.handleTypes.0 & windows != 0 {
        return Err(INVALID_VALUE);
    }
    // Only a POSIX file descriptor can be exported here, as for cuMemCreate.
    let posix = CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR.0;
    if pr.handleTypes.0 & !posix != 0 {
        return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
    }
    let h = insert(Arc::new(Pool::shared(dev, pr.handleTypes.0, None)));
    // SAFETY: checked non-null.
    unsafe { *out = h as CUmemoryPool };
    Ok(())
}

pub(crate) unsafe fn destroy(p: CUmemoryPool) -> CuResult {
    if DEFAULT.contains(&(p as usize)) {
        return Err(INVALID_VALUE);
    }
    POOLS.lock().remove(&(p as usize)).ok_or(INVALID_VALUE)?;
    // A device whose current pool this was goes back to its default pool.
    for (dev, c) in CURRENT.lock().iter_mut().enumerate() {
        if *c == p as usize {
            *c = DEFAULT[dev];
        }
    }
    Ok(())
}

pub(crate) unsafe fn trim_to(p: CUmemoryPool, _keep: usize) -> CuResult {
    // Freed memory goes straight back to the device, so there is nothing cached to trim.
    pool(p).map(|_| ())
}

pub(crate) unsafe fn get_attribute(
    p: CUmemoryPool,
    attr: CUmemPool_attribute,
    value: *mut c_void,
) -> CuResult {
    use CUmemPool_attribute as A;
    let pl = pool(p)?;
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    let used = pl.used.load(Ordering::Acquire);
    // SAFETY: checked non-null; int attributes take an int, the others a cuuint64_t.
    unsafe {
        match attr {
            A::CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES
            | A::CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC
            | A::CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES => {
                *(value as *mut i32) = pl.reuse[attr.0 as usize - 1].load(Ordering::Acquire) as i32
            }
            A::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD => {
                *(value as *mut u64) = pl.release_threshold.load(Ordering::Acquire)
            }
            // Nothing is cached: reserved memory is the memory in use.
            A::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT | A::CU_MEMPOOL_ATTR_USED_MEM_CURRENT => {
                *(value as *mut u64) = used
            }
            A::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH | A::CU_MEMPOOL_ATTR_USED_MEM_HIGH => {
                *(value as *mut u64) = pl.used_high.load(Ordering::Acquire)
            }
            _ => return Err(INVALID_VALUE),
        }
    }
    Ok(())
}

pub(crate) unsafe fn set_attribute(
    p: CUmemoryPool,
    attr: CUmemPool_attribute,
    value: *mut c_void,
) -> CuResult {
    use CUmemPool_attribute as A;
    let pl = pool(p)?;
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; typed as in get_attribute.
    unsafe {
        match attr {
            A::CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES
            | A::CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC
            | A::CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES => pl.reuse[attr.0 as usize - 1]
                .store(u64::from(*(value as *const i32) != 0), Ordering::Release),
            A::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD => pl
                .release_threshold
                .store(*(value as *const u64), Ordering::Release),
            // The high-water marks may only be reset, to zero (then they restart from now).
            A::CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH | A::CU_MEMPOOL_ATTR_USED_MEM_HIGH => {
                if *(value as *const u64) != 0 {
                    return Err(INVALID_VALUE);
                }
                pl.used_high
                    .store(pl.used.load(Ordering::Acquire), Ordering::Release);
            }
            _ => return Err(INVALID_VALUE),
        }
    }
    Ok(())
}

/// Memory pools may be accessed by the one device, read-write.
pub(crate) unsafe fn set_access(
    p: CUmemoryPool,
    map: *const CUmemAccessDesc,
    count: usize,
) -> CuResult {
    pool(p)?;
    if count > 0 && map.is_null() {
        return Err(INVALID_VALUE);
    }
    for i in 0..count {
        // SAFETY: `map` holds `count` descriptors.
        let d = unsafe { &*map.add(i) };
        if d.location.type_ != CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE {
            return Err(INVALID_VALUE);
        }
        device::check(location_id(&d.location))?;
    }
    Ok(())
}

pub(crate) unsafe fn get_access(
    flags: *mut CUmemAccess_flags,
    p: CUmemoryPool,
    location: *mut CUmemLocation,
) -> CuResult {
    pool(p)?;
    if flags.is_null() || location.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: both checked non-null.
    unsafe {
        device::check(location_id(&*location))?;
        *flags = CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    Ok(())
}

// ---- Managed memory advice and prefetching: accepted (memory is shared by host and device
// here, so they change nothing observable) after the driver's checks.

fn check_managed_range(ptr: CUdeviceptr, count: usize) -> CuResult {
    if count == 0 {
        return Err(INVALID_VALUE);
    }
    memory::check_device(ptr, count)
}

pub(crate) unsafe fn advise(
    ptr: CUdeviceptr,
    count: usize,
    advice: CUmem_advise,
    dev: CUdevice,
) -> CuResult {
    advise_at(ptr, count, advice, dev, Loc::from_device(dev))
}

/// Validates advice (`dev`: the device `loc` names, CU_DEVICE_CPU for the host) and records
/// it for cuMemRangeGetAttribute.
fn advise_at(
    ptr: CUdeviceptr,
    count: usize,
    advice: CUmem_advise,
    dev: CUdevice,
    loc: Loc,
) -> CuResult {
    check_managed_range(ptr, count)?;
    if !(1..=6).contains(&advice.0) {
        return Err(INVALID_VALUE);
    }
    // CU_DEVICE_CPU (-1) names the host.
    if dev != -1 {
        device::check(dev)?;
    }
    crate::memory::managed::advise(ptr, count, advice, loc);
    Ok(())
}

pub(crate) unsafe fn advise_v2(
    ptr: CUdeviceptr,
    count: usize,
    advice: CUmem_advise,
    location: CUmemLocation,
) -> CuResult {
    let dev = match location.type_ {
        CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE => location_id(&location),
        _ => -1,
    };
    advise_at(ptr, count, advice, dev, Loc::from_location(&location))
}

pub(crate) unsafe fn prefetch(
    ptr: CUdeviceptr,
    count: usize,
    dev: CUdevice,
    s: CUstream,
) -> CuResult {
    prefetch_to(ptr, count, dev, Loc::from_device(dev), s)
}

/// Validates a prefetch (`dev` as for [`advise_at`]), records its location for
/// cuMemRangeGetAttribute and orders it in the stream.
fn prefetch_to(ptr: CUdeviceptr, count: usize, dev: CUdevice, loc: Loc, s: CUstream) -> CuResult {
    check_managed_range(ptr, count)?;
    if dev != -1 {
        device::check(dev)?;
    }
    // Ordered in the stream like any work, though it moves nothing.
    let t = stream::target(s)?;
    crate::memory::managed::prefetched(ptr, count, loc);
    stream::submit(&t, Vec::new(), Box::new(|_| {}));
    Ok(())
}

pub(crate) unsafe fn prefetch_v2(
    ptr: CUdeviceptr,
    count: usize,
    location: CUmemLocation,
    flags: std::ffi::c_uint,
    s: CUstream,
) -> CuResult {
    if flags != 0 {
        return Err(INVALID_VALUE);
    }
    let dev = match location.type_ {
        CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE => location_id(&location),
        _ => -1,
    };
    prefetch_to(ptr, count, dev, Loc::from_location(&location), s)
}

/// The device a (location, allocation type) pair names, for the CUDA 13 pool queries: device
/// pools of pinned memory are the only kind; host, NUMA and managed pools are not emulated
/// (CUDA_ERROR_NOT_SUPPORTED, which these calls document); anything else is invalid.
unsafe fn pool_device(
    location: *const CUmemLocation,
    kind: CUmemAllocationType,
) -> CuResult<CUdevice> {
    use CUmemLocationType as L;
    if location.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUmemLocation.
    let loc = unsafe { *location };
    let pinned = kind == CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    let managed = kind == CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_MANAGED;
    match loc.type_ {
        L::CU_MEM_LOCATION_TYPE_DEVICE if pinned => {
            // SAFETY: `id` is the member a device location uses.
            Ok(unsafe { loc.__bindgen_anon_1.id })
        }
        L::CU_MEM_LOCATION_TYPE_DEVICE
        | L::CU_MEM_LOCATION_TYPE_HOST
        | L::CU_MEM_LOCATION_TYPE_HOST_NUMA
            if pinned || managed =>
        {
            Err(crate::errors::NOT_SUPPORTED)
        }
        L::CU_MEM_LOCATION_TYPE_NONE if managed => Err(crate::errors::NOT_SUPPORTED),
        _ => Err(INVALID_VALUE),
    }
}

pub(crate) unsafe fn mem_get_default_mem_pool(
    out: *mut CUmemoryPool,
    location: *mut CUmemLocation,
    kind: CUmemAllocationType,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    unsafe { device_get_default_mem_pool(out, pool_device(location, kind)?) }
}

pub(crate) unsafe fn mem_get_mem_pool(
    out: *mut CUmemoryPool,
    location: *mut CUmemLocation,
    kind: CUmemAllocationType,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    unsafe { device_get_mem_pool(out, pool_device(location, kind)?) }
}

pub(crate) unsafe fn mem_set_mem_pool(
    location: *mut CUmemLocation,
    kind: CUmemAllocationType,
    p: CUmemoryPool,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { device_set_mem_pool(pool_device(location, kind)?, p) }
}

// ---- Stream-ordered allocation in a capturing stream: graph allocations.

/// `cuMemAllocAsync` in a capturing stream: a memory allocation node on the device, its
/// address returned now. None when `t` does not capture.
fn capture_alloc(t: &Target, size: usize) -> CuResult<Option<u64>> {
    let mut made = None;
    let captured = capture::intercept(t, || {
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
            Ok(a) => Kind::MemAlloc(a.clone()),
            // The node is empty and the call fails.
            Err(_) => Kind::Empty,
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
fn free_graph_alloc(t: &Target, dptr: u64) -> CuResult {
    if capture::intercept(t, || Kind::MemFree(dptr))? {
        return Ok(());
    }
    graph_alloc::free(dptr).then_some(()).ok_or(INVALID_VALUE)
}
