//! Comparisons (`setp`): integer, f32/f64 and f16, ordered and unordered.

use super::softfloat as sf;
use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

macro_rules! cmp_ord {
    ($t:ty, $c:expr) => {
        match $c {
            Cmp::Eq => f2!($t, |a, b| a == b),
            Cmp::Ne => f2!($t, |a, b| a != b),
            Cmp::Lt => f2!($t, |a, b| a < b),
            Cmp::Le => f2!($t, |a, b| a <= b),
            Cmp::Gt => f2!($t, |a, b| a > b),
            Cmp::Ge => f2!($t, |a, b| a >= b),
            _ => return None,
        }
    };
}
macro_rules! cmp_int {
    ($t:ty, $c:expr) => {
        cmp_ord!($t, $c)
    };
}

/// Integer comparison (`lo/ls/hi/hs` arrive here as Lt/Le/Gt/Ge on an unsigned type).
pub fn cmp_int(c: Cmp, t: Scalar) -> Option<BinFn> {
    by_int!(t, cmp_int!(, c))
}

/// Float comparison: ordered ones are false on NaN, the `u` forms are true on NaN (written as
/// negated ordered comparisons on purpose).
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn cmp_float(c: Cmp, bits: u32) -> Option<BinFn> {
    macro_rules! fc {
        ($t:ty) => {
            match c {
                Cmp::Eq => f2!($t, |a, b| a == b),
                Cmp::Ne => f2!($t, |a, b| a != b && !a.is_nan() && !b.is_nan()),
                Cmp::Lt => f2!($t, |a, b| a < b),
                Cmp::Le => f2!($t, |a, b| a <= b),
                Cmp::Gt => f2!($t, |a, b| a > b),
                Cmp::Ge => f2!($t, |a, b| a >= b),
                Cmp::Equ => f2!($t, |a, b| a == b || a.is_nan() || b.is_nan()),
                Cmp::Neu => f2!($t, |a, b| a != b),
                Cmp::Ltu => f2!($t, |a, b| !(a >= b)),
                Cmp::Leu => f2!($t, |a, b| !(a > b)),
                Cmp::Gtu => f2!($t, |a, b| !(a <= b)),
                Cmp::Geu => f2!($t, |a, b| !(a < b)),
                Cmp::Num => f2!($t, |a, b| !a.is_nan() && !b.is_nan()),
                Cmp::Nan => f2!($t, |a, b| a.is_nan() || b.is_nan()),
            }
        };
    }
    Some(if bits == 64 { fc!(f64) } else { fc!(f32) })
}

/// The f16 value as f32 (exact: every f16 is an f32).
#[inline(always)]
fn h2f(a: u16) -> f32 {
    sf::to_f64(sf::F16, a as u64) as f32
}

/// setp on f16: compare the exact f32 values (same ordered/unordered rules as f32).
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn cmp_f16(c: Cmp) -> Option<BinFn> {
    Some(match c {
        Cmp::Eq => f2!(u16, |a, b| h2f(a) == h2f(b)),
        Cmp::Ne => f2!(u16, |a, b| {
            let (x, y) = (h2f(a), h2f(b));
            x != y && !x.is_nan() && !y.is_nan()
        }),
        Cmp::Lt => f2!(u16, |a, b| h2f(a) < h2f(b)),
        Cmp::Le => f2!(u16, |a, b| h2f(a) <= h2f(b)),
        Cmp::Gt => f2!(u16, |a, b| h2f(a) > h2f(b)),
        Cmp::Ge => f2!(u16, |a, b| h2f(a) >= h2f(b)),
        Cmp::Equ => f2!(u16, |a, b| {
            let (x, y) = (h2f(a), h2f(b));
            x == y || x.is_nan() || y.is_nan()
        }),
        Cmp::Neu => f2!(u16, |a, b| h2f(a) != h2f(b)),
        Cmp::Ltu => f2!(u16, |a, b| !(h2f(a) >= h2f(b))),
        Cmp::Leu => f2!(u16, |a, b| !(h2f(a) > h2f(b))),
        Cmp::Gtu => f2!(u16, |a, b| !(h2f(a) <= h2f(b))),
        Cmp::Geu => f2!(u16, |a, b| !(h2f(a) < h2f(b))),
        Cmp::Num => f2!(u16, |a, b| !h2f(a).is_nan() && !h2f(b).is_nan()),
        Cmp::Nan => f2!(u16, |a, b| h2f(a).is_nan() || h2f(b).is_nan()),
    })
}
