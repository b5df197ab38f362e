//! `cvt` between the integer types and f16/f32/f64: extension, truncation and saturation,
//! integer rounding of floats, and float conversions in every rounding mode.

use super::softfloat as sf;
use super::types::*;
use super::{Lanes, Scalar};

/// cvt for one lane: integer <-> integer (extension, truncation, saturation), float <-> integer
/// with integer rounding, float <-> float.
pub fn cvt(v: u64, dst: Scalar, src: Scalar, rnd: Rnd, sat: bool, ftz: bool) -> u64 {
    if dst == Scalar::F16 || src == Scalar::F16 {
        return cvt_f16(v, dst, src, rnd, sat, ftz);
    }
    let flush32 = |x: f32| {
        if ftz && x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        }
    };
    if !src.float() {
        // Source value as i128 with its own extension.
        let sb = src.bits();
        let m = if sb == 64 { u64::MAX } else { (1u64 << sb) - 1 };
        let x = v & m;
        let iv: i128 = if src.signed() {
            ((x << (64 - sb)) as i64 >> (64 - sb)) as i128
        } else {
            x as i128
        };
        if let (true, Some(md)) = (dst.float(), rnd.directed()) {
            let fmt = if dst == Scalar::F32 { sf::F32 } else { sf::F64 };
            let mut r = sf::from_int(fmt, iv < 0, iv.unsigned_abs(), md);
            if sat {
                // Integers are never in (0, 1): saturation clamps to 0 or 1.
                r = if iv <= 0 {
                    0
                } else {
                    sf::from_int(fmt, false, 1, sf::Mode::Rn)
                };
            }
            return r;
        }
        return match dst {
            Scalar::F32 => {
                let f = if src.signed() {
                    iv as i64 as f32
                } else {
                    iv as u64 as f32
                };
                let f = if sat { f.clamp(0.0, 1.0) } else { f };
                f.to_bits() as u64
            }
            Scalar::F64 => {
                let f = if src.signed() {
                    iv as i64 as f64
                } else {
                    iv as u64 as f64
                };
                let f = if sat { f.clamp(0.0, 1.0) } else { f };
                f.to_bits()
            }
            _ => int_result(iv, dst, sat),
        };
    }
    let f: f64 = match src {
        Scalar::F32 => flush32(f32::from_bits(v as u32)) as f64,
        _ => f64::from_bits(v),
    };
    let rounded = |f: f64| match rnd {
        Rnd::Rni => f.round_ties_even(),
        Rnd::Rzi => f.trunc(),
        Rnd::Rmi => f.floor(),
        Rnd::Rpi => f.ceil(),
        _ => f,
    };
    match dst {
        Scalar::F32 => {
            let x = if src == Scalar::F32 {
                let x = f32::from_bits(v as u32);
                let x = flush32(x);
                match rnd {
                    Rnd::Rni => x.round_ties_even(),
                    Rnd::Rzi => x.trunc(),
                    Rnd::Rmi => x.floor(),
                    Rnd::Rpi => x.ceil(),
                    _ => x,
                }
            } else if let Some(md) = rnd.directed() {
                f32::from_bits(sf::convert(sf::F64, sf::F32, v, md) as u32)
            } else {
                f as f32
            };
            let x = if sat {
                if x.is_nan() {
                    0.0
                } else {
                    x.clamp(0.0, 1.0)
                }
            } else {
                x
            };
            flush32(x).to_bits() as u64
        }
        Scalar::F64 => {
            let x = rounded(f);
            let x = if sat {
                if x.is_nan() {
                    0.0
                } else {
                    x.clamp(0.0, 1.0)
                }
            } else {
                x
            };
            x.to_bits()
        }
        _ => {
            // Float to integer saturates (NaN -> 0) as the ISA states.
            let r = rounded(f);
            if r.is_nan() {
                return 0;
            }
            let iv = if r >= 1.8e19 {
                u64::MAX as i128
            } else if r <= -1e19 {
                i64::MIN as i128
            } else {
                r as i128
            };
            int_result(iv, dst, true)
        }
    }
}

/// cvt with an f16 operand: f16 values are exact in f64, so an f16 source is widened first;
/// an f16 destination is rounded once, in the instruction's mode, by the exact arithmetic.
fn cvt_f16(v: u64, dst: Scalar, src: Scalar, rnd: Rnd, sat: bool, ftz: bool) -> u64 {
    let one16 = 0x3c00;
    let sat16 = |r: u64| {
        if !sat {
            r
        } else if sf::F16.is_nan(r) || sf::F16.is_neg(r) {
            0
        } else if sf::to_f64(sf::F16, r) > 1.0 {
            one16
        } else {
            r
        }
    };
    if src == Scalar::F16 {
        let x = sf::to_f64(sf::F16, v & 0xffff);
        if dst == Scalar::F16 {
            // Integer rounding within f16: the rounded value is an f16 again.
            let r = match rnd {
                Rnd::Rni => x.round_ties_even(),
                Rnd::Rzi => x.trunc(),
                Rnd::Rmi => x.floor(),
                Rnd::Rpi => x.ceil(),
                _ => x,
            };
            let r = if x.is_nan() {
                sf::F16.nan()
            } else {
                sf::convert(sf::F64, sf::F16, r.to_bits(), sf::Mode::Rn)
            };
            return sat16(r);
        }
        return cvt(x.to_bits(), dst, Scalar::F64, rnd, sat, ftz);
    }
    let mode = match rnd {
        Rnd::Rz => sf::Mode::Rz,
        Rnd::Rm => sf::Mode::Rm,
        Rnd::Rp => sf::Mode::Rp,
        _ => sf::Mode::Rn,
    };
    let r = match src {
        Scalar::F32 => {
            let mut x = v & 0xffff_ffff;
            if ftz && sf::F32.is_subnormal(x) {
                x &= 0x8000_0000;
            }
            sf::convert(sf::F32, sf::F16, x, mode)
        }
        Scalar::F64 => sf::convert(sf::F64, sf::F16, v, mode),
        _ => {
            let sb = src.bits();
            let x = v & (u64::MAX >> (64 - sb));
            let iv: i128 = if src.signed() {
                ((x << (64 - sb)) as i64 >> (64 - sb)) as i128
            } else {
                x as i128
            };
            sf::from_int(sf::F16, iv < 0, iv.unsigned_abs(), mode)
        }
    };
    sat16(r)
}

fn int_result(iv: i128, dst: Scalar, sat: bool) -> u64 {
    let b = dst.bits();
    let (lo, hi): (i128, i128) = if dst.signed() {
        (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
    } else {
        (0, (1i128 << b) - 1)
    };
    let v = if sat { iv.clamp(lo, hi) } else { iv };
    let m = if b == 64 { u64::MAX } else { (1u64 << b) - 1 };
    let t = (v as u64) & m;
    if dst.signed() {
        // Sign-extend so a wider register read sees the value as the ISA specifies.
        ((t << (64 - b)) as i64 >> (64 - b)) as u64
    } else {
        t
    }
}

/// `cvt` from integer to integer without saturation, for 32 lanes: extend from the source
/// width, then wrap to the destination width (as [`cvt`] computes it); the shifts are fixed for
/// the instruction, so the loop vectorizes.
#[inline(always)]
pub fn cvt_int_lanes(x: &Lanes, o: &mut Lanes, dst: Scalar, src: Scalar) {
    let (sb, db) = (64 - src.bits(), 64 - dst.bits());
    let (ss, ds) = (src.signed(), dst.signed());
    // Widening a 32-bit index to 64 bits (`cvt.s64.s32`, `cvt.u64.u32`) is in most address
    // computations: written as casts, the loop becomes vector sign/zero extensions.
    match (sb, ss, db) {
        (32, true, 0) => {
            for (o, &v) in o.iter_mut().zip(x) {
                *o = v as i32 as i64 as u64;
            }
            return;
        }
        (32, false, 0) => {
            for (o, &v) in o.iter_mut().zip(x) {
                *o = v as u32 as u64;
            }
            return;
        }
        _ => {}
    }
    for (o, &v) in o.iter_mut().zip(x) {
        let v = if ss {
            ((v << sb) as i64 >> sb) as u64
        } else {
            (v << sb) >> sb
        };
        *o = if ds {
            ((v << db) as i64 >> db) as u64
        } else {
            (v << db) >> db
        };
    }
}
