//! The layout of a tensor-map object (`CUtensorMap`, 128 bytes, 64-byte aligned) as this
//! engine stores it. The ISA calls the object opaque (9.7.9.26) and NVIDIA does not publish
//! its layout; every reader and writer of one in a program goes through the driver
//! (`cuTensorMapEncode*`, issue 14) or the instructions that name it (`tensormap.replace` now,
//! `cp.async.bulk.tensor` later), all of which are ours, so they need only agree with each
//! other: this file is where they do.
//!
//! | bytes | field (`tensormap.replace` name) | width |
//! |---|---|---|
//! | 0..8 | `global_address` | b64 |
//! | 8..48 | `global_stride[0..5]` | b64 each |
//! | 48..68 | `global_dim[0..5]` | b32 each |
//! | 68..88 | `box_dim[0..5]` | b32 each |
//! | 88..108 | `element_stride[0..5]` | b32 each |
//! | 108..112 | `rank` (the rank minus one, as the ISA numbers it) | b32 |
//! | 112 | `elemtype` (the ISA's Table 33 code, not the driver's enum) | u8 |
//! | 113 | `interleave_layout` | u8 |
//! | 114 | `swizzle_mode` | u8 |
//! | 115 | `swizzle_atomicity` | u8 |
//! | 116 | `fill_mode` | u8 |

/// Bytes of a tensor-map object (`.b1024`).
pub const BYTES: u64 = 128;
/// Dimensions a tensor map describes at most (the ordinals 0..5 of the per-dimension fields).
pub const MAX_RANK: u32 = 5;

/// A field of the object: its byte offset and width, for the field's ordinal `ord` (0 for the
/// fields that have none). None for an unknown field or an ordinal past [`MAX_RANK`].
pub fn field(name: &str, ord: u32) -> Option<(u64, u8)> {
    let per_dim =
        |base: u64, width: u8| (ord < MAX_RANK).then(|| (base + ord as u64 * width as u64, width));
    match name {
        "global_address" => (ord == 0).then_some((0, 8)),
        "global_stride" => per_dim(8, 8),
        "global_dim" => per_dim(48, 4),
        "box_dim" => per_dim(68, 4),
        "element_stride" => per_dim(88, 4),
        "rank" => (ord == 0).then_some((108, 4)),
        "elemtype" => (ord == 0).then_some((112, 1)),
        "interleave_layout" => (ord == 0).then_some((113, 1)),
        "swizzle_mode" => (ord == 0).then_some((114, 1)),
        "swizzle_atomicity" => (ord == 0).then_some((115, 1)),
        "fill_mode" => (ord == 0).then_some((116, 1)),
        _ => None,
    }
}

/// The largest value a `.field3` field takes (ISA Table 33): `.elemtype` 0..15,
/// `.interleave_layout` 0..2, `.swizzle_mode` 0..4, `.swizzle_atomicity` 0..3, `.fill_mode`
/// 0..1.
pub fn field3_max(name: &str) -> Option<u64> {
    Some(match name {
        "elemtype" => 15,
        "interleave_layout" => 2,
        "swizzle_mode" => 4,
        "swizzle_atomicity" => 3,
        "fill_mode" => 1,
        _ => return None,
    })
}

/// A tensor map's fields (the table above), decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Map {
    pub addr: u64,
    /// Dimensions, 1 to 5.
    pub rank: u32,
    /// Elements per dimension, innermost first.
    pub dims: [u32; 5],
    /// `strides[i]`: bytes from one index of dimension `i + 1` to the next (the driver's
    /// `globalStrides`; dimension 0's elements are adjacent).
    pub strides: [u64; 5],
    pub box_dim: [u32; 5],
    pub elem_strides: [u32; 5],
    /// The ISA's codes (Table 33).
    pub elemtype: u8,
    pub interleave: u8,
    pub swizzle: u8,
    pub atomicity: u8,
    pub fill: u8,
}

impl Map {
    pub fn to_bytes(&self) -> [u8; BYTES as usize] {
        let mut b = [0u8; BYTES as usize];
        let mut put = |name: &str, ord: u32, v: u64| {
            let (off, w) = field(name, ord).expect("a field of the layout");
            b[off as usize..off as usize + w as usize]
                .copy_from_slice(&v.to_le_bytes()[..w as usize]);
        };
        put("global_address", 0, self.addr);
        put("rank", 0, self.rank.saturating_sub(1) as u64);
        for d in 0..MAX_RANK as usize {
            put("global_dim", d as u32, self.dims[d] as u64);
            put("global_stride", d as u32, self.strides[d]);
            put("box_dim", d as u32, self.box_dim[d] as u64);
            put("element_stride", d as u32, self.elem_strides[d] as u64);
        }
        put("elemtype", 0, self.elemtype as u64);
        put("interleave_layout", 0, self.interleave as u64);
        put("swizzle_mode", 0, self.swizzle as u64);
        put("swizzle_atomicity", 0, self.atomicity as u64);
        put("fill_mode", 0, self.fill as u64);
        b
    }

    pub fn from_bytes(b: &[u8; BYTES as usize]) -> Map {
        let get = |name: &str, ord: u32| {
            let (off, w) = field(name, ord).expect("a field of the layout");
            let mut v = [0u8; 8];
            v[..w as usize].copy_from_slice(&b[off as usize..off as usize + w as usize]);
            u64::from_le_bytes(v)
        };
        let per = |name: &str| [0, 1, 2, 3, 4].map(|d| get(name, d));
        Map {
            addr: get("global_address", 0),
            rank: get("rank", 0) as u32 + 1,
            dims: per("global_dim").map(|v| v as u32),
            strides: per("global_stride"),
            box_dim: per("box_dim").map(|v| v as u32),
            elem_strides: per("element_stride").map(|v| v as u32),
            elemtype: get("elemtype", 0) as u8,
            interleave: get("interleave_layout", 0) as u8,
            swizzle: get("swizzle_mode", 0) as u8,
            atomicity: get("swizzle_atomicity", 0) as u8,
            fill: get("fill_mode", 0) as u8,
        }
    }

    /// Bytes of one element, for the whole-byte types (None for the packed 4- and 6-bit ones).
    pub fn elem_bytes(&self) -> Option<u64> {
        Some(match self.elemtype {
            0 => 1,
            1 | 6 | 10 => 2,
            2 | 3 | 7 | 8 | 11 | 12 => 4,
            4 | 5 | 9 => 8,
            _ => return None,
        })
    }

    /// The pattern an out-of-bound element reads as: zero, or with `.fill_mode` 1 on a
    /// floating-point type the OOB-NaN (the ISA names no encoding; this is the all-ones
    /// positive NaN of the type).
    pub fn fill_bits(&self) -> u64 {
        match (self.fill, self.elemtype) {
            (1, 6 | 10) => 0x7fff,
            (1, 7 | 8 | 11 | 12) => 0x7fff_ffff,
            (1, 9) => 0x7fff_ffff_ffff_ffff,
            _ => 0,
        }
    }
}

pub use crate::sem::swizzle::swizzle;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_patterns_of_the_isa() {
        // ISA 5.5.7's tables: the 16-byte chunk each of the eight chunks of row r lands in.
        let chunks = |mode: u8, r: u64| -> Vec<u64> {
            (0..8)
                .map(|c| (swizzle(r * 128 + c * 16, mode, 0) - r * 128) / 16)
                .collect()
        };
        assert_eq!(chunks(0, 1), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(chunks(1, 1), [1, 0, 3, 2, 5, 4, 7, 6]);
        assert_eq!(chunks(1, 2), [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(chunks(2, 2), [2, 3, 0, 1, 6, 7, 4, 5]);
        assert_eq!(chunks(2, 3), [3, 2, 1, 0, 7, 6, 5, 4]);
        assert_eq!(chunks(3, 5), [5, 4, 7, 6, 1, 0, 3, 2]);
        assert_eq!(chunks(3, 7), [7, 6, 5, 4, 3, 2, 1, 0]);
        // Bytes inside a chunk stay in place.
        assert_eq!(swizzle(128 + 3, 3, 0), 128 + 16 + 3);
    }

    #[test]
    fn a_map_reads_back_what_was_written() {
        let m = Map {
            addr: 0x7f00_0000_1000,
            rank: 3,
            dims: [12, 10, 6, 1, 1],
            strides: [64, 640, 0, 0, 0],
            box_dim: [8, 4, 4, 1, 1],
            elem_strides: [1, 2, 1, 1, 1],
            elemtype: 7,
            interleave: 0,
            swizzle: 3,
            atomicity: 0,
            fill: 1,
        };
        assert_eq!(Map::from_bytes(&m.to_bytes()), m);
    }
}
