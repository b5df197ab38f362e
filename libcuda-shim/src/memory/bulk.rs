//! Moving the bytes of a copy. Large copies bypass the cache with non-temporal stores: `memcpy`
//! (glibc's `rep movsb`) ran at a third of memory speed on this project's AMD hosts whenever the
//! destination sits a little past the source modulo 4 KiB (a page-aligned device buffer copied
//! into a `malloc`ed one, which starts 16 bytes into its page: 4.3 GB/s instead of 13), because
//! each load then waits on a store to the same low address bits. Streaming stores do not, and a
//! copy that large would only evict the cache anyway.

/// Asynchronous copies and memsets up to this many bytes run on the calling thread when their
/// stream has nothing queued (`stream::idle`): handing them to the stream's worker and waking
/// it costs tens of microseconds, a hundred times the work, and a test suite's synchronous
/// calls pay that twice. Larger ones stay queued, so the host runs on while they do.
pub const INLINE_UP_TO: usize = 1 << 20;

/// Copies at least this many bytes with streaming stores (a quarter of a typical L3 slice:
/// below it the data is likely read again soon from the cache).
const STREAM_FROM: usize = 4 << 20;

/// Copies `n` bytes from `src` to `dst` as one piece (a row) of a copy of `total` bytes, which
/// decides whether the stores stream; the ranges may overlap.
///
/// # Safety
/// `src` must be valid for reading and `dst` for writing `n` bytes.
pub unsafe fn copy_part(dst: *mut u8, src: *const u8, n: usize, total: usize) {
    let overlap = (dst as usize) < (src as usize).wrapping_add(n)
        && (src as usize) < (dst as usize).wrapping_add(n);
    #[cfg(target_arch = "x86_64")]
    if total >= STREAM_FROM && n >= 64 && !overlap {
        // SAFETY: forwarded; the ranges do not overlap.
        unsafe { stream_copy(dst, src, n) };
        return;
    }
    let _ = overlap;
    // SAFETY: forwarded; `copy` is memmove.
    unsafe { std::ptr::copy(src, dst, n) };
}

/// A forward copy with 16-byte streaming stores (SSE2, in every x86-64): the destination is
/// aligned first, the source is read unaligned.
///
/// # Safety
/// As [`copy_part`], and the ranges do not overlap.
#[cfg(target_arch = "x86_64")]
unsafe fn stream_copy(dst: *mut u8, src: *const u8, n: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    let head = dst.align_offset(16).min(n);
    // SAFETY (whole function): every access is inside the caller's `n` bytes; the stores of the
    // loop are 16-byte aligned (after `head`).
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, head);
        let (d, s) = (dst.add(head), src.add(head));
        let body = (n - head) / 64 * 64;
        let mut i = 0;
        while i < body {
            let a = _mm_loadu_si128(s.add(i) as *const __m128i);
            let b = _mm_loadu_si128(s.add(i + 16) as *const __m128i);
            let c = _mm_loadu_si128(s.add(i + 32) as *const __m128i);
            let e = _mm_loadu_si128(s.add(i + 48) as *const __m128i);
            _mm_stream_si128(d.add(i) as *mut __m128i, a);
            _mm_stream_si128(d.add(i + 16) as *mut __m128i, b);
            _mm_stream_si128(d.add(i + 32) as *mut __m128i, c);
            _mm_stream_si128(d.add(i + 48) as *mut __m128i, e);
            i += 64;
        }
        // Streaming stores are weakly ordered: fence them before the copy counts as done.
        _mm_sfence();
        std::ptr::copy_nonoverlapping(s.add(body), d.add(body), n - head - body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every alignment of both ends and sizes around the streaming threshold and its 64-byte
    /// blocks give the bytes a plain element-by-element copy gives.
    #[test]
    fn copies_every_alignment_exactly() {
        let n = STREAM_FROM + 200;
        let src: Vec<u8> = (0..n + 64).map(|i| (i * 131 + 7) as u8).collect();
        for (so, doff, len) in [
            (0, 0, STREAM_FROM),
            (0, 16, STREAM_FROM + 1),
            (3, 5, STREAM_FROM + 63),
            (17, 0, STREAM_FROM + 64),
            (1, 15, STREAM_FROM + 127),
            (5, 9, 1000),
        ] {
            let mut dst = vec![0xeeu8; n + 64];
            // SAFETY: both ranges are inside their vectors.
            unsafe { copy_part(dst.as_mut_ptr().add(doff), src.as_ptr().add(so), len, len) };
            assert!(dst[..doff].iter().all(|&b| b == 0xee));
            assert!(
                dst[doff..doff + len] == src[so..so + len],
                "{so} {doff} {len}"
            );
            assert!(dst[doff + len..].iter().all(|&b| b == 0xee));
        }
    }

    /// Overlapping ranges move as memmove does.
    #[test]
    fn overlapping_ranges_move() {
        let mut v: Vec<u8> = (0..STREAM_FROM + 100).map(|i| i as u8).collect();
        let want: Vec<u8> = v[..STREAM_FROM].to_vec();
        // SAFETY: both ranges are inside `v`.
        unsafe {
            copy_part(
                v.as_mut_ptr().add(100),
                v.as_ptr(),
                STREAM_FROM,
                STREAM_FROM,
            )
        };
        assert!(v[100..] == want[..]);
    }
}
