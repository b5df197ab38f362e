//! One CTA: its warps, shared and local memory, barriers, and address resolution with the
//! checks that turn wild accesses into error reports.

use super::cluster::ClusterBar;
use super::warp::{Entry, Stop, Warp, FULL, NO_CALL, NO_PARK};
use crate::ir::*;
use crate::{mem, ExecError, ExecErrorKind};

/// One lane's memory access, as the reports of a bad one describe it.
#[derive(Clone, Copy)]
struct LaneAccess {
    space: MSpace,
    addr: u64,
    len: u64,
    lane: usize,
    pc: u32,
    write: bool,
}

/// A fault with everything the error message needs.
pub type Fault = ExecError;

/// The shared address that `addr` in `space` is: itself in `.shared`, a generic address less
/// the shared window's base; None outside shared memory.
pub fn shared_offset(space: MSpace, addr: u64) -> Option<u64> {
    match space {
        MSpace::Shared => Some(addr),
        MSpace::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) => {
            Some(addr - SHARED_WINDOW)
        }
        _ => None,
    }
}

pub struct Cta<'a> {
    pub prog: &'a Program,
    /// The launch, for `clusterlaunchcontrol.try_cancel`.
    pub clc: &'a dyn super::clc::ClusterLaunchControl,
    /// The device runtime's state of the grid (launches from device code).
    pub devrt: &'a super::devrt::Grid,
    /// The sanitizer's initcheck checks this launch's global loads (`super::initcheck`).
    pub initcheck: bool,
    pub kernel: &'a str,
    pub params: &'a [u8],
    /// The shared memory of every CTA of the cluster, `shared_len` bytes each in rank order
    /// (one CTA's without clusters): a cluster runs on one host thread, so a CTA reaches its
    /// peers' shared memory through `.shared::cluster` addresses as plain memory.
    pub shared: &'a mut [u8],
    /// Bytes of shared memory per CTA.
    pub shared_len: usize,
    /// This CTA's rank in its cluster (`%cluster_ctarank`) and the cluster's CTA count.
    pub rank: u32,
    pub nranks: u32,
    /// The cluster's `barrier.cluster` state.
    pub cbar: &'a mut ClusterBar,
    pub local: &'a mut [u8],
    /// Bytes of local memory per thread: the program's locals, then (when it uses `alloca`)
    /// its stack, whose top is here.
    pub local_bytes: usize,
    /// The per-thread stack limit (`set_stack_size`).
    pub stack_size: u32,
    /// When the launch must have finished (`set_kernel_timeout`): checked after every round.
    pub deadline: Option<std::time::Instant>,
    pub ctaid: [u32; 3],
    pub ntid: [u32; 3],
    pub nctaid: [u32; 3],
    /// CTAs per cluster in each dimension (`[1, 1, 1]` without clusters).
    pub cluster: [u32; 3],
    /// Whether the launch named the cluster shape (`%is_explicit_cluster`).
    pub explicit_cluster: bool,
    pub nwarps: u32,
    pub dyn_bytes: u32,
    pub thread_instructions: u64,
    /// Counts changes of mbarrier objects: a scheduling round in which every warp only found
    /// its mbarrier wait incomplete and this did not move makes no progress.
    pub epoch: u64,
    /// Set after many rounds without progress: `mbarrier.try_wait` returns False instead of
    /// suspending (the ISA's system-dependent time limit).
    pub expire_waits: bool,
    /// Global allocations recently hit by this host thread during the launch (see [`GCache`]).
    pub gcache: &'a mut GCache,
    /// The grid workspace of a cooperative launch (`%envreg1`:`%envreg2`), 0 otherwise.
    pub grid_ws: u64,
    /// The global copy of the parameter block ([`SReg::ParamWindow`]), 0 when not needed.
    pub param_window: u64,
    /// Backward branches a warp takes before it yields (see `warp::SLICE`).
    pub slice: u32,
    /// A seeded schedule's generator for this CTA (see `exec::schedule`): it shuffles the
    /// warps of each round and draws each warp's time slice.
    pub rng: Option<super::schedule::Rng>,
    /// The shadow of this CTA's shared memory while races are checked ([`super::race`]).
    pub race: Option<Box<super::race::Shadow>>,
    /// Completed CTA barriers: with [`Cta::epoch`], what ends a generation for the race check.
    pub sync_gen: u32,
    /// Under memcheck, where the launch keeps its first fault ([`super::memcheck`]): a bad
    /// access is then recorded and skipped, and ends its warp, instead of stopping the launch.
    pub memcheck: Option<&'a parking_lot::Mutex<Option<(u64, ExecError)>>>,
    /// Where skipped accesses go (made at the first).
    pub sink: Option<Box<super::memcheck::Sink>>,
    /// The first bad access of the instruction running, once it has completed for its other
    /// lanes: the warp stops there ([`super::warp::Warp::run`]).
    pub halt: Option<Box<ExecError>>,
    /// The error the running warp returned is its `halt` (the warp ends, the launch goes on).
    pub ending: bool,
    /// Some warp of this CTA was ended by a bad access: waits it leaves unsatisfied end the
    /// CTA instead of being a deadlock.
    pub halted: bool,
    /// Scratch rows for the interpreter (immediates spread to 32 lanes, results that cannot go
    /// straight to their register): here rather than on the stack so that no instruction pays
    /// for zeroing them.
    pub tmp: [Lanes; 4],
    /// The kernel's compiled segments, when the launch runs them ([`crate::jit`]).
    pub jit: Option<&'a crate::jit::Code>,
    /// Whether each segment also runs on the interpreter, the two compared.
    pub verify: bool,
    /// The CTA's Tensor Memory (`tcgen05`), made at its first use.
    pub tmem: Option<Box<super::tcgen05::Tmem>>,
    /// The Tensor Memory of its peer CTA (`%cluster_ctarank ^ 1`), lent for the CTA's turn
    /// in a cluster: what `.cta_group::2` operations reach.
    pub peer_tmem: Option<Box<super::tcgen05::Tmem>>,
}

/// The last few global allocations a host thread's accesses hit, `[lo, hi)`, so that most
/// accesses are checked without taking the allocation map's lock. Several entries, because a
/// kernel typically streams through a few buffers at once (saxpy reads `x` and `y`): with one
/// entry every access of such a loop would miss. It lives for one launch on one worker thread
/// (allocations do not change during a launch except by device `free`, which bumps
/// [`super::sys::heap_generation`]; the cache is dropped at the next CTA when that moved).
#[derive(Clone, Copy, Debug)]
pub struct GCache {
    ent: [(u64, u64); 4],
    next: usize,
    pub generation: u64,
    /// The devices whose memory the launch may reach ([`mem::Reach`]): checked when an
    /// allocation enters the cache, so hits cost nothing more.
    reach: mem::Reach,
}

impl Default for GCache {
    fn default() -> Self {
        GCache::new(0, mem::EVERY_DEVICE)
    }
}

impl GCache {
    /// An empty cache (`(1, 0)` contains no range).
    pub fn new(generation: u64, reach: mem::Reach) -> Self {
        GCache {
            ent: [(1, 0); 4],
            next: 0,
            generation,
            reach,
        }
    }

    /// The cached ranges, for compiled code ([`crate::jit::Ctx::gcache`]).
    #[inline(always)]
    pub fn entries(&self) -> [(u64, u64); crate::jit::GCACHE] {
        self.ent
    }

    /// True when `[lo, end)` lies inside what one allocation lets a kernel reach
    /// ([`mem::find_reach`]; looked up in the map on a miss).
    #[inline]
    pub fn check(&mut self, lo: u64, end: u64) -> bool {
        if self.ent.iter().any(|&(a, b)| lo >= a && end <= b) {
            return true;
        }
        match mem::find_reach(lo) {
            Some((base, reach)) if end <= reach && mem::reaches(self.reach, base) => {
                self.ent[self.next] = (base, reach);
                self.next = (self.next + 1) % self.ent.len();
                true
            }
            _ => false,
        }
    }
}

/// The shape of a warp's accesses (see [`Cta::place_warp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// All 32 lanes at the same address.
    Uniform,
    /// All 32 lanes back to back, lane l at lane 0's address plus l times the access size: a
    /// coalesced access, done as one block copy.
    Contiguous,
    /// Anything else, lane by lane (also every partial warp and every local access).
    Scattered,
}

/// Where a whole warp's access lands once every active lane passed the checks of
/// [`Cta::resolve`] at once: lane `l`'s host pointer is [`Place::ptr`].
#[derive(Clone, Copy, Debug)]
pub enum Place {
    /// Device memory: the address is the host address.
    Global,
    /// Shared memory, the parameter block or local memory: `base + (addr - sub) + l * stride`
    /// (`stride` is the bytes of local memory per thread, 0 otherwise).
    Buf {
        base: *mut u8,
        sub: u64,
        stride: usize,
    },
}

impl Place {
    /// Host pointer of lane `l`'s access at `addr`.
    #[inline(always)]
    pub fn ptr(self, addr: u64, l: usize) -> *mut u8 {
        match self {
            Place::Global => addr as *mut u8,
            // Wrapping: inactive lanes' addresses are computed too (and never used).
            Place::Buf { base, sub, stride } => {
                base.wrapping_add((addr.wrapping_sub(sub) as usize).wrapping_add(l * stride))
            }
        }
    }

    /// Whether the memory belongs to this CTA alone (shared, local, parameters), so that a
    /// read-modify-write needs no host atomic: one host thread runs the whole CTA.
    pub fn private(self) -> bool {
        matches!(self, Place::Buf { .. })
    }
}

/// Rounds without progress after which waits time out, and twice that, a deadlock is reported.
const IDLE_LIMIT: u32 = 2000;

const NSM: u32 = 108;

fn clock_ns() -> u64 {
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos() as u64
}

impl<'a> Cta<'a> {
    fn tid(&self, warp: u32, lane: u32) -> [u32; 3] {
        let t = warp * 32 + lane;
        let (x, y) = (self.ntid[0], self.ntid[1]);
        [t % x, (t / x) % y, t / (x * y)]
    }

    pub fn sreg(&self, s: SReg, warp: u32, lane: u32) -> u64 {
        (match s {
            SReg::Tid(d) => self.tid(warp, lane)[d as usize],
            SReg::Ntid(d) => self.ntid[d as usize],
            SReg::Ctaid(d) => self.ctaid[d as usize],
            SReg::Nctaid(d) => self.nctaid[d as usize],
            SReg::Laneid => lane,
            SReg::Warpid => warp,
            SReg::Nwarpid => self.nwarps,
            SReg::Smid => {
                let lin = self.ctaid[0]
                    + self.nctaid[0] * (self.ctaid[1] + self.nctaid[1] * self.ctaid[2]);
                lin % NSM
            }
            SReg::Nsmid => NSM,
            SReg::Gridid => 1,
            SReg::LanemaskEq => 1 << lane,
            SReg::LanemaskLe => ((2u64 << lane) - 1) as u32,
            SReg::LanemaskLt => (1u32 << lane) - 1,
            SReg::LanemaskGe => FULL << lane,
            SReg::LanemaskGt => ((FULL as u64) << (lane + 1)) as u32,
            SReg::Clock => clock_ns() as u32,
            SReg::Clock64 => return clock_ns(),
            SReg::Globaltimer => {
                return std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64)
            }
            SReg::DynamicSmemSize => self.dyn_bytes,
            SReg::TotalSmemSize | SReg::AggrSmemSize | SReg::ReservedSmemEnd => {
                self.shared_len as u32
            }
            SReg::ClockHi => (clock_ns() >> 32) as u32,
            // The grid workspace address, high half in %envreg1 and low half in %envreg2, as
            // cooperative groups read it (`details::get_grid_workspace`).
            SReg::Envreg(1) => (self.grid_ws >> 32) as u32,
            SReg::Envreg(2) => self.grid_ws as u32,
            SReg::Envreg(_) => 0,
            SReg::ParamWindow => return self.param_window,
            SReg::ClusterCtaid(d) => self.ctaid[d as usize] % self.cluster[d as usize],
            SReg::ClusterNctaid(d) => self.cluster[d as usize],
            SReg::ClusterCtarank => self.rank,
            SReg::ClusterNctarank => self.cluster.iter().product(),
            SReg::Clusterid(d) => self.ctaid[d as usize] / self.cluster[d as usize],
            SReg::Nclusterid(d) => self.nctaid[d as usize] / self.cluster[d as usize],
            SReg::IsExplicitCluster => self.explicit_cluster as u32,
            SReg::Zero => 0,
        }) as u64
    }

    /// `%tid.{x,y,z}` (`dim` 0..3) of the warp's 32 lanes, counted up from lane 0 without a
    /// division per lane.
    pub fn tid_lanes(&self, warp: u32, dim: usize) -> Lanes {
        let rows = self.tid_rows(warp);
        std::array::from_fn(|l| rows[dim * 32 + l] as u64)
    }

    /// `%tid.x`, `.y` and `.z` of the warp's 32 lanes, one row of 32 after the other (what a
    /// compiled segment reading `%tid` gets, `jit::Ctx::tid`).
    #[inline]
    pub fn tid_rows(&self, warp: u32) -> [u32; 96] {
        let mut out = [0; 96];
        let [mut x, mut y, mut z] = self.tid(warp, 0);
        let [nx, ny, _] = self.ntid;
        // Run after run of lanes in one row of the block: x counts up, y and z stay.
        let mut l = 0;
        while l < 32 {
            let run = ((nx - x) as usize).min(32 - l);
            for (i, o) in out[l..l + run].iter_mut().enumerate() {
                *o = x + i as u32;
            }
            out[32 + l..32 + l + run].fill(y);
            out[64 + l..64 + l + run].fill(z);
            l += run;
            (x, y) = (0, y + 1);
            if y == ny {
                (y, z) = (0, z + 1);
            }
        }
        out
    }

    pub fn tid_pub(&self, warp: u32, lane: u32) -> [u32; 3] {
        self.tid(warp, lane)
    }

    fn where_(&self, warp: &Warp, lane: usize, pc: u32) -> String {
        let t = self.tid(warp.id, lane as u32);
        let info = &self.prog.info[pc as usize];
        format!(
            "in kernel '{}' at block ({},{},{}) thread ({},{},{}), PTX line {}",
            self.kernel, self.ctaid[0], self.ctaid[1], self.ctaid[2], t[0], t[1], t[2], info.line
        )
    }

    /// Faults the first active lane whose address is not a multiple of `len` (the 256-bit
    /// accesses, which [`Self::resolve`] and the warp-wide paths check only to 16 bytes).
    pub fn check_aligned(
        &self,
        warp: &Warp,
        addrs: &[u64; 32],
        em: u32,
        len: u64,
        pc: u32,
    ) -> Result<(), Fault> {
        let Some(lane) = (0..32).find(|&l| em & (1 << l) != 0 && !addrs[l].is_multiple_of(len))
        else {
            return Ok(());
        };
        Err(ExecError {
            kind: ExecErrorKind::MisalignedAddress,
            message: format!(
                "misaligned address {:#x} {}: {} of {len} bytes",
                addrs[lane],
                self.where_(warp, lane, pc),
                self.prog.info[pc as usize].name
            ),
            access: None,
        })
    }

    /// Checks an access of `len` bytes at `addr` in `space` by `lane` and returns the host
    /// pointer. Misaligned accesses (an access is aligned to its size, up to 16 bytes) and
    /// accesses outside every allocation or window fault.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn resolve(
        &mut self,
        warp: &mut Warp,
        space: MSpace,
        addr: u64,
        len: u64,
        lane: usize,
        pc: u32,
        write: bool,
    ) -> Result<*mut u8, Fault> {
        let align = len.min(16).next_power_of_two();
        self.resolve_aligned(warp, space, addr, len, align, lane, pc, write)
    }

    /// [`Cta::resolve`] for a range whose alignment is not its size's (`st.bulk` writes any
    /// multiple of 8 bytes at an 8-byte boundary).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn resolve_aligned(
        &mut self,
        warp: &mut Warp,
        space: MSpace,
        addr: u64,
        len: u64,
        align: u64,
        lane: usize,
        pc: u32,
        write: bool,
    ) -> Result<*mut u8, Fault> {
        let access = LaneAccess {
            space,
            addr,
            len,
            lane,
            pc,
            write,
        };
        if !addr.is_multiple_of(align) {
            return self.bad_access(warp, access, true);
        }
        let space = match space {
            MSpace::Generic => {
                if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) {
                    return self.resolve_aligned(
                        warp,
                        MSpace::Shared,
                        addr - SHARED_WINDOW,
                        len,
                        align,
                        lane,
                        pc,
                        write,
                    );
                }
                if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) {
                    return self.resolve_aligned(
                        warp,
                        MSpace::Local,
                        addr - LOCAL_WINDOW,
                        len,
                        align,
                        lane,
                        pc,
                        write,
                    );
                }
                MSpace::Global
            }
            s => s,
        };
        let end = addr.checked_add(len);
        let ok = match (space, end) {
            (_, None) => None,
            (MSpace::Global, Some(end)) => self.gcache.check(addr, end).then_some(addr as *mut u8),
            (MSpace::Shared, Some(_)) => match self.shared_window(addr) {
                Some((base, off)) if off + len <= self.shared_len as u64 => {
                    // SAFETY: base + off + len <= base + shared_len <= shared.len().
                    Some(unsafe { self.shared.as_mut_ptr().add(base + off as usize) })
                }
                _ => None,
            },
            (MSpace::Local, Some(end)) => (end <= self.local_bytes as u64).then(|| {
                let t = (warp.id * 32) as usize + lane;
                // SAFETY: the thread's slice [t*local_bytes, (t+1)*local_bytes) is in `local`
                // and addr+len <= local_bytes.
                unsafe {
                    self.local
                        .as_mut_ptr()
                        .add(t * self.local_bytes + addr as usize)
                }
            }),
            (MSpace::KParam, Some(end)) => (!write && end <= self.params.len() as u64)
                .then(|| self.params[addr as usize..].as_ptr() as *mut u8),
            (MSpace::Generic, _) => unreachable!(),
        };
        match ok {
            Some(p) => Ok(p),
            None => self.bad_access(warp, LaneAccess { space, ..access }, false),
        }
    }

    /// A lane's bad access: its fault, or under memcheck ([`super::memcheck`]) a pointer to
    /// scratch memory the access may touch harmlessly, the fault being recorded and the warp
    /// stopped after this instruction.
    #[cold]
    #[inline(never)]
    fn bad_access(
        &mut self,
        warp: &Warp,
        a: LaneAccess,
        misaligned: bool,
    ) -> Result<*mut u8, Fault> {
        let e = if misaligned {
            self.fault_misaligned(warp, a)
        } else {
            self.fault_outside(warp, a)
        };
        if self.memcheck.is_none() || a.len > super::memcheck::SINK_BYTES as u64 {
            return Err(e);
        }
        if let Some(f) = &e.access {
            super::memcheck::record(f);
        }
        if self.halt.is_none() {
            self.halt = Some(Box::new(e));
        }
        let sink = self.sink.get_or_insert_with(|| {
            Box::new(super::memcheck::Sink([0; super::memcheck::SINK_BYTES]))
        });
        Ok(sink.0.as_mut_ptr())
    }

    /// Keeps the fault that ended a warp under memcheck as the launch's error if it is the
    /// lowest CTA's so far (deterministic whatever the thread count).
    fn keep_fault(&mut self, e: ExecError) {
        let Some(slot) = self.memcheck else {
            return;
        };
        let [x, y, z] = self.ctaid;
        let idx = x as u64 + self.nctaid[0] as u64 * (y as u64 + self.nctaid[1] as u64 * z as u64);
        let mut g = slot.lock();
        if g.as_ref().is_none_or(|(i, _)| idx < *i) {
            *g = Some((idx, super::memcheck::launch_failure(e)));
        }
    }

    /// The parts of a bad access by `lane` at `pc`, for [`ExecError::access`].
    #[cold]
    fn access_fault(
        &self,
        warp: &Warp,
        a: LaneAccess,
        misaligned: bool,
    ) -> Box<crate::AccessFault> {
        let (space, addr, pc) = (a.space, a.addr, a.pc);
        let info = &self.prog.info[pc as usize];
        let global = matches!(space, MSpace::Global | MSpace::Generic);
        let (allocation, freed) = if !global {
            (None, None)
        } else if misaligned {
            (crate::mem::find(addr), None)
        } else {
            match crate::mem::freed_containing(addr) {
                Some(f) => (None, Some(f)),
                None => (crate::mem::nearest(addr), None),
            }
        };
        Box::new(crate::AccessFault {
            kernel: self.kernel.to_string(),
            block: self.ctaid,
            thread: self.tid(warp.id, a.lane as u32),
            ptx_line: info.line,
            inst: info.name.to_string(),
            space: match space {
                MSpace::Global | MSpace::Generic => "global",
                MSpace::Shared => "shared",
                MSpace::Local => "local",
                MSpace::KParam => "param",
            },
            write: a.write,
            atomic: info.name.starts_with("atom") || info.name.starts_with("red"),
            size: a.len,
            addr,
            misaligned,
            allocation,
            freed,
        })
    }

    /// The report of a misaligned access (out of line, as [`Self::fault_outside`]).
    #[cold]
    #[inline(never)]
    fn fault_misaligned(&self, warp: &Warp, a: LaneAccess) -> ExecError {
        ExecError {
            kind: ExecErrorKind::MisalignedAddress,
            message: format!(
                "misaligned address {:#x} {}: {} of {} bytes",
                a.addr,
                self.where_(warp, a.lane, a.pc),
                self.prog.info[a.pc as usize].name,
                a.len
            ),
            access: Some(self.access_fault(warp, a, true)),
        }
    }

    /// The allocation containing `addr` and its device, when that is a device this launch may
    /// not reach ([`mem::Reach`]).
    fn foreign(&self, addr: u64) -> Option<(mem::Allocation, usize)> {
        let a = mem::find(addr)?;
        let device = mem::device_of(a.base)?;
        (!mem::reaches(self.gcache.reach, a.base)).then_some((a, device))
    }

    /// The report of an access outside its space: kept out of line, so the checks that call it
    /// stay small enough to inline into the step function.
    #[cold]
    #[inline(never)]
    fn fault_outside(&self, warp: &Warp, a: LaneAccess) -> ExecError {
        let (space, addr, len, lane, pc) = (a.space, a.addr, a.len, a.lane, a.pc);
        let info = &self.prog.info[pc as usize];
        let access = self.access_fault(warp, a, false);
        let foreign = match space {
            MSpace::Global => self.foreign(addr),
            _ => None,
        };
        let what = if let Some((a, device)) = foreign {
            format!(
                "inside device {device}'s allocation at {:#x} of {} bytes, which this \
                 launch's device may not access (peer access is not enabled)",
                a.base, a.size
            )
        } else {
            match space {
                MSpace::Global if access.freed.is_some() => {
                    let a = access.freed.unwrap();
                    format!(
                        "inside the freed allocation at {:#x} of {} bytes (use after free)",
                        a.base, a.size
                    )
                }
                MSpace::Global => match access.allocation {
                    // As compute-sanitizer's memcheck reports it: where the access is
                    // relative to the nearest allocation.
                    Some(a) if addr >= a.base + a.size => format!(
                        "outside every allocation, {} bytes after the end of the nearest \
                     allocation at {:#x} of {} bytes",
                        addr - (a.base + a.size),
                        a.base,
                        a.size
                    ),
                    Some(a) => format!(
                        "outside every allocation, {} bytes before the nearest allocation at \
                     {:#x} of {} bytes",
                        a.base - addr,
                        a.base,
                        a.size
                    ),
                    None => "outside every allocation".into(),
                },
                MSpace::Shared => "outside the shared memory window".into(),
                MSpace::Local => "outside the local memory window".into(),
                _ => "outside the parameter block".into(),
            }
        };
        ExecError {
            kind: ExecErrorKind::IllegalAddress,
            message: format!(
                "illegal address {addr:#x} {}: {} of {len} bytes {what}",
                self.where_(warp, lane, pc),
                info.name
            ),
            access: Some(access),
        }
    }

    /// The common `ld/st/atom.shared` of a kernel's own `__shared__` data, checked in one
    /// pass: when `space` is Shared and every active lane's address (`addrs`, lanes `em`)
    /// names this CTA (no cluster rank field), is aligned for `len` bytes and its access ends
    /// inside this CTA's shared memory, the host address of shared offset 0 (lane `l`'s
    /// access is that plus `addrs[l]`). None otherwise: the caller goes on to
    /// [`Cta::place_warp`], which reports bad lanes exactly.
    /// (Tiled kernels' shared reads are neither contiguous nor uniform across a warp, e.g. two
    /// rows of a 16-wide tile, and `place_warp`'s general classification cost them dearly.)
    #[inline(always)]
    pub fn own_shared(
        &mut self,
        space: MSpace,
        addrs: &Lanes,
        em: u32,
        len: u64,
    ) -> Option<*mut u8> {
        if space != MSpace::Shared {
            return None;
        }
        // Shared memory is below 2^24 bytes per CTA (`CLUSTER_OFFSET_MASK`), so an address at
        // most `last` has no rank field: it names this CTA. Per lane, only an OR and a
        // subtraction (a u64 compare or max does not vectorize): the OR of the addresses shows
        // any bit at or above 2^24, and for addresses below that, `last - a` has its top bit
        // set exactly when `a` is past `last`.
        let last = (self.shared_len as u64).checked_sub(len)?;
        let (mut past, mut or) = (0u64, 0u64);
        if em == FULL {
            for &a in addrs {
                past |= last.wrapping_sub(a);
                or |= a;
            }
        } else {
            for (l, &a) in addrs.iter().enumerate() {
                // Inactive lanes count as offset 0 (a select: the loop vectorizes).
                let a = if em >> l & 1 != 0 { a } else { 0 };
                past |= last.wrapping_sub(a);
                or |= a;
            }
        }
        let over = or >> CLUSTER_RANK_SHIFT != 0 || past >> 63 != 0;
        let align = len.min(16).next_power_of_two();
        (!over && or & (align - 1) == 0).then(|| {
            self.shared
                .as_mut_ptr()
                .wrapping_add(self.rank as usize * self.shared_len)
        })
    }

    /// Checks a whole warp's access at once: when the active lanes' addresses (`addrs`, lanes
    /// `em`, at least one) are all aligned for `len` bytes, all in one space and, from the
    /// lowest to the highest plus `len`, inside one allocation or window, every lane's
    /// [`Cta::resolve`] would succeed with [`Place::ptr`]. None when that cannot be shown at
    /// once: the caller then resolves lane by lane, which reports the first bad lane exactly.
    /// (Always inlined: into `Warp::run`'s AVX2 build too.)
    #[inline(always)]
    pub fn place_warp(
        &mut self,
        warp_id: u32,
        space: MSpace,
        addrs: &Lanes,
        em: u32,
        len: u64,
        write: bool,
    ) -> Option<(Place, Layout)> {
        let a0 = addrs[em.trailing_zeros() as usize % 32];
        let scattered = |m: u32| {
            let (mut lo, mut hi, mut or) = (u64::MAX, 0u64, 0u64);
            let mut m = m;
            while m != 0 {
                let a = addrs[m.trailing_zeros() as usize];
                m &= m - 1;
                lo = lo.min(a);
                hi = hi.max(a);
                or |= a;
            }
            (lo, hi, or)
        };
        // A full warp's common shapes are recognised in one pass that vectorizes on the
        // x86_64 baseline (u64 min/max does not): all lanes at one address, back to back, or
        // within 2 GiB of lane 0, where min/max of 32-bit offsets does vectorize.
        let (layout, (lo, hi, or)) = if em == FULL {
            let (mut seq, mut same, mut far, mut or) = (0u64, 0u64, 0u64, 0u64);
            let mut e = a0;
            for &a in addrs {
                seq |= a ^ e;
                e = e.wrapping_add(len);
                same |= a ^ a0;
                far |= a.wrapping_sub(a0).wrapping_add(1 << 31) >> 32;
                or |= a;
            }
            if same == 0 {
                (Layout::Uniform, (a0, a0, a0))
            } else if seq == 0 && a0.checked_add(31 * len).is_some() {
                // Every lane at a0 + l*len: aligned when a0 and len are.
                (Layout::Contiguous, (a0, a0 + 31 * len, a0 | len))
            } else if far == 0 {
                let (mut mn, mut mx) = (0i32, 0i32);
                for &a in addrs {
                    let d = a.wrapping_sub(a0) as i32;
                    mn = mn.min(d);
                    mx = mx.max(d);
                }
                // Offsets in i32 are exact; the extremes must not wrap around the address
                // space (then no lane does).
                match (
                    a0.checked_add_signed(mn as i64),
                    a0.checked_add_signed(mx as i64),
                ) {
                    (Some(lo), Some(hi)) => (Layout::Scattered, (lo, hi, or)),
                    _ => (Layout::Scattered, scattered(em)),
                }
            } else {
                (Layout::Scattered, scattered(em))
            }
        } else {
            (Layout::Scattered, scattered(em))
        };
        let align = len.min(16).next_power_of_two();
        if or & (align - 1) != 0 {
            return None;
        }
        // Generic addresses: every lane in the same window (the window is decided by the
        // address alone, as in `resolve`), or every lane below both windows (global).
        let (space, sub) = match space {
            MSpace::Generic => {
                if lo >= SHARED_WINDOW && hi < SHARED_WINDOW + WINDOW_SIZE {
                    (MSpace::Shared, SHARED_WINDOW)
                } else if lo >= LOCAL_WINDOW && hi < LOCAL_WINDOW + WINDOW_SIZE {
                    (MSpace::Local, LOCAL_WINDOW)
                } else if hi < SHARED_WINDOW {
                    (MSpace::Global, 0)
                } else {
                    return None;
                }
            }
            s => (s, 0),
        };
        // In-space offsets of the lowest and highest access, and the end of the highest.
        let (lo, hi) = (lo - sub, hi - sub);
        let end = hi.checked_add(len)?;
        // Local memory is per thread: the same offset in every lane is 32 different places.
        let layout = match space {
            MSpace::Local => Layout::Scattered,
            _ => layout,
        };
        let place = match space {
            MSpace::Global => self.gcache.check(lo, end).then_some(Place::Global),
            // Every lane in the shared memory of one CTA of the cluster: lo and hi have the same
            // rank field, and the highest access ends inside that CTA's window.
            MSpace::Shared => {
                let field = lo & !CLUSTER_OFFSET_MASK;
                let (base, _) = self.shared_window(lo)?;
                (hi & !CLUSTER_OFFSET_MASK == field
                    && (hi - field).checked_add(len)? <= self.shared_len as u64)
                    .then(|| Place::Buf {
                        base: self.shared.as_mut_ptr().wrapping_add(base),
                        sub: sub + field,
                        stride: 0,
                    })
            }
            MSpace::Local => (end <= self.local_bytes as u64).then(|| Place::Buf {
                // Lane l's area starts at (warp * 32 + l) * local_bytes.
                base: self
                    .local
                    .as_mut_ptr()
                    .wrapping_add(warp_id as usize * 32 * self.local_bytes),
                sub,
                stride: self.local_bytes,
            }),
            MSpace::KParam => (!write && end <= self.params.len() as u64).then_some(Place::Buf {
                base: self.params.as_ptr() as *mut u8,
                sub,
                stride: 0,
            }),
            MSpace::Generic => None,
        };
        place.map(|p| (p, layout))
    }

    /// Records the shared-memory accesses of `warp`'s lanes `em` at `addrs` for the race check
    /// (`what` they do, `len` bytes each, the instruction at `pc`): this CTA's shared memory,
    /// or in a cluster any member's. Out-of-range lanes are left to the access's own check.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub fn race_lanes(
        &mut self,
        warp: u32,
        space: MSpace,
        addrs: &Lanes,
        em: u32,
        len: u64,
        what: super::race::Access,
        pc: u32,
    ) {
        let Some(mut shadow) = self.race.take() else {
            return;
        };
        let first = self.rank * self.nwarps * 32 + warp * 32;
        let who = super::race::Who {
            tid: first,
            pc,
            gen: self.sync_gen.wrapping_add(self.epoch as u32),
            epoch: self.cbar.order(),
            issue: shadow.issue(first / 32),
        };
        for (l, &a) in addrs.iter().enumerate() {
            if em >> l & 1 == 0 {
                continue;
            }
            if let Some(at) = self.race_byte(space, a, len) {
                let who = super::race::Who {
                    tid: first + l as u32,
                    ..who
                };
                shadow.access(at, len, &who, what);
            }
        }
        self.race = Some(shadow);
    }

    /// [`Self::race_lanes`] for one lane's access (an asynchronous copy's, which one lane
    /// issues).
    #[allow(clippy::too_many_arguments)]
    pub fn race_at(
        &mut self,
        warp: u32,
        lane: usize,
        space: MSpace,
        addr: u64,
        len: u64,
        what: super::race::Access,
        pc: u32,
    ) {
        if self.race.is_some() {
            let mut addrs = [0; 32];
            addrs[lane] = addr;
            self.race_lanes(warp, space, &addrs, 1 << lane, len, what, pc);
        }
    }

    /// Warp `warp` synchronised (`bar.warp.sync`, a `.sync` collective): for the race check,
    /// its lanes' accesses before are ordered before their accesses after.
    #[inline]
    pub fn race_warp_sync(&mut self, warp: u32) {
        let w = self.rank * self.nwarps + warp;
        if let Some(r) = self.race.as_mut() {
            r.warp_sync(w);
        }
    }

    /// Where a shared access of `len` bytes at `addr` lies in the race check's shadow (the
    /// shared memory of the cluster's CTAs in rank order), if it is shared memory at all.
    fn race_byte(&self, space: MSpace, addr: u64, len: u64) -> Option<u64> {
        let (base, off) = self.shared_window(shared_offset(space, addr)?)?;
        (off + len <= self.shared_len as u64).then_some(base as u64 + off)
    }

    /// This CTA's thread of linear id `t`, as (x, y, z).
    pub fn tid_of(&self, t: u32) -> [u32; 3] {
        self.tid(t / 32, t % 32)
    }

    /// The CTA whose shared memory the shared (`.shared::cluster`) address `addr` names: the
    /// start of its window in `shared` and the offset in it (see [`CLUSTER_RANK_SHIFT`]); None
    /// when the rank field names no CTA of the cluster.
    #[inline(always)]
    fn shared_window(&self, addr: u64) -> Option<(usize, u64)> {
        if addr >> 32 != 0 {
            return None;
        }
        let rank = cluster_rank(addr, self.rank as u64) as u32;
        (rank < self.nranks).then(|| (rank as usize * self.shared_len, addr & CLUSTER_OFFSET_MASK))
    }

    /// Whether the shared address `addr` names the executing CTA (`cluster` false) or any CTA
    /// of the cluster (`cluster` true), by its rank field (see [`CLUSTER_RANK_SHIFT`]).
    pub fn names_cta(&self, addr: u64, cluster: bool) -> bool {
        match (addr >> CLUSTER_RANK_SHIFT) as u32 {
            0 => true,
            f if cluster => f - 1 < self.nranks,
            f => f - 1 == self.rank,
        }
    }

    /// `n` bytes of lane `l`'s local memory at `off` (offsets come from lowering, inside the
    /// thread's local area).
    pub fn local_at(&mut self, warp: u32, l: usize, off: u32, n: usize) -> &mut [u8] {
        let base = (warp as usize * 32 + l) * self.local_bytes + off as usize;
        &mut self.local[base..base + n]
    }

    /// The host pointer of the 8-byte mbarrier object at `addr` (a shared address, or a generic
    /// one in the shared window): anywhere else is undefined in the ISA and reported.
    pub fn mbar_ptr(
        &mut self,
        warp: &mut Warp,
        space: MSpace,
        addr: u64,
        lane: usize,
        pc: u32,
    ) -> Result<*mut u8, Fault> {
        match shared_offset(space, addr) {
            Some(o) => self.resolve(warp, MSpace::Shared, o, 8, lane, pc, true),
            None => Err(self.fault_mbar(
                warp,
                lane,
                pc,
                addr,
                "the address is not in the shared memory window",
            )),
        }
    }

    pub fn fault_mbar(&self, warp: &Warp, lane: usize, pc: u32, addr: u64, what: &str) -> Fault {
        let info = &self.prog.info[pc as usize];
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!(
                "{} on the mbarrier object at {addr:#x} {}: {what}",
                info.name,
                self.where_(warp, lane, pc)
            ),
            access: None,
        }
    }

    pub fn fault_cluster_bar(&self, warp: &Warp, pc: u32, lane: usize, what: &str) -> Fault {
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!(
                "barrier.cluster: a thread {what} {}",
                self.where_(warp, lane, pc)
            ),
            access: None,
        }
    }

    /// Running past the per-thread stack: an illegal address, as on a GPU, where the frame
    /// lands outside the thread's local window (cudaErrorIllegalAddress at synchronisation,
    /// measured on an H100 with driver 580.159: scripts/ground-truth/results/sanitizer-h100.txt,
    /// plain run of `stack_overflow`); not CUDA_ERROR_HARDWARE_STACK_ERROR, which is the warp's
    /// hardware call stack.
    pub fn fault_stack(&self, warp: &Warp, pc: u32, lane: usize, what: &str) -> Fault {
        ExecError {
            kind: ExecErrorKind::IllegalAddress,
            message: format!(
                "stack overflow {}: {what} (the limit is {} bytes per thread; raise it with \
                 cudaLimitStackSize / engine::set_stack_size)",
                self.where_(warp, lane, pc),
                self.stack_size
            ),
            access: None,
        }
    }

    pub fn fault_membermask(
        &self,
        warp: &Warp,
        pc: u32,
        lane: usize,
        mask: u32,
        active: u32,
    ) -> Fault {
        let info = &self.prog.info[pc as usize];
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!(
                "{} executed by a thread outside its membermask {mask:#010x} (active lanes \
                 {active:#010x}; undefined behaviour in the ISA) {}",
                info.name,
                self.where_(warp, lane, pc)
            ),
            access: None,
        }
    }

    /// Lane `a` names in its membermask an executing lane `b` whose mask differs (over the
    /// executing lanes): the lanes do not form disjoint groups, which the ISA leaves undefined.
    pub fn fault_membermask_mismatch(
        &self,
        warp: &Warp,
        pc: u32,
        (la, ma): (usize, u32),
        (lb, mb): (usize, u32),
        active: u32,
    ) -> Fault {
        let info = &self.prog.info[pc as usize];
        let tb = self.tid(warp.id, lb as u32);
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!(
                "{} with inconsistent membermasks: lane {la} passes {ma:#010x}, which names lane \
                 {lb} (thread ({},{},{})), but lane {lb} passes {mb:#010x} (active lanes \
                 {active:#010x}; threads of a group must pass the same membermask, anything \
                 else is undefined behaviour in the ISA) {}",
                info.name,
                tb[0],
                tb[1],
                tb[2],
                self.where_(warp, la, pc)
            ),
            access: None,
        }
    }

    pub fn fault_bad_call(&self, warp: &Warp, pc: u32, lane: usize, addr: u64) -> Fault {
        ExecError {
            kind: ExecErrorKind::IllegalAddress,
            message: format!(
                "indirect call to {addr:#x}, which is no function of a matching prototype {}",
                self.where_(warp, lane, pc)
            ),
            access: None,
        }
    }

    /// A barrier error under synccheck (see `exec::synccheck`): recorded for the sanitizer's
    /// report, and the launch fails with CUDA_ERROR_LAUNCH_FAILED as under compute-sanitizer.
    pub fn fault_sync(
        &self,
        warp: &Warp,
        pc: u32,
        lanes: u32,
        kind: super::synccheck::SyncErrorKind,
    ) -> Fault {
        let lane = lanes.trailing_zeros() as usize % 32;
        let info = &self.prog.info[pc as usize];
        super::synccheck::record(super::synccheck::SyncReport {
            kernel: self.kernel.to_string(),
            kind,
            line: info.line,
            inst: info.name.to_string(),
            thread: self.tid(warp.id, lane as u32),
            block: self.ctaid,
            threads: lanes.count_ones(),
        });
        let what = match kind {
            super::synccheck::SyncErrorKind::DivergentThreads => "divergent thread(s) in warp",
            super::synccheck::SyncErrorKind::InvalidArguments => {
                "a thread outside the membermask of its warp barrier"
            }
        };
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!(
                "barrier error (synccheck): {what} {}",
                self.where_(warp, lane, pc)
            ),
            access: None,
        }
    }

    pub fn fault_bad_texture(&self, warp: &Warp, pc: u32, lane: usize, handle: u64) -> Fault {
        ExecError {
            kind: ExecErrorKind::IllegalAddress,
            message: format!(
                "texture fetch through {handle:#x}, which is no live texture object (or its \
                 memory was freed) {}",
                self.where_(warp, lane, pc)
            ),
            access: None,
        }
    }

    pub fn fault_internal(&self, warp: &Warp, pc: u32, what: &str) -> Fault {
        let lane = warp
            .stack
            .last()
            .map_or(0, |e| e.mask.trailing_zeros() as usize % 32);
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!("internal error {}: {what}", self.where_(warp, lane, pc)),
            access: None,
        }
    }

    /// A warp-wide instruction run in a way the ISA leaves undefined (`what`).
    pub fn fault_warp_op(&self, warp: &Warp, pc: u32, what: &str) -> Fault {
        let info = &self.prog.info[pc as usize];
        let lane = warp.valid.trailing_zeros() as usize % 32;
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!("{} {what} {}", info.name, self.where_(warp, lane, pc)),
            access: None,
        }
    }

    /// [`Cta::fault_warp_op`] reported as an illegal instruction (what a GPU stops a
    /// malformed operation with).
    pub fn fault_illegal_op(&self, warp: &Warp, pc: u32, what: &str) -> Fault {
        ExecError {
            kind: ExecErrorKind::IllegalInstruction,
            ..self.fault_warp_op(warp, pc, what)
        }
    }

    pub fn fault_trap(&self, warp: &Warp, pc: u32, mask: u32) -> Fault {
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!(
                "trap {}",
                self.where_(warp, mask.trailing_zeros() as usize, pc)
            ),
            access: None,
        }
    }
}

/// The 16 named barriers of a CTA.
#[derive(Default)]
struct Bars {
    arrived: [u32; 16],
    expected: [Option<u32>; 16],
    /// `barrier.red`: arrived threads with a true predicate.
    truecnt: [u32; 16],
    /// `barrier.red` destinations to write at completion: (barrier, warp, lanes, op, register).
    red: Vec<(u32, usize, u32, BarRed, Reg)>,
    /// Bit k set when `arrived[k] > 0`.
    pending: u16,
    /// Threads that have not finished or exited, per warp and in all: what a barrier without
    /// thread count waits for. Kept up to date by [`Bars::track`] after each change of a warp
    /// rather than recounted at every arrival.
    contrib: Vec<u32>,
    live: u32,
}

impl Bars {
    fn arrive(&mut self, id: u32, n: u32) {
        self.arrived[id as usize] += n;
        if n > 0 {
            self.pending |= 1 << id;
        }
    }

    /// Recounts warp `w`'s live threads after it ran, parked or unblocked.
    fn track(&mut self, w: usize, warp: &Warp) {
        let n = live_lanes(warp).count_ones();
        self.live = self.live - self.contrib[w] + n;
        self.contrib[w] = n;
    }

    /// Completes every barrier whose expected threads have arrived: parked lanes resume and
    /// `barrier.red` destinations receive the reduction. A warp that finished or exited lanes
    /// lowers the count a barrier without thread count waits for.
    /// Returns how many barriers completed.
    fn release_ready(&mut self, warps: &mut [Warp], regs: &mut [u64], per: usize) -> u32 {
        let live = self.live;
        let mut released = 0;
        // Only barriers some thread arrived at (bit k: arrived[k] > 0).
        let mut pend = self.pending;
        while pend != 0 {
            let id = pend.trailing_zeros();
            pend &= pend - 1;
            let k = id as usize;
            let need = self.expected[k].unwrap_or(live).min(live.max(1));
            if self.arrived[k] < need {
                continue;
            }
            let (n, t) = (self.arrived[k], self.truecnt[k]);
            self.arrived[k] = 0;
            self.pending &= !(1 << id);
            self.expected[k] = None;
            self.truecnt[k] = 0;
            released += 1;
            for w in warps.iter_mut() {
                w.release(id);
            }
            self.red.retain(|&(b, w, mask, op, d)| {
                if b != id {
                    return true;
                }
                let v = match op {
                    BarRed::Popc => t as u64,
                    BarRed::And => (t == n) as u64,
                    BarRed::Or => (t > 0) as u64,
                };
                let base = w * per + d as usize * 32;
                for l in 0..32 {
                    if mask >> l & 1 != 0 {
                        regs[base + l] = v;
                    }
                }
                false
            });
        }
        released
    }
}

/// The scheduling state of a CTA between rounds: its warps and barriers. Kept apart from
/// [`Cta`] so that a cluster or cooperative launch can stop a CTA after a round and resume it
/// later (all CTA state is explicit, see `exec`).
pub struct CtaSched {
    warps: Vec<Warp>,
    bars: Bars,
}

/// The threads of `warp` that have neither finished nor exited.
pub fn live_lanes(warp: &Warp) -> u32 {
    if warp.stack.is_empty() {
        0
    } else {
        warp.valid & !warp.exited
    }
}

/// Sets up a CTA's warps (all threads at the entry) and sizes its register file `regs`.
pub fn start_cta(cta: &Cta, regs: &mut Vec<u64>) -> CtaSched {
    let prog = cta.prog;
    let nthreads = cta.ntid[0] * cta.ntid[1] * cta.ntid[2];
    let nwarps = nthreads.div_ceil(32);
    let per = prog.nregs as usize * 32;
    let len = per * nwarps as usize;
    match &prog.zeroed {
        // The file of the worker's previous CTA: only rows some thread may read before writing
        // them need clearing (see `ir::uninit`).
        Some(rows) if regs.len() == len => {
            for w in 0..nwarps as usize {
                for &r in rows {
                    let k = w * per + r as usize * 32;
                    regs[k..k + 32].fill(0);
                }
            }
        }
        _ => {
            regs.clear();
            regs.resize(len, 0);
        }
    }
    let warps: Vec<Warp> = (0..nwarps)
        .map(|w| {
            let n = (nthreads - w * 32).min(32);
            let valid = if n == 32 { FULL } else { (1u32 << n) - 1 };
            Warp {
                id: w,
                valid,
                exited: 0,
                stack: vec![Entry {
                    pc: prog.entry,
                    mask: valid,
                    rpc: prog.exit,
                    park: NO_PARK,
                    call: NO_CALL,
                }],
                calls: Vec::new(),
                free_calls: Vec::new(),
                wsync: Vec::new(),
                matrix_rest: None,
                partial_bar: None,
                sync_error: None,
            }
        })
        .collect();
    let mut bars = Bars {
        contrib: vec![0; warps.len()],
        ..Bars::default()
    };
    for (w, warp) in warps.iter().enumerate() {
        bars.track(w, warp);
    }
    CtaSched { warps, bars }
}

/// Runs a whole CTA: warps run in rounds until they finish. A warp leaves the processor when all
/// its runnable paths wait at a barrier (released when the expected number of threads arrived),
/// when a mbarrier or cluster-barrier wait finds its phase incomplete, or after a time slice.
/// (The CTAs of a cluster, and of a cooperative launch, take turns instead: `exec::cluster`.)
pub fn run_cta(cta: &mut Cta, regs: &mut Vec<u64>) -> Result<(), Fault> {
    let mut s = start_cta(cta, regs);
    let mut idle = Idle::default();
    loop {
        let o = round(cta, regs, &mut s)?;
        if o.finished {
            return Ok(());
        }
        let stuck = idle.update(o.ran, o.progressed);
        cta.expire_waits = idle.expire_waits;
        if stuck && cta.halted {
            // Waiting for a warp memcheck ended: the kernel is being terminated anyway.
            return Ok(());
        }
        if stuck {
            return Err(deadlock(cta, &s));
        }
    }
}

/// What one [`round`] of a CTA did.
#[derive(Clone, Copy, Debug)]
pub struct RoundOutcome {
    /// Every warp finished.
    pub finished: bool,
    /// Some warp could run.
    pub ran: bool,
    /// Some warp did more than find a wait unsatisfied, or an mbarrier or the cluster barrier
    /// changed.
    pub progressed: bool,
}

/// How long a CTA, or the CTAs of a cluster together, went without progress.
#[derive(Clone, Copy, Debug, Default)]
pub struct Idle {
    pub rounds: u32,
    /// Set after many rounds without progress: `mbarrier.try_wait` returns False instead of
    /// suspending (the ISA's system-dependent time limit).
    pub expire_waits: bool,
}

impl Idle {
    /// Accounts one round (of a CTA, or of every CTA of a cluster): true when it is stuck for
    /// good (nothing could run, or no progress in twice the time waits take to expire).
    pub fn update(&mut self, ran: bool, progressed: bool) -> bool {
        if progressed {
            self.rounds = 0;
            self.expire_waits = false;
        } else if ran {
            self.rounds += 1;
            self.expire_waits = self.rounds >= IDLE_LIMIT;
        }
        !ran || self.rounds >= 2 * IDLE_LIMIT
    }
}

/// One round of a started CTA: every runnable warp runs until it stops; then completed
/// barriers release their warps and the cluster barrier recounts this CTA's threads.
pub fn round(cta: &mut Cta, regs: &mut [u64], s: &mut CtaSched) -> Result<RoundOutcome, Fault> {
    let prog = cta.prog;
    let per = prog.nregs as usize * 32;
    let CtaSched { warps, bars } = s;
    let nwarps = warps.len() as u32;
    let mut ran = false;
    let mut progressed = false;
    let epoch = cta.epoch;
    // The order warps run in this round: in turn, or shuffled by a seeded schedule.
    let mut order: [u8; 32] = std::array::from_fn(|k| k as u8);
    if let Some(rng) = &mut cta.rng {
        for k in (1..nwarps as usize).rev() {
            order.swap(k, rng.below(k as u64 + 1) as usize);
        }
    }
    for &w in &order[..nwarps as usize] {
        let w = w as usize;
        if let Some(rng) = &mut cta.rng {
            cta.slice = 1 + rng.below(32) as u32;
        }
        let runnable = warps[w].unblock(prog.exit);
        bars.track(w, &warps[w]);
        if !runnable {
            continue;
        }
        ran = true;
        loop {
            let r = &mut regs[w * per..(w + 1) * per];
            let stop = match warps[w].run(cta, r) {
                Ok(stop) => stop,
                // Under memcheck a bad access ends its warp and the others run on; a
                // cooperative launch stops (see `memcheck`), failing as the others do.
                Err(e) if std::mem::take(&mut cta.ending) => {
                    if cta.grid_ws != 0 {
                        return Err(super::memcheck::launch_failure(e));
                    }
                    cta.halted = true;
                    cta.keep_fault(e);
                    warps[w].end();
                    Stop::Done
                }
                Err(e) => return Err(e),
            };
            bars.track(w, &warps[w]);
            match stop {
                Stop::Done => {
                    progressed = true;
                    break;
                }
                Stop::Parked => break,
                Stop::Yield { wait } => {
                    progressed |= !wait;
                    break;
                }
                Stop::Barrier {
                    id,
                    count,
                    mask,
                    arrive_only,
                    red,
                } => {
                    progressed = true;
                    let k = id as usize;
                    bars.arrive(id, mask.count_ones());
                    if count.is_some() {
                        bars.expected[k] = count;
                    }
                    if let Some((op, d, t)) = red {
                        bars.truecnt[k] += t;
                        bars.red.push((id, w, mask, op, d));
                    }
                    if !arrive_only {
                        warps[w].park(id, prog.exit);
                        bars.track(w, &warps[w]);
                    }
                    cta.sync_gen = cta
                        .sync_gen
                        .wrapping_add(bars.release_ready(warps, regs, per));
                    let runnable = warps[w].unblock(prog.exit);
                    bars.track(w, &warps[w]);
                    if !runnable {
                        break;
                    }
                }
            }
        }
    }
    cta.sync_gen = cta
        .sync_gen
        .wrapping_add(bars.release_ready(warps, regs, per));
    // A round ends after at most a time slice of every warp, so an endless loop reaches here.
    if cta.deadline.is_some_and(|d| std::time::Instant::now() >= d) {
        return Err(timeout(cta, warps));
    }
    // Threads that exited no longer hold the cluster barrier up.
    if cta.cbar.recount(cta.rank, warps) {
        cta.epoch += 1;
    }
    Ok(RoundOutcome {
        finished: warps.iter().all(|w| w.stack.is_empty()),
        ran,
        progressed: progressed || cta.epoch != epoch,
    })
}

/// The error of a launch that ran past its time limit: where each unfinished warp of this CTA
/// was (the first lane of its running path and its PTX line).
pub fn timeout(cta: &Cta, warps: &[Warp]) -> Fault {
    let limit = super::kernel_timeout().unwrap_or_default();
    let mut places = Vec::new();
    for (w, warp) in warps.iter().enumerate() {
        let Some(top) = warp.stack.last() else {
            continue;
        };
        let lane = top.mask.trailing_zeros() % 32;
        let t = cta.tid(warp.id, lane);
        let line = cta.prog.info.get(top.pc as usize).map_or(0, |i| i.line);
        places.push(format!(
            "warp {w} (thread ({},{},{})) at PTX line {line}",
            t[0], t[1], t[2]
        ));
    }
    ExecError {
        kind: ExecErrorKind::Timeout,
        message: format!(
            "kernel '{}' ran longer than the {:.3} s limit (CUDA_SHIM_KERNEL_TIMEOUT); block ({},{},{}): {}",
            cta.kernel,
            limit.as_secs_f64(),
            cta.ctaid[0],
            cta.ctaid[1],
            cta.ctaid[2],
            places.join(", ")
        ),
        access: None,
    }
}

/// The error of a CTA that cannot go on, naming a thread that waits.
pub fn deadlock(cta: &Cta, s: &CtaSched) -> Fault {
    let warps = &s.warps;
    let w = (0..warps.len())
        .find(|&w| !warps[w].stack.is_empty())
        .unwrap_or(0);
    let Some(warp) = warps.get(w) else {
        return ExecError {
            kind: ExecErrorKind::Trap,
            message: format!("deadlock: no warp can run in kernel '{}'", cta.kernel),
            access: None,
        };
    };
    let top = warp.stack.last();
    let (pc, what) = match top {
        Some(e) if e.park != NO_PARK => (
            e.pc.saturating_sub(1),
            "every thread waits at a barrier that cannot complete",
        ),
        Some(e) => (
            e.pc,
            "every thread waits on an mbarrier phase or cluster barrier that cannot complete",
        ),
        None => (0, "no warp can run"),
    };
    let lane = top.map_or(0, |e| e.mask.trailing_zeros() as usize % 32);
    ExecError {
        kind: ExecErrorKind::Trap,
        message: format!("deadlock: {what} {}", cta.where_(warp, lane, pc)),
        access: None,
    }
}

impl<'a> Cta<'a> {
    pub fn where_pub(&self, warp: &Warp, lane: usize, pc: u32) -> String {
        self.where_(warp, lane, pc)
    }
}
