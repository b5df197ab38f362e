//! Lowering of the vector forms of `atom` and `red` (9.7.13.5-6, sm_90): `.v2/.v4` of f32 (add),
//! of f16x2/bf16x2 and `.v2/.v4/.v8` of f16/bf16 (add, min, max, with `.noftz`).

use super::*;

impl<'a> Prog<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atom_vec(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        is_red: bool,
        space: Option<AS>,
        op: AtomOp,
        vn: u8,
        half_ty: Option<(bool, bool)>,
        noftz: bool,
        t: T,
    ) -> R<()> {
        // The table of the ISA: f32 takes .add only (and no .noftz), up to .v4; the half types
        // take .add/.min/.max with .noftz, the packed pairs up to .v4, single halves up to .v8.
        let ty = match half_ty {
            None if t == T::F(32) && op == AtomOp::Add && !noftz && vn <= 4 => AtomTy::F32,
            Some((bf, x2))
                if noftz
                    && matches!(op, AtomOp::Add | AtomOp::Min | AtomOp::Max)
                    && (vn <= 4 || !x2) =>
            {
                AtomTy::Half { bf, x2 }
            }
            _ => return unsupported(i),
        };
        // Vector atomics address global memory only (directly or generically).
        if !matches!(space, None | Some(AS::Global)) {
            return unsupported(i);
        }
        let ops_ = &i.operands;
        let k = if is_red { 0 } else { 1 };
        if ops_.len() < k + 2 {
            return invalid(
                i.pos,
                format!("'{}' needs {} operands", i.full_name(), k + 2),
            );
        }
        let elems = |o: &O| -> R<Vec<O>> {
            match o {
                O::Vector(v) if v.len() == vn as usize => Ok(v.clone()),
                _ => invalid(
                    i.pos,
                    format!("'{}' needs a vector of {vn} elements", i.full_name()),
                ),
            }
        };
        let mut d = [None; 8];
        if !is_red {
            for (j, o) in elems(&ops_[0])?.iter().enumerate() {
                d[j] = self.opt_dreg(fc, i, o)?;
            }
        }
        let (ms, addr) = self.addr(fc, i, &ops_[k], space)?;
        let et = if t == T::F(32) { t } else { T::B(32) };
        let mut b = [Src::Imm(0); 8];
        for (j, o) in elems(&ops_[k + 1])?.iter().enumerate() {
            b[j] = self.src(fc, i, g, o, et)?;
        }
        self.emit(
            i,
            g,
            Op::AtomVec {
                space: ms,
                op,
                ty,
                n: vn,
                d,
                addr,
                b,
            },
        );
        Ok(())
    }
}

impl<'a> Prog<'a> {
    /// `red.async` (ISA 9.7.13.7): the reduction done at issue, then, in its relaxed form (into
    /// the shared memory of another CTA of the cluster), the complete-tx of the operand's bytes
    /// on the mbarrier operand, as `st.async` does; the release form (global memory, sm_100) is
    /// the reduction alone.
    pub(super) fn red_async(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        m.take("async");
        self.async_qualifiers(i, m)?;
        let space = i
            .mods
            .iter()
            .any(|w| w == "shared::cluster")
            .then_some(AS::Shared);
        self.atom(fc, i, g, m)?;
        if !super::dispatch::has(i, "release") {
            let Some(mbar) = i.operands.get(2) else {
                return invalid(i.pos, format!("'{}' needs 3 operands", i.full_name()));
            };
            let bytes = if super::dispatch::has(i, "u64") || super::dispatch::has(i, "s64") {
                8
            } else {
                4
            };
            self.complete_tx(fc, i, g, mbar, space, bytes)?;
        }
        Ok(())
    }

    /// The qualifiers `st.async` and `red.async` add to a store or reduction: the completion
    /// mechanism (the only one there is), and `.mmio`/`.release`, which ptxas takes only for
    /// sm_100 and, for `.release`, with a scope.
    pub(super) fn async_qualifiers(&self, i: &Instruction, m: &mut Mods) -> R<()> {
        m.take("mbarrier::complete_tx::bytes");
        let release = super::dispatch::has(i, "release");
        if m.take("mmio") || release {
            self.require_sm(i, 100, "st.async/red.async with .release modifier")?;
        }
        if release && !super::dispatch::has_any(i, &["gpu", "sys", "cluster"]) {
            return invalid(
                i.pos,
                format!("'{}': modifier '.release' requires a scope", i.full_name()),
            );
        }
        Ok(())
    }

    /// The complete-tx of `bytes` on the mbarrier at `mbar` that ends an asynchronous store or
    /// reduction (`.mbarrier::complete_tx::bytes`).
    pub(super) fn complete_tx(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        mbar: &O,
        space: Option<AS>,
        bytes: u64,
    ) -> R<()> {
        let (space, addr) = self.addr(fc, i, mbar, space)?;
        self.emit(
            i,
            g,
            Op::Mbar {
                op: MbarOp::CompleteTx,
                space,
                addr,
                d: None,
                a: Src::Imm(bytes),
                b: Src::Imm(0),
            },
        );
        Ok(())
    }

    pub(super) fn atom(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let is_red = i.opcode == "red";
        // `.shared::cluster` addresses carry the CTA's rank (`ir::CLUSTER_RANK_SHIFT`): the
        // executor resolves shared addresses in the cluster's shared memory (see `Mods::space`).
        let space = m.space();
        m.ignore_kinds(MEMORY_QUALIFIERS);
        let mut op = None;
        for (w, o) in AtomOp::WORDS {
            if m.take(w) {
                op = Some(o);
            }
        }
        let noftz = m.take("noftz");
        let vn = m.vec();
        let half_ty = i
            .mods
            .iter()
            .find(|w| half::is_half_word(w))
            .map(|w| (w.starts_with("bf"), w.ends_with("x2")));
        let t = if let Some((_, x2)) = half_ty {
            m.ignore(&["f16", "f16x2", "bf16", "bf16x2"]);
            T::B(if x2 { 32 } else { 16 })
        } else {
            m.ty()?
        };
        m.done()?;
        let Some(op) = op else { return unsupported(i) };
        if vn > 1 {
            return self.atom_vec(fc, i, g, is_red, space, op, vn, half_ty, noftz, t);
        }
        if noftz != half_ty.is_some() {
            // .noftz is required on, and only allowed on, the half-precision adds.
            return unsupported(i);
        }
        let ty = match (t, op) {
            (_, AtomOp::Add) if half_ty.is_some() => {
                let (bf, x2) = half_ty.unwrap();
                AtomTy::Half { bf, x2 }
            }
            _ if half_ty.is_some() => return unsupported(i),
            (T::U(32), _) => AtomTy::U32,
            (T::S(32), _) => AtomTy::S32,
            (T::U(64), _) => AtomTy::U64,
            (T::S(64), _) => AtomTy::S64,
            (T::B(32), AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Exch | AtomOp::Cas) => {
                AtomTy::U32
            }
            (T::B(64), AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Exch | AtomOp::Cas) => {
                AtomTy::U64
            }
            // atom.cas.b16 (sm_70): executed by exec::warp as a host 16-bit compare-exchange.
            (T::B(16), AtomOp::Cas) => AtomTy::B16,
            (T::F(32), AtomOp::Add | AtomOp::Exch) => AtomTy::F32,
            (T::F(64), AtomOp::Add) => AtomTy::F64,
            _ => return unsupported(i),
        };
        if matches!(op, AtomOp::Inc | AtomOp::Dec) && ty != AtomTy::U32 {
            return unsupported(i);
        }
        if !matches!(space, None | Some(AS::Global) | Some(AS::Shared)) {
            return unsupported(i);
        }
        let ops_ = &i.operands;
        let k = if is_red { 0 } else { 1 };
        let want = k + 2 + (op == AtomOp::Cas) as usize;
        if ops_.len() < want {
            return invalid(i.pos, format!("'{}' needs {want} operands", i.full_name()));
        }
        let d = if is_red {
            None
        } else {
            self.opt_dreg(fc, i, &ops_[0])?
        };
        let (ms, addr) = self.addr(fc, i, &ops_[k], space)?;
        let a = self.src(fc, i, g, &ops_[k + 1], t)?;
        let b = if op == AtomOp::Cas {
            self.src(fc, i, g, &ops_[k + 2], t)?
        } else {
            Src::Imm(0)
        };
        self.emit(
            i,
            g,
            Op::Atom {
                space: ms,
                op,
                ty,
                d,
                addr,
                a,
                b,
            },
        );
        Ok(())
    }
}
