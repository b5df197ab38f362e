//! Integer arithmetic: the lane functions of the integer ops, per operation and type.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IBin {
    Add,
    Sub,
    AddSat,
    SubSat,
    MulLo,
    MulHi,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// Upper half of the full product, for every width (the widening is exact in i128/u128).
pub trait MulHi: Copy {
    fn mul_hi(self, o: Self) -> Self;
}
macro_rules! mulhi {
    ($($t:ty => $w:ty, $bits:expr);*) => {$(
        impl MulHi for $t {
            #[inline(always)]
            fn mul_hi(self, o: Self) -> Self { ((self as $w * o as $w) >> $bits) as $t }
        }
    )*};
}
mulhi!(u16 => u32, 16; i16 => i32, 16; u32 => u64, 32; i32 => i64, 32; u64 => u128, 64; i64 => i128, 64);

macro_rules! ib_add {
    ($t:ty) => {
        f2!($t, |a, b| a.wrapping_add(b))
    };
}
macro_rules! ib_sub {
    ($t:ty) => {
        f2!($t, |a, b| a.wrapping_sub(b))
    };
}
macro_rules! ib_adds {
    ($t:ty) => {
        f2!($t, |a, b| a.saturating_add(b))
    };
}
macro_rules! ib_subs {
    ($t:ty) => {
        f2!($t, |a, b| a.saturating_sub(b))
    };
}
macro_rules! ib_mul {
    ($t:ty) => {
        f2!($t, |a, b| a.wrapping_mul(b))
    };
}
macro_rules! ib_mulhi {
    ($t:ty) => {
        f2!($t, |a, b| a.mul_hi(b))
    };
}
// Division by zero is undefined in PTX; hardware yields all ones for unsigned. Never trap.
macro_rules! ib_div {
    ($t:ty) => {
        f2!($t, |a, b| if b == 0 { !0 } else { a.wrapping_div(b) })
    };
}
macro_rules! ib_rem {
    ($t:ty) => {
        f2!($t, |a, b| if b == 0 { a } else { a.wrapping_rem(b) })
    };
}
macro_rules! ib_min {
    ($t:ty) => {
        f2!($t, |a, b| a.min(b))
    };
}
macro_rules! ib_max {
    ($t:ty) => {
        f2!($t, |a, b| a.max(b))
    };
}
macro_rules! ib_and {
    ($t:ty) => {
        f2!($t, |a, b| a & b)
    };
}
macro_rules! ib_or {
    ($t:ty) => {
        f2!($t, |a, b| a | b)
    };
}
macro_rules! ib_xor {
    ($t:ty) => {
        f2!($t, |a, b| a ^ b)
    };
}
// Shift amounts are unsigned 32-bit; amounts past the width give 0 (or the sign for shr.s).
macro_rules! ib_shl {
    ($t:ty) => {
        f2!($t, u32, |a, b| if b >= <$t>::BITS { 0 } else { a << b })
    };
}
macro_rules! ib_shr {
    ($t:ty) => {
        f2!($t, u32, |a, b| a
            >> b.min(<$t>::BITS - 1)
            >> ((b >= <$t>::BITS) as u32))
    };
}

pub fn int_bin(op: IBin, t: Scalar) -> Option<BinFn> {
    match op {
        IBin::Add => by_int!(t, ib_add!()),
        IBin::Sub => by_int!(t, ib_sub!()),
        IBin::AddSat => by_int!(t, ib_adds!()),
        IBin::SubSat => by_int!(t, ib_subs!()),
        IBin::MulLo => by_int!(t, ib_mul!()),
        IBin::MulHi => by_int!(t, ib_mulhi!()),
        IBin::Div => by_int!(t, ib_div!()),
        IBin::Rem => by_int!(t, ib_rem!()),
        IBin::Min => by_int!(t, ib_min!()),
        IBin::Max => by_int!(t, ib_max!()),
        IBin::And => by_int!(t, ib_and!()),
        IBin::Or => by_int!(t, ib_or!()),
        IBin::Xor => by_int!(t, ib_xor!()),
        IBin::Shl => by_int!(t, ib_shl!()),
        IBin::Shr => by_int!(t, ib_shr!()),
    }
}

/// `mul.wide`: the full product of two `bits`-wide values, in twice the width.
pub fn mul_wide(t: Scalar) -> Option<BinFn> {
    Some(match t.int().unwrap_or((0, false)) {
        (16, false) => f2!(u16, |a, b| a as u32 * b as u32),
        (16, true) => f2!(i16, |a, b| a as i32 * b as i32),
        (32, false) => f2!(u32, |a, b| a as u64 * b as u64),
        (32, true) => f2!(i32, |a, b| a as i64 * b as i64),
        _ => return None,
    })
}

/// `mad.wide`: full product plus a double-width addend.
pub fn mad_wide(t: Scalar) -> Option<TerFn> {
    Some(match t.int().unwrap_or((0, false)) {
        (16, false) => f3!(u16, u16, u32, |a, b, c| (a as u32 * b as u32)
            .wrapping_add(c)),
        (16, true) => f3!(i16, i16, i32, |a, b, c| (a as i32 * b as i32)
            .wrapping_add(c)),
        (32, false) => f3!(u32, u32, u64, |a, b, c| (a as u64 * b as u64)
            .wrapping_add(c)),
        (32, true) => f3!(i32, i32, i64, |a, b, c| (a as i64 * b as i64)
            .wrapping_add(c)),
        _ => return None,
    })
}

macro_rules! it_madlo {
    ($t:ty) => {
        f3!($t, |a, b, c| a.wrapping_mul(b).wrapping_add(c))
    };
}
macro_rules! it_madhi {
    ($t:ty) => {
        f3!($t, |a, b, c| a.mul_hi(b).wrapping_add(c))
    };
}
pub fn mad_lo(t: Scalar) -> Option<TerFn> {
    by_int!(t, it_madlo!())
}
pub fn mad_hi(t: Scalar) -> Option<TerFn> {
    by_int!(t, it_madhi!())
}
/// `mad.hi.sat.s32`: saturate the 32-bit sum.
pub fn mad_hi_sat_s32() -> TerFn {
    f3!(i32, |a, b, c| a.mul_hi(b).saturating_add(c))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IUn {
    Neg,
    Abs,
    Not,
    Cnot,
    Popc,
    Clz,
    Brev,
}
macro_rules! iu_neg {
    ($t:ty) => {
        f1!($t, |a| a.wrapping_neg())
    };
}
macro_rules! iu_abs {
    ($t:ty) => {
        f1!($t, |a| if a < (0 as $t) { a.wrapping_neg() } else { a })
    };
}
macro_rules! iu_not {
    ($t:ty) => {
        f1!($t, |a| !a)
    };
}
macro_rules! iu_cnot {
    ($t:ty) => {
        f1!($t, |a| (a == 0) as $t)
    };
}
macro_rules! iu_popc {
    ($t:ty) => {
        f1!($t, |a| a.count_ones())
    };
}
macro_rules! iu_clz {
    ($t:ty) => {
        f1!($t, |a| a.leading_zeros())
    };
}
macro_rules! iu_brev {
    ($t:ty) => {
        f1!($t, |a| a.reverse_bits())
    };
}
pub fn int_un(op: IUn, t: Scalar) -> Option<UnFn> {
    match op {
        IUn::Neg => by_int!(t, iu_neg!()),
        IUn::Abs => by_int!(t, iu_abs!()),
        IUn::Not => by_int!(t, iu_not!()),
        IUn::Cnot => by_int!(t, iu_cnot!()),
        IUn::Popc => by_int!(t, iu_popc!()),
        IUn::Clz => by_int!(t, iu_clz!()),
        IUn::Brev => by_int!(t, iu_brev!()),
    }
}
pub fn not_pred() -> UnFn {
    f1!(bool, |a| !a)
}
/// Copies the low `bits` bits (mov): zero-extends so upper bits never leak.
pub fn mov(bits: u32) -> UnFn {
    match bits {
        1 => f1!(bool, |a| a),
        8 => f1!(u8, |a| a),
        16 => f1!(u16, |a| a),
        32 => f1!(u32, |a| a),
        _ => f1!(u64, |a| a),
    }
}
pub fn selp(bits: u32) -> TerFn {
    match bits {
        16 => f3!(u16, u16, bool, |a, b, c| if c { a } else { b }),
        32 => f3!(u32, u32, bool, |a, b, c| if c { a } else { b }),
        _ => f3!(u64, u64, bool, |a, b, c| if c { a } else { b }),
    }
}

/// bfe: extract `len` bits from `pos` (both clamped to 0..=255), sign-extended when signed.
pub fn bfe(t: Scalar) -> Option<TerFn> {
    fn ext<const BITS: u32, const SIGNED: bool>(a: u64, pos: u32, len: u32) -> u64 {
        let (pos, len) = (pos & 0xff, len & 0xff);
        let msb = if len == 0 {
            0
        } else {
            (pos + len - 1).min(BITS - 1)
        };
        let sbit = if SIGNED {
            if len == 0 {
                false
            } else {
                (a >> msb) & 1 != 0
            }
        } else {
            false
        };
        let mut d = 0u64;
        for i in 0..BITS {
            let bit = if i < len && pos + i < BITS {
                (a >> (pos + i)) & 1 != 0
            } else {
                sbit
            };
            d |= (bit as u64) << i;
        }
        d
    }
    Some(match t.int().unwrap_or((0, false)) {
        (32, false) => f3!(u32, u32, u32, |a, b, c| ext::<32, false>(a as u64, b, c)
            as u32),
        (32, true) => f3!(u32, u32, u32, |a, b, c| ext::<32, true>(a as u64, b, c)
            as u32),
        (64, false) => f3!(u64, u32, u32, |a, b, c| ext::<64, false>(a, b, c)),
        (64, true) => f3!(u64, u32, u32, |a, b, c| ext::<64, true>(a, b, c)),
        _ => return None,
    })
}

/// bfi: insert the low `len` bits of `a` into `b` at `pos`.
pub fn bfi(bits: u32) -> Option<QuadFn> {
    fn ins(bits: u32, a: u64, b: u64, pos: u32, len: u32) -> u64 {
        let (pos, len) = (pos & 0xff, len & 0xff);
        let mut f = b;
        for i in 0..len {
            if pos + i >= bits {
                break;
            }
            f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
        }
        f
    }
    fn q32(a: &Lanes, b: &Lanes, c: &Lanes, d: &Lanes, o: &mut Lanes) {
        for i in 0..32 {
            o[i] = ins(
                32,
                a[i] as u32 as u64,
                b[i] as u32 as u64,
                c[i] as u32,
                d[i] as u32,
            );
        }
    }
    fn q64(a: &Lanes, b: &Lanes, c: &Lanes, d: &Lanes, o: &mut Lanes) {
        for i in 0..32 {
            o[i] = ins(64, a[i], b[i], c[i] as u32, d[i] as u32);
        }
    }
    match bits {
        32 => Some(q32),
        64 => Some(q64),
        _ => None,
    }
}

/// prmt (default mode): pick 4 bytes of {b, a} by the selector nibbles of c; bit 3 of a nibble
/// replicates the sign of the chosen byte.
pub fn prmt() -> TerFn {
    f3!(u32, |a, b, c| {
        let x = ((b as u64) << 32) | a as u64;
        let mut d = 0u32;
        for i in 0..4 {
            let sel = (c >> (4 * i)) & 0xf;
            let byte = (x >> (8 * (sel & 7))) as u8;
            let v = if sel & 8 != 0 {
                if byte & 0x80 != 0 {
                    0xff
                } else {
                    0
                }
            } else {
                byte
            };
            d |= (v as u32) << (8 * i);
        }
        d
    })
}

/// shf.l / shf.r on the 64-bit concatenation {b, a}; `clamp` limits the amount to 32, else it
/// wraps modulo 32.
pub fn shf(left: bool, clamp: bool) -> TerFn {
    match (left, clamp) {
        (true, true) => f3!(u32, |a, b, c| {
            let n = c.min(32);
            ((((b as u64) << 32 | a as u64) << n) >> 32) as u32
        }),
        (true, false) => f3!(u32, |a, b, c| {
            let n = c & 31;
            ((((b as u64) << 32 | a as u64) << n) >> 32) as u32
        }),
        (false, true) => f3!(u32, |a, b, c| {
            let n = c.min(32);
            (((b as u64) << 32 | a as u64) >> n) as u32
        }),
        (false, false) => f3!(u32, |a, b, c| {
            let n = c & 31;
            (((b as u64) << 32 | a as u64) >> n) as u32
        }),
    }
}

/// lop3: the truth table `lut` applied bitwise to a, b, c (the LUT is a per-instruction
/// immediate, so the op takes it as a fourth operand).
pub fn lop3(bits: u32) -> QuadFn {
    fn l(a: u64, b: u64, c: u64, lut: u64) -> u64 {
        let mut r = 0;
        for k in 0..8u64 {
            if (lut >> k) & 1 != 0 {
                let ma = if k & 4 != 0 { a } else { !a };
                let mb = if k & 2 != 0 { b } else { !b };
                let mc = if k & 1 != 0 { c } else { !c };
                r |= ma & mb & mc;
            }
        }
        r
    }
    fn q32(a: &Lanes, b: &Lanes, c: &Lanes, d: &Lanes, o: &mut Lanes) {
        for i in 0..32 {
            o[i] = l(a[i], b[i], c[i], d[i]) as u32 as u64;
        }
    }
    fn q64(a: &Lanes, b: &Lanes, c: &Lanes, d: &Lanes, o: &mut Lanes) {
        for i in 0..32 {
            o[i] = l(a[i], b[i], c[i], d[i]);
        }
    }
    if bits == 64 {
        q64
    } else {
        q32
    }
}

// ---- integer family: mul24, sad, bfind, fns, szext, bmsk, dp4a, dp2a, prmt modes ----

/// The low 24 bits of a 32-bit register, sign-extended for signed types.
#[inline(always)]
fn low24(v: u32, signed: bool) -> i64 {
    if signed {
        ((v << 8) as i32 >> 8) as i64
    } else {
        (v & 0xff_ffff) as i64
    }
}

/// mul24 / mad24: the 48-bit product of 24-bit operands; `.hi` takes bits 47..16, `.lo` 31..0.
pub fn mul24(hi: bool, signed: bool) -> BinFn {
    match (hi, signed) {
        (false, false) => f2!(u32, |a, b| (low24(a, false) * low24(b, false)) as u32),
        (false, true) => f2!(u32, |a, b| (low24(a, true) * low24(b, true)) as u32),
        (true, false) => f2!(u32, |a, b| ((low24(a, false) * low24(b, false)) >> 16)
            as u32),
        (true, true) => f2!(u32, |a, b| ((low24(a, true) * low24(b, true)) >> 16) as u32),
    }
}
pub fn mad24(hi: bool, signed: bool) -> TerFn {
    match (hi, signed) {
        (false, false) => f3!(u32, |a, b, c| ((low24(a, false) * low24(b, false)) as u32)
            .wrapping_add(c)),
        (false, true) => f3!(u32, |a, b, c| ((low24(a, true) * low24(b, true)) as u32)
            .wrapping_add(c)),
        (true, false) => f3!(u32, |a, b, c| (((low24(a, false) * low24(b, false)) >> 16)
            as u32)
            .wrapping_add(c)),
        (true, true) => f3!(u32, |a, b, c| (((low24(a, true) * low24(b, true)) >> 16)
            as u32)
            .wrapping_add(c)),
    }
}

/// `mad24.hi.sat.s32`: bits 47..16 of the signed 48-bit product, plus c, clamped to
/// MININT..MAXINT (ISA 9.7.1.9: `.sat` applies only to `.s32` in `.hi` mode).
pub fn mad24_hi_sat() -> TerFn {
    f3!(i32, |a, b, c| {
        (((low24(a as u32, true) * low24(b as u32, true)) >> 16) as i32).saturating_add(c)
    })
}

macro_rules! it_sad {
    ($t:ty) => {
        f3!($t, |a, b, c| c.wrapping_add(if a < b {
            b.wrapping_sub(a)
        } else {
            a.wrapping_sub(b)
        }))
    };
}
/// sad: `c + |a - b|`.
pub fn sad(t: Scalar) -> Option<TerFn> {
    by_int!(t, it_sad!())
}

/// bfind: the position of the most significant non-sign bit (0xffffffff if none); `.shiftamt`
/// returns the left shift that would bring it to the top instead.
pub fn bfind(t: Scalar, shiftamt: bool) -> Option<UnFn> {
    fn f(a: u64, bits: u32, signed: bool, shiftamt: bool) -> u32 {
        let msb = bits - 1;
        let mut a = a & (u64::MAX >> (64 - bits));
        if signed && (a >> msb) & 1 != 0 {
            a = !a & (u64::MAX >> (64 - bits));
        }
        if a == 0 {
            return u32::MAX;
        }
        let d = 63 - a.leading_zeros();
        if shiftamt {
            msb - d
        } else {
            d
        }
    }
    let (bits, signed) = t.int().unwrap_or((0, false));
    Some(match (bits, signed, shiftamt) {
        (32, false, false) => f1!(u64, |a| f(a, 32, false, false)),
        (32, false, true) => f1!(u64, |a| f(a, 32, false, true)),
        (32, true, false) => f1!(u64, |a| f(a, 32, true, false)),
        (32, true, true) => f1!(u64, |a| f(a, 32, true, true)),
        (64, false, false) => f1!(u64, |a| f(a, 64, false, false)),
        (64, false, true) => f1!(u64, |a| f(a, 64, false, true)),
        (64, true, false) => f1!(u64, |a| f(a, 64, true, false)),
        (64, true, true) => f1!(u64, |a| f(a, 64, true, true)),
        _ => return None,
    })
}

/// fns: the position of the `offset`-th set bit of `mask` counting from `base` (up for positive
/// offsets, down for negative), 0xffffffff if there is none.
pub fn fns() -> TerFn {
    f3!(u32, u32, i32, |mask, base, offset| {
        let bit = |p: i64| (0..32).contains(&p) && (mask >> p) & 1 != 0;
        let base = base as i64;
        if offset == 0 {
            return if bit(base) { base as u32 } else { u32::MAX };
        }
        let inc = if offset > 0 { 1 } else { -1 };
        let mut count = offset.unsigned_abs() - 1;
        let mut pos = base;
        while (0..32).contains(&pos) {
            if bit(pos) {
                if count == 0 {
                    return pos as u32;
                }
                count -= 1;
            }
            pos += inc;
        }
        u32::MAX
    })
}

/// szext: sign- or zero-extend the low `b` bits of `a` (`.clamp`: b >= 32 keeps `a`; `.wrap`:
/// b is taken modulo 32).
pub fn szext(signed: bool, clamp: bool) -> BinFn {
    fn f(a: u32, b: u32, signed: bool, clamp: bool) -> u32 {
        let b1 = b & 0x1f;
        let too_large = b >= 32 && clamp;
        let mask = if too_large { 0 } else { !0u32 << b1 };
        let sign_pos = b1.wrapping_sub(1) & 0x1f;
        let sign = !(b1 == 0 || too_large || !signed) && (a >> sign_pos) & 1 != 0;
        (a & !mask) | if sign { mask } else { 0 }
    }
    match (signed, clamp) {
        (false, false) => f2!(u32, |a, b| f(a, b, false, false)),
        (false, true) => f2!(u32, |a, b| f(a, b, false, true)),
        (true, false) => f2!(u32, |a, b| f(a, b, true, false)),
        (true, true) => f2!(u32, |a, b| f(a, b, true, true)),
    }
}

/// bmsk: a mask of `b` ones starting at bit `a`, by the ISA's semantics.
pub fn bmsk(clamp: bool) -> BinFn {
    fn f(a: u32, b: u32, clamp: bool) -> u32 {
        let a1 = a & 0x1f;
        let mut mask0 = !0u32 << a1;
        let b1 = b & 0x1f;
        let sum = a1 + b1;
        let mut mask1 = if sum >= 32 { 0 } else { !0u32 << sum };
        let (mut pos_ovf, mut width_ovf) = (false, false);
        if clamp {
            if a >= 32 {
                pos_ovf = true;
                mask0 = 0;
            }
            if b >= 32 {
                width_ovf = true;
            }
        }
        if sum >= 32 || pos_ovf || width_ovf {
            mask1 = 0;
        } else if b1 == 0 {
            mask1 = !0;
        }
        mask0 & !mask1
    }
    if clamp {
        f2!(u32, |a, b| f(a, b, true))
    } else {
        f2!(u32, |a, b| f(a, b, false))
    }
}

/// dp4a: `c` plus the dot product of the four bytes of `a` and of `b` (each sign- or
/// zero-extended by its type); dp2a: two 16-bit halves of `a` with bytes 0-1 (`.lo`) or 2-3
/// (`.hi`) of `b`. The sum wraps modulo 2^32.
pub fn dp4a(sa: bool, sb: bool) -> TerFn {
    fn f(a: u32, b: u32, c: u32, sa: bool, sb: bool) -> u32 {
        let mut d = c;
        for i in 0..4 {
            let x = (a >> (8 * i)) as u8;
            let y = (b >> (8 * i)) as u8;
            let x = if sa { x as i8 as i32 } else { x as i32 };
            let y = if sb { y as i8 as i32 } else { y as i32 };
            d = d.wrapping_add((x * y) as u32);
        }
        d
    }
    match (sa, sb) {
        (false, false) => f3!(u32, |a, b, c| f(a, b, c, false, false)),
        (false, true) => f3!(u32, |a, b, c| f(a, b, c, false, true)),
        (true, false) => f3!(u32, |a, b, c| f(a, b, c, true, false)),
        (true, true) => f3!(u32, |a, b, c| f(a, b, c, true, true)),
    }
}
pub fn dp2a(sa: bool, sb: bool, hi: bool) -> TerFn {
    fn f(a: u32, b: u32, c: u32, sa: bool, sb: bool, hi: bool) -> u32 {
        let mut d = c;
        let sel = if hi { 2 } else { 0 };
        for i in 0..2 {
            let x = (a >> (16 * i)) as u16;
            let y = (b >> (8 * (sel + i))) as u8;
            let x = if sa { x as i16 as i64 } else { x as i64 };
            let y = if sb { y as i8 as i64 } else { y as i64 };
            d = d.wrapping_add((x * y) as u32);
        }
        d
    }
    macro_rules! g {
        ($($sa:literal $sb:literal $hi:literal),*) => {
            match (sa, sb, hi) {
                $(($sa, $sb, $hi) => f3!(u32, |a, b, c| f(a, b, c, $sa, $sb, $hi)),)*
            }
        };
    }
    g!(false false false, false false true, false true false, false true true,
       true false false, true false true, true true false, true true true)
}

/// prmt with a mode: the two low bits of `c` pick one of four fixed byte selections of {b, a}.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrmtMode {
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}
pub fn prmt_mode(m: PrmtMode) -> TerFn {
    /// Source byte for result byte `i` given selector `s` (the ISA's tables as formulas).
    fn src(m: PrmtMode, s: u32, i: u32) -> u32 {
        match m {
            PrmtMode::F4e => (s + i) & 7,
            PrmtMode::B4e => (s.wrapping_sub(i)) & 7,
            PrmtMode::Rc8 => s,
            PrmtMode::Ecl => s.max(i),
            PrmtMode::Ecr => s.min(i),
            PrmtMode::Rc16 => (s & 1) * 2 + (i & 1),
        }
    }
    fn f(a: u32, b: u32, c: u32, m: PrmtMode) -> u32 {
        let x = ((b as u64) << 32) | a as u64;
        let s = c & 3;
        let mut d = 0u32;
        for i in 0..4 {
            d |= ((x >> (8 * src(m, s, i))) as u8 as u32) << (8 * i);
        }
        d
    }
    match m {
        PrmtMode::F4e => f3!(u32, |a, b, c| f(a, b, c, PrmtMode::F4e)),
        PrmtMode::B4e => f3!(u32, |a, b, c| f(a, b, c, PrmtMode::B4e)),
        PrmtMode::Rc8 => f3!(u32, |a, b, c| f(a, b, c, PrmtMode::Rc8)),
        PrmtMode::Ecl => f3!(u32, |a, b, c| f(a, b, c, PrmtMode::Ecl)),
        PrmtMode::Ecr => f3!(u32, |a, b, c| f(a, b, c, PrmtMode::Ecr)),
        PrmtMode::Rc16 => f3!(u32, |a, b, c| f(a, b, c, PrmtMode::Rc16)),
    }
}

/// `cvta` to a generic address: the 32-bit space address placed in the space's window.
pub fn to_window<const WINDOW: u64>(a: &Lanes, o: &mut Lanes) {
    map1(a, o, |a: u32| WINDOW | a as u64)
}
