//! The `tcgen05` family (ISA 9.7.16) with `.cta_group::1`: a CTA's Tensor Memory (128 lanes of
//! 512 32-bit columns, allocated by columns), the warp-wide `alloc`, `dealloc`,
//! `relinquish_alloc_permit`, `ld` and `st` (`MatrixOp::Tmem`), and `mma` (`Op::TcMma`), which
//! each issuing lane runs at issue with `crate::sem::mma`'s arithmetic.

use super::cta::{Cta, Fault};
use super::regfile::*;
use super::warp::*;
use crate::ir::*;
use crate::sem::mma::{self, El};

pub const LANES: usize = 128;
pub const COLUMNS: usize = 512;

/// A CTA's Tensor Memory: `cells[lane * COLUMNS + column]`, made at the first `alloc`.
pub struct Tmem {
    cells: Vec<u32>,
    /// Allocated 32-column chunks, bit `c` for columns `32c..32c+32`.
    used: u16,
    relinquished: bool,
}

impl Default for Tmem {
    fn default() -> Self {
        Tmem {
            cells: vec![0; LANES * COLUMNS],
            used: 0,
            relinquished: false,
        }
    }
}

impl Tmem {
    /// Whether columns `col..col + n` are all allocated.
    fn allocated(&self, col: usize, n: usize) -> bool {
        n > 0
            && col + n <= COLUMNS
            && (col / 32..(col + n).div_ceil(32)).all(|c| self.used >> c & 1 != 0)
    }
}

/// Lane (from the access's base lane) and 32-bit column unit (from its base column) of
/// register `j` of thread `t` in a `tcgen05.ld`/`st` of `shape`, and whether it is the second
/// access of `.16x32bx2`. The layouts of ISA figures 183-187, as CUTLASS 4.2's
/// `Copy_Traits<SM100_TMEM_LOAD_*>` (cute/atom/copy_traits_sm100.hpp) write them.
pub fn ldst_coord(shape: TmemShape, t: u32, j: u32) -> (u32, u32, bool) {
    match shape {
        TmemShape::S32x32b => (t, j, false),
        TmemShape::S16x64b => (8 * (t % 2) + t / 4, (t / 2) % 2 + 2 * j, false),
        TmemShape::S16x128b => (t / 4 + 8 * (j % 2), t % 4 + 4 * (j / 2), false),
        TmemShape::S16x256b => {
            let r = j % 4;
            (
                t / 4 + 8 * (r / 2),
                2 * (t % 4) + r % 2 + 8 * (j / 4),
                false,
            )
        }
        TmemShape::S16x32bx2 => (t % 16, j, t >= 16),
    }
}

/// The fields of an instruction descriptor of `.kind::f16`, `::tf32` and `::i8` (ISA table 44).
struct Idesc {
    m: usize,
    n: usize,
    d: El,
    a: El,
    b: El,
    sat: bool,
    neg_a: bool,
    neg_b: bool,
    trans_a: bool,
    trans_b: bool,
}

/// Decodes `v` for the kind of `bits`-bit elements, or says what the ISA does not allow (or
/// what is not taken yet).
fn idesc(kind: u8, v: u32) -> Result<Idesc, String> {
    let f = |lo: u32, n: u32| (v >> lo) & ((1 << n) - 1);
    if f(2, 1) != 0 {
        return Err("a sparse instruction descriptor (bit 2) without .sp".into());
    }
    if f(30, 2) != 0 {
        return Err("a B-reuse shift (bits 30-31) without .ws".into());
    }
    if f(6, 1) != 0 || f(23, 1) != 0 || f(29, 1) != 0 {
        return Err("reserved bits of the instruction descriptor set".into());
    }
    let (d, a, b) = (f(4, 2), f(7, 3), f(10, 3));
    let (d, a, b) = match kind {
        16 => {
            let ab = match (a, b) {
                (0, 0) => El::F16,
                (1, 1) => El::Bf16,
                _ => return Err(format!("atype {a} / btype {b} for .kind::f16")),
            };
            let d = match d {
                0 if ab == El::F16 => El::F16,
                1 => El::F32,
                _ => return Err(format!("dtype {d} for .kind::f16 with atype {a}")),
            };
            (d, ab, ab)
        }
        32 => {
            if (d, a, b) != (1, 2, 2) {
                return Err(format!("dtype {d} / atype {a} / btype {b} for .kind::tf32"));
            }
            (El::F32, El::Tf32, El::Tf32)
        }
        _ => {
            let t = |x: u32| if x == 1 { El::S8 } else { El::U8 };
            if d != 2 || a > 1 || b > 1 {
                return Err(format!("dtype {d} / atype {a} / btype {b} for .kind::i8"));
            }
            (El::S32, t(a), t(b))
        }
    };
    let (m, n) = ((f(24, 5) << 4) as usize, (f(17, 6) << 3) as usize);
    let n_ok = match kind {
        8 => matches!(n, 8 | 16 | 24 | 32) || (n % 16 == 0 && n <= 256),
        _ => n % 8 == 0 && (8..=256).contains(&n),
    };
    if !matches!(m, 64 | 128) || !n_ok {
        return Err(format!(
            "M = {m}, N = {n} (cta_group::1: M 64 or 128, N as ISA table 41 gives)"
        ));
    }
    let x = Idesc {
        m,
        n,
        d,
        a,
        b,
        sat: f(3, 1) != 0,
        neg_a: f(13, 1) != 0,
        neg_b: f(14, 1) != 0,
        trans_a: f(15, 1) != 0,
        trans_b: f(16, 1) != 0,
    };
    if kind == 8 && (x.neg_a || x.neg_b) {
        return Err("negation with .kind::i8".into());
    }
    if kind != 8 && x.sat {
        return Err("saturation (bit 3) with a float kind".into());
    }
    Ok(x)
}

/// A tcgen05 shared-memory descriptor (ISA table 42) in the layout of `wgmma`'s, which
/// `crate::sem::fragment::wgmma_smem` reads: the same start address, leading and stride byte
/// offsets and base offset; the 3-bit swizzle mode (0 none, 2 128B, 4 64B, 6 32B) as wgmma's
/// 2-bit one. `Err`: a mode not taken (1, 128B with 32-byte atomicity; the absolute leading
/// dimension address of bit 52, sm_103a's) or invalid (3, 5, 7).
fn wgmma_desc(d: u64) -> Result<u64, String> {
    let sw = match d >> 61 {
        0 => 0,
        2 => 1,
        4 => 2,
        6 => 3,
        1 => return Err("128-byte swizzling with 32-byte atomicity is not supported yet".into()),
        x => return Err(format!("swizzling mode {x} is invalid")),
    };
    if d >> 52 & 1 != 0 {
        return Err("the absolute leading-dimension address mode (bit 52) is sm_103a's".into());
    }
    Ok(d & ((1 << 46) - 1) | (d >> 49 & 7) << 49 | sw << 62)
}

impl Warp {
    /// `MatrixOp::Tmem`: see there (the whole warp runs it).
    pub(super) fn tmem(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        op: &TmemOp,
    ) -> Result<(), Fault> {
        match op {
            TmemOp::Alloc { space, addr, ncols } => {
                let n = get(regs, *ncols, 0) as u32;
                if !(32..=512).contains(&n) || !n.is_power_of_two() {
                    let what = format!("of {n} columns (a power of 2 from 32 to 512)");
                    return Err(cta.fault_warp_op(self, pc, &what));
                }
                let t = cta.tmem.get_or_insert_with(Default::default);
                if t.relinquished {
                    let what = "after tcgen05.relinquish_alloc_permit (illegal in the ISA)";
                    return Err(cta.fault_warp_op(self, pc, what));
                }
                // The first free run of n columns at a multiple of n.
                let k = n / 32;
                let mask = ((1u32 << k) - 1) as u16;
                let Some(at) = (0..16 / k)
                    .map(|s| s * k)
                    .find(|&c| t.used & (mask << c) == 0)
                else {
                    let free = 32 * (16 - t.used.count_ones());
                    let what = format!(
                        "of {n} columns with {free} free: it would wait for a tcgen05.dealloc \
                         of this CTA (each CTA has its own 512 columns here)"
                    );
                    return Err(cta.fault_warp_op(self, pc, &what));
                };
                t.used |= mask << at;
                let a = addr.base.map_or(0, |b| regs[b as usize * 32]) as i64 + addr.off;
                let p = cta.resolve(self, *space, a as u64, 4, 0, pc, true)?;
                let v = (32 * at).to_le_bytes();
                // SAFETY: resolve checked 4 writable bytes.
                unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, 4) };
            }
            TmemOp::Dealloc { taddr, ncols } => {
                let (a, n) = (get(regs, *taddr, 0) as u32, get(regs, *ncols, 0) as usize);
                let col = (a & 0xffff) as usize;
                let ok = cta.tmem.as_ref().is_some_and(|t| t.allocated(col, n));
                if a >> 16 != 0 || !col.is_multiple_of(32) || !n.is_power_of_two() || n < 32 || !ok
                {
                    let what =
                        format!("of {n} columns at {a:#x}: not an allocation of tcgen05.alloc");
                    return Err(cta.fault_warp_op(self, pc, &what));
                }
                if let Some(t) = cta.tmem.as_mut() {
                    t.used &= !((((1u32 << (n / 32)) - 1) << (col / 32)) as u16);
                }
            }
            TmemOp::Relinquish => {
                cta.tmem.get_or_insert_with(Default::default).relinquished = true;
            }
            TmemOp::Ldst {
                store,
                shape,
                num: _,
                pack,
                taddr,
                split,
                regs: frag,
            } => {
                let a = (taddr.base.map_or(0, |b| regs[b as usize * 32]) as i64 + taddr.off) as u32;
                let (lane0, col0) = (a >> 16, a & 0xffff);
                // Warp w of a warpgroup reaches lanes 32(w % 4) to 32(w % 4) + 31 (9.7.16.8.1).
                let q = 32 * (self.id % 4);
                let rows = if *shape == TmemShape::S32x32b { 32 } else { 16 };
                // Columns the access spans, past its base.
                let p = *pack as u32;
                let span = (0..32u32)
                    .flat_map(|t| (0..frag.len() as u32).map(move |j| (t, j)))
                    .map(|(t, j)| {
                        let (_, cu, second) = ldst_coord(*shape, t, j);
                        (if second { *split } else { 0 }) + (cu << p) + p + 1
                    })
                    .max()
                    .unwrap_or(0);
                let ok = lane0 >= q
                    && lane0 + rows <= q + 32
                    && cta
                        .tmem
                        .as_ref()
                        .is_some_and(|t| t.allocated(col0 as usize, span as usize));
                if !ok {
                    let what = format!(
                        "at {a:#x} by warp {} : lanes {lane0}..{} and {span} columns from {col0} \
                         must be allocated and within lanes {q}..{} (ISA 9.7.16.8.1)",
                        self.id,
                        lane0 + rows - 1,
                        q + 31
                    );
                    return Err(cta.fault_warp_op(self, pc, &what));
                }
                let Some(t) = cta.tmem.as_mut() else {
                    return Ok(());
                };
                for l in 0..32u32 {
                    for (j, s) in frag.iter().enumerate() {
                        let (dl, cu, second) = ldst_coord(*shape, l, j as u32);
                        let col = col0 + if second { *split } else { 0 };
                        let at = |c: u32| ((lane0 + dl) as usize) * COLUMNS + c as usize;
                        if *store {
                            let v = get(regs, *s, l as usize) as u32;
                            if *pack {
                                t.cells[at(col + 2 * cu)] = v & 0xffff;
                                t.cells[at(col + 2 * cu + 1)] = v >> 16;
                            } else {
                                t.cells[at(col + cu)] = v;
                            }
                        } else if let Src::Reg(d) = s {
                            let v = if *pack {
                                t.cells[at(col + 2 * cu)] & 0xffff
                                    | t.cells[at(col + 2 * cu + 1)] << 16
                            } else {
                                t.cells[at(col + cu)]
                            };
                            regs[*d as usize * 32 + l as usize] = v as u64;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// `Op::TcMma`: each active lane's MMA, in lane order.
    pub(super) fn tc_mma(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        x: &TcMma,
    ) -> Result<(), Fault> {
        for l in lanes(em) {
            self.tc_mma_lane(cta, regs, pc, l, x)?;
        }
        Ok(())
    }

    fn tc_mma_lane(
        &mut self,
        cta: &mut Cta,
        regs: &[u64],
        pc: u32,
        l: usize,
        x: &TcMma,
    ) -> Result<(), Fault> {
        let fail = |cta: &Cta, w: &Warp, what: String| cta.fault_warp_op(w, pc, &what);
        let id = match idesc(x.kind, get(regs, x.idesc, l) as u32) {
            Ok(id) => id,
            Err(e) => return Err(fail(cta, self, format!("with {e}"))),
        };
        let bits = x.kind as u32;
        let k = 256 / bits as usize;
        let d_addr = (x.d.base.map_or(0, |b| regs[b as usize * 32 + l]) as i64 + x.d.off) as u32;
        let (lane0, dcol) = (d_addr >> 16, (d_addr & 0xffff) as usize);
        // Row r's lane (layouts D and F of ISA 9.7.16.10.5): M = 128 fills the 128 lanes; M =
        // 64 the first (or, from lane 16, the second) half of each warp's 32, as CUTLASS
        // 4.2's `tmem_frg` lays it out.
        let lane_of = |r: usize| -> usize {
            if id.m == 128 {
                r
            } else {
                lane0 as usize + r % 16 + 32 * (r / 16)
            }
        };
        let lanes_ok = if id.m == 128 {
            lane0 == 0
        } else {
            matches!(lane0, 0 | 16)
        };
        let a_addr = x.a_tmem.then(|| get(regs, x.a, l) as u32);
        let a_cols = (k * bits as usize).div_ceil(32);
        let alloc_ok = |t: &Tmem| {
            t.allocated(dcol, id.n)
                && a_addr.is_none_or(|a| t.allocated((a & 0xffff) as usize, a_cols))
        };
        let a_lane_ok = a_addr.is_none_or(|a| a >> 16 == lane0);
        if !lanes_ok || !a_lane_ok || !cta.tmem.as_deref().is_some_and(alloc_ok) {
            let what = format!(
                "of M = {}, N = {}: D at {d_addr:#x}{} must be allocated, at lane {} \
                 (ISA 9.7.16.10.5)",
                id.m,
                id.n,
                a_addr.map_or(String::new(), |a| format!(", A at {a:#x}")),
                if id.m == 128 { "0" } else { "0 or 16" }
            );
            return Err(fail(cta, self, what));
        }
        let sign = match id.a {
            El::F16 | El::Bf16 => 0x8000u64,
            El::Tf32 => 0x8000_0000,
            _ => 0,
        };
        // A: M x K by rows, B: N x K by columns.
        let mut a = vec![0u64; id.m * k];
        match a_addr {
            Some(at) => {
                let t = cta.tmem.as_ref().expect("checked above");
                let col = (at & 0xffff) as usize;
                for r in 0..id.m {
                    for kk in 0..k {
                        let bit = kk * bits as usize;
                        let cell = t.cells[lane_of(r) * COLUMNS + col + bit / 32];
                        a[r * k + kk] = (cell as u64 >> (bit % 32)) & ((1u64 << bits) - 1);
                    }
                }
            }
            None => {
                let desc = match wgmma_desc(get(regs, x.a, l)) {
                    Ok(d) => d,
                    Err(e) => return Err(fail(cta, self, format!("with A's descriptor: {e}"))),
                };
                for r in 0..id.m {
                    for kk in 0..k {
                        a[r * k + kk] =
                            self.operand_elem(cta, pc, desc, !id.trans_a, bits, r as u32, kk)?;
                    }
                }
            }
        }
        let bdesc = match wgmma_desc(get(regs, x.b, l)) {
            Ok(d) => d,
            Err(e) => return Err(fail(cta, self, format!("with B's descriptor: {e}"))),
        };
        let mut b = vec![0u64; id.n * k];
        for col in 0..id.n {
            for kk in 0..k {
                b[col * k + kk] =
                    self.operand_elem(cta, pc, bdesc, !id.trans_b, bits, col as u32, kk)?;
            }
        }
        if id.neg_a {
            a.iter_mut().for_each(|v| *v ^= sign);
        }
        if id.neg_b {
            b.iter_mut().for_each(|v| *v ^= sign);
        }
        let keep = get(regs, x.enable_d, l) & 1 != 0;
        let types = mma::Types {
            a: id.a,
            b: id.b,
            c: id.d,
            d: id.d,
        };
        let float = bits != 8;
        let (da, db) = match float {
            true => (mma::decode_all(id.a, &a), mma::decode_all(id.b, &b)),
            false => (Vec::new(), Vec::new()),
        };
        let arch = mma::arch();
        if x.scale_d != 0 && id.d != El::F32 {
            let what = "with scale-input-d and an f16 D (not supported yet)".to_string();
            return Err(fail(cta, self, what));
        }
        let mut off = [0u32; 4];
        if let Some(m) = &x.disable {
            for (w, s) in off.iter_mut().zip(m) {
                *w = get(regs, *s, l) as u32;
            }
        }
        let dmask = if id.d == El::F16 { 0xffff } else { 0xffff_ffff };
        let t = cta.tmem.as_mut().expect("checked above");
        for r in 0..id.m {
            let lane = lane_of(r);
            if off[lane / 32] >> (lane % 32) & 1 != 0 {
                continue;
            }
            let row = lane * COLUMNS + dcol;
            for col in 0..id.n {
                // D's 16-bit elements sit alone in the low half of their cells (9.7.16.10.4.1).
                let c = if keep {
                    (t.cells[row + col] & dmask) as u64
                } else {
                    0
                };
                // scale-input-d: an f32 D times 2^s, exact but where it overflows.
                let c = match x.scale_d {
                    0 => c,
                    s => (f32::from_bits(c as u32) * (s as f32).exp2()).to_bits() as u64,
                };
                let v = if float {
                    mma::dot_decoded(arch, types, &da[r * k..][..k], &db[col * k..][..k], c)
                } else {
                    mma::dot_int(id.a, id.b, &a[r * k..][..k], &b[col * k..][..k], c, id.sat)
                };
                t.cells[row + col] = v as u32 & dmask;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each shape's registers cover its lanes x columns once (ISA table 49's counts).
    #[test]
    fn ldst_layouts_cover_their_shapes() {
        for (shape, rows, cols, regs) in [
            (TmemShape::S32x32b, 32, 4, 4),
            (TmemShape::S16x64b, 16, 8, 4),
            (TmemShape::S16x128b, 16, 8, 4),
            (TmemShape::S16x256b, 16, 16, 8),
        ] {
            let mut seen = vec![0; rows * cols];
            for t in 0..32 {
                for j in 0..regs {
                    let (l, c, _) = ldst_coord(shape, t, j);
                    seen[l as usize * cols + c as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{shape:?}");
        }
    }

    #[test]
    fn instruction_descriptors_of_table_44() {
        // kind::f16, D f32, A and B bf16, N = 64, M = 128, B transposed.
        let v = 1 << 4 | 1 << 7 | 1 << 10 | 1 << 16 | (64 >> 3) << 17 | (128 >> 4) << 24;
        let x = idesc(16, v).unwrap();
        assert_eq!(
            (x.m, x.n, x.d, x.a, x.trans_b),
            (128, 64, El::F32, El::Bf16, true)
        );
        // kind::i8 with negation is invalid; an f16 D with bf16 inputs too.
        assert!(idesc(8, 2 << 4 | 1 << 13 | 1 << 17 | 8 << 24).is_err());
        assert!(idesc(16, 1 << 7 | 1 << 10 | 1 << 17 | 8 << 24).is_err());
        // The 3-bit swizzle of the tcgen05 descriptor as wgmma's (64B: 4 -> 2).
        assert_eq!(wgmma_desc(4 << 61 | 0x12).unwrap(), 2 << 62 | 0x12);
        assert!(wgmma_desc(1 << 61).is_err());
    }
}
