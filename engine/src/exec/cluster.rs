//! Thread-block clusters: the CTAs of one cluster run as one resumable unit on one host thread,
//! taking turns round by round (a round runs every runnable warp of a CTA until it stops), so
//! that `barrier.cluster` can make every thread of the cluster wait for all the others, and a
//! CTA can read, write and do atomics on its peers' shared memory (distributed shared memory,
//! addressed as `ir::CLUSTER_RANK_SHIFT` says) without host atomics: no other host thread ever
//! touches it. Different clusters run in parallel on the worker pool.

use super::cta::{live_lanes, CtaSched, Idle};
use super::warp::Warp;
use crate::ir::MAX_CLUSTER_CTAS;

/// A thread's arrival phase when it has not arrived since its last completed wait.
const NOT_ARRIVED: u32 = u32::MAX;

/// The split barrier of `barrier.cluster.arrive` / `barrier.cluster.wait` (ISA 9.7.13.3): the
/// current phase completes when every non-exited thread of the cluster has arrived in it, and a
/// wait returns once the phase its thread arrived in has completed. Waits poll (a warp whose
/// wait is not satisfied yields and runs the wait again later), as mbarrier waits do.
///
/// Counting: `missing[r]` is the number of CTA `r`'s live threads that have not arrived in the
/// current phase. Arrivals lower it exactly; threads that exit lower it only when the CTA's
/// round ends and it is recounted ([`ClusterBar::recount`]), which can only delay a completion,
/// never make one early.
#[derive(Debug, Default)]
pub struct ClusterBar {
    phase: u32,
    nranks: usize,
    /// Thread slots per CTA (warps times 32).
    slots: usize,
    live: [u32; MAX_CLUSTER_CTAS],
    missing: [u32; MAX_CLUSTER_CTAS],
    /// Per thread of the cluster (`rank * slots + warp * 32 + lane`): the phase it arrived in
    /// last, [`NOT_ARRIVED`] before its first arrival and after each completed wait. Empty
    /// until some thread arrives, so that kernels without `barrier.cluster` pay nothing.
    arrived: Vec<u32>,
    /// Completed phases plus changes of mbarriers in any CTA of the cluster: what orders the
    /// shared-memory accesses of threads of different CTAs for racecheck (`exec::race`). An
    /// arrival alone does not (it orders nothing until the phase completes).
    order: u32,
}

impl ClusterBar {
    /// Resets the barrier for a cluster of `nranks` CTAs of `nthreads` threads each.
    pub fn reset(&mut self, nranks: usize, nthreads: u32) {
        assert!(nranks <= MAX_CLUSTER_CTAS, "cluster of {nranks} CTAs");
        self.phase = 0;
        self.nranks = nranks;
        self.slots = nthreads.div_ceil(32) as usize * 32;
        self.live = [0; MAX_CLUSTER_CTAS];
        self.live[..nranks].fill(nthreads);
        self.missing = self.live;
        self.arrived.clear();
        self.order = 0;
    }

    /// Completed phases and mbarrier changes so far (see the field): for racecheck.
    pub fn order(&self) -> u32 {
        self.order
    }

    /// An mbarrier of the cluster changed (see [`Self::order`]), for racecheck.
    pub fn mbarrier_changed(&mut self) {
        self.order = self.order.wrapping_add(1);
    }

    fn slot(&self, rank: u32, warp: u32, lane: usize) -> usize {
        rank as usize * self.slots + warp as usize * 32 + lane
    }

    /// `barrier.cluster.arrive` by lanes `em` of warp `warp` of CTA `rank`. Err: a lane arrived
    /// twice in one phase, which the ISA forbids ("each thread must arrive at the barrier only
    /// once before the barrier completes"). Completes the phase when it was the last arrival.
    pub fn arrive(&mut self, rank: u32, warp: u32, em: u32) -> Result<(), usize> {
        if self.arrived.is_empty() {
            self.arrived.resize(self.nranks * self.slots, NOT_ARRIVED);
        }
        for l in lanes(em) {
            let i = self.slot(rank, warp, l);
            if self.arrived[i] == self.phase {
                return Err(l);
            }
            self.arrived[i] = self.phase;
        }
        let m = &mut self.missing[rank as usize];
        *m = m.saturating_sub(em.count_ones());
        self.complete_if_ready();
        Ok(())
    }

    /// `barrier.cluster.wait` by lanes `em`: Ok(true) when the phase each of them arrived in
    /// has completed (they may arrive again), Ok(false) when some must go on waiting. Err(lane):
    /// a lane waits without having arrived, which the ISA leaves undefined (it must arrive
    /// first) and which would otherwise wait forever.
    pub fn wait(&mut self, rank: u32, warp: u32, em: u32) -> Result<bool, usize> {
        if self.arrived.is_empty() {
            return Err(em.trailing_zeros() as usize % 32);
        }
        for l in lanes(em) {
            match self.arrived[self.slot(rank, warp, l)] {
                NOT_ARRIVED => return Err(l),
                p if p == self.phase => return Ok(false),
                _ => {}
            }
        }
        for l in lanes(em) {
            let i = self.slot(rank, warp, l);
            self.arrived[i] = NOT_ARRIVED;
        }
        Ok(true)
    }

    /// Recounts CTA `rank`'s live threads and those of them yet to arrive, after its round;
    /// true when that completed the phase (threads that exited were the only ones missing).
    pub fn recount(&mut self, rank: u32, warps: &[Warp]) -> bool {
        if self.arrived.is_empty() {
            return false;
        }
        let (mut live, mut missing) = (0, 0);
        for w in warps {
            let m = live_lanes(w);
            live += m.count_ones();
            for l in lanes(m) {
                missing += (self.arrived[self.slot(rank, w.id, l)] != self.phase) as u32;
            }
        }
        self.live[rank as usize] = live;
        self.missing[rank as usize] = missing;
        self.complete_if_ready()
    }

    fn complete_if_ready(&mut self) -> bool {
        if self.missing[..self.nranks].iter().any(|&m| m > 0) {
            return false;
        }
        self.phase = match self.phase.wrapping_add(1) {
            NOT_ARRIVED => 0,
            p => p,
        };
        self.order = self.order.wrapping_add(1);
        self.missing = self.live;
        true
    }
}

fn lanes(m: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| m >> l & 1 != 0)
}

/// One CTA of a cluster unit.
pub struct Member {
    /// Linear index of the CTA in the grid.
    pub idx: u64,
    pub sched: CtaSched,
    pub regs: Vec<u64>,
    pub local: super::local::LocalMem,
    pub done: bool,
    /// Its completed CTA barriers (`Cta::sync_gen`), kept between turns for racecheck.
    pub sync_gen: u32,
    /// Its Tensor Memory (`Cta::tmem`), kept between turns.
    pub tmem: Option<Box<super::tcgen05::Tmem>>,
}

/// A started cluster (or, in a cooperative launch without clusters, a single CTA): everything
/// it keeps between its turns on a host thread.
pub struct Unit {
    pub members: Vec<Member>,
    /// The shared memory of every member, in rank order (see `cta::Cta::shared`).
    pub shared: Vec<u8>,
    pub cbar: ClusterBar,
    /// Counts mbarrier and cluster-barrier changes in any member: a wait in one CTA is
    /// satisfied by another, so progress is judged for the cluster as a whole.
    pub epoch: u64,
    pub idle: Idle,
    /// Memcheck ended a warp of some member (`exec::memcheck`): the unit ends rather than
    /// deadlocks when the others wait for it.
    pub halted: bool,
    /// Racecheck's shadow of the unit's shared memory (`exec::race`), while races are checked.
    pub race: Option<Box<super::race::Shadow>>,
}

/// What one turn of a unit (a round of each unfinished member) did.
pub enum Turn {
    Finished,
    Pending,
    /// No member progressed for too long, or one could not run at all: the member to report.
    Stuck(usize),
}

impl Unit {
    /// Accounts a turn whose member rounds reported `ran`/`progressed` (any member) and
    /// `stalled` (a member that could not run at all, which no other CTA can unblock: CTA
    /// barriers are the CTA's own).
    pub fn end_turn(&mut self, ran: bool, progressed: bool, stalled: Option<usize>) -> Turn {
        if self.members.iter().all(|m| m.done) {
            return Turn::Finished;
        }
        if let Some(k) = stalled {
            return Turn::Stuck(k);
        }
        if self.idle.update(ran, progressed) {
            let k = self.members.iter().position(|m| !m.done).unwrap_or(0);
            return Turn::Stuck(k);
        }
        Turn::Pending
    }
}
