//! Which stretches of a program the compiling tier takes: *segments*, straight runs of ops
//! that touch only their own lane, cut so that running them lane after lane (each lane
//! through the whole segment, then the next lane) computes exactly what the interpreter's
//! op-after-op order computes.
//!
//! Registers are per lane, so only memory can tell the two orders apart. A segment therefore
//! loads from a space only if it does not store to it, and stores to a space at most once:
//! then no lane can read or overwrite what another lane of the same segment wrote. (Explicit
//! `.shared` and `.global` addresses cannot alias; generic ones can, and are not compiled.)
//! The same rule makes a segment safe to run again from its start: its stores write the same
//! values to the same places. That is how a failed check is handed to the interpreter, which
//! then reports the fault exactly as it would have (see [`super::Code::run`]).
//!
//! One exception keeps a kernel's final store in its segment: a `.global` store after
//! `.global` loads is *deferred* ([`Seg::defer`]). Its pass checks its addresses and keeps
//! its values; the code stores them for the whole warp, in lane order, only after every pass
//! has passed its checks. Every lane then loads before any lane stores, as in the interpreter's
//! op-after-op order, and a failed check has stored nothing, so the segment can still be run
//! again from its start. Only a store whose addresses form one checked group (an affine
//! prediction, [`group_stride`]) is deferred, and no global load or atomic may follow it.
//!
//! Atomics (`atom`/`red` on `.shared` and `.global`) are the exception: they cannot run twice.
//! A segment takes at most one space's atomics, one op of them, touches that space nowhere
//! else, and has no fallible op after it: its lanes then see the atomics in the interpreter's
//! order (lane order, pass after pass), and a check can only fail before the pass's atomics
//! ran. A stopped run of such a segment is not undone but resumed: the lanes of the passes
//! before the failed one are done, and the interpreter runs the segment for the others
//! ([`Seg::atomic`]).

use crate::ir::operands::{operands, successors, Operands};
use crate::ir::regset::RegSet;
use crate::ir::*;
use crate::sem::{FBin, IBin};

/// A compiled stretch `[start, end)` of the program.
#[derive(Clone, Debug)]
pub struct Seg {
    pub start: u32,
    pub end: u32,
    /// Registers read before the segment writes them (loaded per lane on entry).
    pub ins: Vec<Reg>,
    /// Registers the segment writes (stored per lane on exit).
    pub outs: Vec<Reg>,
    /// Registers both read on entry and written: saved per lane while the segment runs, so
    /// that a lane-major run that stops part way can be undone ([`Seg::faults`]).
    pub undo: Vec<Reg>,
    /// Whether an op may fail a check (memory accesses): the segment may then stop early.
    pub faults: bool,
    /// Ops without a guard: each counts one thread-instruction per active lane.
    pub unguarded: u32,
    /// Whether the segment has an atomic: a stopped run keeps the lanes it finished (no undo).
    pub atomic: bool,
    /// Whether its atomic is on global memory (seen by other host threads: verify mode, which
    /// runs a segment twice, leaves such a segment to the interpreter).
    pub global_atomic: bool,
    /// Whether it reads `%tid` (the interpreter then passes the warp's rows in `Ctx::tid`).
    pub tid: bool,
    /// Whether its `.global` store comes after `.global` loads and is *deferred*: checked in
    /// its pass, its values kept, and done for the whole warp, in lane order, once every pass
    /// has passed its checks (see the module comment). Verify mode does not compare such a
    /// segment (the interpreter, running it again, would load what it stored).
    pub defer: bool,
    /// Whether the segment is the body of a loop: the op at `end` branches back to `start`
    /// (see [`Back`]). Set by [`segments`].
    pub back: Option<Back>,
}

/// The branch after a loop body's segment back to its start, `@p bra` (`guard` `Some((p,
/// neg))`) or `bra`. The compiled code takes it itself while every active lane takes it (see
/// the module comment of [`super`]), at most `Ctx::max_iters` times a call; the branch of its
/// last iteration, and every divergent one, is left to the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Back {
    pub guard: Option<(Reg, bool)>,
}

impl Seg {
    /// The segment's last op writing `r` (one of `outs`): what a report names.
    pub fn last_writer(&self, prog: &Program, r: Reg) -> u32 {
        let mut ops = Operands::default();
        (self.start..self.end)
            .rev()
            .find(|&pc| {
                operands(prog, 0, &prog.insts[pc as usize], &mut ops);
                ops.defs.contains(&r)
            })
            .unwrap_or(self.start)
    }
}

/// Registers a segment may both read on entry and write (`Seg::undo`): the undo rows live on
/// the stack of the call.
pub const MAX_UNDO: usize = 16;

/// The memory an op touches, for the segment rule above.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Touch {
    None,
    Load(MSpace),
    Store(MSpace),
    Atomic(MSpace),
}

/// Whether the emitter compiles `op`, and what memory it touches. Every op listed here has a
/// lane-by-lane translation in `emit.rs` that computes the interpreter's bits.
fn compiled(inst: &Inst) -> Option<Touch> {
    let int_ty = |t: Scalar| matches!(t.int(), Some((16 | 32 | 64, _)));
    let f_native = |t: Scalar| matches!(t, Scalar::F32 | Scalar::F64);
    use crate::sem::softfloat::Mode;
    Some(match &inst.op {
        Op::Un { op, fl, .. } if fl.is_none() => match op.op() {
            UnOp::Mov { .. } => Touch::None,
            _ => return None,
        },
        Op::Bin { op, fl, .. } if fl.is_none() => match op.op() {
            BinOp::Int(
                IBin::Add
                | IBin::Sub
                | IBin::MulLo
                | IBin::Min
                | IBin::Max
                | IBin::And
                | IBin::Or
                | IBin::Xor
                | IBin::Shl
                | IBin::Shr,
                t,
            ) if int_ty(t) => Touch::None,
            BinOp::MulWide(t) if matches!(t.int(), Some((16 | 32, _))) => Touch::None,
            BinOp::Float {
                op: FBin::Add | FBin::Sub | FBin::Mul,
                ty,
                rnd: Mode::Rn,
            } if f_native(ty) => Touch::None,
            _ => return None,
        },
        Op::Ter { op, fl, .. } if fl.is_none() => match op.op() {
            TerOp::MadLo(t) if int_ty(t) => Touch::None,
            TerOp::Selp { .. } => Touch::None,
            TerOp::Fma { ty, rnd: Mode::Rn } if f_native(ty) => Touch::None,
            _ => return None,
        },
        Op::Setp {
            op, fl, comb: None, ..
        } if fl.is_none() => match op.op() {
            CmpOp::Int(c, t) if int_ty(t) && (c as u8) <= crate::sem::Cmp::Ge as u8 => Touch::None,
            CmpOp::Float(_, t) if f_native(t) => Touch::None,
            _ => return None,
        },
        // Integer widenings and narrowings (no saturation): `sem::cvt::cvt_int_lanes`.
        Op::Cvt {
            dst,
            src,
            sat: false,
            ..
        } if dst.int().is_some() && src.int().is_some() => Touch::None,
        // The launch's geometry: uniform values from `Ctx::sreg`, `%tid` from the rows the
        // interpreter fills for a segment that reads it (`Seg::tid`), `%laneid` the lane.
        Op::Sreg {
            s: SReg::Tid(_) | SReg::Ntid(_) | SReg::Ctaid(_) | SReg::Nctaid(_) | SReg::Laneid,
            ..
        } => Touch::None,
        // Kernel parameters at fixed, aligned offsets: one scalar load per pass, splat (the
        // offset checked against the launch's parameter bytes, as the interpreter does).
        Op::Ld {
            space: MSpace::KParam,
            size: size @ (1 | 2 | 4 | 8),
            n: 1,
            addr: Addr { base: None, off },
            ..
        } if (0..1 << 20).contains(off) && off % *size as i64 == 0 => Touch::Load(MSpace::KParam),
        Op::Ld {
            space: space @ (MSpace::Shared | MSpace::Global),
            size,
            n,
            ..
        } if *size as u32 * *n as u32 <= 16 => Touch::Load(*space),
        Op::St {
            space: space @ (MSpace::Shared | MSpace::Global),
            size,
            n,
            ..
        } if *size as u32 * *n as u32 <= 16 => Touch::Store(*space),
        // Through `exec::access::jit_atomic`, the interpreter's own read-modify-write.
        Op::Atom {
            space: space @ (MSpace::Shared | MSpace::Global),
            ty: AtomTy::U32 | AtomTy::S32 | AtomTy::U64 | AtomTy::S64 | AtomTy::F32 | AtomTy::F64,
            ..
        } => Touch::Atomic(*space),
        _ => return None,
    })
}

/// The segments of `prog`, in program order.
pub fn segments(prog: &Program) -> Vec<Seg> {
    let n = prog.insts.len();
    // Where execution may start other than by falling through: segments begin there, so that
    // a warp arriving there finds one. (A warp entering a segment in its middle, or whose
    // reconvergence point lies inside it, is interpreted: see `Code::at`.)
    let mut leader = vec![false; n + 1];
    leader[prog.entry as usize] = true;
    for f in &prog.funcs {
        leader[f.entry as usize] = true;
    }
    for inst in &prog.insts {
        match &inst.op {
            Op::Bra { target, rpc } => {
                leader[*target as usize] = true;
                leader[*rpc as usize] = true;
            }
            Op::Brx { targets, rpc, .. } => {
                for t in targets {
                    leader[*t as usize] = true;
                }
                leader[*rpc as usize] = true;
            }
            _ => {}
        }
    }
    let mut segs = Vec::new();
    let mut open = Open::new(0, prog.nregs as usize);
    let mut ops = Operands::default();
    let sh = shapes(prog);
    for (pc, inst) in prog.insts.iter().enumerate() {
        let Some(t) = compiled(inst) else {
            open.close(pc, pc + 1, &mut segs);
            continue;
        };
        let deferrable = match &inst.op {
            Op::St { size, n, addr, .. } => {
                group_stride(&sh, *addr, *size as i64 * *n as i64).is_some()
            }
            _ => false,
        };
        // (An op writes at most 8 registers, so the segment keeps within MAX_UNDO.)
        if leader[pc] || open.conflicts(t, deferrable) || open.both + 8 > MAX_UNDO {
            open.close(pc, pc, &mut segs);
        }
        operands(prog, 0, inst, &mut ops);
        open.push(inst, t, &ops);
    }
    open.close(prog.insts.len(), prog.insts.len(), &mut segs);
    // Registers dead after a segment need not be written back: a compiled segment's loads
    // and temporaries are mostly used inside it (a tiled matmul's inner loop writes 48
    // registers and leaves one live).
    if let Some(live) = live_in(prog) {
        let words = prog.nregs.div_ceil(64) as usize;
        for s in &mut segs {
            let at = &live[s.end as usize * words..][..words];
            s.outs.retain(|&r| at[r as usize / 64] >> (r % 64) & 1 != 0);
        }
    }
    for s in &mut segs {
        s.back = back_edge(prog, s.start, s.end);
    }
    segs
}

/// The branch at `end` back to `start`, if the op there is one.
fn back_edge(prog: &Program, start: u32, end: u32) -> Option<Back> {
    let inst = prog.insts.get(end as usize)?;
    match inst.op {
        Op::Bra { target, .. } if target == start => Some(Back { guard: inst.guard }),
        _ => None,
    }
}

/// Per pc (and one past the end), the registers live on entry, `nregs` bits each; None when
/// the program has calls (a callee's registers would need the call graph).
fn live_in(prog: &Program) -> Option<Vec<u64>> {
    if prog.funcs.len() > 1
        || prog
            .insts
            .iter()
            .any(|i| matches!(i.op, Op::Call { .. } | Op::CallRet { .. }))
    {
        return None;
    }
    let n = prog.insts.len();
    let words = prog.nregs.div_ceil(64) as usize;
    let mut live = vec![0u64; (n + 1) * words];
    let mut ops = Operands::default();
    let mut succ = Vec::new();
    let mut out = vec![0u64; words];
    // Backward, to a fixed point (loops need several rounds).
    loop {
        let mut changed = false;
        for pc in (0..n).rev() {
            let inst = &prog.insts[pc];
            successors(inst, pc as u32, &mut succ);
            out.iter_mut().for_each(|w| *w = 0);
            for &t in &succ {
                let t = (t as usize).min(n);
                for (o, l) in out.iter_mut().zip(&live[t * words..(t + 1) * words]) {
                    *o |= l;
                }
            }
            operands(prog, 0, inst, &mut ops);
            // A guarded definition keeps the old value where its guard is false: no kill.
            if inst.guard.is_none() {
                for &r in &ops.defs {
                    out[r as usize / 64] &= !(1 << (r % 64));
                }
            }
            for &r in &ops.uses {
                out[r as usize / 64] |= 1 << (r % 64);
            }
            let here = &mut live[pc * words..(pc + 1) * words];
            if here != &out[..] {
                here.copy_from_slice(&out);
                changed = true;
            }
        }
        if !changed {
            return Some(live);
        }
    }
}

/// The segment being formed: what its ops touch, read and write so far.
struct Open {
    start: usize,
    touched: Vec<Touch>,
    /// `Seg::ins` and `Seg::outs`, in first-seen order, and the same as sets.
    ins: Vec<Reg>,
    outs: Vec<Reg>,
    in_set: RegSet,
    out_set: RegSet,
    /// Registers in both `ins` and `outs`.
    both: usize,
    faults: bool,
    unguarded: u32,
    tid: bool,
    defer: bool,
}

impl Open {
    fn new(start: usize, nregs: usize) -> Open {
        Open {
            start,
            touched: Vec::new(),
            ins: Vec::new(),
            outs: Vec::new(),
            in_set: RegSet::new(nregs),
            out_set: RegSet::new(nregs),
            both: 0,
            faults: false,
            unguarded: 0,
            tid: false,
            defer: false,
        }
    }

    /// Whether an op touching memory as `t` would break the rule of this module's head
    /// (`deferrable`: the op is a `.global` store whose accesses form one checked group, see
    /// [`group_stride`]).
    fn conflicts(&self, t: Touch, deferrable: bool) -> bool {
        let atomic = self.touched.iter().any(|u| matches!(u, Touch::Atomic(_)));
        // Nothing that may fail after an atomic (the segment cannot be run again).
        let after_atomic = t != Touch::None && atomic;
        after_atomic
            || match t {
                Touch::None => false,
                Touch::Load(sp) => self.touched.contains(&Touch::Store(sp)),
                // After global loads, a global store is deferred to the segment's end.
                Touch::Store(MSpace::Global)
                    if deferrable
                        && !atomic
                        && !self.touched.contains(&Touch::Store(MSpace::Global)) =>
                {
                    false
                }
                Touch::Store(sp) => self
                    .touched
                    .iter()
                    .any(|&u| u == Touch::Load(sp) || u == Touch::Store(sp)),
                // The atomic's lanes must be the only accesses to its space, and a deferred
                // store would not be done for the lanes a stopped run keeps.
                Touch::Atomic(sp) => {
                    self.defer
                        || self
                            .touched
                            .iter()
                            .any(|&u| u == Touch::Load(sp) || u == Touch::Store(sp))
                }
            }
    }

    /// Adds `inst`, which touches `t` and has operands `ops`.
    fn push(&mut self, inst: &Inst, t: Touch, ops: &Operands) {
        self.defer |= t == Touch::Store(MSpace::Global)
            && self.touched.contains(&Touch::Load(MSpace::Global));
        self.touched.push(t);
        self.faults |= t != Touch::None;
        self.tid |= matches!(
            inst.op,
            Op::Sreg {
                s: SReg::Tid(_),
                ..
            }
        );
        let guarded = inst.guard.is_some();
        self.unguarded += !guarded as u32;
        // A guarded write keeps the old value where the guard is false: it reads it.
        let reads = ops.uses.iter().chain(ops.defs.iter().filter(|_| guarded));
        for &r in reads {
            if !self.out_set.has(r) && !self.in_set.has(r) {
                self.in_set.set(r);
                self.ins.push(r);
            }
        }
        for &r in &ops.defs {
            if !self.out_set.has(r) {
                self.out_set.set(r);
                self.outs.push(r);
                self.both += self.in_set.has(r) as usize;
            }
        }
    }

    /// Ends the segment before `end` (kept when it has two ops or more: one gains nothing over
    /// the interpreter) and opens the next one at `next`.
    fn close(&mut self, end: usize, next: usize, segs: &mut Vec<Seg>) {
        let atomic = self.touched.iter().any(|u| matches!(u, Touch::Atomic(_)));
        let global_atomic = self.touched.contains(&Touch::Atomic(MSpace::Global));
        // (A stopped atomic segment is resumed, not undone.)
        let undo: Vec<Reg> = match self.faults && !atomic {
            true => self
                .ins
                .iter()
                .copied()
                .filter(|&r| self.out_set.has(r))
                .collect(),
            false => Vec::new(),
        };
        debug_assert!(undo.len() <= MAX_UNDO);
        for &r in &self.ins {
            self.in_set.unset(r);
        }
        for &r in &self.outs {
            self.out_set.unset(r);
        }
        let (ins, outs) = (
            std::mem::take(&mut self.ins),
            std::mem::take(&mut self.outs),
        );
        if end >= self.start + 2 {
            segs.push(Seg {
                start: self.start as u32,
                end: end as u32,
                ins,
                outs,
                undo,
                faults: self.faults,
                unguarded: self.unguarded,
                atomic,
                global_atomic,
                tid: self.tid,
                defer: self.defer,
                back: None,
            });
        }
        self.start = next;
        self.touched.clear();
        (self.both, self.faults, self.unguarded, self.tid) = (0, false, 0, false);
        self.defer = false;
    }
}

/// A register's values across a warp's lanes, as far as the program's text tells: `Lane(k, c)`
/// when lane `l` holds `u + k * l` for one warp-uniform `u` (`c`: u, when it is a known
/// constant), assuming `%tid.x` runs through consecutive lanes and `%tid.y`/`%tid.z` stay
/// uniform over them; `None` when unknown. A prediction, not a proof: the code checks it at run
/// time and leaves to the interpreter where it fails, so it needs no soundness, only to be right
/// where it matters (addresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Undef,
    Lane(i64, Option<i64>),
    Unknown,
}

impl Shape {
    fn join(self, o: Shape) -> Shape {
        match (self, o) {
            (Shape::Undef, x) | (x, Shape::Undef) => x,
            (Shape::Lane(a, ca), Shape::Lane(b, cb)) if a == b => {
                Shape::Lane(a, if ca == cb { ca } else { None })
            }
            _ => Shape::Unknown,
        }
    }

    /// The stride per lane, when the shape is affine.
    pub fn stride(self) -> Option<i64> {
        match self {
            Shape::Lane(k, _) => Some(k),
            _ => None,
        }
    }
}

/// The stride between consecutive lanes' addresses of an access of `len` bytes at `addr` when
/// [`shapes`] predicts its base affine and the code can check it as a group (`emit.rs`): the
/// stride and the offset multiples of the access's alignment, both small.
pub fn group_stride(shapes: &[Shape], addr: Addr, len: i64) -> Option<i64> {
    let align = (len as u64).min(16).next_power_of_two() as i64;
    let k = match addr.base {
        None => Some(0),
        Some(r) => shapes[r as usize].stride(),
    };
    k.filter(|&k| {
        k.rem_euclid(align) == 0
            && k.abs() < 1 << 20
            && addr.off.rem_euclid(align) == 0
            && addr.off.abs() < 1 << 30
    })
}

/// Per register, its [`Shape`] over all its definitions (flow-insensitive).
pub fn shapes(prog: &Program) -> Vec<Shape> {
    let mut sh = vec![Shape::Undef; prog.nregs as usize];
    let src = |sh: &[Shape], s: Src| match s {
        Src::Imm(v) => Shape::Lane(0, Some(v as i64)),
        Src::Reg(r) => sh[r as usize],
    };
    let add = |a: Shape, b: Shape, neg: bool| match (a, b) {
        (Shape::Lane(x, cx), Shape::Lane(y, cy)) => {
            let (y, cy) = if neg {
                (y.wrapping_neg(), cy.map(|c| c.wrapping_neg()))
            } else {
                (y, cy)
            };
            Shape::Lane(
                x.wrapping_add(y),
                cx.zip(cy).map(|(p, q)| p.wrapping_add(q)),
            )
        }
        (Shape::Undef, _) | (_, Shape::Undef) => Shape::Undef,
        _ => Shape::Unknown,
    };
    let mul = |a: Shape, b: Shape| match (a, b) {
        (Shape::Lane(0, ca), Shape::Lane(0, cb)) => {
            Shape::Lane(0, ca.zip(cb).map(|(p, q)| p.wrapping_mul(q)))
        }
        (Shape::Lane(x, _), Shape::Lane(0, Some(c)))
        | (Shape::Lane(0, Some(c)), Shape::Lane(x, _)) => Shape::Lane(x.wrapping_mul(c), None),
        (Shape::Undef, _) | (_, Shape::Undef) => Shape::Undef,
        _ => Shape::Unknown,
    };
    loop {
        let mut changed = false;
        for inst in &prog.insts {
            let (d, v) = match &inst.op {
                Op::Sreg { d, s } => (
                    *d,
                    match s {
                        SReg::Tid(0) | SReg::Laneid => Shape::Lane(1, None),
                        SReg::Tid(_) | SReg::Ntid(_) | SReg::Ctaid(_) | SReg::Nctaid(_) => {
                            Shape::Lane(0, None)
                        }
                        _ => Shape::Unknown,
                    },
                ),
                Op::Ld {
                    space: MSpace::KParam,
                    d,
                    n: 1,
                    ..
                } => match d[0] {
                    Some(d) => (d, Shape::Lane(0, None)),
                    None => continue,
                },
                Op::Un { op, d, a, .. } => match op.op() {
                    UnOp::Mov { bits: 32 | 64 } => (*d, src(&sh, *a)),
                    _ => (*d, Shape::Unknown),
                },
                Op::Cvt {
                    d, a, dst, src: s, ..
                } if dst.int().is_some() && s.int().is_some() => (*d, src(&sh, *a)),
                Op::Bin { op, d, a, b, .. } => {
                    let (x, y) = (src(&sh, *a), src(&sh, *b));
                    (
                        *d,
                        match op.op() {
                            BinOp::Int(IBin::Add, _) => add(x, y, false),
                            BinOp::Int(IBin::Sub, _) => add(x, y, true),
                            BinOp::Int(IBin::MulLo, _) | BinOp::MulWide(_) => mul(x, y),
                            BinOp::Int(IBin::Shl, _) => match y {
                                Shape::Lane(0, Some(c)) if (0..63).contains(&c) => {
                                    mul(x, Shape::Lane(0, Some(1 << c)))
                                }
                                Shape::Undef => Shape::Undef,
                                _ => Shape::Unknown,
                            },
                            _ => match (x, y) {
                                (Shape::Lane(0, _), Shape::Lane(0, _)) => Shape::Lane(0, None),
                                _ => Shape::Unknown,
                            },
                        },
                    )
                }
                Op::Ter { op, d, a, b, c, .. } => {
                    let (x, y, z) = (src(&sh, *a), src(&sh, *b), src(&sh, *c));
                    (
                        *d,
                        match op.op() {
                            TerOp::MadLo(_) | TerOp::MadWide(_) => add(mul(x, y), z, false),
                            _ => Shape::Unknown,
                        },
                    )
                }
                _ => {
                    let mut ops = Operands::default();
                    operands(prog, 0, inst, &mut ops);
                    for &r in &ops.defs {
                        if sh[r as usize] != Shape::Unknown {
                            sh[r as usize] = Shape::Unknown;
                            changed = true;
                        }
                    }
                    continue;
                }
            };
            let n = sh[d as usize].join(v);
            if n != sh[d as usize] {
                sh[d as usize] = n;
                changed = true;
            }
        }
        if !changed {
            return sh;
        }
    }
}
