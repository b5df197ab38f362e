//! Cluster launch control (ISA 9.7.13.17): `clusterlaunchcontrol.try_cancel` takes the next
//! cluster (a CTA, without clusters) that no host thread has started, from the same counter
//! the launch's threads take their work from ([`super::Job`]), so the canceled cluster never
//! runs and no two requests get the same one; the requesting CTA then runs its work itself
//! (CUTLASS's sm100 tile scheduler steals tiles so). The response is written and its mbarrier
//! completed at issue, a valid execution of the asynchronous operation.

use super::bulk::lane_addr;
use super::cta::{shared_offset, Cta, Fault};
use super::race;
use super::regfile::*;
use super::warp::*;
use crate::ir::*;
use crate::sem::addr::cluster_shared_addr;

/// What `clusterlaunchcontrol.try_cancel` asks of the launch.
pub trait ClusterLaunchControl {
    /// Cancels the launch of a cluster that has not started and returns its first CTA's
    /// `ctaid`, or None when every cluster has started (and always in a cooperative launch,
    /// whose clusters are all resident at once).
    fn try_cancel(&self) -> Option<[u32; 3]>;
}

impl Warp {
    /// `Op::ClcTryCancel`: see there.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn clc_try_cancel(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        space: MSpace,
        addr: Addr,
        mbar: Addr,
        multicast: bool,
    ) -> Result<(), Fault> {
        for l in lanes(em) {
            let (at, mb) = (lane_addr(regs, addr, l), lane_addr(regs, mbar, l));
            // Generic addresses must be in the shared window (the ISA leaves others undefined).
            let (Some(at), Some(mb)) = (shared_offset(space, at), shared_offset(space, mb)) else {
                let what = format!(
                    "names a response at {at:#x} or an mbarrier at {mb:#x} outside shared memory"
                );
                return Err(cta.fault_warp_op(self, pc, &what));
            };
            let response = crate::sem::clc::response(cta.clc.try_cancel());
            // With `.multicast::cluster::all`, the same offsets in every CTA of the cluster.
            let targets: Vec<(u64, u64)> = match multicast {
                true => (0..cta.nranks as u64)
                    .map(|r| (cluster_shared_addr(r, at), cluster_shared_addr(r, mb)))
                    .collect(),
                false => vec![(at, mb)],
            };
            for (at, mb) in targets {
                // "The naturally aligned address of the 16-byte wide shared memory location".
                let p = cta.resolve_aligned(self, MSpace::Shared, at, 16, 16, l, pc, true)?;
                cta.race_at(self.id, l, MSpace::Shared, at, 16, race::Access::Write, pc);
                // SAFETY: resolve checked 16 writable bytes at `p`.
                unsafe { std::ptr::copy_nonoverlapping(response.as_ptr(), p, 16) };
                let m = Addr {
                    base: None,
                    off: mb as i64,
                };
                let sixteen = Src::Imm(16);
                self.mbar(
                    cta,
                    regs,
                    pc,
                    1 << l,
                    MbarOp::CompleteTx,
                    MSpace::Shared,
                    m,
                    None,
                    sixteen,
                    sixteen,
                )?;
            }
        }
        Ok(())
    }
}
