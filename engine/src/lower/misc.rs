//! Lowering of `slct` (9.7.6.4) and `brx.idx` (9.7.12.4).

use super::*;

/// `slct` configuration word: bits 0..7 the destination width, bit 8 `c` is `.f32`, bit 9 `.ftz`.
const SLCT_F32: u64 = 1 << 8;
const SLCT_FTZ: u64 = 1 << 9;

/// `d = (c >= 0) ? a : b` (ISA 9.7.6.4). For `.f32` c, -0 equals 0 (so selects a), NaN is
/// unordered (selects b), and with `.ftz` a subnormal c is flushed to a sign-preserving zero
/// (selects a, even when negative). The selected operand is copied unchanged at the width of
/// the destination type.
pub(crate) fn slct_lane(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let ge0 = if cfg & SLCT_F32 != 0 {
        let x = c as u32;
        if cfg & SLCT_FTZ != 0 && x & 0x7f80_0000 == 0 {
            true // a zero or a subnormal flushed to a (signed) zero
        } else {
            // Rust's `>=` on f32 is IEEE: -0.0 >= 0.0 holds, NaN >= 0.0 does not.
            f32::from_bits(x) >= 0.0
        }
    } else {
        c as u32 as i32 >= 0
    };
    let v = if ge0 { a } else { b };
    match cfg & 0xff {
        64 => v,
        bits => v & ((1u64 << bits) - 1),
    }
}

impl<'a> Prog<'a> {
    /// `slct.dtype.s32 d, a, b, c` and `slct{.ftz}.dtype.f32 d, a, b, c`.
    pub(super) fn slct(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let ftz = m.take("ftz");
        let dt = m.ty()?;
        let ct = m.ty()?;
        m.done()?;
        if !matches!(dt, T::B(16 | 32 | 64) | T::U(16 | 32 | 64) | T::S(16 | 32 | 64) | T::F(32 | 64))
            || !matches!(ct, T::S(32) | T::F(32))
        {
            return invalid(
                i.pos,
                format!(
                    "'{}': slct takes .dtype = .b16/.b32/.b64/.u16/.u32/.u64/.s16/.s32/.s64/.f32/.f64 \
                     and .s32 or .f32 (ISA 9.7.6.4)",
                    i.full_name()
                ),
            );
        }
        if ftz && ct != T::F(32) {
            return invalid(i.pos, "slct: .ftz applies only to the .f32 comparison");
        }
        if i.operands.len() != 4 {
            return invalid(i.pos, format!("'{}' needs 4 operands", i.full_name()));
        }
        let d = self.dreg(fc, i, &i.operands[0])?;
        let a = self.src(fc, i, g, &i.operands[1], dt)?;
        let b = self.src(fc, i, g, &i.operands[2], dt)?;
        let c = self.src(fc, i, g, &i.operands[3], ct)?;
        let cfg = dt.bits() as u64
            | if ct == T::F(32) { SLCT_F32 } else { 0 }
            | if ftz { SLCT_FTZ } else { 0 };
        self.emit(
            i,
            g,
            Op::Lane {
                f: slct_lane,
                cfg,
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }

    /// `brx.idx{.uni} index, tlist`: `tlist` names a `.branchtargets` directive of the function
    /// (the parser keeps them in `Function::branch_targets`); its labels are resolved with the
    /// function's other labels at its end. `.uni` only promises no divergence: the divergent
    /// path is correct for it too.
    pub(super) fn brx(
        &mut self,
        fc: &mut FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        if !m.take("idx") {
            return unsupported(i);
        }
        m.take("uni");
        m.done()?;
        if i.operands.len() != 2 {
            return invalid(i.pos, "brx.idx needs an index and a target list");
        }
        let O::Name { name, comp: None } = &i.operands[1] else {
            return invalid(i.pos, "brx.idx: the target list must be a .branchtargets label");
        };
        let f = &self.mc.m.functions[fc.fidx];
        let Some((_, list)) = f.branch_targets.iter().find(|(l, _)| l == name) else {
            return invalid(
                i.pos,
                format!("brx.idx: '{name}' is not a .branchtargets list of this function"),
            );
        };
        if list.is_empty() {
            return invalid(i.pos, format!("brx.idx: '{name}' lists no target"));
        }
        let list = list.clone();
        let idx = self.src(fc, i, g, &i.operands[0], T::U(32))?;
        let pc = self.emit(
            i,
            g,
            Op::Brx {
                idx,
                targets: Vec::new(),
                rpc: 0,
            },
        );
        fc.brx_fixups.push((pc, list, i.pos));
        Ok(())
    }
}
