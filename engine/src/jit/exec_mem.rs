//! Executable memory for compiled code: mapped writable, filled, then made read-only and
//! executable (never both writable and executable), unmapped when the code is dropped.

pub struct ExecMem {
    ptr: *mut u8,
    len: usize,
}

impl ExecMem {
    /// One mapping holding every blob, each at a 64-byte boundary; their offsets.
    pub fn new(blobs: &[Vec<u8>]) -> Option<(ExecMem, Vec<usize>)> {
        let mut offsets = Vec::with_capacity(blobs.len());
        let mut len = 0usize;
        for b in blobs {
            offsets.push(len);
            len = (len + b.len()).next_multiple_of(64);
        }
        let len = len.max(1).next_multiple_of(4096);
        // SAFETY: a fresh anonymous private mapping; checked below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        let ptr = p as *mut u8;
        for (b, &o) in blobs.iter().zip(&offsets) {
            // SAFETY: o + b.len() <= len, inside the mapping.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), ptr.add(o), b.len()) };
        }
        let mem = ExecMem { ptr, len };
        // SAFETY: the mapping made above.
        if unsafe { libc::mprotect(p, len, libc::PROT_READ | libc::PROT_EXEC) } != 0 {
            return None;
        }
        Some((mem, offsets))
    }

    pub fn ptr(&self) -> *const u8 {
        self.ptr
    }
}

impl Drop for ExecMem {
    fn drop(&mut self) {
        // SAFETY: the mapping this value owns; no function of it runs any more (the `Code`
        // owning it is dropped only after every launch using it ended).
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}
