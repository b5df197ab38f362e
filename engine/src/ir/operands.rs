//! What each instruction reads and writes, and where control goes after it: the queries the
//! register estimate, the verifier and a compiler share.

use super::*;

/// Uses and definitions of one instruction (registers of the IR).
#[derive(Default)]
pub(crate) struct Operands {
    pub uses: Vec<Reg>,
    pub defs: Vec<Reg>,
}

impl Operands {
    fn clear(&mut self) {
        self.uses.clear();
        self.defs.clear();
    }
    fn src(&mut self, s: &Src) {
        if let Src::Reg(r) = s {
            self.uses.push(*r);
        }
    }
    fn srcs<'a>(&mut self, s: impl IntoIterator<Item = &'a Src>) {
        for s in s {
            self.src(s);
        }
    }
    fn use_opt(&mut self, r: Option<Reg>) {
        self.uses.extend(r);
    }
    fn def(&mut self, r: Reg) {
        self.defs.push(r);
    }
    fn def_opt(&mut self, r: Option<Reg>) {
        self.defs.extend(r);
    }
    /// The registers a matrix load writes (`store` false) or a matrix store reads.
    fn moved(&mut self, store: bool, regs: &[Src]) {
        for r in regs {
            match (store, r) {
                (true, s) => self.src(s),
                (false, Src::Reg(d)) => self.def(*d),
                (false, Src::Imm(_)) => {}
            }
        }
    }
}

/// The registers `inst` reads and writes. A call reads its arguments (the callee's formals are
/// the callee's); its `CallRet` writes the results. A function's end reads its `.reg` results.
pub(crate) fn operands(p: &Program, func: usize, inst: &Inst, o: &mut Operands) {
    o.clear();
    if let Some((g, _)) = inst.guard {
        o.uses.push(g);
    }
    match &inst.op {
        Op::Un { d, a, .. } => {
            o.src(a);
            o.def(*d);
        }
        Op::Bin { d, a, b, .. } => {
            o.srcs([a, b]);
            o.def(*d);
        }
        Op::Ter { d, a, b, c, .. } | Op::Lane { d, a, b, c, .. } => {
            o.srcs([a, b, c]);
            o.def(*d);
        }
        Op::Quad { d, a, b, c, e, .. } => {
            o.srcs([a, b, c, e]);
            o.def(*d);
        }
        Op::Setp {
            a, b, d, dn, comb, ..
        } => {
            o.srcs([a, b]);
            if let Some((_, c, _)) = comb {
                o.src(c);
            }
            o.def_opt(*d);
            o.def_opt(*dn);
        }
        Op::Cvt { d, a, .. } => {
            o.src(a);
            o.def(*d);
        }
        Op::Carry {
            cin,
            cout,
            cc,
            d,
            a,
            b,
            c,
            ..
        } => {
            o.srcs([a, b, c]);
            if *cin {
                o.uses.push(*cc);
            }
            if *cout {
                o.def(*cc);
            }
            o.def(*d);
        }
        Op::Pack { d, parts, .. } => {
            o.srcs(parts);
            o.def(*d);
        }
        Op::Unpack { ds, a, .. } => {
            o.src(a);
            for d in ds {
                o.def_opt(*d);
            }
        }
        Op::Sreg { d, .. } | Op::StackSave { d } | Op::Frame { d, .. } | Op::Activemask { d } => {
            o.def(*d)
        }
        Op::Ld { d, addr, n, .. } => {
            o.use_opt(addr.base);
            for d in d.iter().take(*n as usize) {
                o.def_opt(*d);
            }
        }
        Op::St { s, addr, n, .. } => {
            o.use_opt(addr.base);
            o.srcs(s.iter().take(*n as usize));
        }
        Op::Atom { d, addr, a, b, .. } => {
            o.use_opt(addr.base);
            o.srcs([a, b]);
            o.def_opt(*d);
        }
        Op::AtomVec { d, addr, b, n, .. } => {
            o.use_opt(addr.base);
            o.srcs(b.iter().take(*n as usize));
            for d in d.iter().take(*n as usize) {
                o.def_opt(*d);
            }
        }
        Op::Atom128 {
            d, addr, b, c, cas, ..
        } => {
            o.use_opt(addr.base);
            o.uses.extend([*b, *b + 1]);
            if *cas {
                o.uses.extend([*c, *c + 1]);
            }
            if let Some(d) = d {
                o.defs.extend([*d, *d + 1]);
            }
        }
        Op::Bra { .. }
        | Op::Exit
        | Op::Nop
        | Op::Tally { .. }
        | Op::Trap
        | Op::Brkpt
        | Op::ClusterBar { .. } => {}
        Op::Brx { idx, .. } => o.src(idx),
        Op::Call { site } => {
            let s = &p.sites[*site as usize];
            if let Some(sel) = &s.sel {
                o.src(sel);
            }
            for a in &s.args {
                if let Actual::Val(v) = a {
                    o.src(v);
                }
            }
        }
        Op::CallRet { site } => {
            for r in &p.sites[*site as usize].rets {
                if let Loc::Reg(r, _) = r {
                    o.def(*r);
                }
            }
        }
        Op::StackRestore { a } => o.src(a),
        Op::Alloca { d, size, .. } => {
            o.src(size);
            o.def(*d);
        }
        Op::Sys { args, ret, .. } => {
            for a in args {
                if let SysArg::Reg(r) = a {
                    o.uses.push(*r);
                }
            }
            if let Some(SysRet::Reg(r)) = ret {
                o.def(*r);
            }
        }
        Op::End => {
            if func != 0 {
                for r in &p.funcs[func].rets {
                    if let Loc::Reg(r, _) = r {
                        o.uses.push(*r);
                    }
                }
            }
        }
        Op::Bar { id, count, red, .. } => {
            o.src(id);
            if let Some(c) = count {
                o.src(c);
            }
            if let Some((_, d, a)) = red {
                o.src(a);
                o.def(*d);
            }
        }
        Op::Mbar { addr, d, a, b, .. } => {
            o.use_opt(addr.base);
            o.srcs([a, b]);
            o.def_opt(*d);
        }
        Op::CpAsync {
            dst,
            src,
            src_size,
            ignore,
            ..
        } => {
            o.use_opt(dst.base);
            o.use_opt(src.base);
            o.srcs(src_size.iter().chain(ignore.iter()));
        }
        Op::Shfl {
            d,
            p: pd,
            a,
            b,
            c,
            mask,
            ..
        } => {
            o.srcs([a, b, c]);
            o.srcs(mask.iter());
            o.def(*d);
            o.def_opt(*pd);
        }
        Op::Vote { d, a, mask, .. } => {
            o.src(a);
            o.srcs(mask.iter());
            o.def(*d);
        }
        Op::WarpSync { mask } => o.src(mask),
        Op::Match {
            d, p: pd, a, mask, ..
        } => {
            o.srcs([a, mask]);
            o.def_opt(*d);
            o.def_opt(*pd);
        }
        Op::Redux { d, a, mask, .. } => {
            o.srcs([a, mask]);
            o.def(*d);
        }
        Op::Elect { d, p: pd, mask } => {
            o.src(mask);
            o.def_opt(*d);
            o.def_opt(*pd);
        }
        Op::Tex(t) => {
            o.src(&t.tex);
            o.srcs(t.coords.iter().take(t.coord_count()));
            let n = t.geom.dims();
            match &t.lod {
                TexLod::Base => {}
                TexLod::Level(l) => o.src(l),
                TexLod::Grad(dx, dy) => {
                    o.srcs(dx.iter().take(n));
                    o.srcs(dy.iter().take(n));
                }
            }
            if let Some(e) = &t.offset {
                o.srcs(e.iter().take(n));
            }
            for d in t.d {
                o.def_opt(d);
            }
            o.def_opt(t.pred);
        }
        Op::Txq { d, tex, level, .. } => {
            o.src(tex);
            if let Some(l) = level {
                o.src(l);
            }
            o.def(*d);
        }
        Op::Surf(s) => {
            o.srcs([&s.surf, &s.layer].into_iter().chain(&s.coords).chain(&s.c));
            for d in s.d {
                o.def_opt(d);
            }
        }
        Op::Isspacep { d, a, .. } => {
            o.src(a);
            o.def(*d);
        }
        Op::Bulk(b) => {
            o.use_opt(b.dst.1.base);
            o.use_opt(b.src.1.base);
            o.srcs(b.size.iter());
            if let Some(t) = &b.tensor {
                o.use_opt(t.map.1.base);
                o.srcs(t.coords.iter());
                o.srcs(t.im2col.iter().flatten());
            }
            if let Some((_, a)) = b.mbar {
                o.use_opt(a.base);
            }
            o.srcs(b.multicast.iter());
            o.srcs(b.byte_mask.iter());
            o.srcs(b.ignore_oob.iter().flatten());
        }
        Op::ClcTryCancel { addr, mbar, .. } => {
            o.use_opt(addr.base);
            o.use_opt(mbar.base);
        }
        Op::TcCommit { addr, mask, .. } => {
            o.use_opt(addr.base);
            o.srcs(mask.iter());
        }
        Op::TcCopy(x) => {
            o.use_opt(x.taddr.base);
            o.src(&x.desc);
        }
        Op::TcMma(x) => {
            o.use_opt(x.d.base);
            o.srcs([&x.a, &x.b, &x.idesc, &x.enable_d]);
            o.srcs(x.disable.iter().flatten());
            if let Some(s) = &x.scale {
                o.use_opt(s.a.base);
                o.use_opt(s.b.base);
            }
        }
        Op::Matrix(m) => match &**m {
            MatrixOp::Mma(x) => {
                o.srcs(x.a.iter().chain(&x.b).chain(&x.c));
                o.srcs(x.sparse.iter().map(|(meta, _)| meta));
                if let Some(s) = &x.scale {
                    o.srcs([&s.a, &s.b].into_iter().chain(&s.a_sel).chain(&s.b_sel));
                }
                for &d in &x.d {
                    o.def(d);
                }
            }
            MatrixOp::Wmma {
                store,
                addr,
                stride,
                regs,
                ..
            } => {
                o.use_opt(addr.base);
                o.srcs(stride.iter());
                o.moved(*store, regs);
            }
            MatrixOp::Ldst {
                store, addr, regs, ..
            } => {
                o.use_opt(addr.base);
                o.moved(*store, regs);
            }
            MatrixOp::Movmatrix { d, a } => {
                o.src(a);
                o.def(*d);
            }
            MatrixOp::Tmem(TmemOp::Alloc { addr, ncols, .. }) => {
                o.use_opt(addr.base);
                o.src(ncols);
            }
            MatrixOp::Tmem(TmemOp::Dealloc { taddr, ncols, .. }) => o.srcs([taddr, ncols]),
            MatrixOp::Tmem(TmemOp::Relinquish) => {}
            MatrixOp::Tmem(TmemOp::Ldst {
                store, taddr, regs, ..
            }) => {
                o.use_opt(taddr.base);
                o.moved(*store, regs);
            }
            MatrixOp::Wgmma(x) => {
                o.srcs(x.a_desc.iter().chain(&x.a).chain([&x.b_desc, &x.scale_d]));
                o.srcs(x.sparse.iter().map(|(meta, _)| meta));
                // D is read (accumulated into) and written.
                for &d in &x.d {
                    o.uses.push(d);
                    o.def(d);
                }
            }
        },
    }
}

/// Where control goes after instruction `pc` (within its function).
pub(crate) fn successors(inst: &Inst, pc: u32, out: &mut Vec<u32>) {
    out.clear();
    let guarded = inst.guard.is_some();
    match &inst.op {
        Op::Bra { target, .. } => out.push(*target),
        Op::Brx { targets, .. } => out.extend(targets),
        Op::Exit | Op::Trap | Op::Brkpt | Op::End => {}
        _ => {
            out.push(pc + 1);
            return;
        }
    }
    if guarded && !matches!(inst.op, Op::End) {
        out.push(pc + 1);
    }
}
