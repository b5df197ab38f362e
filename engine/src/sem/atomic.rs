//! The values atomics store: the read-modify-write of every `atom`/`red` operation and type,
//! defined once for the host-atomic and the CTA-private paths of the executor.

use super::softfloat as sf;
use super::types::*;

/// Bytes an atomic of `ty` updates at once.
#[inline]
pub fn atom_width(ty: AtomTy) -> u8 {
    match ty {
        AtomTy::U32 | AtomTy::S32 | AtomTy::F32 | AtomTy::Half { x2: true, .. } => 4,
        AtomTy::Half { x2: false, .. } | AtomTy::B16 => 2,
        AtomTy::U64 | AtomTy::S64 | AtomTy::F64 => 8,
    }
}

/// The 32- and 64-bit atomic arithmetic, written once: `$old`, `$a`, `$b` are unsigned of the
/// width, `$s`/`$f` the signed and float types of the same width, `$sty`/`$fty` the `AtomTy`s
/// that select them. inc/dec follow the ISA: inc wraps to 0 at `a`, dec wraps to `a` at 0 or
/// above `a`.
macro_rules! int_rmw {
    ($op:expr, $ty:expr, $old:expr, $a:expr, $b:expr, $s:ty, $f:ty, $sty:pat, $fty:pat) => {{
        let (old, a, b) = ($old, $a, $b);
        match ($op, $ty) {
            (AtomOp::Add, $fty) => (<$f>::from_bits(old) + <$f>::from_bits(a)).to_bits(),
            (AtomOp::Add, _) => old.wrapping_add(a),
            (AtomOp::Min, $sty) => (old as $s).min(a as $s) as _,
            (AtomOp::Max, $sty) => (old as $s).max(a as $s) as _,
            (AtomOp::Min, _) => old.min(a),
            (AtomOp::Max, _) => old.max(a),
            (AtomOp::Inc, _) => {
                if old >= a {
                    0
                } else {
                    old + 1
                }
            }
            (AtomOp::Dec, _) => {
                if old == 0 || old > a {
                    a
                } else {
                    old - 1
                }
            }
            (AtomOp::And, _) => old & a,
            (AtomOp::Or, _) => old | a,
            (AtomOp::Xor, _) => old ^ a,
            (AtomOp::Exch, _) => a,
            (AtomOp::Cas, _) => {
                if old == a {
                    b
                } else {
                    old
                }
            }
        }
    }};
}

/// The new value an atomic `op` on `ty` stores over `old` (operands `a`, and `b` for `cas`):
/// the one definition both the host-atomic and the CTA-private paths use.
pub fn rmw(op: AtomOp, ty: AtomTy, old: u64, a: u64, b: u64) -> u64 {
    match ty {
        // `atom.cas.b16` is the only 16-bit integer atomic (lowering admits no other op).
        AtomTy::B16 => {
            let old = old & 0xffff;
            if old == a & 0xffff {
                b & 0xffff
            } else {
                old
            }
        }
        AtomTy::Half { bf, x2 } => {
            let f = if bf { sf::BF16 } else { sf::F16 };
            let add = |o: u64, a: u64| {
                let (o, a) = (o & 0xffff, a & 0xffff);
                match op {
                    AtomOp::Min => half_minmax(f, o, a, false),
                    AtomOp::Max => half_minmax(f, o, a, true),
                    _ => sf::add(f, o, a, sf::Mode::Rn),
                }
            };
            if x2 {
                (add(old, a) | add(old >> 16, a >> 16) << 16) & 0xffff_ffff
            } else {
                add(old, a) & 0xffff
            }
        }
        AtomTy::U32 | AtomTy::S32 | AtomTy::F32 => int_rmw!(
            op,
            ty,
            old as u32,
            a as u32,
            b as u32,
            i32,
            f32,
            AtomTy::S32,
            AtomTy::F32
        ) as u64,
        AtomTy::U64 | AtomTy::S64 | AtomTy::F64 => {
            int_rmw!(op, ty, old, a, b, i64, f64, AtomTy::S64, AtomTy::F64)
        }
    }
}

/// The f32 add of `cp.reduce.async.bulk` (9.7.9.25.4.2): rounded to nearest, subnormal inputs
/// and results flushed to the zero of their sign.
pub fn add_f32_ftz(old: u64, a: u64) -> u64 {
    let flush = |x: u64| {
        if sf::F32.is_subnormal(x) {
            x & sf::F32.sign_bit()
        } else {
            x
        }
    };
    // The add itself as `rmw`'s f32 add computes it.
    let sum = f32::from_bits(flush(old & 0xffff_ffff) as u32)
        + f32::from_bits(flush(a & 0xffff_ffff) as u32);
    flush(sum.to_bits() as u64)
}

/// min/max of two f16 or bf16 values as `min`/`max` on half types define them: a NaN operand
/// yields the other one, two NaNs the canonical NaN, and -0.0 is below +0.0.
fn half_minmax(f: sf::Fmt, a: u64, b: u64, max: bool) -> u64 {
    match (f.is_nan(a), f.is_nan(b)) {
        (true, true) => return f.nan(),
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    let key = |x: u64| {
        let v = sf::to_f64(f, x);
        // -0.0 orders below +0.0.
        (v, if f.is_neg(x) { 0 } else { 1 })
    };
    let (ka, kb) = (key(a), key(b));
    let a_wins = if max { ka > kb } else { ka < kb };
    if a_wins || ka == kb {
        a
    } else {
        b
    }
}
