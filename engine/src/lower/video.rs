//! Lowering of the scalar video instructions (9.7.18.1) to `Op::Lane` with
//! [`crate::video::scalar`]. `vmad` and the SIMD forms (`vadd2`, ..., `vset4`) are not run yet
//! and stay load errors.

use super::*;
use crate::video::{self as vd, Cfg, VOp};

impl<'a> Prog<'a> {
    pub(super) fn video(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = match i.opcode.as_str() {
            "vadd" => VOp::Add,
            "vsub" => VOp::Sub,
            "vabsdiff" => VOp::AbsDiff,
            "vmin" => VOp::Min,
            "vmax" => VOp::Max,
            "vshl" => VOp::Shl,
            "vshr" => VOp::Shr,
            "vset" => VOp::Set,
            _ => return unsupported(i),
        };
        let sat = m.take("sat");
        let clamp = m.take("clamp");
        let wrap = m.take("wrap");
        let cmp = [
            ("eq", 0u8),
            ("ne", 1),
            ("lt", 2),
            ("le", 3),
            ("gt", 4),
            ("ge", 5),
        ]
        .into_iter()
        .find(|(w, _)| op == VOp::Set && m.take(w))
        .map(|(_, c)| c);
        let secop = [("add", 1u8), ("min", 2), ("max", 3)]
            .into_iter()
            .find(|(w, _)| m.take(w))
            .map_or(0, |(_, s)| s);
        // vset names atype.btype; the others dtype.atype.btype.
        let ntys = if op == VOp::Set { 2 } else { 3 };
        let mut tys = Vec::new();
        for _ in 0..ntys {
            tys.push(match m.ty()? {
                T::U(32) => false,
                T::S(32) => true,
                _ => return unsupported(i),
            });
        }
        m.done()?;
        let (dsigned, asigned, bsigned) = if op == VOp::Set {
            (false, tys[0], tys[1])
        } else {
            (tys[0], tys[1], tys[2])
        };
        let shift = matches!(op, VOp::Shl | VOp::Shr);
        // Shifts need a mode and an unsigned amount; vset has a comparison and no .sat.
        if shift != (clamp != wrap) || (shift && bsigned) || (op == VOp::Set) != cmp.is_some() {
            return unsupported(i);
        }
        if op == VOp::Set && sat {
            return unsupported(i);
        }
        let ops_ = &i.operands;
        if ops_.len() < 3 {
            return invalid(i.pos, format!("'{}' needs 3 operands", i.full_name()));
        }
        // `r.b0` .. `r.h1`: a selector on a register operand.
        let split = |o: &O| -> (O, u8) {
            match o {
                O::Name {
                    name,
                    comp: Some(c),
                } if vd::sel_word(c).is_some() => (
                    O::Name {
                        name: name.clone(),
                        comp: None,
                    },
                    vd::sel_word(c).unwrap(),
                ),
                o => (o.clone(), vd::WORD),
            }
        };
        let (dop, dsel) = split(&ops_[0]);
        let (aop, asel) = split(&ops_[1]);
        let (bop, bsel) = split(&ops_[2]);
        let has_c = ops_.len() > 3;
        // A merge (d.dsel) and a secondary operation both need c; they exclude each other.
        if (dsel != vd::WORD || secop != 0) != has_c || (dsel != vd::WORD && secop != 0) {
            return unsupported(i);
        }
        let d = self.dreg(fc, i, &dop)?;
        let a = self.src(fc, i, g, &aop, T::B(32))?;
        let b = self.src(fc, i, g, &bop, T::B(32))?;
        let c = if has_c {
            self.src(fc, i, g, &ops_[3], T::B(32))?
        } else {
            Src::Imm(0)
        };
        let cfg = Cfg {
            op,
            dsigned,
            asigned,
            bsigned,
            asel,
            bsel,
            dsel,
            sat,
            secop,
            clamp,
            cmp: cmp.unwrap_or(0),
        };
        self.emit(
            i,
            g,
            Op::Lane {
                f: vd::scalar,
                cfg: cfg.word(),
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }
}
