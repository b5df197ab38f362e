//! The one scalar type of the engine's semantics.

use super::softfloat::{self as sf, Fmt};

/// The scalar types of values: every integer and floating-point format an operation reads or
/// writes. (Bit types `.bN` are the unsigned integers here; predicates are not values of an
/// operation. The type *words* of PTX are parsed once, by `isa::words::TypeWord`, which names
/// the scalar of each.) The order is the encoding narrow conversions keep in their configuration word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Scalar {
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    Bf16,
    F32,
    F64,
    /// f32 layout with a 10-bit fraction (the low 13 bits zero).
    Tf32,
    E4m3,
    E5m2,
    E2m3,
    E3m2,
    E2m1,
    /// The unsigned exponent-only scale format of `.ue8m0x2`: `2^(e - 127)` for e in 0..=254,
    /// 0xff NaN; no sign, zero or infinity.
    Ue8m0,
}

impl Scalar {
    /// Every scalar, in encoding order.
    pub const ALL: [Scalar; 19] = [
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::U64,
        Scalar::S8,
        Scalar::S16,
        Scalar::S32,
        Scalar::S64,
        Scalar::F16,
        Scalar::Bf16,
        Scalar::F32,
        Scalar::F64,
        Scalar::Tf32,
        Scalar::E4m3,
        Scalar::E5m2,
        Scalar::E2m3,
        Scalar::E3m2,
        Scalar::E2m1,
        Scalar::Ue8m0,
    ];

    /// The integer type of `bits` (8 to 64) and signedness.
    pub fn int_of(bits: u32, signed: bool) -> Option<Scalar> {
        Some(match (bits, signed) {
            (8, false) => Scalar::U8,
            (16, false) => Scalar::U16,
            (32, false) => Scalar::U32,
            (64, false) => Scalar::U64,
            (8, true) => Scalar::S8,
            (16, true) => Scalar::S16,
            (32, true) => Scalar::S32,
            (64, true) => Scalar::S64,
            _ => return None,
        })
    }
    /// The IEEE type `.f16`, `.f32` or `.f64` of `bits`.
    pub fn float_of_bits(bits: u32) -> Scalar {
        match bits {
            16 => Scalar::F16,
            32 => Scalar::F32,
            _ => Scalar::F64,
        }
    }
    pub fn signed(self) -> bool {
        matches!(self.int(), Some((_, true)))
    }
    pub fn float(self) -> bool {
        self.int().is_none()
    }
    /// Whether the host's IEEE arithmetic computes this format exactly (in round-to-nearest).
    pub fn native(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }
    /// The index of [`super::softfloat::fmt_of`] (f16, bf16, f32, f64), which the
    /// const-generic exact arithmetic takes; None for the formats it has no instance of.
    pub(crate) fn float_index(self) -> Option<u8> {
        Some(match self {
            Scalar::F16 => 0,
            Scalar::Bf16 => 1,
            Scalar::F32 => 2,
            Scalar::F64 => 3,
            _ => return None,
        })
    }
    pub fn bits(self) -> u32 {
        match self {
            Scalar::U8
            | Scalar::S8
            | Scalar::E4m3
            | Scalar::E5m2
            | Scalar::E2m3
            | Scalar::E3m2
            | Scalar::Ue8m0 => 8,
            Scalar::E2m1 => 4,
            Scalar::U16 | Scalar::S16 | Scalar::F16 | Scalar::Bf16 => 16,
            Scalar::U32 | Scalar::S32 | Scalar::F32 | Scalar::Tf32 => 32,
            Scalar::U64 | Scalar::S64 | Scalar::F64 => 64,
        }
    }
    /// Width and signedness of the integer types.
    pub fn int(self) -> Option<(u32, bool)> {
        Some(match self {
            Scalar::U8 => (8, false),
            Scalar::U16 => (16, false),
            Scalar::U32 => (32, false),
            Scalar::U64 => (64, false),
            Scalar::S8 => (8, true),
            Scalar::S16 => (16, true),
            Scalar::S32 => (32, true),
            Scalar::S64 => (64, true),
            _ => return None,
        })
    }
    /// Exponent and fraction widths of the float types (meaningless for integers).
    pub fn fmt(self) -> Fmt {
        match self {
            Scalar::F16 => sf::F16,
            Scalar::Bf16 => sf::BF16,
            Scalar::F32 => sf::F32,
            Scalar::F64 => sf::F64,
            Scalar::Tf32 => Fmt {
                ebits: 8,
                mbits: 10,
            },
            Scalar::E4m3 => Fmt { ebits: 4, mbits: 3 },
            Scalar::E5m2 => Fmt { ebits: 5, mbits: 2 },
            Scalar::E2m3 => Fmt { ebits: 2, mbits: 3 },
            Scalar::E3m2 => Fmt { ebits: 3, mbits: 2 },
            _ => Fmt { ebits: 2, mbits: 1 },
        }
    }
    /// Formats whose all-ones exponent encodes infinities and NaNs (IEEE style).
    pub fn ieee(self) -> bool {
        matches!(
            self,
            Scalar::F16 | Scalar::Bf16 | Scalar::F32 | Scalar::F64 | Scalar::Tf32 | Scalar::E5m2
        )
    }
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::lower_name(self))
    }
}
