//! Lowering of the video instructions (9.7.18) to `Op::Lane`: the scalar forms with
//! [`crate::sem::video::scalar`], `vmad` with [`crate::sem::video::vmad`], the SIMD forms (`vadd2` ..
//! `vset4`) with [`crate::sem::video::simd`].

use super::*;
use crate::sem::video::{self as vd, Cfg, MadCfg, SOp, SimdCfg, VOp};

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
        let sat = m.sat();
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
                op: LaneOp::new(LaneFamily::Video, cfg.word()),
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }

    /// `vmad.dtype.atype.btype{.po}{.sat}{.scale} d, {-}a{.asel}, {-}b{.bsel}, {-}c`.
    pub(super) fn vmad(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let po = m.take("po");
        let sat = m.sat();
        let shr = if m.take("shr7") {
            7
        } else if m.take("shr15") {
            15
        } else {
            0
        };
        let mut tys = [false; 3];
        for t in &mut tys {
            *t = match m.ty()? {
                T::U(32) => false,
                T::S(32) => true,
                _ => return unsupported(i),
            };
        }
        m.done()?;
        let ops_ = &i.operands;
        if ops_.len() != 4 {
            return invalid(i.pos, format!("'{}' needs 4 operands", i.full_name()));
        }
        let neg = |o: &O| -> (O, bool) {
            match o {
                O::Neg(x) => ((**x).clone(), true),
                o => (o.clone(), false),
            }
        };
        let (ao, na) = neg(&ops_[1]);
        let (bo, nb) = neg(&ops_[2]);
        let (co, nc) = neg(&ops_[3]);
        if po && (na || nb || nc) {
            return invalid(i.pos, "vmad: operands may not be negated in .po mode");
        }
        // The ISA: negation of either the product (a xor b) or c (as ptxas enforces).
        if (na || nb) && nc {
            return invalid(
                i.pos,
                "vmad: negate either the product (a xor b) or c, not both",
            );
        }
        let (ao, asel) = sel(&ao);
        let (bo, bsel) = sel(&bo);
        if matches!(&ops_[0], O::Name { comp: Some(_), .. }) {
            return invalid(i.pos, "vmad: the destination takes no selector");
        }
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ao, T::B(32))?;
        let b = self.src(fc, i, g, &bo, T::B(32))?;
        let c = self.src(fc, i, g, &co, T::B(32))?;
        let cfg = MadCfg {
            asigned: tys[1],
            bsigned: tys[2],
            asel,
            bsel,
            negp: na != nb,
            negc: nc,
            po,
            sat,
            shr,
        };
        self.emit(
            i,
            g,
            Op::Lane {
                op: LaneOp::new(LaneFamily::Vmad, cfg.word()),
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }

    /// `vop2/vop4.dtype.atype.btype{.sat}{.add} d{.mask}, a{.asel}, b{.bsel}, c` and
    /// `vset2/vset4.atype.btype.cmp{.add} ...` (ISA 9.7.18.2).
    pub(super) fn video_simd(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let name = i.opcode.as_str();
        let n: u8 = if name.ends_with('4') { 4 } else { 2 };
        let op = match &name[..name.len() - 1] {
            "vadd" => SOp::Add,
            "vsub" => SOp::Sub,
            "vavrg" => SOp::Avrg,
            "vabsdiff" => SOp::AbsDiff,
            "vmin" => SOp::Min,
            "vmax" => SOp::Max,
            "vset" => SOp::Set,
            _ => return unsupported(i),
        };
        let sat = m.sat();
        let add = m.take("add");
        // The scalar forms' other secondary operations do not exist here (ptxas: "Illegal
        // secondary operation for video instruction").
        if i.mods.iter().any(|w| w == "min" || w == "max") {
            return invalid(
                i.pos,
                format!(
                    "'{}': the SIMD video forms accumulate only with .add",
                    i.full_name()
                ),
            );
        }
        let cmp = if op == SOp::Set {
            let c = ["eq", "ne", "lt", "le", "gt", "ge"]
                .iter()
                .position(|w| m.take(w));
            match c {
                Some(c) => c as u8,
                None => return unsupported(i),
            }
        } else {
            0
        };
        let ntys = if op == SOp::Set { 2 } else { 3 };
        let mut tys = Vec::new();
        for _ in 0..ntys {
            tys.push(match m.ty()? {
                T::U(32) => false,
                T::S(32) => true,
                _ => return unsupported(i),
            });
        }
        m.done()?;
        // Saturation cannot be used with the accumulate, nor with a comparison.
        if sat && (add || op == SOp::Set) {
            return invalid(
                i.pos,
                format!("'{}': .sat with .add or vset", i.full_name()),
            );
        }
        let (dsigned, asigned, bsigned) = if op == SOp::Set {
            (false, tys[0], tys[1])
        } else {
            (tys[0], tys[1], tys[2])
        };
        let ops_ = &i.operands;
        if ops_.len() != 4 {
            return invalid(i.pos, format!("'{}' needs 4 operands", i.full_name()));
        }
        let strip = |o: &O| -> (O, Option<String>) {
            match o {
                O::Name {
                    name,
                    comp: Some(c),
                } => (
                    O::Name {
                        name: name.clone(),
                        comp: None,
                    },
                    Some(c.to_string()),
                ),
                o => (o.clone(), None),
            }
        };
        let (dop, dm) = strip(&ops_[0]);
        let (aop, aw) = strip(&ops_[1]);
        let (bop, bw) = strip(&ops_[2]);
        let bad = |what: &str, w: &str| -> LowerError {
            LowerError {
                kind: LoadErrorKind::InvalidPtx,
                pos: i.pos,
                message: format!("'{}': bad {what} '.{w}' (ISA 9.7.18.2)", i.full_name()),
            }
        };
        // Element digits, written from the highest element down (`.h10`: element 1 is h1).
        let digits = |w: &str, max: u8| -> Option<Vec<u8>> {
            let prefix = if n == 2 { 'h' } else { 'b' };
            let rest = w.strip_prefix(prefix)?;
            let v: Vec<u8> = rest.bytes().map(|c| c.wrapping_sub(b'0')).collect();
            (!v.is_empty() && v.iter().all(|&x| x <= max)).then_some(v)
        };
        let selw = |w: Option<String>, default: u16, what: &str| -> R<u16> {
            let Some(w) = w else { return Ok(default) };
            match digits(&w, if n == 2 { 3 } else { 7 }) {
                Some(v) if v.len() == n as usize => {
                    let mut s = 0u16;
                    for (k, &x) in v.iter().rev().enumerate() {
                        s |= (x as u16) << (3 * k);
                    }
                    Ok(s)
                }
                _ => Err(bad(what, &w)),
            }
        };
        // Defaults: a.h10 / a.b3210 (a's elements in order), b.h32 / b.b7654 (b's); element i
        // in bits 3i..3i+3 (element 0 selects half-word or byte 0).
        let (da, db) = if n == 2 {
            (1 << 3, 2 | 3 << 3)
        } else {
            (1 << 3 | 2 << 6 | 3 << 9, 4 | 5 << 3 | 6 << 6 | 7 << 9)
        };
        let asel = selw(aw, da, "selector")?;
        let bsel = selw(bw, db, "selector")?;
        let mask = match dm {
            None => (1u8 << n) - 1,
            Some(w) => match digits(&w, n - 1) {
                // Positions named once each, in descending order (`.b310`).
                Some(v) if v.windows(2).all(|p| p[0] > p[1]) => {
                    v.iter().fold(0u8, |acc, &x| acc | 1 << x)
                }
                _ => return Err(bad("mask", &w)),
            },
        };
        let d = self.dreg(fc, i, &dop)?;
        let a = self.src(fc, i, g, &aop, T::B(32))?;
        let b = self.src(fc, i, g, &bop, T::B(32))?;
        let c = self.src(fc, i, g, &ops_[3], T::B(32))?;
        let cfg = SimdCfg {
            op,
            n,
            dsigned,
            asigned,
            bsigned,
            sat,
            add,
            mask,
            asel,
            bsel,
            cmp,
        };
        self.emit(
            i,
            g,
            Op::Lane {
                op: LaneOp::new(LaneFamily::VideoSimd, cfg.word()),
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }
}

/// `r.b0` .. `r.h1`: a scalar video selector on a register operand.
fn sel(o: &O) -> (O, u8) {
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
}
