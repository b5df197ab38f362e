//! The warp interpreter: one IR op at a time over the warp's active lanes, with the
//! reconvergence stack driven by the immediate post-dominators computed at load.

use super::access::*;
use super::cta::{Cta, Fault, Place};
use super::race;
use super::regfile::*;
use super::synccheck::{self, SyncErrorKind};
use super::whole;
use crate::ir::*;
use crate::jit;
use crate::mem;
use crate::sem::atomic::atom_width;
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
    /// A warp-wide matrix instruction (pc) that the last of the warp's paths to arrive ran for
    /// every lane, and the lanes of the other paths, parked there, that still pass it without
    /// running it again.
    pub matrix_rest: Option<(u32, u32)>,
    /// synccheck: an aligned CTA barrier part of the warp's live lanes reached. The others may
    /// still come to the same instruction (lanes that went ahead of a path waiting on an
    /// mbarrier, `sched::rotate`): only when the barrier completes without them, or they reach
    /// another barrier instruction, is it an error.
    pub partial_bar: Option<PartialBar>,
    /// synccheck: a partial arrival the barrier's completion left incomplete, reported when
    /// the warp runs next.
    pub sync_error: Option<PartialBar>,
}

/// Lanes `arrived` of the warp at the aligned barrier `id` at `pc`, of the lanes `expected`
/// (live at the first arrival).
#[derive(Clone, Copy, Debug)]
pub struct PartialBar {
    pub pc: u32,
    pub id: u32,
    pub expected: u32,
    pub arrived: u32,
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

/// The disjoint groups of lanes a `.sync` warp collective computes over (see `Warp::groups`).
pub(super) struct Groups {
    pub(super) n: usize,
    pub(super) g: [u32; 32],
}

impl Groups {
    pub(super) fn one(em: u32) -> Groups {
        let mut g = [0; 32];
        g[0] = em;
        Groups { n: 1, g }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.g[..self.n].iter().copied()
    }
}

impl Warp {
    /// Ends every thread of the warp where it is, as if each had executed `exit` (memcheck
    /// ends a warp that made a bad access this way).
    pub fn end(&mut self) {
        self.exited |= self.valid;
        self.stack.clear();
        self.wsync.clear();
        self.matrix_rest = None;
    }

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
        // In verify mode: what a compiled segment computed, until the interpreter has run it.
        let mut pending: Option<Box<Pending>> = None;
        // The start of a segment a stopped compiled run left to the interpreter ([`jit::Code::run`]).
        let mut resume_at = u32::MAX;
        if let Some(p) = self.sync_error.take() {
            return Err(cta.fault_sync(self, p.pc, p.arrived, SyncErrorKind::DivergentThreads));
        }
        let r = loop {
            // Memcheck: the last instruction made a bad access (`memcheck`); the warp ends.
            // Tested before it is taken: `take` would store into the CTA at every instruction.
            if cta.halt.is_some() {
                if let Some(e) = cta.halt.take() {
                    cta.ending = true;
                    break Err(*e);
                }
            }
            if let Some(p) = &pending {
                if self.stack.len() == p.depth {
                    p.compare(cta, regs);
                    pending = None;
                }
            }
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
            if let (Some(code), None) = (cta.jit, &cta.race) {
                if let Some(i) = code.at(pc, top.rpc).filter(|_| {
                    // The path a resumed segment leaves to the interpreter starts where the
                    // segment does: it must not enter it again. (Checked only at a segment's
                    // start: this loop is the interpreter's hot path.)
                    std::mem::replace(&mut resume_at, u32::MAX) != pc
                }) {
                    let seg = code.seg(i);
                    let own = cta.rank as usize * cta.shared_len;
                    // (Filled only for a segment that reads `%tid`.)
                    let tid: [u32; 96];
                    let tid_ptr = if seg.tid {
                        tid = cta.tid_rows(self.id);
                        tid.as_ptr()
                    } else {
                        std::ptr::null()
                    };
                    let mut ctx = jit::Ctx {
                        shared: cta.shared.as_mut_ptr().wrapping_add(own),
                        // (At most 2^24, the compiled checks' assumption: clamping only
                        // makes them stricter.)
                        shared_len: (cta.shared_len as u64).min(1 << CLUSTER_RANK_SHIFT),
                        count: 0,
                        undo: std::ptr::null_mut(),
                        gcache: cta.gcache.entries(),
                        atomic: crate::exec::jit_atomic,
                        params: cta.params.as_ptr(),
                        params_len: cta.params.len() as u64,
                        tid: tid_ptr,
                        sreg: [
                            cta.ntid[0],
                            cta.ntid[1],
                            cta.ntid[2],
                            cta.ctaid[0],
                            cta.ctaid[1],
                            cta.ctaid[2],
                            cta.nctaid[0],
                            cta.nctaid[1],
                            cta.nctaid[2],
                        ],
                        dry: 0,
                        max_iters: 0,
                        iters: 0,
                        taken: 0,
                    };
                    // (In verify mode, while the interpreter runs a compared segment, everything
                    // is interpreted; else a segment is compared or runs compiled. Comparing
                    // runs a segment twice: never one whose global atomics other host threads
                    // would see done twice. A deferred store is not made on the compiled run
                    // compared, `Ctx::dry`: the interpreter's run loads what was there before
                    // and stores it.)
                    let compare = cta.verify
                        && pending.is_none()
                        && !seg.global_atomic
                        && code.verify_this(i);
                    ctx.dry = compare as u64;
                    // A loop body's segment takes its back edge itself, as the interpreter
                    // would, as often as the time slice allows: not on a path that ends at
                    // the branch, nor on a compared run (the interpreter reruns one
                    // iteration, and then compares the branch it takes, `Pending::taken`).
                    if seg.back.is_some() && top.rpc != seg.end && !compare {
                        ctx.max_iters = budget as u64 - 1;
                    }
                    if !cta.verify || (pending.is_none() && !compare) {
                        // SAFETY: regs is this warp's file of the program the code was
                        // compiled from; ctx describes this CTA.
                        let r = unsafe { code.run(i, regs, mask, &mut ctx) };
                        if ctx.iters != 0 {
                            // The iterations before the last, their back edges included,
                            // are done whatever the last did. (Apart: most runs take none.)
                            count += looped(i, code, &ctx, mask);
                            budget -= ctx.iters as u32;
                        }
                        match r {
                            Ok(()) => {
                                top.pc = seg.end;
                                count +=
                                    seg.unguarded as u64 * mask.count_ones() as u64 + ctx.count;
                                continue;
                            }
                            // Stopped, with nothing of the last iteration kept: the interpreter
                            // runs it from the segment's start.
                            Err(0) => count += ctx.count,
                            Err(done) => {
                                // An atomic segment stopped part way: the interpreter runs
                                // it for the lanes not done, as a path ending where it ends.
                                top.pc = seg.end;
                                count +=
                                    seg.unguarded as u64 * done.count_ones() as u64 + ctx.count;
                                self.stack.push(Entry {
                                    pc,
                                    mask: mask & !done,
                                    rpc: seg.end,
                                    park: NO_PARK,
                                    call: NO_CALL,
                                });
                                resume_at = pc;
                                continue;
                            }
                        }
                    } else if compare {
                        let before = regs.to_vec();
                        let shared = own..own + cta.shared_len;
                        let sh_before = cta.shared[shared.clone()].to_vec();
                        // SAFETY: as above.
                        if unsafe { code.run(i, regs, mask, &mut ctx) }.is_ok() {
                            let rows = seg.outs.iter().map(|&r| *row(regs, r)).collect();
                            let sh_after = cta.shared[shared.clone()].to_vec();
                            regs.copy_from_slice(&before);
                            cta.shared[shared].copy_from_slice(&sh_before);
                            // The interpreter runs the segment as a path of its own that ends
                            // where the segment does; `compare` runs when it is popped.
                            top.pc = seg.end;
                            pending = Some(Box::new(Pending {
                                depth: self.stack.len(),
                                seg: i,
                                taken: ctx.taken != 0,
                                rows,
                                shared: sh_after,
                                own,
                                warp: self.id,
                                mask,
                            }));
                            self.stack.push(Entry {
                                pc,
                                mask,
                                rpc: seg.end,
                                park: NO_PARK,
                                call: NO_CALL,
                            });
                            continue;
                        }
                        // Stopped: the interpreter runs it all, from the state before.
                        regs.copy_from_slice(&before);
                        cta.shared[shared].copy_from_slice(&sh_before);
                    }
                }
            }
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
                    let [tmp, .., o] = &mut cta.tmp;
                    let x = opnd(regs, *a, tmp);
                    if !src.float() && !dst.float() && !*sat {
                        cvt_int_lanes(x, o, *dst, *src);
                    } else {
                        for l in lanes(em) {
                            o[l] = cvt(x[l], *dst, *src, *rnd, *sat, *ftz);
                        }
                    }
                    write(regs, *d, o, em);
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
                    if cta.race.is_some() {
                        cta.race_lanes(self.id, *space, &addrs, em, len, race::Access::Read, pc);
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
                    if cta.initcheck {
                        super::initcheck::check_load(cta, self.id, *space, &addrs, em, len, pc);
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
                    if cta.race.is_some() {
                        cta.race_lanes(self.id, *space, &addrs, em, len, race::Access::Write, pc);
                    }
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
                    if cta.race.is_some() {
                        cta.race_lanes(self.id, *space, &addrs, em, size, race::Access::Atomic, pc);
                    }
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
                            // The shared-memory counter (histograms): a 32-bit add, inline,
                            // in lane order (lanes on one address see each other's adds). The
                            // operand is read and the old values written as whole rows, not
                            // lane by lane: this loop is a histogram's hot spot.
                            let ptrs = lane_ptrs(pl, &addrs);
                            let [ta, .., o] = &mut cta.tmp;
                            let av = opnd(regs, *a, ta);
                            for l in lanes(em) {
                                let p = ptrs[l] as *mut u32;
                                // SAFETY: place_warp checked p 4-byte aligned inside this
                                // CTA's own memory, which no other thread touches.
                                let old = unsafe { p.read() };
                                // SAFETY: as above.
                                unsafe { p.write(old.wrapping_add(av[l] as u32)) };
                                o[l] = old as u64;
                            }
                            if let Some(d) = d {
                                write(regs, *d, o, em);
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
                    if cta.race.is_some() {
                        cta.race_lanes(self.id, *space, &addrs, em, 16, race::Access::Atomic, pc);
                    }
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
                    if cta.race.is_some() {
                        let mut addrs = [0; 32];
                        lane_addrs(regs, *addr, &mut addrs);
                        let len = es * *n as u64;
                        cta.race_lanes(self.id, *space, &addrs, em, len, race::Access::Atomic, pc);
                    }
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
                                access: None,
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
                    aligned,
                } => {
                    let l = em.trailing_zeros() as usize;
                    let id = get(regs, *id, l) as u32;
                    // synccheck: an aligned barrier reached by part of the warp.
                    if *aligned && synccheck::enabled() {
                        if let Err(p) = self.bar_arrival(pc, id, em) {
                            cta.thread_instructions += count + 32 * full;
                            return Err(cta.fault_sync(
                                self,
                                p.pc,
                                p.arrived,
                                SyncErrorKind::DivergentThreads,
                            ));
                        }
                    }
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
                    // The copy lands in shared memory at issue: racecheck counts it a write by
                    // the issuing thread then (see `race`).
                    if cta.race.is_some() {
                        let mut addrs = [0; 32];
                        lane_addrs(regs, *dst, &mut addrs);
                        let n = *size as u64;
                        cta.race_lanes(self.id, *dspace, &addrs, em, n, race::Access::Write, pc);
                    }
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
                    // An ordering point of the warp for racecheck (`race`).
                    cta.race_warp_sync(self.id);
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
                    // An ordering point of the warp for racecheck (`race`).
                    cta.race_warp_sync(self.id);
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
                Op::WarpSync { mask: mm } => {
                    // An ordering point of the warp for racecheck (`race`).
                    cta.race_warp_sync(self.id);
                    // A lane outside its own membermask is undefined behaviour in the ISA; an
                    // H100 lets such lanes go on without waiting and the launch succeeds
                    // (measured, driver 580.159: `bad_syncwarp` in
                    // scripts/ground-truth/results/sanitizer-h100.txt). They go on here too.
                    let mut outside = 0u32;
                    for l in lanes(em) {
                        if (get(regs, *mm, l) as u32) >> l & 1 == 0 {
                            outside |= 1 << l;
                        }
                    }
                    // synccheck reports it, for every thread that executed it (as
                    // compute-sanitizer counts), and the launch fails.
                    if outside != 0 && synccheck::enabled() {
                        cta.thread_instructions += count + 32 * full;
                        return Err(cta.fault_sync(self, pc, em, SyncErrorKind::InvalidArguments));
                    }
                    let em = em & !outside;
                    if em == 0 {
                        continue;
                    }
                    match self.groups(cta, regs, pc, em, *mm) {
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
                    }
                }
                Op::Match {
                    all,
                    bits,
                    d,
                    p,
                    a,
                    mask: mm,
                } => {
                    // An ordering point of the warp for racecheck (`race`).
                    cta.race_warp_sync(self.id);
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
                    // An ordering point of the warp for racecheck (`race`).
                    cta.race_warp_sync(self.id);
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
                Op::Tex(t) => self.tex(cta, regs, pc, em, t)?,
                Op::Txq {
                    d,
                    tex,
                    query,
                    level,
                } => self.txq(cta, regs, pc, em, *d, *tex, *query, *level)?,
                Op::Surf(s) => self.surf(cta, regs, pc, em, s)?,
                Op::Matrix(x) => {
                    // `.sync`: the warp's threads run it together. Lanes that arrive on one
                    // path wait there (parked at the instruction, as at a bar.warp.sync) for
                    // the others; the last to arrive runs it for all, and the waiting paths
                    // then pass it.
                    let live = self.valid & !self.exited;
                    match self.matrix_rest {
                        Some((at, rest)) if at == pc && em & rest == em => {
                            let rest = rest & !em;
                            self.matrix_rest = (rest != 0).then_some((pc, rest));
                        }
                        _ if em == live => self.matrix(cta, regs, pc, em, x)?,
                        _ => {
                            self.warp_arrive(live, em);
                            if em & self.warp_waiting() != 0 {
                                self.split_top(em);
                                if let Some(t) = self.stack.last_mut() {
                                    t.pc = pc;
                                    t.park = WARP_PARK;
                                }
                            } else {
                                self.matrix(cta, regs, pc, live, x)?;
                                self.matrix_rest = Some((pc, live & !em));
                            }
                        }
                    }
                }
                Op::Bulk(b) => self.bulk(cta, regs, pc, em, b)?,
                &Op::ClcTryCancel {
                    space,
                    addr,
                    mbar,
                    multicast,
                } => self.clc_try_cancel(cta, regs, pc, em, space, addr, mbar, multicast)?,
                Op::TcMma(x) => self.tc_mma(cta, regs, pc, em, x)?,
                Op::TcCopy(x) => self.tc_copy(cta, regs, pc, em, x)?,
                Op::TcCommit { space, addr, mask } => {
                    let r = self.tc_commit(cta, regs, pc, em, *space, *addr, *mask);
                    if let Err(e) = r {
                        cta.thread_instructions += count + 32 * full;
                        return Err(e);
                    }
                    // The MMAs it tracks would still be running on a GPU: the other warps go
                    // first.
                    if em != 0 {
                        break Ok(Stop::Yield { wait: false });
                    }
                }
                Op::Nop => {}
                Op::Tally { slot } => {
                    crate::fidelity::tally(*slot, em.count_ones());
                    // Counted above as an instruction of the program, which it is not.
                    if em == FULL {
                        full -= 1;
                    } else {
                        count -= u64::from(em.count_ones());
                    }
                }
                Op::Trap => return Err(cta.fault_trap(self, pc, em)),
                Op::Brkpt => {
                    let mut e = cta.fault_trap(self, pc, em);
                    e.message = format!("brkpt with no debugger attached{}", &e.message[4..]);
                    return Err(e);
                }
            }
        };
        cta.thread_instructions += count + 32 * full;
        // An instruction that made a bad access under memcheck and stopped the warp as well.
        if let Some(e) = cta.halt.take() {
            cta.ending = true;
            return Err(*e);
        }
        r
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

/// The thread-instructions of the `ctx.iters` iterations of loop body segment `i` before the
/// last of a compiled run over lanes `mask`, each with its back edge, which the code took; the
/// count goes to `--stats` too.
#[cold]
#[inline(never)]
fn looped(i: usize, code: &jit::Code, ctx: &jit::Ctx, mask: u32) -> u64 {
    code.looped(i, ctx.iters);
    ctx.iters * (code.seg(i).unguarded as u64 + 1) * mask.count_ones() as u64
}

/// A compiled segment's results in verify mode, compared with the interpreter's once the
/// interpreter has run the segment (the path ending at the segment's end is popped, leaving
/// `depth` entries).
struct Pending {
    depth: usize,
    seg: usize,
    /// Whether the compiled run found every lane taking the back edge of a loop body's
    /// segment ([`jit::Ctx::taken`]).
    taken: bool,
    rows: Vec<Lanes>,
    shared: Vec<u8>,
    own: usize,
    warp: u32,
    mask: u32,
}

impl Pending {
    #[cold]
    fn compare(&self, cta: &Cta, regs: &[u64]) {
        let Some(code) = cta.jit else { return };
        let seg = code.seg(self.seg);
        let line = |pc: u32| cta.prog.info.get(pc as usize).map_or(0, |i| i.line);
        for (&r, rows) in seg.outs.iter().zip(&self.rows) {
            let interp = row(regs, r);
            if let Some(l) = (0..32).find(|&l| self.mask >> l & 1 != 0 && interp[l] != rows[l]) {
                // The segment's last op writing r names the PTX line.
                let pc = seg.last_writer(cta.prog, r);
                jit::mismatch(&format!(
                    "kernel '{}', block ({},{},{}), warp {}, lane {l}, PTX line {}: register %{r} is {:#x} interpreted, {:#x} compiled",
                    cta.kernel, cta.ctaid[0], cta.ctaid[1], cta.ctaid[2], self.warp, line(pc), interp[l], rows[l]
                ));
                return;
            }
        }
        if let Some(back) = seg.back {
            let em = match back.guard {
                None => self.mask,
                Some((p, neg)) => {
                    self.mask
                        & if neg {
                            !pred_mask(row(regs, p))
                        } else {
                            pred_mask(row(regs, p))
                        }
                }
            };
            if (em == self.mask) != self.taken {
                jit::mismatch(&format!(
                    "kernel '{}', block ({},{},{}), warp {}, PTX line {}: the loop's branch is {}taken by every lane interpreted, {}compiled",
                    cta.kernel, cta.ctaid[0], cta.ctaid[1], cta.ctaid[2], self.warp, line(seg.end),
                    if em == self.mask { "" } else { "not " }, if self.taken { "" } else { "not " }
                ));
                return;
            }
        }
        let now = &cta.shared[self.own..self.own + self.shared.len()];
        if now == &self.shared[..] {
            return;
        }
        if let Some(b) = (0..now.len()).find(|&b| now[b] != self.shared[b]) {
            jit::mismatch(&format!(
                "kernel '{}', block ({},{},{}), warp {}, PTX lines {}-{}: shared byte {b:#x} is {:#x} interpreted, {:#x} compiled",
                cta.kernel, cta.ctaid[0], cta.ctaid[1], cta.ctaid[2], self.warp,
                line(seg.start), line(seg.end - 1), now[b], self.shared[b]
            ));
        }
    }
}
