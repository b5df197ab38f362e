//! Virtual memory management (`cuMemAddressReserve`, `cuMemCreate`, `cuMemMap`,
//! `cuMemSetAccess`, ...): address reservations, physical allocations and the mappings between
//! them, on `engine::mem`'s reservations and memfd-backed physical allocations.
//!
//! As on a GPU, a reservation is only address space, a physical allocation has no address until
//! it is mapped, a mapping is inaccessible until `cuMemSetAccess` grants access, and one
//! physical allocation may be mapped at several addresses whose views alias. Kernels reach a
//! mapping once access is granted (it is then in the engine's allocation map); an access to a
//! reserved but unmapped or inaccessible address is an illegal address.
//!
//! Read-only access (`CU_MEM_ACCESS_FLAGS_PROT_READ`) is recorded and reported, but the pages
//! are writable: the engine checks accesses against the allocation map, which has no notion of
//! read-only, and a store to a read-only host page would kill the process instead of faulting
//! the kernel.

use crate::errors::{CuResult, INVALID_DEVICE, INVALID_VALUE, NOT_SUPPORTED};
use crate::{context, device};
use abi::*;
use engine::mem::{self as dmem, MemError, Physical};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_ulonglong, c_void};
use std::os::fd::{BorrowedFd, IntoRawFd};
use std::sync::Arc;

/// The minimum and recommended granularity of physical allocations, mappings and default
/// reservation alignment: 2 MiB, what current NVIDIA GPUs report for device memory.
pub const GRANULARITY: u64 = 2 << 20;

const POSIX_FD: u32 = CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR.0;

/// A physical allocation (`CUmemGenericAllocationHandle`) and the properties it was created
/// with (the parts `cuMemGetAllocationPropertiesFromHandle` reports).
pub(crate) struct Allocation {
    physical: Physical,
    /// Process-wide unique, never reused (CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID).
    id: u64,
    handle_types: u32,
    location_type: CUmemLocationType,
    location_id: i32,
    compression: u8,
    rdma: u8,
    usage: u16,
}

/// One mapping inside a reservation.
struct Mapping {
    size: u64,
    allocation: Arc<Allocation>,
    /// The `CU_MEM_ACCESS_FLAGS_*` granted to the device (0 until `cuMemSetAccess`).
    access: u32,
}

struct Reservation {
    size: u64,
    /// Mappings by address.
    mappings: BTreeMap<u64, Mapping>,
}

#[derive(Default)]
struct State {
    /// Live handles -> (allocation, references: creation/import plus each retain).
    handles: HashMap<u64, (Arc<Allocation>, u32)>,
    /// Reservations by base address.
    reservations: BTreeMap<u64, Reservation>,
}

static STATE: Lazy<Mutex<State>> = Lazy::new(Default::default);

fn handle_of(a: &Arc<Allocation>) -> u64 {
    // The handle is the allocation's address: unique while it lives, and the same value for
    // as long as a mapping keeps it alive (cuMemRetainAllocationHandle must give it back).
    Arc::as_ptr(a) as u64
}

fn mem_error(e: MemError) -> CUresult {
    match e {
        MemError::OutOfMemory => CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        MemError::NotAllocated => INVALID_VALUE,
    }
}

fn location_id(l: &CUmemLocation) -> i32 {
    // SAFETY: both union members start with the id bytes and callers initialise the location;
    // every bit pattern is a valid c_int.
    unsafe { l.__bindgen_anon_1.id }
}

/// A device location naming our device, or the error the driver gives.
fn check_device_location(l: &CUmemLocation) -> CuResult {
    if l.type_ != CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE {
        return Err(INVALID_VALUE);
    }
    device::check(location_id(l)).map_err(|_| INVALID_DEVICE)
}

/// Checks an allocation property as `cuMemCreate` and `cuMemGetAllocationGranularity` do.
fn check_prop(p: &CUmemAllocationProp) -> CuResult {
    if p.type_ != CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED {
        return Err(INVALID_VALUE);
    }
    match p.location.type_ {
        CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE => check_device_location(&p.location)?,
        // Host allocations are not IPC capable: no handle types.
        CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST
        | CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST_NUMA => {
            if p.requestedHandleTypes.0 != 0 {
                return Err(INVALID_VALUE);
            }
        }
        _ => return Err(INVALID_VALUE),
    }
    // Only a POSIX file descriptor can be exported here (the device reports the others,
    // Win32 and fabric handles, as unsupported).
    if p.requestedHandleTypes.0 & !POSIX_FD != 0 {
        return Err(NOT_SUPPORTED);
    }
    Ok(())
}

/// Waits for the device's queued work: unmapping and access changes synchronise (`\note_sync`),
/// so no running kernel sees memory change under it.
fn sync_device() {
    match context::current() {
        Ok(ctx) => ctx.wait_idle(),
        Err(_) => context::primary(device::DEVICE).wait_idle(),
    }
}

pub(crate) unsafe fn get_allocation_granularity(
    granularity: *mut usize,
    prop: *const CUmemAllocationProp,
    option: CUmemAllocationGranularity_flags,
) -> CuResult {
    if granularity.is_null() || prop.is_null() || option.0 > 1 {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUmemAllocationProp.
    check_prop(unsafe { &*prop })?;
    // SAFETY: checked non-null.
    unsafe { *granularity = GRANULARITY as usize };
    Ok(())
}

pub(crate) unsafe fn address_reserve(
    ptr: *mut CUdeviceptr,
    size: usize,
    alignment: usize,
    addr: CUdeviceptr,
    flags: c_ulonglong,
) -> CuResult {
    if ptr.is_null() || size == 0 || flags != 0 {
        return Err(INVALID_VALUE);
    }
    // Size and hint are multiples of the host page size; the alignment a power of two or 0.
    if !size.is_multiple_of(4096)
        || !addr.is_multiple_of(4096)
        || (alignment != 0 && !alignment.is_power_of_two())
    {
        return Err(INVALID_VALUE);
    }
    let align = if alignment == 0 {
        GRANULARITY
    } else {
        alignment as u64
    };
    let base = dmem::reserve_address_range(size as u64, align, addr).map_err(mem_error)?;
    STATE.lock().reservations.insert(
        base,
        Reservation {
            size: size as u64,
            mappings: BTreeMap::new(),
        },
    );
    // SAFETY: checked non-null.
    unsafe { *ptr = base };
    Ok(())
}

pub(crate) unsafe fn address_free(ptr: CUdeviceptr, size: usize) -> CuResult {
    let mut state = STATE.lock();
    match state.reservations.get(&ptr) {
        Some(r) if r.size == size as u64 => {}
        _ => return Err(INVALID_VALUE),
    }
    if !state.reservations[&ptr].mappings.is_empty() {
        // Freeing a reservation that still has mappings unmaps them first.
        drop(state);
        sync_device();
        state = STATE.lock();
    }
    let r = state.reservations.remove(&ptr).ok_or(INVALID_VALUE)?;
    drop(state);
    for (&va, m) in &r.mappings {
        dmem::unmap_physical(va, m.size).map_err(mem_error)?;
        crate::memory::forget_buffer(va);
    }
    dmem::free_address_range(ptr, size as u64).map_err(mem_error)
}

pub(crate) unsafe fn create(
    handle: *mut CUmemGenericAllocationHandle,
    size: usize,
    prop: *const CUmemAllocationProp,
    flags: c_ulonglong,
) -> CuResult {
    if handle.is_null() || prop.is_null() || flags != 0 {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUmemAllocationProp.
    let p = unsafe { &*prop };
    check_prop(p)?;
    if size == 0 || !(size as u64).is_multiple_of(GRANULARITY) {
        return Err(INVALID_VALUE);
    }
    // Device memory counts against its device's budget; host memory against device 0's, as
    // before there were several devices.
    let on = match p.location.type_ {
        CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE => location_id(&p.location) as usize,
        _ => 0,
    };
    let physical = Physical::create_on(on, size as u64).map_err(mem_error)?;
    let a = Arc::new(Allocation {
        physical,
        id: next_id(),
        handle_types: p.requestedHandleTypes.0,
        location_type: p.location.type_,
        location_id: location_id(&p.location),
        compression: p.allocFlags.compressionType,
        rdma: p.allocFlags.gpuDirectRDMACapable,
        usage: p.allocFlags.usage,
    });
    let h = handle_of(&a);
    STATE.lock().handles.insert(h, (a, 1));
    // SAFETY: checked non-null.
    unsafe { *handle = h };
    Ok(())
}

pub(crate) unsafe fn release(handle: CUmemGenericAllocationHandle) -> CuResult {
    let mut state = STATE.lock();
    let entry = state.handles.get_mut(&handle).ok_or(INVALID_VALUE)?;
    entry.1 -= 1;
    if entry.1 == 0 {
        // The memory itself lives on while mappings hold the allocation.
        state.handles.remove(&handle);
    }
    Ok(())
}

/// The reservation holding `[ptr, ptr + size)` entirely: its base.
fn reservation_of(state: &State, ptr: u64, size: u64) -> CuResult<u64> {
    let (&base, r) = state
        .reservations
        .range(..=ptr)
        .next_back()
        .ok_or(INVALID_VALUE)?;
    let end = ptr.checked_add(size).ok_or(INVALID_VALUE)?;
    if end > base + r.size {
        return Err(INVALID_VALUE);
    }
    Ok(base)
}

/// The mappings that exactly tile `[ptr, ptr + size)` (each one whole): their addresses.
fn whole_mappings(r: &Reservation, ptr: u64, size: u64) -> CuResult<Vec<u64>> {
    let end = ptr + size;
    let mut at = ptr;
    let mut out = Vec::new();
    for (&va, m) in r.mappings.range(ptr..end) {
        if va != at {
            return Err(INVALID_VALUE);
        }
        out.push(va);
        at = va + m.size;
    }
    if at != end || out.is_empty() {
        return Err(INVALID_VALUE);
    }
    Ok(out)
}

pub(crate) unsafe fn map(
    ptr: CUdeviceptr,
    size: usize,
    offset: usize,
    handle: CUmemGenericAllocationHandle,
    flags: c_ulonglong,
) -> CuResult {
    if flags != 0 || size == 0 {
        return Err(INVALID_VALUE);
    }
    let (size, offset) = (size as u64, offset as u64);
    if !ptr.is_multiple_of(GRANULARITY)
        || !size.is_multiple_of(GRANULARITY)
        || !offset.is_multiple_of(GRANULARITY)
    {
        return Err(INVALID_VALUE);
    }
    let mut state = STATE.lock();
    let a = state.handles.get(&handle).ok_or(INVALID_VALUE)?.0.clone();
    if offset
        .checked_add(size)
        .is_none_or(|end| end > a.physical.size())
    {
        return Err(INVALID_VALUE);
    }
    let base = reservation_of(&state, ptr, size)?;
    let r = state.reservations.get_mut(&base).ok_or(INVALID_VALUE)?;
    // Only an unmapped part of a reservation can be mapped.
    let overlaps = r
        .mappings
        .range(..ptr + size)
        .next_back()
        .is_some_and(|(&va, m)| va + m.size > ptr);
    if overlaps {
        return Err(INVALID_VALUE);
    }
    dmem::map_physical(ptr, size, &a.physical, offset).map_err(mem_error)?;
    r.mappings.insert(
        ptr,
        Mapping {
            size,
            allocation: a,
            access: 0,
        },
    );
    Ok(())
}

pub(crate) unsafe fn unmap(ptr: CUdeviceptr, size: usize) -> CuResult {
    if size == 0 {
        return Err(INVALID_VALUE);
    }
    {
        let state = STATE.lock();
        let base = reservation_of(&state, ptr, size as u64)?;
        whole_mappings(&state.reservations[&base], ptr, size as u64)?;
    }
    sync_device();
    let mut state = STATE.lock();
    let base = reservation_of(&state, ptr, size as u64)?;
    let r = state.reservations.get_mut(&base).ok_or(INVALID_VALUE)?;
    for va in whole_mappings(r, ptr, size as u64)? {
        let m = r.mappings.remove(&va).ok_or(INVALID_VALUE)?;
        dmem::unmap_physical(va, m.size).map_err(mem_error)?;
        crate::memory::forget_buffer(va);
        // Dropping the mapping's reference frees the memory once no handle or other mapping
        // holds it.
    }
    Ok(())
}

pub(crate) unsafe fn set_access(
    ptr: CUdeviceptr,
    size: usize,
    desc: *const CUmemAccessDesc,
    count: usize,
) -> CuResult {
    if desc.is_null() || count == 0 || size == 0 {
        return Err(INVALID_VALUE);
    }
    // SAFETY: `desc` holds `count` descriptors (API contract).
    let descs = unsafe { std::slice::from_raw_parts(desc, count) };
    let mut access = None;
    for d in descs {
        // Device allocations take device locations only (host NUMA access is refused for
        // allocations of another location type).
        check_device_location(&d.location)?;
        let f = d.flags.0;
        if ![0, 1, 3].contains(&f) {
            return Err(INVALID_VALUE);
        }
        access = Some(f);
    }
    let access = access.ok_or(INVALID_VALUE)?;
    {
        let state = STATE.lock();
        let base = reservation_of(&state, ptr, size as u64)?;
        whole_mappings(&state.reservations[&base], ptr, size as u64)?;
    }
    sync_device();
    let mut state = STATE.lock();
    let base = reservation_of(&state, ptr, size as u64)?;
    let r = state.reservations.get_mut(&base).ok_or(INVALID_VALUE)?;
    for va in whole_mappings(r, ptr, size as u64)? {
        let m = r.mappings.get_mut(&va).ok_or(INVALID_VALUE)?;
        dmem::set_access(va, m.size, access != 0).map_err(mem_error)?;
        m.access = access;
    }
    Ok(())
}

/// The mapping containing `ptr`: (its address, size, access flags, allocation).
pub(crate) fn mapping_at(ptr: u64) -> Option<(u64, u64, u32, Arc<Allocation>)> {
    let state = STATE.lock();
    let (_, r) = state.reservations.range(..=ptr).next_back()?;
    let (&va, m) = r.mappings.range(..=ptr).next_back()?;
    (ptr < va + m.size).then(|| (va, m.size, m.access, m.allocation.clone()))
}

impl Allocation {
    /// The shareable handle types it was created (or imported) with.
    pub(crate) fn handle_types(&self) -> u32 {
        self.handle_types
    }

    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The device whose memory it is (device 0 for host memory).
    pub(crate) fn device(&self) -> CUdevice {
        if self.location_type == CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE {
            self.location_id
        } else {
            device::DEVICE
        }
    }
}

fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The reservation containing `ptr`: (base, size).
pub(crate) fn reservation_at(ptr: u64) -> Option<(u64, u64)> {
    let state = STATE.lock();
    let (&base, r) = state.reservations.range(..=ptr).next_back()?;
    (ptr < base + r.size).then_some((base, r.size))
}

pub(crate) unsafe fn get_access(
    flags: *mut c_ulonglong,
    location: *const CUmemLocation,
    ptr: CUdeviceptr,
) -> CuResult {
    if flags.is_null() || location.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUmemLocation.
    check_device_location(unsafe { &*location })?;
    let (_, _, access, _) = mapping_at(ptr).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *flags = access as c_ulonglong };
    Ok(())
}

pub(crate) unsafe fn retain_allocation_handle(
    handle: *mut CUmemGenericAllocationHandle,
    addr: *mut c_void,
) -> CuResult {
    if handle.is_null() {
        return Err(INVALID_VALUE);
    }
    let (_, _, _, a) = mapping_at(addr as u64).ok_or(INVALID_VALUE)?;
    let h = handle_of(&a);
    STATE
        .lock()
        .handles
        .entry(h)
        .and_modify(|e| e.1 += 1)
        .or_insert((a, 1));
    // SAFETY: checked non-null.
    unsafe { *handle = h };
    Ok(())
}

pub(crate) unsafe fn get_allocation_properties_from_handle(
    prop: *mut CUmemAllocationProp,
    handle: CUmemGenericAllocationHandle,
) -> CuResult {
    if prop.is_null() {
        return Err(INVALID_VALUE);
    }
    let a = STATE
        .lock()
        .handles
        .get(&handle)
        .ok_or(INVALID_VALUE)?
        .0
        .clone();
    let mut p = CUmemAllocationProp {
        type_: CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: CUmemAllocationHandleType(a.handle_types),
        ..Default::default()
    };
    p.location.type_ = a.location_type;
    p.location.__bindgen_anon_1.id = a.location_id;
    p.allocFlags.compressionType = a.compression;
    p.allocFlags.gpuDirectRDMACapable = a.rdma;
    p.allocFlags.usage = a.usage;
    // SAFETY: checked non-null; the caller's storage is a CUmemAllocationProp.
    unsafe { *prop = p };
    Ok(())
}

pub(crate) unsafe fn export_to_shareable_handle(
    shareable: *mut c_void,
    handle: CUmemGenericAllocationHandle,
    handle_type: CUmemAllocationHandleType,
    flags: c_ulonglong,
) -> CuResult {
    if shareable.is_null() || flags != 0 {
        return Err(INVALID_VALUE);
    }
    let a = STATE
        .lock()
        .handles
        .get(&handle)
        .ok_or(INVALID_VALUE)?
        .0
        .clone();
    if handle_type.0 != POSIX_FD {
        return Err(NOT_SUPPORTED);
    }
    // Only the handle types requested at creation can be exported.
    if a.handle_types & POSIX_FD == 0 {
        return Err(INVALID_VALUE);
    }
    let fd = a.physical.share().map_err(mem_error)?;
    // SAFETY: checked non-null; a POSIX file descriptor handle is an `int`. The caller owns
    // the new descriptor from here on.
    unsafe { *(shareable as *mut i32) = fd.into_raw_fd() };
    Ok(())
}

pub(crate) unsafe fn import_from_shareable_handle(
    handle: *mut CUmemGenericAllocationHandle,
    os_handle: *mut c_void,
    handle_type: CUmemAllocationHandleType,
) -> CuResult {
    if handle.is_null() {
        return Err(INVALID_VALUE);
    }
    if handle_type.0 != POSIX_FD {
        return Err(NOT_SUPPORTED);
    }
    // A POSIX file descriptor is passed by value, cast to a pointer.
    let raw = os_handle as usize as i32;
    if raw < 0 {
        return Err(INVALID_VALUE);
    }
    // SAFETY: only borrowed to duplicate it: the caller keeps its descriptor, which must be
    // open for the duration of the call (an invalid one makes the duplication fail).
    let fd = unsafe { BorrowedFd::borrow_raw(raw) }
        .try_clone_to_owned()
        .map_err(|_| INVALID_VALUE)?;
    let physical = Physical::from_fd(fd).map_err(mem_error)?;
    let a = Arc::new(Allocation {
        physical,
        id: next_id(),
        handle_types: POSIX_FD,
        location_type: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        location_id: 0,
        compression: 0,
        rdma: 0,
        usage: 0,
    });
    let h = handle_of(&a);
    STATE.lock().handles.insert(h, (a, 1));
    // SAFETY: checked non-null.
    unsafe { *handle = h };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device_prop(handle_types: u32) -> CUmemAllocationProp {
        let mut p = CUmemAllocationProp {
            type_: CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: CUmemAllocationHandleType(handle_types),
            ..Default::default()
        };
        p.location.type_ = CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        p
    }

    #[test]
    fn properties_are_checked_in_the_drivers_order() {
        assert_eq!(check_prop(&device_prop(0)), Ok(()));
        assert_eq!(check_prop(&device_prop(POSIX_FD)), Ok(()));
        // Win32 and fabric handles: not on this platform.
        assert_eq!(check_prop(&device_prop(2)), Err(NOT_SUPPORTED));
        assert_eq!(check_prop(&device_prop(8)), Err(NOT_SUPPORTED));
        let mut p = device_prop(0);
        p.location.__bindgen_anon_1.id = 1;
        assert_eq!(check_prop(&p), Err(INVALID_DEVICE));
        let mut p = device_prop(0);
        p.type_ = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_INVALID;
        assert_eq!(check_prop(&p), Err(INVALID_VALUE));
        let mut p = device_prop(POSIX_FD);
        p.location.type_ = CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST;
        assert_eq!(
            check_prop(&p),
            Err(INVALID_VALUE),
            "host memory is not IPC capable"
        );
    }

    #[test]
    fn mappings_must_tile_the_range() {
        let a = Arc::new(Allocation {
            physical: Physical::create(GRANULARITY).unwrap(),
            id: next_id(),
            handle_types: 0,
            location_type: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            location_id: 0,
            compression: 0,
            rdma: 0,
            usage: 0,
        });
        let g = GRANULARITY;
        let mut r = Reservation {
            size: 8 * g,
            mappings: BTreeMap::new(),
        };
        for va in [0x1000_0000, 0x1000_0000 + g, 0x1000_0000 + 3 * g] {
            r.mappings.insert(
                va,
                Mapping {
                    size: g,
                    allocation: a.clone(),
                    access: 0,
                },
            );
        }
        let base = 0x1000_0000;
        assert_eq!(whole_mappings(&r, base, 2 * g), Ok(vec![base, base + g]));
        assert_eq!(whole_mappings(&r, base + g, g), Ok(vec![base + g]));
        // A hole, a partial mapping, nothing mapped.
        assert!(whole_mappings(&r, base, 4 * g).is_err());
        assert!(whole_mappings(&r, base, g / 2).is_err());
        assert!(whole_mappings(&r, base + 2 * g, g).is_err());
    }
}
