//! The `tcgen05` family (ISA 9.7.16): a CTA's Tensor Memory (128 lanes of 512 32-bit columns,
//! allocated by columns), the warp-wide `alloc`, `dealloc`, `relinquish_alloc_permit`, `ld` and
//! `st` (`MatrixOp::Tmem`), `mma` (`Op::TcMma`), which each issuing lane runs at issue with
//! `crate::sem::mma`'s arithmetic (every kind: f16, tf32, i8, f8f6f4 as `mma.sync`'s sm_120a
//! kind, whose parameters mmasim's Blackwell tcgen05 model shares, and the block-scaled
//! mxf8f6f4, mxf4 and mxf4nvf4 with their scale factors from Tensor Memory), `cp` and `shift`
//! (`Op::TcCopy`) and `commit`
//! (`Op::TcCommit`). With `.cta_group::2` an operation reaches the Tensor Memory of the CTA's
//! peer too (`%cluster_ctarank ^ 1`), which a cluster lends it for its turn (`Cta::peer_tmem`),
//! and the peer's shared memory through `.shared::cluster` addresses.

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
    /// `.cta_group::2` allocations (first column, columns) that the peer CTA's warp made in
    /// both CTAs and that this CTA's warp has yet to issue: its `alloc` takes the first.
    pair_alloc: Vec<(usize, usize)>,
    /// Likewise the pair's deallocations the peer's warp made in both.
    pair_free: Vec<(usize, usize)>,
}

impl Default for Tmem {
    fn default() -> Self {
        Tmem {
            cells: vec![0; LANES * COLUMNS],
            used: 0,
            relinquished: false,
            pair_alloc: Vec::new(),
            pair_free: Vec::new(),
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

/// The chunk mask (bits of [`Tmem::used`]) of `n` columns (a multiple of 32) from `col`.
fn chunks(col: usize, n: usize) -> u16 {
    (((1u32 << (n / 32)) - 1) << (col / 32)) as u16
}

/// The Tensor Memories a `.cta_group::2` operation of `cta` reaches, the even CTA's first
/// (each made at its first use), and the executing CTA's place in the pair (0 even, 1 odd);
/// Err says why there is no pair.
fn pair_tmems<'c>(cta: &'c mut Cta) -> Result<([&'c mut Tmem; 2], usize), String> {
    let odd = (cta.rank & 1) as usize;
    if cta.rank ^ 1 >= cta.nranks {
        return Err(format!(
            "with .cta_group::2 by CTA {} of a cluster of {}: its peer CTA (%cluster_ctarank {}) \
             does not exist (ISA 9.7.16.5.1)",
            cta.rank,
            cta.nranks,
            cta.rank ^ 1
        ));
    }
    let own = cta.tmem.get_or_insert_with(Default::default);
    let peer = cta.peer_tmem.get_or_insert_with(Default::default);
    Ok((if odd == 1 { [peer, own] } else { [own, peer] }, odd))
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

/// The fields of an instruction descriptor (ISA tables 44-46).
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
    /// The block-scaled kinds' scale factor A and B ids (the first byte of each Tensor
    /// Memory word their factors take, 9.7.16.10.7.2 and .8) and the factors' type.
    sfa: u32,
    sfb: u32,
    stype: mma::Scale,
}

/// The element types atype/btype 0-5 name for `.kind::f8f6f4` and `::mxf8f6f4` (ISA tables
/// 44 and 45): the 6- and 4-bit ones in the 8-bit containers of `crate::sem::mma`.
fn f8f6f4_type(v: u32) -> Option<El> {
    Some(match v {
        0 => El::E4m3,
        1 => El::E5m2,
        3 => El::E2m3,
        4 => El::E3m2,
        5 => El::E2m1,
        _ => return None,
    })
}

/// Decodes `v` for `kind` (with `vec` scale factors per row of A, the block-scaled kinds),
/// or says what the ISA does not allow (or what is not taken yet).
fn idesc(kind: TcKind, v: u32, pair: bool, vec: u8) -> Result<Idesc, String> {
    let f = |lo: u32, n: u32| (v >> lo) & ((1 << n) - 1);
    if f(2, 1) != 0 {
        return Err("a sparse instruction descriptor (bit 2) without .sp".into());
    }
    let scaled = matches!(kind, TcKind::Mxf8f6f4 | TcKind::Mxf4 | TcKind::Mxf4nvf4);
    if scaled {
        return idesc_scaled(kind, v, vec);
    }
    if f(30, 2) != 0 {
        return Err("a B-reuse shift (bits 30-31) without .ws".into());
    }
    if f(6, 1) != 0 || f(23, 1) != 0 || f(29, 1) != 0 {
        return Err("reserved bits of the instruction descriptor set".into());
    }
    let (d, a, b) = (f(4, 2), f(7, 3), f(10, 3));
    let (d, a, b) = match kind {
        TcKind::F16 => {
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
        TcKind::Tf32 => {
            if (d, a, b) != (1, 2, 2) {
                return Err(format!("dtype {d} / atype {a} / btype {b} for .kind::tf32"));
            }
            (El::F32, El::Tf32, El::Tf32)
        }
        TcKind::F8f6f4 => {
            let (Some(at), Some(bt), true) = (f8f6f4_type(a), f8f6f4_type(b), d < 2) else {
                return Err(format!(
                    "dtype {d} / atype {a} / btype {b} for .kind::f8f6f4"
                ));
            };
            (if d == 0 { El::F16 } else { El::F32 }, at, bt)
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
    let i8 = kind == TcKind::I8;
    let n_ok = match (i8, pair) {
        (true, false) => matches!(n, 8 | 16 | 24 | 32) || (n % 16 == 0 && n <= 256),
        (false, false) => n % 8 == 0 && (8..=256).contains(&n),
        (true, true) => n % 32 == 0 && (32..=256).contains(&n),
        (false, true) => n % 16 == 0 && (16..=256).contains(&n),
    };
    let (m_ok, ms) = match pair {
        false => (matches!(m, 64 | 128), "cta_group::1: M 64 or 128"),
        true => (matches!(m, 128 | 256), "cta_group::2: M 128 or 256"),
    };
    if !m_ok || !n_ok {
        return Err(format!("M = {m}, N = {n} ({ms}, N as ISA table 41 gives)"));
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
        sfa: 0,
        sfb: 0,
        stype: mma::Scale::Ue8m0,
    };
    if i8 && (x.neg_a || x.neg_b) {
        return Err("negation with .kind::i8".into());
    }
    if !i8 && x.sat {
        return Err("saturation (bit 3) with a float kind".into());
    }
    transposable(&x)?;
    Ok(x)
}

/// The instruction descriptor of `.kind::mxf8f6f4` (ISA table 45) or `::mxf4` /
/// `::mxf4nvf4` (table 46), of `.cta_group::1`.
fn idesc_scaled(kind: TcKind, v: u32, vec: u8) -> Result<Idesc, String> {
    let f = |lo: u32, n: u32| (v >> lo) & ((1 << n) - 1);
    let fp4 = kind != TcKind::Mxf8f6f4;
    if fp4 && f(31, 1) != 0 {
        return Err("K = 96 (bit 31) is not supported yet".into());
    }
    if f(0, 2) != 0 || f(3, 1) != 0 || f(6, 1) != 0 || f(24, 3) != 0 || f(31, 1) != 0 {
        return Err("reserved bits of the instruction descriptor set".into());
    }
    let (a, b) = if fp4 {
        // E2M1 = 1 in atype (bits 7-9) and the 2-bit btype (10-11); bit 12 is reserved.
        if (f(7, 3), f(10, 3)) != (1, 1) {
            return Err(format!(
                "atype {} / btype {} for an fp4 kind",
                f(7, 3),
                f(10, 3)
            ));
        }
        (El::E2m1x2, El::E2m1x2)
    } else {
        let (a, b) = (f(7, 3), f(10, 3));
        let (Some(at), Some(bt)) = (f8f6f4_type(a), f8f6f4_type(b)) else {
            return Err(format!("atype {a} / btype {b} for .kind::mxf8f6f4"));
        };
        (at, bt)
    };
    // Bit 23: UE8M0 = 1; UE4M3 = 0, mxf4nvf4's with 4 factors (ISA table 57).
    let stype = match f(23, 1) {
        1 => mma::Scale::Ue8m0,
        _ if kind == TcKind::Mxf4nvf4 && vec == 4 => mma::Scale::Ue4m3,
        _ => return Err("ue4m3 scale factors (bit 23 clear) with this kind and vector".into()),
    };
    let (sfa, sfb) = (f(29, 2), f(4, 2));
    // One factor per row: any byte of the word; two: its half words; four: the whole word
    // (9.7.16.10.7.3-5, .9-11).
    let id_ok = |id: u32| match vec {
        1 => true,
        2 => id.is_multiple_of(2),
        _ => id == 0,
    };
    if !id_ok(sfa) || !id_ok(sfb) {
        return Err(format!(
            "scale factor A id {sfa} / B id {sfb} with {vec} factors per row"
        ));
    }
    let (m, n) = ((f(27, 2) << 7) as usize, (f(17, 6) << 3) as usize);
    if m != 128 || n % 8 != 0 || !(8..=256).contains(&n) {
        return Err(format!(
            "M = {m}, N = {n} (cta_group::1: M 128, N 8 to 256 in steps of 8, ISA table 41)"
        ));
    }
    let x = Idesc {
        m,
        n,
        d: El::F32,
        a,
        b,
        sat: false,
        neg_a: f(13, 1) != 0,
        neg_b: f(14, 1) != 0,
        trans_a: f(15, 1) != 0,
        trans_b: f(16, 1) != 0,
        sfa,
        sfb,
        stype,
    };
    transposable(&x)?;
    Ok(x)
}

/// Whether the operands' major-ness is valid: a transposed (MN-major) A or B only of 8-bit
/// and wider types (ISA table 54, 9.7.16.10.3).
fn transposable(x: &Idesc) -> Result<(), String> {
    for (t, tr, which) in [(x.a, x.trans_a, "A"), (x.b, x.trans_b, "B")] {
        if tr && matches!(t, El::E3m2 | El::E2m3 | El::E2m1 | El::E2m1x2) {
            return Err(format!(
                "a transposed (MN-major) {which} of 4- or 6-bit elements (ISA table 54)"
            ));
        }
    }
    Ok(())
}

/// The sign bit of an element of `t` as `tcgen05.mma` holds it (the 6- and 4-bit types in
/// their 8-bit containers, fp4 of the mxf4 kinds alone).
fn sign_bit(t: El) -> u64 {
    match t {
        El::F16 | El::Bf16 => 0x8000,
        El::Tf32 => 0x8000_0000,
        El::E4m3 | El::E5m2 => 0x80,
        El::E3m2 | El::E2m3 | El::E2m1 => 0x20,
        El::E2m1x2 => 0x8,
        _ => 0,
    }
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
            TmemOp::Alloc {
                space,
                addr,
                ncols,
                pair,
            } => {
                let n = get(regs, *ncols, 0) as u32;
                if !(32..=512).contains(&n) || !n.is_power_of_two() {
                    let what = format!("of {n} columns (a power of 2 from 32 to 512)");
                    return Err(cta.fault_warp_op(self, pc, &what));
                }
                let relinquished = cta.tmem.as_ref().is_some_and(|t| t.relinquished);
                if relinquished {
                    let what = "after tcgen05.relinquish_alloc_permit (illegal in the ISA)";
                    return Err(cta.fault_warp_op(self, pc, what));
                }
                let at = match self.alloc_cols(cta, n as usize, *pair) {
                    Ok(at) => at,
                    Err(what) => return Err(cta.fault_warp_op(self, pc, &what)),
                };
                let a = addr.base.map_or(0, |b| regs[b as usize * 32]) as i64 + addr.off;
                let p = cta.resolve(self, *space, a as u64, 4, 0, pc, true)?;
                let v = (at as u32).to_le_bytes();
                // SAFETY: resolve checked 4 writable bytes.
                unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, 4) };
            }
            TmemOp::Dealloc { taddr, ncols, pair } => {
                let (a, n) = (get(regs, *taddr, 0) as u32, get(regs, *ncols, 0) as usize);
                let col = (a & 0xffff) as usize;
                let shape_ok =
                    a >> 16 == 0 && col.is_multiple_of(32) && n.is_power_of_two() && n >= 32;
                let bad =
                    || format!("of {n} columns at {a:#x}: not an allocation of tcgen05.alloc");
                if !pair {
                    let ok = cta.tmem.as_ref().is_some_and(|t| t.allocated(col, n));
                    if !shape_ok || !ok {
                        return Err(cta.fault_warp_op(self, pc, &bad()));
                    }
                    if let Some(t) = cta.tmem.as_mut() {
                        t.used &= !chunks(col, n);
                    }
                    return Ok(());
                }
                let ([even, odd], me) = match pair_tmems(cta) {
                    Ok(p) => p,
                    Err(what) => return Err(cta.fault_warp_op(self, pc, &what)),
                };
                let (own, peer) = if me == 0 { (even, odd) } else { (odd, even) };
                // The peer's warp freed both already, or this one frees both.
                if let Some(k) = own.pair_free.iter().position(|&f| f == (col, n)) {
                    own.pair_free.remove(k);
                } else if shape_ok && own.allocated(col, n) && peer.allocated(col, n) {
                    own.used &= !chunks(col, n);
                    peer.used &= !chunks(col, n);
                    peer.pair_free.push((col, n));
                } else {
                    let what = format!("{} in both CTAs of the pair", bad());
                    return Err(cta.fault_warp_op(self, pc, &what));
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

    /// Allocates `n` columns (a power of 2 from 32) for `tcgen05.alloc`: the first free run at
    /// a multiple of `n` in the CTA's Tensor Memory, or with `pair` (`.cta_group::2`) the
    /// same columns in both CTAs of the pair, which the peer's warp's `alloc` then takes
    /// (9.7.16.7.1: one warp of each CTA performs it collectively). Returns the address.
    fn alloc_cols(&mut self, cta: &mut Cta, n: usize, pair: bool) -> Result<usize, String> {
        let k = n / 32;
        let free = |used: u16| {
            (0..16 / k)
                .map(|s| 32 * s * k)
                .find(|&c| used & chunks(c, n) == 0)
        };
        let wait = |used: u16, whose: &str| {
            let free = 32 * (16 - used.count_ones());
            format!(
                "of {n} columns with {free} free{whose}: it would wait for a tcgen05.dealloc \
                 (each CTA has its own 512 columns here)"
            )
        };
        if !pair {
            let t = cta.tmem.get_or_insert_with(Default::default);
            let at = free(t.used).ok_or_else(|| wait(t.used, ""))?;
            t.used |= chunks(at, n);
            return Ok(at);
        }
        let ([even, odd], me) = pair_tmems(cta)?;
        let (own, peer) = if me == 0 { (even, odd) } else { (odd, even) };
        if !own.pair_alloc.is_empty() {
            let (at, m) = own.pair_alloc.remove(0);
            if m != n {
                return Err(format!(
                    "of {n} columns where the peer CTA's warp allocated {m} for the pair \
                     (both warps must allocate the same)"
                ));
            }
            return Ok(at);
        }
        let used = own.used | peer.used;
        let at = free(used).ok_or_else(|| wait(used, " in both CTAs of the pair"))?;
        own.used |= chunks(at, n);
        peer.used |= chunks(at, n);
        peer.pair_alloc.push((at, n));
        Ok(at)
    }

    /// `Op::TcCommit`: the arrive-on of each active lane on its mbarrier, or with `mask`
    /// (`.multicast::cluster`) on the mbarrier at the same offset in each CTA of its ctaMask.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tc_commit(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        space: MSpace,
        addr: Addr,
        mask: Option<Src>,
    ) -> Result<(), Fault> {
        let arrive = MbarOp::Arrive {
            drop: false,
            tx: false,
            no_complete: false,
            cluster: false,
        };
        let (one, zero) = (Src::Imm(1), Src::Imm(0));
        let Some(mask) = mask else {
            return self
                .mbar(cta, regs, pc, em, arrive, space, addr, None, one, zero)
                .map(|_| ());
        };
        use crate::sem::addr::{cluster_shared_addr, SHARED_WINDOW, WINDOW_SIZE};
        for l in (0..32).filter(|l| em >> l & 1 != 0) {
            let a = addr
                .base
                .map_or(0, |r| regs[r as usize * 32 + l])
                .wrapping_add(addr.off as u64);
            let a = match space {
                MSpace::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a) => {
                    a - SHARED_WINDOW
                }
                MSpace::Shared => a,
                // Not a shared address (undefined in the ISA): the mbarrier access reports it.
                _ => {
                    let r = self.mbar(cta, regs, pc, 1 << l, arrive, space, addr, None, one, zero);
                    r?;
                    continue;
                }
            };
            let ranks = get(regs, mask, l) as u16;
            for r in (0..16).filter(|r| ranks >> r & 1 != 0) {
                if r >= cta.nranks {
                    let what = format!(
                        "with ctaMask {ranks:#06x}: the cluster has {} CTAs",
                        cta.nranks
                    );
                    return Err(cta.fault_warp_op(self, pc, &what));
                }
                let at = Addr {
                    base: None,
                    off: cluster_shared_addr(r as u64, a) as i64,
                };
                let r = self.mbar(
                    cta,
                    regs,
                    pc,
                    1 << l,
                    arrive,
                    MSpace::Shared,
                    at,
                    None,
                    one,
                    zero,
                );
                r?;
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
        let vec = x.scale.map_or(0, |s| s.vec);
        let id = match idesc(x.kind, get(regs, x.idesc, l) as u32, x.pair, vec) {
            Ok(id) => id,
            Err(e) => return Err(fail(cta, self, format!("with {e}"))),
        };
        // K of one instruction, and the bits an element of A takes in Tensor Memory: the 6-
        // and 4-bit types of the f8f6f4 kinds in 8-bit containers, four to a word
        // (9.7.16.10.4.3), mxf4's fp4 two to a byte, eight to a word (9.7.16.10.4.5).
        let (k, abits): (usize, usize) = match x.kind {
            TcKind::F16 => (16, 16),
            TcKind::Tf32 => (8, 32),
            TcKind::I8 | TcKind::F8f6f4 | TcKind::Mxf8f6f4 => (32, 8),
            TcKind::Mxf4 | TcKind::Mxf4nvf4 => (64, 4),
        };
        let at = |a: &Addr| (a.base.map_or(0, |b| regs[b as usize * 32 + l]) as i64 + a.off) as u32;
        let d_addr = at(&x.d);
        let (lane0, dcol) = (d_addr >> 16, (d_addr & 0xffff) as usize);
        // With .cta_group::2 each CTA of the pair (the even one first) holds M/2 rows of A and
        // D and N/2 columns of B (CUTLASS 4.2's SM100_MMA_*_2x1SM traits: ALayout, BLayout and
        // CLayout split M and N by the CTA, mma_traits_sm100.hpp).
        let halves = 1 + x.pair as usize;
        let mh = id.m / halves;
        // M = 128 with .cta_group::2 (layout B of ISA 9.7.16.10.5.2, figure 207): a CTA's row r
        // holds columns 0..N/2 in lane r and N/2..N in lane 64 + r, both from D's column
        // (CUTLASS's tmem_frg_2sm "2x2" atom).
        let split = x.pair && id.m == 128;
        let nh = if split { id.n / 2 } else { id.n };
        // Row r's lane (layouts D and F of ISA 9.7.16.10.5): M = 128 of one CTA and M = 256
        // of the pair (layout A) fill the 128 lanes; M = 64 the first (or, from lane 16, the
        // second) half of each warp's 32, as CUTLASS 4.2's `tmem_frg` lays it out.
        let lane_of = |r: usize| -> usize {
            if id.m == 64 {
                lane0 as usize + r % 16 + 32 * (r / 16)
            } else {
                r
            }
        };
        // Lane and column of element (r, c) of a CTA's part of D.
        let d_at = |r: usize, c: usize| -> (usize, usize) {
            if split {
                (r + 64 * (c / nh), dcol + c % nh)
            } else {
                (lane_of(r), dcol + c)
            }
        };
        let lanes_ok = if id.m == 64 {
            matches!(lane0, 0 | 16)
        } else {
            lane0 == 0
        };
        let a_addr = x.a_tmem.then(|| get(regs, x.a, l) as u32);
        let a_cols = (k * abits).div_ceil(32);
        // The scale factors' first columns: A's 128 rows take 4 columns of 32 lanes, B's N
        // columns N/32 (9.7.16.10.7, below).
        let sf = x.scale.map(|s| (at(&s.a), at(&s.b)));
        let alloc_ok = |t: &Tmem| {
            t.allocated(dcol, nh)
                && a_addr.is_none_or(|a| t.allocated((a & 0xffff) as usize, a_cols))
                && sf.is_none_or(|(sa, sb)| {
                    t.allocated((sa & 0xffff) as usize, 4)
                        && t.allocated((sb & 0xffff) as usize, id.n.div_ceil(32))
                })
        };
        let a_lane_ok = a_addr.is_none_or(|a| a >> 16 == lane0)
            && sf.is_none_or(|(sa, sb)| sa >> 16 == 0 && sb >> 16 == 0);
        let me = (cta.rank & 1) as usize;
        let tmem_ok = if x.pair {
            match pair_tmems(cta) {
                Ok((ts, _)) => ts.iter().all(|t| alloc_ok(t)),
                Err(e) => return Err(fail(cta, self, e)),
            }
        } else {
            cta.tmem.as_deref().is_some_and(alloc_ok)
        };
        if !lanes_ok || !a_lane_ok || !tmem_ok {
            let what = format!(
                "of M = {}, N = {}: D at {d_addr:#x}{}{} must be allocated{}, at lane {} \
                 (ISA 9.7.16.10.5; scale factors at lane 0)",
                id.m,
                id.n,
                a_addr.map_or(String::new(), |a| format!(", A at {a:#x}")),
                sf.map_or(String::new(), |(a, b)| format!(
                    ", scale factors at {a:#x} and {b:#x}"
                )),
                if x.pair {
                    " in both CTAs of the pair"
                } else {
                    ""
                },
                if id.m == 64 { "0 or 16" } else { "0" }
            );
            return Err(fail(cta, self, what));
        }
        // The pair CTA `v`'s shared memory, as the rank of a .shared::cluster address (None:
        // this CTA's).
        let even = cta.rank & !1;
        let rank_of = |v: usize| (x.pair && v != me).then_some(even | v as u32);
        // B: N x K by columns, the first N/2 from the even CTA with .cta_group::2.
        let bdesc = match wgmma_desc(get(regs, x.b, l)) {
            Ok(d) => d,
            Err(e) => return Err(fail(cta, self, format!("with B's descriptor: {e}"))),
        };
        let nb = id.n / halves;
        let mut b = vec![0u64; id.n * k];
        for col in 0..id.n {
            let rank = rank_of(col / nb);
            for kk in 0..k {
                let mn = (col % nb) as u32;
                b[col * k + kk] =
                    self.desc_operand(cta, pc, bdesc, !id.trans_b, id.b, mn, kk, rank)?;
            }
        }
        if id.neg_b {
            b.iter_mut().for_each(|v| *v ^= sign_bit(id.b));
        }
        let adesc = match a_addr {
            Some(_) => 0,
            None => match wgmma_desc(get(regs, x.a, l)) {
                Ok(d) => d,
                Err(e) => return Err(fail(cta, self, format!("with A's descriptor: {e}"))),
            },
        };
        let keep = get(regs, x.enable_d, l) & 1 != 0;
        let types = mma::Types {
            a: id.a,
            b: id.b,
            c: id.d,
            d: id.d,
        };
        let float = matches!(x.kind, TcKind::F16 | TcKind::Tf32);
        let db = match float {
            true => mma::decode_all(id.b, &b),
            false => Vec::new(),
        };
        let arch = mma::arch();
        if x.scale_d != 0 && id.d != El::F32 {
            let what = "with scale-input-d and an f16 D (not supported yet)".to_string();
            return Err(fail(cta, self, what));
        }
        let mut off = [0u32; 8];
        if let Some(m) = &x.disable {
            for (w, s) in off.iter_mut().zip(m) {
                *w = get(regs, *s, l) as u32;
            }
        }
        let dmask = if id.d == El::F16 { 0xffff } else { 0xffff_ffff };
        for v in 0..halves {
            // A: M/2 (or M) x K by rows, from CTA v's Tensor Memory or shared memory.
            let mut a = vec![0u64; mh * k];
            match a_addr {
                Some(at) => {
                    let t = tmem_of(cta, x.pair && v != me);
                    let col = (at & 0xffff) as usize;
                    for r in 0..mh {
                        for kk in 0..k {
                            let bit = kk * abits;
                            let cell = t.cells[lane_of(r) * COLUMNS + col + bit / 32];
                            a[r * k + kk] = (cell as u64 >> (bit % 32)) & ((1u64 << abits) - 1);
                        }
                    }
                }
                None => {
                    let rank = rank_of(v);
                    for r in 0..mh {
                        for kk in 0..k {
                            a[r * k + kk] = self.desc_operand(
                                cta,
                                pc,
                                adesc,
                                !id.trans_a,
                                id.a,
                                r as u32,
                                kk,
                                rank,
                            )?;
                        }
                    }
                }
            }
            if id.neg_a {
                a.iter_mut().for_each(|v| *v ^= sign_bit(id.a));
            }
            let da = match float {
                true => mma::decode_all(id.a, &a),
                false => Vec::new(),
            };
            // The scale factors of row r of A and (for the datapath of row r) column col of
            // B: 32 lanes of 4 columns hold A's 128 rows, row r in lane r % 32 of column
            // r / 32, column n of B in lane n % 32 of column n / 32, duplicated into each
            // lane partition of 32 (9.7.16.10.7); each datapath reads its own partition, the
            // 32 lanes of the rows it computes. The factors of a row are the `vec` bytes of
            // its word from the id's (figures 231-233 and 240-242, as CUTLASS 4.2 lays them
            // out: tcgen05.cp.32x128b.warpx4 of its 512-byte scale factor atoms). Only
            // `.cta_group::1` takes them: the Tensor Memory is this CTA's.
            let (mut sfa, mut sfb) = (Vec::new(), Vec::new());
            if let Some((sa, sb)) = sf {
                let t = tmem_of(cta, false);
                let bytes = |lane: usize, col: usize, id: u32| -> [u8; 4] {
                    let w = t.cells[lane * COLUMNS + col];
                    std::array::from_fn(|q| (w >> (8 * ((id as usize + q) % 4))) as u8)
                };
                let (ca, cb) = ((sa & 0xffff) as usize, (sb & 0xffff) as usize);
                sfa = (0..mh).map(|r| bytes(r, ca + r / 32, id.sfa)).collect();
                sfb = (0..4 * id.n)
                    .map(|i| {
                        let (p, col) = (i / id.n, i % id.n);
                        bytes(32 * p + col % 32, cb + col / 32, id.sfb)
                    })
                    .collect();
            }
            let t = tmem_of(cta, x.pair && v != me);
            for r in 0..mh {
                let fa = sfa.get(r).copied().unwrap_or_default();
                for col in 0..id.n {
                    let (lane, c) = d_at(r, col);
                    // With .cta_group::2 the mask's first four words are the even CTA's lanes.
                    if off[4 * v + lane / 32] >> (lane % 32) & 1 != 0 {
                        continue;
                    }
                    let cell = lane * COLUMNS + c;
                    // D's 16-bit elements sit alone in the low half of their cells
                    // (9.7.16.10.4.1).
                    let old = if keep {
                        (t.cells[cell] & dmask) as u64
                    } else {
                        0
                    };
                    // scale-input-d: an f32 D times 2^s, exact but where it overflows.
                    let old = match x.scale_d {
                        0 => old,
                        s => (f32::from_bits(old as u32) * (s as f32).exp2()).to_bits() as u64,
                    };
                    let (ar, bc) = (r * k..(r + 1) * k, col * k..(col + 1) * k);
                    let fb = sfb.get(r / 32 * id.n + col).copied().unwrap_or_default();
                    let (ar, bc) = (&a[ar], &b[bc]);
                    let vs = vec as usize;
                    let val = match x.kind {
                        TcKind::F16 | TcKind::Tf32 => mma::dot_decoded(
                            arch,
                            types,
                            &da[r * k..][..k],
                            &db[col * k..][..k],
                            old,
                        ),
                        TcKind::I8 => mma::dot_int(id.a, id.b, ar, bc, old, id.sat),
                        TcKind::F8f6f4 => mma::dot_f8f6f4(types, ar, bc, old),
                        TcKind::Mxf8f6f4 => {
                            mma::dot_mxf8f6f4(types, ar, bc, old, id.stype, fa[0], fb[0])
                        }
                        TcKind::Mxf4 | TcKind::Mxf4nvf4 => {
                            mma::dot_mxf4(types, ar, bc, old, id.stype, &fa[..vs], &fb[..vs])
                        }
                    };
                    t.cells[cell] = val as u32 & dmask;
                }
            }
        }
        Ok(())
    }

    /// Element (`mn`, `k`) of type `t` of a shared-memory matrix descriptor's operand, in the
    /// shared memory of cluster CTA `rank` (None: this CTA's). The 6- and 4-bit types of the
    /// f8f6f4 kinds are packed 16 to 16 bytes, the first in the lowest bits, then 4 (fp6) or
    /// 8 (fp4) bytes of padding (ISA 9.7.16.10.4.4, figures 202-203; the source formats
    /// `.b6x16_p32` / `.b4x16_p64` of `tcgen05.cp`, 9.7.16.9.1), and become their 8-bit
    /// containers; mxf4's fp4 two to a byte, the first in the low nibble, without padding
    /// (9.7.16.10.4.6). Both are K-major only (table 54), 16-byte units the descriptor's
    /// layout places as it places 16 bytes of 8-bit elements.
    #[allow(clippy::too_many_arguments)]
    fn desc_operand(
        &mut self,
        cta: &mut Cta,
        pc: u32,
        desc: u64,
        k_major: bool,
        t: El,
        mn: u32,
        k: usize,
        rank: Option<u32>,
    ) -> Result<u64, Fault> {
        match t {
            El::E3m2 | El::E2m3 | El::E2m1 => {
                let w = if t == El::E2m1 { 4 } else { 6 };
                let (base, bit) = (k & !15, (k % 16) * w);
                let mut v = self.desc_elem(cta, pc, desc, true, 8, mn, base + bit / 8, rank)?;
                if bit % 8 + w > 8 {
                    let hi =
                        self.desc_elem(cta, pc, desc, true, 8, mn, base + bit / 8 + 1, rank)?;
                    v |= hi << 8;
                }
                let e = (v >> (bit % 8)) & ((1 << w) - 1);
                Ok(mma::container(e as u8, w as u32) as u64)
            }
            El::E2m1x2 => {
                let v = self.desc_elem(cta, pc, desc, true, 8, mn, k / 2, rank)?;
                Ok(v >> (4 * (k % 2)) & 0xf)
            }
            _ => self.desc_elem(cta, pc, desc, k_major, t.bits(), mn, k, rank),
        }
    }

    /// Element (`mn`, `k`) of a shared-memory matrix descriptor's operand, in the shared
    /// memory of cluster CTA `rank` (None: this CTA's).
    #[allow(clippy::too_many_arguments)]
    fn desc_elem(
        &mut self,
        cta: &mut Cta,
        pc: u32,
        desc: u64,
        k_major: bool,
        bits: u32,
        mn: u32,
        k: usize,
        rank: Option<u32>,
    ) -> Result<u64, Fault> {
        let Some(r) = rank else {
            return self.operand_elem(cta, pc, desc, k_major, bits, mn, k);
        };
        let a = crate::sem::fragment::wgmma_smem(desc, k_major, bits, mn, k as u32);
        let a = crate::sem::addr::cluster_shared_addr(r as u64, a);
        self.smem_elem(cta, pc, a, (bits / 8) as u64)
    }
}

impl Warp {
    /// `Op::TcCopy`: each active lane's `tcgen05.cp` or `tcgen05.shift`, in lane order.
    pub(super) fn tc_copy(
        &mut self,
        cta: &mut Cta,
        regs: &[u64],
        pc: u32,
        em: u32,
        x: &TcCopy,
    ) -> Result<(), Fault> {
        for l in lanes(em) {
            self.tc_copy_lane(cta, regs, pc, l, x)?;
        }
        Ok(())
    }

    fn tc_copy_lane(
        &mut self,
        cta: &mut Cta,
        regs: &[u64],
        pc: u32,
        l: usize,
        x: &TcCopy,
    ) -> Result<(), Fault> {
        let fail = |cta: &Cta, w: &Warp, what: String| cta.fault_warp_op(w, pc, &what);
        let a = (x.taddr.base.map_or(0, |b| regs[b as usize * 32 + l]) as i64 + x.taddr.off) as u32;
        let (lane0, col0) = ((a >> 16) as usize, (a & 0xffff) as usize);
        let me = (cta.rank & 1) as usize;
        let even = cta.rank & !1;
        // The CTAs whose Tensor Memory it writes: this one, or with .cta_group::2 the pair.
        let targets = if x.pair { 0..2 } else { me..me + 1 };
        // Source rows, bits per row and the lanes (from taddr's) each row is copied to.
        let (rows, bits, span) = match x.shape {
            None => (32, 256, 32),
            Some(CpShape::S128x256b) => (128, 256, 128),
            Some(CpShape::S128x128b) => (128, 128, 128),
            Some(CpShape::S4x256b) => (4, 256, 97),
            Some(CpShape::S64x128bW0213 | CpShape::S64x128bW0123) => (64, 128, 128),
            Some(CpShape::S32x128bW4) => (32, 128, 128),
        };
        let cols = bits / 32;
        let lanes_ok = match x.shape {
            None => lane0.is_multiple_of(32),
            _ => lane0 + span <= LANES,
        };
        let alloc_ok = |t: &Tmem| t.allocated(col0, cols);
        let tmem_ok = if x.pair {
            match pair_tmems(cta) {
                Ok((ts, _)) => ts.iter().all(|t| alloc_ok(t)),
                Err(e) => return Err(fail(cta, self, e)),
            }
        } else {
            cta.tmem.as_deref().is_some_and(alloc_ok)
        };
        if !lanes_ok || !tmem_ok || lane0 >= LANES {
            let what =
                format!(
                "at {a:#x}: {cols} columns from {col0} must be allocated{} and lanes {lane0}.. \
                 {} (ISA 9.7.16.9)",
                if x.pair { " in both CTAs of the pair" } else { "" },
                match x.shape {
                    None => "a multiple of 32".to_string(),
                    _ => format!("within the 128 for {span} lanes"),
                }
            );
            return Err(fail(cta, self, what));
        }
        let Some(shape) = x.shape else {
            // tcgen05.shift.down (the implicit .31x256b): rows 0-30 of the 32 lanes move one
            // lane down; the first row stays, the last is overwritten.
            for v in targets {
                let t = tmem_of(cta, v != me);
                for r in (0..31).rev() {
                    let from = (lane0 + r) * COLUMNS + col0;
                    let to = from + COLUMNS;
                    t.cells.copy_within(from..from + cols, to);
                }
            }
            return Ok(());
        };
        let desc = match wgmma_desc(get(regs, x.desc, l)) {
            Ok(d) => d,
            Err(e) => return Err(fail(cta, self, format!("with the descriptor: {e}"))),
        };
        // The lanes source row r goes to: CUTLASS 4.2's Copy_Traits<SM100_UTCCP_*>
        // (cute/atom/copy_traits_sm100.hpp; the ISA's figures are pictures) map a row of
        // .4x256b to every 32nd lane, broadcast .32x128b.warpx4 to the 4 warps' quarters,
        // .64x128b.warpx2::02_13 rows 0-63 to lanes 0-63 and again 64-127 (warps 0 and 2, 1 and
        // 3 alike), and ::01_23 rows 0-31 to warps 0 and 1, rows 32-63 to warps 2 and 3.
        let dests = |r: usize| -> ([usize; 4], usize) {
            match shape {
                CpShape::S128x256b | CpShape::S128x128b => ([r, 0, 0, 0], 1),
                CpShape::S4x256b => ([32 * r, 0, 0, 0], 1),
                CpShape::S64x128bW0213 => ([r, r + 64, 0, 0], 2),
                CpShape::S64x128bW0123 => {
                    let b = r % 32 + 64 * (r / 32);
                    ([b, b + 32, 0, 0], 2)
                }
                CpShape::S32x128bW4 => ([r, r + 32, r + 64, r + 96], 4),
            }
        };
        let bytes = bits / 8;
        let mut row = vec![0u8; bytes];
        for v in targets {
            // Each CTA of the pair copies from its own shared memory at the descriptor's
            // addresses, as the pair's MMAs read their halves of A and B.
            let rank = (v != me).then_some(even | v as u32);
            for r in 0..rows {
                // The source row: 16-byte chunks of the canonical K-major layout the
                // descriptor gives (ISA 9.7.16.3.3), row r along M/N.
                for (c, b) in row.iter_mut().enumerate() {
                    *b = self.desc_elem(cta, pc, desc, true, 8, r as u32, c, rank)? as u8;
                }
                // Decompression (ISA 9.7.16.9.1): each 16 bytes hold 16 elements of 4 bits
                // (then 8 bytes of padding) or 6 bits (then 4), the first in the lowest bits;
                // each becomes a byte as the f8f6f4 kinds hold them (9.7.16.10.4.1): e2m1 in
                // the middle 4 bits, e3m2/e2m3 in the low 6.
                if x.src_bits != 0 {
                    for chunk in row.chunks_mut(16) {
                        mma::decompress(chunk, x.src_bits as u32);
                    }
                }
                let (ls, n) = dests(r);
                let t = tmem_of(cta, v != me);
                for &dl in &ls[..n] {
                    for j in 0..cols {
                        let w = u32::from_le_bytes(row[4 * j..4 * j + 4].try_into().unwrap());
                        t.cells[(lane0 + dl) * COLUMNS + col0 + j] = w;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The executing CTA's Tensor Memory, or (`peer`) its peer's (both exist when the MMA's
/// checks passed).
fn tmem_of<'c>(cta: &'c mut Cta, peer: bool) -> &'c mut Tmem {
    let t = if peer {
        &mut cta.peer_tmem
    } else {
        &mut cta.tmem
    };
    t.get_or_insert_with(Default::default)
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
        let x = idesc(TcKind::F16, v, false, 0).unwrap();
        assert_eq!(
            (x.m, x.n, x.d, x.a, x.trans_b),
            (128, 64, El::F32, El::Bf16, true)
        );
        // kind::i8 with negation is invalid; an f16 D with bf16 inputs too.
        assert!(idesc(TcKind::I8, 2 << 4 | 1 << 13 | 1 << 17 | 8 << 24, false, 0).is_err());
        assert!(idesc(TcKind::F16, 1 << 7 | 1 << 10 | 1 << 17 | 8 << 24, false, 0).is_err());
        // cta_group::2: M 256 and N a multiple of 16; M 64 or N 8 is not.
        let f16 = |m: u32, n: u32| 1 << 4 | (n >> 3) << 17 | (m >> 4) << 24;
        assert_eq!(idesc(TcKind::F16, f16(256, 32), true, 0).unwrap().m, 256);
        assert!(idesc(TcKind::F16, f16(64, 32), true, 0).is_err());
        assert!(idesc(TcKind::F16, f16(128, 8), true, 0).is_err());
        assert!(idesc(TcKind::F16, f16(256, 32), false, 0).is_err());
        // kind::f8f6f4 (table 44): D f16, A e2m3 (3), B e2m1 (5), M 64, N 8; atype 2 and
        // transposed fp6 are not valid (table 54).
        let f8 = |d: u32, a: u32, b: u32| d << 4 | a << 7 | b << 10 | 1 << 17 | 4 << 24;
        let x = idesc(TcKind::F8f6f4, f8(0, 3, 5), false, 0).unwrap();
        assert_eq!(
            (x.m, x.n, x.d, x.a, x.b),
            (64, 8, El::F16, El::E2m3, El::E2m1)
        );
        assert!(idesc(TcKind::F8f6f4, f8(1, 2, 0), false, 0).is_err());
        assert!(idesc(TcKind::F8f6f4, f8(1, 4, 0) | 1 << 15, false, 0).is_err());
        assert!(idesc(TcKind::F8f6f4, f8(1, 0, 1) | 1 << 15, false, 0).is_ok());
        // kind::mxf8f6f4 (table 45): SFB id bits 4-5, ue8m0 bit 23, M >> 7 at 27, SFA id
        // at 29; ue4m3 (bit 23 clear) is mxf4nvf4's with 4 factors only (table 57).
        let mx = 2 << 4 | 4 << 7 | 1 << 10 | (256 >> 3) << 17 | 1 << 23 | 1 << 27 | 3 << 29;
        let x = idesc(TcKind::Mxf8f6f4, mx, false, 1).unwrap();
        assert_eq!(
            (x.m, x.n, x.a, x.b, x.sfa, x.sfb),
            (128, 256, El::E3m2, El::E5m2, 3, 2)
        );
        assert!(idesc(TcKind::Mxf8f6f4, mx & !(1 << 23), false, 1).is_err());
        // kind::mxf4nvf4 (table 46): E2M1 = 1; ids 0 or 2 with 2 factors, 0 with 4.
        let f4 = |sf: u32| 1 << 7 | 1 << 10 | 1 << 17 | 1 << 27 | sf << 29 | sf << 4;
        assert_eq!(
            idesc(TcKind::Mxf4nvf4, f4(0), false, 4).unwrap().stype,
            mma::Scale::Ue4m3
        );
        assert!(idesc(TcKind::Mxf4nvf4, f4(0), false, 2).is_err());
        assert!(idesc(TcKind::Mxf4, f4(2) | 1 << 23, false, 2).is_ok());
        assert!(idesc(TcKind::Mxf4, f4(1) | 1 << 23, false, 2).is_err());
        assert!(idesc(TcKind::Mxf4nvf4, f4(2) | 1 << 23, false, 4).is_err());
        // The 3-bit swizzle of the tcgen05 descriptor as wgmma's (64B: 4 -> 2).
        assert_eq!(wgmma_desc(4 << 61 | 0x12).unwrap(), 2 << 62 | 0x12);
        assert!(wgmma_desc(1 << 61).is_err());
    }
}
