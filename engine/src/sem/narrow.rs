//! Half precision (`.f16`, `.bf16` and their packed `x2` forms), mixed precision
//! (`add/sub/fma.f32.f16`), half comparisons (`setp`/`set`), and conversions involving the narrow
//! formats (`.bf16`, `.tf32`, `.e4m3/.e5m2`, `.e2m3/.e3m2/.e2m1`, `.ue8m0`, packed `x2`
//! destinations), with stochastic rounding (`.rs`) to `.f16x2`/`.bf16x2`.
//!
//! These ops have many modifier combinations (`.ftz .sat .relu .NaN .xorsign.abs`, two element
//! formats, scalar or packed), so instead of one monomorphised lane function per combination they
//! run as `Op::Lane`: one scalar function per family taking a configuration word fixed at load.
//! Arithmetic goes through [`crate::sem::softfloat`] (exact, rounded once); NaN results are the
//! canonical NaN of the format (`0x7fff` for f16 and bf16), as the ISA leaves them unspecified.

use crate::sem::softfloat::{self as sf, Fmt, Mode};
use crate::sem::Cmp;
use crate::sem::Scalar;

// ---- configuration word ----

/// Element format bf16 (else f16).
pub const BF: u64 = 1 << 8;
/// Packed: two elements in the low and high halves of a 32-bit value.
pub const X2: u64 = 1 << 9;
pub const FTZ: u64 = 1 << 10;
pub const SAT: u64 = 1 << 11;
pub const RELU: u64 = 1 << 12;
/// `.NaN` of min/max: any NaN input gives the canonical NaN.
pub const NAN: u64 = 1 << 13;
/// `.xorsign.abs` of min/max.
pub const XORSIGN: u64 = 1 << 14;
pub const SATFINITE: u64 = 1 << 15;
pub(crate) const MODE_SHIFT: u32 = 16;
pub(crate) const CMP_SHIFT: u32 = 24;
pub(crate) const BOOL_SHIFT: u32 = 32;
/// The combining predicate of setp/set is negated (`!c`).
pub const NEGC: u64 = 1 << 35;
/// `.oob` of fma: +0 where a multiplicand is the OOB-NaN of tensor copies.
pub const OOB: u64 = 1 << 36;
pub(crate) const KIND_SHIFT: u32 = 40;

pub fn mode_bits(m: Mode) -> u64 {
    (match m {
        Mode::Rn => 0u64,
        Mode::Rz => 1,
        Mode::Rm => 2,
        Mode::Rp => 3,
    }) << MODE_SHIFT
}
pub(crate) fn mode_of(cfg: u64) -> Mode {
    Mode::from_u8((cfg >> MODE_SHIFT) as u8 & 3)
}

/// Half-precision arithmetic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum HOp {
    Add,
    Sub,
    Mul,
    Fma,
    Neg,
    Abs,
    Min,
    Max,
    Ex2,
    Tanh,
}

pub(crate) const HOPS: [HOp; 10] = [
    HOp::Add,
    HOp::Sub,
    HOp::Mul,
    HOp::Fma,
    HOp::Neg,
    HOp::Abs,
    HOp::Min,
    HOp::Max,
    HOp::Ex2,
    HOp::Tanh,
];

/// The configuration word of [`half`]: the op in the low byte, then the flags above.
pub fn half_cfg(op: HOp, flags: u64) -> u64 {
    op as u64 | flags
}

#[inline]
fn fmt(cfg: u64) -> Fmt {
    if cfg & BF != 0 {
        sf::BF16
    } else {
        sf::F16
    }
}

/// Applies `e` to the one element, or to both halves of a packed value.
#[inline]
fn per_elem(cfg: u64, a: u64, b: u64, c: u64, e: impl Fn(u64, u64, u64) -> u64) -> u64 {
    let lo = e(a & 0xffff, b & 0xffff, c & 0xffff);
    if cfg & X2 == 0 {
        return lo;
    }
    let hi = e((a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
    lo | (hi << 16)
}

/// Flushes a subnormal to the zero of its sign.
#[inline]
fn flush(f: Fmt, x: u64) -> u64 {
    if f.is_subnormal(x) {
        x & f.sign_bit()
    } else {
        x
    }
}

/// `.sat`: clamp to [0, 1], NaN to +0 (a -0 result stays -0, as for f32).
fn saturate(f: Fmt, r: u64) -> u64 {
    if f.is_nan(r) {
        0
    } else if f.is_neg(r) {
        if r == f.sign_bit() {
            r
        } else {
            0
        }
    } else if sf::to_f64(f, r) > 1.0 {
        sf::from_int(f, false, 1, Mode::Rn)
    } else {
        r
    }
}

/// `.relu`: negative results become +0 (including -0: relu is max(x, +0) and the ISA orders
/// +0 above -0), NaN results the canonical NaN.
fn relu(f: Fmt, r: u64) -> u64 {
    if f.is_nan(r) {
        f.nan()
    } else if f.is_neg(r) {
        0
    } else {
        r
    }
}

/// min/max on one element pair by the ISA's pseudocode (9.7.4.7/8): a NaN operand yields the
/// other unless `.NaN`; +0 > -0; `.xorsign.abs` compares magnitudes and gives the result the XOR
/// of the input signs (unless it is NaN).
fn minmax(f: Fmt, cfg: u64, is_max: bool, a: u64, b: u64) -> u64 {
    let sign = f.sign_bit();
    let xs = (a ^ b) & sign;
    let (a, b) = if cfg & XORSIGN != 0 {
        (a & !sign, b & !sign)
    } else {
        (a, b)
    };
    let (na, nb) = (f.is_nan(a), f.is_nan(b));
    let d = if (na && nb) || (cfg & NAN != 0 && (na || nb)) {
        return f.nan();
    } else if na {
        b
    } else if nb {
        a
    } else {
        let (x, y) = (sf::to_f64(f, a), sf::to_f64(f, b));
        if x == y {
            // Equal values differ only for zeros: +0 > -0.
            let a_pos = a & sign == 0;
            if a_pos == is_max {
                a
            } else {
                b
            }
        } else if (x < y) != is_max {
            a
        } else {
            b
        }
    };
    if cfg & XORSIGN != 0 && !f.is_nan(d) {
        (d & !sign) | xs
    } else {
        d
    }
}

/// An approximate function computed in f64 and rounded once to the format (well inside the
/// ISA's bounds: tanh within 2^-10.987 for f16 and 2^-8 for bf16, ex2 a "fast approximation").
fn approx(f: Fmt, a: u64, g: fn(f64) -> f64) -> u64 {
    if f.is_nan(a) {
        return f.nan();
    }
    let y = g(sf::to_f64(f, a));
    if y.is_nan() {
        return f.nan();
    }
    sf::convert(sf::F64, f, y.to_bits(), Mode::Rn)
}

/// Half-precision arithmetic on one lane (`cfg` from [`half_cfg`]).
pub fn half(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let f = fmt(cfg);
    let op = HOPS[(cfg & 0xff) as usize];
    per_elem(cfg, a, b, c, |a, b, c| {
        // fma.oob (9.7.4.4): the OOB-NaN is 0x7ff7 in f16 and bf16, either sign, as an H200's
        // tensor copies write it and its fma.oob recognises it; it counts in a and b only (in c
        // it is a NaN like any other). scripts/ground-truth/results/fma-oob-h200.txt.
        let is_oob = |x: u64| x & 0x7fff == 0x7ff7;
        if cfg & OOB != 0 && (is_oob(a) || is_oob(b)) {
            return 0;
        }
        let ftz = cfg & FTZ != 0;
        let (a, b, c) = if ftz {
            (flush(f, a), flush(f, b), flush(f, c))
        } else {
            (a, b, c)
        };
        let mut r = match op {
            HOp::Add => sf::add(f, a, b, Mode::Rn),
            HOp::Sub => sf::sub(f, a, b, Mode::Rn),
            HOp::Mul => sf::mul(f, a, b, Mode::Rn),
            HOp::Fma => sf::fma(f, a, b, c, Mode::Rn),
            HOp::Neg => a ^ f.sign_bit(),
            HOp::Abs => a & !f.sign_bit(),
            HOp::Min => minmax(f, cfg, false, a, b),
            HOp::Max => minmax(f, cfg, true, a, b),
            HOp::Ex2 => approx(f, a, f64::exp2),
            HOp::Tanh => approx(f, a, f64::tanh),
        };
        if ftz {
            r = flush(f, r);
        }
        if cfg & SAT != 0 {
            r = saturate(f, r);
        }
        if cfg & RELU != 0 {
            r = relu(f, r);
        }
        r
    })
}

/// Mixed precision (9.7.5): `add/sub .f32.atype d, a, c` and `fma .f32.abtype d, a, b, c`. The
/// 16-bit operands widen exactly to f32; the f32 result is rounded once in the mode. The op is
/// in the low byte (Add, Sub or Fma).
pub fn mixed(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let f = fmt(cfg);
    let w = |x: u64| sf::convert(f, sf::F32, x & 0xffff, Mode::Rn);
    let c = c & 0xffff_ffff;
    let md = mode_of(cfg);
    let r = match HOPS[(cfg & 0xff) as usize] {
        HOp::Add => sf::add(sf::F32, w(a), c, md),
        HOp::Sub => sf::sub(sf::F32, w(a), c, md),
        _ => sf::fma(sf::F32, w(a), w(b), c, md),
    };
    if cfg & SAT != 0 {
        saturate(sf::F32, r)
    } else {
        r
    }
}

// ---- comparisons ----

pub(crate) const CMPS: [Cmp; 14] = [
    Cmp::Eq,
    Cmp::Ne,
    Cmp::Lt,
    Cmp::Le,
    Cmp::Gt,
    Cmp::Ge,
    Cmp::Equ,
    Cmp::Neu,
    Cmp::Ltu,
    Cmp::Leu,
    Cmp::Gtu,
    Cmp::Geu,
    Cmp::Num,
    Cmp::Nan,
];

/// The comparison of two exact values by the ISA's ordered/unordered rules.
pub fn compare(c: Cmp, x: f64, y: f64) -> bool {
    let un = x.is_nan() || y.is_nan();
    match c {
        Cmp::Eq => !un && x == y,
        Cmp::Ne => !un && x != y,
        Cmp::Lt => !un && x < y,
        Cmp::Le => !un && x <= y,
        Cmp::Gt => !un && x > y,
        Cmp::Ge => !un && x >= y,
        Cmp::Equ => un || x == y,
        Cmp::Neu => un || x != y,
        Cmp::Ltu => un || x < y,
        Cmp::Leu => un || x <= y,
        Cmp::Gtu => un || x > y,
        Cmp::Geu => un || x >= y,
        Cmp::Num => !un,
        Cmp::Nan => un,
    }
}

/// The configuration of [`cmp`]: comparison, optional Boolean op (0 none, 1 and, 2 or, 3 xor)
/// with its predicate negated or not, and the element flags (BF, X2, FTZ).
pub fn cmp_cfg(c: Cmp, bool_op: u8, negc: bool, flags: u64) -> u64 {
    let k = CMPS.iter().position(|&x| x == c).unwrap() as u64;
    (k << CMP_SHIFT) | ((bool_op as u64) << BOOL_SHIFT) | if negc { NEGC } else { 0 } | flags
}

/// Combines a comparison result with the predicate `c` by the configured Boolean op.
#[inline]
fn combine(cfg: u64, t: bool, c: u64) -> bool {
    let c = (c & 1 != 0) != (cfg & NEGC != 0);
    match (cfg >> BOOL_SHIFT) & 3 {
        0 => t,
        1 => t && c,
        2 => t || c,
        _ => t ^ c,
    }
}

/// setp on f16/bf16 (packed or not) for one lane: bit 0 is `p`; bit 1 is `q`, which for the
/// packed forms is the upper halves' result and for the scalar forms the complement's (`p|q`).
/// `c` is the combining predicate.
pub fn cmp(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let f = fmt(cfg);
    let op = CMPS[((cfg >> CMP_SHIFT) & 0xff) as usize];
    let t = |x: u64, y: u64| {
        let (x, y) = if cfg & FTZ != 0 {
            (flush(f, x), flush(f, y))
        } else {
            (x, y)
        };
        compare(op, sf::to_f64(f, x), sf::to_f64(f, y))
    };
    let t0 = t(a & 0xffff, b & 0xffff);
    let t1 = if cfg & X2 != 0 {
        t((a >> 16) & 0xffff, (b >> 16) & 0xffff)
    } else {
        !t0
    };
    combine(cfg, t0, c) as u64 | (combine(cfg, t1, c) as u64) << 1
}

/// Bit `cfg` of `a` (extracts `p` or `q` from [`cmp`]'s result).
pub fn bit(cfg: u64, a: u64, _b: u64, _c: u64) -> u64 {
    (a >> cfg) & 1
}

/// What `set` writes for true: 1.0 in f16, bf16 or f32, or all ones of 16 or 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum SetKind {
    F16,
    Bf16,
    F32,
    Ones16,
    Ones32,
}

pub fn set_cfg(kind: SetKind, x2: bool) -> u64 {
    ((kind as u64) << KIND_SHIFT) | if x2 { X2 } else { 0 }
}

/// `set`'s result from predicate bits (bit 0, and bit 1 for the upper half of packed forms).
pub fn set_val(cfg: u64, a: u64, _b: u64, _c: u64) -> u64 {
    let one = match (cfg >> KIND_SHIFT) & 7 {
        0 => 0x3c00,
        1 => 0x3f80,
        2 => 0x3f80_0000,
        3 => 0xffff,
        _ => 0xffff_ffff,
    };
    let lo = if a & 1 != 0 { one } else { 0 };
    if cfg & X2 == 0 {
        return lo;
    }
    lo | if a & 2 != 0 { one << 16 } else { 0 }
}

// ---- conversions ----

/// An exactly decoded value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum V {
    Nan,
    Inf(bool),
    Zero(bool),
    /// `(-1)^neg * m * 2^e`, m != 0.
    Fin(bool, u128, i32),
}

fn decode(t: Scalar, x: u64, ftz: bool) -> V {
    if let Some((bits, signed)) = t.int() {
        let x = x & (u64::MAX >> (64 - bits));
        let v: i128 = if signed {
            ((x << (64 - bits)) as i64 >> (64 - bits)) as i128
        } else {
            x as i128
        };
        return if v == 0 {
            V::Zero(false)
        } else {
            V::Fin(v < 0, v.unsigned_abs(), 0)
        };
    }
    if t == Scalar::Ue8m0 {
        let e = x & 0xff;
        return if e == 0xff {
            V::Nan
        } else {
            V::Fin(false, 1, e as i32 - 127)
        };
    }
    let x = if t == Scalar::Tf32 {
        (x & 0xffff_ffff) >> 13
    } else {
        x
    };
    let f = t.fmt();
    let x = x & (u64::MAX >> (64 - f.width()));
    let neg = f.is_neg(x);
    let emax = (1u64 << f.ebits) - 1;
    let ef = (x >> f.mbits) & emax;
    let fr = x & ((1 << f.mbits) - 1);
    let bias = (1i32 << (f.ebits - 1)) - 1;
    if ef == emax && t.ieee() {
        return if fr != 0 { V::Nan } else { V::Inf(neg) };
    }
    if t == Scalar::E4m3 && ef == emax && fr == (1 << f.mbits) - 1 {
        return V::Nan;
    }
    if ef == 0 {
        if fr == 0 || (ftz && t == Scalar::F32) {
            return V::Zero(neg);
        }
        return V::Fin(neg, fr as u128, 1 - bias - f.mbits as i32);
    }
    V::Fin(
        neg,
        (fr | (1 << f.mbits)) as u128,
        ef as i32 - bias - f.mbits as i32,
    )
}

/// The largest finite magnitude's encoding of a narrow format.
fn max_mag(t: Scalar) -> u64 {
    match t {
        Scalar::E4m3 => 0x7e,
        Scalar::E2m3 | Scalar::E3m2 => 0x1f,
        Scalar::E2m1 => 0x7,
        _ => t.fmt().max_finite(false),
    }
}

/// Encodes `v` into float element `t` in `mode`, with `.relu` and `.satfinite`.
fn encode_float(t: Scalar, v: V, mode: Mode, relu_: bool, satfinite: bool) -> u64 {
    let f = t.fmt();
    let sign = f.sign_bit();
    let nan = match t {
        // No NaN encodings: `.satfinite` (mandatory for them) gives +MAX_NORM.
        Scalar::E2m3 | Scalar::E3m2 | Scalar::E2m1 => max_mag(t),
        Scalar::E4m3 => 0x7f,
        _ => f.nan(),
    };
    let r = match v {
        V::Nan => return nan,
        V::Zero(n) => f.zero(n),
        V::Inf(n) => {
            if satfinite || !t.ieee() {
                max_mag(t) | if n { sign } else { 0 }
            } else {
                f.inf(n)
            }
        }
        V::Fin(n, m, e) => {
            let mag = sf::round_mag(f, n, m, e, mode);
            let s = if n { sign } else { 0 };
            if t.ieee() {
                if mag >> f.mbits >= (1 << f.ebits) - 1 {
                    if satfinite {
                        max_mag(t) | s
                    } else {
                        sf::round(f, n, m, e, mode)
                    }
                } else {
                    mag | s
                }
            } else if mag > max_mag(t) {
                if satfinite {
                    max_mag(t) | s
                } else {
                    nan
                }
            } else {
                mag | s
            }
        }
    };
    if relu_ && r & sign != 0 {
        return 0;
    }
    r
}

/// Encodes `v` as `.ue8m0` in `.rz` or `.rp` (the only modes the ISA gives it): the power of two
/// at or below (rz) or at or above (rp) the magnitude. The format has no sign, so the magnitude
/// converts (our reading: the ISA does not say what a negative input gives); values below
/// 2^-127 (zero included) give the smallest encoding 0x00. NaN is 0xff; past 2^127, and for
/// infinities, `.satfinite` gives MAX_NORM 0xfe and otherwise the result is NaN (there is no
/// infinity).
fn encode_ue8m0(v: V, mode: Mode, satfinite: bool) -> u64 {
    let overflow = if satfinite { 0xfe } else { 0xff };
    match v {
        V::Nan => 0xff,
        V::Inf(_) => overflow,
        V::Zero(_) => 0,
        V::Fin(_, m, e) => {
            // |v| = m * 2^e with m != 0: floor(log2 |v|) = e + (bits of m) - 1.
            let top = 127 - m.leading_zeros() as i32;
            let exact = m.is_power_of_two();
            let p = e + top + i32::from(mode == Mode::Rp && !exact);
            match p + 127 {
                b if b < 0 => 0,
                b if b > 254 => overflow,
                b => b as u64,
            }
        }
    }
}

/// Stochastic rounding (`cvt.rs`, ISA 9.7.9.21) of the f32 `x` to `dst` with `k` random bits
/// `r`: the magnitude is truncated, then rounded away from zero when adding the random bits to
/// the discarded bits carries out. The random bits are added to the `k` most significant
/// discarded bits. For f32 -> bf16 (16 bits) and f32 -> f16 with a normal result (13 bits) those
/// are all of them, as the ISA describes; where more bits are discarded (f16 subnormals, the
/// 8-, 6- and 4-bit formats) aligning the random bits with the top of the discarded field is our
/// reading (the only alignment that keeps the rounding unbiased; the ISA's text gives none).
/// Beyond the largest finite value the result is infinity, or MAX_NORM under `.satfinite`
/// (mandatory for the 8-, 6- and 4-bit formats); NaN as for `.rn`.
fn cvt_rs1(dst: Scalar, x: u64, r: u64, k: u32, relu_: bool, satfinite: bool) -> u64 {
    let f = dst.fmt();
    let sign = f.sign_bit();
    let v = decode(Scalar::F32, x, false);
    let (neg, m, e) = match v {
        V::Fin(n, m, e) => (n, m, e),
        // NaN, infinities and zeros convert exactly (`.relu` and `.satfinite` as for .rn).
        _ => return encode_float(dst, v, Mode::Rz, relu_, satfinite),
    };
    if neg && relu_ {
        return 0;
    }
    let r = r & ((1 << k) - 1);
    let bias = (1i32 << (f.ebits - 1)) - 1;
    let trunc = sf::round_mag(f, neg, m, e, Mode::Rz);
    // Exponent of the result grid's unit in the last place at the truncated value.
    let ulp_e = ((trunc >> f.mbits) as i32).max(1) - bias - f.mbits as i32;
    // The discarded bits of m * 2^e below 2^ulp_e, as a k-bit fraction of the ulp.
    let s = ulp_e - e;
    let frac = if s <= 0 {
        0
    } else {
        let d = m & ((1u128 << s.min(127)) - 1);
        if s >= k as i32 {
            d >> (s - k as i32)
        } else {
            d << (k as i32 - s)
        }
    } as u64;
    // The exponent of the highest finite binade: IEEE formats reserve the all-ones exponent,
    // the 8-, 6- and 4-bit OCP formats do not (e4m3 only its all-ones NaN code).
    let top = if dst.ieee() { bias } else { bias + 1 };
    let beyond = e + (127 - m.leading_zeros() as i32) > top;
    let mut mag = trunc;
    if (frac + r) >> k != 0 {
        mag += 1;
    }
    let over = beyond
        || if dst.ieee() {
            mag >> f.mbits >= (1 << f.ebits) - 1
        } else {
            mag > max_mag(dst)
        };
    if over {
        mag = if satfinite || !dst.ieee() {
            max_mag(dst)
        } else {
            f.inf(false)
        };
    }
    mag | if neg { sign } else { 0 }
}

/// How `cvt.rs` spreads `rbits` over its two operands (`cfg` bits 24..27), and how many random
/// bits each gets (ISA 9.7.9.21): to f16x2/bf16x2 `a` takes `rbits[31:16]` and `b`
/// `rbits[15:0]`; to the 8- and 6-bit x4 formats the pair `a, b` shares `rbits[31:16]` and
/// `e, f` share `rbits[15:0]`; to e2m1x4 `a, b` take the upper bytes of the two halves
/// (`rbits[31:24]`, `rbits[15:8]`) and `e, f` the lower ones (`rbits[23:16]`, `rbits[7:0]`).
pub const RS_HALVES: u64 = 0;
pub const RS_X4_HI: u64 = 1;
pub const RS_X4_LO: u64 = 2;
pub const RS_E2M1_HI: u64 = 3;
pub const RS_E2M1_LO: u64 = 4;
pub(crate) const RS_SHIFT: u32 = 24;

pub fn rs_cfg(dst: Scalar, layout: u64, flags: u64) -> u64 {
    cvt_cfg(dst, Scalar::F32, Mode::Rz, false, 1, flags) | layout << RS_SHIFT
}

/// `cvt.rs`: two f32 operands `a` (upper) and `b` (lower) converted with their random bits from
/// `rbits` and packed, each in its element's slot (16, 8 or 4 bits); `cfg` from [`rs_cfg`].
pub fn cvt_rs(cfg: u64, a: u64, b: u64, rbits: u64) -> u64 {
    let dst = Scalar::ALL[((cfg >> 48) & 0xff) as usize];
    let (relu_, satf) = (cfg & RELU != 0, cfg & SATFINITE != 0);
    let (ra, rb, k) = match (cfg >> RS_SHIFT) & 7 {
        RS_HALVES => (rbits >> 16, rbits, if dst == Scalar::F16 { 13 } else { 16 }),
        RS_X4_HI => (rbits >> 16, rbits >> 16, 16),
        RS_X4_LO => (rbits, rbits, 16),
        RS_E2M1_HI => (rbits >> 24, rbits >> 8, 8),
        _ => (rbits >> 16, rbits, 8),
    };
    let slot = match dst {
        Scalar::F16 | Scalar::Bf16 => 16,
        Scalar::E2m1 => 4,
        _ => 8,
    };
    let hi = cvt_rs1(dst, a & 0xffff_ffff, ra, k, relu_, satf);
    let lo = cvt_rs1(dst, b & 0xffff_ffff, rb, k, relu_, satf);
    (hi << slot) | lo
}

/// Configuration of [`cvt`]: destination and source element (bits 48 and 56), rounding, flags.
/// `pack`: 0 one element; 1 two sources `a` (upper) and `b` (lower) packed; 2 the two halves of
/// `a` converted into two halves of the destination.
pub fn cvt_cfg(dst: Scalar, src: Scalar, mode: Mode, rna: bool, pack: u8, flags: u64) -> u64 {
    (dst as u64) << 48
        | (src as u64) << 56
        | mode_bits(mode)
        | (rna as u64) << 20
        | (pack as u64) << 21
        | flags
}

/// The low `bits` bits of `x`.
#[inline]
fn low(x: u64, bits: u32) -> u64 {
    x & (u64::MAX >> (64 - bits))
}

/// One element conversion.
fn cvt1(cfg: u64, dst: Scalar, src: Scalar, x: u64) -> u64 {
    let mode = mode_of(cfg);
    let ftz = cfg & FTZ != 0;
    let v = decode(src, x, ftz);
    let relu_ = cfg & RELU != 0;
    let satf = cfg & SATFINITE != 0;
    if dst == Scalar::Tf32 {
        if cfg & (1 << 20) != 0 {
            // .rna: ties away from zero: add half an ulp of tf32 to the magnitude, truncate.
            let x = x & 0xffff_ffff;
            if sf::F32.is_nan(x) {
                return 0x7fff_ffff;
            }
            let s = x & 0x8000_0000;
            let mag = x & 0x7fff_ffff;
            let r = if mag >= 0x7f80_0000 {
                mag
            } else {
                (mag + 0x1000) & !0x1fff
            };
            return if satf && r == 0x7f80_0000 {
                s | 0x7f7f_e000
            } else {
                s | r
            };
        }
        let r = encode_float(Scalar::Tf32, v, mode, relu_, satf);
        if Scalar::Tf32.fmt().is_nan(r) {
            return 0x7fff_ffff;
        }
        return r << 13;
    }
    if dst == Scalar::Ue8m0 {
        return encode_ue8m0(v, mode, satf);
    }
    // Integer destinations never get here: lowering widens bf16 to f32 (exact) and runs the
    // f32 -> integer conversion.
    debug_assert!(dst.int().is_none());
    let mut r = encode_float(dst, v, mode, relu_, satf);
    if ftz && dst == Scalar::F32 {
        r = flush(sf::F32, r);
    }
    if cfg & SAT != 0 {
        saturate(dst.fmt(), r)
    } else {
        r
    }
}

/// Narrow-format conversion of one lane (`cfg` from [`cvt_cfg`]).
pub fn cvt(cfg: u64, a: u64, b: u64, _c: u64) -> u64 {
    let dst = Scalar::ALL[((cfg >> 48) & 0xff) as usize];
    let src = Scalar::ALL[(cfg >> 56) as usize];
    let db = if dst == Scalar::Tf32 { 32 } else { dst.bits() };
    // e2m3/e3m2 take a byte each with the two high bits zero.
    let slot = match dst {
        Scalar::E2m3 | Scalar::E3m2 => 8,
        _ => db,
    };
    let ssl = match src {
        Scalar::E2m3 | Scalar::E3m2 => 8,
        _ => src.bits(),
    };
    match (cfg >> 21) & 3 {
        0 => cvt1(cfg, dst, src, low(a, ssl)),
        1 => (cvt1(cfg, dst, src, a) << slot) | cvt1(cfg, dst, src, b),
        _ => {
            let lo = cvt1(cfg, dst, src, low(a, ssl));
            let hi = cvt1(cfg, dst, src, low(a >> ssl, ssl));
            (hi << slot) | lo
        }
    }
}

/// Widens bf16 to the f32 pattern (exact).
pub fn bf16_to_f32(_cfg: u64, a: u64, _b: u64, _c: u64) -> u64 {
    (a & 0xffff) << 16
}

/// `cvt.pack.sat.{u16,s16}.s32 d, a, b` and `cvt.pack.sat.{u2,s2,u4,s4,u8,s8}.s32.b32 d, a, b,
/// c`: `a` and `b` saturated to the type, `a` above `b`, the rest of `d` from the low bits of `c`.
/// `cfg`: width in the low byte, bit 8 signed.
pub fn cvt_pack(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let w = (cfg & 0xff) as u32;
    let signed = cfg & 0x100 != 0;
    let (lo, hi): (i64, i64) = if signed {
        (-(1 << (w - 1)), (1 << (w - 1)) - 1)
    } else {
        (0, (1 << w) - 1)
    };
    let sat = |x: u64| (x as u32 as i32 as i64).clamp(lo, hi) as u64 & ((1 << w) - 1);
    let td = (sat(a) << w) | sat(b);
    if w == 16 {
        td
    } else {
        (td | (c << (2 * w))) & 0xffff_ffff
    }
}
