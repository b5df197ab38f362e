//! Lowering of integer and floating-point arithmetic to the named operations of
//! [`crate::sem`]: binary and unary operations, mad/fma, the extended-precision carry chain
//! and the integer family (mul24, sad, bfind, fns, szext, bmsk, dp4a, dp2a).

use super::*;

impl<'a> Prog<'a> {
    pub(super) fn binary(
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
        let approx = m.take("approx");
        let full = m.take("full");
        let lo = m.take("lo");
        let hi = m.take("hi");
        let wide = m.take("wide");
        let t = m.ty()?;
        m.done()?;
        let ops_ = &i.operands;
        if ops_.len() < 3 {
            return invalid(i.pos, format!("'{}' needs 3 operands", i.full_name()));
        }
        let mut fl = FloatMods::NONE;
        let f: Option<Bin> = match t {
            T::F(b) => {
                let fop = match op {
                    "add" => FBin::Add,
                    "sub" => FBin::Sub,
                    "mul" => FBin::Mul,
                    "div" => FBin::Div,
                    "min" => FBin::Min,
                    "max" => FBin::Max,
                    "copysign" => FBin::Copysign,
                    _ => return unsupported(i),
                };
                let rnd_ok = match fop {
                    FBin::Add | FBin::Sub | FBin::Mul => {
                        (rnd == Rnd::None || ieee_mode(rnd).is_some()) && !approx && !full
                    }
                    // div.approx/div.full are within 2 ulp of the exact quotient; we return it.
                    FBin::Div => {
                        (ieee_mode(rnd).is_some() && !approx && !full)
                            || (b == 32 && rnd == Rnd::None && (approx || full))
                    }
                    _ => rnd == Rnd::None && !approx && !full,
                };
                if !rnd_ok || lo || hi || wide || (sat && b == 64) || (ftz && b == 64) {
                    return unsupported(i);
                }
                if b == 16 {
                    // f16: add/sub/mul round to nearest through the exact arithmetic (.ftz and
                    // .sat on f16 are not run yet).
                    if ftz || sat || rnd == Rnd::Rz || rnd == Rnd::Rm || rnd == Rnd::Rp {
                        return unsupported(i);
                    }
                    let float = BinOp::Float {
                        op: fop,
                        ty: Scalar::F16,
                        rnd: Mode::Rn,
                    };
                    let Some(f) = float.resolve().filter(|_| fop != FBin::Div) else {
                        return unsupported(i);
                    };
                    let d = self.dreg(fc, i, &ops_[0])?;
                    let a = self.src(fc, i, g, &ops_[1], t)?;
                    let b = self.src(fc, i, g, &ops_[2], t)?;
                    self.emit(
                        i,
                        g,
                        Op::Bin {
                            op: f,
                            fl: FloatMods::NONE,
                            d,
                            a,
                            b,
                        },
                    );
                    return Ok(());
                }
                fl = FloatMods { ftz, sat };
                // Directed rounding is exact arithmetic rounded once; round-to-nearest is the
                // host's IEEE arithmetic, already exact.
                BinOp::Float {
                    op: fop,
                    ty: Scalar::float_of_bits(b),
                    rnd: directed(rnd).unwrap_or(Mode::Rn),
                }
                .resolve()
            }
            T::Pred if matches!(op, "and" | "or" | "xor") => {
                let it = Scalar::U32;
                bin_int(
                    match op {
                        "and" => IBin::And,
                        "or" => IBin::Or,
                        _ => IBin::Xor,
                    },
                    it,
                )
            }
            _ => {
                let Some(it) = t.int() else {
                    return unsupported(i);
                };
                if rnd != Rnd::None || ftz || approx || full || it.bits() == 8 {
                    return unsupported(i);
                }
                let is_b = matches!(t, T::B(_));
                let bop = match (op, lo, hi, wide, sat) {
                    ("add", false, false, false, false) => IBin::Add,
                    ("sub", false, false, false, false) => IBin::Sub,
                    ("add", false, false, false, true) if t == T::S(32) => IBin::AddSat,
                    ("sub", false, false, false, true) if t == T::S(32) => IBin::SubSat,
                    ("mul", true, false, false, false) => IBin::MulLo,
                    ("mul", false, true, false, false) => IBin::MulHi,
                    ("mul", false, false, true, false) => {
                        let d = self.dreg(fc, i, &ops_[0])?;
                        let a = self.src(fc, i, g, &ops_[1], t)?;
                        let b = self.src(fc, i, g, &ops_[2], t)?;
                        let Some(f) = BinOp::MulWide(it).resolve() else {
                            return unsupported(i);
                        };
                        self.emit(
                            i,
                            g,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d,
                                a,
                                b,
                            },
                        );
                        return Ok(());
                    }
                    ("div", false, false, false, false) if !is_b => IBin::Div,
                    ("rem", false, false, false, false) if !is_b => IBin::Rem,
                    ("min", false, false, false, false) if !is_b => IBin::Min,
                    ("max", false, false, false, false) if !is_b => IBin::Max,
                    ("and", false, false, false, false) if is_b => IBin::And,
                    ("or", false, false, false, false) if is_b => IBin::Or,
                    ("xor", false, false, false, false) if is_b => IBin::Xor,
                    ("shl", false, false, false, false) if is_b => IBin::Shl,
                    ("shr", false, false, false, false) => IBin::Shr,
                    _ => return unsupported(i),
                };
                bin_int(bop, it)
            }
        };
        let Some(f) = f else { return unsupported(i) };
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], t)?;
        let bt = if matches!(op, "shl" | "shr") {
            T::U(32)
        } else {
            t
        };
        let b = self.src(fc, i, g, &ops_[2], bt)?;
        self.emit(i, g, Op::Bin { op: f, fl, d, a, b });
        Ok(())
    }
    /// mul24, mad24, sad, bfind, fns, szext, bmsk, dp4a, dp2a.
    pub(super) fn int_misc(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = i.opcode.as_str();
        let hi = m.take("hi");
        let lo = m.take("lo");
        let shiftamt = m.take("shiftamt");
        let clamp = m.take("clamp");
        let wrap = m.take("wrap");
        let sat = m.sat();
        let t = m.ty()?;
        let t2 = if matches!(op, "dp4a" | "dp2a") {
            Some(m.ty()?)
        } else {
            None
        };
        m.done()?;
        let s32 = |t: T| match t {
            T::U(32) => Some(false),
            T::S(32) => Some(true),
            _ => None,
        };
        let ops_ = &i.operands;
        let nops = match op {
            "mad24" | "sad" | "fns" | "dp4a" | "dp2a" => 4,
            "bfind" => 2,
            _ => 3,
        };
        if ops_.len() < nops {
            return invalid(i.pos, format!("'{}' needs {nops} operands", i.full_name()));
        }
        let no_mods = !hi && !lo && !shiftamt && !clamp && !wrap && !sat;
        let d = self.dreg(fc, i, &ops_[0])?;
        match op {
            "mul24" | "mad24" => {
                let (Some(sg), true) = (s32(t), hi != lo && !shiftamt && !clamp && !wrap) else {
                    return unsupported(i);
                };
                // `.sat` exists only as `mad24.hi.sat.s32`.
                if sat && !(op == "mad24" && hi && sg) {
                    return unsupported(i);
                }
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                if op == "mul24" {
                    let f = bin(BinOp::Mul24 { hi, signed: sg });
                    self.emit(
                        i,
                        g,
                        Op::Bin {
                            op: f,
                            fl: FloatMods::NONE,
                            d,
                            a,
                            b,
                        },
                    );
                } else {
                    let c = self.src(fc, i, g, &ops_[3], t)?;
                    let f = ter(if sat {
                        TerOp::Mad24HiSat
                    } else {
                        TerOp::Mad24 { hi, signed: sg }
                    });
                    self.emit(
                        i,
                        g,
                        Op::Ter {
                            op: f,
                            fl: FloatMods::NONE,
                            d,
                            a,
                            b,
                            c,
                        },
                    );
                }
            }
            "sad" => {
                let Some(f) = t
                    .int()
                    .filter(|_| no_mods && !matches!(t, T::B(_)))
                    .and_then(|it| TerOp::Sad(it).resolve())
                else {
                    return unsupported(i);
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                let c = self.src(fc, i, g, &ops_[3], t)?;
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
            "bfind" => {
                let f = match t {
                    T::U(32 | 64) | T::S(32 | 64) if !hi && !lo && !clamp && !wrap => UnOp::Bfind {
                        ty: t.int().unwrap(),
                        shiftamt,
                    }
                    .resolve(),
                    _ => None,
                };
                let Some(f) = f else { return unsupported(i) };
                let a = self.src(fc, i, g, &ops_[1], t)?;
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
            }
            "fns" => {
                if t != T::B(32) || !no_mods {
                    return unsupported(i);
                }
                let a = self.src(fc, i, g, &ops_[1], T::B(32))?;
                let b = self.src(fc, i, g, &ops_[2], T::U(32))?;
                let c = self.src(fc, i, g, &ops_[3], T::S(32))?;
                let f = ter(TerOp::Fns);
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
            "szext" | "bmsk" => {
                let ok = clamp != wrap
                    && !hi
                    && !lo
                    && !shiftamt
                    && if op == "szext" {
                        s32(t).is_some()
                    } else {
                        t == T::B(32)
                    };
                if !ok {
                    return unsupported(i);
                }
                let f = bin(if op == "szext" {
                    BinOp::Szext {
                        signed: s32(t).unwrap(),
                        clamp,
                    }
                } else {
                    BinOp::Bmsk { clamp }
                });
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], T::U(32))?;
                self.emit(
                    i,
                    g,
                    Op::Bin {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                    },
                );
            }
            _ => {
                // dp4a / dp2a: c is unsigned only when both inputs are.
                let (Some(sa), Some(sb)) = (s32(t), t2.and_then(s32)) else {
                    return unsupported(i);
                };
                let f = if op == "dp4a" {
                    if !no_mods {
                        return unsupported(i);
                    }
                    ter(TerOp::Dp4a { sa, sb })
                } else {
                    if hi == lo || shiftamt || clamp || wrap {
                        return unsupported(i);
                    }
                    ter(TerOp::Dp2a { sa, sb, hi })
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t2.unwrap())?;
                let ct = if sa || sb { T::S(32) } else { T::U(32) };
                let c = self.src(fc, i, g, &ops_[3], ct)?;
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
        }
        Ok(())
    }
    /// add.cc, addc, sub.cc, subc, mad.cc, madc on u32/s32/u64/s64.
    pub(super) fn carry(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = i.opcode.as_str();
        let cin = op.ends_with('c');
        let cout = m.take("cc");
        let lo = m.take("lo");
        let hi = m.take("hi");
        let t = m.ty()?;
        m.done()?;
        let (bits, signed) = match t {
            T::U(b @ (32 | 64)) => (b, false),
            T::S(b @ (32 | 64)) => (b, true),
            _ => return unsupported(i),
        };
        let cop = match (op, lo, hi) {
            ("add" | "addc", false, false) => CarryOp::Add,
            ("sub" | "subc", false, false) => CarryOp::Sub,
            ("mad" | "madc", true, false) => CarryOp::MadLo,
            ("mad" | "madc", false, true) => CarryOp::MadHi,
            _ => return unsupported(i),
        };
        let nops = if matches!(cop, CarryOp::MadLo | CarryOp::MadHi) {
            4
        } else {
            3
        };
        if i.operands.len() < nops {
            return invalid(i.pos, format!("'{}' needs {nops} operands", i.full_name()));
        }
        let cc = match self.cc_reg {
            Some(r) => r,
            None => {
                let r = self.hidden_reg();
                self.cc_reg = Some(r);
                r
            }
        };
        let d = self.dreg(fc, i, &i.operands[0])?;
        let a = self.src(fc, i, g, &i.operands[1], t)?;
        let b = self.src(fc, i, g, &i.operands[2], t)?;
        let c = if nops == 4 {
            self.src(fc, i, g, &i.operands[3], t)?
        } else {
            Src::Imm(0)
        };
        self.emit(
            i,
            g,
            Op::Carry {
                op: cop,
                bits,
                signed,
                cin,
                cout,
                cc,
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }
    pub(super) fn mad(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let rnd = m.rnd();
        let ftz = m.ftz();
        let sat = m.sat();
        let lo = m.take("lo");
        let hi = m.take("hi");
        let wide = m.take("wide");
        let t = m.ty()?;
        m.done()?;
        let ops_ = &i.operands;
        if ops_.len() < 4 {
            return invalid(i.pos, format!("'{}' needs 4 operands", i.full_name()));
        }
        let mut fl = FloatMods::NONE;
        let (f, ct) = match t {
            T::F(b) => {
                // fma.rn and mad.rn (mad.f32 without rounding is fma on sm_20+).
                let ok = ieee_mode(rnd).is_some() || (i.opcode == "mad" && rnd == Rnd::None);
                if !ok || lo || hi || wide || (b == 64 && (ftz || sat)) {
                    return unsupported(i);
                }
                fl = FloatMods { ftz, sat };
                if b == 16 && (ftz || sat || rnd != Rnd::Rn) {
                    return unsupported(i);
                }
                let f = TerOp::Fma {
                    ty: Scalar::float_of_bits(b),
                    rnd: directed(rnd).unwrap_or(Mode::Rn),
                };
                (f.resolve(), t)
            }
            _ => {
                let Some(it) = t.int() else {
                    return unsupported(i);
                };
                if i.opcode != "mad" || rnd != Rnd::None || ftz || matches!(t, T::B(_)) {
                    return unsupported(i);
                }
                match (lo, hi, wide, sat) {
                    (true, false, false, false) => (TerOp::MadLo(it).resolve(), t),
                    (false, true, false, false) => (TerOp::MadHi(it).resolve(), t),
                    (false, true, false, true) if t == T::S(32) => (TerOp::MadHiSat.resolve(), t),
                    (false, false, true, false) => (
                        TerOp::MadWide(it).resolve(),
                        if it.signed() {
                            T::S(it.bits() * 2)
                        } else {
                            T::U(it.bits() * 2)
                        },
                    ),
                    _ => return unsupported(i),
                }
            }
        };
        let Some(f) = f else { return unsupported(i) };
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], t)?;
        let b = self.src(fc, i, g, &ops_[2], t)?;
        let c = self.src(fc, i, g, &ops_[3], ct)?;
        self.emit(
            i,
            g,
            Op::Ter {
                op: f,
                fl,
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }
    pub(super) fn unary(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = i.opcode.as_str();
        let rnd = m.rnd();
        let ftz = m.ftz();
        let approx = m.take("approx");
        let full = m.take("full");
        let tp = if op == "testp" {
            Some(if m.take("finite") {
                Testp::Finite
            } else if m.take("infinite") {
                Testp::Infinite
            } else if m.take("number") {
                Testp::Number
            } else if m.take("notanumber") {
                Testp::NotANumber
            } else if m.take("normal") {
                Testp::Normal
            } else if m.take("subnormal") {
                Testp::Subnormal
            } else {
                return unsupported(i);
            })
        } else {
            None
        };
        let t = m.ty()?;
        m.done()?;
        let ops_ = &i.operands;
        if ops_.len() < 2 {
            return invalid(i.pos, format!("'{}' needs 2 operands", i.full_name()));
        }
        let mut fl = FloatMods::NONE;
        let f: Option<Un> = match t {
            T::F(16) => match op {
                "neg" if rnd == Rnd::None && !ftz && !approx && !full => Some(un(UnOp::NegHalf)),
                "abs" if rnd == Rnd::None && !ftz && !approx && !full => Some(un(UnOp::AbsHalf)),
                _ => return unsupported(i),
            },
            T::F(b) => {
                if let Some(tp) = tp {
                    UnOp::Testp(tp, Scalar::float_of_bits(b)).resolve()
                } else {
                    let fop = match op {
                        "neg" => FUn::Neg,
                        "abs" => FUn::Abs,
                        "sqrt" => FUn::Sqrt,
                        "rcp" => FUn::Rcp,
                        "rsqrt" => FUn::Rsqrt,
                        "ex2" => FUn::Ex2,
                        "lg2" => FUn::Lg2,
                        "sin" => FUn::Sin,
                        "cos" => FUn::Cos,
                        "tanh" => FUn::Tanh,
                        _ => return unsupported(i),
                    };
                    let ok = match fop {
                        FUn::Neg | FUn::Abs => rnd == Rnd::None && !approx,
                        // Exact with .rn; .approx forms are within their documented bounds.
                        FUn::Sqrt | FUn::Rcp => {
                            (ieee_mode(rnd).is_some() && !approx)
                                || (rnd == Rnd::None && approx && (b == 32 || ftz))
                        }
                        FUn::Rsqrt => rnd == Rnd::None && approx,
                        FUn::Ex2 | FUn::Lg2 | FUn::Sin | FUn::Cos | FUn::Tanh => {
                            rnd == Rnd::None && approx && b == 32
                        }
                    };
                    if !ok
                        || full
                        || (ftz && b == 64 && !(approx && matches!(fop, FUn::Rcp | FUn::Rsqrt)))
                    {
                        return unsupported(i);
                    }
                    if ftz && b == 32 {
                        fl = FloatMods::FTZ;
                    }
                    // Only sqrt and rcp take a directed rounding (checked above).
                    UnOp::Float {
                        op: fop,
                        ty: Scalar::float_of_bits(b),
                        rnd: directed(rnd).unwrap_or(Mode::Rn),
                    }
                    .resolve()
                }
            }
            T::Pred if op == "not" => Some(un(UnOp::NotPred)),
            _ => {
                let Some(it) = t.int() else {
                    return unsupported(i);
                };
                if rnd != Rnd::None || ftz || approx || full || tp.is_some() {
                    return unsupported(i);
                }
                let is_b = matches!(t, T::B(_));
                let uop = match op {
                    "neg" if matches!(t, T::S(_)) => IUn::Neg,
                    "abs" if matches!(t, T::S(_)) => IUn::Abs,
                    "not" if is_b => IUn::Not,
                    "cnot" if is_b => IUn::Cnot,
                    "popc" if is_b && it.bits() >= 32 => IUn::Popc,
                    "clz" if is_b && it.bits() >= 32 => IUn::Clz,
                    "brev" if is_b && it.bits() >= 32 => IUn::Brev,
                    _ => return unsupported(i),
                };
                UnOp::Int(uop, it).resolve()
            }
        };
        let Some(f) = f else { return unsupported(i) };
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], t)?;
        self.emit(i, g, Op::Un { op: f, fl, d, a });
        Ok(())
    }
}

/// The resolved form of an operation that exists for every type lowering gives it.
pub(super) fn un(op: UnOp) -> Un {
    op.resolve()
        .unwrap_or_else(|| unreachable!("{op} has a lane function"))
}

pub(super) fn bin(op: BinOp) -> Bin {
    op.resolve()
        .unwrap_or_else(|| unreachable!("{op} has a lane function"))
}

pub(super) fn ter(op: TerOp) -> Ter {
    op.resolve()
        .unwrap_or_else(|| unreachable!("{op} has a lane function"))
}

pub(super) fn bin_int(op: IBin, t: Scalar) -> Option<Bin> {
    BinOp::Int(op, t).resolve()
}

pub(super) fn cmp_int(c: Cmp, t: Scalar) -> Option<Compare> {
    CmpOp::Int(c, t).resolve()
}
