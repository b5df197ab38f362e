//! Lowering of small arithmetic forms to `Op::Lane`: packed 16-bit integer `add`/`min`/`max`
//! (`.u16x2`, `.s16x2`, ISA 9.7.1.1, 9.7.1.10, 9.7.1.11) and the f32 `min`/`max` with `.NaN`
//! or `.xorsign.abs` (9.7.3.10, 9.7.3.11), and the `.f32x2` forms of `add`, `sub`, `mul`, `fma`
//! (9.7.3.3 to 9.7.3.6).

use super::*;
use crate::sem::lane::*;

impl<'a> Prog<'a> {
    /// `add/sub/mul{.rnd}{.ftz}.f32x2 d, a, b` and `fma.rnd{.ftz}.f32x2 d, a, b, c`: every
    /// operand a `.b64` holding two f32 values.
    pub(super) fn f32x2(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let rnd = m.rnd();
        let ftz = m.ftz();
        if !m.take("f32x2") {
            return unsupported(i);
        }
        m.done()?;
        let (op, nops) = match i.opcode.as_str() {
            "add" => (0, 3),
            "sub" => (X2_SUB, 3),
            "mul" => (X2_MUL, 3),
            _ => (X2_FMA, 4),
        };
        // The rounding modifier is optional (default .rn) except on fma, where it is required.
        let mode = match (rnd, op) {
            (Rnd::None, X2_FMA) => return invalid(i.pos, "'fma.f32x2' needs a rounding modifier"),
            (Rnd::None, _) => Mode::Rn,
            (r, _) => match ieee_mode(r) {
                Some(md) => md,
                None => return unsupported(i),
            },
        };
        let ops_ = &i.operands;
        if ops_.len() != nops {
            return invalid(i.pos, format!("'{}' needs {nops} operands", i.full_name()));
        }
        let cfg = op | if ftz { X2_FTZ } else { 0 } | (mode as u64) << X2_MODE_SHIFT;
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], T::B(64))?;
        let b = self.src(fc, i, g, &ops_[2], T::B(64))?;
        let c = if nops == 4 {
            self.src(fc, i, g, &ops_[3], T::B(64))?
        } else {
            Src::Imm(0)
        };
        let op = LaneOp::new(LaneFamily::F32x2, cfg);
        self.emit(i, g, Op::Lane { op, d, a, b, c });
        Ok(())
    }

    /// `add.u16x2`/`.s16x2`, `min{.relu}`/`max{.relu}` on `.u16x2`/`.s16x2` (`.relu` only
    /// with `.s16x2`).
    pub(super) fn packed_int(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let signed = m.take("s16x2");
        let unsigned = m.take("u16x2");
        let relu = m.take("relu");
        m.done()?;
        let mut cfg = match i.opcode.as_str() {
            "min" => P_MIN,
            "max" => P_MAX,
            _ => 0,
        };
        if signed == unsigned || (relu && (cfg == 0 || !signed)) {
            return unsupported(i);
        }
        if signed {
            cfg |= P_SIGNED;
        }
        if relu {
            cfg |= P_RELU;
        }
        let ops_ = &i.operands;
        if ops_.len() != 3 {
            return invalid(i.pos, format!("'{}' needs 3 operands", i.full_name()));
        }
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], T::B(32))?;
        let b = self.src(fc, i, g, &ops_[2], T::B(32))?;
        let op = LaneOp::new(LaneFamily::Packed16, cfg);
        self.emit(
            i,
            g,
            Op::Lane {
                op,
                d,
                a,
                b,
                c: Src::Imm(0),
            },
        );
        Ok(())
    }

    /// `min`/`max{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b{, c}` (`.xorsign` only with two
    /// inputs).
    pub(super) fn minmax_f32_ext(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let ftz = m.ftz();
        let nan = m.take("NaN");
        let xs = m.take("xorsign");
        let abs = m.take("abs");
        let t = m.ty()?;
        m.done()?;
        let ops_ = &i.operands;
        let three = ops_.len() == 4;
        if t != T::F(32) || xs != abs || (xs && three) {
            return unsupported(i);
        }
        if !(3..=4).contains(&ops_.len()) {
            return invalid(i.pos, format!("'{}' needs 3 or 4 operands", i.full_name()));
        }
        let mut cfg = 0;
        for (on, bit) in [
            (i.opcode == "max", F_MAX),
            (nan, F_NAN),
            (xs, F_XORSIGN),
            (ftz, F_FTZ),
            (three, F_THREE),
        ] {
            if on {
                cfg |= bit;
            }
        }
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], T::F(32))?;
        let b = self.src(fc, i, g, &ops_[2], T::F(32))?;
        let c = if three {
            self.src(fc, i, g, &ops_[3], T::F(32))?
        } else {
            Src::Imm(0)
        };
        let op = LaneOp::new(LaneFamily::MinMaxF32, cfg);
        self.emit(i, g, Op::Lane { op, d, a, b, c });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_halves_by_hand() {
        // add: 0xFFFF + 0x0002 = 0x0001 (mod 2^16, no carry into the high half); 0x1234 + 1.
        assert_eq!(packed16(0, 0x1234_FFFF, 0x0001_0002, 0), 0x1235_0001);
        // min.s16x2: halves (-1, 5) vs (3, -7) -> (-1, -7); .relu -> (0, 0).
        let (a, b) = (0x0005_FFFF, 0xFFF9_0003);
        assert_eq!(packed16(P_MIN | P_SIGNED, a, b, 0), 0xFFF9_FFFF);
        assert_eq!(packed16(P_MIN | P_SIGNED | P_RELU, a, b, 0), 0);
        // max.s16x2 -> (3, 5); min.u16x2 -> (3, 5) as unsigned; max.u16x2 -> (0xFFFF, 0xFFF9).
        assert_eq!(packed16(P_MAX | P_SIGNED, a, b, 0), 0x0005_0003);
        assert_eq!(packed16(P_MIN, a, b, 0), 0x0005_0003);
        assert_eq!(packed16(P_MAX, a, b, 0), 0xFFF9_FFFF);
    }

    #[test]
    fn f32_min_max_nan_and_xorsign_by_hand() {
        let f = |x: f32| x.to_bits() as u64;
        let nan = 0x7fc0_0001u64;
        // min_num ignores one NaN; min_nan gives the canonical NaN.
        assert_eq!(minmax_f32(0, nan, f(2.0), 0), f(2.0));
        assert_eq!(minmax_f32(F_NAN, nan, f(2.0), 0), 0x7fff_ffff);
        assert_eq!(minmax_f32(F_MAX | F_NAN, f(1.0), nan, 0), 0x7fff_ffff);
        // -0.0 < +0.0.
        assert_eq!(minmax_f32(F_NAN, f(0.0), f(-0.0), 0), f(-0.0));
        assert_eq!(minmax_f32(F_MAX | F_NAN, f(-0.0), f(0.0), 0), f(0.0));
        // xorsign.abs: min(|-3|, |2|) = 2 with sign (1 ^ 0) -> -2; max -> -3.
        assert_eq!(minmax_f32(F_XORSIGN, f(-3.0), f(2.0), 0), f(-2.0));
        assert_eq!(minmax_f32(F_MAX | F_XORSIGN, f(-3.0), f(2.0), 0), f(-3.0));
        // Both negative: sign 1 ^ 1 = 0: min(|-3|, |-2|) = +2.
        assert_eq!(minmax_f32(F_XORSIGN, f(-3.0), f(-2.0), 0), f(2.0));
        // A NaN result keeps no xorsign: canonical NaN.
        assert_eq!(minmax_f32(F_NAN | F_XORSIGN, f(-3.0), nan, 0), 0x7fff_ffff);
        // Three inputs with .NaN: max(1, 5, 3) = 5; a NaN anywhere -> NaN.
        assert_eq!(
            minmax_f32(F_MAX | F_NAN | F_THREE, f(1.0), f(5.0), f(3.0)),
            f(5.0)
        );
        assert_eq!(
            minmax_f32(F_NAN | F_THREE, f(1.0), f(5.0), nan),
            0x7fff_ffff
        );
        // .ftz: the subnormal 1e-40 is flushed to +0, which is less than... nothing here:
        // min(+0, 1.0) = +0.
        assert_eq!(minmax_f32(F_FTZ | F_NAN, f(1e-40), f(1.0), 0), 0);
    }

    /// The forms through the whole pipeline (parse, ISA table, lowering, executor). The packed
    /// integer sources are registers: ptxas refuses integer literals for `.u16x2`/`.s16x2`.
    #[test]
    fn kernel_runs_the_forms() {
        use crate::{launch, mem, LaunchConfig, Module};
        let src = ".version 9.0\n.target sm_90\n.address_size 64\n\
            .visible .entry k(.param .u64 out)\n{\n\
            .reg .b32 %r<16>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<2>;\n\
            ld.param.u64 %rd1, [out];\n\
            mov.b32 %r10, 0x1234FFFF;\n\
            mov.b32 %r11, 0x00010002;\n\
            mov.b32 %r12, 0x0005FFFF;\n\
            mov.b32 %r13, 0xFFF90003;\n\
            add.u16x2 %r1, %r10, %r11;\n\
            min.relu.s16x2 %r2, %r12, %r13;\n\
            max.s16x2 %r3, %r12, %r13;\n\
            min.u16x2 %r4, %r12, %r13;\n\
            min.NaN.f32 %f1, 0f7FC00001, 0f40000000;\n\
            max.xorsign.abs.f32 %f2, 0fC0400000, 0f40000000;\n\
            max.NaN.f32 %f3, 0f3F800000, 0f40A00000, 0f40400000;\n\
            st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n\
            st.global.v2.f32 [%rd1+16], {%f1, %f2};\n\
            st.global.f32 [%rd1+24], %f3;\n\
            ret;\n}\n";
        let m = Module::load(src, "p.ptx").unwrap_or_else(|e| panic!("{e}"));
        let out = mem::alloc(28).unwrap();
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared_bytes: 0,
            cluster: [1, 1, 1],
            explicit_cluster: false,
        };
        launch(&m.kernel("k").unwrap(), &cfg, &out.to_le_bytes()).unwrap_or_else(|e| panic!("{e}"));
        let mut v = [0u32; 7];
        // SAFETY: `out` holds 28 bytes.
        unsafe { std::ptr::copy_nonoverlapping(out as *const u32, v.as_mut_ptr(), 7) };
        mem::free(out).unwrap();
        // Values as in the by-hand tests above: max.xorsign.abs(-3, 2) = -3; max(1, 5, 3) = 5.
        assert_eq!(
            v,
            [
                0x1235_0001,
                0,
                0x0005_0003,
                0x0005_0003,
                0x7fff_ffff,
                (-3.0f32).to_bits(),
                5.0f32.to_bits()
            ]
        );
    }
}
