//! The types and modifiers the operations of this module take: cvt's scalar types and
//! roundings, the atomic operations and types, the warp reductions.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomTy {
    U32,
    S32,
    U64,
    S64,
    F32,
    F64,
    /// `.add.noftz` (and, in vector forms, `.min/.max.noftz`) on f16 or bf16 (`bf`), one element
    /// or a packed pair (`x2`): rounded to nearest even, subnormals kept.
    Half {
        bf: bool,
        x2: bool,
    },
    /// `atom.cas.b16` (the only 16-bit integer atomic): a 16-bit compare-and-swap.
    B16,
}

/// `redux.sync` operations; the float forms carry `.abs` and `.NaN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    Add,
    Min { signed: bool },
    Max { signed: bool },
    And,
    Or,
    Xor,
    FMin { abs: bool, nan: bool },
    FMax { abs: bool, nan: bool },
}

/// Scalar types as cvt sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F32,
    F64,
}

impl Ty {
    pub fn bits(self) -> u32 {
        match self {
            Ty::U8 | Ty::S8 => 8,
            Ty::U16 | Ty::S16 | Ty::F16 => 16,
            Ty::U32 | Ty::S32 | Ty::F32 => 32,
            Ty::U64 | Ty::S64 | Ty::F64 => 64,
        }
    }
    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }
    pub fn float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }
}

/// Rounding of cvt: `Rn`..`Rp` for float results, `Rni`..`Rpi` round a float to an integral value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    None,
    Rn,
    Rz,
    Rm,
    Rp,
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl Rnd {
    /// The directed IEEE modes (`.rz/.rm/.rp`), which need exact arithmetic; None otherwise.
    pub fn directed(self) -> Option<super::softfloat::Mode> {
        use super::softfloat::Mode;
        match self {
            Rnd::Rz => Some(Mode::Rz),
            Rnd::Rm => Some(Mode::Rm),
            Rnd::Rp => Some(Mode::Rp),
            _ => None,
        }
    }
}

/// The source-lane rule of `shfl.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}
