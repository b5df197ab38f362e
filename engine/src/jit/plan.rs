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
            BinOp::MulWide(t) if matches!(t.int(), Some((32, _))) => Touch::None,
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
        _ => return None,
    })
}

/// The segments of `prog`, at least two ops each (one op gains nothing over the
/// interpreter), in program order.
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
    let mut start = 0usize;
    let mut touched: Vec<Touch> = Vec::new();
    // Registers the open segment reads before writing, and writes; and how many are both.
    let (mut ins, mut outs) = (RegSet::default(), RegSet::default());
    let mut both = 0usize;
    let close = |segs: &mut Vec<Seg>, s: usize, e: usize| {
        if e >= s + 2 {
            let seg = describe(prog, s as u32, e as u32);
            if seg.undo.len() <= MAX_UNDO {
                segs.push(seg);
            }
        }
    };
    for (pc, inst) in prog.insts.iter().enumerate() {
        let t = compiled(inst);
        let conflict = |t: Touch| match t {
            Touch::None => false,
            Touch::Load(sp) => touched.contains(&Touch::Store(sp)),
            Touch::Store(sp) => touched
                .iter()
                .any(|&u| u == Touch::Load(sp) || u == Touch::Store(sp)),
        };
        let Some(t) = t else {
            close(&mut segs, start, pc);
            start = pc + 1;
            touched.clear();
            (ins, outs, both) = Default::default();
            continue;
        };
        if leader[pc] || conflict(t) || both + 8 > MAX_UNDO {
            close(&mut segs, start, pc);
            start = pc;
            touched.clear();
            (ins, outs, both) = Default::default();
        }
        touched.push(t);
        let (r, w) = reads_writes(inst);
        let guarded = inst.guard.is_some();
        for x in r.iter().chain(w.iter().filter(|_| guarded)) {
            if !outs.has(*x) {
                ins.insert(*x);
            }
        }
        for x in w {
            if outs.insert(x) && ins.has(x) {
                both += 1;
            }
        }
    }
    close(&mut segs, start, n);
    segs
}

/// A small set of registers.
#[derive(Default)]
struct RegSet(rustc_hash::FxHashSet<Reg>);

impl RegSet {
    fn has(&self, r: Reg) -> bool {
        self.0.contains(&r)
    }
    /// True when `r` was not in the set.
    fn insert(&mut self, r: Reg) -> bool {
        self.0.insert(r)
    }
}

/// The registers an op reads and writes, for the ops [`compiled`] admits.
pub(crate) fn reads_writes(inst: &Inst) -> (Vec<Reg>, Vec<Reg>) {
    let mut r = Vec::new();
    let mut w = Vec::new();
    let src = |r: &mut Vec<Reg>, s: &Src| {
        if let Src::Reg(x) = s {
            r.push(*x)
        }
    };
    if let Some((p, _)) = inst.guard {
        r.push(p);
    }
    match &inst.op {
        Op::Un { d, a, .. } => {
            src(&mut r, a);
            w.push(*d);
        }
        Op::Bin { d, a, b, .. } => {
            src(&mut r, a);
            src(&mut r, b);
            w.push(*d);
        }
        Op::Ter { d, a, b, c, .. } => {
            src(&mut r, a);
            src(&mut r, b);
            src(&mut r, c);
            w.push(*d);
        }
        Op::Setp { a, b, d, dn, .. } => {
            src(&mut r, a);
            src(&mut r, b);
            w.extend(d.iter().chain(dn.iter()));
        }
        Op::Ld { n, d, addr, .. } => {
            r.extend(addr.base);
            w.extend(d[..*n as usize].iter().flatten());
        }
        Op::St {
            n, s, sink, addr, ..
        } => {
            r.extend(addr.base);
            for (k, x) in s[..*n as usize].iter().enumerate() {
                if sink & (1 << k) == 0 {
                    src(&mut r, x);
                }
            }
        }
        _ => unreachable!("not a compiled op"),
    }
    (r, w)
}

fn describe(prog: &Program, start: u32, end: u32) -> Seg {
    let mut ins: Vec<Reg> = Vec::new();
    let mut outs: Vec<Reg> = Vec::new();
    let mut faults = false;
    let mut unguarded = 0;
    for inst in &prog.insts[start as usize..end as usize] {
        let (r, w) = reads_writes(inst);
        let mut need = r;
        // A guarded write keeps the old value where the guard is false: it reads it.
        if inst.guard.is_some() {
            need.extend(&w);
        } else {
            unguarded += 1;
        }
        for x in need {
            if !outs.contains(&x) && !ins.contains(&x) {
                ins.push(x);
            }
        }
        for x in w {
            if !outs.contains(&x) {
                outs.push(x);
            }
        }
        faults |= matches!(inst.op, Op::Ld { .. } | Op::St { .. });
    }
    let undo = if faults {
        ins.iter().copied().filter(|r| outs.contains(r)).collect()
    } else {
        Vec::new()
    };
    Seg {
        start,
        end,
        ins,
        outs,
        undo,
        faults,
        unguarded,
    }
}
