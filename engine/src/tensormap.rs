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
