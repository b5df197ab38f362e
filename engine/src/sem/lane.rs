//! Per-lane functions with a configuration word fixed at load ([`super::LaneOp`]), for small
//! families whose modifier combinations are data: packed 16-bit integer add/min/max, f32
//! min/max with `.NaN`/`.xorsign.abs`/three inputs, the `.f32x2` arithmetic, `slct`, and the
//! cluster address arithmetic of `mapa` and `getctarank`. Each configuration layout is given
//! by the constants beside its function; lowering builds the word from them.

use super::addr::{cluster_shared_addr, CLUSTER_OFFSET_MASK, SHARED_WINDOW, WINDOW_SIZE};
use super::softfloat::Mode;

pub const P_MIN: u64 = 1;
pub const P_MAX: u64 = 2;
pub const P_SIGNED: u64 = 4;
pub const P_RELU: u64 = 8;

/// Packed halves: `d[k] = a[k] op b[k]` for the half words k = 0 (bits 0..15) and 1.
pub fn packed16(cfg: u64, a: u64, b: u64, _c: u64) -> u64 {
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

pub const F_MAX: u64 = 1;
pub const F_NAN: u64 = 2;
pub const F_XORSIGN: u64 = 4;
pub const F_FTZ: u64 = 8;
pub const F_THREE: u64 = 16;
/// The canonical NaN min/max produce.
pub const CANON_NAN: u32 = 0x7fff_ffff;

/// f32 min/max per the ISA's pseudocode (min_num / min_nan, `-0.0 < +0.0`).
pub fn minmax_f32(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
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

pub const X2_SUB: u64 = 1;
pub const X2_MUL: u64 = 2;
pub const X2_FMA: u64 = 3;
pub const X2_FTZ: u64 = 4;
/// The rounding mode sits at bits 3..5 of the configuration.
pub const X2_MODE_SHIFT: u32 = 3;

/// `.f32x2`: the op on the two f32 halves (bits 0..31 and 32..63) independently, rounded as the
/// scalar `.f32` op is: round-to-nearest through the host's IEEE arithmetic (exact), directed
/// modes through [`super::softfloat`]. `.ftz` flushes subnormal inputs and results to
/// sign-preserving zero.
pub fn f32x2(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    use super::softfloat as sf;
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

/// `slct` configuration word: bits 0..7 the destination width, bit 8 `c` is `.f32`, bit 9 `.ftz`.
pub const SLCT_F32: u64 = 1 << 8;
pub const SLCT_FTZ: u64 = 1 << 9;

/// `d = (c >= 0) ? a : b` (ISA 9.7.6.4). For `.f32` c, -0 equals 0 (so selects a), NaN is
/// unordered (selects b), and with `.ftz` a subnormal c is flushed to a sign-preserving zero
/// (selects a, even when negative). The selected operand is copied unchanged at the width of
/// the destination type.
pub fn slct(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let ge0 = if cfg & SLCT_F32 != 0 {
        let x = c as u32;
        if cfg & SLCT_FTZ != 0 && x & 0x7f80_0000 == 0 {
            true // a zero or a subnormal flushed to a (signed) zero
        } else {
            // Rust's `>=` on f32 is IEEE: -0.0 >= 0.0 holds, NaN >= 0.0 does not.
            f32::from_bits(x) >= 0.0
        }
    } else {
        c as u32 as i32 >= 0
    };
    let v = if ge0 { a } else { b };
    match cfg & 0xff {
        64 => v,
        bits => v & ((1u64 << bits) - 1),
    }
}

/// Generic-address bits of a `mapa` result whose source is not a generic shared address:
/// non-canonical and outside every window, so any access through it is reported as an illegal
/// address at that access.
pub const NO_CTA: u64 = 0xF000_0000_0000_0000;

/// `mapa`: the address of the same shared byte as `a` in the CTA of rank `b` of the cluster,
/// encoded as [`cluster_shared_addr`] says. cfg 64: generic (`a` and the result in the shared
/// window); otherwise `.shared::cluster` (`a` a `.shared::{cta,cluster}` address). A rank
/// outside the cluster yields an address every access through it reports (the executor checks
/// the rank against the launch's cluster).
pub fn mapa(cfg: u64, a: u64, b: u64, _c: u64) -> u64 {
    let off = a & CLUSTER_OFFSET_MASK;
    let b = b as u32 as u64;
    match cfg {
        64 if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a) => {
            SHARED_WINDOW | cluster_shared_addr(b, off)
        }
        64 => NO_CTA | (a & 0xffff_ffff),
        _ => cluster_shared_addr(b, off),
    }
}

/// `getctarank`: the rank named by the address's rank field (see [`CLUSTER_RANK_SHIFT`]), or
/// `c` (the executing CTA's `%cluster_ctarank`) where the field is 0. cfg 64: a generic address.
pub fn getctarank(cfg: u64, a: u64, _b: u64, c: u64) -> u64 {
    let a = if cfg == 64 {
        a.wrapping_sub(SHARED_WINDOW)
    } else {
        a
    };
    super::addr::cluster_rank(a, c)
}
