//! Vector loads and stores to memory that other threads see (global, generic), made as one
//! access per lane when the vector is 8 or 16 bytes and aligned to its size, as a GPU makes
//! them: another thread reads either all of a vector a store wrote or none of it.
//!
//! The PTX memory model (ISA 8.x, "Vector Data-types") promises no more than element-wise
//! accesses, but NVIDIA's own libraries rely on the hardware's 16-byte single-copy atomicity:
//! CUB's decoupled look-back (scans, scans by key, reduce by key, run-length encoding, select)
//! packs a tile's status and its value into one 16-byte descriptor written with
//! `st.relaxed.gpu.v2.u64` and polled with `ld.relaxed.gpu.v2.u64`. Copied element by element,
//! a polling tile could see the new status with the old value, and used a stale prefix.

/// Whether an access of `n` elements, `len` bytes in all, is made whole when aligned.
#[inline(always)]
pub fn applies(n: u8, len: u64) -> bool {
    n > 1 && (len == 8 || len == 16)
}

/// Reads `len` (8 or 16) bytes at `p` in one access when `p` is aligned to `len`; `None` when
/// it is not (the caller then reads element by element).
///
/// # Safety
/// `p` must be valid for reading `len` bytes.
#[inline(always)]
pub unsafe fn load(p: *const u8, len: u64) -> Option<[u8; 16]> {
    if !(p as usize).is_multiple_of(len as usize) {
        return None;
    }
    let mut out = [0u8; 16];
    if len == 8 {
        // SAFETY: aligned and valid (caller); other host threads may store here concurrently,
        // which is what the atomic type is for.
        let v = unsafe { std::sync::atomic::AtomicU64::from_ptr(p as *mut u64) }
            .load(std::sync::atomic::Ordering::Relaxed);
        out[..8].copy_from_slice(&v.to_le_bytes());
        return Some(out);
    }
    #[cfg(target_arch = "x86_64")]
    {
        // One aligned 16-byte SSE load (movdqa), which Intel (SDM vol. 3A, "Guaranteed Atomic
        // Operations") and AMD (APM vol. 2, 7.3.2 "Access Atomicity") guarantee atomic on
        // processors with AVX.
        use std::arch::x86_64::{__m128i, _mm_storeu_si128};
        // SAFETY: aligned and valid (caller); volatile keeps it one access.
        let v = unsafe { (p as *const __m128i).read_volatile() };
        // SAFETY: `out` has 16 bytes.
        unsafe { _mm_storeu_si128(out.as_mut_ptr() as *mut __m128i, v) };
        Some(out)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// Writes the first `len` (8 or 16) bytes of `bytes` at `p` in one access when `p` is aligned
/// to `len`; returns false when it is not (the caller then writes element by element).
///
/// # Safety
/// `p` must be valid for writing `len` bytes.
#[inline(always)]
pub unsafe fn store(p: *mut u8, len: u64, bytes: &[u8; 16]) -> bool {
    if !(p as usize).is_multiple_of(len as usize) {
        return false;
    }
    if len == 8 {
        let v = u64::from_le_bytes(bytes[..8].try_into().unwrap());
        // SAFETY: aligned and valid (caller).
        unsafe { std::sync::atomic::AtomicU64::from_ptr(p as *mut u64) }
            .store(v, std::sync::atomic::Ordering::Relaxed);
        return true;
    }
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128};
        // SAFETY: `bytes` has 16 bytes.
        let v = unsafe { _mm_loadu_si128(bytes.as_ptr() as *const __m128i) };
        // SAFETY: aligned and valid (caller); volatile keeps it one access (movdqa).
        unsafe { (p as *mut __m128i).write_volatile(v) };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
