//! The device address space. Device pointers are host addresses inside one region reserved
//! (not committed) at the first allocation, so host code can copy with `memcpy` and unified
//! addressing works; pages cost host memory only once touched.
//!
//! Every allocation is recorded so the executor can check each global access and turn a wild
//! pointer into an error report instead of a segfault.

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

/// Sets the device memory size (bytes) before the first allocation; the profile decides it.
pub fn set_capacity(bytes: u64) {
    let _ = bytes;
    todo!("device memory")
}

/// Total and free bytes, as cuMemGetInfo reports them.
pub fn info() -> (u64, u64) {
    todo!("device memory")
}

/// Allocates `size` bytes aligned to at least 256 bytes (as cudaMalloc guarantees).
/// A zero-byte request is rejected by the driver before it gets here.
pub fn alloc(size: u64) -> Result<u64, MemError> {
    let _ = size;
    todo!("device memory")
}

/// Frees the allocation whose base is `ptr`; its pages are returned to the host.
pub fn free(ptr: u64) -> Result<(), MemError> {
    let _ = ptr;
    todo!("device memory")
}

/// The allocation containing `addr`, if any.
pub fn find(addr: u64) -> Option<Allocation> {
    let _ = addr;
    todo!("device memory")
}

/// True when `[addr, addr + len)` lies inside one allocation.
pub fn contains(addr: u64, len: u64) -> bool {
    find(addr).is_some_and(|a| addr.checked_add(len).is_some_and(|end| end <= a.base + a.size))
}

/// Registers host memory (page-locked host allocations, cuMemHostRegister) so kernels may
/// access it through its host address.
pub fn register_host(base: u64, size: u64) {
    let _ = (base, size);
    todo!("device memory")
}

/// Removes a registration made by [`register_host`].
pub fn unregister_host(base: u64) -> Result<(), MemError> {
    let _ = base;
    todo!("device memory")
}
