//! What each modifier word means: the one vocabulary of PTX's dotted words.
//!
//! - [`TypeWord`] is the one parser of instruction type words (`.u32`, `.f16x2`, `.e4m3x2`, ...):
//!   operand type checking ([`super::types`]) reads it as it is, lowering reads its
//!   classification (`lower::T::of`), and [`TypeWord::scalar`] names the value type of the
//!   semantics ([`crate::sem::Scalar`]).
//! - [`ModKind`] is what a modifier is to lowering: a type, a rounding, `.ftz`, a comparison, a
//!   state space, ... A decoded instruction ([`super::Decoded`]) gives each of its modifiers the
//!   kind of the table group that admitted it, which settles the words PTX spells alike in
//!   different roles: `.and` is a boolean operator in `setp.lt.and` but an atomic operation in
//!   `atom.and`, `.lo` a comparison in `setp.lo` but a result half in `mul.lo`.

use crate::sem::Scalar;

/// The kind of a type: bit-size, signed, unsigned, floating point, and the packed half types
/// whose agreement rules differ from the scalar ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TyKind {
    B,
    S,
    U,
    F,
    /// `.f16x2`
    H2,
    /// `.bf16`
    Bf,
    /// `.bf16x2`
    Bf2,
    /// A packed or narrow type held in bit-size registers only (`.tf32`, `.e4m3x2`,
    /// `.ue8m0x2`, ..., and the `.b32` random bits of `cvt.rs`): its name.
    Raw(&'static str),
    Pred,
    /// Another type word (`.b1`, `.s4`, `.e2m1x4`, ...): a type, which operand checking does
    /// not model and lowering does not run.
    Other,
}

/// An instruction type word: its kind and width in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeWord {
    pub k: TyKind,
    pub bits: u16,
}

impl TypeWord {
    pub const fn new(k: TyKind, bits: u16) -> TypeWord {
        TypeWord { k, bits }
    }
    pub const U32: TypeWord = TypeWord::new(TyKind::U, 32);
    pub const B32: TypeWord = TypeWord::new(TyKind::B, 32);
    pub const PRED: TypeWord = TypeWord::new(TyKind::Pred, 1);

    /// The type a word names, or `None` for a word that is no type.
    pub fn parse(w: &str) -> Option<TypeWord> {
        use TyKind as K;
        let t = match w {
            "pred" => TypeWord::PRED,
            "f16x2" => TypeWord::new(K::H2, 32),
            "bf16" => TypeWord::new(K::Bf, 16),
            "bf16x2" => TypeWord::new(K::Bf2, 32),
            "tf32" => TypeWord::new(K::Raw("tf32"), 32),
            // 9.7.1: the packed 16-bit integer SIMD types of add, sub, min and max; ptxas takes
            // them in .b32 registers only (`add.u16x2` refuses a .u32 register).
            "u16x2" => TypeWord::new(K::Raw("u16x2"), 32),
            "s16x2" => TypeWord::new(K::Raw("s16x2"), 32),
            _ => {
                let k = match w.as_bytes().first() {
                    Some(b'b') => K::B,
                    Some(b's') => K::S,
                    Some(b'u') => K::U,
                    Some(b'f') => K::F,
                    _ => K::Other,
                };
                let bits = w.get(1..).and_then(|d| d.parse::<u16>().ok());
                let ok = matches!(
                    (k, bits),
                    (K::B, Some(8 | 16 | 32 | 64 | 128))
                        | (K::S | K::U, Some(8 | 16 | 32 | 64))
                        | (K::F, Some(16 | 32 | 64))
                );
                if ok {
                    TypeWord::new(k, bits.unwrap())
                } else {
                    // Other type words (`tf32`, `e4m3x2`, `ue8m0x2`, `b1`, `s4`, ...): letters
                    // then a digit. `v2`/`v4`/`v8` are vector counts, not types.
                    let b = w.as_bytes();
                    let letters = b.iter().take_while(|c| c.is_ascii_lowercase()).count();
                    let typeish = (1..=2).contains(&letters)
                        && b.get(letters).is_some_and(u8::is_ascii_digit)
                        && matches!(b[0], b'b' | b's' | b'u' | b'f' | b'e' | b't');
                    return typeish.then_some(TypeWord::new(K::Other, 0));
                }
            }
        };
        Some(t)
    }

    /// `Some(self)` where operand type checking models the type (not [`TyKind::Other`], nor
    /// `.tf32`, whose registers ptxas checks by the rules of the classic types only).
    pub fn checked(self) -> Option<TypeWord> {
        match self.k {
            TyKind::Other | TyKind::Raw("tf32") => None,
            _ => Some(self),
        }
    }

    /// The value type of the semantics this word names, where it names one.
    pub fn scalar(self) -> Option<Scalar> {
        Some(match (self.k, self.bits) {
            (TyKind::U, b) => Scalar::int_of(b as u32, false)?,
            (TyKind::S, b) => Scalar::int_of(b as u32, true)?,
            (TyKind::F, b) => Scalar::float_of_bits(b as u32),
            (TyKind::Bf, _) => Scalar::Bf16,
            (TyKind::Raw("tf32"), _) => Scalar::Tf32,
            _ => return None,
        })
    }

    pub fn name(self) -> String {
        use TyKind as K;
        match self.k {
            K::B => format!(".b{}", self.bits),
            K::S => format!(".s{}", self.bits),
            K::U => format!(".u{}", self.bits),
            K::F => format!(".f{}", self.bits),
            K::H2 => ".f16x2".into(),
            K::Bf => ".bf16".into(),
            K::Bf2 => ".bf16x2".into(),
            K::Raw(n) => format!(".{n}"),
            K::Pred => ".pred".into(),
            K::Other => ".other".into(),
        }
    }

    pub fn wide(self) -> TypeWord {
        TypeWord::new(self.k, self.bits * 2)
    }
}

/// What a modifier is to lowering. Lowering takes modifiers by kind (`Mods::rnd`,
/// `Mods::ty`, ...) and the words of [`ModKind::Word`] by their text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModKind {
    /// An instruction type ([`TypeWord`]).
    Type,
    /// `.rn .rz .rm .rp` and the integer roundings `.rni .rzi .rmi .rpi`.
    Round,
    Ftz,
    Sat,
    /// A comparison of `setp`, `set`, `slct`'s relatives: `.eq` ... `.nan`, `.lo .ls .hi .hs`.
    Cmp,
    /// The boolean operator combining a comparison with a predicate: `.and .or .xor`.
    Bool,
    /// A state space: `.global`, `.shared::cta`, `.param::func`, ...
    Space,
    /// A vector width: `.v2 .v4 .v8`.
    Vector,
    /// A memory order: `.weak .relaxed .acquire .release .acq_rel .sc .volatile .mmio`.
    Order,
    /// A scope: `.cta .cluster .gpu .sys`.
    Scope,
    /// A cache operator, eviction priority, prefetch size or cache hint (`.ca`, `.nc`,
    /// `.L2::cache_hint`, ...): none changes what a program computes.
    Cache,
    /// Any other word: an operation (`.add`, `.wide`, `.approx`, ...), taken by its text.
    Word,
}

/// The kind of one word on its own, before the table's group says which role it plays.
pub fn word_kind(w: &str) -> ModKind {
    use ModKind as M;
    match w {
        "rn" | "rz" | "rm" | "rp" | "rni" | "rzi" | "rmi" | "rpi" => M::Round,
        "ftz" => M::Ftz,
        "sat" => M::Sat,
        "eq" | "ne" | "lt" | "le" | "gt" | "ge" | "lo" | "ls" | "hi" | "hs" | "equ" | "neu"
        | "ltu" | "leu" | "gtu" | "geu" | "num" | "nan" => M::Cmp,
        "and" | "or" | "xor" => M::Bool,
        "global" | "shared" | "shared::cta" | "shared::cluster" | "local" | "param"
        | "param::entry" | "param::func" | "const" => M::Space,
        "v2" | "v4" | "v8" => M::Vector,
        "weak" | "volatile" | "relaxed" | "acquire" | "release" | "acq_rel" | "sc" | "mmio" => {
            M::Order
        }
        "cta" | "cluster" | "gpu" | "sys" => M::Scope,
        "nc" | "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "unified" => M::Cache,
        _ if w.starts_with("L1::") || w.starts_with("L2::") => M::Cache,
        _ if TypeWord::parse(w).is_some() => M::Type,
        _ => M::Word,
    }
}

/// The kind of a table group: the kind its words share, or [`ModKind::Word`] where they differ
/// (`.op = { .and, .add, .min, ... }` is a set of operations, not of boolean operators).
pub fn group_kind(words: &[&str]) -> ModKind {
    let mut ws = words.iter().map(|w| word_kind(w));
    let Some(first) = ws.next() else {
        return ModKind::Word;
    };
    if ws.all(|k| k == first) {
        first
    } else {
        ModKind::Word
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_settle_words_spelled_alike() {
        // setp's comparison group (ISA 9.7.4.7) against mul's result-half group (9.7.1.3), and
        // setp's boolean operators against atom's operations (9.7.13.5).
        assert_eq!(
            group_kind(&["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]),
            ModKind::Cmp
        );
        assert_eq!(group_kind(&["hi", "lo", "wide"]), ModKind::Word);
        assert_eq!(group_kind(&["and", "or", "xor"]), ModKind::Bool);
        assert_eq!(
            group_kind(&["and", "or", "xor", "cas", "exch", "add"]),
            ModKind::Word
        );
        assert_eq!(
            group_kind(&["u32", "s32", "f16x2", "e4m3x2"]),
            ModKind::Type
        );
    }

    #[test]
    fn type_words() {
        assert_eq!(TypeWord::parse("u32"), Some(TypeWord::U32));
        assert_eq!(TypeWord::parse("b128").map(|t| t.bits), Some(128));
        assert_eq!(TypeWord::parse("e4m3x2").map(|t| t.k), Some(TyKind::Other));
        assert_eq!(TypeWord::parse("v4"), None);
        assert_eq!(
            TypeWord::parse("u128"),
            Some(TypeWord::new(TyKind::Other, 0))
        );
        assert_eq!(
            TypeWord::parse("f32").and_then(TypeWord::scalar),
            Some(Scalar::F32)
        );
        assert_eq!(TypeWord::parse("b32").and_then(TypeWord::scalar), None);
    }
}
