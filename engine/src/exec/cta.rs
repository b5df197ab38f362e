//! One CTA: its warps, shared and local memory, barriers, and address resolution with the
//! checks that turn wild accesses into error reports.

use super::warp::{Entry, Stop, Warp, FULL};
use crate::ir::*;
use crate::{mem, ExecError, ExecErrorKind};

/// A fault with everything the error message needs.
pub type Fault = ExecError;

pub struct Cta<'a> {
    pub prog: &'a Program,
    pub kernel: &'a str,
    pub params: &'a [u8],
    pub shared: &'a mut [u8],
    pub local: &'a mut [u8],
    /// Bytes of local memory per thread: the program's locals, then (when it uses `alloca`)
    /// its stack, whose top is here.
    pub local_bytes: usize,
    /// The per-thread stack limit (`set_stack_size`).
    pub stack_size: u32,
    pub ctaid: [u32; 3],
    pub ntid: [u32; 3],
    pub nctaid: [u32; 3],
    pub nwarps: u32,
    pub dyn_bytes: u32,
    pub thread_instructions: u64,
}

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
                self.shared.len() as u32
            }
            SReg::ClockHi => (clock_ns() >> 32) as u32,
            SReg::Zero => 0,
            SReg::One => 1,
        }) as u64
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

    /// Checks an access of `len` bytes at `addr` in `space` by `lane` and returns the host
    /// pointer. Misaligned accesses and accesses outside every allocation or window fault.
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
        if !addr.is_multiple_of(align) {
            let info = &self.prog.info[pc as usize];
            return Err(ExecError {
                kind: ExecErrorKind::MisalignedAddress,
                message: format!(
                    "misaligned address {addr:#x} {}: {} of {len} bytes",
                    self.where_(warp, lane, pc),
                    info.name
                ),
            });
        }
        let space = match space {
            MSpace::Generic => {
                if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) {
                    return self.resolve(
                        warp,
                        MSpace::Shared,
                        addr - SHARED_WINDOW,
                        len,
                        lane,
                        pc,
                        write,
                    );
                }
                if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) {
                    return self.resolve(
                        warp,
                        MSpace::Local,
                        addr - LOCAL_WINDOW,
                        len,
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
            (MSpace::Global, Some(end)) => {
                if addr >= warp.cache.0 && end <= warp.cache.1 {
                    Some(addr as *mut u8)
                } else {
                    match mem::find(addr) {
                        Some(a) if end <= a.base + a.size => {
                            warp.cache = (a.base, a.base + a.size);
                            Some(addr as *mut u8)
                        }
                        _ => None,
                    }
                }
            }
            (MSpace::Shared, Some(end)) => (end <= self.shared.len() as u64)
                // SAFETY: addr < shared.len() checked just above.
                .then(|| unsafe { self.shared.as_mut_ptr().add(addr as usize) }),
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
        ok.ok_or_else(|| {
            let info = &self.prog.info[pc as usize];
            let what = match space {
                MSpace::Global => "outside every allocation",
                MSpace::Shared => "outside the shared memory window",
                MSpace::Local => "outside the local memory window",
                _ => "outside the parameter block",
            };
            ExecError {
                kind: ExecErrorKind::IllegalAddress,
                message: format!(
                    "illegal address {addr:#x} {}: {} of {len} bytes {what}",
                    self.where_(warp, lane, pc),
                    info.name
                ),
            }
        })
    }

    /// `n` bytes of lane `l`'s local memory at `off` (offsets come from lowering, inside the
    /// thread's local area).
    pub fn local_at(&mut self, warp: u32, l: usize, off: u32, n: usize) -> &mut [u8] {
        let base = (warp as usize * 32 + l) * self.local_bytes + off as usize;
        &mut self.local[base..base + n]
    }

    pub fn fault_stack(&self, warp: &Warp, pc: u32, lane: usize, what: &str) -> Fault {
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!(
                "stack overflow {}: {what} (the limit is {} bytes per thread; raise it with \
                 cudaLimitStackSize / engine::set_stack_size)",
                self.where_(warp, lane, pc),
                self.stack_size
            ),
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
        }
    }

    pub fn fault_bad_call(&self, warp: &Warp, pc: u32, lane: usize, addr: u64) -> Fault {
        ExecError {
            kind: ExecErrorKind::IllegalAddress,
            message: format!(
                "indirect call to {addr:#x}, which is no function of a matching prototype {}",
                self.where_(warp, lane, pc)
            ),
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
        }
    }

    pub fn fault_trap(&self, warp: &Warp, pc: u32, mask: u32) -> Fault {
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!(
                "trap {}",
                self.where_(warp, mask.trailing_zeros() as usize, pc)
            ),
        }
    }
}

/// Runs a whole CTA: warps run until they finish or stop at a barrier; a barrier releases its
/// warps when the expected number of threads has arrived.
pub fn run_cta(cta: &mut Cta, regs: &mut Vec<u64>) -> Result<(), Fault> {
    let prog = cta.prog;
    let nthreads = cta.ntid[0] * cta.ntid[1] * cta.ntid[2];
    let nwarps = nthreads.div_ceil(32);
    let per = prog.nregs as usize * 32;
    regs.clear();
    regs.resize(per * nwarps as usize, 0);
    let mut warps: Vec<Warp> = (0..nwarps)
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
                }],
                cache: (1, 0),
                calls: Vec::new(),
                saved: Vec::new(),
                saved_local: Vec::new(),
            }
        })
        .collect();
    // Per warp: None = runnable, Some(id) = waiting at barrier id. Finished warps have an empty
    // stack.
    let mut waiting: Vec<Option<u32>> = vec![None; nwarps as usize];
    let mut arrived = [0u32; 16];
    let mut expected: [Option<u32>; 16] = [None; 16];
    loop {
        let mut progressed = false;
        for w in 0..nwarps as usize {
            if waiting[w].is_some() || warps[w].stack.is_empty() {
                continue;
            }
            progressed = true;
            let r = &mut regs[w * per..(w + 1) * per];
            loop {
                match warps[w].run(cta, r)? {
                    Stop::Done => break,
                    Stop::Barrier {
                        id,
                        count,
                        lanes,
                        arrive_only,
                    } => {
                        arrived[id as usize] += lanes;
                        if count.is_some() {
                            expected[id as usize] = count;
                        }
                        if arrive_only {
                            release_if_complete(
                                id,
                                &warps,
                                &mut waiting,
                                &mut arrived,
                                &mut expected,
                            );
                            continue;
                        }
                        waiting[w] = Some(id);
                        release_if_complete(id, &warps, &mut waiting, &mut arrived, &mut expected);
                        break;
                    }
                }
            }
        }
        // A warp that finished or exited lanes lowers the thread count barriers wait for.
        for id in 0..16 {
            if arrived[id] > 0 {
                release_if_complete(id as u32, &warps, &mut waiting, &mut arrived, &mut expected);
            }
        }
        if warps.iter().all(|w| w.stack.is_empty()) {
            return Ok(());
        }
        if !progressed {
            let w = waiting.iter().position(|x| x.is_some()).unwrap_or(0);
            let warp = &warps[w];
            let pc = warp.stack.last().map_or(0, |e| e.pc.saturating_sub(1));
            return Err(ExecError {
                kind: ExecErrorKind::Trap,
                message: format!(
                    "deadlock: every thread waits at a barrier that cannot complete {}",
                    {
                        let lane = warp
                            .stack
                            .last()
                            .map_or(0, |e| e.mask.trailing_zeros() as usize % 32);
                        cta.where_pub(warp, lane, pc)
                    }
                ),
            });
        }
    }
}

fn release_if_complete(
    id: u32,
    warps: &[Warp],
    waiting: &mut [Option<u32>],
    arrived: &mut [u32; 16],
    expected: &mut [Option<u32>; 16],
) {
    let live: u32 = warps
        .iter()
        .filter(|w| !w.stack.is_empty())
        .map(|w| (w.valid & !w.exited).count_ones())
        .sum();
    let need = expected[id as usize].unwrap_or(live).min(live.max(1));
    if arrived[id as usize] >= need {
        arrived[id as usize] = 0;
        expected[id as usize] = None;
        for x in waiting.iter_mut() {
            if *x == Some(id) {
                *x = None;
            }
        }
    }
}

impl<'a> Cta<'a> {
    pub fn where_pub(&self, warp: &Warp, lane: usize, pc: u32) -> String {
        self.where_(warp, lane, pc)
    }
}
