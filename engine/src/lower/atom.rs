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
