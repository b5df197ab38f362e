//! The modifiers the operations of this module take: cvt's roundings, the atomic operations and types, the warp reductions.

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

impl AtomOp {
    /// Every operation with its PTX modifier word (`atom`/`red` take them all,
    /// `cp.reduce.async.bulk` all but exch and cas).
    pub const WORDS: [(&'static str, AtomOp); 10] = [
        ("add", AtomOp::Add),
        ("min", AtomOp::Min),
        ("max", AtomOp::Max),
        ("inc", AtomOp::Inc),
        ("dec", AtomOp::Dec),
        ("and", AtomOp::And),
        ("or", AtomOp::Or),
        ("xor", AtomOp::Xor),
        ("exch", AtomOp::Exch),
        ("cas", AtomOp::Cas),
    ];
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
