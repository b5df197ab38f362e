//! Shared-memory race detection (the sanitizer's racecheck): a shadow of shared memory
//! remembers, per byte, the last write and the last read (thread, instruction, and when it
//! happened). Two accesses to one byte by different threads, at least one a write, that nothing
//! orders are a hazard: read after write, write after read, or write after write. What orders
//! them, as compute-sanitizer's racecheck judges it:
//!
//! - threads of one CTA: a completed CTA barrier, or any change of an mbarrier or cluster
//!   barrier, between them (the CTA's *generation*, `Cta::sync_gen` plus `Cta::epoch`). Where an
//!   mbarrier orders only some warps, races around it may be missed, never invented;
//! - threads of one warp: also a warp synchronisation (`bar.warp.sync`, and the `.sync` warp
//!   collectives, which may order less than this assumes) between them. Since Volta the threads
//!   of a warp are scheduled independently, so code that leans on lockstep execution races:
//!   compute-sanitizer reports these hazards as *warnings* (its severity for hazards of
//!   warp-level programming), the others as *errors*. The lanes of one instruction are not
//!   compared with each other, and two writes only through the reads between them;
//! - threads of different CTAs of a cluster, which reach each other's shared memory
//!   (distributed shared memory): a completed phase of the cluster barrier or a change of an
//!   mbarrier (`ClusterBar::order`, counted for the cluster as a whole); a CTA barrier orders
//!   only its own CTA.
//!
//! A launch with clusters keeps one shadow for all the shared memory of a cluster, which runs
//! on one host thread (`exec::cluster`); a cooperative launch one per CTA, like any other.
//!
//! Atomics are accesses that write, and race with plain writes of other threads (as
//! compute-sanitizer reports an initialisation racing with atomic adds): two atomics never race
//! (the hardware orders them), and neither do an atomic and a plain read, which is how the
//! compare-and-swap loops of the CUDA programming guide start (a stale value fails the swap).
//!
//! An asynchronous copy into or out of shared memory (`cp.async`, bulk and tensor copies) is an
//! access by the thread that issued it, made at issue, before the mbarrier it completes on
//! changes: whoever waits for that mbarrier, or for the copy and then a barrier, is ordered
//! after it.
//!
//! Hazards are counted per pair of instructions, kind and severity, and collected per launch
//! for the driver ([`take_reports`]).

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
    /// A write and a read, nothing ordering them.
    WriteRead,
    /// Two writes, nothing ordering them.
    WriteWrite,
}

/// How serious a hazard is, as compute-sanitizer's racecheck grades it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Threads of different warps (or CTAs): a likely race.
    Error,
    /// Threads of one warp with no warp synchronisation between them: a race under independent
    /// thread scheduling, which warp-synchronous code may have meant.
    Warning,
}

/// What an access does to the bytes it touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// A read-modify-write by an atomic (or reduction) instruction.
    Atomic,
}

impl Access {
    /// A plain store's or load's.
    pub fn of(store: bool) -> Access {
        if store {
            Access::Write
        } else {
            Access::Read
        }
    }
}

/// The hazards between two instructions of one kernel, with one example of each side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceReport {
    pub kernel: String,
    pub kind: HazardKind,
    pub severity: Severity,
    /// The write (for two writes, the earlier): PTX line and instruction, and the thread and
    /// block of one example.
    pub first_line: u32,
    pub first_inst: String,
    pub first_thread: [u32; 3],
    pub first_block: [u32; 3],
    /// The read (for two writes, the later write), likewise.
    pub second_line: u32,
    pub second_inst: String,
    pub second_thread: [u32; 3],
    pub second_block: [u32; 3],
    /// The block whose shared memory the example's bytes are, and their offset in it.
    pub block: [u32; 3],
    pub offset: u64,
    /// Bytes found in hazard between these two instructions, over the launch.
    pub hazards: u64,
}

static REPORTS: Mutex<Vec<RaceReport>> = Mutex::new(Vec::new());

/// The hazards found by launches of `kernel` since the last call, one report per pair of
/// instructions, kind and severity.
pub fn take_reports(kernel: &str) -> Vec<RaceReport> {
    super::take_kernel_reports(&REPORTS, kernel, |r| &r.kernel)
}

/// Who makes an access, and where in the orderings above it stands.
#[derive(Clone, Copy, Debug)]
pub struct Who {
    /// The thread: its CTA's rank in the cluster times the CTA's warps times 32, plus its linear
    /// id in the CTA (so `tid / 32` names its warp).
    pub tid: u32,
    pub pc: u32,
    /// Its CTA's generation.
    pub gen: u32,
    /// The cluster's completed cluster-barrier phases and mbarrier changes
    /// (`ClusterBar::order`): what orders threads of different CTAs.
    pub epoch: u32,
    /// Its warp's count of shared-memory instructions, this one included ([`Shadow::issue`]).
    pub issue: u32,
}

/// Set in [`Acc::tid`] for an atomic's access.
const ATOMIC: u32 = 1 << 31;

/// One access recorded in the shadow: thread (`Who::tid` + 1, 0 = none; [`ATOMIC`] for an
/// atomic), pc, generation, epoch and issue.
#[derive(Clone, Copy, Default)]
struct Acc {
    tid: u32,
    pc: u32,
    gen: u32,
    epoch: u32,
    issue: u32,
}

impl Acc {
    fn of(who: &Who, atomic: bool) -> Acc {
        Acc {
            tid: (who.tid + 1) | if atomic { ATOMIC } else { 0 },
            pc: who.pc,
            gen: who.gen,
            epoch: who.epoch,
            issue: who.issue,
        }
    }

    fn thread(&self) -> u32 {
        (self.tid & !ATOMIC).wrapping_sub(1)
    }

    fn atomic(&self) -> bool {
        self.tid & ATOMIC != 0
    }
}

#[derive(Clone, Copy, Default)]
struct Cell {
    write: Acc,
    read: Acc,
}

/// A pair of racing instructions: (severity, kind, the write's pc, the other access's pc).
type Pair = (Severity, HazardKind, u32, u32);
/// Bytes in hazard, and an example: the write's thread, the other's, the byte.
type Found = (u64, u32, u32, u64);

/// The shadow of the shared memory of a CTA, or of every CTA of a cluster (in rank order,
/// `bytes / ctas` each).
pub struct Shadow {
    cells: Vec<Cell>,
    bytes_per_cta: u64,
    /// Thread ids a CTA spans ([`Who::tid`]): its warps times 32.
    per_cta: u32,
    /// Per warp (by `Who::tid / 32`): its shared-memory instructions so far, and that count
    /// at its last warp synchronisation.
    warps: Vec<(u32, u32)>,
    found: BTreeMap<Pair, Found>,
}

impl Shadow {
    /// The shadow of `ctas` CTAs of `bytes_per_cta` shared bytes and `warps_per_cta` warps.
    pub fn new(bytes_per_cta: usize, ctas: usize, warps_per_cta: u32) -> Shadow {
        Shadow {
            cells: vec![Cell::default(); bytes_per_cta * ctas],
            bytes_per_cta: bytes_per_cta.max(1) as u64,
            per_cta: warps_per_cta * 32,
            warps: vec![(0, 0); warps_per_cta as usize * ctas],
            found: BTreeMap::new(),
        }
    }

    /// Counts a shared-memory instruction of warp `warp` (`Who::tid / 32`): its issue number.
    pub fn issue(&mut self, warp: u32) -> u32 {
        let w = &mut self.warps[warp as usize];
        w.0 = w.0.wrapping_add(1);
        w.0
    }

    /// Warp `warp` synchronised: its lanes' earlier accesses are ordered before their later
    /// ones.
    pub fn warp_sync(&mut self, warp: u32) {
        let w = &mut self.warps[warp as usize];
        w.1 = w.0;
    }

    /// How the earlier access `a` and `who`'s races, if it does.
    fn hazard(&self, a: Acc, who: &Who) -> Option<Severity> {
        if a.tid == 0 || a.thread() == who.tid {
            return None;
        }
        let t = a.thread();
        if t / self.per_cta != who.tid / self.per_cta {
            // Threads of two CTAs of a cluster: only the cluster's barriers order them.
            return (a.epoch == who.epoch).then_some(Severity::Error);
        }
        if a.gen != who.gen {
            return None;
        }
        if t / 32 != who.tid / 32 {
            return Some(Severity::Error);
        }
        // One warp: after its last synchronisation, and not the same instruction.
        let synced = self.warps[(who.tid / 32) as usize].1;
        (a.issue > synced && a.issue != who.issue).then_some(Severity::Warning)
    }

    /// Records an access of `len` bytes at byte `off` of the shadow by `who`, noting hazards
    /// with the accesses recorded before.
    pub fn access(&mut self, off: u64, len: u64, who: &Who, what: Access) {
        let end = (off + len).min(self.cells.len() as u64);
        let me = Acc::of(who, what == Access::Atomic);
        for b in off..end {
            let c = self.cells[b as usize];
            let w = self.hazard(c.write, who);
            let r = self.hazard(c.read, who);
            // Keyed by (severity, kind, the write's pc, the other access's pc), whichever came
            // first.
            let mut note = |s: Severity, kind, first: Acc, second: Acc| {
                let e = self.found.entry((s, kind, first.pc, second.pc)).or_insert((
                    0,
                    first.thread(),
                    second.thread(),
                    b,
                ));
                e.0 += 1;
            };
            // An atomic races with plain writes only: two atomics never race, and a plain
            // read of what atomics update is how a compare-and-swap loop starts.
            let atomic = what == Access::Atomic;
            match what {
                Access::Read => {
                    if let (Some(s), false) = (w, c.write.atomic()) {
                        note(s, HazardKind::WriteRead, c.write, me);
                    }
                    self.cells[b as usize].read = me;
                }
                Access::Write | Access::Atomic => {
                    // Two writes of one warp race only if some lane reads between them, which
                    // is then a read after write: warp exchanges (CUB's) scatter the items they
                    // drop into one discard slot that no lane ever reads.
                    let benign = atomic && c.write.atomic() || w == Some(Severity::Warning);
                    if let (Some(s), false) = (w, benign) {
                        note(s, HazardKind::WriteWrite, c.write, me);
                    }
                    if let (Some(s), false) = (r, atomic) {
                        note(s, HazardKind::WriteRead, me, c.read);
                    }
                    self.cells[b as usize].write = me;
                }
            }
        }
    }

    /// Hands the hazards found to the launch's reports (merged with other CTAs' by pair).
    /// `block(rank)` is the block of the CTA of that rank, `tid3` a thread's (x, y, z) from
    /// its linear id in its CTA.
    pub fn finish(
        &mut self,
        kernel: &str,
        prog: &crate::ir::Program,
        block: impl Fn(u32) -> [u32; 3],
        tid3: impl Fn(u32) -> [u32; 3],
    ) {
        if self.found.is_empty() {
            return;
        }
        let bytes = self.bytes_per_cta;
        let mut all = REPORTS.lock();
        for (&(severity, kind, p1, p2), &(n, t1, t2, at)) in &self.found {
            let (l1, l2) = (&prog.info[p1 as usize], &prog.info[p2 as usize]);
            if let Some(r) = all.iter_mut().find(|r| {
                r.kernel == kernel
                    && r.kind == kind
                    && r.severity == severity
                    && r.first_line == l1.line
                    && r.second_line == l2.line
                    && r.first_inst == l1.name.as_str()
                    && r.second_inst == l2.name.as_str()
            }) {
                r.hazards += n;
                continue;
            }
            let per = self.per_cta;
            all.push(RaceReport {
                kernel: kernel.to_string(),
                kind,
                severity,
                first_line: l1.line,
                first_inst: l1.name.to_string(),
                first_thread: tid3(t1 % per),
                first_block: block(t1 / per),
                second_line: l2.line,
                second_inst: l2.name.to_string(),
                second_thread: tid3(t2 % per),
                second_block: block(t2 / per),
                block: block((at / bytes) as u32),
                offset: at % bytes,
                hazards: n,
            });
        }
        self.found.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(tid: u32, pc: u32, gen: u32, issue: u32) -> Who {
        Who {
            tid,
            pc,
            gen,
            epoch: 0,
            issue,
        }
    }

    #[test]
    fn hazards_need_two_threads_and_one_generation() {
        let mut s = Shadow::new(64, 1, 4);
        // Thread 0 writes bytes 0..4; thread 32 (another warp) reads them: one RAW per byte.
        s.access(0, 4, &who(0, 10, 1, 1), Access::Write);
        s.access(0, 4, &who(32, 11, 1, 1), Access::Read);
        assert_eq!(
            s.found[&(Severity::Error, HazardKind::WriteRead, 10, 11)].0,
            4
        );
        // After a barrier thread 32 reading is no hazard.
        s.access(0, 4, &who(32, 13, 2, 2), Access::Read);
        assert_eq!(s.found.len(), 1);
        // Thread 64 (a third warp) writes what thread 32 read in generation 2: keyed by the
        // write first, like a read after it.
        s.access(2, 1, &who(64, 14, 2, 1), Access::Write);
        assert!(s
            .found
            .contains_key(&(Severity::Error, HazardKind::WriteRead, 14, 13)));
        s.access(2, 1, &who(96, 15, 2, 1), Access::Write);
        assert!(s
            .found
            .contains_key(&(Severity::Error, HazardKind::WriteWrite, 14, 15)));
        // Distinct bytes of one word do not race.
        let mut t = Shadow::new(8, 1, 2);
        t.access(0, 1, &who(0, 1, 1, 1), Access::Write);
        t.access(1, 1, &who(33, 2, 1, 1), Access::Write);
        assert!(t.found.is_empty());
    }

    #[test]
    fn lanes_of_one_warp_race_until_it_synchronises() {
        let mut s = Shadow::new(64, 1, 1);
        // Lanes 0 and 1 of one instruction (one issue) write the same byte: not compared.
        let i = s.issue(0);
        s.access(0, 1, &who(0, 1, 1, i), Access::Write);
        s.access(0, 1, &who(1, 1, 1, i), Access::Write);
        assert!(s.found.is_empty());
        // Lane 2 reads it in a later instruction, no __syncwarp between: a warning.
        let i = s.issue(0);
        s.access(0, 1, &who(2, 2, 1, i), Access::Read);
        assert!(s
            .found
            .contains_key(&(Severity::Warning, HazardKind::WriteRead, 1, 2)));
        // Lane 4 overwrites it: two writes of one warp race only through a read between.
        let i = s.issue(0);
        s.access(0, 1, &who(4, 4, 1, i), Access::Write);
        assert!(s
            .found
            .contains_key(&(Severity::Warning, HazardKind::WriteRead, 4, 2)));
        assert_eq!(s.found.len(), 2);
        // After a warp synchronisation lane 3 writes it: ordered.
        s.warp_sync(0);
        let i = s.issue(0);
        s.access(0, 1, &who(3, 3, 1, i), Access::Write);
        assert_eq!(s.found.len(), 2);
    }

    #[test]
    fn atomics_race_with_plain_writes_only() {
        let mut s = Shadow::new(8, 1, 4);
        s.access(0, 4, &who(0, 1, 1, 1), Access::Atomic);
        s.access(0, 4, &who(32, 2, 1, 1), Access::Atomic);
        // A plain read (a compare-and-swap loop's first) neither.
        s.access(0, 4, &who(64, 3, 1, 1), Access::Read);
        s.access(0, 4, &who(96, 4, 1, 1), Access::Atomic);
        assert!(s.found.is_empty());
        // A plain write races with the atomic before it, and an atomic with it.
        s.access(0, 4, &who(64, 5, 1, 1), Access::Write);
        assert_eq!(
            s.found[&(Severity::Error, HazardKind::WriteWrite, 4, 5)].0,
            4
        );
        s.access(0, 4, &who(0, 6, 1, 1), Access::Atomic);
        assert!(s
            .found
            .contains_key(&(Severity::Error, HazardKind::WriteWrite, 5, 6)));
    }

    #[test]
    fn ctas_of_a_cluster_are_ordered_by_its_barriers_only() {
        // Two CTAs of one warp each: thread 32 is rank 1's thread 0.
        let mut s = Shadow::new(16, 2, 1);
        // Rank 0 writes into rank 1's memory (byte 16 + 0); rank 1 reads it in another
        // generation of its own but the same cluster epoch: a race.
        s.access(16, 4, &who(0, 1, 5, 1), Access::Write);
        s.access(16, 4, &who(32, 2, 9, 1), Access::Read);
        assert_eq!(
            s.found[&(Severity::Error, HazardKind::WriteRead, 1, 2)].0,
            4
        );
        // After a cluster barrier (another epoch): none.
        let mut late = who(32, 3, 9, 2);
        late.epoch = 1;
        s.access(16, 4, &late, Access::Read);
        assert_eq!(s.found.len(), 1);
    }
}
