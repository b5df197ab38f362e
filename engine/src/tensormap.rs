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
//! | 117 | `mode` (ours: [`MODE_TILE`], [`MODE_IM2COL`], [`MODE_IM2COL_W`], [`MODE_IM2COL_W128`]) | u8 |
//! | 118..120 | `channels_per_pixel` (im2col) | b16 |
//! | 120..122 | `pixels_per_column` (im2col) | b16 |
//! | 122..124 | `pixel_box_lower_corner` (im2col, packed as below) | b16 |
//! | 124..126 | `pixel_box_upper_corner` (im2col, packed as below) | b16 |
//!
//! `global_dim` holds a dimension of 2^32 (the real driver takes one, though cuda.h says 2^31)
//! as 0, which is no dimension otherwise. The fields from `mode` on are not the ISA's (its
//! `tensormap.replace` has no im2col fields) and `tensormap.replace` cannot name them: they
//! hold what `cuTensorMapEncodeIm2col` and `cuTensorMapEncodeIm2colWide` give beyond a tile
//! map's fields. A corner packs the `rank - 2` spatial offsets (W, then H, then D) into its 16
//! bits as signed fields of `16 / (rank - 2)` bits each, W in the lowest: one of 16 bits at
//! rank 3, two of 8 at rank 4, three of 5 at rank 5, which are exactly the ranges the driver
//! takes at each rank. A map of
//! `cuTensorMapEncodeIm2colWide` ([`MODE_IM2COL_W`], [`MODE_IM2COL_W128`]) has corners along W
//! only, of 16 bits at every rank (the driver's `pixelBoxLowerCornerWidth` and
//! `pixelBoxUpperCornerWidth`, -32768 to 32767): each corner field holds its W offset whole.

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
        "mode" => (ord == 0).then_some((117, 1)),
        "channels_per_pixel" => (ord == 0).then_some((118, 2)),
        "pixels_per_column" => (ord == 0).then_some((120, 2)),
        "pixel_box_lower_corner" => (ord == 0).then_some((122, 2)),
        "pixel_box_upper_corner" => (ord == 0).then_some((124, 2)),
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

/// [`Map::mode`] of a map from `cuTensorMapEncodeTiled`: the box is `box_dim`.
pub const MODE_TILE: u8 = 0;
/// [`Map::mode`] of a map from `cuTensorMapEncodeIm2col`: the box is `pixels_per_column`
/// pixels of `channels_per_pixel` channels each, and `box_dim` is all zeros.
pub const MODE_IM2COL: u8 = 1;

/// [`Map::mode`] of a map from `cuTensorMapEncodeIm2colWide` with
/// `CU_TENSOR_MAP_IM2COL_WIDE_MODE_W`, for `.im2col::w` copies: `pixels_per_column` pixels
/// along W (H and D fixed), then the instruction's halo pixels.
pub const MODE_IM2COL_W: u8 = 2;
/// [`Map::mode`] of a map from `cuTensorMapEncodeIm2colWide` with
/// `CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128`, for `.im2col::w::128` copies: 128 pixels along W in
/// four groups of 32, each followed by the instruction's halo pixels (`pixels_per_column` is
/// ignored).
pub const MODE_IM2COL_W128: u8 = 3;

/// Whether a map's `mode` is one of `cuTensorMapEncodeIm2colWide`'s.
pub fn is_wide(mode: u8) -> bool {
    matches!(mode, MODE_IM2COL_W | MODE_IM2COL_W128)
}

/// A tensor map's fields (the table above), decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Map {
    pub addr: u64,
    /// Dimensions, 1 to 5.
    pub rank: u32,
    /// Elements per dimension, innermost first, 1 to 2^32 (the encoders write 0 past `rank`). An
    /// im2col map's dimensions are C, W, (H, (D,)) N: channels innermost, images outermost.
    pub dims: [u64; 5],
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
    /// [`MODE_TILE`], [`MODE_IM2COL`], [`MODE_IM2COL_W`] or [`MODE_IM2COL_W128`]; a copy in one
    /// mode through a map of another is the program's error.
    pub mode: u8,
    /// im2col: the lower corner of the bounding box of the pixels a copy may start at, one
    /// offset per spatial dimension `1..rank - 1` (index 0 is W, dimension 1; then H, D), as
    /// the driver's `pixelBoxLowerCorner`: along dimension `i + 1` the box runs from
    /// `pixel_box_lower_corner[i]` to `dims[i + 1] - 1 + pixel_box_upper_corner[i]`, both
    /// included (a negative lower corner is padding before the tensor, a positive upper corner
    /// padding past it). At least one position along each. Entries past `rank - 2` are 0. A
    /// wide map ([`is_wide`]) has index 0 (W) only.
    pub pixel_box_lower_corner: [i32; 3],
    /// im2col: the upper corner's offsets (the driver's `pixelBoxUpperCorner`), relative to the
    /// last element of each spatial dimension; see `pixel_box_lower_corner`.
    pub pixel_box_upper_corner: [i32; 3],
    /// im2col: elements of dimension 0 (channels) a copy reads per pixel, 1 to 256.
    pub channels_per_pixel: u32,
    /// im2col: pixels a copy reads (the box's rows), 1 to 1024.
    pub pixels_per_column: u32,
}

/// The offsets a packed corner holds at `rank` in `mode`, and the bits of each (0 offsets where
/// a rank has none).
fn corner_bits(rank: u32, mode: u8) -> (u32, u32) {
    match rank {
        3..=5 if is_wide(mode) => (1, 16),
        3..=5 => (rank - 2, 16 / (rank - 2)),
        _ => (0, 16),
    }
}

/// A corner's offsets packed into 16 bits for a map of `rank` and `mode` (see the module's doc).
fn pack_corner(c: &[i32; 3], rank: u32, mode: u8) -> u64 {
    let (n, bits) = corner_bits(rank, mode);
    (0..n).fold(0, |v, i| {
        v | ((c[i as usize] as u64) & ((1 << bits) - 1)) << (i * bits)
    })
}

/// The inverse of [`pack_corner`].
fn unpack_corner(v: u64, rank: u32, mode: u8) -> [i32; 3] {
    let (n, bits) = corner_bits(rank, mode);
    let mut c = [0; 3];
    for i in 0..n {
        let f = (v >> (i * bits)) & ((1 << bits) - 1);
        // Sign-extend the field.
        c[i as usize] = ((f << (64 - bits)) as i64 >> (64 - bits)) as i32;
    }
    c
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
            put("global_dim", d as u32, self.dims[d]);
            put("global_stride", d as u32, self.strides[d]);
            put("box_dim", d as u32, self.box_dim[d] as u64);
            put("element_stride", d as u32, self.elem_strides[d] as u64);
        }
        put("elemtype", 0, self.elemtype as u64);
        put("interleave_layout", 0, self.interleave as u64);
        put("swizzle_mode", 0, self.swizzle as u64);
        put("swizzle_atomicity", 0, self.atomicity as u64);
        put("fill_mode", 0, self.fill as u64);
        put("mode", 0, self.mode as u64);
        put("channels_per_pixel", 0, self.channels_per_pixel as u64);
        put("pixels_per_column", 0, self.pixels_per_column as u64);
        let corner = |c| pack_corner(c, self.rank, self.mode);
        put(
            "pixel_box_lower_corner",
            0,
            corner(&self.pixel_box_lower_corner),
        );
        put(
            "pixel_box_upper_corner",
            0,
            corner(&self.pixel_box_upper_corner),
        );
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
        let rank = get("rank", 0) as u32 + 1;
        let mode = get("mode", 0) as u8;
        let mut dims = per("global_dim");
        // A dimension of 2^32 is stored as 0.
        for d in dims.iter_mut().take(rank as usize) {
            if *d == 0 {
                *d = 1 << 32;
            }
        }
        Map {
            addr: get("global_address", 0),
            rank,
            dims,
            strides: per("global_stride"),
            box_dim: per("box_dim").map(|v| v as u32),
            elem_strides: per("element_stride").map(|v| v as u32),
            elemtype: get("elemtype", 0) as u8,
            interleave: get("interleave_layout", 0) as u8,
            swizzle: get("swizzle_mode", 0) as u8,
            atomicity: get("swizzle_atomicity", 0) as u8,
            fill: get("fill_mode", 0) as u8,
            mode,
            pixel_box_lower_corner: unpack_corner(get("pixel_box_lower_corner", 0), rank, mode),
            pixel_box_upper_corner: unpack_corner(get("pixel_box_upper_corner", 0), rank, mode),
            channels_per_pixel: get("channels_per_pixel", 0) as u32,
            pixels_per_column: get("pixels_per_column", 0) as u32,
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

    /// How the packed 4- and 6-bit types move (ISA 5.5.1.1; cuda.h's
    /// `CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B`, `16U4_ALIGN16B`, `16U6_ALIGN16B`), None for the
    /// others: in units of `values` elements, `global` bytes packed in the tensor and `shared`
    /// bytes in shared memory (the packed bytes first, then padding the copy leaves alone).
    pub fn packed(&self) -> Option<Packed> {
        let (values, global, shared) = match self.elemtype {
            13 => (2, 1, 1),
            14 => (16, 8, 16),
            15 => (16, 12, 16),
            _ => return None,
        };
        Some(Packed {
            values,
            global,
            shared,
        })
    }

    /// The pattern an out-of-bound element reads as: zero, or with `.fill_mode` 1 on a
    /// floating-point type the OOB-NaN, which the ISA does not encode: an H200 writes 0x7ff7 in
    /// every 16 bits of the element (f16 and bf16 0x7ff7, f32 0x7ff77ff7, f64
    /// 0x7ff77ff77ff77ff7; scripts/ground-truth/results/tma-oob-h200.txt), a NaN in each type.
    pub fn fill_bits(&self) -> u64 {
        match (self.fill, self.elemtype) {
            (1, 6 | 10) => 0x7ff7,
            (1, 7 | 8 | 11 | 12) => 0x7ff7_7ff7,
            (1, 9) => 0x7ff7_7ff7_7ff7_7ff7,
            _ => 0,
        }
    }
}

/// The unit of a packed type's copies: see [`Map::packed`].
#[derive(Clone, Copy, Debug)]
pub struct Packed {
    pub values: u64,
    pub global: u64,
    pub shared: u64,
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
        // The 96-byte swizzle's table: the 32-byte one's.
        assert_eq!(chunks(4, 1), [1, 0, 3, 2, 5, 4, 7, 6]);
        assert_eq!(chunks(4, 2), [0, 1, 2, 3, 4, 5, 6, 7]);
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
            ..Map::default()
        };
        assert_eq!(Map::from_bytes(&m.to_bytes()), m);
        // A dimension of 2^32, stored as 0.
        let big = Map {
            dims: [1 << 32, 10, 6, 0, 0],
            ..m
        };
        assert_eq!(Map::from_bytes(&big.to_bytes()), big);
    }

    #[test]
    fn an_im2col_map_reads_back_its_corners_at_every_rank() {
        // The extreme offsets the driver takes at each rank (16, 8 and 5 bits).
        for (rank, lo, hi) in [
            (3, [-32768, 0, 0], [32767, 0, 0]),
            (4, [-128, 127, 0], [127, -1, 0]),
            (5, [-16, 15, -1], [15, 0, -16]),
        ] {
            let m = Map {
                addr: 0x1000,
                rank,
                dims: [16, 8, 8, 2, 2],
                strides: [64, 512, 4096, 8192, 0],
                elem_strides: [1, 2, 2, 1, 1],
                elemtype: 7,
                mode: MODE_IM2COL,
                pixel_box_lower_corner: lo,
                pixel_box_upper_corner: hi,
                channels_per_pixel: 256,
                pixels_per_column: 1024,
                ..Map::default()
            };
            let m = Map {
                dims: std::array::from_fn(|d| if d < rank as usize { m.dims[d] } else { 0 }),
                ..m
            };
            assert_eq!(Map::from_bytes(&m.to_bytes()), m, "rank {rank}");
            // A wide map's W corners take 16 bits at every rank.
            for mode in [MODE_IM2COL_W, MODE_IM2COL_W128] {
                let w = Map {
                    mode,
                    pixel_box_lower_corner: [-32768, 0, 0],
                    pixel_box_upper_corner: [32767, 0, 0],
                    ..m
                };
                assert_eq!(Map::from_bytes(&w.to_bytes()), w, "rank {rank} mode {mode}");
            }
        }
    }
}
