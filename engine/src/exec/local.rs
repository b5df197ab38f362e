//! The local memory of a CTA's threads: zero at the start of each CTA, and for large areas
//! reserved lazily, so that only the pages a kernel touches take host memory. A kernel may
//! declare hundreds of kilobytes of `.local` per thread (ptxas accepts 600,000 bytes) and use
//! a few; zero-filling the whole area for each CTA would cost its full size in memory and time.

use std::ops::{Deref, DerefMut};

/// Areas up to this size are a plain zero-filled vector; larger ones are mapped on demand.
const LAZY_BYTES: usize = 4 << 20;

#[derive(Default)]
pub struct LocalMem {
    small: Vec<u8>,
    /// An anonymous mapping of `cap` bytes (no swap reserved), of which `len` are in use.
    map: Option<(*mut u8, usize)>,
    len: usize,
}

// SAFETY: the mapping is owned by this value alone, like a Vec's buffer.
unsafe impl Send for LocalMem {}

impl LocalMem {
    /// An area of `len` zero bytes, or None when the host cannot reserve it.
    pub fn zeroed(len: usize) -> Option<LocalMem> {
        let mut m = LocalMem::default();
        m.reset(len).then_some(m)
    }

    /// Makes the area `len` zero bytes; false when the host cannot reserve them. A mapped area
    /// is zeroed by giving its touched pages back (they read as zero again), which costs what
    /// the previous CTA touched, not the area's size.
    pub fn reset(&mut self, len: usize) -> bool {
        if len <= LAZY_BYTES && self.map.is_none() {
            self.small.clear();
            self.small.resize(len, 0);
            self.len = len;
            return true;
        }
        if let Some((p, cap)) = self.map {
            if len <= cap {
                // SAFETY: [p, p + self.len) is inside the mapping; MADV_DONTNEED on a private
                // anonymous mapping makes those pages read as zero.
                unsafe { libc::madvise(p.cast(), self.len, libc::MADV_DONTNEED) };
                self.len = len;
                return true;
            }
            // SAFETY: the mapping of `cap` bytes at p is ours and no slice of it is alive
            // (`reset` takes `&mut self`).
            unsafe { libc::munmap(p.cast(), cap) };
            self.map = None;
        }
        self.small = Vec::new();
        // SAFETY: an anonymous private mapping; the kernel picks the address.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len.max(1),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            self.len = 0;
            return false;
        }
        self.map = Some((p.cast(), len.max(1)));
        self.len = len;
        true
    }
}

impl Deref for LocalMem {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self.map {
            // SAFETY: `len` bytes of our mapping, readable and writable.
            Some((p, _)) => unsafe { std::slice::from_raw_parts(p, self.len) },
            None => &self.small,
        }
    }
}

impl DerefMut for LocalMem {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self.map {
            // SAFETY: as in `deref`; `&mut self` makes the slice unique.
            Some((p, _)) => unsafe { std::slice::from_raw_parts_mut(p, self.len) },
            None => &mut self.small,
        }
    }
}

impl Drop for LocalMem {
    fn drop(&mut self) {
        if let Some((p, cap)) = self.map {
            // SAFETY: our mapping, no longer borrowed.
            unsafe { libc::munmap(p.cast(), cap) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_areas_are_zero_again_after_reset_and_cost_only_touched_pages() {
        // 1 GiB: mapped on demand, never zero-filled.
        let mut m = LocalMem::zeroed(1 << 30).expect("reserve 1 GiB without committing it");
        assert_eq!(m.len(), 1 << 30);
        m[12345] = 7;
        m[(1 << 30) - 1] = 9;
        assert!(m.reset(1 << 30));
        assert_eq!((m[12345], m[(1 << 30) - 1]), (0, 0));
        // Growing remaps; shrinking keeps the mapping.
        assert!(m.reset(2 << 30));
        m[5] = 1;
        assert!(m.reset(8 << 20));
        assert_eq!((m.len(), m[5]), (8 << 20, 0));
        let mut s = LocalMem::zeroed(100).unwrap();
        s[99] = 3;
        assert!(s.reset(200));
        assert!(s.iter().all(|&b| b == 0));
    }
}
