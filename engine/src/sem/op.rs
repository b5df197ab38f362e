//! The named operations the IR stores, their resolution to lane functions, and their textual
//! form.
//!
//! Each operation is a value with its resolved modifiers (an `fma` knows its format and
//! rounding; its `.ftz`/`.sat` are [`FloatMods`](super::FloatMods) beside it in the IR), so the
//! IR can be printed, checked and compiled. [`Resolved`] pairs an operation with the function
//! that computes all 32 lanes of it, chosen once at load: the interpreter calls that function
//! without matching on the operation, and the pair cannot disagree because only
//! `resolve` builds it.

use super::float::{self, FBin, FUn, Testp};
use super::int::{self, IBin, IUn, PrmtMode};
use super::softfloat::Mode;
use super::{addr, cmp, lane, mbar, narrow, video};
use super::{BinFn, Cmp, QuadFn, Scalar, ScalarFn, TerFn, UnFn};
use std::fmt;

/// Operations of one source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// neg, abs, not, cnot, popc, clz, brev.
    Int(IUn, Scalar),
    /// `not.pred`.
    NotPred,
    /// A copy of the low `bits` bits.
    Mov {
        bits: u32,
    },
    /// neg, abs, sqrt, rcp, rsqrt, ex2, lg2, sin, cos, tanh on f32/f64. Only sqrt and rcp take
    /// a directed rounding; the approximate forms are computed in f64 and rounded once.
    Float {
        op: FUn,
        ty: Scalar,
        rnd: Mode,
    },
    Testp(Testp, Scalar),
    Bfind {
        ty: Scalar,
        shiftamt: bool,
    },
    /// `cvta` of a `.shared` (or, `local`, a `.local`) address: its generic address, in the
    /// space's window (see [`super::addr`]).
    ToGeneric {
        local: bool,
    },
    /// neg/abs on an f16 or bf16 value: the sign bit only.
    NegHalf,
    AbsHalf,
}

/// Operations of two sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Int(IBin, Scalar),
    /// `mul.wide`: the full product, twice the width.
    MulWide(Scalar),
    /// add, sub, mul, div, min, max, copysign in a format and rounding.
    Float {
        op: FBin,
        ty: Scalar,
        rnd: Mode,
    },
    Mul24 {
        hi: bool,
        signed: bool,
    },
    Szext {
        signed: bool,
        clamp: bool,
    },
    Bmsk {
        clamp: bool,
    },
}

/// Comparisons (`setp`): the result is 0 or 1 per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `lo/ls/hi/hs` are Lt/Le/Gt/Ge on an unsigned type.
    Int(Cmp, Scalar),
    Float(Cmp, Scalar),
}

/// Operations of three sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TerOp {
    MadLo(Scalar),
    MadHi(Scalar),
    /// `mad.hi.sat.s32`.
    MadHiSat,
    MadWide(Scalar),
    /// `selp`: a if the predicate c, else b.
    Selp {
        bits: u32,
    },
    Bfe(Scalar),
    /// `prmt` in its default mode (`None`) or one of the fixed modes.
    Prmt(Option<PrmtMode>),
    Shf {
        left: bool,
        clamp: bool,
    },
    /// `fma` (and `mad` on floats) in a format and rounding, rounded once.
    Fma {
        ty: Scalar,
        rnd: Mode,
    },
    Mad24 {
        hi: bool,
        signed: bool,
    },
    /// `mad24.hi.sat.s32`.
    Mad24HiSat,
    Sad(Scalar),
    Fns,
    Dp4a {
        sa: bool,
        sb: bool,
    },
    Dp2a {
        sa: bool,
        sb: bool,
        hi: bool,
    },
}

/// Operations of four sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuadOp {
    Bfi {
        bits: u32,
    },
    /// `lop3`: the fourth source is the truth table.
    Lop3 {
        bits: u32,
    },
}

/// The families computed one lane at a time with a configuration word (see [`LaneOp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneFamily {
    /// Half-precision arithmetic ([`narrow::half`]).
    Half,
    /// Mixed precision `add/sub/fma.f32.f16` ([`narrow::mixed`]).
    Mixed,
    /// `setp` on half formats ([`narrow::cmp`]).
    HalfCmp,
    /// Bit operations on half formats: neg, abs with `.ftz` ([`narrow::bit`]).
    HalfBit,
    /// `set` ([`narrow::set_val`]).
    Set,
    /// Conversions involving narrow formats ([`narrow::cvt`]).
    Cvt,
    /// Stochastic rounding conversions ([`narrow::cvt_rs`]).
    CvtRs,
    /// `cvt.pack` ([`narrow::cvt_pack`]).
    CvtPack,
    /// bf16 to f32 (exact).
    Bf16ToF32,
    /// `.f32x2` arithmetic ([`lane::f32x2`]).
    F32x2,
    /// Packed 16-bit integer add/min/max ([`lane::packed16`]).
    Packed16,
    /// f32 min/max with `.NaN`, `.xorsign.abs` or three inputs ([`lane::minmax_f32`]).
    MinMaxF32,
    Slct,
    Mapa,
    GetCtarank,
    /// `mbarrier.pending_count` ([`mbar::pending_count`]).
    MbarPendingCount,
    /// The scalar video instructions ([`video::scalar`]).
    Video,
    Vmad,
    /// The SIMD video instructions ([`video::simd`]).
    VideoSimd,
}

/// A family with many modifier combinations, computed per lane by one function that takes the
/// configuration word built at load (its layout is documented beside the family's function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneOp {
    pub family: LaneFamily,
    pub cfg: u64,
}

/// An operation and the function that computes it for 32 lanes (or, for [`LaneOp`], one lane).
#[derive(Clone, Copy)]
pub struct Resolved<O, F> {
    op: O,
    f: F,
}

impl<O: Copy, F: Copy> Resolved<O, F> {
    #[inline(always)]
    pub fn op(&self) -> O {
        self.op
    }
    #[inline(always)]
    pub fn f(&self) -> F {
        self.f
    }
}

impl<O: fmt::Display, F> fmt::Display for Resolved<O, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.op.fmt(f)
    }
}

impl<O: fmt::Debug, F> fmt::Debug for Resolved<O, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.op.fmt(f)
    }
}

fn pair<O, F>(op: O, f: Option<F>) -> Option<Resolved<O, F>> {
    f.map(|f| Resolved { op, f })
}

impl UnOp {
    /// The lane function, or None where the operation has no meaning for its type.
    pub fn resolve(self) -> Option<Resolved<UnOp, UnFn>> {
        let f = match self {
            UnOp::Int(op, t) => int::int_un(op, t),
            UnOp::NotPred => Some(int::not_pred()),
            UnOp::Mov { bits } => Some(int::mov(bits)),
            UnOp::Float { op, ty, rnd } => match (op, rnd, ty.float_index()) {
                (FUn::Sqrt, m, Some(k)) if m != Mode::Rn => Some(float::soft_sqrt(k, m)),
                (FUn::Rcp, m, Some(k)) if m != Mode::Rn => Some(float::soft_rcp(k, m)),
                (_, Mode::Rn, _) if ty == Scalar::F64 => Some(float::f64_un(op)),
                (_, Mode::Rn, _) if ty == Scalar::F32 => Some(float::f32_un(op)),
                _ => None,
            },
            UnOp::Testp(t, ty) if ty.native() => Some(float::testp(t, ty.fmt().width())),
            UnOp::Testp(..) => None,
            UnOp::Bfind { ty, shiftamt } => int::bfind(ty, shiftamt),
            UnOp::ToGeneric { local: false } => {
                Some(int::to_window::<{ addr::SHARED_WINDOW }> as UnFn)
            }
            UnOp::ToGeneric { local: true } => {
                Some(int::to_window::<{ addr::LOCAL_WINDOW }> as UnFn)
            }
            UnOp::NegHalf => Some(float::neg_f16()),
            UnOp::AbsHalf => Some(float::abs_f16()),
        };
        pair(self, f)
    }
}

impl BinOp {
    pub fn resolve(self) -> Option<Resolved<BinOp, BinFn>> {
        let f = match self {
            BinOp::Int(op, t) => int::int_bin(op, t),
            BinOp::MulWide(t) => int::mul_wide(t),
            BinOp::Float { op, ty, rnd } if ty.native() && rnd == Mode::Rn => {
                Some(if ty == Scalar::F64 {
                    float::f64_bin(op)
                } else {
                    float::f32_bin(op)
                })
            }
            BinOp::Float { op, ty, rnd } => float::soft_bin(op, ty.float_index()?, rnd),
            BinOp::Mul24 { hi, signed } => Some(int::mul24(hi, signed)),
            BinOp::Szext { signed, clamp } => Some(int::szext(signed, clamp)),
            BinOp::Bmsk { clamp } => Some(int::bmsk(clamp)),
        };
        pair(self, f)
    }
}

impl CmpOp {
    pub fn resolve(self) -> Option<Resolved<CmpOp, BinFn>> {
        let f = match self {
            CmpOp::Int(c, t) => cmp::cmp_int(c, t),
            CmpOp::Float(c, Scalar::F16) => cmp::cmp_f16(c),
            CmpOp::Float(c, ty) if ty.native() => cmp::cmp_float(c, ty.fmt().width()),
            CmpOp::Float(..) => None,
        };
        pair(self, f)
    }
}

impl TerOp {
    pub fn resolve(self) -> Option<Resolved<TerOp, TerFn>> {
        let f = match self {
            TerOp::MadLo(t) => int::mad_lo(t),
            TerOp::MadHi(t) => int::mad_hi(t),
            TerOp::MadHiSat => Some(int::mad_hi_sat_s32()),
            TerOp::MadWide(t) => int::mad_wide(t),
            TerOp::Selp { bits } => Some(int::selp(bits)),
            TerOp::Bfe(t) => int::bfe(t),
            TerOp::Prmt(None) => Some(int::prmt()),
            TerOp::Prmt(Some(m)) => Some(int::prmt_mode(m)),
            TerOp::Shf { left, clamp } => Some(int::shf(left, clamp)),
            TerOp::Fma { ty, rnd } if ty.native() && rnd == Mode::Rn => {
                Some(float::fma(ty.fmt().width()))
            }
            TerOp::Fma { ty, rnd } => Some(float::soft_fma(ty.float_index()?, rnd)),
            TerOp::Mad24 { hi, signed } => Some(int::mad24(hi, signed)),
            TerOp::Mad24HiSat => Some(int::mad24_hi_sat()),
            TerOp::Sad(t) => int::sad(t),
            TerOp::Fns => Some(int::fns()),
            TerOp::Dp4a { sa, sb } => Some(int::dp4a(sa, sb)),
            TerOp::Dp2a { sa, sb, hi } => Some(int::dp2a(sa, sb, hi)),
        };
        pair(self, f)
    }
}

impl QuadOp {
    pub fn resolve(self) -> Option<Resolved<QuadOp, QuadFn>> {
        let f = match self {
            QuadOp::Bfi { bits } => int::bfi(bits),
            QuadOp::Lop3 { bits } => Some(int::lop3(bits)),
        };
        pair(self, f)
    }
}

impl LaneOp {
    pub fn new(family: LaneFamily, cfg: u64) -> Resolved<LaneOp, ScalarFn> {
        let f: ScalarFn = match family {
            LaneFamily::Half => narrow::half,
            LaneFamily::Mixed => narrow::mixed,
            LaneFamily::HalfCmp => narrow::cmp,
            LaneFamily::HalfBit => narrow::bit,
            LaneFamily::Set => narrow::set_val,
            LaneFamily::Cvt => narrow::cvt,
            LaneFamily::CvtRs => narrow::cvt_rs,
            LaneFamily::CvtPack => narrow::cvt_pack,
            LaneFamily::Bf16ToF32 => narrow::bf16_to_f32,
            LaneFamily::F32x2 => lane::f32x2,
            LaneFamily::Packed16 => lane::packed16,
            LaneFamily::MinMaxF32 => lane::minmax_f32,
            LaneFamily::Slct => lane::slct,
            LaneFamily::Mapa => lane::mapa,
            LaneFamily::GetCtarank => lane::getctarank,
            LaneFamily::MbarPendingCount => |_, a, _, _| mbar::pending_count(a),
            LaneFamily::Video => video::scalar,
            LaneFamily::Vmad => video::vmad,
            LaneFamily::VideoSimd => video::simd,
        };
        Resolved {
            op: LaneOp { family, cfg },
            f,
        }
    }
}

// ---- textual form: the PTX spelling of the operation and its resolved modifiers ----

use super::lower_name as lc;

fn ibin_name(op: IBin) -> &'static str {
    match op {
        IBin::Add => "add",
        IBin::Sub => "sub",
        IBin::AddSat => "add.sat",
        IBin::SubSat => "sub.sat",
        IBin::MulLo => "mul.lo",
        IBin::MulHi => "mul.hi",
        IBin::Div => "div",
        IBin::Rem => "rem",
        IBin::Min => "min",
        IBin::Max => "max",
        IBin::And => "and",
        IBin::Or => "or",
        IBin::Xor => "xor",
        IBin::Shl => "shl",
        IBin::Shr => "shr",
    }
}

impl fmt::Display for UnOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            UnOp::Int(op, t) => write!(f, "{}.{t}", lc(&op)),
            UnOp::NotPred => f.write_str("not.pred"),
            UnOp::Mov { bits } => write!(f, "mov.b{bits}"),
            UnOp::Float { op, ty, rnd: m } => write!(f, "{}.{}.{ty}", lc(&op), m.word()),
            UnOp::Testp(t, ty) => write!(f, "testp.{}.{ty}", lc(&t)),
            UnOp::Bfind { ty, shiftamt } => {
                write!(f, "bfind{}.{ty}", if shiftamt { ".shiftamt" } else { "" })
            }
            UnOp::ToGeneric { local } => {
                write!(f, "cvta.{}.u64", if local { "local" } else { "shared" })
            }
            UnOp::NegHalf => f.write_str("neg.b16"),
            UnOp::AbsHalf => f.write_str("abs.b16"),
        }
    }
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = |s: bool| if s { 's' } else { 'u' };
        match *self {
            BinOp::Int(op, t) => write!(f, "{}.{t}", ibin_name(op)),
            BinOp::MulWide(t) => write!(f, "mul.wide.{t}"),
            BinOp::Float { op, ty, rnd: m } => write!(f, "{}.{}.{ty}", lc(&op), m.word()),
            BinOp::Mul24 { hi, signed } => {
                write!(
                    f,
                    "mul24.{}.{}32",
                    if hi { "hi" } else { "lo" },
                    sign(signed)
                )
            }
            BinOp::Szext { signed, clamp } => write!(
                f,
                "szext.{}.{}32",
                if clamp { "clamp" } else { "wrap" },
                sign(signed)
            ),
            BinOp::Bmsk { clamp } => {
                write!(f, "bmsk.{}.b32", if clamp { "clamp" } else { "wrap" })
            }
        }
    }
}

impl fmt::Display for CmpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CmpOp::Int(c, t) => write!(f, "setp.{}.{t}", lc(&c)),
            CmpOp::Float(c, t) => write!(f, "setp.{}.{t}", lc(&c)),
        }
    }
}

impl fmt::Display for TerOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = |s: bool| if s { 's' } else { 'u' };
        match *self {
            TerOp::MadLo(t) => write!(f, "mad.lo.{t}"),
            TerOp::MadHi(t) => write!(f, "mad.hi.{t}"),
            TerOp::MadHiSat => f.write_str("mad.hi.sat.s32"),
            TerOp::MadWide(t) => write!(f, "mad.wide.{t}"),
            TerOp::Selp { bits } => write!(f, "selp.b{bits}"),
            TerOp::Bfe(t) => write!(f, "bfe.{t}"),
            TerOp::Prmt(None) => f.write_str("prmt.b32"),
            TerOp::Prmt(Some(m)) => write!(f, "prmt.b32.{}", lc(&m)),
            TerOp::Shf { left, clamp } => write!(
                f,
                "shf.{}.{}.b32",
                if left { 'l' } else { 'r' },
                if clamp { "clamp" } else { "wrap" }
            ),
            TerOp::Fma { ty, rnd: m } => write!(f, "fma.{}.{ty}", m.word()),
            TerOp::Mad24 { hi, signed } => {
                write!(
                    f,
                    "mad24.{}.{}32",
                    if hi { "hi" } else { "lo" },
                    sign(signed)
                )
            }
            TerOp::Mad24HiSat => f.write_str("mad24.hi.sat.s32"),
            TerOp::Sad(t) => write!(f, "sad.{t}"),
            TerOp::Fns => f.write_str("fns.b32"),
            TerOp::Dp4a { sa, sb } => write!(f, "dp4a.{}32.{}32", sign(sa), sign(sb)),
            TerOp::Dp2a { sa, sb, hi } => write!(
                f,
                "dp2a.{}.{}32.{}32",
                if hi { "hi" } else { "lo" },
                sign(sa),
                sign(sb)
            ),
        }
    }
}

impl fmt::Display for QuadOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            QuadOp::Bfi { bits } => write!(f, "bfi.b{bits}"),
            QuadOp::Lop3 { bits } => write!(f, "lop3.b{bits}"),
        }
    }
}

// `LaneOp`'s textual form decodes its configuration word: see `lane_text.rs`.
