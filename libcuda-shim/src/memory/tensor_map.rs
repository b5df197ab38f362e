//! Tensor maps (`cuTensorMapEncodeTiled`, `cuTensorMapReplaceAddress`): the arguments are
//! checked as cuda.h documents them (each failure CUDA_ERROR_INVALID_VALUE), then written into
//! the 128-byte object in the layout `engine::tensormap` defines, which the engine's tensor
//! copies and `tensormap.replace` read. im2col maps are not encoded yet (NOT_SUPPORTED).

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use abi::*;
use engine::tensormap::Map;
use std::ffi::c_void;

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

/// Whether a driver data type is a floating-point one (the OOB-NaN fill needs one).
fn is_float(t: u32) -> bool {
    (6..=12).contains(&t)
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
    let ok = |c: bool| if c { Ok(()) } else { Err(INVALID_VALUE) };
    ok(!map.is_null() && (map as usize).is_multiple_of(64))?;
    let (code, bits) = elem_type(data_type.0).ok_or(INVALID_VALUE)?;
    let (il, sw, fill) = (interleave.0, swizzle.0, fill.0);
    ok(il <= 2 && sw <= 6 && l2.0 <= 3 && fill <= 1)?;
    ok((1..=5).contains(&rank) && (il == 0 || rank >= 3))?;
    ok(!dims.is_null() && !box_dim.is_null() && !elem_strides.is_null())?;
    ok(rank == 1 || !strides.is_null())?;
    let packed16 = matches!(data_type.0, 14 | 15);
    let addr = address as u64;
    ok(addr.is_multiple_of(if il == 2 || packed16 { 32 } else { 16 }))?;
    let r = rank as usize;
    // SAFETY: the caller passes arrays of `rank` (strides: `rank - 1`) elements.
    let (d, b, e) = unsafe {
        (
            std::slice::from_raw_parts(dims, r),
            std::slice::from_raw_parts(box_dim, r),
            std::slice::from_raw_parts(elem_strides, r),
        )
    };
    let s: &[u64] = if r > 1 {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(strides, r - 1) }
    } else {
        &[]
    };
    ok(d.iter().all(|&x| (1..=1 << 31).contains(&x)))?;
    ok(!packed16 || d[0].is_multiple_of(128))?;
    ok(data_type.0 != 13 || d[0].is_multiple_of(2))?;
    let stride_unit = if il == 2 || packed16 { 32 } else { 16 };
    ok(s.iter()
        .all(|&x| x.is_multiple_of(stride_unit) && x < 1 << 40))?;
    ok(b.iter().all(|&x| (1..=256).contains(&x)))?;
    let inner = b[0] as u64 * bits as u64 / 8;
    ok(il != 0 || (b[0] as u64 * bits as u64).is_multiple_of(128))?;
    ok(!packed16 || b[0] == 128)?;
    ok(e.iter().all(|&x| (1..=8).contains(&x)))?;
    // The box's inner dimension fits the swizzle span.
    let span = match sw {
        1 => 32,
        2 => 64,
        3..=6 => 128,
        _ => u64::MAX,
    };
    ok(il != 0 || inner <= span)?;
    ok(il != 2 || sw == 1)?;
    ok(data_type.0 != 15 || il == 0)?;
    ok(fill == 0 || (is_float(data_type.0) && data_type.0 < 13))?;
    let (mode, atomicity) = match sw {
        4 => (3, 1),
        5 => (3, 2),
        6 => (3, 3),
        m => (m as u8, 0),
    };
    let mut m = Map {
        addr,
        rank,
        elemtype: code,
        interleave: il as u8,
        swizzle: mode,
        atomicity,
        fill: fill as u8,
        ..Map::default()
    };
    for k in 0..r {
        m.dims[k] = d[k] as u32;
        m.box_dim[k] = b[k];
        m.elem_strides[k] = e[k];
        if k + 1 < r {
            m.strides[k] = s[k];
        }
    }
    let bytes = m.to_bytes();
    // SAFETY: checked non-null and aligned; a CUtensorMap is 128 bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), map as *mut u8, bytes.len()) };
    Ok(())
}

pub(crate) unsafe fn replace_address(map: *mut CUtensorMap, address: *mut c_void) -> CuResult {
    context::active()?;
    if map.is_null() || !(map as usize).is_multiple_of(64) {
        return Err(INVALID_VALUE);
    }
    let mut bytes = [0u8; engine::tensormap::BYTES as usize];
    // SAFETY: checked non-null; a CUtensorMap is 128 bytes.
    unsafe { std::ptr::copy_nonoverlapping(map as *const u8, bytes.as_mut_ptr(), bytes.len()) };
    let mut m = Map::from_bytes(&bytes);
    let align = if m.interleave == 2 || matches!(m.elemtype, 14 | 15) {
        32
    } else {
        16
    };
    if !(address as u64).is_multiple_of(align) {
        return Err(INVALID_VALUE);
    }
    m.addr = address as u64;
    let bytes = m.to_bytes();
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), map as *mut u8, bytes.len()) };
    Ok(())
}
