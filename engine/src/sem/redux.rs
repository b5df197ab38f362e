//! Warp collectives: what `redux.sync` computes over the participating lanes' values, and which
//! lane `shfl.sync` reads.

use super::types::*;

/// `redux.sync` over the participating lanes' values (32-bit).
pub fn redux(op: ReduxOp, vals: impl Iterator<Item = u32>) -> u32 {
    match op {
        ReduxOp::Add => vals.fold(0u32, |a, v| a.wrapping_add(v)),
        ReduxOp::Min { signed: true } => vals.map(|v| v as i32).min().unwrap_or(0) as u32,
        ReduxOp::Max { signed: true } => vals.map(|v| v as i32).max().unwrap_or(0) as u32,
        ReduxOp::Min { signed: false } => vals.min().unwrap_or(0),
        ReduxOp::Max { signed: false } => vals.max().unwrap_or(0),
        ReduxOp::And => vals.fold(u32::MAX, |a, v| a & v),
        ReduxOp::Or => vals.fold(0, |a, v| a | v),
        ReduxOp::Xor => vals.fold(0, |a, v| a ^ v),
        ReduxOp::FMin { abs, nan } | ReduxOp::FMax { abs, nan } => {
            let is_max = matches!(op, ReduxOp::FMax { .. });
            const CANON: u32 = 0x7fff_ffff;
            let mut best: Option<u32> = None;
            for v in vals {
                let v = if abs { v & 0x7fff_ffff } else { v };
                if f32::from_bits(v).is_nan() {
                    if nan {
                        return CANON;
                    }
                    continue;
                }
                // Total order on non-NaN values with -0.0 < +0.0, as the ISA states.
                let key = |x: u32| {
                    if x >> 31 == 1 {
                        // -0.0 maps to -1, below +0.0 at 0.
                        -((x & 0x7fff_ffff) as i64) - 1
                    } else {
                        x as i64
                    }
                };
                best = Some(match best {
                    None => v,
                    Some(b) if (key(v) > key(b)) == is_max && key(v) != key(b) => v,
                    Some(b) => b,
                });
            }
            // Only NaN inputs: the canonical NaN.
            best.unwrap_or(CANON)
        }
    }
}

/// `shfl.sync`: the lane that `lane` reads for lane offset or index `b` (5 bits) and the packed
/// clamp and segment mask `c`, and whether it is in range (else the lane keeps its own value),
/// by the ISA's pseudo-code (9.7.9.6).
#[inline]
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (usize, bool) {
    let segmask = (c >> 8) & 0x1f;
    let max_lane = (lane & segmask) | (c & 0x1f & !segmask);
    let min_lane = lane & segmask;
    let (j, ok) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - b as i32;
            (j, j >= max_lane as i32)
        }
        ShflMode::Down => {
            let j = (lane + b) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Bfly => {
            let j = (lane ^ b) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Idx => {
            let j = (min_lane | (b & !segmask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if ok {
        (j as usize, true)
    } else {
        (lane as usize, false)
    }
}
