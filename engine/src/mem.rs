//! The device address space. Device pointers are host addresses inside one region reserved
//! (not committed) at the first allocation, so host code can copy with `memcpy` and unified
//! addressing works; pages cost host memory only once touched.
//!
//! Every allocation is recorded so the executor can check each global access and turn a wild
//! pointer into an error report instead of a segfault.

use parking_lot::{Mutex, RwLock};
use std::collections::BTreeMap;

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
struct Region {
    capacity: u64,
    base: u64,
    /// Free ranges, start -> length, coalesced.
    free: BTreeMap<u64, u64>,
    used: u64,
}

static REGION: Mutex<Region> = Mutex::new(Region {
    capacity: DEFAULT_CAPACITY,
    base: 0,
    free: BTreeMap::new(),
    used: 0,
});

/// Live device allocations and registered host ranges, base -> size. Read on every access that
/// misses a warp's cache, so it is a read-mostly lock separate from the free list.
static MAP: RwLock<BTreeMap<u64, u64>> = RwLock::new(BTreeMap::new());

/// Sets the device memory size (bytes) before the first allocation; the profile decides it.
/// Ignored once the region is reserved.
pub fn set_capacity(bytes: u64) {
    let mut r = REGION.lock();
    if r.base == 0 {
        r.capacity = bytes.max(ALIGN) / ALIGN * ALIGN;
    }
}

/// Total and free bytes, as cuMemGetInfo reports them.
pub fn info() -> (u64, u64) {
    let r = REGION.lock();
    (r.capacity, r.capacity - r.used)
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
    r.free.insert(base, cap);
    Ok(())
}

/// Allocates `size` bytes aligned to at least 256 bytes (as cudaMalloc guarantees).
/// A zero-byte request is rejected by the driver before it gets here.
pub fn alloc(size: u64) -> Result<u64, MemError> {
    let mut r = REGION.lock();
    reserve(&mut r)?;
    let len = size
        .max(1)
        .checked_add(ALIGN - 1)
        .ok_or(MemError::OutOfMemory)?
        / ALIGN
        * ALIGN;
    // First fit: the lowest free range long enough (free ranges start 256-aligned).
    let (&start, &flen) = r
        .free
        .iter()
        .find(|(_, &l)| l >= len)
        .ok_or(MemError::OutOfMemory)?;
    r.free.remove(&start);
    if flen > len {
        r.free.insert(start + len, flen - len);
    }
    r.used += len;
    MAP.write().insert(start, size.max(1));
    Ok(start)
}

/// Frees the allocation whose base is `ptr`; its pages are returned to the host.
pub fn free(ptr: u64) -> Result<(), MemError> {
    let mut r = REGION.lock();
    if r.base == 0 || ptr < r.base || ptr >= r.base + r.capacity {
        return Err(MemError::NotAllocated);
    }
    let size = MAP.write().remove(&ptr).ok_or(MemError::NotAllocated)?;
    let len = size.div_ceil(ALIGN) * ALIGN;
    r.used -= len;
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
    Ok(())
}

/// The allocation containing `addr`, if any.
pub fn find(addr: u64) -> Option<Allocation> {
    let m = MAP.read();
    let (&base, &size) = m.range(..=addr).next_back()?;
    (addr < base + size).then_some(Allocation { base, size })
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
        unregister_host(p).unwrap();
        assert!(!contains(p, 1));
    }
}
