//! Tensor maps (`cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col`,
//! `cuTensorMapEncodeIm2colWide`, `cuTensorMapReplaceAddress`): the arguments are checked as a real driver checks them (each
//! failure CUDA_ERROR_INVALID_VALUE), then written into the 128-byte object in the layout
//! `engine::tensormap` defines, which the engine's tensor copies and `tensormap.replace` read.
//!
//! The checks are what an H200 with driver 580.159 answered to `tests/cuda/tma_probe.cu`
//! (`scripts/ground-truth/results/tma-h200.txt`; its cases are named below as `tiled CASE`,
//! `im2col CASE`, `replace CASE`, and its part 6's bisections as `bisect ...`: the largest box
//! and the largest and smallest im2col dimensions each encoder takes). `tests/tensor_maps.rs`
//! runs the probe on the shim and compares every line. Where the driver and cuda.h's prose
//! disagree, the driver's answers win: it does not check the map's alignment, takes a NULL
//! `globalAddress`, a zero stride, a stride shorter than a row, dimensions up to 2^32, and an
//! interleaved map with any swizzle, and it refuses boxes over 228 KiB. The packed 4- and 6-bit
//! types and the swizzle modes 4 to 6 are refused on sm_90; on an sm_100 profile they pass
//! cuda.h's checks (not measured).

use crate::config;
use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use abi::*;
use engine::tensormap::{self, Map, MODE_IM2COL, MODE_IM2COL_W, MODE_IM2COL_W128, MODE_TILE};
use std::ffi::{c_int, c_void};

/// The ISA's element-type code (Table 33) of a driver data type, and its size in bits.
fn elem_type(t: u32) -> Option<(u8, u32)> {
    Some(match t {
        0 => (0, 8),
        1 => (1, 16),
        2 => (2, 32),
        3 => (3, 32),
        4 => (4, 64),
        5 => (5, 64),
        6 => (6, 16),
        7 => (7, 32),
        8 => (9, 64),
        9 => (10, 16),
        10 => (8, 32),
        11 => (11, 32),
        12 => (12, 32),
        13 => (13, 4),
        14 => (14, 4),
        15 => (15, 6),
        _ => return None,
    })
}

/// `Ok` when `c` holds, else CUDA_ERROR_INVALID_VALUE.
fn ok(c: bool) -> CuResult {
    if c {
        Ok(())
    } else {
        Err(INVALID_VALUE)
    }
}

/// What both encoders take alike, checked.
struct Common<'a> {
    /// The ISA's element-type code, and the element's size in bits.
    code: u8,
    bits: u64,
    rank: usize,
    addr: u64,
    dims: &'a [u64],
    /// `rank - 1` strides.
    strides: &'a [u64],
    elem_strides: &'a [u32],
    interleave: u32,
    swizzle: u32,
    fill: u32,
}

/// The checks both encoders make, on the arguments they share; `ranks` is the encoder's range
/// of ranks.
#[allow(clippy::too_many_arguments)]
unsafe fn common<'a>(
    map: *mut CUtensorMap,
    data_type: CUtensorMapDataType,
    rank: cuuint32_t,
    ranks: std::ops::RangeInclusive<u32>,
    address: *mut c_void,
    dims: *const cuuint64_t,
    strides: *const cuuint64_t,
    elem_strides: *const cuuint32_t,
    interleave: CUtensorMapInterleave,
    swizzle: CUtensorMapSwizzle,
    l2: CUtensorMapL2promotion,
    fill: CUtensorMapFloatOOBfill,
) -> CuResult<Common<'a>> {
    // `tiled map_null`, `im2col map_null`. The map's alignment is not checked,
    // though cuda.h asks for 64 bytes: `tiled map_off8`, `im2col map_off8` succeed.
    ok(!map.is_null())?;
    // The enums' ranges: `tiled dtype16`, `interleave3`, `swizzle7`, `l2promo4`, `oobfill2`,
    // the same `im2col` cases.
    let (code, bits) = elem_type(data_type.0).ok_or(INVALID_VALUE)?;
    let (il, sw) = (interleave.0, swizzle.0);
    ok(il <= 2 && sw <= 6 && l2.0 <= 3 && fill.0 <= 1)?;
    // sm_90 refuses the packed 4- and 6-bit types (`tiled packed_*`, every one) and the swizzle
    // modes 4 to 6, the 32- and 64-byte atoms of sm_100 (`tiled sw4_*`, `sw5_*`, `sw6_*`,
    // `im2col packed_*`, `sw4`, `sw5`, `sw6`).
    let packed = code >= 13;
    ok(config::profile().sm() >= 100 || (!packed && sw <= 3))?;
    ok(ranks.contains(&rank))?;
    // Each array must be there, `globalStrides` even at rank 1 (`tiled dims_null`,
    // `rank1_strides_null`, `box_null`, `es_null`).
    ok(!dims.is_null() && !strides.is_null() && !elem_strides.is_null())?;
    let r = rank as usize;
    // SAFETY: checked non-null; the caller passes arrays of `rank` elements (strides: `rank - 1`).
    let (dims, strides, elem_strides) = unsafe {
        (
            std::slice::from_raw_parts(dims, r),
            std::slice::from_raw_parts(strides, r - 1),
            std::slice::from_raw_parts(elem_strides, r),
        )
    };
    // The 32-byte interleave needs 32-byte units (`tiled il32_addr_off16`, `il32_stride48`),
    // as cuda.h says the packed types of 16-byte alignment do (sm_100, not measured).
    let packed16 = matches!(code, 14 | 15);
    let unit = if il == 2 || packed16 { 32 } else { 16 };
    // The address in those units (`tiled addr_off8`, `im2col addr_off8`); NULL is taken
    // (`tiled addr_null`).
    let addr = address as u64;
    ok(addr.is_multiple_of(unit))?;
    // Dimensions 1 to 2^32, not cuda.h's 2^31 (`tiled dim0_0` refused, `dim1_2p31p1` and
    // `dim1_2p32` taken, `dim1_2p32p1` refused; `bisect im2col dim c`, `n`). The spatial
    // dimensions of an im2col map have a tighter bound, `encode_im2col`'s.
    ok(dims.iter().all(|&d| (1..=1 << 32).contains(&d)))?;
    // cuda.h's packed dimensions (sm_100, not measured).
    ok(!packed16 || dims[0].is_multiple_of(128))?;
    ok(code != 13 || dims[0].is_multiple_of(2))?;
    // Strides in those units and below 2^40 (`tiled stride100`, `stride_2p40m16`,
    // `stride_2p40`, `im2col stride100`); 0 and a stride shorter than a row are taken (`tiled
    // stride0`, `stride128_lt_row`, `rank3_stride1_lt_stride0`).
    ok(strides
        .iter()
        .all(|&s| s.is_multiple_of(unit) && s < 1 << 40))?;
    // Traversal strides 1 to 8 (`tiled es0_0`, `es1_8`, `es1_9`, `es0_9`), in dimension 0 too.
    ok(elem_strides.iter().all(|&e| (1..=8).contains(&e)))?;
    // The OOB-NaN fill only for the floating-point types (`tiled dtype_*_fill_nan`,
    // `im2col fill_nan_i32`); cuda.h refuses it for the packed ones too.
    ok(fill.0 == 0 || (6..=12).contains(&data_type.0))?;
    // cuda.h: the 6-bit type only without interleave (sm_100, not measured).
    ok(code != 15 || il == 0)?;
    Ok(Common {
        code,
        bits: bits as u64,
        rank: r,
        addr,
        dims,
        strides,
        elem_strides,
        interleave: il,
        swizzle: sw,
        fill: fill.0,
    })
}

impl Common<'_> {
    /// The checks of the box a copy moves, both encoders alike: `inner` elements a row (a
    /// tile map's `boxDim[0]`, an im2col map's `channelsPerPixel`), `elems` elements in all.
    fn check_box(&self, inner: u64, elems: u64) -> CuResult {
        let row = inner * self.bits;
        // A row is whole 16-byte units, with interleave too (`tiled box0_3_12B`,
        // `il16_box0_1_4B`, `il16_box0_3_12B`, `il32_sw0_box0_3_12B`, `im2col cpp3_12B`,
        // `il16_cpp3_12B`).
        ok(row.is_multiple_of(128))?;
        // Without interleave, a swizzled row fits the swizzle's span (`tiled sw32_box0_16_64B`,
        // `sw64_box0_32_128B`, `sw128_box0_64_256B`, `im2col sw*`); with interleave any
        // swizzle takes any row (`tiled il16_sw32_box0_16_64B`, `il32_sw32_box0_16_64B`,
        // `im2col il16_sw32_cpp16_64B`), and the 32-byte interleave needs no 32-byte swizzle,
        // whatever cuda.h says (`tiled il32_rank3_sw0`, `il32_rank3_sw128`).
        let span = match self.swizzle {
            1 => 32,
            2 => 64,
            3..=6 => 128,
            _ => u64::MAX,
        };
        ok(self.interleave != 0 || row / 8 <= span)?;
        // The box fits the multiprocessor's shared memory: 233,472 bytes (228 KiB) on the
        // H200 (`bisect tiled box *` with f32, f64 and u8 boxes of ranks 2 to 5, with and
        // without swizzle or interleave; `bisect im2col ppc *` with f32, f16, u8 and f64;
        // `im2col ppc1024_cpp256`, 1 MiB, refused). The profile's figure stands in for it
        // (228 KiB on the H100 and B200 too).
        let smem = config::profile().shared_per_sm as u64;
        ok((elems * self.bits).div_ceil(8) <= smem)
    }

    /// The map, less the mode's own fields.
    fn map(&self) -> Map {
        let (mode, atomicity) = match self.swizzle {
            4 => (3, 1),
            5 => (3, 2),
            6 => (3, 3),
            m => (m as u8, 0),
        };
        let mut m = Map {
            addr: self.addr,
            rank: self.rank as u32,
            elemtype: self.code,
            interleave: self.interleave as u8,
            swizzle: mode,
            atomicity,
            fill: self.fill as u8,
            ..Map::default()
        };
        m.dims[..self.rank].copy_from_slice(self.dims);
        m.strides[..self.rank - 1].copy_from_slice(self.strides);
        m.elem_strides[..self.rank].copy_from_slice(self.elem_strides);
        m
    }
}

/// Writes `m` into the caller's 128 bytes at `map` (checked non-null; any alignment).
unsafe fn store(map: *mut CUtensorMap, m: &Map) {
    let bytes = m.to_bytes();
    // SAFETY: the caller checked `map` non-null; a CUtensorMap is 128 bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), map as *mut u8, bytes.len()) };
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn encode_tiled(
    map: *mut CUtensorMap,
    data_type: CUtensorMapDataType,
    rank: cuuint32_t,
    address: *mut c_void,
    dims: *const cuuint64_t,
    strides: *const cuuint64_t,
    box_dim: *const cuuint32_t,
    elem_strides: *const cuuint32_t,
    interleave: CUtensorMapInterleave,
    swizzle: CUtensorMapSwizzle,
    l2: CUtensorMapL2promotion,
    fill: CUtensorMapFloatOOBfill,
) -> CuResult {
    context::active()?;
    // Ranks 1 to 5 (`tiled rank0`, `rank1`, `rank5`, `rank6`).
    // SAFETY: the caller's arrays, as cuda.h describes them.
    let c = unsafe {
        common(
            map,
            data_type,
            rank,
            1..=5,
            address,
            dims,
            strides,
            elem_strides,
            interleave,
            swizzle,
            l2,
            fill,
        )
    }?;
    // Interleave needs rank 3 or more (`tiled il16_rank1`, `il16_rank2`, `il16_rank3`).
    ok(c.interleave == 0 || c.rank >= 3)?;
    ok(!box_dim.is_null())?;
    // SAFETY: checked non-null; `rank` elements.
    let b = unsafe { std::slice::from_raw_parts(box_dim, c.rank) };
    // Box sides 1 to 256 (`tiled box0_0`, `box1_256`, `box1_257`), larger than the tensor
    // too (`box0_128_gt_dim`).
    ok(b.iter().all(|&x| (1..=256).contains(&x)))?;
    // cuda.h: a packed type of 16-byte alignment reads rows of 128 (sm_100, not measured).
    ok(!matches!(c.code, 14 | 15) || b[0] == 128)?;
    // The elements the size check counts: `boxDim[i] / elementStrides[i]` rounded down in
    // every dimension, though a copy moves that quotient rounded up (`bisect tiled box
    // f32_4x256xk_es0_3`: k up to 228, as for 1x256xk elements; `f32_256x7xk_es1_8`: k up to
    // 256, as for no element; `f32_12x256xk_es0_5`, `f32_256x5xk_es2_2`).
    let elems = b
        .iter()
        .zip(c.elem_strides)
        .map(|(&x, &e)| (x / e) as u64)
        .product();
    c.check_box(b[0] as u64, elems)?;
    let mut m = Map {
        mode: MODE_TILE,
        ..c.map()
    };
    m.box_dim[..c.rank].copy_from_slice(b);
    // SAFETY: checked non-null.
    unsafe { store(map, &m) };
    Ok(())
}

/// The bounds of an im2col map's corners at `rank` (cuda.h's, and `im2col r4_lo0_m128`,
/// `r4_lo0_m129`, `r4_hi0_127`, `r4_hi0_128`, `r5_lo_m16`, `r5_lo0_m17`, `r5_hi_15`,
/// `r5_hi0_16`, `r3_lo_m32768`, `r3_lo_m32769`, `r3_hi_32767`, `r3_hi_32768`): a signed field of
/// 16, 8 or 5 bits.
fn corner_range(rank: usize) -> std::ops::RangeInclusive<i64> {
    let bits = 16 / (rank as u32 - 2);
    -(1 << (bits - 1))..=(1 << (bits - 1)) - 1
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn encode_im2col(
    map: *mut CUtensorMap,
    data_type: CUtensorMapDataType,
    rank: cuuint32_t,
    address: *mut c_void,
    dims: *const cuuint64_t,
    strides: *const cuuint64_t,
    lower: *const c_int,
    upper: *const c_int,
    channels_per_pixel: cuuint32_t,
    pixels_per_column: cuuint32_t,
    elem_strides: *const cuuint32_t,
    interleave: CUtensorMapInterleave,
    swizzle: CUtensorMapSwizzle,
    l2: CUtensorMapL2promotion,
    fill: CUtensorMapFloatOOBfill,
) -> CuResult {
    context::active()?;
    // Ranks 3 to 5 (`im2col rank2`, `rank3`, `rank5`, `rank6`); interleave at any of them
    // (`im2col il16_rank3`).
    // SAFETY: the caller's arrays, as cuda.h describes them.
    let c = unsafe {
        common(
            map,
            data_type,
            rank,
            3..=5,
            address,
            dims,
            strides,
            elem_strides,
            interleave,
            swizzle,
            l2,
            fill,
        )
    }?;
    ok(!lower.is_null() && !upper.is_null())?;
    let spatial = c.rank - 2;
    // SAFETY: checked non-null; one offset per spatial dimension.
    let (lo, hi) = unsafe {
        (
            std::slice::from_raw_parts(lower, spatial),
            std::slice::from_raw_parts(upper, spatial),
        )
    };
    let range = corner_range(c.rank);
    for i in 0..spatial {
        let (l, h, d) = (lo[i] as i64, hi[i] as i64, c.dims[i + 1] as i64);
        ok(range.contains(&l) && range.contains(&h))?;
        // The bounding box holds a pixel at least: `d + h - l` positions (`im2col
        // r4_zero_area_lo4_hi-4` refused, `r4_one_pixel_lo3_hi-4` taken, `r4_lo0_127`,
        // `r5_area0_d`, `r3_area0`; whatever the traversal strides: `area1_es2`, `bisect
        // im2col dim w_lo100_hi-100_es1_4`).
        ok(d + h - l >= 1)?;
        // Its last position `d - 1 + h` is below 2^31 - 1: a spatial dimension is at most
        // 2^31 - 1 - h, whatever the lower corner (`bisect im2col dim w*`, `r5_d_lo3_hi7`,
        // `r3_w_*`; `im2col dim1_2p31p1` refused with corners -1).
        ok(d + h < 1 << 31)?;
    }
    // 1 to 256 channels a pixel (`im2col cpp0`, `cpp256`, `cpp257`), more than the tensor
    // has too (`cpp32_gt_C`); cuda.h: 128 for a packed type of 16-byte alignment (sm_100,
    // not measured).
    ok((1..=256).contains(&channels_per_pixel))?;
    ok(!matches!(c.code, 14 | 15) || channels_per_pixel == 128)?;
    // 1 to 1024 pixels (`im2col ppc0`, `ppc1`, `ppc1024`, `ppc1025`).
    ok((1..=1024).contains(&pixels_per_column))?;
    // The box is the pixels' channels; traversal strides do not shrink it (`bisect im2col
    // ppc f32_cpp256`: 228 pixels; `im2col cpp256_ppc229_es0_2` refused).
    c.check_box(
        channels_per_pixel as u64,
        channels_per_pixel as u64 * pixels_per_column as u64,
    )?;
    let mut m = Map {
        mode: MODE_IM2COL,
        channels_per_pixel,
        pixels_per_column,
        ..c.map()
    };
    m.pixel_box_lower_corner[..spatial].copy_from_slice(lo);
    m.pixel_box_upper_corner[..spatial].copy_from_slice(hi);
    // SAFETY: checked non-null.
    unsafe { store(map, &m) };
    Ok(())
}

/// `cuTensorMapEncodeIm2colWide` (sm_100): an im2col map whose copies (`.im2col::w`,
/// `.im2col::w::128`) walk W alone. No GPU of sm_100 has answered for it: the checks are
/// cuda.h's, made as the other encoders make the ones they share with it (whatever an H200
/// answered for those), each failure CUDA_ERROR_INVALID_VALUE.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn encode_im2col_wide(
    map: *mut CUtensorMap,
    data_type: CUtensorMapDataType,
    rank: cuuint32_t,
    address: *mut c_void,
    dims: *const cuuint64_t,
    strides: *const cuuint64_t,
    lower_w: c_int,
    upper_w: c_int,
    channels_per_pixel: cuuint32_t,
    pixels_per_column: cuuint32_t,
    elem_strides: *const cuuint32_t,
    interleave: CUtensorMapInterleave,
    mode: CUtensorMapIm2ColWideMode,
    swizzle: CUtensorMapSwizzle,
    l2: CUtensorMapL2promotion,
    fill: CUtensorMapFloatOOBfill,
) -> CuResult {
    context::active()?;
    // cuda.h: "only supported on devices of compute capability 10.0 or higher"; an H200's
    // driver encodes such maps all the same (results/tma-wide-h200.txt: CUDA_SUCCESS in both
    // modes), so every profile does. Only sm_100's copies read them (`.im2col::w` is refused
    // at load below sm_100).
    // Ranks 3 to 5, and everything the other encoders check alike.
    // SAFETY: the caller's arrays, as cuda.h describes them.
    let c = unsafe {
        common(
            map,
            data_type,
            rank,
            3..=5,
            address,
            dims,
            strides,
            elem_strides,
            interleave,
            swizzle,
            l2,
            fill,
        )
    }?;
    // The mode: W or W128.
    let mode = match mode.0 {
        0 => MODE_IM2COL_W,
        1 => MODE_IM2COL_W128,
        _ => return Err(INVALID_VALUE),
    };
    // The ISA (5.5.5, 5.5.6): "The interleave layout is not supported for .im2col::w and
    // .im2col::w::128 modes".
    ok(c.interleave == 0)?;
    // cuda.h: the swizzle is 64B, 128B or 128B_ATOM_32B, "other swizzle modes are not
    // supported" (its 96B swizzle, for the W mode only, is no value of this cuda.h's enum).
    // But an H200's driver encodes a map with no swizzle (results/tma-wide-h200.txt), so that
    // is taken too; the 32-byte one, not measured, is refused as cuda.h says.
    ok(matches!(c.swizzle, 0 | 2..=4))?;
    // Each corner within [-32768, 32767], and a box of non-zero area along W (H and D are one
    // pixel). The last position below 2^31 - 1, as cuTensorMapEncodeIm2col takes it.
    let range = -32768..=32767;
    let (l, h, d) = (lower_w as i64, upper_w as i64, c.dims[1] as i64);
    ok(range.contains(&l) && range.contains(&h))?;
    ok(d + h - l >= 1 && d + h < 1 << 31)?;
    // Channels as cuTensorMapEncodeIm2col takes them: 1 to 256, 128 for a packed type of
    // 16-byte alignment.
    ok((1..=256).contains(&channels_per_pixel))?;
    ok(!matches!(c.code, 14 | 15) || channels_per_pixel == 128)?;
    // Pixels: 1 to 1024 in the W mode; "ignored" in the W128 mode, whose copies read 128.
    let pixels = match mode {
        MODE_IM2COL_W => {
            ok((1..=1024).contains(&pixels_per_column))?;
            pixels_per_column
        }
        _ => 128,
    };
    // The row within the swizzle's span, in 16-byte units, and the column within shared
    // memory (the halo pixels the instructions add are theirs, not the map's).
    c.check_box(
        channels_per_pixel as u64,
        channels_per_pixel as u64 * pixels as u64,
    )?;
    let mut m = Map {
        mode,
        channels_per_pixel,
        pixels_per_column: if mode == MODE_IM2COL_W {
            pixels_per_column
        } else {
            0
        },
        ..c.map()
    };
    m.pixel_box_lower_corner[0] = lower_w;
    m.pixel_box_upper_corner[0] = upper_w;
    // SAFETY: checked non-null.
    unsafe { store(map, &m) };
    Ok(())
}

pub(crate) unsafe fn replace_address(map: *mut CUtensorMap, address: *mut c_void) -> CuResult {
    context::active()?;
    // The real driver crashed (SIGSEGV) on a NULL map (`replace map_null`); the shim must never
    // bring its host down, so it answers CUDA_ERROR_INVALID_VALUE. The map's alignment is not
    // checked (`replace map_off8`), nor its contents (`replace zero_map`, `ones_map`).
    ok(!map.is_null())?;
    // A NULL address is refused here, though the encoders take one (`replace addr_null`); the
    // address is 16-byte aligned, also in a map of 32-byte interleave (`replace addr_off8`,
    // `il32_addr_off16`, `ones_map_addr_off8`), and need not be allocated (`addr_unmapped`).
    ok(!address.is_null() && (address as u64).is_multiple_of(16))?;
    // Only the address field is written: the rest of the 128 bytes is the program's, whatever
    // it holds (the driver too writes the address into the first 8 bytes: `replace zero_map`).
    let (off, width) = tensormap::field("global_address", 0).expect("the address field");
    let bytes = (address as u64).to_le_bytes();
    // SAFETY: checked non-null; the field lies inside the 128-byte object.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            (map as *mut u8).add(off as usize),
            width as usize,
        )
    };
    Ok(())
}
