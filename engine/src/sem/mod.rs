//! Scalar semantics: the one home of what every arithmetic operation computes.
//!
//! The named operations ([`UnOp`], [`BinOp`], [`TerOp`], [`QuadOp`], [`CmpOp`], [`LaneOp`]) are
//! what the IR stores; each resolves, once at load, to the function that computes all 32 lanes of
//! one instruction, which the interpreter calls and a compiling tier can call or be checked
//! against. Everything here is pure: functions of lane values and the operation's modifiers, with
//! no access to registers, memory or scheduling.
//!
//! Values live in 64-bit slots; a function reads the width it needs and writes its result
//! zero-extended, so no op depends on stale upper bits.
//!
//! - `int.rs`, `float.rs`, `cmp.rs`: the lane functions of the integer, floating-point and
//!   comparison operations;
//! - `softfloat.rs`: exact arithmetic in any format and rounding mode;
//! - `narrow.rs`: half precision, packed and narrow-format conversions (per-lane functions with a
//!   configuration word: [`LaneOp`]);
//! - `video.rs`: the video instructions;
//! - `op.rs`: the named operations, their resolution to lane functions and their textual form.

/// The 32 lanes of one register.
pub type Lanes = [u64; 32];
pub type UnFn = fn(&Lanes, &mut Lanes);
pub type BinFn = fn(&Lanes, &Lanes, &mut Lanes);
pub type TerFn = fn(&Lanes, &Lanes, &Lanes, &mut Lanes);
pub type QuadFn = fn(&Lanes, &Lanes, &Lanes, &Lanes, &mut Lanes);
/// A per-lane function with a configuration word fixed at load (see [`LaneOp`]).
pub type ScalarFn = fn(cfg: u64, a: u64, b: u64, c: u64) -> u64;

/// Whether the interpreter and the lane loops use their AVX2 builds: 0 not yet known, 1 no, 2 yes.
#[cfg(target_arch = "x86_64")]
static AVX2: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Whether the host has AVX2 (and the other features the interpreter's AVX2 build and the
/// AVX2 lane loops use), detected once.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn host_avx2() -> bool {
    use std::sync::atomic::Ordering;
    match AVX2.load(Ordering::Relaxed) {
        0 => {
            let yes = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("lzcnt");
            AVX2.store(1 + yes as u8, Ordering::Relaxed);
            yes
        }
        v => v == 2,
    }
}

/// Tests: runs the baseline builds (`false`) or goes back to detection. Both builds compute the
/// same results, so other tests running meanwhile are unaffected.
#[cfg(test)]
pub(crate) fn use_avx2(on: bool) {
    #[cfg(target_arch = "x86_64")]
    AVX2.store(if on { 0 } else { 1 }, std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = on;
}

/// A scalar as stored in a 64-bit register slot.
pub trait Val: Copy {
    fn get(v: u64) -> Self;
    fn put(self) -> u64;
}

macro_rules! val_int {
    ($($t:ty => $u:ty),*) => {$(
        impl Val for $t {
            #[inline(always)]
            fn get(v: u64) -> Self { v as $t }
            #[inline(always)]
            fn put(self) -> u64 { self as $u as u64 }
        }
    )*};
}
val_int!(u8 => u8, i8 => u8, u16 => u16, i16 => u16, u32 => u32, i32 => u32, u64 => u64, i64 => u64);

impl Val for f32 {
    #[inline(always)]
    fn get(v: u64) -> Self {
        f32::from_bits(v as u32)
    }
    #[inline(always)]
    fn put(self) -> u64 {
        self.to_bits() as u64
    }
}
impl Val for f64 {
    #[inline(always)]
    fn get(v: u64) -> Self {
        f64::from_bits(v)
    }
    #[inline(always)]
    fn put(self) -> u64 {
        self.to_bits()
    }
}
impl Val for bool {
    #[inline(always)]
    fn get(v: u64) -> Self {
        v & 1 != 0
    }
    #[inline(always)]
    fn put(self) -> u64 {
        self as u64
    }
}

// The lane loops below are what every `Un`/`Bin`/`Ter` op runs. The functions holding them
// are reached through pointers from the interpreter, so they do not inherit its AVX2 build
// (`Warp::run_avx2`): each loop is compiled twice, and the AVX2 copy is taken on hosts that
// have it, with FMA (`mul_add` then is one instruction; e.g. `mul.wide.s32` needs SSE4.1's signed 32x32->64 multiply to vectorize, and
// AVX2 does 4 lanes at a time). Both copies compute the same bits: Rust does not contract
// or reassociate floating-point arithmetic, whatever the target features.

#[inline(always)]
pub fn map1<A: Val, R: Val>(x: &Lanes, o: &mut Lanes, f: impl Fn(A) -> R) {
    #[inline(always)]
    fn go<A: Val, R: Val>(x: &Lanes, o: &mut Lanes, f: impl Fn(A) -> R) {
        for i in 0..32 {
            o[i] = f(A::get(x[i])).put();
        }
    }
    #[cfg(target_arch = "x86_64")]
    if host_avx2() {
        #[target_feature(enable = "avx2,fma")]
        fn k<A: Val, R: Val>(x: &Lanes, o: &mut Lanes, f: impl Fn(A) -> R) {
            go(x, o, f)
        }
        // SAFETY: the host has AVX2 and FMA (detected).
        return unsafe { k(x, o, f) };
    }
    go(x, o, f)
}
#[inline(always)]
pub fn map2<A: Val, B: Val, R: Val>(x: &Lanes, y: &Lanes, o: &mut Lanes, f: impl Fn(A, B) -> R) {
    #[inline(always)]
    fn go<A: Val, B: Val, R: Val>(x: &Lanes, y: &Lanes, o: &mut Lanes, f: impl Fn(A, B) -> R) {
        for i in 0..32 {
            o[i] = f(A::get(x[i]), B::get(y[i])).put();
        }
    }
    #[cfg(target_arch = "x86_64")]
    if host_avx2() {
        #[target_feature(enable = "avx2,fma")]
        fn k<A: Val, B: Val, R: Val>(x: &Lanes, y: &Lanes, o: &mut Lanes, f: impl Fn(A, B) -> R) {
            go(x, y, o, f)
        }
        // SAFETY: the host has AVX2 and FMA (detected).
        return unsafe { k(x, y, o, f) };
    }
    go(x, y, o, f)
}
#[inline(always)]
pub fn map3<A: Val, B: Val, C: Val, R: Val>(
    x: &Lanes,
    y: &Lanes,
    z: &Lanes,
    o: &mut Lanes,
    f: impl Fn(A, B, C) -> R,
) {
    #[inline(always)]
    fn go<A: Val, B: Val, C: Val, R: Val>(
        x: &Lanes,
        y: &Lanes,
        z: &Lanes,
        o: &mut Lanes,
        f: impl Fn(A, B, C) -> R,
    ) {
        for i in 0..32 {
            o[i] = f(A::get(x[i]), B::get(y[i]), C::get(z[i])).put();
        }
    }
    #[cfg(target_arch = "x86_64")]
    if host_avx2() {
        #[target_feature(enable = "avx2,fma")]
        fn k<A: Val, B: Val, C: Val, R: Val>(
            x: &Lanes,
            y: &Lanes,
            z: &Lanes,
            o: &mut Lanes,
            f: impl Fn(A, B, C) -> R,
        ) {
            go(x, y, z, o, f)
        }
        // SAFETY: the host has AVX2 and FMA (detected).
        return unsafe { k(x, y, z, o, f) };
    }
    go(x, y, z, o, f)
}

macro_rules! f1 {
    ($t:ty, |$a:ident| $e:expr) => {
        (|x: &Lanes, o: &mut Lanes| map1(x, o, |$a: $t| $e)) as UnFn
    };
}
macro_rules! f2 {
    ($t:ty, $t2:ty, |$a:ident, $b:ident| $e:expr) => {
        (|x: &Lanes, y: &Lanes, o: &mut Lanes| map2(x, y, o, |$a: $t, $b: $t2| $e)) as BinFn
    };
    ($t:ty, |$a:ident, $b:ident| $e:expr) => {
        f2!($t, $t, |$a, $b| $e)
    };
}
macro_rules! f3 {
    ($t:ty, $t2:ty, $t3:ty, |$a:ident, $b:ident, $c:ident| $e:expr) => {
        (|x: &Lanes, y: &Lanes, z: &Lanes, o: &mut Lanes| {
            map3(x, y, z, o, |$a: $t, $b: $t2, $c: $t3| $e)
        }) as TerFn
    };
    ($t:ty, |$a:ident, $b:ident, $c:ident| $e:expr) => {
        f3!($t, $t, $t, |$a, $b, $c| $e)
    };
}

macro_rules! by_int {
    ($it:expr, $m:ident!($($args:tt)*)) => {
        match $it.int().unwrap_or((0, false)) {
            (16, false) => Some($m!(u16 $($args)*)),
            (16, true) => Some($m!(i16 $($args)*)),
            (32, false) => Some($m!(u32 $($args)*)),
            (32, true) => Some($m!(i32 $($args)*)),
            (64, false) => Some($m!(u64 $($args)*)),
            (64, true) => Some($m!(i64 $($args)*)),
            _ => None,
        }
    };
}
/// The lower-case name of a value as `Debug` writes it (`FUn::Sqrt` is `sqrt`, `Scalar::Bf16`
/// `bf16`): how the textual forms of the operations and of the IR spell modifiers.
pub(crate) fn lower_name(v: &impl std::fmt::Debug) -> String {
    format!("{v:?}").to_lowercase()
}

/// The float modifiers applied around an f32 operation: `.ftz` flushes subnormal inputs and
/// results to sign-preserving zero, `.sat` clamps the result to [0, 1] (NaN to +0). (Half,
/// packed and narrow formats carry theirs in their configuration word: see [`narrow`].)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatMods {
    pub ftz: bool,
    pub sat: bool,
}

impl FloatMods {
    pub const NONE: FloatMods = FloatMods {
        ftz: false,
        sat: false,
    };
    pub const FTZ: FloatMods = FloatMods {
        ftz: true,
        sat: false,
    };
    pub fn is_none(self) -> bool {
        self == FloatMods::NONE
    }
}

/// `.ftz` on f32 lanes: a subnormal becomes a zero of the same sign.
#[inline(always)]
pub fn ftz32(a: &mut Lanes) {
    for v in a.iter_mut() {
        if *v as u32 & 0x7f80_0000 == 0 {
            *v &= 0x8000_0000;
        }
    }
}

/// `.sat` on f32 lanes: clamp to [0, 1]; NaN saturates to +0.
#[inline(always)]
pub fn sat32(a: &mut Lanes) {
    for v in a.iter_mut() {
        let x = f32::from_bits(*v as u32);
        let y = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
        *v = y.to_bits() as u64;
    }
}

pub mod addr;
pub mod atomic;
pub mod clc;
mod cmp;
pub mod cvt;
pub(crate) mod float;
pub mod fragment;
pub mod im2col;
mod int;
pub mod lane;
mod lane_text;
pub mod mbar;
pub mod mma;
pub mod narrow;
mod op;
pub mod redux;
mod scalar;
pub mod softfloat;
pub mod swizzle;
pub mod types;
pub mod video;

pub use cmp::Cmp;
pub use float::{FBin, FUn, Testp};
pub use int::{IBin, IUn, PrmtMode};
pub use op::{BinOp, CmpOp, LaneFamily, LaneOp, QuadOp, Resolved, TerOp, UnOp};
pub use scalar::Scalar;
