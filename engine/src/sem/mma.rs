//! What a tensor core computes for one element of `D = A * B + C` (ISA 9.7.14): the dot product
//! of a row of A and a column of B added to an element of C.
//!
//! The ISA leaves the floating-point accumulation's order, rounding and subnormal handling
//! unspecified; the hardware does not compute a chain of IEEE fmas. This module follows the
//! published bit-accurate model of the `mmasim` package (pinned in `scripts/oracles/`, which
//! generates the vectors `tests` checks against), its "truncated fused dot-product-add":
//!
//! - each product `a_i * b_i` is exact, and each term (the products and C) has the exponent
//!   of its inputs' normalised form (a subnormal input counts with the format's minimum
//!   exponent, a zero term with the architecture's `e_zero`);
//! - every term is aligned to the largest exponent `e_max` and truncated toward zero to `F`
//!   bits below it, the truncated terms are summed exactly;
//! - the sum is rounded once into D's type: toward zero for f32, to nearest even for f16;
//!   a zero is +0, a NaN the canonical all-ones pattern (0x7fffffff, 0x7fff), an overflow
//!   infinity;
//! - K is taken in blocks of `L` products (32 bytes of A's elements on Hopper, 16 on Ampere),
//!   each block's result, in D's type, the next block's C.
//!
//! `F`, `L` and `e_zero` are the architecture's ([`Arch`]): the emulated device's; `wgmma`'s
//! f8 kinds have their own (`F` = 13, an f32 result truncated to 13 fraction bits:
//! [`dot_wgmma_f8`]); so do sm_120a's `.kind::` forms, whose fp8/fp6/fp4 products (times
//! their block scale factors) the tensor core takes natively ([`dot_f8f6f4`],
//! [`dot_mxf8f6f4`], and [`dot_mxf4`], which sums groups of 16 fp4 products first). `.f64`
//! products are fmas in k order with the instruction's rounding; integer products are exact,
//! summed in 32 bits that wrap, or saturate with `.satfinite`.

use super::softfloat::{self as sf, Fmt, Mode};
use std::sync::atomic::{AtomicU8, Ordering};

/// Element types of the matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum El {
    F16,
    Bf16,
    /// An f32 pattern of which the tensor core reads the top 19 bits.
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    B1,
    S32,
    /// The 8-bit floats of `.kind::f8` (sm_89): e4m3 has no infinities and one NaN pattern
    /// per sign (0x7f/0xff); e5m2 is IEEE-like.
    E4m3,
    E5m2,
    /// The 6- and 4-bit floats of `.kind::f8f6f4` and `.kind::mxf8f6f4` (sm_120a), each in an
    /// 8-bit container: e3m2 and e2m3 in bits 5:0, e2m1 in bits 5:2, the rest padding. They
    /// have no infinities or NaN (OCP microscaling formats).
    E3m2,
    E2m3,
    E2m1,
    /// e2m1 packed two to a byte, low nibble first (`.kind::mxf4`, `.kind::mxf4nvf4`).
    E2m1x2,
}

impl El {
    pub fn bits(self) -> u32 {
        match self {
            El::F16 | El::Bf16 => 16,
            El::Tf32 | El::F32 | El::S32 => 32,
            El::F64 => 64,
            El::S8 | El::U8 | El::E4m3 | El::E5m2 | El::E3m2 | El::E2m3 | El::E2m1 => 8,
            El::S4 | El::U4 | El::E2m1x2 => 4,
            El::B1 => 1,
        }
    }

    /// Elements one 32-bit register holds (an f64 fills a 64-bit register alone).
    pub fn per_reg(self) -> u32 {
        match self {
            El::F64 => 1,
            t => 32 / t.bits(),
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            El::F16 => "f16",
            El::Bf16 => "bf16",
            El::Tf32 => "tf32",
            El::F32 => "f32",
            El::F64 => "f64",
            El::S8 => "s8",
            El::U8 => "u8",
            El::S4 => "s4",
            El::U4 => "u4",
            El::B1 => "b1",
            El::S32 => "s32",
            El::E4m3 => "e4m3",
            El::E5m2 => "e5m2",
            El::E3m2 => "e3m2",
            El::E2m3 => "e2m3",
            El::E2m1 | El::E2m1x2 => "e2m1",
        }
    }

    pub fn parse(w: &str) -> Option<El> {
        Some(match w {
            "f16" => El::F16,
            "bf16" => El::Bf16,
            "tf32" => El::Tf32,
            "f32" => El::F32,
            "f64" => El::F64,
            "s8" => El::S8,
            "u8" => El::U8,
            "s4" => El::S4,
            "u4" => El::U4,
            "b1" => El::B1,
            "s32" => El::S32,
            "e4m3" => El::E4m3,
            "e5m2" => El::E5m2,
            "e3m2" => El::E3m2,
            "e2m3" => El::E2m3,
            "e2m1" => El::E2m1,
            _ => return None,
        })
    }

    fn fmt(self) -> Fmt {
        match self {
            El::F16 => sf::F16,
            El::Bf16 => sf::BF16,
            El::F64 => sf::F64,
            El::E4m3 => Fmt { ebits: 4, mbits: 3 },
            El::E5m2 => Fmt { ebits: 5, mbits: 2 },
            El::E3m2 => Fmt { ebits: 3, mbits: 2 },
            El::E2m3 => Fmt { ebits: 2, mbits: 3 },
            El::E2m1 | El::E2m1x2 => Fmt { ebits: 2, mbits: 1 },
            _ => sf::F32,
        }
    }
}

/// The element types of one operation: A's, B's, C's and D's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Types {
    pub a: El,
    pub b: El,
    pub c: El,
    pub d: El,
}

/// The tensor-core generation whose arithmetic is emulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// sm_80 to sm_89.
    Ampere,
    /// sm_90 and the Blackwell parts (sm_100 and later), which share its parameters.
    Hopper,
}

impl Arch {
    /// The generation of compute capability `sm` (e.g. 90).
    pub fn of_sm(sm: u32) -> Arch {
        if sm >= 90 {
            Arch::Hopper
        } else {
            Arch::Ampere
        }
    }

    /// Bits kept below the largest exponent (`F`).
    fn f_bits(self) -> i32 {
        match self {
            Arch::Ampere => 24,
            Arch::Hopper => 25,
        }
    }

    /// Bytes of A's elements summed in one block (`L` elements).
    fn block_bytes(self) -> usize {
        match self {
            Arch::Ampere => 16,
            Arch::Hopper => 32,
        }
    }

    /// The exponent a zero term counts with, by D's type.
    fn e_zero(self, d: El) -> i32 {
        match (self, d) {
            (Arch::Ampere, El::F16) => -20,
            (Arch::Hopper, El::F16) => -21,
            (Arch::Ampere, _) => -132,
            (Arch::Hopper, _) => -133,
        }
    }
}

static ARCH: AtomicU8 = AtomicU8::new(1);

/// Sets the emulated device's generation (the driver does, from its profile).
pub fn set_arch(a: Arch) {
    ARCH.store(a as u8, Ordering::Relaxed);
}

pub fn arch() -> Arch {
    match ARCH.load(Ordering::Relaxed) {
        0 => Arch::Ampere,
        _ => Arch::Hopper,
    }
}

/// A term of the sum: `(-1)^neg * m * 2^x`, with the exponent `e` the model aligns it by.
#[derive(Clone, Copy)]
struct Term {
    neg: bool,
    m: u64,
    x: i32,
    e: i32,
}

/// A special value among the terms, which decides the result alone.
#[derive(Clone, Copy, PartialEq)]
enum Special {
    None,
    Inf(bool),
    Nan,
}

impl Special {
    fn add(self, o: Special) -> Special {
        match (self, o) {
            (Special::Nan, _) | (_, Special::Nan) => Special::Nan,
            (Special::Inf(a), Special::Inf(b)) if a != b => Special::Nan,
            (Special::Inf(a), _) | (_, Special::Inf(a)) => Special::Inf(a),
            _ => Special::None,
        }
    }
}

/// A multiplicand decoded once for the many dot products it takes part in (`decode_all`,
/// `dot_decoded`): an instruction's A row and B column each serve N or M elements of D.
#[derive(Clone, Copy)]
pub struct Decoded(Result<(bool, u64, i32, i32), Special>);

/// The elements `v` of type `t`, decoded.
pub fn decode_all(t: El, v: &[u64]) -> Vec<Decoded> {
    v.iter().map(|&x| Decoded(decode(t, x))).collect()
}

/// An input element: its value as `m * 2^x` and its normalised exponent, or a special.
fn decode(t: El, bits: u64) -> Result<(bool, u64, i32, i32), Special> {
    let bits = match t {
        El::Tf32 => bits & 0xffff_e000,
        // The containers' padding is ignored.
        El::E3m2 | El::E2m3 => bits & 0x3f,
        El::E2m1 => (bits >> 2) & 0xf,
        El::E2m1x2 => bits & 0xf,
        _ => bits,
    };
    let f = t.fmt();
    let neg = (bits >> (f.ebits + f.mbits)) & 1 != 0;
    let ef = (bits >> f.mbits) & ((1 << f.ebits) - 1);
    let fr = bits & ((1 << f.mbits) - 1);
    let bias = (1i32 << (f.ebits - 1)) - 1;
    if t == El::E4m3 {
        // No infinities: only S.1111.111 is NaN, the rest of the top binade is finite.
        if bits & 0x7f == 0x7f {
            return Err(Special::Nan);
        }
    } else if matches!(t, El::E3m2 | El::E2m3 | El::E2m1 | El::E2m1x2) {
        // Every pattern is finite.
    } else if ef == (1 << f.ebits) - 1 {
        return Err(if fr == 0 {
            Special::Inf(neg)
        } else {
            Special::Nan
        });
    }
    let emin = 1 - bias;
    if ef == 0 {
        Ok((neg, fr, emin - f.mbits as i32, emin))
    } else {
        let e = ef as i32 - bias;
        Ok((neg, fr | 1 << f.mbits, e - f.mbits as i32, e))
    }
}

/// The parameters of one truncated fused dot-product-add: `F`, the bits kept below the largest
/// exponent; `e_zero`; and the fraction bits an f32 result keeps (23, or 13 for wgmma's f8
/// kinds, whose sum is truncated to "E8M13"; an f16 result keeps its 10).
#[derive(Clone, Copy)]
struct Fdpa {
    f: i32,
    e_zero: i32,
    f32_bits: u32,
}

impl Arch {
    /// The parameters of this generation's `mma` for D's type `d`.
    fn fdpa(self, d: El) -> Fdpa {
        Fdpa {
            f: self.f_bits(),
            e_zero: self.e_zero(d),
            f32_bits: 23,
        }
    }
}

/// The terms of one block: the products `a_k * b_k`, each times `scale` (a scale factor's
/// `(m, x, e)`, or none), then C (of type `ct`). A zero term counts with `e_zero`. Returns the
/// number of terms written, or the special value that decides the sum.
fn terms_of(
    e_zero: i32,
    a: &[Decoded],
    b: &[Decoded],
    scale: Option<(u64, i32, i32)>,
    (ct, c): (El, u64),
    terms: &mut [Term],
) -> Result<usize, Special> {
    let mut special = Special::None;
    let mut n = 0;
    let (sm, sx, se) = scale.unwrap_or((1, 0, 0));
    for (x, y) in a.iter().zip(b) {
        match (x.0, y.0) {
            (Err(s), Err(t)) => special = special.add(mul_special(s, t)),
            (Err(s), Ok((ny, my, ..))) | (Ok((ny, my, ..)), Err(s)) => {
                // inf * 0 is NaN, inf * x an infinity; NaN stays NaN.
                special = special.add(match s {
                    Special::Inf(_) if my == 0 || sm == 0 => Special::Nan,
                    Special::Inf(sn) => Special::Inf(sn != ny),
                    s => s,
                })
            }
            (Ok((na, ma, xa, ea)), Ok((nb, mb, xb, eb))) => {
                let m = ma * mb * sm;
                terms[n] = Term {
                    neg: na != nb,
                    m,
                    x: xa + xb + sx,
                    e: if m == 0 { e_zero } else { ea + eb + se },
                };
                n += 1;
            }
        }
    }
    match decode(ct, c) {
        Err(s) => special = special.add(s),
        Ok((neg, m, x, e)) => {
            terms[n] = Term {
                neg,
                m,
                x,
                e: if m == 0 { e_zero } else { e },
            };
            n += 1;
        }
    }
    match special {
        Special::None => Ok(n),
        s => Err(s),
    }
}

const NO_TERM: Term = Term {
    neg: false,
    m: 0,
    x: 0,
    e: 0,
};

/// One block of the truncated fused dot-product-add (`t_fdpa` of the model).
fn block(p: Fdpa, t: Types, a: &[Decoded], b: &[Decoded], c: u64) -> u64 {
    if let Some(d) = block_finite(p, t, a, b, c) {
        return d;
    }
    let mut terms = [NO_TERM; 33];
    let n = terms_of(p.e_zero, a, b, None, (t.c, c), &mut terms);
    fused_sum(p, t.d, n.map(|n| &terms[..n]))
}

/// [`block`] where no input is special (NaN or infinite), the common case, in two passes over
/// the inputs instead of gathering [`Term`]s: the same terms (a zero product or C counts with
/// `e_zero`), the same truncation and sum as [`fused_sum`]. None where an input is special.
fn block_finite(p: Fdpa, t: Types, a: &[Decoded], b: &[Decoded], c: u64) -> Option<u64> {
    let (cn, cm, cx, ce) = decode(t.c, c).ok()?;
    let exp = |m: u64, e: i32| if m == 0 { p.e_zero } else { e };
    let mut e_max = exp(cm, ce);
    for (x, y) in a.iter().zip(b) {
        let (Ok((_, ma, _, ea)), Ok((_, mb, _, eb))) = (&x.0, &y.0) else {
            return None;
        };
        e_max = e_max.max(exp(ma * mb, ea + eb));
    }
    let mut sum = truncated(p.f, e_max, cn, cm, cx);
    for (x, y) in a.iter().zip(b) {
        if let (Ok((na, ma, xa, _)), Ok((nb, mb, xb, _))) = (&x.0, &y.0) {
            sum += truncated(p.f, e_max, na != nb, ma * mb, xa + xb);
        }
    }
    Some(round_sum(p, t.d, sum, e_max))
}

/// A term `m * 2^x` (negated when `neg`) truncated toward zero to a multiple of
/// `2^(e_max - f)`, in those units.
#[inline(always)]
fn truncated(f: i32, e_max: i32, neg: bool, m: u64, x: i32) -> i64 {
    let sh = x + f - e_max;
    // (A product is below 2^(e + 2), so sh < F + 2 bits above its top bit; a group of
    // block-scaled fp4 products, below 2^(e + 12), stays within 2^58.)
    let v = if m == 0 {
        0
    } else if sh >= 0 {
        (m << sh) as i64
    } else if sh > -64 {
        (m >> -sh) as i64
    } else {
        0
    };
    if neg {
        -v
    } else {
        v
    }
}

/// The sum of `terms` (or the special value among them) as the tensor core forms it: each
/// term truncated toward zero at `F` bits below the largest exponent, the truncated terms
/// summed exactly, the sum rounded once into `dt` (see the module's comment).
fn fused_sum(p: Fdpa, dt: El, terms: Result<&[Term], Special>) -> u64 {
    let out = dt.fmt();
    let terms = match terms {
        Ok(t) => t,
        Err(Special::Inf(neg)) => return out.inf(neg),
        Err(_) => return canonical_nan(dt),
    };
    let e_max = terms.iter().map(|t| t.e).max().unwrap_or(p.e_zero);
    // Each term truncated toward zero to multiples of 2^(e_max - F); the sum is exact.
    let sum = (terms.iter())
        .map(|t| truncated(p.f, e_max, t.neg, t.m, t.x))
        .sum();
    round_sum(p, dt, sum, e_max)
}

/// The exact `sum` of truncated terms, in units of `2^(e_max - F)`, rounded once into `dt`.
fn round_sum(p: Fdpa, dt: El, sum: i64, e_max: i32) -> u64 {
    let out = dt.fmt();
    if sum == 0 {
        return 0;
    }
    let (neg, mag) = (sum < 0, sum.unsigned_abs() as u128);
    let e = e_max - p.f;
    let mode = if dt == El::F16 { Mode::Rn } else { Mode::Rz };
    // An f32 result of fewer fraction bits is rounded in that narrower format (f32's exponent
    // range) and widened, exactly, to f32's.
    let (out, widen) = match dt {
        El::F32 if p.f32_bits < 23 => (
            Fmt {
                ebits: 8,
                mbits: p.f32_bits,
            },
            23 - p.f32_bits,
        ),
        _ => (out, 0),
    };
    let m = sf::round_mag(out, neg, mag, e, mode);
    let bits = if m == 0 {
        // A result that rounds to zero is +0 too.
        0
    } else if m >> out.mbits >= (1 << out.ebits) - 1 {
        // Past the largest finite value: infinity, in either rounding.
        out.inf(neg)
    } else {
        out.zero(neg) | m
    };
    bits << widen
}

fn mul_special(s: Special, t: Special) -> Special {
    match (s, t) {
        (Special::Inf(a), Special::Inf(b)) => Special::Inf(a != b),
        _ => Special::Nan,
    }
}

fn canonical_nan(t: El) -> u64 {
    match t {
        El::F16 => 0x7fff,
        _ => 0x7fff_ffff,
    }
}

/// One element of D for the floating-point types narrower than f64: `a` and `b` are the K
/// elements of A's row and B's column as bit patterns, `c` C's element.
pub fn dot(arch: Arch, t: Types, a: &[u64], b: &[u64], c: u64) -> u64 {
    dot_decoded(arch, t, &decode_all(t.a, a), &decode_all(t.b, b), c)
}

/// [`dot`] of multiplicands decoded by [`decode_all`].
pub fn dot_decoded(arch: Arch, t: Types, a: &[Decoded], b: &[Decoded], c: u64) -> u64 {
    let l = (arch.block_bytes() * 8 / t.a.bits() as usize)
        .min(a.len())
        .max(1);
    let mut acc = c;
    for (k, (x, y)) in a.chunks(l).zip(b.chunks(l)).enumerate() {
        // After the first block, C is the previous block's result, in D's type.
        let c = if k == 0 { t.c } else { t.d };
        acc = block(arch.fdpa(t.d), Types { c, ..t }, x, y, acc);
    }
    acc
}

/// One element of D for the f8 kinds (`.e4m3`/`.e5m2`, m16n8k16 and m16n8k32) as sm_90 runs
/// them: its `mma.sync` has no f8 path, and ptxas converts each pair of f8 elements to f16
/// (exactly) and issues two f16 mmas of half the K, the first on a zero accumulator and the
/// second on the first's result, then adds C with one IEEE addition in D's type (SASS read on
/// an H200: `F2FP.F16.E4M3.UNPACK_B`, two `HMMA.1688.F32` and an `FADD` for k16 f32, two
/// `HMMA.16816.F16` and an `HADD2` for k32 f16). The first mma takes the pairs with `k / 2`
/// even (fitted to an H200's answers, scripts/ground-truth/results/mma-dots-h200.txt).
pub fn dot_f8(arch: Arch, t: Types, a: &[u64], b: &[u64], c: u64) -> u64 {
    // Every e4m3 and e5m2 value is an f16 value; NaN becomes f16's canonical NaN.
    let to_f16 = |el: El, v: u64| match decode(el, v) {
        Ok((neg, m, x, _)) => sf::round(sf::F16, neg, m as u128, x, Mode::Rn),
        Err(Special::Inf(neg)) => sf::F16.inf(neg),
        Err(_) => 0x7fff,
    };
    // The pairs with `k / 2` even (`odd` 0) or odd, converted.
    let half = |odd: u64| -> (Vec<u64>, Vec<u64>) {
        (0..a.len())
            .filter(|k| (*k as u64 / 2) % 2 == odd)
            .map(|k| (to_f16(t.a, a[k]), to_f16(t.b, b[k])))
            .unzip()
    };
    let f16 = Types {
        a: El::F16,
        b: El::F16,
        ..t
    };
    let (a1, b1) = half(0);
    let (a2, b2) = half(1);
    let acc = Types { c: t.d, ..f16 };
    let d1 = dot(arch, acc, &a1, &b1, 0);
    let d2 = dot(arch, acc, &a2, &b2, d1);
    // C joins last, in one IEEE addition (FADD, or HADD2 for f16).
    sf::add(t.d.fmt(), c, d2, Mode::Rn)
}

/// One element of D for `wgmma.mma_async` with `.e4m3`/`.e5m2` multiplicands (sm_90a): unlike
/// `mma.sync` (see [`dot_f8`]), the tensor core takes them natively, in the same truncated
/// fused dot-product-add with its own parameters, those of mmasim 2.1.1's Hopper `WGMMA`
/// (`F` = 13, blocks of 32 products, Hopper's `e_zero`; an f16 D rounded to nearest, an
/// f32 D truncated to 13 fraction bits, "RZ-E8M13"). A sparse A's K/2 packed products are one
/// block, as `mma.sp` sums them. An H200 agreed on every element of
/// scripts/ground-truth/results/wgmma-h200.txt (NaNs, infinities, subnormals, cancellation).
pub fn dot_wgmma_f8(t: Types, a: &[Decoded], b: &[Decoded], c: u64) -> u64 {
    let p = Fdpa {
        f: 13,
        e_zero: Arch::Hopper.e_zero(t.d),
        f32_bits: 13,
    };
    a.chunks(32)
        .zip(b.chunks(32))
        .enumerate()
        .fold(c, |acc, (k, (x, y))| {
            let c = if k == 0 { t.c } else { t.d };
            block(p, Types { c, ..t }, x, y, acc)
        })
}

/// A 4- or 6-bit element (`bits`) in the byte the f8f6f4 kinds hold it in (ISA 9.7.14.5.14,
/// 9.7.16.10.4.1): e2m1 in bits 5:2, e3m2/e2m3 in bits 5:0.
pub fn container(e: u8, bits: u32) -> u8 {
    if bits == 4 {
        e << 2
    } else {
        e
    }
}

/// Decompression (ISA 9.7.16.9.1), in place: the 16-byte `chunk` holds 16 elements of `bits`
/// (4 or 6), the first in the lowest bits, then padding; each becomes its [`container`] byte.
pub fn decompress(chunk: &mut [u8], bits: u32) {
    let w = u128::from_le_bytes(chunk[..16].try_into().expect("a 16-byte chunk"));
    for (i, b) in chunk[..16].iter_mut().enumerate() {
        *b = container((w >> (bits * i as u32)) as u8 & ((1 << bits) - 1), bits);
    }
}

/// The parameters of the sm_120a `mma.sync` kinds, mmasim 2.1.1's "RTX Blackwell" (the only
/// devices with them): `F` = 25, the K of an instruction one block, Hopper's `e_zero`; D
/// truncated toward zero (f32) or rounded to nearest (f16).
const KIND_F8F6F4: Fdpa = Fdpa {
    f: 25,
    e_zero: -133,
    f32_bits: 23,
};

/// One element of D for `mma.sync.kind::f8f6f4` (m16n8k32, sm_120a): e4m3, e5m2, e3m2, e2m3
/// and e2m1 multiplicands taken natively (not through f16 as sm_90 runs the f8 kinds, see
/// [`dot_f8`]) in one truncated fused dot-product-add.
pub fn dot_f8f6f4(t: Types, a: &[u64], b: &[u64], c: u64) -> u64 {
    let p = Fdpa {
        e_zero: Arch::Hopper.e_zero(t.d),
        ..KIND_F8F6F4
    };
    block(p, t, &decode_all(t.a, a), &decode_all(t.b, b), c)
}

/// The element type of a block-scaled `mma`'s scale factors (`.stype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scale {
    /// A power of two, 2^(bits - 127); 0xff is NaN.
    Ue8m0,
    /// An e4m3 whose sign bit is ignored; 0x7f is NaN.
    Ue4m3,
}

impl Scale {
    pub fn parse(w: &str) -> Option<Scale> {
        match w {
            "ue8m0" => Some(Scale::Ue8m0),
            "ue4m3" => Some(Scale::Ue4m3),
            _ => None,
        }
    }

    /// The factor in byte `v` as `(m, x, e)`, value `m * 2^x` of normalised exponent `e` (a
    /// subnormal ue4m3 has e4m3's least), or None for NaN.
    fn decode(self, v: u8) -> Option<(u64, i32, i32)> {
        match self {
            Scale::Ue8m0 if v == 0xff => None,
            Scale::Ue8m0 => Some((1, v as i32 - 127, v as i32 - 127)),
            Scale::Ue4m3 => match decode(El::E4m3, (v & 0x7f) as u64) {
                Ok((_, m, x, e)) => Some((m, x, e)),
                Err(_) => None,
            },
        }
    }
}

/// A product of two scale factors, or None if either is NaN.
fn scale_product(st: Scale, sa: u8, sb: u8) -> Option<(u64, i32, i32)> {
    let (ma, xa, ea) = st.decode(sa)?;
    let (mb, xb, eb) = st.decode(sb)?;
    Some((ma * mb, xa + xb, ea + eb))
}

/// One element of D for `mma.sync.kind::mxf8f6f4.block_scale` (m16n8k32, one ue8m0 factor
/// for A's row, `sa`, and one for B's column, `sb`): mmasim's "scaled truncated" model, each
/// product times both factors exactly, then the sum of [`dot_f8f6f4`] (C is not scaled). A
/// NaN factor makes D NaN.
pub fn dot_mxf8f6f4(t: Types, a: &[u64], b: &[u64], c: u64, st: Scale, sa: u8, sb: u8) -> u64 {
    let Some(scale) = scale_product(st, sa, sb) else {
        return canonical_nan(t.d);
    };
    let mut terms = [NO_TERM; 33];
    let (da, db) = (decode_all(t.a, a), decode_all(t.b, b));
    let n = terms_of(
        KIND_F8F6F4.e_zero,
        &da,
        &db,
        Some(scale),
        (t.c, c),
        &mut terms,
    );
    fused_sum(KIND_F8F6F4, t.d, n.map(|n| &terms[..n]))
}

/// One element of D for `mma.sync.kind::mxf4.block_scale` and `.kind::mxf4nvf4` (m16n8k64,
/// packed e2m1, `sa`/`sb` the factors of A's row and B's column for each of the 2 or 4
/// chunks of K): mmasim's "grouped scaled truncated" model. Each group of 16 consecutive
/// products is summed exactly (fp4 products are small multiples of 1/4) and times its
/// chunk's two factors; that group term counts with the factors' exponent, or `e_zero` (-139)
/// when all its products are zero or a factor is; the group terms and C are aligned to the
/// largest exponent and truncated 35 bits below it, summed exactly and truncated to an f32.
/// A NaN factor makes D NaN.
pub fn dot_mxf4(t: Types, a: &[u64], b: &[u64], c: u64, st: Scale, sa: &[u8], sb: &[u8]) -> u64 {
    const G: usize = 16;
    let p = Fdpa {
        f: 35,
        e_zero: -139,
        f32_bits: 23,
    };
    let chunk = a.len() / sa.len().max(1);
    let mut terms = [NO_TERM; 5];
    let mut n = 0;
    for (g, (ga, gb)) in a.chunks(G).zip(b.chunks(G)).enumerate() {
        let q = g * G / chunk.max(1);
        let Some((sm, sx, se)) = scale_product(st, sa[q], sb[q]) else {
            return canonical_nan(t.d);
        };
        // The group's sum in units of 2^-2 (e2m1 values are multiples of 1/2).
        let (mut sum, mut all_zero) = (0i64, true);
        for (&x, &y) in ga.iter().zip(gb) {
            let (Ok((na, ma, xa, _)), Ok((nb, mb, xb, _))) = (decode(t.a, x), decode(t.b, y))
            else {
                unreachable!("e2m1 has no special values")
            };
            let v = ((ma * mb) << (xa + xb + 2)) as i64;
            all_zero &= v == 0;
            sum += if na != nb { -v } else { v };
        }
        terms[n] = Term {
            neg: sum < 0,
            m: sum.unsigned_abs() * sm,
            x: sx - 2,
            // A group whose products cancel keeps its exponent; only all-zero ones do not.
            e: if all_zero || sm == 0 { p.e_zero } else { se },
        };
        n += 1;
    }
    let c_term = match decode(t.c, c) {
        Err(s) => return fused_sum(p, t.d, Err(s)),
        Ok((neg, m, x, e)) => Term {
            neg,
            m,
            x,
            e: if m == 0 { p.e_zero } else { e },
        },
    };
    terms[n] = c_term;
    fused_sum(p, t.d, Ok(&terms[..n + 1]))
}

/// One element of D for `mma.m8n8k4` with `.f16` multiplicands (sm_70's quad-pair shape) as
/// sm_90 runs it: ptxas emulates it with f32 arithmetic (SASS read on an H200), the products
/// of f16 elements being exact in f32:
/// - an f32 D: `c + fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, +0))))`;
/// - an f16 D: `f16(f32(c) + fma(a1, b1, a0 * b0) + fma(a3, b3, a2 * b2))`, added left to
///   right, each step rounded to nearest in f32 and the sum once more to f16.
pub fn dot_m8n8k4_f16(t: Types, a: &[u64], b: &[u64], c: u64) -> u64 {
    let f32 = |v: u64| sf::convert(sf::F16, sf::F32, v, Mode::Rn);
    let (a, b): (Vec<u64>, Vec<u64>) = a.iter().zip(b).map(|(&x, &y)| (f32(x), f32(y))).unzip();
    let c = if t.c == El::F16 { f32(c) } else { c };
    let fma = |x: u64, y: u64, z: u64| sf::fma(sf::F32, x, y, z, Mode::Rn);
    if t.d == El::F32 {
        let s = (0..4).fold(0, |acc, k| fma(a[k], b[k], acc));
        sf::add(sf::F32, c, s, Mode::Rn)
    } else {
        let lo = fma(a[1], b[1], sf::mul(sf::F32, a[0], b[0], Mode::Rn));
        let hi = fma(a[3], b[3], sf::mul(sf::F32, a[2], b[2], Mode::Rn));
        let s = sf::add(sf::F32, sf::add(sf::F32, c, lo, Mode::Rn), hi, Mode::Rn);
        sf::convert(sf::F32, sf::F16, s, Mode::Rn)
    }
}

/// One element of D for `.f64`: fmas in k order, each rounded in `mode`. NaNs follow the
/// GPU's f64 tensor path (an H200 agreed with mmasim's x86 fma on every vector): a NaN operand
/// comes out quieted, the first of a, b and the accumulator; an invalid operation (inf * 0,
/// inf - inf) gives 0xfff8000000000000, not the 0x7fffffffffffffff of `fma.f64`.
pub fn dot_f64(a: &[u64], b: &[u64], c: u64, mode: Mode) -> u64 {
    let nan = |v: u64| f64::from_bits(v).is_nan();
    a.iter().zip(b).fold(c, |acc, (&x, &y)| {
        if let Some(&n) = [x, y, acc].iter().find(|&&v| nan(v)) {
            return n | 1 << 51;
        }
        let r = sf::fma(sf::F64, x, y, acc, mode);
        if nan(r) {
            0xfff8_0000_0000_0000
        } else {
            r
        }
    })
}

/// The value of an integer element of type `t` held in the low bits of `v`.
pub fn int_value(t: El, v: u64) -> i64 {
    match t {
        El::S8 => v as u8 as i8 as i64,
        El::U8 => v as u8 as i64,
        El::S4 => ((v as u8) << 4) as i8 as i64 >> 4,
        El::U4 => (v & 0xf) as i64,
        El::B1 => (v & 1) as i64,
        _ => v as u32 as i32 as i64,
    }
}

/// One element of D for the integer types: exact products summed with C, then wrapped to 32
/// bits, or clamped with `.satfinite`.
pub fn dot_int(at: El, bt: El, a: &[u64], b: &[u64], c: u64, sat: bool) -> u64 {
    let s: i64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| int_value(at, x) * int_value(bt, y))
        .sum::<i64>()
        + c as u32 as i32 as i64;
    let r = if sat {
        s.clamp(i32::MIN as i64, i32::MAX as i64)
    } else {
        s
    };
    r as u32 as u64
}

/// The single-bit operation of `.b1` products.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    Xor,
    And,
}

/// One element of D for `.b1`: the population count of `op` over the K bits, plus C.
pub fn dot_b1(op: BitOp, a: &[u64], b: &[u64], c: u64) -> u64 {
    let n: u32 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| match op {
            BitOp::Xor => (x ^ y) as u32 & 1,
            BitOp::And => (x & y) as u32 & 1,
        })
        .sum();
    (c as u32).wrapping_add(n) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u64> {
        s.split(',')
            .map(|w| u64::from_str_radix(w, 16).unwrap())
            .collect()
    }

    /// Every vector of `scripts/oracles/mma-mmasim.txt`: mmasim 2.1.1's model (see the file's
    /// header for how it was made), recomputed here bit for bit.
    /// Every dot product an H200 answered (scripts/ground-truth/results/mma-dots-h200.txt: the
    /// mmasim vectors' Hopper inputs, f8 kinds and m8n8k4 f16 at random and by design),
    /// recomputed here bit for bit.
    #[test]
    fn dot_products_match_an_h200() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/ground-truth/results/mma-dots-h200.txt"
        );
        let text = std::fs::read_to_string(path).expect("the GPU's answers");
        let (mut n, mut bad) = (0, Vec::new());
        for line in text.lines().filter(|l| l.starts_with("gpu ")) {
            let w: Vec<&str> = line.split_whitespace().collect();
            let ty: Vec<&str> = w[1].split('.').collect();
            let [shape, dt, at, bt, ct] = ty[..] else {
                panic!("{line}")
            };
            let [d, a_ty, b_ty, c_ty] = [dt, at, bt, ct].map(|t| El::parse(t).unwrap());
            let t = Types {
                a: a_ty,
                b: b_ty,
                c: c_ty,
                d,
            };
            let (a, b) = (hex(w[2]), hex(w[3]));
            let c = u64::from_str_radix(w[4], 16).unwrap();
            let want = u64::from_str_radix(w[5], 16).unwrap();
            let got = match a_ty {
                El::F64 => dot_f64(&a, &b, c, Mode::Rn),
                El::E4m3 | El::E5m2 => dot_f8(Arch::Hopper, t, &a, &b, c),
                El::F16 if shape == "m8n8k4" => dot_m8n8k4_f16(t, &a, &b, c),
                _ => dot(Arch::Hopper, t, &a, &b, c),
            };
            n += 1;
            if got != want {
                bad.push(format!("{line}: got {got:x}"));
            }
        }
        assert!(n > 5000, "{n} vectors");
        assert!(
            bad.is_empty(),
            "{} of {n} differ:\n{}",
            bad.len(),
            bad[..bad.len().min(10)].join("\n")
        );
    }

    #[test]
    fn dot_products_match_mmasim() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/oracles/mma-mmasim.txt"
        );
        let text = std::fs::read_to_string(path).expect("the oracle's vectors");
        let (mut n, mut bad) = (0, Vec::new());
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let w: Vec<&str> = line.split_whitespace().collect();
            let arch = match w[0] {
                "Ampere" => Arch::Ampere,
                "Hopper" => Arch::Hopper,
                a => panic!("architecture {a}"),
            };
            let ty: Vec<&str> = w[1].split('.').collect();
            let [_, dt, at, bt, ct] = ty[..] else {
                panic!("{line}")
            };
            let [dt, at, bt, ct] = [dt, at, bt, ct].map(|t| El::parse(t).unwrap());
            let (a, b) = (hex(w[2]), hex(w[3]));
            let c = u64::from_str_radix(w[4], 16).unwrap();
            let want = u64::from_str_radix(w[5], 16).unwrap();
            let got = if at == El::F64 {
                dot_f64(&a, &b, c, Mode::Rn)
            } else {
                dot(
                    arch,
                    Types {
                        a: at,
                        b: bt,
                        c: ct,
                        d: dt,
                    },
                    &a,
                    &b,
                    c,
                )
            };
            n += 1;
            if got != want {
                bad.push(format!("{line}: got {got:x}"));
            }
        }
        assert!(n > 1000, "{n} vectors");
        assert!(
            bad.is_empty(),
            "{} of {n} differ:\n{}",
            bad.len(),
            bad[..bad.len().min(10)].join("\n")
        );
    }

    #[test]
    fn integer_products_wrap_or_saturate() {
        // 127 * 127 * 16 + i32::MAX wraps; with .satfinite it stays i32::MAX.
        let a = [0x7f; 16];
        let c = i32::MAX as u32 as u64;
        assert_eq!(
            dot_int(El::S8, El::S8, &a, &a, c, false),
            (i32::MAX as i64 + 127 * 127 * 16) as u32 as u64
        );
        assert_eq!(dot_int(El::S8, El::S8, &a, &a, c, true), c);
        // u8 255 * s8 -1 = -255, per element.
        assert_eq!(
            dot_int(El::U8, El::S8, &[0xff], &[0xff], 0, false),
            (-255i32) as u32 as u64
        );
        assert_eq!(
            dot_int(El::S4, El::U4, &[0x8], &[0xf], 1, false),
            (-120i32 + 1) as u32 as u64
        );
        assert_eq!(dot_b1(BitOp::Xor, &[1, 0, 1], &[1, 1, 0], 5), 7);
        assert_eq!(dot_b1(BitOp::And, &[1, 0, 1], &[1, 1, 0], 5), 6);
    }
}
