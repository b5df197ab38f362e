//! Lowering of half precision, mixed precision, half comparisons (`setp`, `set`), narrow-format
//! conversions and `cvt.pack` to `Op::Lane` (see [`crate::sem::narrow`]).

use super::*;
use crate::sem::narrow::{self as nw, HOp, SetKind};

/// The packed and 16-bit float type words.
pub(super) fn is_half_word(w: &str) -> bool {
    matches!(w, "f16" | "f16x2" | "bf16" | "bf16x2")
}

impl<'a> Prog<'a> {
    #[allow(clippy::too_many_arguments)]
    fn lane(
        &mut self,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        family: LaneFamily,
        cfg: u64,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    ) {
        let op = LaneOp::new(family, cfg);
        self.emit(i, g, Op::Lane { op, d, a, b, c });
    }

    /// add, sub, mul, fma, neg, abs, min, max, ex2, tanh on f16/bf16 (scalar or x2), and the
    /// mixed precision add/sub/fma with an f32 result.
    pub(super) fn half(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = i.opcode.as_str();
        let rnd = m.rnd();
        let ftz = m.ftz();
        let sat = m.sat();
        let relu = m.take("relu");
        let nan = m.take("NaN");
        let xs = m.take("xorsign");
        let xabs = xs && m.take("abs");
        let approx = m.take("approx");
        // `fma.rn.oob{.relu}` (9.7.4.4): the result is +0 where a multiplicand is the OOB-NaN
        // that tensor copies write outside a tensor's bounds (`sem::narrow::half`).
        let oob = m.take("oob");
        let tys = m.types();
        m.done()?;
        let ops_ = &i.operands;
        let hop = match op {
            "add" => HOp::Add,
            "sub" => HOp::Sub,
            "mul" => HOp::Mul,
            "fma" => HOp::Fma,
            "neg" => HOp::Neg,
            "abs" => HOp::Abs,
            "min" => HOp::Min,
            "max" => HOp::Max,
            "ex2" => HOp::Ex2,
            _ => HOp::Tanh,
        };
        let nops = match hop {
            HOp::Fma => 4,
            HOp::Neg | HOp::Abs | HOp::Ex2 | HOp::Tanh => 2,
            _ => 3,
        };
        if ops_.len() < nops {
            return invalid(i.pos, format!("'{}' needs {nops} operands", i.full_name()));
        }
        // Mixed precision: `.f32.f16` / `.f32.bf16`.
        if let [t1, t2] = tys.as_slice() {
            let ok = t1 == "f32"
                && matches!(t2.as_str(), "f16" | "bf16")
                && matches!(hop, HOp::Add | HOp::Sub | HOp::Fma)
                && !(ftz || relu || nan || xs || approx || oob);
            let mode = match (rnd, hop) {
                (Rnd::None, HOp::Add | HOp::Sub) => Some(Mode::Rn),
                (r, _) => ieee_mode(r),
            };
            let (true, Some(mode)) = (ok, mode) else {
                return unsupported(i);
            };
            let mut fl = nw::mode_bits(mode) | if sat { nw::SAT } else { 0 };
            if t2 == "bf16" {
                fl |= nw::BF;
            }
            let cfg = nw::half_cfg(hop, fl);
            let d = self.dreg(fc, i, &ops_[0])?;
            let a = self.src(fc, i, g, &ops_[1], T::B(16))?;
            let (b, c) = if hop == HOp::Fma {
                (
                    self.src(fc, i, g, &ops_[2], T::B(16))?,
                    self.src(fc, i, g, &ops_[3], T::F(32))?,
                )
            } else {
                (Src::Imm(0), self.src(fc, i, g, &ops_[2], T::F(32))?)
            };
            self.lane(i, g, LaneFamily::Mixed, cfg, d, a, b, c);
            return Ok(());
        }
        let [t] = tys.as_slice() else {
            return unsupported(i);
        };
        if !is_half_word(t) {
            return unsupported(i);
        }
        let bf = t.starts_with("bf");
        let x2 = t.ends_with("x2");
        // Which modifiers each op takes (9.7.4): f16 has .ftz/.sat, bf16 neither, .relu only on
        // fma, .NaN/.xorsign.abs only on min/max, .approx exactly on ex2/tanh (where bf16 ex2
        // requires .ftz and f16 ex2 takes none).
        let ok = match hop {
            HOp::Add | HOp::Sub | HOp::Mul => {
                matches!(rnd, Rnd::None | Rnd::Rn)
                    && !(relu || nan || xs || approx)
                    && !(bf && (ftz || sat))
            }
            HOp::Fma => {
                rnd == Rnd::Rn && !(nan || xs || approx) && !(sat && relu) && !(bf && (ftz || sat))
            }
            HOp::Neg | HOp::Abs => {
                rnd == Rnd::None && !(sat || relu || nan || xs || approx) && !(bf && ftz)
            }
            HOp::Min | HOp::Max => {
                rnd == Rnd::None && !(sat || relu || approx) && !(bf && ftz) && xs == xabs
            }
            HOp::Ex2 => rnd == Rnd::None && approx && !(sat || relu || nan || xs) && ftz == bf,
            HOp::Tanh => rnd == Rnd::None && approx && !(ftz || sat || relu || nan || xs),
        };
        if !ok || (oob && !(hop == HOp::Fma && !ftz && !sat)) {
            return unsupported(i);
        }
        let mut fl = 0;
        for (on, bit) in [
            (bf, nw::BF),
            (x2, nw::X2),
            (ftz, nw::FTZ),
            (sat, nw::SAT),
            (relu, nw::RELU),
            (nan, nw::NAN),
            (xs, nw::XORSIGN),
            (oob, nw::OOB),
        ] {
            if on {
                fl |= bit;
            }
        }
        let st = if x2 { T::B(32) } else { T::B(16) };
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], st)?;
        let b = if nops > 2 {
            self.src(fc, i, g, &ops_[2], st)?
        } else {
            Src::Imm(0)
        };
        let c = if nops > 3 {
            self.src(fc, i, g, &ops_[3], st)?
        } else {
            Src::Imm(0)
        };
        self.lane(i, g, LaneFamily::Half, nw::half_cfg(hop, fl), d, a, b, c);
        Ok(())
    }

    /// The combining predicate of setp/set: (Boolean op code, predicate, negated).
    fn combining(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        bop: Option<BoolOp>,
    ) -> R<(u8, Src, bool)> {
        let Some(bo) = bop else {
            return Ok((0, Src::Imm(0), false));
        };
        let Some(o) = i.operands.get(3) else {
            return invalid(i.pos, format!("'{}' needs 4 operands", i.full_name()));
        };
        let (neg, o) = match o {
            O::Not(x) => (true, &**x),
            o => (false, o),
        };
        let c = self.src(fc, i, g, o, T::Pred)?;
        let code = match bo {
            BoolOp::And => 1,
            BoolOp::Or => 2,
            BoolOp::Xor => 3,
        };
        Ok((code, c, neg))
    }

    /// Compares f16/bf16 (scalar or x2) operands 1 and 2 into a fresh register: bit 0 `p`,
    /// bit 1 `q` (see [`nw::cmp`]).
    #[allow(clippy::too_many_arguments)]
    fn half_compare(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        cmp: Cmp,
        bop: Option<BoolOp>,
        ftz: bool,
        t: &str,
    ) -> R<Reg> {
        let bf = t.starts_with("bf");
        let x2 = t.ends_with("x2");
        if bf && ftz {
            return unsupported(i);
        }
        let (code, c, neg) = self.combining(fc, i, g, bop)?;
        let st = if x2 { T::B(32) } else { T::B(16) };
        let a = self.src(fc, i, g, &i.operands[1], st)?;
        let b = self.src(fc, i, g, &i.operands[2], st)?;
        let mut fl = 0;
        if bf {
            fl |= nw::BF;
        }
        if x2 {
            fl |= nw::X2;
        }
        if ftz {
            fl |= nw::FTZ;
        }
        let tmp = self.new_reg();
        self.lane(
            i,
            g,
            LaneFamily::HalfCmp,
            nw::cmp_cfg(cmp, code, neg, fl),
            tmp,
            a,
            b,
            c,
        );
        Ok(tmp)
    }

    /// `setp` on f16, f16x2, bf16, bf16x2 (`p|q`: the two halves' results for x2 forms).
    pub(super) fn half_setp(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let cmp = m.cmp();
        let bop = m.boolop();
        let ftz = m.ftz();
        let tys = m.types();
        m.done()?;
        let (Some(cmp), [t]) = (cmp, tys.as_slice()) else {
            return unsupported(i);
        };
        if i.operands.len() < 3 {
            return invalid(i.pos, format!("'{}' needs 3 operands", i.full_name()));
        }
        let tmp = self.half_compare(fc, i, g, cmp, bop, ftz, t)?;
        let (p, q) = match &i.operands[0] {
            O::Pair(a, b) => (self.opt_dreg(fc, i, a)?, self.opt_dreg(fc, i, b)?),
            o => (self.opt_dreg(fc, i, o)?, None),
        };
        for (k, d) in [(0u64, p), (1, q)] {
            if let Some(d) = d {
                self.lane(
                    i,
                    g,
                    LaneFamily::HalfBit,
                    k,
                    d,
                    Src::Reg(tmp),
                    Src::Imm(0),
                    Src::Imm(0),
                );
            }
        }
        Ok(())
    }

    /// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype`: 1.0 (float destinations) or all ones (integer
    /// ones) when the comparison holds, else 0; packed sources give packed results.
    pub(super) fn set(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let cmp = m.cmp();
        let bop = m.boolop();
        let ftz = m.ftz();
        let tys = m.types();
        m.done()?;
        let (Some(cmp), [dt, st]) = (cmp, tys.as_slice()) else {
            return unsupported(i);
        };
        if i.operands.len() < 3 {
            return invalid(i.pos, format!("'{}' needs 3 operands", i.full_name()));
        }
        let x2 = st.ends_with("x2");
        let kind = match (dt.as_str(), x2) {
            ("f16", false) | ("f16x2", true) => SetKind::F16,
            ("bf16", false) | ("bf16x2", true) => SetKind::Bf16,
            ("f32", false) => SetKind::F32,
            ("u16" | "s16", false) | ("u32" | "s32", true) => SetKind::Ones16,
            ("u32" | "s32", false) => SetKind::Ones32,
            _ => return unsupported(i),
        };
        let tmp = if is_half_word(st) {
            self.half_compare(fc, i, g, cmp, bop, ftz, st)?
        } else {
            let t = ty_word(st).unwrap_or(T::Other);
            let f = match t {
                T::F(b @ (32 | 64)) => CmpOp::Float(cmp, Scalar::float_of_bits(b)).resolve(),
                T::B(_) if !matches!(cmp, Cmp::Eq | Cmp::Ne) => None,
                _ => t.int().and_then(|it| cmp_int(cmp, it)),
            };
            let Some(f) = f else { return unsupported(i) };
            if ftz && t != T::F(32) {
                return unsupported(i);
            }
            let a = self.src(fc, i, g, &i.operands[1], t)?;
            let b = self.src(fc, i, g, &i.operands[2], t)?;
            let comb = match bop {
                Some(bo) => {
                    let (_, c, neg) = self.combining(fc, i, g, Some(bo))?;
                    Some((bo, c, neg))
                }
                None => None,
            };
            let tmp = self.new_reg();
            let fl = FloatMods { ftz, sat: false };
            self.emit(
                i,
                g,
                Op::Setp {
                    op: f,
                    fl,
                    a,
                    b,
                    d: Some(tmp),
                    dn: None,
                    comb,
                },
            );
            tmp
        };
        let d = self.dreg(fc, i, &i.operands[0])?;
        let cfg = nw::set_cfg(kind, x2);
        self.lane(
            i,
            g,
            LaneFamily::Set,
            cfg,
            d,
            Src::Reg(tmp),
            Src::Imm(0),
            Src::Imm(0),
        );
        Ok(())
    }

    /// cvt involving bf16, tf32, the packed f16x2/bf16x2 destinations, the fp8/fp6/fp4 pairs,
    /// or `.relu`/`.satfinite`.
    pub(super) fn cvt_narrow(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let rnd = m.rnd();
        let rna = m.take("rna");
        let relu = m.take("relu");
        let satf = m.take("satfinite");
        let sat = m.sat();
        let ftz = m.ftz();
        let rs = m.take("rs");
        let tys = m.types();
        m.done()?;
        let [dt, st] = tys.as_slice() else {
            return unsupported(i);
        };
        if rs {
            return self.cvt_rs(
                fc,
                i,
                g,
                (dt, st),
                rnd != Rnd::None || rna || sat || ftz,
                relu,
                satf,
            );
        }
        let ops_ = &i.operands;
        let n = ops_.len();
        let mode = ieee_mode(rnd);
        let mut fl = 0;
        for (on, bit) in [
            (relu, nw::RELU),
            (satf, nw::SATFINITE),
            (sat, nw::SAT),
            (ftz, nw::FTZ),
        ] {
            if on {
                fl |= bit;
            }
        }
        let f8 = |w: &str| match w {
            "e4m3x2" => Some(Scalar::E4m3),
            "e5m2x2" => Some(Scalar::E5m2),
            "e2m3x2" => Some(Scalar::E2m3),
            "e3m2x2" => Some(Scalar::E3m2),
            "e2m1x2" => Some(Scalar::E2m1),
            _ => None,
        };
        if dt == "bf16" && st == "bf16" {
            return self.cvt_bf16_bf16(fc, i, g, rnd, rna || relu || satf || sat || ftz);
        }
        let rn_or_rz = matches!(rnd, Rnd::Rn | Rnd::Rz);
        // (dst element, src element, mode, pack, operand type of the sources)
        let rz_or_rp = matches!(rnd, Rnd::Rz | Rnd::Rp);
        let plan: Option<(Scalar, Scalar, Mode, u8, T)> = match (dt.as_str(), st.as_str()) {
            // The `.ue8m0x2` scale format: to it only in .rz/.rp, from it only in .rn.
            ("ue8m0x2", "f32") if rz_or_rp && !(rna || relu || sat || ftz) => {
                Some((Scalar::Ue8m0, Scalar::F32, mode.unwrap(), 1, T::F(32)))
            }
            ("ue8m0x2", "bf16x2") if rz_or_rp && !(rna || relu || sat || ftz) => {
                Some((Scalar::Ue8m0, Scalar::Bf16, mode.unwrap(), 2, T::B(32)))
            }
            ("bf16x2", "ue8m0x2") if rnd == Rnd::Rn && !(rna || relu || satf || sat || ftz) => {
                Some((Scalar::Bf16, Scalar::Ue8m0, Mode::Rn, 2, T::B(16)))
            }
            ("f16x2" | "bf16x2", "f32") if rn_or_rz && !rna && !sat && !ftz && n >= 3 => {
                let d = if dt == "f16x2" {
                    Scalar::F16
                } else {
                    Scalar::Bf16
                };
                Some((d, Scalar::F32, mode.unwrap(), 1, T::F(32)))
            }
            ("f16" | "bf16", "f32") if rn_or_rz && !rna && !sat && !ftz && (relu || satf) => {
                let d = if dt == "f16" {
                    Scalar::F16
                } else {
                    Scalar::Bf16
                };
                Some((d, Scalar::F32, mode.unwrap(), 0, T::F(32)))
            }
            // `.rna` (ties away, with optional .satfinite) or `.rn/.rz` (.relu, .satfinite).
            ("tf32", "f32") if !(sat || ftz || rna == rn_or_rz || (rna && relu)) => Some((
                Scalar::Tf32,
                Scalar::F32,
                mode.unwrap_or(Mode::Rn),
                0,
                T::F(32),
            )),
            (d, "f32") if f8(d).is_some() && rnd == Rnd::Rn && satf && !sat && !ftz && n >= 3 => {
                Some((f8(d).unwrap(), Scalar::F32, Mode::Rn, 1, T::F(32)))
            }
            ("e4m3x2" | "e5m2x2", "f16x2") if rnd == Rnd::Rn && satf && !sat && !ftz => {
                Some((f8(dt).unwrap(), Scalar::F16, Mode::Rn, 2, T::B(32)))
            }
            ("f16x2", s) if f8(s).is_some() && rnd == Rnd::Rn && !satf && !sat && !ftz => {
                Some((Scalar::F16, f8(s).unwrap(), Mode::Rn, 2, T::B(16)))
            }
            ("bf16", s) if !rna && !relu && !satf && !sat => {
                // To bf16 from integers, f16, f32, f64: rounding is required (each can lose
                // precision or range); ftz only with an f32 source.
                let src = TypeWord::parse(s)
                    .and_then(TypeWord::scalar)
                    .filter(|e| *e != Scalar::Bf16 && *e != Scalar::Tf32);
                match (src, mode) {
                    (Some(e), Some(md)) if !ftz || e == Scalar::F32 => {
                        let t = match e {
                            Scalar::F32 => T::F(32),
                            Scalar::F64 => T::F(64),
                            e => T::B(e.bits()),
                        };
                        Some((Scalar::Bf16, e, md, 0, t))
                    }
                    _ => None,
                }
            }
            (d, "bf16") if !rna && !relu && !satf => {
                let dst = TypeWord::parse(d)
                    .and_then(TypeWord::scalar)
                    .filter(|e| *e != Scalar::Bf16 && *e != Scalar::Tf32);
                match dst {
                    // Widening: exact, no rounding.
                    Some(e @ (Scalar::F32 | Scalar::F64)) if rnd == Rnd::None && !sat => {
                        if ftz && e != Scalar::F32 {
                            None
                        } else {
                            Some((e, Scalar::Bf16, Mode::Rn, 0, T::B(16)))
                        }
                    }
                    Some(Scalar::F16) if mode.is_some() && !ftz => {
                        Some((Scalar::F16, Scalar::Bf16, mode.unwrap(), 0, T::B(16)))
                    }
                    Some(e)
                        if e.bits() <= 64
                            && !matches!(e, Scalar::F16 | Scalar::F32 | Scalar::F64) =>
                    {
                        // To an integer: widen to f32 exactly, then the f32 -> int conversion
                        // with its integer rounding and saturation.
                        if !matches!(rnd, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi) {
                            return unsupported(i);
                        }
                        let Some(dty) = ty_word(d).and_then(|t| t.cvt_ty()) else {
                            return unsupported(i);
                        };
                        if n < 2 {
                            return invalid(i.pos, "cvt needs 2 operands");
                        }
                        let d = self.dreg(fc, i, &ops_[0])?;
                        let a = self.src(fc, i, g, &ops_[1], T::B(16))?;
                        let tmp = self.new_reg();
                        let z = Src::Imm(0);
                        self.lane(i, g, LaneFamily::Bf16ToF32, 0, tmp, a, z, z);
                        self.emit(
                            i,
                            g,
                            Op::Cvt {
                                d,
                                a: Src::Reg(tmp),
                                dst: dty,
                                src: Scalar::F32,
                                rnd,
                                sat,
                                ftz,
                            },
                        );
                        return Ok(());
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((de, se, md, pack, sty)) = plan else {
            return unsupported(i);
        };
        let want = if pack == 1 { 3 } else { 2 };
        if n != want {
            return invalid(i.pos, format!("'{}' needs {want} operands", i.full_name()));
        }
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], sty)?;
        let b = if pack == 1 {
            self.src(fc, i, g, &ops_[2], sty)?
        } else {
            Src::Imm(0)
        };
        let cfg = nw::cvt_cfg(de, se, md, rna, pack, fl);
        self.lane(i, g, LaneFamily::Cvt, cfg, d, a, b, Src::Imm(0));
        Ok(())
    }

    /// `cvt{.irnd}.bf16.bf16 d, a` (sm_90+): with `.rni/.rzi/.rmi/.rpi` the value rounded to an
    /// integral value in bf16 (ISA 9.7.9.21: "the result is an integral value, stored in
    /// floating-point format"), without one a plain copy. ptxas 13.5 allows neither `.ftz` nor
    /// `.sat` here (`other`), nor a float rounding. The rounding runs in f32: bf16 widens to it
    /// exactly, and the integral result, at most 2^8 in magnitude where rounding changes
    /// anything, narrows back exactly.
    fn cvt_bf16_bf16(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        rnd: Rnd,
        other: bool,
    ) -> R<()> {
        self.require_sm(i, 90, "cvt with .bf16.bf16")?;
        let irnd = matches!(rnd, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi);
        if other || !(irnd || rnd == Rnd::None) {
            return invalid(
                i.pos,
                format!(
                    "'{}': only .rni/.rzi/.rmi/.rpi apply to cvt.bf16.bf16",
                    i.full_name()
                ),
            );
        }
        if i.operands.len() != 2 {
            return invalid(i.pos, format!("'{}' needs 2 operands", i.full_name()));
        }
        let d = self.dreg(fc, i, &i.operands[0])?;
        let a = self.src(fc, i, g, &i.operands[1], T::B(16))?;
        let z = Src::Imm(0);
        if !irnd {
            let f = un(UnOp::Mov { bits: 16 });
            self.emit(
                i,
                g,
                Op::Un {
                    op: f,
                    fl: FloatMods::NONE,
                    d,
                    a,
                },
            );
            return Ok(());
        }
        let wide = self.new_reg();
        self.lane(i, g, LaneFamily::Bf16ToF32, 0, wide, a, z, z);
        let int = self.new_reg();
        let op = Op::Cvt {
            d: int,
            a: Src::Reg(wide),
            dst: Scalar::F32,
            src: Scalar::F32,
            rnd,
            sat: false,
            ftz: false,
        };
        self.emit(i, g, op);
        let cfg = nw::cvt_cfg(Scalar::Bf16, Scalar::F32, Mode::Rn, false, 0, 0);
        self.lane(i, g, LaneFamily::Cvt, cfg, d, Src::Reg(int), z, z);
        Ok(())
    }

    /// `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits` and
    /// `cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32 d, {a, b, e, f}, rbits`
    /// (stochastic rounding with the caller's random bits; see [`nw::cvt_rs`]). `other` is set
    /// when another rounding or `.sat/.ftz` is named.
    #[allow(clippy::too_many_arguments)]
    fn cvt_rs(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        (dt, st): (&str, &str),
        other: bool,
        relu: bool,
        satf: bool,
    ) -> R<()> {
        let x4 = match dt {
            "e4m3x4" => Some(Scalar::E4m3),
            "e5m2x4" => Some(Scalar::E5m2),
            "e2m3x4" => Some(Scalar::E2m3),
            "e3m2x4" => Some(Scalar::E3m2),
            "e2m1x4" => Some(Scalar::E2m1),
            _ => None,
        };
        let de = match (dt, st, x4) {
            _ if other || st != "f32" => return unsupported(i),
            ("f16x2", _, _) => Scalar::F16,
            ("bf16x2", _, _) => Scalar::Bf16,
            // `.satfinite` is mandatory for the x4 formats.
            (_, _, Some(e)) if satf => e,
            _ => return unsupported(i),
        };
        let ops_ = &i.operands;
        if ops_.len() != if x4.is_some() { 3 } else { 4 } {
            return invalid(
                i.pos,
                format!("'{}': wrong number of operands", i.full_name()),
            );
        }
        let mut fl = 0;
        if relu {
            fl |= nw::RELU;
        }
        if satf {
            fl |= nw::SATFINITE;
        }
        // rbits is a register operand (ptxas rejects an immediate: "Arguments mismatch").
        let ro = ops_.last().unwrap();
        if !matches!(ro, O::Name { .. }) {
            return invalid(i.pos, "'cvt.rs': rbits must be a .b32 register");
        }
        let d = self.dreg(fc, i, &ops_[0])?;
        let r = self.src(fc, i, g, ro, T::B(32))?;
        let Some(_) = x4 else {
            let a = self.src(fc, i, g, &ops_[1], T::F(32))?;
            let b = self.src(fc, i, g, &ops_[2], T::F(32))?;
            let cfg = nw::rs_cfg(de, nw::RS_HALVES, fl);
            self.lane(i, g, LaneFamily::CvtRs, cfg, d, a, b, r);
            return Ok(());
        };
        let O::Vector(v) = &ops_[1] else {
            return invalid(i.pos, "'cvt.rs' to an x4 format takes {a, b, e, f}");
        };
        if v.len() != 4 {
            return invalid(i.pos, "'cvt.rs' to an x4 format takes {a, b, e, f}");
        }
        let srcs = v
            .iter()
            .map(|o| self.src(fc, i, g, o, T::F(32)))
            .collect::<R<Vec<_>>>()?;
        // Two pairs, (a, b) in the upper half of d and (e, f) in the lower: 16 bits each for
        // the byte formats, 8 for e2m1.
        let (hi, lo) = if de == Scalar::E2m1 {
            (nw::RS_E2M1_HI, nw::RS_E2M1_LO)
        } else {
            (nw::RS_X4_HI, nw::RS_X4_LO)
        };
        let (th, tl) = (self.new_reg(), self.new_reg());
        self.lane(
            i,
            g,
            LaneFamily::CvtRs,
            nw::rs_cfg(de, hi, fl),
            th,
            srcs[0],
            srcs[1],
            r,
        );
        self.lane(
            i,
            g,
            LaneFamily::CvtRs,
            nw::rs_cfg(de, lo, fl),
            tl,
            srcs[2],
            srcs[3],
            r,
        );
        let bits = if de == Scalar::E2m1 { 8 } else { 16 };
        let parts = vec![Src::Reg(tl), Src::Reg(th)];
        self.emit(i, g, Op::Pack { d, parts, bits });
        Ok(())
    }

    /// `cvt.pack.sat.{u16,s16}.s32 d, a, b` and `cvt.pack.sat.{u2,s2,u4,s4,u8,s8}.s32.b32 d, a,
    /// b, c`.
    pub(super) fn cvt_pack(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        m.take("pack");
        let sat = m.sat();
        let tys = m.types();
        m.done()?;
        let (w, signed) = match tys.first().map(|s| s.as_str()) {
            Some("u16") => (16, false),
            Some("s16") => (16, true),
            Some("u8") => (8, false),
            Some("s8") => (8, true),
            Some("u4") => (4, false),
            Some("s4") => (4, true),
            Some("u2") => (2, false),
            Some("s2") => (2, true),
            _ => return unsupported(i),
        };
        let want_tys: &[&str] = if w == 16 { &["s32"] } else { &["s32", "b32"] };
        if !sat || tys[1..] != *want_tys {
            return unsupported(i);
        }
        let nops = if w == 16 { 3 } else { 4 };
        if i.operands.len() != nops {
            return invalid(i.pos, format!("'{}' needs {nops} operands", i.full_name()));
        }
        let d = self.dreg(fc, i, &i.operands[0])?;
        let a = self.src(fc, i, g, &i.operands[1], T::S(32))?;
        let b = self.src(fc, i, g, &i.operands[2], T::S(32))?;
        let c = if nops == 4 {
            self.src(fc, i, g, &i.operands[3], T::B(32))?
        } else {
            Src::Imm(0)
        };
        let cfg = w as u64 | if signed { 0x100 } else { 0 };
        self.lane(i, g, LaneFamily::CvtPack, cfg, d, a, b, c);
        Ok(())
    }
}
