//! The device address space. Device pointers are host addresses inside one region reserved
//! (not committed) at the first allocation, so host code can copy with `memcpy` and unified
//! addressing works; pages cost host memory only once touched.
//!
//! Every allocation is recorded so the executor can check each global access and turn a wild
//! pointer into an error report instead of a segfault.

use parking_lot::{Mutex, RwLock};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

pub mod share;

/// Why an allocation or free failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemError {
    /// The emulated device memory is exhausted (CUDA_ERROR_OUT_OF_MEMORY).
    OutOfMemory,
    /// The pointer is not the base of a live allocation (CUDA_ERROR_INVALID_VALUE).
    NotAllocated,
}

/// One live allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub base: u64,
    pub size: u64,
}

/// Allocation granularity and alignment: cudaMalloc guarantees 256 bytes.
const ALIGN: u64 = 256;
const DEFAULT_CAPACITY: u64 = 80 << 30;

/// The reserved region and its free list; only touched by alloc/free (not on the access path).
///
/// Several emulated devices share the region (pointers stay unique across devices, as on a
/// GPU with unified addressing), but each has its own budget: `budget` is one device's memory
/// size, `used_by[d]` what device `d` holds, and `owner` which device an allocation's bytes are
/// charged to, so that freeing gives them back to the right budget.
struct Region {
    capacity: u64,
    base: u64,
    /// Free ranges, start -> length, coalesced.
    free: BTreeMap<u64, u64>,
    used: u64,
    /// The most `used` has been.
    peak: u64,
    budget: u64,
    used_by: Vec<u64>,
    /// Allocation (or physical charge) start -> device, for those charged to a device but 0:
    /// with one device it stays empty.
    owner: BTreeMap<u64, usize>,
}

static REGION: Mutex<Region> = Mutex::new(Region {
    capacity: DEFAULT_CAPACITY,
    base: 0,
    free: BTreeMap::new(),
    used: 0,
    peak: 0,
    budget: DEFAULT_CAPACITY,
    used_by: Vec::new(),
    owner: BTreeMap::new(),
});

impl Region {
    /// Charges `len` bytes to `device`'s budget, or fails as that device's memory is full.
    fn take_budget(&mut self, device: usize, len: u64) -> Result<(), MemError> {
        if self.used_by.len() <= device {
            self.used_by.resize(device + 1, 0);
        }
        let used = self.used_by[device];
        if used.checked_add(len).is_none_or(|u| u > self.budget) {
            return Err(MemError::OutOfMemory);
        }
        self.used_by[device] = used + len;
        Ok(())
    }

    /// Gives the bytes of the allocation at `start` back to the budget they were charged to.
    fn return_budget(&mut self, start: u64, len: u64) {
        let device = self.owner.remove(&start).unwrap_or(0);
        self.uncharge_device(device, len);
    }

    fn uncharge_device(&mut self, device: usize, len: u64) {
        if let Some(u) = self.used_by.get_mut(device) {
            *u = u.saturating_sub(len);
        }
    }

    fn record_owner(&mut self, start: u64, device: usize) {
        if device != 0 {
            self.owner.insert(start, device);
        }
    }
}

/// Live device allocations and registered host ranges, base -> size. Read on every access that
/// misses a warp's cache, so it is a read-mostly lock separate from the free list.
static MAP: RwLock<BTreeMap<u64, u64>> = RwLock::new(BTreeMap::new());

/// Which devices' memory a launch may reach: bit `d` for device `d`, as the driver grants it
/// (its own device and those it enabled peer access to). Memory of no one device (managed
/// memory, registered host memory, module variables, parameter blocks) is reachable by all.
pub type Reach = u64;

/// A launch that may reach every device's memory (one device, or no restriction).
pub const EVERY_DEVICE: Reach = u64::MAX;

/// Device memory proper ([`alloc_on`]), base -> its device: what a launch whose [`Reach`]
/// leaves the device out may not touch. Read only when such a launch misses its allocation
/// cache, so a launch that reaches every device never looks at it.
static FENCE: RwLock<BTreeMap<u64, usize>> = RwLock::new(BTreeMap::new());

/// Whether a launch reaching `reach` may touch the allocation at `base`.
pub fn reaches(reach: Reach, base: u64) -> bool {
    reach == EVERY_DEVICE
        || FENCE
            .read()
            .get(&base)
            .is_none_or(|&d| d >= 64 || reach >> d & 1 == 1)
}

/// The device whose memory proper the allocation at `base` is ([`alloc_on`]), if any.
pub fn device_of(base: u64) -> Option<usize> {
    FENCE.read().get(&base).copied()
}

/// The device region's bounds `[start, end)` once reserved (read on the access path without the
/// region's lock): an allocation inside it owns its whole 256-byte granule.
static REGION_START: AtomicU64 = AtomicU64::new(0);
static REGION_END: AtomicU64 = AtomicU64::new(0);

/// The sanitizer's memory checking ([`set_checked`]): exact allocation bounds and a quarantine
/// of freed memory.
static CHECKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Freed allocations kept out of reuse while the sanitizer checks memory, oldest first, so that
/// an access through a dangling pointer faults and is reported as a use after free instead of
/// landing in a newer allocation. Bounded: past `QUARANTINE_BYTES` the oldest are reused.
struct Quarantine {
    fifo: std::collections::VecDeque<(u64, u64)>,
    freed: BTreeMap<u64, u64>,
    bytes: u64,
}
static QUARANTINE: Mutex<Quarantine> = Mutex::new(Quarantine {
    fifo: std::collections::VecDeque::new(),
    freed: BTreeMap::new(),
    bytes: 0,
});
const QUARANTINE_BYTES: u64 = 256 << 20;

impl Quarantine {
    /// Gives the oldest quarantined allocations back to the free list until at most `keep`
    /// bytes stay quarantined.
    fn release_down_to(&mut self, r: &mut Region, keep: u64) {
        while self.bytes > keep {
            let Some((p, l)) = self.fifo.pop_front() else {
                break;
            };
            self.freed.remove(&p);
            self.bytes -= l;
            release(r, p, l);
        }
    }
}

/// Turns the sanitizer's memory checking on or off: kernels may touch exactly the bytes of an
/// allocation (not the rest of its 256-byte granule, which a GPU allows and compute-sanitizer
/// reports), and freed memory is quarantined so a use after free is caught.
pub fn set_checked(on: bool) {
    CHECKED.store(on, Ordering::Release);
}

/// Whether the sanitizer's memory checking is on ([`set_checked`]).
pub(crate) fn checked() -> bool {
    CHECKED.load(Ordering::Relaxed)
}

/// The freed (quarantined) allocation containing `addr`, while memory is checked.
pub fn freed_containing(addr: u64) -> Option<Allocation> {
    let q = QUARANTINE.lock();
    let (&base, &size) = q.freed.range(..=addr).next_back()?;
    (addr < base + size).then_some(Allocation { base, size })
}

/// Sets the device memory size (bytes) before the first allocation; the profile decides it.
/// Ignored once the region is reserved.
pub fn set_capacity(bytes: u64) {
    set_devices(1, bytes);
}

/// Sets the number of devices sharing the address space and each one's memory size (bytes),
/// before the first allocation; ignored once the region is reserved. The region is reserved
/// for all of them (address space only: untouched pages cost nothing).
pub fn set_devices(devices: usize, bytes: u64) {
    let mut r = REGION.lock();
    if r.base == 0 {
        let each = bytes.max(ALIGN) / ALIGN * ALIGN;
        r.budget = each;
        r.capacity = each * devices.max(1) as u64;
        r.used_by = vec![0; devices.max(1)];
    }
}

/// The most device memory in use at once so far (allocations and quarantine), in bytes.
pub fn peak_used() -> u64 {
    REGION.lock().peak
}

/// Total and free bytes of device 0, as cuMemGetInfo reports them.
pub fn info() -> (u64, u64) {
    info_of(0)
}

/// Total and free bytes of `device`, as cuMemGetInfo reports them in one of its contexts.
pub fn info_of(device: usize) -> (u64, u64) {
    let r = REGION.lock();
    let used = r.used_by.get(device).copied().unwrap_or(0);
    (r.budget, r.budget.saturating_sub(used))
}

fn reserve(r: &mut Region) -> Result<(), MemError> {
    if r.base != 0 {
        return Ok(());
    }
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing aliases no
    // existing Rust object; NORESERVE means untouched pages cost nothing.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            r.capacity as usize,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(MemError::OutOfMemory);
    }
    r.base = p as u64;
    let (base, cap) = (r.base, r.capacity);
    REGION_END.store(base + cap, Ordering::Release);
    REGION_START.store(base, Ordering::Release);
    r.free.insert(base, cap);
    Ok(())
}

/// Allocates `size` bytes aligned to at least 256 bytes (as cudaMalloc guarantees), charged
/// to device 0 and reachable by every launch (module variables, parameter blocks). A
/// zero-byte request is rejected by the driver before it gets here.
pub fn alloc(size: u64) -> Result<u64, MemError> {
    alloc_charged(0, size)
}

/// Allocates `size` bytes of `device`'s memory: charged to its budget, and reachable only by
/// launches whose [`Reach`] includes it.
pub fn alloc_on(device: usize, size: u64) -> Result<u64, MemError> {
    let p = alloc_charged(device, size)?;
    FENCE.write().insert(p, device);
    Ok(p)
}

/// Allocates `size` bytes charged to `device`'s budget that every launch may reach (managed
/// memory, which migrates to whichever device touches it).
pub fn alloc_shared_on(device: usize, size: u64) -> Result<u64, MemError> {
    alloc_charged(device, size)
}

fn alloc_charged(device: usize, size: u64) -> Result<u64, MemError> {
    let mut r = REGION.lock();
    reserve(&mut r)?;
    let len = size
        .max(1)
        .checked_add(ALIGN - 1)
        .ok_or(MemError::OutOfMemory)?
        / ALIGN
        * ALIGN;
    r.take_budget(device, len)?;
    // First fit: the lowest free range long enough (free ranges start 256-aligned). Quarantined
    // memory is given back before the device is declared full.
    if CHECKED.load(Ordering::Relaxed) && !r.free.values().any(|&l| l >= len) {
        QUARANTINE.lock().release_down_to(&mut r, 0);
    }
    let Some((&start, &flen)) = r.free.iter().find(|(_, &l)| l >= len) else {
        r.uncharge_device(device, len);
        return Err(MemError::OutOfMemory);
    };
    r.free.remove(&start);
    if flen > len {
        r.free.insert(start + len, flen - len);
    }
    r.used += len;
    r.peak = r.peak.max(r.used);
    r.record_owner(start, device);
    MAP.write().insert(start, size.max(1));
    Ok(start)
}

/// Frees the allocation whose base is `ptr`; its pages are returned to the host.
pub fn free(ptr: u64) -> Result<(), MemError> {
    let mut r = REGION.lock();
    if r.base == 0 || ptr < r.base || ptr >= r.base + r.capacity {
        return Err(MemError::NotAllocated);
    }
    if share::is_import(ptr) {
        // Memory mapped from another process goes only through `share::close`.
        return Err(MemError::NotAllocated);
    }
    let size = MAP.write().remove(&ptr).ok_or(MemError::NotAllocated)?;
    FENCE.write().remove(&ptr);
    let len = size.div_ceil(ALIGN) * ALIGN;
    r.used -= len;
    share::freed(ptr, len);
    r.return_budget(ptr, len);
    if CHECKED.load(Ordering::Acquire) {
        let mut q = QUARANTINE.lock();
        q.fifo.push_back((ptr, len));
        q.freed.insert(ptr, size);
        q.bytes += len;
        q.release_down_to(&mut r, QUARANTINE_BYTES);
        return Ok(());
    }
    release(&mut r, ptr, len);
    Ok(())
}

/// Returns `[ptr, ptr + len)` to the free list, coalesced with its neighbours, and its whole
/// pages to the host.
fn release(r: &mut Region, ptr: u64, len: u64) {
    let (mut start, mut l) = (ptr, len);
    if let Some((&ps, &pl)) = r.free.range(..start).next_back() {
        if ps + pl == start {
            r.free.remove(&ps);
            start = ps;
            l += pl;
        }
    }
    if let Some(&nl) = r.free.get(&(start + l)) {
        r.free.remove(&(start + l));
        l += nl;
    }
    r.free.insert(start, l);
    // Only whole pages inside the (coalesced) free range go back: a page shared with a live
    // neighbour must keep its contents.
    let page = 4096u64;
    let (lo, hi) = (start.div_ceil(page) * page, (start + l) / page * page);
    if hi > lo {
        // SAFETY: [lo, hi) lies inside our own mapping and backs no live allocation; DONTNEED
        // on a private anonymous mapping just yields zero pages on the next touch.
        unsafe {
            libc::madvise(
                lo as *mut libc::c_void,
                (hi - lo) as usize,
                libc::MADV_DONTNEED,
            );
        }
    }
}

/// Zero-fills `[ptr, ptr + len)` of a live allocation whose base is `ptr`. Whole pages are
/// given back to the host instead of written (they read as zeros on the next touch, and a large
/// variable that is never written costs no memory); only partial pages are written.
pub fn zero(ptr: u64, len: u64) {
    let page = 4096u64;
    let (lo, hi) = (ptr.div_ceil(page) * page, (ptr + len) / page * page);
    if hi > lo {
        // SAFETY: [lo, hi) lies inside the caller's allocation (whole pages of it, so no other
        // allocation's bytes), in our own private anonymous mapping: DONTNEED yields zero pages.
        unsafe {
            libc::madvise(
                lo as *mut libc::c_void,
                (hi - lo) as usize,
                libc::MADV_DONTNEED,
            );
        }
        // SAFETY: both edges lie inside the allocation `[ptr, ptr + len)`.
        unsafe {
            std::ptr::write_bytes(ptr as *mut u8, 0, (lo - ptr) as usize);
            std::ptr::write_bytes(hi as *mut u8, 0, (ptr + len - hi) as usize);
        }
    } else {
        // SAFETY: as above.
        unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, len as usize) };
    }
}

/// The allocation containing `addr`, if any.
pub fn find(addr: u64) -> Option<Allocation> {
    let m = MAP.read();
    let (&base, &size) = m.range(..=addr).next_back()?;
    (addr < base + size).then_some(Allocation { base, size })
}

/// The allocation nearest to `addr` (which no allocation contains), in the device region:
/// what a report of a wild access names, as compute-sanitizer does ("N bytes after the nearest
/// allocation"). None outside the device region, where the nearest allocation says nothing.
pub fn nearest(addr: u64) -> Option<Allocation> {
    // A little outside the region still names its edge allocations (a read just before the
    // first allocation is an underflow of it).
    const SLACK: u64 = 1 << 16;
    let (start, end) = (
        REGION_START.load(Ordering::Acquire),
        REGION_END.load(Ordering::Acquire),
    );
    if start == end || addr < start.saturating_sub(SLACK) || addr >= end.saturating_add(SLACK) {
        return None;
    }
    // Device allocations only: host registrations beside the region are the program's memory.
    let m = MAP.read();
    let (lo, hi) = (
        addr.clamp(start, end),
        addr.saturating_add(1).clamp(start, end),
    );
    let below = (m.range(start..hi).next_back()).map(|(&b, &s)| (b, s));
    let above = (m.range(lo..end).next()).map(|(&b, &s)| (b, s));
    let gap = |(b, s): (u64, u64)| {
        if addr >= b + s {
            addr - (b + s)
        } else {
            b.saturating_sub(addr)
        }
    };
    let inside = (start..end).contains(&addr);
    [below, above]
        .into_iter()
        .flatten()
        .min_by_key(|&a| gap(a))
        // Outside the region only an allocation at its edge is near.
        .filter(|&a| inside || gap(a) <= SLACK)
        .map(|(base, size)| Allocation { base, size })
}

/// The bytes `[base, end)` a kernel may access through the allocation containing `addr`, if
/// any. A device allocation reaches to the end of its 256-byte granule: cudaMalloc aligns every
/// allocation to 256 bytes (CUDA C++ Programming Guide, "Device Memory Accesses"), so a GPU
/// lets a kernel touch the rest of the granule without a fault, and programs (numba-cuda's own
/// tests among them) write a few elements past a small array and pass on a GPU. The bytes are
/// the allocation's alone here (the next allocation starts at the next granule); copies, pointer
/// attributes and address ranges still use the exact size. Host registrations and mappings
/// reach exactly their size: the bytes after them are not ours.
pub fn find_reach(addr: u64) -> Option<(u64, u64)> {
    let m = MAP.read();
    let (&base, &size) = m.range(..=addr).next_back()?;
    let in_region =
        (REGION_START.load(Ordering::Acquire)..REGION_END.load(Ordering::Acquire)).contains(&base);
    let end = if in_region && !CHECKED.load(Ordering::Relaxed) {
        base + size.next_multiple_of(ALIGN)
    } else {
        base + size
    };
    (addr < end).then_some((base, end))
}

/// Whether `addr` lies in the device region (allocated or not): such an address is device
/// memory, never the program's host memory.
pub fn in_device_region(addr: u64) -> bool {
    (REGION_START.load(Ordering::Acquire)..REGION_END.load(Ordering::Acquire)).contains(&addr)
}

/// True when `[addr, addr + len)` lies inside one allocation.
pub fn contains(addr: u64, len: u64) -> bool {
    find(addr).is_some_and(|a| {
        addr.checked_add(len)
            .is_some_and(|end| end <= a.base + a.size)
    })
}

/// Registers host memory (page-locked host allocations, cuMemHostRegister) so kernels may
/// access it through its host address.
pub fn register_host(base: u64, size: u64) {
    if size > 0 {
        MAP.write().insert(base, size);
    }
}

/// Removes a registration made by [`register_host`].
pub fn unregister_host(base: u64) -> Result<(), MemError> {
    let r = REGION.lock();
    if r.base != 0 && base >= r.base && base < r.base + r.capacity {
        // A device allocation, not a host registration.
        return Err(MemError::NotAllocated);
    }
    drop(r);
    MAP.write()
        .remove(&base)
        .map(|_| ())
        .ok_or(MemError::NotAllocated)
}

// ---- Virtual memory management: address reservations, physical allocations and mappings
// (what cuMemAddressReserve, cuMemCreate, cuMemMap and cuMemSetAccess need).
//
// A reservation is address space beside the device region, mapped PROT_NONE and NORESERVE: it
// costs no memory, and nothing in it is in the allocation map, so a kernel access to it is an
// illegal address (and a host access a fault, as on a GPU). A physical allocation is a memfd,
// so one allocation can be mapped (MAP_SHARED) at several addresses whose views alias, and can
// be handed to another process as a file descriptor. Its size is charged to the device
// capacity by carving an untouched range out of the region's free list, so `info()` and
// `alloc()` see it without any change to how they work.

/// Reserves `size` bytes of address space aligned to `align` (a power of two, or 0 for the host
/// page size), at `hint` when that range is free and aligned. Nothing in it is accessible.
pub fn reserve_address_range(size: u64, align: u64, hint: u64) -> Result<u64, MemError> {
    if size == 0 || (align != 0 && !align.is_power_of_two()) {
        return Err(MemError::NotAllocated);
    }
    let align = align.max(4096);
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    if hint != 0 && hint.is_multiple_of(align) {
        // SAFETY: FIXED_NOREPLACE never replaces an existing mapping; a new PROT_NONE anonymous
        // mapping aliases no Rust object.
        let p = unsafe {
            libc::mmap(
                hint as *mut libc::c_void,
                size as usize,
                libc::PROT_NONE,
                flags | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
        };
        if p != libc::MAP_FAILED {
            if p as u64 == hint {
                return Ok(hint);
            }
            // An old kernel that treats the flag as a plain hint put it elsewhere.
            // SAFETY: we just created this mapping and hand it back whole.
            unsafe { libc::munmap(p, size as usize) };
        }
    }
    let total = size.checked_add(align).ok_or(MemError::OutOfMemory)?;
    // SAFETY: as above, at an address of the kernel's choosing.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            total as usize,
            libc::PROT_NONE,
            flags,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(MemError::OutOfMemory);
    }
    let start = p as u64;
    let base = start.next_multiple_of(align);
    // Trim the slack before and after the aligned range.
    // SAFETY: both pieces lie inside the mapping just created and nothing else uses them.
    unsafe {
        if base > start {
            libc::munmap(start as *mut libc::c_void, (base - start) as usize);
        }
        let end = base + size.next_multiple_of(4096);
        if start + total > end {
            libc::munmap(end as *mut libc::c_void, (start + total - end) as usize);
        }
    }
    Ok(base)
}

/// Gives a reservation's address space back; any mapping in it goes too (the driver unmaps
/// first), and so do their allocation-map entries.
pub fn free_address_range(base: u64, size: u64) -> Result<(), MemError> {
    if base == 0 || size == 0 || !base.is_multiple_of(4096) {
        return Err(MemError::NotAllocated);
    }
    unregister_range(base, size);
    // SAFETY: the caller names a range it reserved with `reserve_address_range`; no Rust object
    // lives there (device memory is only reached through raw pointers).
    if unsafe { libc::munmap(base as *mut libc::c_void, size as usize) } != 0 {
        return Err(MemError::NotAllocated);
    }
    Ok(())
}

/// Takes `len` bytes of the region out of use without registering them (a physical
/// allocation's charge against the device capacity); the range is never touched.
fn charge(device: usize, len: u64) -> Result<u64, MemError> {
    let mut r = REGION.lock();
    reserve(&mut r)?;
    let len = len
        .max(1)
        .checked_next_multiple_of(ALIGN)
        .ok_or(MemError::OutOfMemory)?;
    r.take_budget(device, len)?;
    let Some((&start, &flen)) = r.free.iter().find(|(_, &l)| l >= len) else {
        r.uncharge_device(device, len);
        return Err(MemError::OutOfMemory);
    };
    r.free.remove(&start);
    if flen > len {
        r.free.insert(start + len, flen - len);
    }
    r.used += len;
    r.peak = r.peak.max(r.used);
    r.record_owner(start, device);
    Ok(start)
}

/// Returns a range taken by [`charge`] to the free list.
fn uncharge(start: u64, len: u64) {
    let len = len.max(1).next_multiple_of(ALIGN);
    let mut r = REGION.lock();
    r.used -= len;
    r.return_budget(start, len);
    let (mut s, mut l) = (start, len);
    if let Some((&ps, &pl)) = r.free.range(..s).next_back() {
        if ps + pl == s {
            r.free.remove(&ps);
            s = ps;
            l += pl;
        }
    }
    if let Some(&nl) = r.free.get(&(s + l)) {
        r.free.remove(&(s + l));
        l += nl;
    }
    r.free.insert(s, l);
}

/// A physical allocation: a memfd of `size` bytes (zero-filled), charged to the device
/// capacity while it lives when it was created here (an imported one belongs to its exporter).
/// Mappings share its pages; dropping it closes the descriptor (pages stay while mapped).
#[derive(Debug)]
pub struct Physical {
    fd: std::os::fd::OwnedFd,
    size: u64,
    charged: Option<u64>,
}

impl Physical {
    /// Creates a physical allocation of `size` bytes on device 0.
    pub fn create(size: u64) -> Result<Physical, MemError> {
        Self::create_on(0, size)
    }

    /// Creates a physical allocation of `size` bytes charged to `device`.
    pub fn create_on(device: usize, size: u64) -> Result<Physical, MemError> {
        use std::os::fd::FromRawFd;
        if size == 0 {
            return Err(MemError::NotAllocated);
        }
        let charged = charge(device, size)?;
        // SAFETY: a static NUL-terminated name; the flags are valid for memfd_create.
        let fd = unsafe { libc::memfd_create(c"cuda-shim-physical".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            uncharge(charged, size);
            return Err(MemError::OutOfMemory);
        }
        // SAFETY: memfd_create returned a fresh descriptor that nothing else owns.
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
        // SAFETY: `fd` is a valid memfd; growing it allocates nothing until pages are touched.
        if unsafe { libc::ftruncate(std::os::fd::AsRawFd::as_raw_fd(&fd), size as libc::off_t) }
            != 0
        {
            uncharge(charged, size);
            return Err(MemError::OutOfMemory);
        }
        Ok(Physical {
            fd,
            size,
            charged: Some(charged),
        })
    }

    /// A physical allocation shared through a file descriptor (its size is the file's).
    pub fn from_fd(fd: std::os::fd::OwnedFd) -> Result<Physical, MemError> {
        let file = std::fs::File::from(fd);
        let size = file.metadata().map_err(|_| MemError::NotAllocated)?.len();
        if size == 0 {
            return Err(MemError::NotAllocated);
        }
        Ok(Physical {
            fd: file.into(),
            size,
            charged: None,
        })
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// A new descriptor for the same pages (for sharing with another process or API).
    pub fn share(&self) -> Result<std::os::fd::OwnedFd, MemError> {
        self.fd.try_clone().map_err(|_| MemError::OutOfMemory)
    }
}

impl Drop for Physical {
    fn drop(&mut self) {
        if let Some(start) = self.charged {
            uncharge(start, self.size);
        }
    }
}

/// Maps `size` bytes of `physical` from `offset` at `va` (inside a reservation), not yet
/// accessible: [`set_access`] makes it so. Replaces the reservation's PROT_NONE pages there.
pub fn map_physical(va: u64, size: u64, physical: &Physical, offset: u64) -> Result<(), MemError> {
    use std::os::fd::AsRawFd;
    if !va.is_multiple_of(4096)
        || !offset.is_multiple_of(4096)
        || size == 0
        || offset
            .checked_add(size)
            .is_none_or(|end| end > physical.size)
    {
        return Err(MemError::NotAllocated);
    }
    // SAFETY: the driver maps only into its own reservations (PROT_NONE address space that no
    // Rust object occupies).
    if !unsafe { map_fd_fixed(va, size, physical.fd.as_raw_fd(), offset, libc::PROT_NONE) } {
        return Err(MemError::OutOfMemory);
    }
    Ok(())
}

/// Maps `len` bytes of the descriptor `fd` from `offset` over `[va, va + len)`, shared (views
/// of one memfd alias) and replacing whatever was mapped there; false if mmap failed.
///
/// # Safety
/// `[va, va + len)` must be address space of the device region that nothing the caller does
/// not own is using: its pages are replaced.
pub(crate) unsafe fn map_fd_fixed(va: u64, len: u64, fd: i32, offset: u64, prot: i32) -> bool {
    // SAFETY: the caller's contract; MAP_FIXED replaces exactly [va, va + len).
    let p = unsafe {
        libc::mmap(
            va as *mut libc::c_void,
            len as usize,
            prot,
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd,
            offset as libc::off_t,
        )
    };
    p != libc::MAP_FAILED
}

/// Turns `[va, va + size)` back into a bare reservation (PROT_NONE, no pages, nothing
/// registered). The physical pages stay with their other mappings and descriptors.
pub fn unmap_physical(va: u64, size: u64) -> Result<(), MemError> {
    if !va.is_multiple_of(4096) || size == 0 {
        return Err(MemError::NotAllocated);
    }
    unregister_range(va, size);
    // SAFETY: as in `map_physical`: our own reservation, replaced in place.
    let p = unsafe {
        libc::mmap(
            va as *mut libc::c_void,
            size as usize,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(MemError::OutOfMemory);
    }
    Ok(())
}

/// Makes a mapped range accessible (registered in the allocation map, read-write for the
/// host, which performs the kernels' accesses) or not (PROT_NONE, unregistered).
pub fn set_access(va: u64, size: u64, accessible: bool) -> Result<(), MemError> {
    if !va.is_multiple_of(4096) || size == 0 {
        return Err(MemError::NotAllocated);
    }
    let prot = if accessible {
        libc::PROT_READ | libc::PROT_WRITE
    } else {
        libc::PROT_NONE
    };
    // SAFETY: a mapped range of our own reservation; changing its protection affects no Rust
    // object.
    if unsafe { libc::mprotect(va as *mut libc::c_void, size as usize, prot) } != 0 {
        return Err(MemError::NotAllocated);
    }
    if accessible {
        MAP.write().insert(va, size);
    } else {
        unregister_range(va, size);
    }
    Ok(())
}

/// Removes every allocation-map entry that starts inside `[base, base + size)`.
fn unregister_range(base: u64, size: u64) {
    let mut m = MAP.write();
    let inside: Vec<u64> = m
        .range(base..base.saturating_add(size))
        .map(|(&b, _)| b)
        .collect();
    for b in inside {
        m.remove(&b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_free_find() {
        let a = alloc(100).unwrap();
        assert_eq!(a % 256, 0);
        let b = alloc(1000).unwrap();
        assert!(b >= a + 256);
        assert!(contains(a, 100));
        assert!(!contains(a, 101));
        assert_eq!(
            find(b + 999),
            Some(Allocation {
                base: b,
                size: 1000
            })
        );
        assert_eq!(find(b + 1000), None);
        // Kernels reach the rest of the 256-byte granule (b + 1000 .. b + 1024), not past it.
        assert_eq!(find_reach(a + 100), Some((a, a + 256)));
        assert_eq!(find_reach(b + 1023), Some((b, b + 1024)));
        // (Another test's allocation may start right there.)
        assert!(find_reach(b + 1024).is_none_or(|r| r.0 == b + 1024));
        // SAFETY: a is a live 100-byte allocation of our region.
        unsafe { std::ptr::write_bytes(a as *mut u8, 7, 100) };
        free(a).unwrap();
        assert_eq!(free(a), Err(MemError::NotAllocated));
        assert!(!contains(a, 1));
        free(b).unwrap();
    }

    #[test]
    fn host_registration() {
        let v = [0u8; 64];
        let p = v.as_ptr() as u64;
        register_host(p, 64);
        assert!(contains(p, 64));
        // Host memory reaches exactly its registration: the bytes after it are not ours.
        assert_eq!(find_reach(p + 63), Some((p, p + 64)));
        assert_eq!(find_reach(p + 64), None);
        unregister_host(p).unwrap();
        assert!(!contains(p, 1));
    }

    #[test]
    fn reserve_map_twice_alias_and_access() {
        const G: u64 = 2 << 20;
        let va = reserve_address_range(2 * G, G, 0).unwrap();
        assert_eq!(va % G, 0);
        // Reserved but unmapped: not accessible.
        assert!(!contains(va, 1));
        let phys = Physical::create(G).unwrap();
        assert_eq!(phys.size(), G);
        map_physical(va, G, &phys, 0).unwrap();
        map_physical(va + G, G, &phys, 0).unwrap();
        // Mapped, no access granted yet.
        assert!(!contains(va, 1));
        set_access(va, G, true).unwrap();
        set_access(va + G, G, true).unwrap();
        assert!(contains(va, G) && contains(va + G, G));
        assert!(!contains(va, G + 1), "two mappings are two allocations");
        // SAFETY: both views are mapped read-write above; they alias the same memfd pages.
        unsafe {
            ((va + 4096) as *mut u32).write(0xdead_beef);
            assert_eq!(((va + G + 4096) as *const u32).read(), 0xdead_beef);
        }
        // A shared descriptor sees the same pages.
        let again = Physical::from_fd(phys.share().unwrap()).unwrap();
        assert_eq!(again.size(), G);
        unmap_physical(va + G, G).unwrap();
        assert!(!contains(va + G, 1));
        map_physical(va + G, G, &again, 0).unwrap();
        set_access(va + G, G, true).unwrap();
        // SAFETY: remapped read-write just above.
        assert_eq!(
            unsafe { ((va + G + 4096) as *const u32).read() },
            0xdead_beef
        );
        set_access(va, G, false).unwrap();
        assert!(!contains(va, 1));
        unmap_physical(va, G).unwrap();
        unmap_physical(va + G, G).unwrap();
        drop((phys, again));
        free_address_range(va, 2 * G).unwrap();
    }

    #[test]
    fn physical_allocations_are_charged_to_the_capacity() {
        let (total, _) = info();
        assert_eq!(
            Physical::create(total + ALIGN).unwrap_err(),
            MemError::OutOfMemory
        );
        let p = Physical::create(4 << 20).unwrap();
        // The charge is a range taken from the free list: an allocation never lands in it.
        let start = p.charged.unwrap();
        let a = alloc(100).unwrap();
        assert!(a < start || a >= start + (4 << 20));
        free(a).unwrap();
        drop(p);
        assert_eq!(Physical::create(0).unwrap_err(), MemError::NotAllocated);
    }

    #[test]
    fn each_device_has_its_own_budget() {
        // Devices 7 and 8 are used by no other test of this process.
        let (total, free7) = info_of(7);
        assert_eq!(info_of(8), (total, total));
        let a = alloc_on(7, 1000).unwrap();
        assert_eq!(info_of(7), (total, free7 - 1024));
        assert_eq!(info_of(8), (total, total));
        // More than a device holds fails on that device, whatever the others hold.
        assert_eq!(alloc_on(8, total + 1), Err(MemError::OutOfMemory));
        let p = Physical::create_on(8, 4 << 20).unwrap();
        assert_eq!(info_of(8), (total, total - (4 << 20)));
        drop(p);
        free(a).unwrap();
        assert_eq!(info_of(7), (total, free7));
        assert_eq!(info_of(8), (total, total));
    }

    #[test]
    fn a_launch_reaches_the_devices_it_names() {
        let (d, shared) = (alloc_on(9, 100).unwrap(), alloc_shared_on(9, 100).unwrap());
        let plain = alloc(100).unwrap();
        assert_eq!(device_of(d), Some(9));
        assert!(reaches(EVERY_DEVICE, d) && reaches(1 << 9, d) && !reaches(1 << 2, d));
        // Managed memory and memory of no device are reached by every launch.
        assert!(reaches(1 << 2, shared) && reaches(1 << 2, plain));
        for p in [d, shared, plain] {
            free(p).unwrap();
        }
        assert_eq!(device_of(d), None);
    }

    #[test]
    fn reservation_honours_alignment_and_hint() {
        let align = 64 << 20;
        let a = reserve_address_range(4 << 20, align, 0).unwrap();
        assert_eq!(a % align, 0);
        free_address_range(a, 4 << 20).unwrap();
        // The range just freed is free again: the hint is taken.
        let b = reserve_address_range(4 << 20, align, a).unwrap();
        assert_eq!(b, a);
        free_address_range(b, 4 << 20).unwrap();
        assert!(reserve_address_range(0, 0, 0).is_err());
        assert!(reserve_address_range(4096, 3, 0).is_err());
    }
}
