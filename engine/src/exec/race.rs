//! Shared-memory race detection (the sanitizer's racecheck): a shadow of a CTA's shared memory
//! remembers, per byte, the last write and the last read (thread, instruction, and the
//! synchronisation generation it happened in). Two accesses to one byte by threads of different
//! warps, at least one a write, in the same generation (no barrier between them) are a hazard:
//! read after write, write after read, or write after write.
//!
//! A generation ends at every completed CTA barrier and at every change of an mbarrier or
//! cluster barrier (`Cta::sync_generation`), so code that orders its accesses with any of them
//! is not reported (where an mbarrier orders only some warps, races around it may be missed,
//! never invented). Threads of one warp are not compared: what they do between `__syncwarp`s is
//! not modelled. Atomics and asynchronous copies are not tracked.
//!
//! Hazards are counted per pair of instructions and kind, and collected per launch for the
//! driver ([`take_reports`]).

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

static ON: AtomicBool = AtomicBool::new(false);

/// Turns race detection on or off for later launches.
pub fn set_racecheck(on: bool) {
    ON.store(on, Ordering::Release);
}

pub(crate) fn enabled() -> bool {
    ON.load(Ordering::Acquire)
}

/// The kind of a hazard. As compute-sanitizer's racecheck reports them, a write and a read of
/// the same bytes race whichever came first (read after write or write after read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HazardKind {
    /// A write and a read by threads of different warps, with no barrier between them.
    WriteRead,
    /// Two writes by threads of different warps, with no barrier between them.
    WriteWrite,
}

/// The hazards between two instructions of one kernel, with one example of each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceReport {
    pub kernel: String,
    pub kind: HazardKind,
    /// The write (for two writes, the earlier): PTX line and instruction, and the thread of
    /// one example.
    pub first_line: u32,
    pub first_inst: String,
    pub first_thread: [u32; 3],
    /// The read (for two writes, the later write), likewise.
    pub second_line: u32,
    pub second_inst: String,
    pub second_thread: [u32; 3],
    pub block: [u32; 3],
    /// Byte offset in shared memory of the example.
    pub offset: u64,
    /// Bytes found in hazard between these two instructions, over the launch.
    pub hazards: u64,
}

static REPORTS: Mutex<Vec<RaceReport>> = Mutex::new(Vec::new());

/// The hazards found by launches of `kernel` since the last call, one report per pair of
/// instructions and kind.
pub fn take_reports(kernel: &str) -> Vec<RaceReport> {
    super::take_kernel_reports(&REPORTS, kernel, |r| &r.kernel)
}

/// One access recorded in the shadow: thread (linear id + 1, 0 = none), pc, generation.
#[derive(Clone, Copy, Default)]
struct Acc {
    tid: u32,
    pc: u32,
    gen: u32,
}

#[derive(Clone, Copy, Default)]
struct Cell {
    write: Acc,
    read: Acc,
}

/// A pair of racing instructions: (kind, the write's pc, the other access's pc).
type Pair = (HazardKind, u32, u32);
/// Bytes in hazard, and an example: the write's thread, the other's, the shared offset.
type Found = (u64, u32, u32, u64);

/// The shadow of one CTA's shared memory.
pub struct Shadow {
    cells: Vec<Cell>,
    found: BTreeMap<Pair, Found>,
}

impl Shadow {
    pub fn new(bytes: usize) -> Shadow {
        Shadow {
            cells: vec![Cell::default(); bytes],
            found: BTreeMap::new(),
        }
    }

    /// Records an access of `len` bytes at shared offset `off` by thread `tid` (linear) at `pc`
    /// in generation `gen`, noting hazards with accesses of other warps' threads.
    pub fn access(&mut self, off: u64, len: u64, tid: u32, pc: u32, write: bool, gen: u32) {
        let me = tid + 1;
        let warp = tid / 32;
        let other = |a: Acc| a.tid != 0 && a.gen == gen && (a.tid - 1) / 32 != warp;
        let end = (off + len).min(self.cells.len() as u64);
        for b in off..end {
            let c = self.cells[b as usize];
            // Keyed by (kind, the write's pc, the other access's pc), whichever came first.
            let mut note = |kind, w: (u32, u32), o: (u32, u32)| {
                let e = self
                    .found
                    .entry((kind, w.1, o.1))
                    .or_insert((0, w.0, o.0, b));
                e.0 += 1;
            };
            if write {
                if other(c.write) {
                    note(
                        HazardKind::WriteWrite,
                        (c.write.tid - 1, c.write.pc),
                        (tid, pc),
                    );
                }
                if other(c.read) {
                    note(
                        HazardKind::WriteRead,
                        (tid, pc),
                        (c.read.tid - 1, c.read.pc),
                    );
                }
                self.cells[b as usize].write = Acc { tid: me, pc, gen };
            } else {
                if other(c.write) {
                    note(
                        HazardKind::WriteRead,
                        (c.write.tid - 1, c.write.pc),
                        (tid, pc),
                    );
                }
                self.cells[b as usize].read = Acc { tid: me, pc, gen };
            }
        }
    }

    /// Hands the CTA's hazards to the launch's reports (merged with other CTAs' by pair).
    pub fn finish(
        &mut self,
        kernel: &str,
        prog: &crate::ir::Program,
        block: [u32; 3],
        tid3: impl Fn(u32) -> [u32; 3],
    ) {
        if self.found.is_empty() {
            return;
        }
        let mut all = REPORTS.lock();
        for (&(kind, p1, p2), &(n, t1, t2, off)) in &self.found {
            let (l1, l2) = (&prog.info[p1 as usize], &prog.info[p2 as usize]);
            if let Some(r) = all.iter_mut().find(|r| {
                r.kernel == kernel
                    && r.kind == kind
                    && r.first_line == l1.line
                    && r.second_line == l2.line
                    && r.first_inst == l1.name.as_str()
                    && r.second_inst == l2.name.as_str()
            }) {
                r.hazards += n;
                continue;
            }
            all.push(RaceReport {
                kernel: kernel.to_string(),
                kind,
                first_line: l1.line,
                first_inst: l1.name.to_string(),
                first_thread: tid3(t1),
                second_line: l2.line,
                second_inst: l2.name.to_string(),
                second_thread: tid3(t2),
                block,
                offset: off,
                hazards: n,
            });
        }
        self.found.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hazards_need_two_warps_and_one_generation() {
        let mut s = Shadow::new(64);
        // Thread 0 writes bytes 0..4; thread 32 (another warp) reads them: one RAW per byte.
        s.access(0, 4, 0, 10, true, 1);
        s.access(0, 4, 32, 11, false, 1);
        assert_eq!(s.found[&(HazardKind::WriteRead, 10, 11)].0, 4);
        // Thread 1 (the same warp as 0) reading is no hazard; after a barrier neither is 32.
        s.access(0, 4, 1, 12, false, 1);
        s.access(0, 4, 32, 13, false, 2);
        assert_eq!(s.found.len(), 1);
        // Thread 64 (a third warp) writes what thread 32 read in generation 2: keyed by the
        // write first, like a read after it.
        s.access(2, 1, 64, 14, true, 2);
        assert!(s.found.contains_key(&(HazardKind::WriteRead, 14, 13)));
        s.access(2, 1, 96, 15, true, 2);
        assert!(s.found.contains_key(&(HazardKind::WriteWrite, 14, 15)));
        // Distinct bytes of one word do not race.
        let mut t = Shadow::new(8);
        t.access(0, 1, 0, 1, true, 1);
        t.access(1, 1, 33, 2, true, 1);
        assert!(t.found.is_empty());
    }
}
