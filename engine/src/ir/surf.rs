//! The surface instructions' op (ISA 9.7.11): `suld`, `sust`, `sured` and `suq` on a surface
//! object, whose rules (addressing, bounds, formats) are `crate::surf`'s.

use super::{AtomOp, Reg, Src};
pub use crate::surf::{Bound, Geom, Query};

/// What a surface op does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfKind {
    /// `suld.b`: `vec` elements of `bits` into `d`.
    Load,
    /// `sust.b`: `vec` elements of `bits` from `c`.
    Store,
    /// `sust.p`: `vec` 32-bit values from `c` converted to the surface's channels.
    StoreFormatted,
    /// `sured`: `c[0]` combined into the surface.
    Red(SurfRed),
    /// `suq`: the answer into `d[0]`.
    Query(Query),
}

/// A `sured`'s operation and how it reads the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfRed {
    /// add, min, max, and or or: the atomics' operations (`sem::atomic::rmw`).
    pub op: AtomOp,
    /// `.p`: sample addressing, signedness from the surface's format.
    pub formatted: bool,
    /// `.s32`/`.s64` of the `.b` forms.
    pub signed: bool,
}

/// A surface instruction: per lane, `surf` is the handle of a surface object.
#[derive(Clone, Debug)]
pub struct SurfOp {
    pub kind: SurfKind,
    pub surf: Src,
    pub geom: Geom,
    /// x (bytes for the `.b` forms, samples for the `.p` ones), y, z; those the geometry lacks
    /// are immediates 0.
    pub coords: [Src; 3],
    /// The layer index of the array geometries (else immediate 0).
    pub layer: Src,
    pub d: [Option<Reg>; 4],
    pub c: [Src; 4],
    /// Elements moved (1, 2 or 4) and their bits (8, 16, 32 or 64).
    pub vec: u8,
    pub bits: u8,
    pub bound: Bound,
}
