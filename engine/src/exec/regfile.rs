//! A warp's register file: each register is 32 lanes of 64-bit slots, one row; reads of
//! sources (registers or immediates), masked writes, and lane masks.

use super::warp::FULL;
use crate::ir::*;

#[inline(always)]
pub(super) fn fetch(regs: &[u64], s: Src, out: &mut Lanes) {
    match s {
        Src::Reg(r) => out.copy_from_slice(&regs[r as usize * 32..r as usize * 32 + 32]),
        Src::Imm(v) => *out = [v; 32],
    }
}

#[inline(always)]
pub(super) fn get(regs: &[u64], s: Src, lane: usize) -> u64 {
    match s {
        Src::Reg(r) => regs[r as usize * 32 + lane],
        Src::Imm(v) => v,
    }
}

#[inline(always)]
pub(super) fn write(regs: &mut [u64], d: Reg, o: &Lanes, mask: u32) {
    let dst = row_mut(regs, d);
    if mask == FULL {
        *dst = *o;
    } else {
        // A select per lane rather than a branch: vectorizes.
        for (l, v) in dst.iter_mut().enumerate() {
            *v = if mask >> l & 1 != 0 { o[l] } else { *v };
        }
    }
}

/// For an op writing every lane of `d` from sources `srcs`: `d`'s row (mutable) and the
/// sources' rows in place (immediates spread into `tmps`), so the lane function reads and
/// writes the register file with no copy. None when `d` is also a source: a `&mut` row may not
/// alias a `&` one, so the caller computes into a temporary instead.
#[inline(always)]
pub(super) fn split<'a, const N: usize>(
    regs: &'a mut [u64],
    d: Reg,
    srcs: [Src; N],
    tmps: &'a mut [Lanes],
) -> Option<(&'a mut Lanes, [&'a Lanes; N])> {
    if srcs.contains(&Src::Reg(d)) {
        return None;
    }
    assert!(tmps.len() >= N);
    let len = regs.len();
    let di = d as usize * 32;
    assert!(di + 32 <= len);
    let p = regs.as_mut_ptr();
    // (A plain loop over indices: `array::map` is not reliably inlined, nor is a `zip` of the
    // arrays once the interpreter's loop grows (the reduction benchmark ran 5% more
    // instructions so), and this runs per instruction.)
    static NONE: Lanes = [0; 32];
    let mut ins: [&'a Lanes; N] = [&NONE; N];
    let mut ts = tmps.iter_mut();
    #[allow(clippy::needless_range_loop)]
    for k in 0..N {
        let t = ts.next().unwrap();
        ins[k] = match srcs[k] {
            Src::Reg(r) => {
                let k = r as usize * 32;
                assert!(k + 32 <= len);
                // SAFETY: row r is inside `regs` (asserted) and is not row d, the only one
                // handed out mutably; all pointers derive from the one `as_mut_ptr`.
                unsafe { &*(p.add(k) as *const Lanes) }
            }
            Src::Imm(v) => {
                *t = [v; 32];
                t
            }
        };
    }
    // SAFETY: row d is inside `regs` (asserted) and aliases none of the source rows (checked
    // above) nor the temporaries.
    let o = unsafe { &mut *(p.add(di) as *mut Lanes) };
    Some((o, ins))
}

/// Register `r`'s 32 lanes.
#[inline(always)]
pub(super) fn row(regs: &[u64], r: Reg) -> &Lanes {
    let i = r as usize * 32;
    regs[i..i + 32].try_into().unwrap()
}

#[inline(always)]
pub(super) fn row_mut(regs: &mut [u64], r: Reg) -> &mut Lanes {
    let i = r as usize * 32;
    (&mut regs[i..i + 32]).try_into().unwrap()
}

/// Operand `s` as lanes without copying a register: its row in place, or the immediate spread
/// into `tmp`.
#[inline(always)]
pub(super) fn opnd<'a>(regs: &'a [u64], s: Src, tmp: &'a mut Lanes) -> &'a Lanes {
    match s {
        Src::Reg(r) => row(regs, r),
        Src::Imm(v) => {
            *tmp = [v; 32];
            tmp
        }
    }
}

/// Bit l set when lane l of a predicate row is true (bit 0 of its slot).
#[inline(always)]
pub(super) fn pred_mask(p: &Lanes) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let mut m = 0u32;
        for (k, pair) in p.chunks_exact(2).enumerate() {
            // SAFETY: SSE2 is part of the x86_64 baseline; the load reads the two u64 of `pair`
            // (unaligned load). Shifting bit 0 into the sign bit lets movmskpd collect it.
            let b = unsafe {
                let v = _mm_loadu_si128(pair.as_ptr() as *const __m128i);
                _mm_movemask_pd(_mm_castsi128_pd(_mm_slli_epi64(v, 63)))
            };
            m |= (b as u32) << (2 * k);
        }
        m
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for (l, v) in p.iter().enumerate() {
            m |= ((*v & 1) as u32) << l;
        }
        m
    }
}

#[inline(always)]
pub(super) fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}
