//! Lowering of small arithmetic forms to `Op::Lane`: packed 16-bit integer `add`/`min`/`max`
//! (`.u16x2`, `.s16x2`, ISA 9.7.1.1, 9.7.1.10, 9.7.1.11) and the f32 `min`/`max` with `.NaN`
//! or `.xorsign.abs` (9.7.3.10, 9.7.3.11), and the `.f32x2` forms of `add`, `sub`, `mul`, `fma`
//! (9.7.3.3 to 9.7.3.6).

use super::*;

const P_MIN: u64 = 1;
const P_MAX: u64 = 2;
const P_SIGNED: u64 = 4;
const P_RELU: u64 = 8;

/// Packed halves: `d[k] = a[k] op b[k]` for the half words k = 0 (bits 0..15) and 1.
fn packed16(cfg: u64, a: u64, b: u64, _c: u64) -> u64 {
    let mut d = 0u64;
    for k in 0..2 {
        let (x, y) = ((a >> (16 * k)) as u16, (b >> (16 * k)) as u16);
        let r = if cfg & (P_MIN | P_MAX) == 0 {
            // add: modulo 2^16 in each half (no carry between halves).
            x.wrapping_add(y)
        } else if cfg & P_SIGNED != 0 {
            let (x, y) = (x as i16, y as i16);
            let v = if cfg & P_MIN != 0 { x.min(y) } else { x.max(y) };
            // .relu clamps a negative result to 0.
            (if cfg & P_RELU != 0 { v.max(0) } else { v }) as u16
        } else if cfg & P_MIN != 0 {
            x.min(y)
        } else {
            x.max(y)
        };
        d |= (r as u64) << (16 * k);
    }
    d
}

const F_MAX: u64 = 1;
const F_NAN: u64 = 2;
const F_XORSIGN: u64 = 4;
const F_FTZ: u64 = 8;
const F_THREE: u64 = 16;
/// The canonical NaN min/max produce.
const CANON_NAN: u32 = 0x7fff_ffff;

/// f32 min/max per the ISA's pseudocode (min_num / min_nan, `-0.0 < +0.0`).
fn minmax_f32(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let ftz = |x: u64| {
        let v = x as u32;
        if cfg & F_FTZ != 0 && v & 0x7f80_0000 == 0 {
            v & 0x8000_0000
        } else {
            v
        }
    };
    let (mut x, mut y, z) = (ftz(a), ftz(b), ftz(c));
    let sign = (x ^ y) & 0x8000_0000;
    if cfg & F_XORSIGN != 0 {
        // `.xorsign` requires `.abs`: the sign is taken before the absolute values.
        x &= 0x7fff_ffff;
        y &= 0x7fff_ffff;
    }
    let two = |p: u32, q: u32| -> u32 {
        let (fp, fq) = (f32::from_bits(p), f32::from_bits(q));
        match (fp.is_nan(), fq.is_nan()) {
            (true, true) => return CANON_NAN,
            (true, false) | (false, true) if cfg & F_NAN != 0 => return CANON_NAN,
            (true, false) => return q,
            (false, true) => return p,
            _ => {}
        }
        let p_less = if fp == fq {
            p >> 31 > q >> 31 // only ±0 compare equal with different bits: -0 is less
        } else {
            fp < fq
        };
        match (cfg & F_MAX != 0, p_less) {
            (false, true) | (true, false) => p,
            _ => q,
        }
    };
    let mut d = two(x, y);
    if cfg & F_THREE != 0 {
        d = two(d, z);
    }
    if cfg & F_XORSIGN != 0 && !f32::from_bits(d).is_nan() {
        d = (d & 0x7fff_ffff) | sign;
    }
    d as u64
}

const X2_SUB: u64 = 1;
const X2_MUL: u64 = 2;
const X2_FMA: u64 = 3;
const X2_FTZ: u64 = 4;
/// The rounding mode sits at bits 3..5 of the configuration.
const X2_MODE_SHIFT: u32 = 3;

/// `.f32x2`: the op on the two f32 halves (bits 0..31 and 32..63) independently, rounded as the
/// scalar `.f32` op is: round-to-nearest through the host's IEEE arithmetic (exact), directed
/// modes through [`crate::softfloat`]. `.ftz` flushes subnormal inputs and results to
/// sign-preserving zero.
fn f32x2(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    use crate::softfloat as sf;
    let ftz = |v: u32| {
        if cfg & X2_FTZ != 0 && v & 0x7f80_0000 == 0 {
            v & 0x8000_0000
        } else {
            v
        }
    };
    let mode = Mode::from_u8((cfg >> X2_MODE_SHIFT) as u8 & 3);
    let mut d = 0u64;
    for k in 0..2 {
        let half = |v: u64| ftz((v >> (32 * k)) as u32);
        let (x, y, z) = (half(a), half(b), half(c));
        let r = if mode == Mode::Rn {
            let (fx, fy, fz) = (f32::from_bits(x), f32::from_bits(y), f32::from_bits(z));
            match cfg & 3 {
                0 => fx + fy,
                X2_SUB => fx - fy,
                X2_MUL => fx * fy,
                _ => fx.mul_add(fy, fz),
            }
            .to_bits()
        } else {
            let (x, y, z) = (x as u64, y as u64, z as u64);
            (match cfg & 3 {
                0 => sf::add(sf::F32, x, y, mode),
                X2_SUB => sf::sub(sf::F32, x, y, mode),
                X2_MUL => sf::mul(sf::F32, x, y, mode),
                _ => sf::fma(sf::F32, x, y, z, mode),
            }) as u32
        };
        d |= (ftz(r) as u64) << (32 * k);
    }
    d
}

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
        let ftz = m.take("ftz");
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
        let f: ScalarFn = f32x2;
        self.emit(i, g, Op::Lane { f, cfg, d, a, b, c });
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
        let f: ScalarFn = packed16;
        self.emit(
            i,
            g,
            Op::Lane {
                f,
                cfg,
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
        let ftz = m.take("ftz");
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
        let f: ScalarFn = minmax_f32;
        self.emit(i, g, Op::Lane { f, cfg, d, a, b, c });
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
