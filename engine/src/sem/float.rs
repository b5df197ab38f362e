//! Floating-point arithmetic: IEEE operations on f32/f64 (the host's, which round to nearest
//! even exactly as the hardware does), exact arithmetic in any rounding mode and format through
//! [`super::softfloat`], and the f16 sign operations.

use super::*;

// ---- floating point ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FBin {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Copysign,
}

/// IEEE minNum/maxNum as PTX defines min/max: a NaN operand yields the other; -0 < +0.
macro_rules! fmin {
    ($t:ty, $a:ident, $b:ident) => {
        if $a.is_nan() {
            $b
        } else if $b.is_nan() {
            $a
        } else if $a == $b {
            <$t>::from_bits($a.to_bits() | $b.to_bits())
        } else {
            $a.min($b)
        }
    };
}
macro_rules! fmax {
    ($t:ty, $a:ident, $b:ident) => {
        if $a.is_nan() {
            $b
        } else if $b.is_nan() {
            $a
        } else if $a == $b {
            <$t>::from_bits($a.to_bits() & $b.to_bits())
        } else {
            $a.max($b)
        }
    };
}

/// The NaN an operation on NaN inputs returns: the first NaN operand, quieted. IEEE 754 asks
/// for one of the input payloads without saying which; the host returns its instruction's
/// first operand, but the compiler may swap the operands of `+` and `*`, so the choice is made
/// here, once for the interpreter and the compiling tier (`jit/emit.rs` computes the same).
/// (PTX leaves f32 NaNs unspecified and keeps f64 payloads, ISA 9.7.3.)
macro_rules! first_nan {
    ($t:ty, $quiet:expr, $r:expr, $($x:expr),+) => {{
        let r: $t = $r;
        let mut out = r;
        // Reversed, so that the first NaN operand is the one left in `out`.
        for x in [$($x),+].into_iter().rev() {
            if x.is_nan() {
                out = <$t>::from_bits(x.to_bits() | $quiet);
            }
        }
        out
    }};
}
pub(crate) const QUIET32: u32 = 1 << 22;
pub(crate) const QUIET64: u64 = 1 << 51;

pub fn f32_bin(op: FBin) -> BinFn {
    match op {
        FBin::Add => f2!(f32, |a, b| first_nan!(f32, QUIET32, a + b, a, b)),
        FBin::Sub => f2!(f32, |a, b| first_nan!(f32, QUIET32, a - b, a, b)),
        FBin::Mul => f2!(f32, |a, b| first_nan!(f32, QUIET32, a * b, a, b)),
        FBin::Div => f2!(f32, |a, b| first_nan!(f32, QUIET32, a / b, a, b)),
        FBin::Min => f2!(f32, |a, b| fmin!(f32, a, b)),
        FBin::Max => f2!(f32, |a, b| fmax!(f32, a, b)),
        FBin::Copysign => f2!(f32, |a, b| b.copysign(a)),
    }
}
pub fn f64_bin(op: FBin) -> BinFn {
    match op {
        FBin::Add => f2!(f64, |a, b| first_nan!(f64, QUIET64, a + b, a, b)),
        FBin::Sub => f2!(f64, |a, b| first_nan!(f64, QUIET64, a - b, a, b)),
        FBin::Mul => f2!(f64, |a, b| first_nan!(f64, QUIET64, a * b, a, b)),
        FBin::Div => f2!(f64, |a, b| first_nan!(f64, QUIET64, a / b, a, b)),
        FBin::Min => f2!(f64, |a, b| fmin!(f64, a, b)),
        FBin::Max => f2!(f64, |a, b| fmax!(f64, a, b)),
        FBin::Copysign => f2!(f64, |a, b| b.copysign(a)),
    }
}
pub fn fma(bits: u32) -> TerFn {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        return if bits == 64 { fma64_hw } else { fma32_hw };
    }
    if bits == 64 {
        f3!(f64, |a, b, c| first_nan!(
            f64,
            QUIET64,
            a.mul_add(b, c),
            a,
            b,
            c
        ))
    } else {
        f3!(f32, |a, b, c| first_nan!(
            f32,
            QUIET32,
            a.mul_add(b, c),
            a,
            b,
            c
        ))
    }
}

/// `mul_add` compiled with the FMA instruction set, picked at load when the host has it: the
/// same single-rounding result as the libm `fmaf`/`fma` call of the portable version, without a
/// call per lane (the baseline x86-64 target cannot inline it).
#[cfg(target_arch = "x86_64")]
fn fma32_hw(x: &Lanes, y: &Lanes, z: &Lanes, o: &mut Lanes) {
    #[target_feature(enable = "fma")]
    fn k(x: &Lanes, y: &Lanes, z: &Lanes, o: &mut Lanes) {
        map3(x, y, z, o, |a: f32, b: f32, c: f32| {
            first_nan!(f32, QUIET32, a.mul_add(b, c), a, b, c)
        })
    }
    // SAFETY: only selected by `fma` after is_x86_feature_detected!("fma") returned true.
    unsafe { k(x, y, z, o) }
}
#[cfg(target_arch = "x86_64")]
fn fma64_hw(x: &Lanes, y: &Lanes, z: &Lanes, o: &mut Lanes) {
    #[target_feature(enable = "fma")]
    fn k(x: &Lanes, y: &Lanes, z: &Lanes, o: &mut Lanes) {
        map3(x, y, z, o, |a: f64, b: f64, c: f64| {
            first_nan!(f64, QUIET64, a.mul_add(b, c), a, b, c)
        })
    }
    // SAFETY: as for fma32_hw.
    unsafe { k(x, y, z, o) }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FUn {
    Neg,
    Abs,
    Sqrt,
    Rcp,
    Rsqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
}
pub fn f32_un(op: FUn) -> UnFn {
    match op {
        FUn::Neg => f1!(f32, |a| -a),
        FUn::Abs => f1!(f32, |a| a.abs()),
        FUn::Sqrt => f1!(f32, |a| a.sqrt()),
        FUn::Rcp => f1!(f32, |a| 1.0 / a),
        // Computed in f64 and rounded once: well inside the .approx bounds.
        FUn::Rsqrt => f1!(f32, |a| (1.0 / (a as f64).sqrt()) as f32),
        FUn::Ex2 => f1!(f32, |a| (a as f64).exp2() as f32),
        FUn::Lg2 => f1!(f32, |a| (a as f64).log2() as f32),
        FUn::Sin => f1!(f32, |a| (a as f64).sin() as f32),
        FUn::Cos => f1!(f32, |a| (a as f64).cos() as f32),
        FUn::Tanh => f1!(f32, |a| (a as f64).tanh() as f32),
    }
}
pub fn f64_un(op: FUn) -> UnFn {
    match op {
        FUn::Neg => f1!(f64, |a| -a),
        FUn::Abs => f1!(f64, |a| a.abs()),
        FUn::Sqrt => f1!(f64, |a| a.sqrt()),
        FUn::Rcp => f1!(f64, |a| 1.0 / a),
        FUn::Rsqrt => f1!(f64, |a| 1.0 / a.sqrt()),
        FUn::Ex2 => f1!(f64, |a| a.exp2()),
        FUn::Lg2 => f1!(f64, |a| a.log2()),
        FUn::Sin => f1!(f64, |a| a.sin()),
        FUn::Cos => f1!(f64, |a| a.cos()),
        FUn::Tanh => f1!(f64, |a| a.tanh()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Testp {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}
pub fn testp(t: Testp, bits: u32) -> UnFn {
    macro_rules! tp {
        ($ft:ty) => {
            match t {
                Testp::Finite => f1!($ft, |a| a.is_finite()),
                Testp::Infinite => f1!($ft, |a| a.is_infinite()),
                Testp::Number => f1!($ft, |a| !a.is_nan()),
                Testp::NotANumber => f1!($ft, |a| a.is_nan()),
                Testp::Normal => f1!($ft, |a| a.is_normal()),
                Testp::Subnormal => f1!($ft, |a| a.is_subnormal()),
            }
        };
    }
    if bits == 64 {
        tp!(f64)
    } else {
        tp!(f32)
    }
}

// ---- exact arithmetic in any rounding mode (directed modes, half precision) ----

use crate::sem::softfloat::{self as sf, fmt_of, Mode};

/// The low `width` bits of a slot: the encoding of format `F`.
#[inline(always)]
fn enc<const F: u8>(v: u64) -> u64 {
    v & (u64::MAX >> (64 - fmt_of(F).width()))
}

fn sf_add<const F: u8, const M: u8>(x: &Lanes, y: &Lanes, o: &mut Lanes) {
    for i in 0..32 {
        o[i] = sf::add(fmt_of(F), enc::<F>(x[i]), enc::<F>(y[i]), Mode::from_u8(M));
    }
}
fn sf_sub<const F: u8, const M: u8>(x: &Lanes, y: &Lanes, o: &mut Lanes) {
    for i in 0..32 {
        o[i] = sf::sub(fmt_of(F), enc::<F>(x[i]), enc::<F>(y[i]), Mode::from_u8(M));
    }
}
fn sf_mul<const F: u8, const M: u8>(x: &Lanes, y: &Lanes, o: &mut Lanes) {
    for i in 0..32 {
        o[i] = sf::mul(fmt_of(F), enc::<F>(x[i]), enc::<F>(y[i]), Mode::from_u8(M));
    }
}
fn sf_div<const F: u8, const M: u8>(x: &Lanes, y: &Lanes, o: &mut Lanes) {
    for i in 0..32 {
        o[i] = sf::div(fmt_of(F), enc::<F>(x[i]), enc::<F>(y[i]), Mode::from_u8(M));
    }
}
fn sf_fma<const F: u8, const M: u8>(x: &Lanes, y: &Lanes, z: &Lanes, o: &mut Lanes) {
    for i in 0..32 {
        o[i] = sf::fma(
            fmt_of(F),
            enc::<F>(x[i]),
            enc::<F>(y[i]),
            enc::<F>(z[i]),
            Mode::from_u8(M),
        );
    }
}
fn sf_sqrt<const F: u8, const M: u8>(x: &Lanes, o: &mut Lanes) {
    for i in 0..32 {
        o[i] = sf::sqrt(fmt_of(F), enc::<F>(x[i]), Mode::from_u8(M));
    }
}
fn sf_rcp<const F: u8, const M: u8>(x: &Lanes, o: &mut Lanes) {
    let one = sf::from_int(fmt_of(F), false, 1, Mode::Rn);
    for i in 0..32 {
        o[i] = sf::div(fmt_of(F), one, enc::<F>(x[i]), Mode::from_u8(M));
    }
}

/// Picks the instance of a `<format, mode>` lane function (format index as in [`fmt_of`]).
macro_rules! sel {
    ($f:ident, $fmt:expr, $mode:expr, $ty:ty) => {
        match ($fmt, $mode) {
            (0, Mode::Rn) => $f::<0, 0> as $ty,
            (0, Mode::Rz) => $f::<0, 1> as $ty,
            (0, Mode::Rm) => $f::<0, 2> as $ty,
            (0, Mode::Rp) => $f::<0, 3> as $ty,
            (1, Mode::Rn) => $f::<1, 0> as $ty,
            (1, Mode::Rz) => $f::<1, 1> as $ty,
            (1, Mode::Rm) => $f::<1, 2> as $ty,
            (1, Mode::Rp) => $f::<1, 3> as $ty,
            (2, Mode::Rn) => $f::<2, 0> as $ty,
            (2, Mode::Rz) => $f::<2, 1> as $ty,
            (2, Mode::Rm) => $f::<2, 2> as $ty,
            (2, Mode::Rp) => $f::<2, 3> as $ty,
            (_, Mode::Rn) => $f::<3, 0> as $ty,
            (_, Mode::Rz) => $f::<3, 1> as $ty,
            (_, Mode::Rm) => $f::<3, 2> as $ty,
            (_, Mode::Rp) => $f::<3, 3> as $ty,
        }
    };
}

/// Exact add/sub/mul/div in `mode` for format index `fmt` (0 f16, 1 bf16, 2 f32, 3 f64).
pub fn soft_bin(op: FBin, fmt: u8, mode: Mode) -> Option<BinFn> {
    Some(match op {
        FBin::Add => sel!(sf_add, fmt, mode, BinFn),
        FBin::Sub => sel!(sf_sub, fmt, mode, BinFn),
        FBin::Mul => sel!(sf_mul, fmt, mode, BinFn),
        FBin::Div => sel!(sf_div, fmt, mode, BinFn),
        _ => return None,
    })
}
pub fn soft_fma(fmt: u8, mode: Mode) -> TerFn {
    sel!(sf_fma, fmt, mode, TerFn)
}
pub fn soft_sqrt(fmt: u8, mode: Mode) -> UnFn {
    sel!(sf_sqrt, fmt, mode, UnFn)
}
pub fn soft_rcp(fmt: u8, mode: Mode) -> UnFn {
    sel!(sf_rcp, fmt, mode, UnFn)
}

// ---- f16 scalar helpers ----

pub fn neg_f16() -> UnFn {
    f1!(u16, |a| a ^ 0x8000)
}
pub fn abs_f16() -> UnFn {
    f1!(u16, |a| a & 0x7fff)
}

#[cfg(test)]
mod nan_tests {
    use super::*;

    /// Two NaN operands: the first one, quieted, whatever order the host's instruction takes
    /// them in (IEEE 754-2008 6.2.3 asks for one input payload; ISA 9.7.3 keeps f64 payloads and
    /// leaves f32 NaNs unspecified). Expected bits worked by hand: quieting sets fraction bit 22
    /// (f32) or 51 (f64).
    #[test]
    fn an_operation_on_nans_returns_the_first_nan_quieted() {
        let f = f32_bin(FBin::Add);
        let (mut o, a, b) = ([0u64; 32], [0x7fa0_0001u64; 32], [0xffc1_2345u64; 32]);
        f(&a, &b, &mut o);
        assert_eq!(o[0], 0x7fe0_0001);
        f(&b, &a, &mut o);
        assert_eq!(o[0], 0xffc1_2345);
        let g = fma(32);
        let one = [0x3f80_0000u64; 32];
        g(&one, &b, &a, &mut o);
        assert_eq!(o[0], 0xffc1_2345);
        let h = f64_bin(FBin::Mul);
        let (x, y) = (
            [0x7ff0_0000_0000_0001u64; 32],
            [0xfff8_0000_0000_0002u64; 32],
        );
        h(&y, &x, &mut o);
        assert_eq!(o[0], 0xfff8_0000_0000_0002);
        h(&x, &y, &mut o);
        assert_eq!(o[0], 0x7ff8_0000_0000_0001);
    }
}
