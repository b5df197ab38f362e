//! The sanitizer's initcheck: kernel reads of device memory nothing has written since it was
//! allocated.
//!
//! Instead of a shadow that every writer would have to update (kernel stores of every form,
//! atomics, bulk and tensor copies, the driver's copies and sets, graph nodes, other processes
//! through IPC: missing one would report reads of written memory), the driver fills each new
//! allocation with a pattern ([`poison`]): every aligned 8-byte word holds a value derived from
//! its own address. A global load whose 8-byte words all still hold their pattern read memory
//! nobody wrote; any write changes its word (a write of exactly the word's pattern, one chance
//! in 2^64, is the only way to be taken for "never written"). So nothing is reported that was
//! written; what is missed: a read of unwritten bytes whose word had other bytes written, and
//! reads by instructions other than `ld` (atomics, texture fetches, bulk copies). Memory the
//! program did not allocate uninitialised (module variables, host memory) never holds the
//! pattern.
//!
//! A fresh allocation reads as the pattern, not as zeros: memory that a program (wrongly)
//! expects zeroed differs under this tool, which is what it reports.

use super::cta::Cta;
use crate::ir::MSpace;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

static ON: AtomicBool = AtomicBool::new(false);

/// Turns initcheck on or off for later allocations and launches.
pub fn set_initcheck(on: bool) {
    ON.store(on, Ordering::Release);
}

pub(crate) fn enabled() -> bool {
    ON.load(Ordering::Acquire)
}

/// The pattern of the aligned 8-byte word at `addr` (splitmix64 of its address).
fn pattern(addr: u64) -> u64 {
    let mut z = addr.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fills the words of a new device allocation `[base, base + size)` with their pattern (the
/// allocation's last partial word too: it lies in the allocation's 256-byte granule).
pub fn poison(base: u64, size: u64) {
    if !base.is_multiple_of(8) || !crate::mem::contains(base, size.max(1)) {
        return;
    }
    for w in (base..base + size).step_by(8) {
        // SAFETY: `w` is 8-aligned inside an allocation, whose granule of 256 bytes (its
        // alignment) holds the whole word.
        unsafe { (w as *mut u64).write_volatile(pattern(w)) };
    }
}

/// One uninitialised read, as compute-sanitizer's initcheck reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitReport {
    pub kernel: String,
    pub line: u32,
    /// The PTX instruction (`ld.global.u32`).
    pub inst: String,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    pub size: u64,
    pub addr: u64,
    /// The allocation it lies in.
    pub allocation: Option<crate::mem::Allocation>,
    /// Threads of the launch that made such a read at this instruction.
    pub threads: u64,
}

static REPORTS: Mutex<Vec<InitReport>> = Mutex::new(Vec::new());

/// The uninitialised reads of launches of `kernel` since the last call, one report per
/// instruction and allocation.
pub fn take_reports(kernel: &str) -> Vec<InitReport> {
    super::take_kernel_reports(&REPORTS, kernel, |r| &r.kernel)
}

/// Whether every 8-byte word `[addr, addr + len)` touches still holds its pattern.
fn unwritten(addr: u64, len: u64) -> bool {
    let Some((_, end)) = crate::mem::find_reach(addr) else {
        return false;
    };
    let first = addr & !7;
    let last = (addr + len.max(1) - 1) & !7;
    if last + 8 > end.next_multiple_of(8) {
        return false;
    }
    (first..=last).step_by(8).all(|w| {
        // SAFETY: the word lies in the allocation's reach (checked above), 8-aligned.
        unsafe { (w as *const u64).read_volatile() == pattern(w) }
    })
}

/// Checks the global (or generic) load of `len` bytes at `addrs` by the lanes of `em`, before
/// it reads: reports each lane reading memory never written. Out of line and cold: the
/// interpreter's step function should not grow by it.
#[cold]
#[inline(never)]
pub(super) fn check_load(
    cta: &Cta,
    warp: u32,
    space: MSpace,
    addrs: &[u64; 32],
    em: u32,
    len: u64,
    pc: u32,
) {
    if !matches!(space, MSpace::Global | MSpace::Generic) {
        return;
    }
    for (l, &a) in addrs.iter().enumerate() {
        if em >> l & 1 == 0 || !crate::mem::in_device_region(a) || !unwritten(a, len) {
            continue;
        }
        let info = &cta.prog.info[pc as usize];
        let allocation = crate::mem::find(a);
        let mut all = REPORTS.lock();
        if let Some(r) = all
            .iter_mut()
            .find(|r| r.kernel == cta.kernel && r.line == info.line && r.allocation == allocation)
        {
            r.threads += 1;
            continue;
        }
        all.push(InitReport {
            kernel: cta.kernel.to_string(),
            line: info.line,
            inst: info.name.to_string(),
            block: cta.ctaid,
            thread: cta.tid_pub(warp, l as u32),
            size: len,
            addr: a,
            allocation,
            threads: 1,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisoned_words_read_as_unwritten_until_written() {
        let p = crate::mem::alloc(40).unwrap();
        poison(p, 40);
        assert!(unwritten(p, 4) && unwritten(p + 36, 4) && unwritten(p + 8, 16));
        // SAFETY: inside the 40-byte allocation.
        unsafe { (p as *mut u8).add(9).write(1) };
        assert!(!unwritten(p + 8, 1) && !unwritten(p + 12, 4) && !unwritten(p + 4, 8));
        assert!(unwritten(p, 8) && unwritten(p + 16, 8));
        crate::mem::free(p).unwrap();
    }
}
