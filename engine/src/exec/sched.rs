//! A warp's scheduling state: the reconvergence stack's entries parking at and leaving
//! barriers, `bar.warp.sync` groups, the groups of `.sync` collectives, and mbarrier
//! operations (which may make a warp wait).

use super::cta::{Cta, Fault};
use super::regfile::*;
use super::warp::*;
use crate::ir::*;

impl Warp {
    /// A stack entry that can run while the top one cannot (it is parked at a barrier or waits
    /// on an mbarrier). Going down the stack, entries whose lanes all sit in blocked entries
    /// above (reconvergence points of blocked paths) are passed over; the first entry with
    /// other lanes is either a disjoint sibling path, which can run as it is (`false`), or the
    /// reconvergence point where those other lanes already wait, from which they can go on
    /// alone (`true`: split it). This is independent thread scheduling as far as barriers need
    /// it: lanes that took another path (or left early, as `if (t >= n) return;` does) still
    /// reach the barrier or exit. The search goes on below a call into the caller's paths
    /// (lanes on the other side of the `if` around the call reach the callee's barrier from
    /// their own call site). An entry waiting on a call holds lanes that are in the callee's
    /// entries above it until they return; since the entry that runs shares no lane with
    /// anything above it, the calls it makes and returns from (frames are found through
    /// `Entry::call`, and restore only their own lanes) leave the waiting ones alone.
    pub(super) fn sibling(&self) -> Option<(usize, bool)> {
        let n = self.stack.len();
        let mut blocked = self.stack.last()?.mask;
        for j in (0..n.saturating_sub(1)).rev() {
            let e = &self.stack[j];
            if e.park == NO_PARK && (e.mask == 0 || e.pc == e.rpc) {
                continue;
            }
            if e.park != NO_PARK {
                // (An entry waiting on a call is like any other: its lanes that are in no
                // entry above returned from the callee, and go on with its `CallRet`.)
                blocked |= e.mask;
            } else if e.mask & !blocked == 0 {
                continue;
            } else {
                return Some((j, e.mask & blocked != 0));
            }
        }
        None
    }

    /// Lanes `lanes` of the top entry arrive at a `bar.warp.sync` with membermask `m`. With
    /// independent thread scheduling a thread waits until every non-exited thread of `m`
    /// executed a `bar.warp.sync` with the same mask, wherever it is (lanes of both sides of an
    /// `if` calling a function that syncs the warp, from two call sites). The caller parks the
    /// top entry when [`Warp::warp_waiting`] still holds some of its lanes afterwards; lanes
    /// all on this path, as in converged code, go on at once.
    pub(super) fn warp_arrive(&mut self, m: u32, lanes: u32) {
        match self.wsync.iter_mut().find(|w| w.0 == m) {
            Some(w) => w.1 |= lanes,
            None => self.wsync.push((m, lanes)),
        }
        self.settle_warp_syncs();
    }

    /// Lanes waiting at a `bar.warp.sync` whose membermask has not arrived yet.
    pub(super) fn warp_waiting(&self) -> u32 {
        self.wsync.iter().fold(0, |w, &(_, a)| w | a)
    }

    /// Completes every `bar.warp.sync` whose non-exited members all arrived, and resumes
    /// the parked entries none of whose lanes still wait.
    pub(super) fn settle_warp_syncs(&mut self) {
        let live = self.valid & !self.exited;
        let before = self.wsync.len();
        self.wsync.retain(|&(m, a)| m & live & !a != 0);
        if self.wsync.len() == before {
            return;
        }
        let waiting = self.warp_waiting();
        for e in self.stack.iter_mut() {
            if e.park == WARP_PARK && e.mask & waiting == 0 {
                e.park = NO_PARK;
            }
        }
    }

    /// Splits the top entry so that only its lanes `em` (those whose guard was true) stay on
    /// top, to wait at a barrier; the others go on in an entry of their own below it, at the
    /// same pc and reconvergence point. (Not for an entry that holds a call frame: the frame
    /// belongs to one entry. Such an entry waits whole, as before.)
    pub(super) fn split_top(&mut self, em: u32) {
        let n = self.stack.len();
        let Some(&top) = self.stack.last() else {
            return;
        };
        if top.mask & !em == 0 || top.call != NO_CALL {
            return;
        }
        self.stack[n - 1].mask = em;
        self.stack.insert(
            n - 1,
            Entry {
                mask: top.mask & !em,
                ..top
            },
        );
    }

    /// Puts a runnable path of the warp on top (see `sibling`); false if there is none.
    pub fn rotate(&mut self) -> bool {
        match self.sibling() {
            Some((j, false)) => {
                let e = self.stack.remove(j);
                self.stack.push(e);
                true
            }
            Some((j, true)) => {
                // Lanes of the entry that are in no entry above it wait at its pc: they go on
                // in an entry of their own with the same reconvergence point.
                let mut blocked = 0;
                for e in &self.stack[j + 1..] {
                    if e.park != NO_PARK || (e.mask != 0 && e.pc != e.rpc) {
                        blocked |= e.mask;
                    }
                }
                let e = self.stack[j];
                self.stack[j].mask &= blocked;
                self.stack.push(Entry {
                    mask: e.mask & !blocked,
                    ..e
                });
                true
            }
            None => false,
        }
    }

    /// Whether the warp can run: its top entry is not parked, or a sibling was moved on top.
    pub fn unblock(&mut self, kernel_exit: u32) -> bool {
        // A `bar.warp.sync` whose missing lanes exited meanwhile completes.
        if !self.wsync.is_empty() {
            self.settle_warp_syncs();
        }
        // Entries that reached their reconvergence point are dropped first, as `run` would.
        while self
            .stack
            .last()
            .is_some_and(|t| t.park == NO_PARK && (t.pc == t.rpc || t.mask == 0))
        {
            let t = self.stack.pop().unwrap();
            if t.pc == t.rpc && t.rpc == kernel_exit {
                self.exited |= t.mask;
            }
            if t.call != NO_CALL {
                self.drop_call(t.call, 0);
            }
        }
        match self.stack.last() {
            None => false,
            Some(t) if t.park == NO_PARK => true,
            Some(_) => self.rotate(),
        }
    }

    /// Parks the top entry at barrier `id`; true if another path of the warp can run.
    pub fn park(&mut self, id: u32, kernel_exit: u32) -> bool {
        if let Some(t) = self.stack.last_mut() {
            t.park = id;
        }
        self.unblock(kernel_exit)
    }

    /// Releases every entry parked at barrier `id`. Under synccheck, a partial arrival of
    /// the warp at it that stayed partial is now an error ([`Warp::bar_arrival`]).
    pub fn release(&mut self, id: u32) {
        for e in self.stack.iter_mut() {
            if e.park == id {
                e.park = NO_PARK;
            }
        }
        if self.partial_bar.is_some_and(|p| p.id == id) {
            self.sync_error = self.partial_bar.take();
        }
    }

    /// synccheck's view of lanes `em` arriving at the aligned CTA barrier `id` at `pc`: the
    /// barrier error (a partial arrival that cannot complete) if there is one. A warp whose
    /// live lanes all arrive at once is fine. Lanes that arrive apart are fine too when they
    /// all come to the same instruction before the barrier completes: independent thread
    /// scheduling lets lanes of a path go ahead of lanes waiting on an mbarrier
    /// (`Warp::rotate`), where a GPU's compiler reconverges the warp before the barrier. It is
    /// an error when another barrier instruction comes first (the lanes took two paths to two
    /// barriers) or the barrier completes without the rest ([`Warp::release`]), as with
    /// `if (threadIdx.x < 16) __syncthreads();`.
    pub(super) fn bar_arrival(&mut self, pc: u32, id: u32, em: u32) -> Result<(), PartialBar> {
        let live = self.valid & !self.exited;
        match self.partial_bar {
            Some(mut p) if p.pc == pc && p.id == id => {
                p.arrived |= em;
                self.partial_bar = (p.arrived != p.expected).then_some(p);
                Ok(())
            }
            Some(p) => {
                self.partial_bar = None;
                Err(p)
            }
            None if em == live => Ok(()),
            None => {
                self.partial_bar = Some(PartialBar {
                    pc,
                    id,
                    expected: live,
                    arrived: em,
                });
                Ok(())
            }
        }
    }

    /// The groups of a `.sync` warp collective (`vote`, `match`, `redux`, `shfl`, `elect`,
    /// `bar.warp`): each executing lane names in its `membermask` the lanes it synchronises with,
    /// and computes over those of them that execute the instruction (lanes that exited, or are
    /// not active here, take no part, as the engine runs a converged warp's lanes together;
    /// `bar.warp.sync` then waits for the lanes of its mask on other paths, see `warp_arrive`).
    /// Converged lanes may pass different masks when they form disjoint groups (the tiles of
    /// cooperative groups), so the result of each lane covers its own group only.
    ///
    /// What the ISA leaves undefined is reported as a launch error, never guessed: an executing
    /// lane outside its own mask, and masks that do not split the executing lanes into groups,
    /// i.e. lane A's mask names an executing lane B whose mask (restricted to the executing
    /// lanes) differs from A's (the ISA requires the "same membermask value" from all threads
    /// of a group).
    ///
    /// The common case, one mask for the whole warp (an immediate, or a register equal in every
    /// executing lane), is one group: all executing lanes.
    pub(super) fn groups(
        &self,
        cta: &Cta,
        regs: &[u64],
        pc: u32,
        em: u32,
        mask: Src,
    ) -> Result<Groups, Fault> {
        let uniform = match mask {
            Src::Imm(m) => Some(m as u32),
            Src::Reg(r) => {
                let row = row(regs, r);
                let m0 = row[em.trailing_zeros() as usize % 32] as u32;
                lanes(em).all(|l| row[l] as u32 == m0).then_some(m0)
            }
        };
        if let Some(m) = uniform {
            if em & !m != 0 {
                let l = (em & !m).trailing_zeros() as usize;
                return Err(cta.fault_membermask(self, pc, l, m, em));
            }
            return Ok(Groups::one(em));
        }
        let mut g = Groups { n: 0, g: [0; 32] };
        let mut seen = 0u32;
        for l in lanes(em) {
            let m = get(regs, mask, l) as u32;
            if m >> l & 1 == 0 {
                return Err(cta.fault_membermask(self, pc, l, m, em));
            }
            if seen >> l & 1 != 0 {
                // Lane l is in a group already checked: its mask equals that group's.
                continue;
            }
            let grp = m & em;
            for j in lanes(grp) {
                let mj = get(regs, mask, j) as u32;
                if mj & em != grp {
                    return Err(cta.fault_membermask_mismatch(self, pc, (l, m), (j, mj), em));
                }
            }
            seen |= grp;
            g.g[g.n] = grp;
            g.n += 1;
        }
        Ok(g)
    }

    /// `Op::Mbar` over the active lanes, in lane order. Ok(false): a wait found an incomplete
    /// phase (`try_wait` then leaves its destination alone and runs again later, as a thread
    /// suspended by it would; once the CTA found no progress for long, the system time limit
    /// has passed and it returns False).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mbar(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        op: MbarOp,
        space: MSpace,
        addr: Addr,
        d: Option<Reg>,
        a: Src,
        b: Src,
    ) -> Result<bool, Fault> {
        use crate::sem::mbar as mb;
        let mut done = 0u32;
        let mut vals = [0u64; 32];
        for l in lanes(em) {
            let ad = addr
                .base
                .map_or(0, |r| regs[r as usize * 32 + l])
                .wrapping_add(addr.off as u64);
            let ad = match op {
                MbarOp::Arrive { cluster: true, .. } => peer_masked(cta, space, ad),
                _ => ad,
            };
            let p = cta.mbar_ptr(self, space, ad, l, pc)?;
            // SAFETY: mbar_ptr checked an 8-byte aligned range inside this CTA's shared memory,
            // which only this host thread accesses.
            let w = unsafe { (p as *const u64).read() };
            let (av, bv) = (get(regs, a, l), get(regs, b, l));
            let r = match op {
                MbarOp::Init => mb::init(av as u32).map(|n| (n, 0)),
                MbarOp::Inval => mb::check(w).map(|_| (0, 0)),
                MbarOp::Arrive {
                    drop,
                    tx,
                    no_complete,
                    ..
                } => mb::arrive(w, av as u32, drop, tx.then_some(bv as u32), no_complete)
                    .map(|n| (n, w)),
                MbarOp::ExpectTx => mb::tx(w, av as u32 as i64).map(|n| (n, 0)),
                MbarOp::CompleteTx => mb::tx(w, -(av as u32 as i64)).map(|n| (n, 0)),
                MbarOp::CpAsyncArrive { noinc } => {
                    if noinc {
                        mb::arrive(w, 1, false, None, false).map(|n| (n, 0))
                    } else {
                        mb::check(w).map(|_| (w, 0))
                    }
                }
                MbarOp::Wait { parity, .. } => mb::check(w).map(|_| {
                    let c = if parity {
                        mb::parity_complete(w, av as u32)
                    } else {
                        mb::state_complete(w, av)
                    };
                    if c {
                        done |= 1 << l;
                    }
                    (w, c as u64)
                }),
            };
            let (nw, v) = r.map_err(|what| cta.fault_mbar(self, l, pc, ad, what))?;
            if nw != w {
                // SAFETY: as for the read above.
                unsafe { (p as *mut u64).write(nw) };
                cta.epoch += 1;
                cta.cbar.mbarrier_changed();
            }
            vals[l] = v;
        }
        let wait = matches!(op, MbarOp::Wait { .. });
        if let MbarOp::Wait { try_: true, .. } = op {
            if done != em && !cta.expire_waits {
                self.stack.last_mut().unwrap().pc = pc;
                return Ok(false);
            }
        }
        if let Some(d) = d {
            for l in lanes(em) {
                regs[d as usize * 32 + l] = vals[l];
            }
        }
        Ok(!wait || done == em)
    }
}

/// The mbarrier a `mbarrier.arrive.shared::cluster` at `addr` reaches. On a GPU a CTA's own
/// shared addresses carry its `%cluster_ctarank` from bit 24, and in kernels of CTA pairs
/// CUTLASS clears bit 24 (`Sm100MmaPeerBitMask`) of its own barrier's address so that both
/// CTAs of a pair arrive on the even CTA's (its 2-SM accumulator pipeline's consumer release,
/// `umma_arrive_2x1SM_sm0`). Here a CTA's own addresses have no rank field (`sem::addr`), so in
/// such a kernel ([`Program::cta_pair`]) an own address is taken as that masked one, as the
/// `.cta_group::2` tensor loads take theirs (`exec::bulk`); an odd CTA arriving on its own
/// barrier there must name it through `mapa`.
fn peer_masked(cta: &Cta, space: MSpace, addr: u64) -> u64 {
    use crate::sem::addr::{cluster_shared_addr, CLUSTER_RANK_SHIFT};
    let own = space == MSpace::Shared && (addr >> CLUSTER_RANK_SHIFT) & 0xff == 0;
    if cta.prog.cta_pair && own && cta.rank & 1 == 1 {
        cluster_shared_addr((cta.rank & !1) as u64, addr)
    } else {
        addr
    }
}
