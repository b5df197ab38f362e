//! The warp interpreter: one IR op at a time over the warp's active lanes, with the
//! reconvergence stack driven by the immediate post-dominators computed at load.

use super::cta::{Cta, Fault, Layout, Place};
use super::whole;
use crate::ir::*;
use crate::mem;
use crate::sem::atomic::{atom_width, rmw};
use crate::sem::cvt::{cvt, cvt_int_lanes};
#[cfg(target_arch = "x86_64")]
use crate::sem::host_avx2;
use crate::sem::redux::{redux, shfl_source};
/// Tests switch the interpreter's AVX2 build with it.
#[cfg(test)]
pub(crate) use crate::sem::use_avx2;
use crate::sem::{ftz32, sat32};

pub const FULL: u32 = u32::MAX;

/// One entry of the reconvergence stack: lanes `mask` run from `pc` until they reach `rpc`.
/// `park` is the barrier these lanes wait at ([`NO_PARK`] when runnable): lanes of a warp
/// arrive at a barrier separately when they diverge (independent thread scheduling), so an
/// entry parks and a disjoint sibling entry runs meanwhile, in the same function activation
/// or in a caller's (lanes that took the other side of an `if` and call the same function
/// from another call site reach its barrier too).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub pc: u32,
    pub mask: u32,
    pub rpc: u32,
    pub park: u32,
    /// The call these lanes made and wait on (index into `Warp::calls`), [`NO_CALL`] when
    /// none: set by `Op::Call`, taken by the `CallRet` after it. A frame belongs to the entry
    /// that made the call rather than to a position in the stack, so the paths of a warp may
    /// interleave calls (a path runs while another one's call waits at a barrier).
    pub call: u32,
}

pub const NO_PARK: u32 = u32::MAX;
pub const NO_CALL: u32 = u32::MAX;
/// `Entry::park` of lanes waiting in `bar.warp.sync` for member lanes on other paths of the
/// warp (CTA barriers are 0..15).
pub const WARP_PARK: u32 = 16;

/// Backward branches a warp takes before it yields to the other warps of its CTA, so that a
/// warp spinning on memory another warp writes cannot starve it (`Cta::slice`; cooperative
/// launches use a shorter one, `exec::COOP_SLICE`, as their CTAs take turns too).
pub const SLICE: u32 = 1 << 14;

/// One active call of a warp (see `Op::Call`): enough to undo it at `CallRet`.
#[derive(Clone, Debug)]
pub struct CallFrame {
    pub site: u32,
    /// Lanes that made the call.
    pub mask: u32,
    /// Lanes of `mask` that have not returned yet: lanes leave a callee at different times
    /// when some of them wait at a barrier in it (they return in groups, each restoring its
    /// own lanes' state), and the frame is freed once all are back or exited.
    pub pending: u32,
    /// Whether the frame is in use (not in `Warp::free_calls`).
    pub used: bool,
    /// Per lane: index into the site's callees.
    pub which: [u8; 32],
    /// The saved stack pointers (one row of 32 lanes), then the caller's registers (rows)
    /// when the callee may re-enter it; the caller's saved local memory, lane by lane. Kept
    /// when the frame is freed, so that calls reuse the buffers.
    pub regs: Vec<u64>,
    pub local: Vec<u8>,
}

pub struct Warp {
    pub id: u32,
    /// Lanes that hold a thread of the block.
    pub valid: u32,
    pub exited: u32,
    pub stack: Vec<Entry>,
    /// Call frames, by index (`Entry::call`); `free_calls` lists the unused ones.
    pub calls: Vec<CallFrame>,
    pub free_calls: Vec<u32>,
    /// The `bar.warp.sync`s lanes wait at ([`WARP_PARK`]) for other lanes of their
    /// membermask: `(membermask, lanes arrived)`, one per mask (diverged groups of a warp may
    /// sync apart, each with its own mask, at the same time).
    pub wsync: Vec<(u32, u32)>,
}

/// Why a warp stopped running.
pub enum Stop {
    Done,
    /// Lanes `mask` arrived at barrier `id`; `count` is the expected thread count. `red`:
    /// the `barrier.red` operator, its destination and how many of the lanes had a true
    /// predicate. The arriving entry is still on top of the stack (its pc past the barrier).
    Barrier {
        id: u32,
        count: Option<u32>,
        mask: u32,
        arrive_only: bool,
        red: Option<(BarRed, Reg, u32)>,
    },
    /// Every runnable entry waits at a barrier.
    Parked,
    /// Gave way to the other warps: after a time slice (`wait` false) or a failed mbarrier wait
    /// (`wait` true: the warp makes no progress until another one changes an mbarrier).
    Yield {
        wait: bool,
    },
}

#[inline(always)]
fn fetch(regs: &[u64], s: Src, out: &mut Lanes) {
    match s {
        Src::Reg(r) => out.copy_from_slice(&regs[r as usize * 32..r as usize * 32 + 32]),
        Src::Imm(v) => *out = [v; 32],
    }
}

#[inline(always)]
fn get(regs: &[u64], s: Src, lane: usize) -> u64 {
    match s {
        Src::Reg(r) => regs[r as usize * 32 + lane],
        Src::Imm(v) => v,
    }
}

#[inline(always)]
fn write(regs: &mut [u64], d: Reg, o: &Lanes, mask: u32) {
    let dst = row_mut(regs, d);
    if mask == FULL {
        *dst = *o;
    } else {
        // A select per lane rather than a branch: vectorizes.
        for (l, v) in dst.iter_mut().enumerate() {
            *v = if mask >> l & 1 != 0 { o[l] } else { *v };
        }
    }
}

/// For an op writing every lane of `d` from sources `srcs`: `d`'s row (mutable) and the
/// sources' rows in place (immediates spread into `tmps`), so the lane function reads and
/// writes the register file with no copy. None when `d` is also a source: a `&mut` row may not
/// alias a `&` one, so the caller computes into a temporary instead.
#[inline(always)]
fn split<'a, const N: usize>(
    regs: &'a mut [u64],
    d: Reg,
    srcs: [Src; N],
    tmps: &'a mut [Lanes],
) -> Option<(&'a mut Lanes, [&'a Lanes; N])> {
    if srcs.contains(&Src::Reg(d)) {
        return None;
    }
    assert!(tmps.len() >= N);
    let len = regs.len();
    let di = d as usize * 32;
    assert!(di + 32 <= len);
    let p = regs.as_mut_ptr();
    // (A plain loop: `array::map` is not reliably inlined, and this runs per instruction.)
    static NONE: Lanes = [0; 32];
    let mut ins: [&'a Lanes; N] = [&NONE; N];
    for ((i, s), t) in ins.iter_mut().zip(srcs).zip(tmps.iter_mut()) {
        *i = match s {
            Src::Reg(r) => {
                let k = r as usize * 32;
                assert!(k + 32 <= len);
                // SAFETY: row r is inside `regs` (asserted) and is not row d, the only one
                // handed out mutably; all pointers derive from the one `as_mut_ptr`.
                unsafe { &*(p.add(k) as *const Lanes) }
            }
            Src::Imm(v) => {
                *t = [v; 32];
                t
            }
        };
    }
    // SAFETY: row d is inside `regs` (asserted) and aliases none of the source rows (checked
    // above) nor the temporaries.
    let o = unsafe { &mut *(p.add(di) as *mut Lanes) };
    Some((o, ins))
}

/// Register `r`'s 32 lanes.
#[inline(always)]
fn row(regs: &[u64], r: Reg) -> &Lanes {
    let i = r as usize * 32;
    regs[i..i + 32].try_into().unwrap()
}

#[inline(always)]
fn row_mut(regs: &mut [u64], r: Reg) -> &mut Lanes {
    let i = r as usize * 32;
    (&mut regs[i..i + 32]).try_into().unwrap()
}

/// Operand `s` as lanes without copying a register: its row in place, or the immediate spread
/// into `tmp`.
#[inline(always)]
fn opnd<'a>(regs: &'a [u64], s: Src, tmp: &'a mut Lanes) -> &'a Lanes {
    match s {
        Src::Reg(r) => row(regs, r),
        Src::Imm(v) => {
            *tmp = [v; 32];
            tmp
        }
    }
}

/// Every lane's address of an access (inactive lanes too: they are never used), written in
/// place: returning the array by value made a copy whose narrower stores the wide loads of
/// `place_warp` then stalled on (store forwarding).
#[inline(always)]
fn lane_addrs(regs: &[u64], addr: Addr, a: &mut Lanes) {
    let off = addr.off as u64;
    match addr.base {
        Some(r) => {
            for (a, &b) in a.iter_mut().zip(row(regs, r)) {
                *a = b.wrapping_add(off);
            }
        }
        None => *a = [off; 32],
    }
}

/// Every lane's host pointer of a checked access (inactive lanes' are never used): one loop
/// per kind of place, which vectorizes.
#[inline(always)]
fn lane_ptrs(pl: Place, addrs: &Lanes) -> [*mut u8; 32] {
    let mut p = [std::ptr::null_mut(); 32];
    match pl {
        Place::Global => {
            for (p, &a) in p.iter_mut().zip(addrs) {
                *p = a as *mut u8;
            }
        }
        Place::Buf { .. } => {
            for (l, (p, &a)) in p.iter_mut().zip(addrs).enumerate() {
                *p = pl.ptr(a, l);
            }
        }
    }
    p
}

/// Loads the element `koff` bytes into each active lane's access into `dst`, widened as `ld`
/// does. A coalesced access is one widening copy, a uniform one a single read.
///
/// # Safety
/// Every active lane's access must be valid for reading (as `Cta::place_warp` checks).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn ld_lanes(
    dst: &mut Lanes,
    (pl, layout): (Place, Layout),
    addrs: &Lanes,
    em: u32,
    koff: usize,
    size: u8,
    sext: bool,
) {
    #[inline(always)]
    unsafe fn go<T: Copy>(
        dst: &mut Lanes,
        (pl, layout): (Place, Layout),
        addrs: &Lanes,
        em: u32,
        koff: usize,
        conv: impl Fn(T) -> u64,
    ) {
        // SAFETY (all loops): the caller guarantees each active lane's pointer; a contiguous
        // or uniform layout is only reported for full warps (lane l's pointer is lane 0's plus
        // l elements, or lane 0's).
        match layout {
            Layout::Contiguous if addrs[1].wrapping_sub(addrs[0]) == size_of::<T>() as u64 => {
                let p = pl.ptr(addrs[0], 0).wrapping_add(koff) as *const T;
                for (l, v) in dst.iter_mut().enumerate() {
                    // SAFETY: lane l's element, l elements past lane 0's (contiguous).
                    *v = conv(unsafe { p.add(l).read_unaligned() });
                }
            }
            Layout::Uniform => {
                let p = pl.ptr(addrs[0], 0).wrapping_add(koff) as *const T;
                // SAFETY: every lane's (checked) access is this one.
                *dst = [conv(unsafe { p.read_unaligned() }); 32];
            }
            // (A contiguous vector access, lanes `n` elements apart, goes lane by lane too.)
            Layout::Contiguous | Layout::Scattered => {
                let ptrs = lane_ptrs(pl, addrs);
                if em == FULL {
                    for (v, p) in dst.iter_mut().zip(ptrs) {
                        // SAFETY: each lane's pointer was checked (all lanes active).
                        *v = conv(unsafe { (p.wrapping_add(koff) as *const T).read_unaligned() });
                    }
                } else {
                    for l in lanes(em) {
                        let p = ptrs[l].wrapping_add(koff) as *const T;
                        // SAFETY: an active lane's checked pointer.
                        dst[l] = conv(unsafe { p.read_unaligned() });
                    }
                }
            }
        }
    }
    let a = (pl, layout);
    // SAFETY: forwarded from the caller.
    unsafe {
        match (size, sext) {
            (1, false) => go(dst, a, addrs, em, koff, |v: u8| v as u64),
            (1, true) => go(dst, a, addrs, em, koff, |v: i8| v as i64 as u64),
            (2, false) => go(dst, a, addrs, em, koff, |v: u16| v as u64),
            (2, true) => go(dst, a, addrs, em, koff, |v: i16| v as i64 as u64),
            (4, false) => go(dst, a, addrs, em, koff, |v: u32| v as u64),
            (4, true) => go(dst, a, addrs, em, koff, |v: i32| v as i64 as u64),
            _ => go(dst, a, addrs, em, koff, |v: u64| v),
        }
    }
}

/// Stores the low `size` bytes of each active lane of `v` at its access plus `koff` bytes, in
/// lane order (when lanes share an address the highest one's value stays, as lane by lane); a
/// coalesced access is one narrowing copy.
///
/// # Safety
/// Every active lane's access must be valid for writing (as `Cta::place_warp` checks).
#[inline(always)]
unsafe fn st_lanes(
    v: &Lanes,
    (pl, layout): (Place, Layout),
    addrs: &Lanes,
    em: u32,
    koff: usize,
    size: u8,
) {
    #[inline(always)]
    unsafe fn go<T: Copy>(
        v: &Lanes,
        (pl, layout): (Place, Layout),
        addrs: &Lanes,
        em: u32,
        koff: usize,
        conv: impl Fn(u64) -> T,
    ) {
        // SAFETY (all loops): as in ld_lanes.
        match layout {
            Layout::Contiguous if addrs[1].wrapping_sub(addrs[0]) == size_of::<T>() as u64 => {
                let p = pl.ptr(addrs[0], 0).wrapping_add(koff) as *mut T;
                for (l, x) in v.iter().enumerate() {
                    // SAFETY: lane l's element, l elements past lane 0's (contiguous).
                    unsafe { p.add(l).write_unaligned(conv(*x)) };
                }
            }
            Layout::Uniform => {
                // Every lane writes the same place: lane 31's value is the one that stays.
                let p = pl.ptr(addrs[0], 0).wrapping_add(koff) as *mut T;
                // SAFETY: every lane's (checked) access is this one.
                unsafe { p.write_unaligned(conv(v[31])) };
            }
            Layout::Contiguous | Layout::Scattered => {
                let ptrs = lane_ptrs(pl, addrs);
                for l in lanes(em) {
                    let p = ptrs[l].wrapping_add(koff) as *mut T;
                    // SAFETY: an active lane's checked pointer.
                    unsafe { p.write_unaligned(conv(v[l])) };
                }
            }
        }
    }
    let a = (pl, layout);
    // SAFETY: forwarded from the caller.
    unsafe {
        match size {
            1 => go(v, a, addrs, em, koff, |x| x as u8),
            2 => go(v, a, addrs, em, koff, |x| x as u16),
            4 => go(v, a, addrs, em, koff, |x| x as u32),
            _ => go(v, a, addrs, em, koff, |x| x),
        }
    }
}

/// Loads like [`ld_lanes`] for an access [`Cta::own_shared`] placed: lane `l` reads at
/// `base + addrs[l] + koff`, with no classification of the warp's addresses.
///
/// # Safety
/// Every active lane's access must be inside the CTA's shared memory (as `own_shared` checks).
#[inline(always)]
unsafe fn ld_shared(
    dst: &mut Lanes,
    base: *mut u8,
    addrs: &Lanes,
    em: u32,
    koff: usize,
    size: u8,
    sext: bool,
) {
    #[inline(always)]
    unsafe fn go<T: Copy>(
        dst: &mut Lanes,
        base: *const u8,
        addrs: &Lanes,
        em: u32,
        conv: impl Fn(T) -> u64,
    ) {
        let at = |a: u64| base.wrapping_add(a as usize) as *const T;
        if em == FULL {
            for (v, &a) in dst.iter_mut().zip(addrs) {
                // SAFETY: a lane's checked access (all lanes active).
                *v = conv(unsafe { at(a).read_unaligned() });
            }
        } else {
            for l in lanes(em) {
                // SAFETY: an active lane's checked access.
                dst[l] = conv(unsafe { at(addrs[l]).read_unaligned() });
            }
        }
    }
    let b = base.wrapping_add(koff) as *const u8;
    // SAFETY: forwarded from the caller.
    unsafe {
        match (size, sext) {
            (1, false) => go(dst, b, addrs, em, |v: u8| v as u64),
            (1, true) => go(dst, b, addrs, em, |v: i8| v as i64 as u64),
            (2, false) => go(dst, b, addrs, em, |v: u16| v as u64),
            (2, true) => go(dst, b, addrs, em, |v: i16| v as i64 as u64),
            (4, false) => go(dst, b, addrs, em, |v: u32| v as u64),
            (4, true) => go(dst, b, addrs, em, |v: i32| v as i64 as u64),
            _ => go(dst, b, addrs, em, |v: u64| v),
        }
    }
}

/// Stores like [`st_lanes`] for an access [`Cta::own_shared`] placed, in lane order (lanes
/// sharing an address leave the highest one's value).
///
/// # Safety
/// Every active lane's access must be inside the CTA's shared memory (as `own_shared` checks).
#[inline(always)]
unsafe fn st_shared(v: &Lanes, base: *mut u8, addrs: &Lanes, em: u32, koff: usize, size: u8) {
    #[inline(always)]
    unsafe fn go<T: Copy>(
        v: &Lanes,
        base: *mut u8,
        addrs: &Lanes,
        em: u32,
        conv: impl Fn(u64) -> T,
    ) {
        let at = |a: u64| base.wrapping_add(a as usize) as *mut T;
        if em == FULL {
            for (&x, &a) in v.iter().zip(addrs) {
                // SAFETY: a lane's checked access (all lanes active).
                unsafe { at(a).write_unaligned(conv(x)) };
            }
        } else {
            for l in lanes(em) {
                // SAFETY: an active lane's checked access.
                unsafe { at(addrs[l]).write_unaligned(conv(v[l])) };
            }
        }
    }
    let b = base.wrapping_add(koff);
    // SAFETY: forwarded from the caller.
    unsafe {
        match size {
            1 => go(v, b, addrs, em, |x| x as u8),
            2 => go(v, b, addrs, em, |x| x as u16),
            4 => go(v, b, addrs, em, |x| x as u32),
            _ => go(v, b, addrs, em, |x| x),
        }
    }
}

/// Bit l set when lane l of a predicate row is true (bit 0 of its slot).
#[inline(always)]
fn pred_mask(p: &Lanes) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let mut m = 0u32;
        for (k, pair) in p.chunks_exact(2).enumerate() {
            // SAFETY: SSE2 is part of the x86_64 baseline; the load reads the two u64 of `pair`
            // (unaligned load). Shifting bit 0 into the sign bit lets movmskpd collect it.
            let b = unsafe {
                let v = _mm_loadu_si128(pair.as_ptr() as *const __m128i);
                _mm_movemask_pd(_mm_castsi128_pd(_mm_slli_epi64(v, 63)))
            };
            m |= (b as u32) << (2 * k);
        }
        m
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for (l, v) in p.iter().enumerate() {
            m |= ((*v & 1) as u32) << l;
        }
        m
    }
}

#[inline(always)]
fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

/// The disjoint groups of lanes a `.sync` warp collective computes over (see `Warp::groups`).
struct Groups {
    n: usize,
    g: [u32; 32],
}

impl Groups {
    fn one(em: u32) -> Groups {
        let mut g = [0; 32];
        g[0] = em;
        Groups { n: 1, g }
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.g[..self.n].iter().copied()
    }
}

impl Warp {
    /// Runs until the warp finishes or stops at a barrier. `regs` is this warp's register file.
    pub fn run(&mut self, cta: &mut Cta, regs: &mut [u64]) -> Result<Stop, Fault> {
        #[cfg(target_arch = "x86_64")]
        if host_avx2() {
            // SAFETY: the host CPU has the features `run_avx2` is compiled for (checked).
            return unsafe { self.run_avx2(cta, regs) };
        }
        self.run_body(cta, regs)
    }

    /// The interpreter compiled for AVX2 hosts: the lane loops inlined here (address checks,
    /// loads and stores, merges, conversions) then work on 4 lanes per instruction instead of
    /// the x86_64 baseline's 2, and popcounts are one instruction. Same code, same results:
    /// only integer and memory operations are affected (float contraction is never implicit).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1,bmi2,lzcnt")]
    unsafe fn run_avx2(&mut self, cta: &mut Cta, regs: &mut [u64]) -> Result<Stop, Fault> {
        self.run_body(cta, regs)
    }

    #[inline(always)]
    fn run_body(&mut self, cta: &mut Cta, regs: &mut [u64]) -> Result<Stop, Fault> {
        let prog = cta.prog;
        let mut count: u64 = 0;
        let mut full: u64 = 0;
        let mut budget = cta.slice;
        let r = loop {
            let Some(top) = self.stack.last_mut() else {
                break Ok(Stop::Done);
            };
            // (A parked entry may sit at its reconvergence point: a barrier ended its path.)
            if top.park != NO_PARK {
                if self.unblock(prog.exit) {
                    continue;
                }
                break Ok(Stop::Parked);
            }
            if top.pc == top.rpc || top.mask == 0 {
                if top.pc == prog.exit {
                    // Lanes at the end of the kernel are done: barriers stop waiting for them.
                    self.exited |= top.mask;
                }
                let call = top.call;
                self.stack.pop();
                if call != NO_CALL {
                    // The entry's lanes that made this call exited in the callee.
                    self.drop_call(call, 0);
                }
                continue;
            }
            let pc = top.pc;
            let mask = top.mask;
            top.pc = pc + 1;
            let inst = &prog.insts[pc as usize];
            let em = match inst.guard {
                None => mask,
                Some((r, neg)) => {
                    let pm = pred_mask(row(regs, r));
                    mask & if neg { !pm } else { pm }
                }
            };
            // Full warps are counted apart: a popcount per instruction is a dozen instructions
            // on hosts built without the popcnt feature.
            if em == FULL {
                full += 1;
            } else {
                count += em.count_ones() as u64;
            }
            if em == 0 && !matches!(inst.op, Op::End | Op::Call { .. }) {
                continue;
            }
            match &inst.op {
                Op::Un { op, fl, d, a } => match split(regs, *d, [*a], &mut cta.tmp) {
                    Some((o, [x])) if fl.is_none() && em == FULL => op.f()(x, o),
                    _ => {
                        let f = op.f();
                        let (mut x, mut o) = ([0; 32], [0; 32]);
                        fetch(regs, *a, &mut x);
                        if fl.ftz {
                            ftz32(&mut x);
                        }
                        f(&x, &mut o);
                        self.post(*fl, &mut o);
                        write(regs, *d, &o, em);
                    }
                },
                Op::Bin { op, fl, d, a, b } => match split(regs, *d, [*a, *b], &mut cta.tmp) {
                    Some((o, [x, y])) if fl.is_none() && em == FULL => op.f()(x, y, o),
                    _ if fl.is_none() => {
                        let [ta, tb, _, o] = &mut cta.tmp;
                        op.f()(opnd(regs, *a, ta), opnd(regs, *b, tb), o);
                        write(regs, *d, o, em);
                    }
                    _ => {
                        let (mut x, mut y, mut o) = ([0; 32], [0; 32], [0; 32]);
                        fetch(regs, *a, &mut x);
                        fetch(regs, *b, &mut y);
                        if fl.ftz {
                            ftz32(&mut x);
                            ftz32(&mut y);
                        }
                        op.f()(&x, &y, &mut o);
                        self.post(*fl, &mut o);
                        write(regs, *d, &o, em);
                    }
                },
                Op::Ter { op, fl, d, a, b, c } => {
                    let f = op.f();
                    match split(regs, *d, [*a, *b, *c], &mut cta.tmp) {
                        Some((o, [x, y, z])) if fl.is_none() && em == FULL => f(x, y, z, o),
                        _ if fl.is_none() => {
                            let [ta, tb, tc, o] = &mut cta.tmp;
                            let (x, y) = (opnd(regs, *a, ta), opnd(regs, *b, tb));
                            f(x, y, opnd(regs, *c, tc), o);
                            write(regs, *d, o, em);
                        }
                        _ => {
                            let (mut x, mut y, mut z, mut o) = ([0; 32], [0; 32], [0; 32], [0; 32]);
                            fetch(regs, *a, &mut x);
                            fetch(regs, *b, &mut y);
                            fetch(regs, *c, &mut z);
                            if fl.ftz {
                                ftz32(&mut x);
                                ftz32(&mut y);
                                ftz32(&mut z);
                            }
                            f(&x, &y, &z, &mut o);
                            self.post(*fl, &mut o);
                            write(regs, *d, &o, em);
                        }
                    }
                }
                Op::Quad { op, d, a, b, c, e } => {
                    let f = op.f();
                    match split(regs, *d, [*a, *b, *c, *e], &mut cta.tmp) {
                        Some((o, [x, y, z, w])) if em == FULL => f(x, y, z, w, o),
                        _ => {
                            let (mut x, mut y, mut z, mut w, mut o) =
                                ([0; 32], [0; 32], [0; 32], [0; 32], [0; 32]);
                            fetch(regs, *a, &mut x);
                            fetch(regs, *b, &mut y);
                            fetch(regs, *c, &mut z);
                            fetch(regs, *e, &mut w);
                            f(&x, &y, &z, &w, &mut o);
                            write(regs, *d, &o, em);
                        }
                    }
                }
                Op::Lane { op, d, a, b, c } => {
                    let (f, cfg) = (op.f(), op.op().cfg);
                    for l in lanes(em) {
                        let v = f(cfg, get(regs, *a, l), get(regs, *b, l), get(regs, *c, l));
                        regs[*d as usize * 32 + l] = v;
                    }
                }
                Op::Setp {
                    op,
                    fl,
                    a,
                    b,
                    d,
                    dn,
                    comb,
                } => {
                    let f = op.f();
                    if let (Some(d), None, None, true, FULL) = (d, dn, comb, fl.is_none(), em) {
                        // The common `setp` with one destination, straight into it.
                        if let Some((o, [x, y])) = split(regs, *d, [*a, *b], &mut cta.tmp) {
                            f(x, y, o);
                            continue;
                        }
                    }
                    let mut o = [0; 32];
                    if fl.is_none() {
                        let [ta, tb, ..] = &mut cta.tmp;
                        f(opnd(regs, *a, ta), opnd(regs, *b, tb), &mut o);
                    } else {
                        let (mut x, mut y) = ([0; 32], [0; 32]);
                        fetch(regs, *a, &mut x);
                        fetch(regs, *b, &mut y);
                        if fl.ftz {
                            ftz32(&mut x);
                            ftz32(&mut y);
                        }
                        f(&x, &y, &mut o);
                    }
                    let mut on = [0u64; 32];
                    for l in 0..32 {
                        on[l] = o[l] ^ 1;
                    }
                    if let Some((bop, c, neg)) = comb {
                        let mut cv = [0; 32];
                        fetch(regs, *c, &mut cv);
                        for l in 0..32 {
                            let c = (cv[l] & 1) ^ (*neg as u64);
                            let comb = |t: u64| match bop {
                                BoolOp::And => t & c,
                                BoolOp::Or => t | c,
                                BoolOp::Xor => t ^ c,
                            };
                            o[l] = comb(o[l]);
                            on[l] = comb(on[l]);
                        }
                    }
                    if let Some(d) = d {
                        write(regs, *d, &o, em);
                    }
                    if let Some(dn) = dn {
                        write(regs, *dn, &on, em);
                    }
                }
                Op::Cvt {
                    d,
                    a,
                    dst,
                    src,
                    rnd,
                    sat,
                    ftz,
                } => {
                    let mut tmp = [0; 32];
                    let x = opnd(regs, *a, &mut tmp);
                    let mut o = [0; 32];
                    if !src.float() && !dst.float() && !*sat {
                        cvt_int_lanes(x, &mut o, *dst, *src);
                    } else {
                        for l in lanes(em) {
                            o[l] = cvt(x[l], *dst, *src, *rnd, *sat, *ftz);
                        }
                    }
                    write(regs, *d, &o, em);
                }
                Op::Carry {
                    op,
                    bits,
                    signed,
                    cin,
                    cout,
                    cc,
                    d,
                    a,
                    b,
                    c,
                } => {
                    let m = u64::MAX >> (64 - bits);
                    for l in lanes(em) {
                        let (x, y) = (get(regs, *a, l) & m, get(regs, *b, l) & m);
                        let cf = if *cin {
                            regs[*cc as usize * 32 + l] & 1
                        } else {
                            0
                        } as u128;
                        let (r, co) = match op {
                            CarryOp::Add => {
                                let s = x as u128 + y as u128 + cf;
                                (s, (s >> bits) & 1)
                            }
                            CarryOp::Sub => {
                                // The hardware subtracts as a + ~b + carry-in, the carry-in 1
                                // for sub.cc and CC.CF for subc, and CC.CF becomes the carry
                                // out of that sum: 1 means no borrow (measured on an H100; the
                                // ISA's words "borrow-out" do not say which polarity).
                                let cin = if *cin { cf } else { 1 };
                                let s = x as u128 + (!y & m) as u128 + cin;
                                (s, (s >> bits) & 1)
                            }
                            CarryOp::MadLo | CarryOp::MadHi => {
                                // The full 2*bits product of the operands as their type reads
                                // them, then its half plus c plus the carry-in.
                                let t = if *signed {
                                    let sx = ((x << (64 - bits)) as i64 >> (64 - bits)) as i128;
                                    let sy = ((y << (64 - bits)) as i64 >> (64 - bits)) as i128;
                                    (sx * sy) as u128
                                } else {
                                    x as u128 * y as u128
                                };
                                let half =
                                    if *op == CarryOp::MadHi { t >> bits } else { t } as u64 & m;
                                let s = half as u128 + (get(regs, *c, l) & m) as u128 + cf;
                                (s, (s >> bits) & 1)
                            }
                        };
                        regs[*d as usize * 32 + l] = r as u64 & m;
                        if *cout {
                            regs[*cc as usize * 32 + l] = co as u64;
                        }
                    }
                }
                Op::Pack { d, parts, bits } => {
                    let m = if *bits >= 64 {
                        u64::MAX
                    } else {
                        (1u64 << bits) - 1
                    };
                    for l in lanes(em) {
                        let mut v = 0u64;
                        for (k, p) in parts.iter().enumerate() {
                            v |= (get(regs, *p, l) & m) << (k as u32 * bits);
                        }
                        regs[*d as usize * 32 + l] = v;
                    }
                }
                Op::Unpack { ds, a, bits } => {
                    let m = if *bits >= 64 {
                        u64::MAX
                    } else {
                        (1u64 << bits) - 1
                    };
                    for l in lanes(em) {
                        let v = get(regs, *a, l);
                        for (k, d) in ds.iter().enumerate() {
                            if let Some(d) = d {
                                regs[*d as usize * 32 + l] = (v >> (k as u32 * bits)) & m;
                            }
                        }
                    }
                }
                Op::Sreg { d, s } => {
                    let mut o = [0; 32];
                    match s {
                        SReg::Tid(k) => o = cta.tid_lanes(self.id, *k as usize),
                        // Per lane (the clocks are read once per lane, as before).
                        SReg::Laneid
                        | SReg::LanemaskEq
                        | SReg::LanemaskLe
                        | SReg::LanemaskLt
                        | SReg::LanemaskGe
                        | SReg::LanemaskGt
                        | SReg::Clock
                        | SReg::Clock64
                        | SReg::ClockHi => {
                            for l in lanes(em) {
                                o[l] = cta.sreg(*s, self.id, l as u32);
                            }
                        }
                        // One reading of the system clock for the warp: its lanes read the
                        // timer at the same instant. (Per lane, the clock_gettime calls were a
                        // sixth of the run time of libcu++'s barrier and pipeline waits, which
                        // read it on every spin.)
                        SReg::Globaltimer => o = [cta.sreg(*s, self.id, 0); 32],
                        // The same in every lane of the warp.
                        _ => o = [cta.sreg(*s, self.id, em.trailing_zeros()); 32],
                    }
                    write(regs, *d, &o, em);
                }
                Op::Ld {
                    space,
                    size,
                    sext,
                    n,
                    d,
                    addr,
                } => {
                    let len = *size as u64 * *n as u64;
                    let mut addrs = [0; 32];
                    lane_addrs(regs, *addr, &mut addrs);
                    if len > 16 {
                        cta.check_aligned(self, &addrs, em, len, pc)?;
                    }
                    let own = cta.own_shared(*space, &addrs, em, len);
                    if let Some(base) = own {
                        for (k, dk) in d.iter().enumerate().take(*n as usize) {
                            if let Some(r) = *dk {
                                let koff = k * *size as usize;
                                // SAFETY: own_shared checked every active lane's access
                                // inside this CTA's shared memory. (The addresses were all
                                // read above, so writing a base register changes none.)
                                unsafe {
                                    ld_shared(
                                        row_mut(regs, r),
                                        base,
                                        &addrs,
                                        em,
                                        koff,
                                        *size,
                                        *sext,
                                    )
                                };
                            }
                        }
                        continue;
                    }
                    match cta.place_warp(self.id, *space, &addrs, em, len, false) {
                        // Memory other threads see: each lane's vector in one access.
                        Some((pl, _)) if whole::applies(*n, len) && !pl.private() => {
                            for l in lanes(em) {
                                let p = pl.ptr(addrs[l], l);
                                // SAFETY: place_warp checked lane l's [addr, addr+len).
                                unsafe { ld_vector(regs, d, p, l, *n, *size, *sext) };
                            }
                        }
                        Some(pl) => {
                            for (k, dk) in d.iter().enumerate().take(*n as usize) {
                                if let Some(r) = *dk {
                                    // The addresses were all read above, so writing a base
                                    // register here changes none of them.
                                    let koff = k * *size as usize;
                                    // SAFETY: place_warp checked every active lane's
                                    // [addr, addr+len) inside one live allocation or window.
                                    unsafe {
                                        ld_lanes(
                                            row_mut(regs, r),
                                            pl,
                                            &addrs,
                                            em,
                                            koff,
                                            *size,
                                            *sext,
                                        )
                                    };
                                }
                            }
                        }
                        None => {
                            for l in lanes(em) {
                                let p = cta.resolve(self, *space, addrs[l], len, l, pc, false)?;
                                // SAFETY: resolve checked that [a, a+len) is inside one live
                                // allocation or window.
                                unsafe { ld_vector(regs, d, p, l, *n, *size, *sext) };
                            }
                        }
                    }
                }
                Op::St {
                    space,
                    size,
                    n,
                    sink,
                    s,
                    addr,
                } => {
                    let len = *size as u64 * *n as u64;
                    let mut addrs = [0; 32];
                    lane_addrs(regs, *addr, &mut addrs);
                    if len > 16 {
                        cta.check_aligned(self, &addrs, em, len, pc)?;
                    }
                    let live = |k: &(usize, &Src)| *sink & (1 << k.0) == 0;
                    let own = cta.own_shared(*space, &addrs, em, len);
                    if let Some(base) = own {
                        let mut tmp = [0; 32];
                        for (k, sk) in s.iter().enumerate().take(*n as usize).filter(live) {
                            let v = opnd(regs, *sk, &mut tmp);
                            // SAFETY: own_shared checked every active lane's access inside
                            // this CTA's shared memory.
                            unsafe { st_shared(v, base, &addrs, em, k * *size as usize, *size) };
                        }
                        continue;
                    }
                    match cta.place_warp(self.id, *space, &addrs, em, len, true) {
                        // Memory other threads see: each lane's vector in one access.
                        Some((pl, _)) if whole::applies(*n, len) && !pl.private() => {
                            for l in lanes(em) {
                                let p = pl.ptr(addrs[l], l);
                                // SAFETY: place_warp checked lane l's writable range.
                                unsafe { st_vector(regs, s, *sink, p, l, *n, *size) };
                            }
                        }
                        Some(pl) => {
                            let mut tmp = [0; 32];
                            for (k, sk) in s.iter().enumerate().take(*n as usize).filter(live) {
                                let v = opnd(regs, *sk, &mut tmp);
                                // SAFETY: place_warp checked every active lane's range inside
                                // one live, writable allocation or window.
                                unsafe { st_lanes(v, pl, &addrs, em, k * *size as usize, *size) };
                            }
                        }
                        None => {
                            for l in lanes(em) {
                                let p = cta.resolve(self, *space, addrs[l], len, l, pc, true)?;
                                // SAFETY: as for loads; the range is writable memory.
                                unsafe { st_vector(regs, s, *sink, p, l, *n, *size) };
                            }
                        }
                    }
                }
                Op::Atom {
                    space,
                    op,
                    ty,
                    d,
                    addr,
                    a,
                    b,
                } => {
                    let size = atom_width(*ty) as u64;
                    let mut addrs = [0; 32];
                    lane_addrs(regs, *addr, &mut addrs);
                    let own = cta.own_shared(*space, &addrs, em, size);
                    let pl = match own {
                        Some(base) => Some(Place::Buf {
                            base,
                            sub: 0,
                            stride: 0,
                        }),
                        None => cta
                            .place_warp(self.id, *space, &addrs, em, size, true)
                            .map(|(p, _)| p),
                    };
                    if let (
                        Some(pl),
                        AtomOp::Add,
                        AtomTy::U32 | AtomTy::S32,
                        Src::Imm(_) | Src::Reg(_),
                    ) = (pl, op, ty, a)
                    {
                        if pl.private() {
                            // The shared-memory counter (histograms): a 32-bit add, inline.
                            let ptrs = lane_ptrs(pl, &addrs);
                            for l in lanes(em) {
                                let p = ptrs[l] as *mut u32;
                                // SAFETY: place_warp checked p 4-byte aligned inside this
                                // CTA's own memory, which no other thread touches.
                                let old = unsafe { p.read() };
                                // SAFETY: as above.
                                unsafe { p.write(old.wrapping_add(get(regs, *a, l) as u32)) };
                                if let Some(d) = d {
                                    regs[*d as usize * 32 + l] = old as u64;
                                }
                            }
                            continue;
                        }
                    }
                    // In lane order, as the per-lane path: lanes hitting the same address see
                    // each other's updates in that order.
                    for l in lanes(em) {
                        let (av, bv) = (get(regs, *a, l), get(regs, *b, l));
                        let old = match pl {
                            // SAFETY: place_warp checked the range, aligned; private memory
                            // (shared, local) is only touched by this host thread.
                            Some(pl) if pl.private() => unsafe {
                                atomic_private(pl.ptr(addrs[l], l), *op, *ty, av, bv)
                            },
                            Some(pl) => atomic(pl.ptr(addrs[l], l), *op, *ty, av, bv),
                            None => {
                                let p = cta.resolve(self, *space, addrs[l], size, l, pc, true)?;
                                atomic(p, *op, *ty, av, bv)
                            }
                        };
                        if let Some(d) = d {
                            regs[*d as usize * 32 + l] = old;
                        }
                    }
                }
                Op::Atom128 {
                    space,
                    cas,
                    d,
                    addr,
                    b,
                    c,
                } => {
                    let mut addrs = [0; 32];
                    lane_addrs(regs, *addr, &mut addrs);
                    let pl = cta
                        .place_warp(self.id, *space, &addrs, em, 16, true)
                        .map(|(p, _)| p);
                    let pair = |regs: &[u64], r: Reg, l: usize| {
                        let r = r as usize * 32 + l;
                        regs[r] as u128 | (regs[r + 32] as u128) << 64
                    };
                    // In lane order, as the other atomics.
                    for l in lanes(em) {
                        let (bv, cv) = (pair(regs, *b, l), pair(regs, *c, l));
                        let new = |old: u128| match (*cas, old == bv) {
                            (true, true) => cv,
                            (true, false) => old,
                            (false, _) => bv,
                        };
                        let old = match pl {
                            // SAFETY: place_warp checked the 16 bytes, 16-aligned; private
                            // memory (shared, local) is only touched by this host thread.
                            Some(pl) if pl.private() => unsafe {
                                let p = pl.ptr(addrs[l], l) as *mut u128;
                                let old = p.read();
                                p.write(new(old));
                                old
                            },
                            Some(pl) => atomic128(pl.ptr(addrs[l], l), new),
                            None => {
                                let p = cta.resolve(self, *space, addrs[l], 16, l, pc, true)?;
                                atomic128(p, new)
                            }
                        };
                        if let Some(d) = d {
                            let r = *d as usize * 32 + l;
                            regs[r] = old as u64;
                            regs[r + 32] = (old >> 64) as u64;
                        }
                    }
                }
                Op::AtomVec {
                    space,
                    op,
                    ty,
                    n,
                    d,
                    addr,
                    b,
                } => {
                    let es = match ty {
                        AtomTy::Half { x2: false, .. } => 2,
                        _ => 4,
                    };
                    for l in lanes(em) {
                        let ad = addr
                            .base
                            .map_or(0, |r| regs[r as usize * 32 + l])
                            .wrapping_add(addr.off as u64);
                        let p = cta.resolve(self, *space, ad, es * *n as u64, l, pc, true)?;
                        for k in 0..*n as usize {
                            // SAFETY: resolve checked the whole vector inside one allocation,
                            // aligned to its size (so each element is naturally aligned).
                            let pk = unsafe { p.add(k * es as usize) };
                            let old = atomic(pk, *op, *ty, get(regs, b[k], l), 0);
                            if let Some(r) = d[k] {
                                regs[r as usize * 32 + l] = old;
                            }
                        }
                    }
                }
                Op::Bra { target, rpc } => {
                    let top = self.stack.last_mut().unwrap();
                    if em == mask {
                        top.pc = *target;
                    } else {
                        // Divergence: both sides run to the reconvergence point, then the
                        // entry below resumes there with all lanes.
                        top.pc = *rpc;
                        let nt = mask & !em;
                        self.stack.push(Entry {
                            pc: pc + 1,
                            mask: nt,
                            rpc: *rpc,
                            park: NO_PARK,
                            call: NO_CALL,
                        });
                        self.stack.push(Entry {
                            pc: *target,
                            mask: em,
                            rpc: *rpc,
                            park: NO_PARK,
                            call: NO_CALL,
                        });
                    }
                    if *target <= pc {
                        budget -= 1;
                        if budget == 0 {
                            break Ok(Stop::Yield { wait: false });
                        }
                    }
                }
                Op::Brx { idx, targets, rpc } => {
                    // Lanes grouped by target (at most 32 groups), in lane order.
                    let mut groups = [(0u32, 0u32); 32];
                    let mut ng = 0;
                    for l in lanes(em) {
                        let k = get(regs, *idx, l) as u32;
                        let Some(&t) = targets.get(k as usize) else {
                            cta.thread_instructions += count + 32 * full;
                            return Err(crate::ExecError {
                                kind: crate::ExecErrorKind::Trap,
                                message: format!(
                                    "brx.idx index {k} is past its {} branch targets {}",
                                    targets.len(),
                                    cta.where_pub(self, l, pc)
                                ),
                            });
                        };
                        match groups[..ng].iter_mut().find(|g| g.0 == t) {
                            Some(g) => g.1 |= 1 << l,
                            None => {
                                groups[ng] = (t, 1 << l);
                                ng += 1;
                            }
                        }
                    }
                    let top = self.stack.last_mut().unwrap();
                    if ng == 1 && em == mask {
                        top.pc = groups[0].0;
                    } else {
                        // Divergence: every group (and the lanes whose guard failed) runs to
                        // the reconvergence point, where the entry below resumes.
                        top.pc = *rpc;
                        if em != mask {
                            self.stack.push(Entry {
                                pc: pc + 1,
                                mask: mask & !em,
                                rpc: *rpc,
                                park: NO_PARK,
                                call: NO_CALL,
                            });
                        }
                        for &(t, m) in groups[..ng].iter().rev() {
                            self.stack.push(Entry {
                                pc: t,
                                mask: m,
                                rpc: *rpc,
                                park: NO_PARK,
                                call: NO_CALL,
                            });
                        }
                    }
                    if groups[..ng].iter().any(|g| g.0 <= pc) {
                        budget -= 1;
                        if budget == 0 {
                            break Ok(Stop::Yield { wait: false });
                        }
                    }
                }
                Op::Call { site } => {
                    if let Err(e) = self.call(cta, regs, pc, em, *site) {
                        cta.thread_instructions += count + 32 * full;
                        return Err(e);
                    }
                }
                Op::CallRet { site } => {
                    if let Err(e) = self.call_ret(cta, regs, pc, em, *site) {
                        cta.thread_instructions += count + 32 * full;
                        return Err(e);
                    }
                }
                Op::StackSave { d } => {
                    let sp = prog.sp.unwrap() as usize;
                    for l in lanes(em) {
                        regs[*d as usize * 32 + l] = cta.local_bytes as u64 - regs[sp * 32 + l];
                    }
                }
                Op::StackRestore { a } => {
                    let sp = prog.sp.unwrap() as usize;
                    for l in lanes(em) {
                        let v = get(regs, *a, l);
                        let used = (cta.local_bytes as u64).wrapping_sub(v);
                        if v > cta.local_bytes as u64 || used > cta.stack_size as u64 {
                            cta.thread_instructions += count + 32 * full;
                            return Err(cta.fault_stack(
                                self,
                                pc,
                                l,
                                "stackrestore to a value stacksave did not return",
                            ));
                        }
                        regs[sp * 32 + l] = used;
                    }
                }
                Op::Alloca { d, size, align } => {
                    let sp = prog.sp.unwrap() as usize;
                    let top = cta.local_bytes as u64;
                    for l in lanes(em) {
                        let p = top - regs[sp * 32 + l];
                        let n = get(regs, *size, l);
                        // The stack grows down: the block is [p', p) with p' aligned down.
                        let np = p.checked_sub(n).map(|x| x & !(*align as u64 - 1));
                        match np {
                            Some(np) if top - np <= cta.stack_size as u64 => {
                                regs[sp * 32 + l] = top - np;
                                regs[*d as usize * 32 + l] = np;
                            }
                            _ => {
                                cta.thread_instructions += count + 32 * full;
                                return Err(cta.fault_stack(
                                    self,
                                    pc,
                                    l,
                                    &format!("alloca of {n} bytes overflows the stack"),
                                ));
                            }
                        }
                    }
                }
                Op::Frame { d, size, align } => {
                    let sp = prog.sp.unwrap() as usize;
                    let top = cta.local_bytes as u64;
                    for l in lanes(em) {
                        let p = top - regs[sp * 32 + l];
                        // Grows down like `Alloca`: the frame is [p', p), p' aligned down.
                        let np = p
                            .checked_sub(*size as u64)
                            .map(|x| x & !(*align as u64 - 1));
                        match np {
                            Some(np) if top - np <= cta.stack_size as u64 => {
                                regs[sp * 32 + l] = top - np;
                                regs[*d as usize * 32 + l] = np;
                            }
                            _ => {
                                cta.thread_instructions += count + 32 * full;
                                let f = &prog.info[pc as usize].name;
                                return Err(cta.fault_stack(
                                    self,
                                    pc,
                                    l,
                                    &format!(
                                        "call of '{f}' at depth {} needs a frame of {size} \
                                         bytes for its local variables",
                                        self.call_depth()
                                    ),
                                ));
                            }
                        }
                    }
                }
                Op::Sys { call, args, ret } => {
                    if let Err(e) = super::sys::run(cta, self, regs, pc, em, *call, args, *ret) {
                        cta.thread_instructions += count + 32 * full;
                        return Err(e);
                    }
                }
                Op::Exit => {
                    self.exited |= em;
                    for e in self.stack.iter_mut() {
                        e.mask &= !em;
                    }
                }
                Op::End => {
                    return Err(cta.fault_internal(self, pc, "fell off the end of a function"))
                }
                Op::Bar {
                    id,
                    count: c,
                    arrive,
                    red,
                } => {
                    let l = em.trailing_zeros() as usize;
                    let id = get(regs, *id, l) as u32;
                    let c = c.map(|c| get(regs, c, l) as u32);
                    if id >= 16 {
                        cta.thread_instructions += count + 32 * full;
                        return Err(cta.fault_internal(self, pc, "barrier id out of range"));
                    }
                    let red = red.map(|(op, d, p)| {
                        let t = lanes(em).filter(|&l| get(regs, p, l) & 1 != 0).count();
                        (op, d, t as u32)
                    });
                    // Lanes whose guard was false do not wait (`barrier` is per thread; for
                    // the `.aligned` forms such code is undefined).
                    if !*arrive {
                        self.split_top(em);
                    }
                    break Ok(Stop::Barrier {
                        id,
                        count: c,
                        mask: em,
                        arrive_only: *arrive,
                        red,
                    });
                }
                Op::ClusterBar { wait: false } => {
                    if let Err(l) = cta.cbar.arrive(cta.rank, self.id, em) {
                        cta.thread_instructions += count + 32 * full;
                        return Err(cta.fault_cluster_bar(
                            self,
                            pc,
                            l,
                            "arrived a second time before the barrier completed (the ISA allows \
                             one arrival per thread and phase)",
                        ));
                    }
                    // A change other warps' waits may be waiting for (see `Cta::epoch`).
                    cta.epoch += 1;
                }
                Op::ClusterBar { wait: true } => match cta.cbar.wait(cta.rank, self.id, em) {
                    Ok(true) => {}
                    Ok(false) => {
                        // Not complete: run the wait again later, after the other warps and
                        // CTAs of the cluster had their turn (they are the ones to arrive).
                        self.stack.last_mut().unwrap().pc = pc;
                        self.rotate();
                        break Ok(Stop::Yield { wait: true });
                    }
                    Err(l) => {
                        cta.thread_instructions += count + 32 * full;
                        return Err(cta.fault_cluster_bar(
                            self,
                            pc,
                            l,
                            "waits without having arrived (barrier.cluster.arrive must come \
                             first)",
                        ));
                    }
                },
                Op::Mbar {
                    op,
                    space,
                    addr,
                    d,
                    a,
                    b,
                } => match self.mbar(cta, regs, pc, em, *op, *space, *addr, *d, *a, *b) {
                    Err(e) => {
                        cta.thread_instructions += count + 32 * full;
                        return Err(e);
                    }
                    Ok(true) => {}
                    Ok(false) => {
                        // A wait that found its phase incomplete: give way to the warp's other
                        // paths and to the other warps, which are the ones that can complete it.
                        self.rotate();
                        break Ok(Stop::Yield { wait: true });
                    }
                },
                Op::CpAsync {
                    dst,
                    dspace,
                    src,
                    sspace,
                    size,
                    src_size,
                    ignore,
                } => {
                    for l in lanes(em) {
                        let at = |a: &Addr| {
                            a.base
                                .map_or(0, |r| regs[r as usize * 32 + l])
                                .wrapping_add(a.off as u64)
                        };
                        let (da, sa) = (at(dst), at(src));
                        let n = *size as u64;
                        let mut k = src_size.map_or(n, |s| get(regs, s, l) & 0xffff_ffff);
                        if ignore.is_some_and(|p| get(regs, p, l) & 1 != 0) {
                            k = 0;
                        }
                        let k = k.min(n);
                        let mut buf = [0u8; 16];
                        if k > 0 {
                            let p = cta.resolve(self, *sspace, sa, n, l, pc, false)?;
                            // SAFETY: resolve checked [sa, sa+n) inside one live allocation and
                            // k <= n <= 16.
                            unsafe {
                                std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), k as usize)
                            };
                        }
                        let q = cta.resolve(self, *dspace, da, n, l, pc, true)?;
                        // SAFETY: resolve checked [da, da+n) inside the shared window; buf is a
                        // separate local array.
                        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), q, n as usize) };
                    }
                }
                Op::Shfl {
                    mode,
                    d,
                    p,
                    a,
                    b,
                    c,
                    mask: mm,
                } => {
                    // Each lane's source lane follows from its own operands, whatever its group:
                    // the groups are only checked (reading from a lane outside the group is
                    // undefined in the ISA, and gives that lane's register here).
                    if let Some(mm) = mm {
                        if let Err(e) = self.groups(cta, regs, pc, em, *mm) {
                            cta.thread_instructions += count + 32 * full;
                            return Err(e);
                        }
                    }
                    let mut x = [0; 32];
                    fetch(regs, *a, &mut x);
                    for l in lanes(em) {
                        let bv = get(regs, *b, l) as u32 & 0x1f;
                        let cv = get(regs, *c, l) as u32;
                        let (j, ok) = shfl_source(*mode, l as u32, bv, cv);
                        regs[*d as usize * 32 + l] = x[j] as u32 as u64;
                        if let Some(p) = p {
                            regs[*p as usize * 32 + l] = ok as u64;
                        }
                    }
                }
                Op::Vote {
                    mode,
                    d,
                    a,
                    neg,
                    mask: mm,
                } => {
                    // Without a membermask (the pre-sm_70 forms) every active lane is a member.
                    let groups = match mm {
                        Some(mm) => match self.groups(cta, regs, pc, em, *mm) {
                            Ok(g) => g,
                            Err(e) => {
                                cta.thread_instructions += count + 32 * full;
                                return Err(e);
                            }
                        },
                        None => Groups::one(em),
                    };
                    let mut ballot = 0u32;
                    for l in lanes(em) {
                        if (get(regs, *a, l) & 1 != 0) != *neg {
                            ballot |= 1 << l;
                        }
                    }
                    for g in groups.iter() {
                        // Lanes outside the group contribute 0 to its ballot.
                        let b = ballot & g;
                        let v = match mode {
                            VoteMode::Ballot => b as u64,
                            VoteMode::All => (b == g) as u64,
                            VoteMode::Any => (b != 0) as u64,
                            VoteMode::Uni => (b == g || b == 0) as u64,
                        };
                        for l in lanes(g) {
                            regs[*d as usize * 32 + l] = v;
                        }
                    }
                }
                Op::WarpSync { mask: mm } => match self.groups(cta, regs, pc, em, *mm) {
                    Err(e) => {
                        cta.thread_instructions += count + 32 * full;
                        return Err(e);
                    }
                    Ok(g) => {
                        // Each group of lanes with one membermask waits for its lanes on other
                        // paths; lanes whose guard was false go on. (A waiting top entry
                        // parks: the loop runs another path.)
                        for grp in g.iter() {
                            let m = get(regs, *mm, grp.trailing_zeros() as usize) as u32;
                            self.warp_arrive(m, grp);
                        }
                        if em & self.warp_waiting() != 0 {
                            self.split_top(em);
                            if let Some(t) = self.stack.last_mut() {
                                t.park = WARP_PARK;
                            }
                        }
                    }
                },
                Op::Match {
                    all,
                    bits,
                    d,
                    p,
                    a,
                    mask: mm,
                } => {
                    let groups = match self.groups(cta, regs, pc, em, *mm) {
                        Ok(g) => g,
                        Err(e) => {
                            cta.thread_instructions += count + 32 * full;
                            return Err(e);
                        }
                    };
                    let vm = if *bits == 64 {
                        u64::MAX
                    } else {
                        u32::MAX as u64
                    };
                    // Participants: the non-exited (here: active) lanes of each lane's group.
                    for g in groups.iter() {
                        for l in lanes(g) {
                            let v = get(regs, *a, l) & vm;
                            let mut same = 0u32;
                            for j in lanes(g) {
                                if get(regs, *a, j) & vm == v {
                                    same |= 1 << j;
                                }
                            }
                            let (dv, pv) = if *all {
                                if same == g {
                                    (g, true)
                                } else {
                                    (0, false)
                                }
                            } else {
                                (same, true)
                            };
                            if let Some(d) = d {
                                regs[*d as usize * 32 + l] = dv as u64;
                            }
                            if let Some(p) = p {
                                regs[*p as usize * 32 + l] = pv as u64;
                            }
                        }
                    }
                }
                Op::Redux { op, d, a, mask: mm } => {
                    let groups = match self.groups(cta, regs, pc, em, *mm) {
                        Ok(g) => g,
                        Err(e) => {
                            cta.thread_instructions += count + 32 * full;
                            return Err(e);
                        }
                    };
                    for g in groups.iter() {
                        let vals = lanes(g).map(|l| get(regs, *a, l) as u32);
                        let r = redux(*op, vals);
                        for l in lanes(g) {
                            regs[*d as usize * 32 + l] = r as u64;
                        }
                    }
                }
                Op::Elect { d, p, mask: mm } => {
                    let groups = match self.groups(cta, regs, pc, em, *mm) {
                        Ok(g) => g,
                        Err(e) => {
                            cta.thread_instructions += count + 32 * full;
                            return Err(e);
                        }
                    };
                    // Each group elects its lowest active lane (deterministic, as the ISA
                    // requires for the same membermask).
                    for g in groups.iter() {
                        let leader = g.trailing_zeros() as u64;
                        for l in lanes(g) {
                            if let Some(d) = d {
                                regs[*d as usize * 32 + l] = leader;
                            }
                            if let Some(p) = p {
                                regs[*p as usize * 32 + l] = (l as u64 == leader) as u64;
                            }
                        }
                    }
                }
                Op::Activemask { d } => {
                    for l in lanes(em) {
                        regs[*d as usize * 32 + l] = mask as u64;
                    }
                }
                Op::Isspacep {
                    d,
                    a,
                    space,
                    cluster,
                } => {
                    for l in lanes(em) {
                        let v = get(regs, *a, l);
                        let in_sh = (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&v)
                            && cta.names_cta(v - SHARED_WINDOW, *cluster);
                        let in_lo = (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&v);
                        let r = match space {
                            MSpace::Shared => in_sh,
                            MSpace::Local => in_lo,
                            _ => !in_sh && !in_lo && mem::find(v).is_some(),
                        };
                        regs[*d as usize * 32 + l] = r as u64;
                    }
                }
                Op::Nop => {}
                Op::Trap => return Err(cta.fault_trap(self, pc, em)),
                Op::Brkpt => {
                    let mut e = cta.fault_trap(self, pc, em);
                    e.message = format!("brkpt with no debugger attached{}", &e.message[4..]);
                    return Err(e);
                }
            }
        };
        cta.thread_instructions += count + 32 * full;
        r
    }

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
    fn sibling(&self) -> Option<(usize, bool)> {
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
    fn warp_arrive(&mut self, m: u32, lanes: u32) {
        match self.wsync.iter_mut().find(|w| w.0 == m) {
            Some(w) => w.1 |= lanes,
            None => self.wsync.push((m, lanes)),
        }
        self.settle_warp_syncs();
    }

    /// Lanes waiting at a `bar.warp.sync` whose membermask has not arrived yet.
    fn warp_waiting(&self) -> u32 {
        self.wsync.iter().fold(0, |w, &(_, a)| w | a)
    }

    /// Completes every `bar.warp.sync` whose non-exited members all arrived, and resumes
    /// the parked entries none of whose lanes still wait.
    fn settle_warp_syncs(&mut self) {
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
    fn split_top(&mut self, em: u32) {
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

    /// Lanes `lanes` of call frame `id` returned (or its entry was dropped, `lanes` 0): frees
    /// the frame once no lane that made the call is left in the callee.
    fn drop_call(&mut self, id: u32, lanes: u32) {
        let exited = self.exited;
        let Some(f) = self.calls.get_mut(id as usize) else {
            return;
        };
        f.pending &= !lanes;
        if f.used && f.pending & !exited == 0 {
            f.used = false;
            self.free_calls.push(id);
        }
    }

    /// Calls in progress.
    fn call_depth(&self) -> usize {
        self.calls.len() - self.free_calls.len()
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

    /// Releases every entry parked at barrier `id`.
    pub fn release(&mut self, id: u32) {
        for e in self.stack.iter_mut() {
            if e.park == id {
                e.park = NO_PARK;
            }
        }
    }

    /// `Op::Mbar` over the active lanes, in lane order. Ok(false): a wait found an incomplete
    /// phase (`try_wait` then leaves its destination alone and runs again later, as a thread
    /// suspended by it would; once the CTA found no progress for long, the system time limit
    /// has passed and it returns False).
    #[allow(clippy::too_many_arguments)]
    fn mbar(
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
    fn groups(
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

    /// `Op::Call`: see there.
    fn call(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        site: u32,
    ) -> Result<(), Fault> {
        let prog = cta.prog;
        let s = &prog.sites[site as usize];
        let sp = prog.sp.expect("calls allocate the stack pointer") as usize;
        let mut which = [0u8; 32];
        if let Some(sel) = s.sel {
            for l in lanes(em) {
                let a = get(regs, sel, l);
                match s
                    .callees
                    .iter()
                    .position(|&f| prog.funcs[f as usize].addr == a)
                {
                    Some(k) => which[l] = k as u8,
                    None => return Err(cta.fault_bad_call(self, pc, l, a)),
                }
            }
        }
        let bytes = s.save.map_or(0, |f| prog.funcs[f as usize].frame_bytes) as u64;
        for l in lanes(em) {
            if regs[sp * 32 + l] + bytes > cta.stack_size as u64 {
                let depth = self.call_depth() + 1;
                let callee = &prog.funcs[s.callees[which[l] as usize] as usize].name;
                return Err(cta.fault_stack(
                    self,
                    pc,
                    l,
                    &format!("call of '{callee}' at depth {depth} needs {bytes} bytes more"),
                ));
            }
        }
        let id = match self.free_calls.pop() {
            Some(id) => id,
            None => {
                self.calls.push(CallFrame {
                    site,
                    mask: 0,
                    pending: 0,
                    used: false,
                    which,
                    regs: Vec::new(),
                    local: Vec::new(),
                });
                self.calls.len() as u32 - 1
            }
        };
        let wid = self.id;
        let fr = &mut self.calls[id as usize];
        fr.site = site;
        fr.mask = em;
        fr.pending = em;
        fr.used = true;
        fr.which = which;
        fr.regs.clear();
        fr.local.clear();
        fr.regs.extend_from_slice(&regs[sp * 32..sp * 32 + 32]);
        if let Some(f) = s.save {
            let f = &prog.funcs[f as usize];
            for &(a, b) in &f.regs {
                fr.regs
                    .extend_from_slice(&regs[a as usize * 32..b as usize * 32]);
            }
            for l in lanes(em) {
                for &(o, n) in &f.locals {
                    fr.local
                        .extend_from_slice(cta.local_at(wid, l, o, n as usize));
                }
            }
            for l in lanes(em) {
                regs[sp * 32 + l] += bytes;
            }
        }
        // The caller's entry (on top: its pc is already the `CallRet`) waits on this frame.
        // Lanes whose guard is false make no call: as if the guard were a branch around it,
        // they go on after the `CallRet`, where the calling lanes (an entry of their own)
        // rejoin them; so they can reach a barrier the callee waits at.
        let top = self.stack.last_mut().expect("a call runs on an entry");
        if em != 0 && em != top.mask {
            top.pc = pc + 2;
            self.stack.push(Entry {
                pc: pc + 1,
                mask: em,
                rpc: pc + 2,
                park: NO_PARK,
                call: id,
            });
        } else {
            top.call = id;
        }
        // Arguments: per lane, gather every value first (an actual may be the callee's own
        // formal under recursion), then scatter into the formals.
        let mut buf: Vec<u8> = Vec::new();
        for l in lanes(em) {
            let callee = &prog.funcs[s.callees[which[l] as usize] as usize];
            buf.clear();
            for (a, f) in s.args.iter().zip(&callee.params) {
                let n = f.bytes();
                match *a {
                    Actual::Val(v) => {
                        buf.extend_from_slice(&get(regs, v, l).to_le_bytes());
                        buf.resize(buf.len() - 8 + n.min(8), 0);
                        buf.resize(buf.len() + n.saturating_sub(8), 0);
                    }
                    Actual::Local(o) => {
                        buf.extend_from_slice(cta.local_at(self.id, l, o, n));
                    }
                }
            }
            let mut k = 0;
            for f in &callee.params {
                let n = f.bytes();
                store_loc(cta, self.id, regs, *f, l, &buf[k..k + n]);
                k += n;
            }
        }
        // One group of lanes per distinct callee, the first on top of the stack.
        for k in (0..s.callees.len()).rev() {
            let mut m = 0u32;
            for l in lanes(em) {
                if which[l] as usize == k {
                    m |= 1 << l;
                }
            }
            if m != 0 {
                let f = &prog.funcs[s.callees[k] as usize];
                self.stack.push(Entry {
                    pc: f.entry,
                    mask: m,
                    rpc: f.exit,
                    park: NO_PARK,
                    call: NO_CALL,
                });
            }
        }
        Ok(())
    }

    /// `Op::CallRet`: see there.
    fn call_ret(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        site: u32,
    ) -> Result<(), Fault> {
        let prog = cta.prog;
        let sp = prog.sp.unwrap() as usize;
        // The frame the entry's call pushed (the entry is on top: it runs this op).
        let id = self.stack.last().map_or(NO_CALL, |e| e.call);
        if self
            .calls
            .get(id as usize)
            .is_none_or(|f| f.site != site || !f.used)
        {
            return Err(cta.fault_internal(self, pc, "call frames out of step"));
        }
        if let Some(e) = self.stack.last_mut() {
            e.call = NO_CALL;
        }
        let f = &self.calls[id as usize];
        let s = &prog.sites[site as usize];
        // The entry's lanes: all the calling lanes, or a group of them that left the callee
        // while others still wait in it.
        let live = f.pending & em;
        // Return values, gathered per lane before the caller's state comes back.
        let mut buf: Vec<u8> = Vec::new();
        let mut offs = [0usize; 33];
        for l in lanes(live) {
            offs[l] = buf.len();
            let callee = &prog.funcs[s.callees[f.which[l] as usize] as usize];
            for r in &callee.rets {
                let n = r.bytes();
                load_loc(cta, self.id, regs, *r, l, n, &mut buf);
            }
        }
        // Only the returning lanes' state comes back: the warp's other lanes may have run
        // (and called) meanwhile, on other paths, or still be in the callee.
        let restore = |regs: &mut [u64], r: usize, saved: &[u64]| {
            let row = &mut regs[r * 32..r * 32 + 32];
            if live == FULL {
                row.copy_from_slice(saved);
            } else {
                for l in lanes(live) {
                    row[l] = saved[l];
                }
            }
        };
        restore(regs, sp, &f.regs[..32]);
        let mut k = 32;
        if let Some(fi) = s.save {
            let fu = &prog.funcs[fi as usize];
            for &(a, b) in &fu.regs {
                for r in a as usize..b as usize {
                    restore(regs, r, &f.regs[k..k + 32]);
                    k += 32;
                }
            }
            // Saved lane by lane for every calling lane.
            let per: usize = fu.locals.iter().map(|&(_, n)| n as usize).sum();
            for (k, l) in lanes(f.mask).enumerate() {
                if live >> l & 1 == 0 {
                    continue;
                }
                let mut j = k * per;
                for &(o, n) in &fu.locals {
                    let n = n as usize;
                    cta.local_at(self.id, l, o, n)
                        .copy_from_slice(&f.local[j..j + n]);
                    j += n;
                }
            }
        }
        for l in lanes(live) {
            let callee = &prog.funcs[s.callees[f.which[l] as usize] as usize];
            let mut k = offs[l];
            for (d, r) in s.rets.iter().zip(&callee.rets) {
                let n = r.bytes();
                let v = &buf[k..k + n];
                k += n;
                let m = d.bytes().min(n);
                match *d {
                    Loc::Reg(..) => store_loc(cta, self.id, regs, *d, l, v),
                    Loc::Local(o, _) => {
                        store_loc(cta, self.id, regs, Loc::Local(o, m as u32), l, &v[..m])
                    }
                }
            }
        }
        self.drop_call(id, em);
        Ok(())
    }

    #[inline(always)]
    fn post(&self, fl: FloatMods, o: &mut Lanes) {
        if fl.ftz {
            ftz32(o);
        }
        if fl.sat {
            sat32(o);
        }
    }
}

/// Writes `v` (little-endian bytes) to a formal or destination of lane `l`: a register takes
/// up to 8 bytes (zero-extended), local memory exactly the location's bytes.
fn store_loc(cta: &mut Cta, warp: u32, regs: &mut [u64], loc: Loc, l: usize, v: &[u8]) {
    match loc {
        Loc::Reg(r, _) => {
            let mut b = [0u8; 8];
            let n = v.len().min(8);
            b[..n].copy_from_slice(&v[..n]);
            regs[r as usize * 32 + l] = u64::from_le_bytes(b);
        }
        Loc::Local(o, n) => {
            let n = (n as usize).min(v.len());
            cta.local_at(warp, l, o, n).copy_from_slice(&v[..n]);
        }
    }
}

/// Appends `n` bytes of a location of lane `l` to `out`.
fn load_loc(
    cta: &mut Cta,
    warp: u32,
    regs: &[u64],
    loc: Loc,
    l: usize,
    n: usize,
    out: &mut Vec<u8>,
) {
    match loc {
        Loc::Reg(r, _) => {
            let b = regs[r as usize * 32 + l].to_le_bytes();
            out.extend_from_slice(&b[..n.min(8)]);
            out.resize(out.len() + n.saturating_sub(8), 0);
        }
        Loc::Local(o, _) => out.extend_from_slice(cta.local_at(warp, l, o, n)),
    }
}

/// Lane `l`'s `n` elements of `size` bytes at `p` into `d`: in one access when the vector is
/// 8 or 16 aligned bytes ([`whole`]), else element by element.
///
/// # Safety
/// `p` must be valid for reading `n * size` bytes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn ld_vector(
    regs: &mut [u64],
    d: &[Option<Reg>],
    p: *const u8,
    l: usize,
    n: u8,
    size: u8,
    sext: bool,
) {
    let len = n as u64 * size as u64;
    let copy = if whole::applies(n, len) {
        // SAFETY: forwarded.
        unsafe { whole::load(p, len) }
    } else {
        None
    };
    let from = copy.as_ref().map_or(p, |c| c.as_ptr());
    for (k, dk) in d.iter().enumerate().take(n as usize) {
        // SAFETY: element k of the range (or of its copy); reads are unaligned-safe.
        let v = unsafe { read_sized(from.add(k * size as usize), size, sext) };
        if let Some(r) = *dk {
            regs[r as usize * 32 + l] = v;
        }
    }
}

/// Lane `l`'s `n` source elements of `size` bytes to `p`: in one access when the vector is 8
/// or 16 aligned bytes ([`whole`]), else element by element.
///
/// # Safety
/// `p` must be valid for writing `n * size` bytes.
#[inline(always)]
unsafe fn st_vector(regs: &[u64], s: &[Src], sink: u8, p: *mut u8, l: usize, n: u8, size: u8) {
    let len = n as u64 * size as u64;
    if whole::applies(n, len) {
        let mut bytes = [0u8; 16];
        for (k, sk) in s.iter().enumerate().take(n as usize) {
            let at = k * size as usize;
            let v = get(regs, *sk, l).to_le_bytes();
            bytes[at..at + size as usize].copy_from_slice(&v[..size as usize]);
        }
        // SAFETY: forwarded.
        if unsafe { whole::store(p, len, &bytes) } {
            return;
        }
    }
    // Element by element, leaving the `_` sinks of a 256-bit store alone.
    for (k, sk) in s.iter().enumerate().take(n as usize) {
        if sink & (1 << k) == 0 {
            // SAFETY: element k of the range.
            unsafe { write_sized(p.add(k * size as usize), size, get(regs, *sk, l)) };
        }
    }
}

/// # Safety
/// `p` must be valid for reading `size` bytes.
unsafe fn read_sized(p: *const u8, size: u8, sext: bool) -> u64 {
    // SAFETY: the caller guarantees the range; unaligned reads are allowed by read_unaligned.
    unsafe {
        match size {
            1 => {
                let v = p.read_unaligned();
                if sext {
                    v as i8 as i64 as u64
                } else {
                    v as u64
                }
            }
            2 => {
                let v = (p as *const u16).read_unaligned();
                if sext {
                    v as i16 as i64 as u64
                } else {
                    v as u64
                }
            }
            4 => {
                let v = (p as *const u32).read_unaligned();
                if sext {
                    v as i32 as i64 as u64
                } else {
                    v as u64
                }
            }
            _ => (p as *const u64).read_unaligned(),
        }
    }
}

/// # Safety
/// `p` must be valid for writing `size` bytes.
unsafe fn write_sized(p: *mut u8, size: u8, v: u64) {
    // SAFETY: the caller guarantees the range.
    unsafe {
        match size {
            1 => p.write_unaligned(v as u8),
            2 => (p as *mut u16).write_unaligned(v as u16),
            4 => (p as *mut u32).write_unaligned(v as u32),
            _ => (p as *mut u64).write_unaligned(v),
        }
    }
}

/// Performs one atomic read-modify-write at `p` (checked, naturally aligned) and returns the old
/// value. Global memory is shared between host threads, so these are real host atomics.
fn atomic(p: *mut u8, op: AtomOp, ty: AtomTy, a: u64, b: u64) -> u64 {
    use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::SeqCst};
    match atom_width(ty) {
        2 => {
            // SAFETY: p is 2-byte aligned (checked by resolve) and inside live memory.
            let at = unsafe { AtomicU16::from_ptr(p as *mut u16) };
            at.fetch_update(SeqCst, SeqCst, |o| Some(rmw(op, ty, o as u64, a, b) as u16))
                .unwrap() as u64
        }
        4 => {
            // SAFETY: p is 4-byte aligned (checked by resolve) and inside live memory.
            let at = unsafe { AtomicU32::from_ptr(p as *mut u32) };
            at.fetch_update(SeqCst, SeqCst, |o| Some(rmw(op, ty, o as u64, a, b) as u32))
                .unwrap() as u64
        }
        _ => {
            // SAFETY: p is 8-byte aligned (checked by resolve) and inside live device memory.
            let at = unsafe { AtomicU64::from_ptr(p as *mut u64) };
            at.fetch_update(SeqCst, SeqCst, |o| Some(rmw(op, ty, o, a, b)))
                .unwrap()
        }
    }
}

/// A 16-byte atomic read-modify-write at `p` (checked, 16-aligned, shared between host
/// threads): `lock cmpxchg16b` on x86-64 (portable-atomic picks it at run time, with a lock
/// fallback elsewhere). Returns the old value.
fn atomic128(p: *mut u8, new: impl Fn(u128) -> u128) -> u128 {
    use portable_atomic::{AtomicU128, Ordering::SeqCst};
    // SAFETY: p is 16-byte aligned (checked by resolve/place_warp) and inside live memory.
    let at = unsafe { AtomicU128::from_ptr(p as *mut u128) };
    at.fetch_update(SeqCst, SeqCst, |o| Some(new(o))).unwrap()
}

/// An atomic on memory only this host thread touches (the CTA's shared or local memory: one
/// host thread runs a whole CTA, see `exec`): a plain read-modify-write is exactly atomic.
///
/// # Safety
/// `p` must be valid for reading and writing the type's width, and accessed by no other thread.
unsafe fn atomic_private(p: *mut u8, op: AtomOp, ty: AtomTy, a: u64, b: u64) -> u64 {
    let w = atom_width(ty);
    // SAFETY: the caller guarantees the range and exclusivity.
    unsafe {
        let old = read_sized(p, w, false);
        write_sized(p, w, rmw(op, ty, old, a, b));
        old
    }
}
