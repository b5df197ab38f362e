//! Which registers a thread may read before it wrote them: only those need a known value (zero)
//! when a CTA starts. Every other row of the register file is written before it is read on
//! every path, so a CTA may start with whatever the previous CTA left there; clearing a whole
//! file per CTA (tens of kilobytes) was a sixth of a short kernel's time.

use super::operands::{operands, successors, Operands};
use super::regset::RegSet;
use super::{Op, Program, Reg};

/// The registers that must start zeroed in each CTA, or `None` when every register must (a
/// program that calls functions: its frames are saved and restored outside this analysis).
///
/// A forward "definitely written" analysis over the kernel's control flow, per thread: a
/// lane follows one path through the graph whatever the warp does, so a register is written
/// for a lane at a point when every path to that point writes it. Guarded instructions may not
/// run, so they write nothing definitely. Only instructions whose execution writes every
/// active lane's destination count as writes. Registers read across lanes (shuffles, votes,
/// reductions, matches) may be read in lanes that never wrote them, so they always start
/// zeroed, as the whole file did before.
pub fn maybe_uninit(p: &Program) -> Option<Vec<Reg>> {
    if p.funcs.len() != 1 || !p.sites.is_empty() || p.sp.is_some() {
        return None;
    }
    let (start, end) = (p.entry as usize, p.exit as usize);
    let (n, nregs) = (end + 1 - start, p.nregs as usize);
    // The analysis holds a set per instruction; huge kernels keep the whole-file clear.
    if n.saturating_mul(nregs.div_ceil(64)) > 1 << 22 {
        return None;
    }
    // `into[k]`: registers written on every path into instruction `start + k`. Unreached
    // instructions keep "all" (the meet's identity).
    let mut into = vec![RegSet::all(nregs); n];
    into[0] = RegSet::new(nregs);
    let mut ops = Operands::default();
    let (mut succ, mut out) = (Vec::new(), RegSet::new(nregs));
    let mut changed = true;
    while changed {
        changed = false;
        for k in 0..n {
            let pc = start + k;
            let inst = &p.insts[pc];
            out.0.copy_from_slice(&into[k].0);
            if inst.guard.is_none() && writes_every_lane(&inst.op) {
                operands(p, 0, inst, &mut ops);
                for &d in &ops.defs {
                    out.set(d);
                }
            }
            successors(inst, pc as u32, &mut succ);
            for &s in &succ {
                let s = s as usize;
                if (start..=end).contains(&s) {
                    changed |= into[s - start].intersect(&out);
                }
            }
        }
    }
    let mut need = RegSet::new(nregs);
    for (k, at) in into.iter().enumerate() {
        let inst = &p.insts[start + k];
        operands(p, 0, inst, &mut ops);
        for &u in &ops.uses {
            if !at.has(u) {
                need.set(u);
            }
        }
        if let Some(r) = cross_lane_read(&inst.op) {
            need.set(r);
        }
    }
    Some(need.iter().collect())
}

/// Whether executing `op` (unguarded) writes its destinations in every active lane. Ops not
/// listed may leave a destination unwritten in some case, so their writes are not counted.
fn writes_every_lane(op: &Op) -> bool {
    matches!(
        op,
        Op::Un { .. }
            | Op::Bin { .. }
            | Op::Ter { .. }
            | Op::Quad { .. }
            | Op::Lane { .. }
            | Op::Setp { .. }
            | Op::Cvt { .. }
            | Op::Carry { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. }
            | Op::Sreg { .. }
            | Op::Activemask { .. }
            | Op::Ld { .. }
            | Op::Atom { .. }
            | Op::Isspacep { .. }
    )
}

/// The register `op` reads in other lanes than the one it writes, if any.
fn cross_lane_read(op: &Op) -> Option<Reg> {
    let (Op::Shfl { a, .. }
    | Op::Vote { a, .. }
    | Op::Match { a, .. }
    | Op::Redux { a, .. }
    | Op::Bar {
        red: Some((_, _, a)),
        ..
    }) = op
    else {
        return None;
    };
    match a {
        super::Src::Reg(r) => Some(*r),
        _ => None,
    }
}
