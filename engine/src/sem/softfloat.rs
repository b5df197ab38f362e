//! Exact IEEE 754 binary arithmetic in every rounding mode, for the PTX forms the host cannot
//! compute directly: Rust has no rounding-mode control, so `.rz/.rm/.rp` (and every op on
//! f16/bf16) go through here. Each operation forms its exact result as an integer significand
//! times a power of two (wide enough, or with the bits below the rounding point "jammed" into
//! a sticky least significant bit), then [`round`] rounds it once into the target format. One
//! rounding from the exact value is what makes the results bit-exact; nothing here uses host
//! floating point.
//!
//! Values travel as raw bit patterns in the low bits of a `u64`. NaN results: f64 keeps the
//! payload of the first NaN operand (quieted), as the ISA states for double precision; the
//! narrower formats return the canonical NaN (all exponent and fraction bits set, sign clear).

/// IEEE rounding direction (`.rn`, `.rz`, `.rm`, `.rp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Rn,
    Rz,
    Rm,
    Rp,
}

impl Mode {
    pub const fn from_u8(m: u8) -> Mode {
        match m {
            0 => Mode::Rn,
            1 => Mode::Rz,
            2 => Mode::Rm,
            _ => Mode::Rp,
        }
    }
    /// The PTX modifier word (`rn`, `rz`, `rm`, `rp`).
    pub const fn word(self) -> &'static str {
        match self {
            Mode::Rn => "rn",
            Mode::Rz => "rz",
            Mode::Rm => "rm",
            Mode::Rp => "rp",
        }
    }
}

/// A binary interchange format: exponent bits and stored fraction bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    pub ebits: u32,
    pub mbits: u32,
}

pub const F16: Fmt = Fmt {
    ebits: 5,
    mbits: 10,
};
pub const BF16: Fmt = Fmt { ebits: 8, mbits: 7 };
pub const F32: Fmt = Fmt {
    ebits: 8,
    mbits: 23,
};
pub const F64: Fmt = Fmt {
    ebits: 11,
    mbits: 52,
};

/// Format by small index, for const-generic lane functions: 0 f16, 1 bf16, 2 f32, 3 f64.
pub const fn fmt_of(i: u8) -> Fmt {
    match i {
        0 => F16,
        1 => BF16,
        2 => F32,
        _ => F64,
    }
}

impl Fmt {
    #[inline]
    const fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    #[inline]
    const fn emax_field(self) -> u64 {
        (1 << self.ebits) - 1
    }
    #[inline]
    pub const fn sign_bit(self) -> u64 {
        1 << (self.ebits + self.mbits)
    }
    #[inline]
    const fn frac_mask(self) -> u64 {
        (1 << self.mbits) - 1
    }
    #[inline]
    pub const fn inf(self, neg: bool) -> u64 {
        (if neg { self.sign_bit() } else { 0 }) | (self.emax_field() << self.mbits)
    }
    #[inline]
    pub const fn max_finite(self, neg: bool) -> u64 {
        (if neg { self.sign_bit() } else { 0 })
            | ((self.emax_field() - 1) << self.mbits)
            | self.frac_mask()
    }
    #[inline]
    pub const fn zero(self, neg: bool) -> u64 {
        if neg {
            self.sign_bit()
        } else {
            0
        }
    }
    /// The canonical NaN: sign clear, every exponent and fraction bit set.
    #[inline]
    pub const fn nan(self) -> u64 {
        (self.emax_field() << self.mbits) | self.frac_mask()
    }
    #[inline]
    pub const fn is_nan(self, x: u64) -> bool {
        (x >> self.mbits) & self.emax_field() == self.emax_field() && x & self.frac_mask() != 0
    }
    #[inline]
    pub const fn is_neg(self, x: u64) -> bool {
        x & self.sign_bit() != 0
    }
    #[inline]
    pub const fn is_subnormal(self, x: u64) -> bool {
        (x >> self.mbits) & self.emax_field() == 0 && x & self.frac_mask() != 0
    }
    /// Width of the encoding in bits.
    #[inline]
    pub const fn width(self) -> u32 {
        1 + self.ebits + self.mbits
    }
}

/// The NaN an operation returns, given its operands (at least one is a NaN, or none for an
/// invalid operation such as inf - inf).
#[inline]
fn nan_of(f: Fmt, ops: &[u64]) -> u64 {
    if f == F64 {
        for &x in ops {
            if f.is_nan(x) {
                return x | (1 << (f.mbits - 1));
            }
        }
    }
    f.nan()
}

/// A decoded operand.
#[derive(Clone, Copy, Debug)]
enum C {
    Nan,
    Inf(bool),
    Zero(bool),
    /// `(-1)^neg * m * 2^e`, m != 0.
    Fin(bool, u64, i32),
}

#[inline]
fn unpack(f: Fmt, x: u64) -> C {
    let neg = f.is_neg(x);
    let ef = (x >> f.mbits) & f.emax_field();
    let fr = x & f.frac_mask();
    let emin = 1 - f.bias();
    if ef == f.emax_field() {
        if fr != 0 {
            C::Nan
        } else {
            C::Inf(neg)
        }
    } else if ef == 0 {
        if fr == 0 {
            C::Zero(neg)
        } else {
            C::Fin(neg, fr, emin - f.mbits as i32)
        }
    } else {
        C::Fin(
            neg,
            fr | (1 << f.mbits),
            ef as i32 - f.bias() - f.mbits as i32,
        )
    }
}

#[inline]
fn overflow(f: Fmt, neg: bool, mode: Mode) -> u64 {
    let to_inf = match mode {
        Mode::Rn => true,
        Mode::Rz => false,
        Mode::Rm => neg,
        Mode::Rp => !neg,
    };
    if to_inf {
        f.inf(neg)
    } else {
        f.max_finite(neg)
    }
}

/// Rounds `(-1)^neg * m * 2^e` into `f` in `mode`. `m` is exact, or its least significant bit is
/// a sticky bit standing for nonzero bits further down; either way it must lie at least two bits
/// below the rounding point (callers keep > p + 2 significant bits).
pub fn round(f: Fmt, neg: bool, m: u128, e: i32, mode: Mode) -> u64 {
    let mag = round_mag(f, neg, m, e, mode);
    if mag >> f.mbits >= f.emax_field() {
        return overflow(f, neg, mode);
    }
    f.zero(neg) | mag
}

/// [`round`] with an unbounded exponent: the magnitude's encoding (exponent field above the
/// fraction, no sign), whose exponent field may reach or pass the format's all-ones value. The
/// narrow formats without infinities (e4m3, e2m3, ...) use their top binade for finite values
/// and decide overflow themselves from this.
pub fn round_mag(f: Fmt, neg: bool, m: u128, e: i32, mode: Mode) -> u64 {
    if m == 0 {
        return 0;
    }
    let p = f.mbits as i32 + 1;
    let n = 128 - m.leading_zeros() as i32;
    let lead = e + n - 1;
    let emin = 1 - f.bias();
    // Exponent of the result's least significant bit: p bits below the leading one, but never
    // below the subnormal quantum.
    let mut q = (lead - p + 1).max(emin - p + 1);
    let s = q - e;
    let mut mant: u64 = if s <= 0 {
        (m << (-s) as u32) as u64
    } else {
        let (mant, half, rest) = if s > 128 {
            (0u128, false, true)
        } else if s == 128 {
            (0, m >> 127 != 0, m & (u128::MAX >> 1) != 0)
        } else {
            (
                m >> s,
                (m >> (s - 1)) & 1 != 0,
                m & ((1u128 << (s - 1)) - 1) != 0,
            )
        };
        let inexact = half || rest;
        let up = match mode {
            Mode::Rn => half && (rest || mant & 1 != 0),
            Mode::Rz => false,
            Mode::Rm => inexact && neg,
            Mode::Rp => inexact && !neg,
        };
        mant as u64 + up as u64
    };
    if mant >> p != 0 {
        // Rounding carried into the next binade.
        mant >>= 1;
        q += 1;
    }
    if mant >> (p - 1) == 0 {
        // Subnormal (or zero): the exponent field is 0.
        return mant;
    }
    let ef = q + (p - 1) + f.bias();
    ((ef as u64) << f.mbits) | (mant & f.frac_mask())
}

/// Shifts right by `k`, ORing every bit shifted out into the least significant bit.
#[inline]
fn shr_jam(x: u128, k: u32) -> u128 {
    if k == 0 {
        x
    } else if k >= 128 {
        (x != 0) as u128
    } else {
        (x >> k) | ((x & ((1u128 << k) - 1)) != 0) as u128
    }
}

/// The exact sum of two nonzero finite terms, rounded. Both significands are < 2^127.
fn add_terms(f: Fmt, t1: (bool, u128, i32), t2: (bool, u128, i32), mode: Mode) -> u64 {
    let lead = |t: (bool, u128, i32)| t.2 + 127 - t.1.leading_zeros() as i32;
    let (big, small) = if lead(t1) >= lead(t2) {
        (t1, t2)
    } else {
        (t2, t1)
    };
    // Put the larger term's leading bit at bit 126: the smaller one is exact unless it lies
    // more than ~70 bits below, where only a sticky bit of it can matter.
    let sh = big.1.leading_zeros() as i32 - 1;
    let mb = big.1 << sh;
    let e = big.2 - sh;
    let d = small.2 - e;
    let ms = if d >= 0 {
        small.1 << d
    } else {
        shr_jam(small.1, (-d) as u32)
    };
    if big.0 == small.0 {
        round(f, big.0, mb + ms, e, mode)
    } else if mb >= ms {
        if mb == ms {
            // An exact zero from opposite signs is +0, except -0 when rounding down.
            return f.zero(mode == Mode::Rm);
        }
        round(f, big.0, mb - ms, e, mode)
    } else {
        round(f, small.0, ms - mb, e, mode)
    }
}

pub fn add(f: Fmt, a: u64, b: u64, mode: Mode) -> u64 {
    match (unpack(f, a), unpack(f, b)) {
        (C::Nan, _) | (_, C::Nan) => nan_of(f, &[a, b]),
        (C::Inf(x), C::Inf(y)) => {
            if x == y {
                f.inf(x)
            } else {
                nan_of(f, &[])
            }
        }
        (C::Inf(x), _) | (_, C::Inf(x)) => f.inf(x),
        (C::Zero(x), C::Zero(y)) => f.zero(if x == y { x } else { mode == Mode::Rm }),
        (C::Zero(_), _) => b,
        (_, C::Zero(_)) => a,
        (C::Fin(sa, ma, ea), C::Fin(sb, mb, eb)) => {
            add_terms(f, (sa, ma as u128, ea), (sb, mb as u128, eb), mode)
        }
    }
}

pub fn sub(f: Fmt, a: u64, b: u64, mode: Mode) -> u64 {
    if f.is_nan(b) {
        return add(f, a, b, mode);
    }
    add(f, a, b ^ f.sign_bit(), mode)
}

pub fn mul(f: Fmt, a: u64, b: u64, mode: Mode) -> u64 {
    match (unpack(f, a), unpack(f, b)) {
        (C::Nan, _) | (_, C::Nan) => nan_of(f, &[a, b]),
        (C::Inf(_), C::Zero(_)) | (C::Zero(_), C::Inf(_)) => nan_of(f, &[]),
        (C::Inf(x), C::Inf(y) | C::Fin(y, ..)) | (C::Fin(x, ..), C::Inf(y)) => f.inf(x != y),
        (C::Zero(x), C::Zero(y) | C::Fin(y, ..)) | (C::Fin(x, ..), C::Zero(y)) => f.zero(x != y),
        (C::Fin(sa, ma, ea), C::Fin(sb, mb, eb)) => {
            round(f, sa != sb, ma as u128 * mb as u128, ea + eb, mode)
        }
    }
}

/// Fused multiply-add `a * b + c` with a single rounding.
pub fn fma(f: Fmt, a: u64, b: u64, c: u64, mode: Mode) -> u64 {
    let (ua, ub, uc) = (unpack(f, a), unpack(f, b), unpack(f, c));
    if matches!(ua, C::Nan) || matches!(ub, C::Nan) || matches!(uc, C::Nan) {
        return nan_of(f, &[a, b, c]);
    }
    enum P {
        Inf(bool),
        Zero(bool),
        Fin(bool, u128, i32),
    }
    let p = match (ua, ub) {
        (C::Inf(_), C::Zero(_)) | (C::Zero(_), C::Inf(_)) => return nan_of(f, &[]),
        (C::Inf(x), C::Inf(y) | C::Fin(y, ..)) | (C::Fin(x, ..), C::Inf(y)) => P::Inf(x != y),
        (C::Zero(x), C::Zero(y) | C::Fin(y, ..)) | (C::Fin(x, ..), C::Zero(y)) => P::Zero(x != y),
        (C::Fin(sa, ma, ea), C::Fin(sb, mb, eb)) => {
            P::Fin(sa != sb, ma as u128 * mb as u128, ea + eb)
        }
        _ => unreachable!(),
    };
    match (p, uc) {
        (P::Inf(x), C::Inf(y)) => {
            if x == y {
                f.inf(x)
            } else {
                nan_of(f, &[])
            }
        }
        (P::Inf(x), _) | (_, C::Inf(x)) => f.inf(x),
        (P::Zero(x), C::Zero(y)) => f.zero(if x == y { x } else { mode == Mode::Rm }),
        (P::Zero(_), _) => c,
        (P::Fin(s, m, e), C::Zero(_)) => round(f, s, m, e, mode),
        (P::Fin(s, m, e), C::Fin(sc, mc, ec)) => {
            add_terms(f, (s, m, e), (sc, mc as u128, ec), mode)
        }
        (_, C::Nan) => unreachable!(),
    }
}

pub fn div(f: Fmt, a: u64, b: u64, mode: Mode) -> u64 {
    match (unpack(f, a), unpack(f, b)) {
        (C::Nan, _) | (_, C::Nan) => nan_of(f, &[a, b]),
        (C::Inf(_), C::Inf(_)) | (C::Zero(_), C::Zero(_)) => nan_of(f, &[]),
        (C::Inf(x), C::Zero(y) | C::Fin(y, ..)) | (C::Fin(x, ..), C::Zero(y)) => f.inf(x != y),
        (C::Zero(x) | C::Fin(x, ..), C::Inf(y)) | (C::Zero(x), C::Fin(y, ..)) => f.zero(x != y),
        (C::Fin(sa, ma, ea), C::Fin(sb, mb, eb)) => {
            // Numerator with its leading bit at 127: the quotient has >= 75 bits, and a nonzero
            // remainder becomes the sticky bit.
            let sh = (ma as u128).leading_zeros();
            let num = (ma as u128) << sh;
            let (q, r) = (num / mb as u128, num % mb as u128);
            round(f, sa != sb, q | (r != 0) as u128, ea - sh as i32 - eb, mode)
        }
    }
}

pub fn sqrt(f: Fmt, a: u64, mode: Mode) -> u64 {
    match unpack(f, a) {
        C::Nan => nan_of(f, &[a]),
        C::Zero(_) => a,
        C::Inf(false) => a,
        C::Inf(true) | C::Fin(true, ..) => nan_of(f, &[]),
        C::Fin(false, m, e) => {
            // Radicand m * 2^e with an even exponent and ~126 bits, so the root has >= 62.
            let mut m = m as u128;
            let mut e = e;
            let k = (m.leading_zeros() as i32 - 2) & !1;
            m <<= k;
            e -= k;
            if e & 1 != 0 {
                m <<= 1;
                e -= 1;
            }
            let r = m.isqrt();
            let exact = r * r == m;
            round(f, false, r | (!exact) as u128, e / 2, mode)
        }
    }
}

/// Converts between formats (widening is exact; narrowing rounds in `mode`).
pub fn convert(from: Fmt, to: Fmt, a: u64, mode: Mode) -> u64 {
    match unpack(from, a) {
        C::Nan => {
            if from == F64 && to == F64 {
                a
            } else {
                to.nan()
            }
        }
        C::Inf(x) => to.inf(x),
        C::Zero(x) => to.zero(x),
        C::Fin(s, m, e) => round(to, s, m as u128, e, mode),
    }
}

/// An integer value (magnitude and sign) rounded into `f`.
pub fn from_int(f: Fmt, neg: bool, mag: u128, mode: Mode) -> u64 {
    if mag == 0 {
        return 0;
    }
    round(f, neg, mag, 0, mode)
}

/// The value of an f16/bf16/f32 pattern as f64 (exact: every narrower value is an f64).
pub fn to_f64(f: Fmt, a: u64) -> f64 {
    f64::from_bits(convert(f, F64, a, Mode::Rn))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Mode::*;

    fn f32b(x: f32) -> u64 {
        x.to_bits() as u64
    }
    const ALL: [Mode; 4] = [Rn, Rz, Rm, Rp];

    #[test]
    fn halfway_and_directed_add_f32() {
        // 1 + 2^-24 lies exactly halfway between 1 and 1 + 2^-23 (0x3f800001).
        let one = 0x3f80_0000;
        let h = 0x3380_0000; // 2^-24
        assert_eq!(add(F32, one, h, Rn), 0x3f80_0000); // ties to even
        assert_eq!(add(F32, one, h, Rz), 0x3f80_0000);
        assert_eq!(add(F32, one, h, Rm), 0x3f80_0000);
        assert_eq!(add(F32, one, h, Rp), 0x3f80_0001);
        // (1 + 2^-23) + 2^-24: halfway, odd below -> rounds up to 1 + 2^-22 under Rn.
        assert_eq!(add(F32, 0x3f80_0001, h, Rn), 0x3f80_0002);
        // 2^127 + 2^-149: only a sticky bit survives; Rp must step up, Rn/Rz/Rm stay.
        let big = 0x7f00_0000;
        let tiny = 0x0000_0001;
        assert_eq!(add(F32, big, tiny, Rn), big);
        assert_eq!(add(F32, big, tiny, Rz), big);
        assert_eq!(add(F32, big, tiny, Rm), big);
        assert_eq!(add(F32, big, tiny, Rp), big + 1);
        // 2^127 - 2^-149: Rz/Rm step down to the predecessor 0x7effffff.
        assert_eq!(sub(F32, big, tiny, Rn), big);
        assert_eq!(sub(F32, big, tiny, Rz), big - 1);
        assert_eq!(sub(F32, big, tiny, Rm), big - 1);
        assert_eq!(sub(F32, big, tiny, Rp), big);
        // Negative operands mirror: -(2^127) - 2^-149 rounds to -(next) only under Rm.
        let nbig = big | 0x8000_0000;
        assert_eq!(sub(F32, nbig, tiny, Rm), nbig + 1);
        assert_eq!(sub(F32, nbig, tiny, Rp), nbig);
        assert_eq!(sub(F32, nbig, tiny, Rz), nbig);
    }

    #[test]
    fn exact_zero_signs() {
        let one = 0x3f80_0000u64;
        let mone = 0xbf80_0000u64;
        for m in [Rn, Rz, Rp] {
            assert_eq!(add(F32, one, mone, m), 0);
        }
        assert_eq!(add(F32, one, mone, Rm), 0x8000_0000);
        assert_eq!(add(F32, 0x8000_0000, 0x8000_0000, Rp), 0x8000_0000);
        assert_eq!(add(F32, 0, 0x8000_0000, Rn), 0);
        assert_eq!(add(F32, 0, 0x8000_0000, Rm), 0x8000_0000);
        // x * 0 keeps the xor of the signs.
        assert_eq!(mul(F32, mone, 0, Rn), 0x8000_0000);
        // fma: exact-zero sum of opposite-signed product and addend.
        assert_eq!(fma(F32, one, one, mone, Rm), 0x8000_0000);
        assert_eq!(fma(F32, one, one, mone, Rz), 0);
    }

    #[test]
    fn overflow_per_mode() {
        let max = 0x7f7f_ffffu64;
        // MAX * 2 overflows: Rn, Rp -> inf; Rz, Rm -> MAX (positive result).
        let two = 0x4000_0000;
        assert_eq!(mul(F32, max, two, Rn), 0x7f80_0000);
        assert_eq!(mul(F32, max, two, Rp), 0x7f80_0000);
        assert_eq!(mul(F32, max, two, Rz), max);
        assert_eq!(mul(F32, max, two, Rm), max);
        // Negative: Rm -> -inf, Rp/Rz -> -MAX.
        let nmax = max | 0x8000_0000;
        assert_eq!(mul(F32, nmax, two, Rm), 0xff80_0000);
        assert_eq!(mul(F32, nmax, two, Rp), nmax);
        assert_eq!(mul(F32, nmax, two, Rz), nmax);
        // MAX + half an ulp (2^103) is the rounding boundary: Rn ties to even -> inf (MAX is odd).
        assert_eq!(add(F32, max, 0x7300_0000, Rn), 0x7f80_0000);
        // MAX + 2^102 (a quarter ulp): Rn stays, Rp overflows.
        assert_eq!(add(F32, max, 0x7280_0000, Rn), max);
        assert_eq!(add(F32, max, 0x7280_0000, Rp), 0x7f80_0000);
        // f64: MAX + MAX.
        let dmax = f64::MAX.to_bits();
        assert_eq!(add(F64, dmax, dmax, Rz), dmax);
        assert_eq!(add(F64, dmax, dmax, Rn), f64::INFINITY.to_bits());
    }

    #[test]
    fn subnormals_and_underflow() {
        // 2^-149 * 0.5 = 2^-150: halfway between 0 and the least subnormal.
        let tiny = 1u64;
        let half = 0x3f00_0000;
        assert_eq!(mul(F32, tiny, half, Rn), 0); // tie to even (0)
        assert_eq!(mul(F32, tiny, half, Rp), 1);
        assert_eq!(mul(F32, tiny, half, Rz), 0);
        assert_eq!(mul(F32, tiny | 0x8000_0000, half, Rm), 0x8000_0001);
        assert_eq!(mul(F32, tiny | 0x8000_0000, half, Rz), 0x8000_0000);
        // 3 * 2^-149 * 0.5 = 1.5 * 2^-149: Rn -> 2 (even), Rz -> 1.
        assert_eq!(mul(F32, 3, half, Rn), 2);
        assert_eq!(mul(F32, 3, half, Rz), 1);
        // Largest subnormal + least subnormal = least normal (0x00800000), exactly.
        assert_eq!(add(F32, 0x007f_ffff, 1, Rz), 0x0080_0000);
        // f64 least subnormal squared: exact value 2^-2148 rounds to 0 or to 2^-1074.
        assert_eq!(mul(F64, 1, 1, Rn), 0);
        assert_eq!(mul(F64, 1, 1, Rp), 1);
    }

    #[test]
    fn nan_and_inf_rules() {
        let inf = 0x7f80_0000u64;
        let ninf = 0xff80_0000u64;
        assert_eq!(add(F32, inf, ninf, Rz), F32.nan());
        assert_eq!(mul(F32, inf, 0, Rp), F32.nan());
        assert_eq!(add(F32, inf, 0x3f80_0000, Rm), inf);
        assert_eq!(div(F32, 0x3f80_0000, 0, Rz), inf);
        assert_eq!(div(F32, 0x3f80_0000, 0x8000_0000, Rz), ninf);
        assert_eq!(div(F32, 0, 0, Rz), F32.nan());
        assert_eq!(sqrt(F32, 0xbf80_0000, Rp), F32.nan());
        assert_eq!(sqrt(F32, 0x8000_0000, Rp), 0x8000_0000);
        // f64 keeps the (quieted) payload of the first NaN operand.
        let snan = 0x7ff0_0000_0000_0001u64;
        assert_eq!(add(F64, snan, 0, Rz), 0x7ff8_0000_0000_0001);
        assert_eq!(mul(F32, 0x7fc0_1234, 0x3f80_0000, Rn), 0x7fff_ffff);
    }

    #[test]
    fn div_sqrt_directed() {
        // 1/3 = 0x3eaaaaaa.aaa...: Rn and Rz/Rm -> 0x3eaaaaab / 0x3eaaaaaa, Rp -> 0x3eaaaaab.
        let one = 0x3f80_0000;
        let three = 0x4040_0000;
        assert_eq!(div(F32, one, three, Rn), 0x3eaa_aaab);
        assert_eq!(div(F32, one, three, Rz), 0x3eaa_aaaa);
        assert_eq!(div(F32, one, three, Rm), 0x3eaa_aaaa);
        assert_eq!(div(F32, one, three, Rp), 0x3eaa_aaab);
        // sqrt(2) = 1.0110101000001001111001100110011111110011101111...b: f32 significand
        // 0x3fb504f3 is below (next bits 0011...), so Rn = Rz = Rm = 0x3fb504f3, Rp = ...f4.
        let two = 0x4000_0000;
        assert_eq!(sqrt(F32, two, Rn), 0x3fb5_04f3);
        assert_eq!(sqrt(F32, two, Rz), 0x3fb5_04f3);
        assert_eq!(sqrt(F32, two, Rp), 0x3fb5_04f4);
        // Exact: sqrt(4) = 2 in every mode; 6/3 = 2.
        for m in ALL {
            assert_eq!(sqrt(F32, 0x4080_0000, m), two);
            assert_eq!(div(F32, 0x40c0_0000, three, m), two);
        }
    }

    /// Round-to-nearest results must equal the host's IEEE arithmetic (correctly rounded by the
    /// IEEE standard), and directed results must bracket the exact value: for f32 products the
    /// exact value is an f64, so `Rm <= x <= Rp` with the two one ulp apart when inexact.
    #[test]
    fn agrees_with_host_ieee_and_brackets_exact_values() {
        let mut s = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..200_000 {
            let (a, b, c) = (next() as u32, next() as u32, next() as u32);
            let (fa, fb, fc) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let chk = |r: u64, h: f32| {
                if h.is_nan() {
                    assert!(F32.is_nan(r));
                } else {
                    assert_eq!(r as u32, h.to_bits(), "{fa:e} {fb:e} {fc:e}");
                }
            };
            let (a, b, c) = (a as u64, b as u64, c as u64);
            chk(add(F32, a, b, Rn), fa + fb);
            chk(mul(F32, a, b, Rn), fa * fb);
            chk(div(F32, a, b, Rn), fa / fb);
            chk(fma(F32, a, b, c, Rn), fa.mul_add(fb, fc));
            chk(sqrt(F32, a, Rn), fa.sqrt());
            let x = fa as f64 * fb as f64;
            if x.is_finite() && x.abs() < f32::MAX as f64 && x.abs() > 1e-37 {
                let lo = f32::from_bits(mul(F32, a, b, Rm) as u32) as f64;
                let hi = f32::from_bits(mul(F32, a, b, Rp) as u32) as f64;
                let z = f32::from_bits(mul(F32, a, b, Rz) as u32) as f64;
                assert!(lo <= x && x <= hi);
                if lo != hi {
                    assert_eq!((lo as f32).next_up(), hi as f32);
                } else {
                    assert_eq!(lo, x);
                }
                assert_eq!(z, if x > 0.0 { lo } else { hi });
            }
            let (da, db) = (next(), next());
            let (ga, gb) = (f64::from_bits(da), f64::from_bits(db));
            let chk64 = |r: u64, h: f64| {
                if h.is_nan() {
                    assert!(F64.is_nan(r));
                } else {
                    assert_eq!(r, h.to_bits(), "{ga:e} {gb:e}");
                }
            };
            chk64(add(F64, da, db, Rn), ga + gb);
            chk64(mul(F64, da, db, Rn), ga * gb);
            chk64(div(F64, da, db, Rn), ga / gb);
            chk64(sqrt(F64, da, Rn), ga.sqrt());
            let dc = next();
            chk64(fma(F64, da, db, dc, Rn), ga.mul_add(gb, f64::from_bits(dc)));
        }
    }

    #[test]
    fn conversions() {
        // 2^24 + 1 = 16777217 is not an f32: halfway between 2^24 and 2^24 + 2.
        let v = 16_777_217u128;
        assert_eq!(from_int(F32, false, v, Rn), 0x4b80_0000);
        assert_eq!(from_int(F32, false, v, Rz), 0x4b80_0000);
        assert_eq!(from_int(F32, false, v, Rp), 0x4b80_0001);
        assert_eq!(from_int(F32, true, v, Rm), 0xcb80_0001);
        // u64::MAX = 2^64 - 1: Rz -> largest f32 below 2^64 (0x5f7fffff), Rn -> 2^64.
        assert_eq!(from_int(F32, false, u64::MAX as u128, Rz), 0x5f7f_ffff);
        assert_eq!(from_int(F32, false, u64::MAX as u128, Rn), 0x5f80_0000);
        // f64 -> f32: 1 + 2^-24 + 2^-52 is just above halfway: Rn rounds up.
        let x = (1.0f64 + 2f64.powi(-24) + 2f64.powi(-52)).to_bits();
        assert_eq!(convert(F64, F32, x, Rn), 0x3f80_0001);
        assert_eq!(convert(F64, F32, x, Rz), 0x3f80_0000);
        // f64 above f32 MAX: Rz -> MAX, Rn -> inf.
        let big = 1e39f64.to_bits();
        assert_eq!(convert(F64, F32, big, Rz), 0x7f7f_ffff);
        assert_eq!(convert(F64, F32, big, Rn), 0x7f80_0000);
        // f32 -> f16: 65520 = 65504 + 16 is halfway to 2^16 (overflow) -> Rn gives inf; 65519 -> MAX.
        assert_eq!(convert(F32, F16, f32b(65520.0), Rn), 0x7c00);
        assert_eq!(convert(F32, F16, f32b(65519.0), Rn), 0x7bff);
        assert_eq!(convert(F32, F16, f32b(65520.0), Rz), 0x7bff);
        // f32 -> bf16: 1 + 2^-8 is halfway between 1 (0x3f80) and 0x3f81: ties to even.
        assert_eq!(convert(F32, BF16, f32b(1.0 + 1.0 / 256.0), Rn), 0x3f80);
        assert_eq!(convert(F32, BF16, f32b(1.0 + 3.0 / 256.0), Rn), 0x3f82);
        // f16 least subnormal 2^-24 -> f32 exactly.
        assert_eq!(convert(F16, F32, 1, Rn), 0x3380_0000);
        assert_eq!(to_f64(F16, 0x3c00), 1.0);
    }
}
