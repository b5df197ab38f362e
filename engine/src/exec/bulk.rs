//! Bulk copies (`Op::Bulk`): each active lane's copy is performed when it issues, then the
//! mbarrier it names sees its bytes as completed transactions; a multicast copy does both in
//! every CTA of its ctaMask. With `.cta_group::2` the mbarrier may be in the destination's
//! peer CTA, and a multicast copy signals, for each destination, the CTA of its pair with the
//! parity of the mbarrier's CTA (`Warp::pair_targets`). Tensor copies read their tensor map
//! (`crate::tensormap`), walk the box in tile mode (traversal strides, out-of-bound elements
//! filled on loads and skipped on stores), the four rows of a gather4 load or scatter4 store,
//! or the column of an im2col load, wide or not (`crate::sem::im2col`), and place each element
//! in shared memory by the map's swizzle; maps of packed 4- and 6-bit elements move in units
//! of 16 (or 2) elements in tile mode (`Warp::packed_tile`).

use super::access::{atomic_update, read_sized, update_private};
use super::cta::{Cta, Fault};
use super::race;
use super::regfile::*;
use super::warp::*;
use crate::ir::*;
use crate::sem::addr::{cluster_rank, CLUSTER_OFFSET_MASK, CLUSTER_RANK_SHIFT};
use crate::sem::atomic::{add_f32_ftz, atom_width, rmw};
use crate::sem::im2col::Walk;
use crate::tensormap::{self, Map};

/// The shared address `a` (of this CTA or one of the cluster's) at the same offset in the CTA
/// of rank `r`.
fn in_rank(a: u64, r: u32) -> u64 {
    (a & CLUSTER_OFFSET_MASK) | ((r as u64 + 1) << CLUSTER_RANK_SHIFT)
}

/// The atomic type of a tensor reduction `op` on elements of the map's `.elemtype` (ISA table
/// 33 codes): the types `cp.reduce.async.bulk.tensor` takes for it.
fn reduce_type(elemtype: u8, op: AtomOp) -> Option<AtomTy> {
    use AtomOp::*;
    Some(match (elemtype, op) {
        (2, Add | Min | Max | Inc | Dec | And | Or | Xor) => AtomTy::U32,
        (3, Add | Min | Max | And | Or | Xor) => AtomTy::S32,
        (4, Add | Min | Max | And | Or | Xor) => AtomTy::U64,
        (5, Min | Max | And | Or | Xor) => AtomTy::S64,
        (6, Add | Min | Max) => AtomTy::Half {
            bf: false,
            x2: false,
        },
        (10, Add | Min | Max) => AtomTy::Half {
            bf: true,
            x2: false,
        },
        (7 | 8, Add) => AtomTy::F32,
        (9, Add) => AtomTy::F64,
        _ => return None,
    })
}

/// One element of a reduction: the destination `d` becomes `op` of itself and `s`. Global
/// memory is shared with other host threads (a host atomic); a cluster's shared memory is
/// this thread's alone.
///
/// # Safety
/// `s` and `d` must be valid and naturally aligned for the type's width.
unsafe fn reduce_element(s: *const u8, d: *mut u8, space: MSpace, op: AtomOp, ty: AtomTy) {
    let w = atom_width(ty);
    // SAFETY: the caller's promise.
    unsafe {
        let a = read_sized(s, w, false);
        let new = |o| match (op, ty) {
            (AtomOp::Add, AtomTy::F32) => add_f32_ftz(o, a),
            _ => rmw(op, ty, o, a, 0),
        };
        match space {
            MSpace::Shared => update_private(d, w, new),
            _ => atomic_update(d, w, new),
        };
    }
}

/// The runs of bytes (offset, length) a `.cp_mask` copy of `size` bytes writes: in each 16
/// bytes, those whose bit of `mask` is set.
fn masked_runs(mask: u16, size: u64) -> impl Iterator<Item = (u64, u64)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < 16 {
        if mask >> i & 1 == 0 {
            i += 1;
            continue;
        }
        let start = i;
        while i < 16 && mask >> i & 1 != 0 {
            i += 1;
        }
        runs.push((start as u64, (i - start) as u64));
    }
    (0..size / 16).flat_map(move |c| runs.clone().into_iter().map(move |(a, n)| (16 * c + a, n)))
}

/// A lane's address operand.
pub(super) fn lane_addr(regs: &[u64], a: Addr, l: usize) -> u64 {
    a.base
        .map_or(0, |b| regs[b as usize * 32 + l])
        .wrapping_add(a.off as u64)
}

impl Warp {
    /// `Op::Bulk`: see there.
    pub(super) fn bulk(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        op: &BulkOp,
    ) -> Result<(), Fault> {
        for l in lanes(em) {
            // Where the copy writes (a tensor store: the shared box it reads) and its mbarrier,
            // once per destination CTA: the lane's addresses, or with multicast the same
            // offsets in each CTA of the mask.
            let store = op.tensor.as_ref().is_some_and(|t| !t.load);
            let at = lane_addr(regs, if store { op.src.1 } else { op.dst.1 }, l);
            let mbar = op.mbar.map(|(_, a)| lane_addr(regs, a, l));
            let targets: Vec<(u64, Option<u64>)> = match (op.multicast, op.pair, mbar) {
                (None, false, _) => vec![(at, mbar)],
                (Some(mask), false, _) => {
                    let mask = get(regs, mask, l) as u16;
                    (0..cta.nranks.min(16))
                        .filter(|r| mask & (1 << r) != 0)
                        .map(|r| (in_rank(at, r), mbar.map(|m| in_rank(m, r))))
                        .collect()
                }
                (mask, true, Some(m)) => {
                    let mask = mask.map(|k| get(regs, k, l) as u16);
                    self.pair_targets(cta, pc, at, m, mask)?
                }
                (_, true, None) => vec![(at, None)],
            };
            for (at, mbar_at) in targets {
                let bytes = match &op.tensor {
                    None => self.bulk_bytes(cta, regs, pc, l, op, at)?,
                    Some(_) => self.bulk_tensor(cta, regs, pc, l, op, at)?,
                };
                // The bytes complete transactions on the mbarrier, as `mbarrier.complete_tx`.
                if let (Some((space, _)), Some(m)) = (op.mbar, mbar_at) {
                    let b = Src::Imm(bytes);
                    let a = Addr {
                        base: None,
                        off: m as i64,
                    };
                    self.mbar(
                        cta,
                        regs,
                        pc,
                        1 << l,
                        MbarOp::CompleteTx,
                        space,
                        a,
                        None,
                        b,
                        b,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Where a `.cta_group::2` tensor load writes and signals: (destination, mbarrier) for
    /// the destination `at` and mbarrier `m` (`.shared::cluster` addresses) and, with
    /// `.multicast::cluster`, the ctaMask.
    ///
    /// The CTA `m` names: its rank field, where it has one. A `.shared::cta` address has none
    /// here (field 0, the executing CTA: `CLUSTER_RANK_SHIFT`), while on a GPU a CTA's own
    /// shared addresses carry its `%cluster_ctarank` in bits 24 and up, bit 24 being the
    /// "peer bit" that tells the CTAs of a pair apart. CUTLASS (`SM100_TMA_2SM_LOAD*`, every
    /// CTA of the pair issuing its half of the tiles) clears that bit (`& 0xFEFFFFFF`,
    /// `Sm100MmaPeerBitMask`) so that all the bytes complete on the even (leader) CTA's
    /// mbarrier, which alone waits; so a field-0 mbarrier address is taken as that masked one:
    /// the even CTA of the executing CTA's pair. (The odd CTA's unmasked own address, which
    /// would name itself on a GPU, cannot be told apart; it must come from `mapa` to name the
    /// odd CTA here.)
    ///
    /// Without multicast the mbarrier must be in the destination's CTA or its peer (the ISA
    /// leaves another undefined: stopped here). With multicast, each destination CTA `r` of
    /// the mask gets the data at `at`'s offset, and its complete-tx goes to the mbarrier at
    /// `m`'s offset in the CTA of `r`'s pair with the parity of `m`'s CTA (9.7.9.25.5.2).
    fn pair_targets(
        &mut self,
        cta: &mut Cta,
        pc: u32,
        at: u64,
        m: u64,
        mask: Option<u16>,
    ) -> Result<Vec<(u64, Option<u64>)>, Fault> {
        let rank_of = |a: u64, own: u32| cluster_rank(a, own as u64) as u32;
        let mrank = rank_of(m, cta.rank & !1);
        let Some(mask) = mask else {
            let drank = rank_of(at, cta.rank);
            if mrank != drank && mrank != drank ^ 1 {
                let what = format!(
                    "with .cta_group::2 completes on an mbarrier of CTA {mrank} (at {m:#x}), \
                     neither the destination's CTA {drank} nor its peer"
                );
                return Err(cta.fault_warp_op(self, pc, &what));
            }
            return Ok(vec![(at, Some(in_rank(m, mrank)))]);
        };
        let mut targets = Vec::new();
        for r in (0..cta.nranks.min(16)).filter(|r| mask & (1 << r) != 0) {
            let signal = (r & !1) | (mrank & 1);
            if signal >= cta.nranks {
                let what = format!(
                    "with .cta_group::2 and ctaMask {mask:#06x} signals CTA {signal}, the peer \
                     of CTA {r}, in a cluster of {}",
                    cta.nranks
                );
                return Err(cta.fault_warp_op(self, pc, &what));
            }
            targets.push((in_rank(at, r), Some(in_rank(m, signal))));
        }
        Ok(targets)
    }

    /// A linear copy of `size` bytes (a multiple of 16, both addresses 16-byte aligned).
    fn bulk_bytes(
        &mut self,
        cta: &mut Cta,
        regs: &[u64],
        pc: u32,
        l: usize,
        op: &BulkOp,
        dst_at: u64,
    ) -> Result<u64, Fault> {
        if op.zero {
            return self.bulk_zero(cta, regs, pc, l, op, dst_at);
        }
        let size = op.size.map_or(0, |s| get(regs, s, l) as u32 as u64);
        if !size.is_multiple_of(16) {
            return Err(cta.fault_warp_op(
                self,
                pc,
                &format!("copies {size} bytes, which is not a multiple of 16"),
            ));
        }
        if size == 0 {
            return Ok(0);
        }
        let ds = op.dst.0;
        let (ss, sa) = op.src;
        // For racecheck the copy reads and writes at issue, by the issuing thread (`race`); a
        // reduction into shared memory is an atomic's access.
        let into = match op.reduce {
            Some(_) => race::Access::Atomic,
            None => race::Access::Write,
        };
        cta.race_at(
            self.id,
            l,
            ss,
            lane_addr(regs, sa, l),
            size,
            race::Access::Read,
            pc,
        );
        if let Some([left, right]) = op.ignore_oob {
            let (left, right) = (
                get(regs, left, l) as u32 as u64,
                get(regs, right, l) as u32 as u64,
            );
            return self.bulk_inner(cta, regs, pc, l, op, dst_at, size, left, right);
        }
        let mask = op.byte_mask.map(|m| get(regs, m, l) as u16);
        match mask {
            None => cta.race_at(self.id, l, ds, dst_at, size, into, pc),
            // Only the bytes the mask copies are written.
            Some(mask) => {
                for (at, len) in masked_runs(mask, size) {
                    cta.race_at(self.id, l, ds, dst_at + at, len, into, pc);
                }
            }
        }
        let s = cta.resolve(self, ss, lane_addr(regs, sa, l), size, l, pc, false)?;
        let d = cta.resolve(self, ds, dst_at, size, l, pc, true)?;
        if let Some(mask) = mask {
            for (at, len) in masked_runs(mask, size) {
                // SAFETY: both ranges were checked; shared and global memory do not overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        s.add(at as usize),
                        d.add(at as usize),
                        len as usize,
                    )
                };
            }
            return Ok(size);
        }
        if let Some((rop, Some(ty))) = op.reduce {
            let w = atom_width(ty) as u64;
            for k in 0..size / w {
                // SAFETY: both ranges were checked, and `w` divides 16 which divides the
                // addresses: every element is naturally aligned.
                unsafe {
                    reduce_element(
                        s.add((k * w) as usize),
                        d.add((k * w) as usize),
                        ds,
                        rop,
                        ty,
                    )
                };
            }
            return Ok(size);
        }
        // SAFETY: both ranges were checked inside live memory; they may overlap only when
        // both are shared memory, which `copy` allows.
        unsafe { std::ptr::copy(s, d, size as usize) };
        Ok(size)
    }

    /// `.ignore_oob`: a copy of `size` bytes of which the first `left` and the last `right`
    /// may lie outside the source's memory. Those are neither read nor written (CCCL, which
    /// emits the form, says only that they are "ignored"; the destination keeps its bytes);
    /// the copy still completes `size` bytes of transactions. Ends that overlap copy nothing.
    #[allow(clippy::too_many_arguments)]
    fn bulk_inner(
        &mut self,
        cta: &mut Cta,
        regs: &[u64],
        pc: u32,
        l: usize,
        op: &BulkOp,
        dst_at: u64,
        size: u64,
        left: u64,
        right: u64,
    ) -> Result<u64, Fault> {
        let (ss, sa) = op.src;
        let misaligned = [lane_addr(regs, sa, l), dst_at]
            .into_iter()
            .find(|a| !a.is_multiple_of(16));
        if let Some(a) = misaligned {
            let what = format!("copies from or to {a:#x}, not 16-byte aligned");
            return Err(cta.fault_warp_op(self, pc, &what));
        }
        let len = size.saturating_sub(left.saturating_add(right));
        if len == 0 {
            return Ok(size);
        }
        let (src, dst) = (lane_addr(regs, sa, l) + left, dst_at + left);
        cta.race_at(self.id, l, ss, src, len, race::Access::Read, pc);
        cta.race_at(self.id, l, op.dst.0, dst, len, race::Access::Write, pc);
        // (The copy's ends are 16-byte aligned, as for any bulk copy; the bytes copied
        // start and end anywhere.)
        let s = cta.resolve_aligned(self, ss, src, len, 1, l, pc, false)?;
        let d = cta.resolve_aligned(self, op.dst.0, dst, len, 1, l, pc, true)?;
        // SAFETY: both ranges were checked; global and shared memory do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(s, d, len as usize) };
        Ok(size)
    }

    /// `st.bulk`: `size` zero bytes at `dst_at`, a multiple of 8 up to 16 MiB (the ISA leaves
    /// other sizes undefined: the kernel stops, naming the size).
    fn bulk_zero(
        &mut self,
        cta: &mut Cta,
        regs: &[u64],
        pc: u32,
        l: usize,
        op: &BulkOp,
        dst_at: u64,
    ) -> Result<u64, Fault> {
        let size = op.size.map_or(0, |s| get(regs, s, l));
        if !size.is_multiple_of(8) || size > 1 << 24 {
            return Err(cta.fault_warp_op(
                self,
                pc,
                &format!("writes {size} bytes: st.bulk takes a multiple of 8 up to 16777216"),
            ));
        }
        if size == 0 {
            return Ok(0);
        }
        let ds = op.dst.0;
        cta.race_at(self.id, l, ds, dst_at, size, race::Access::Write, pc);
        // The unit is 8 bytes, so the address must be 8-byte aligned (the ISA names no
        // alignment; a GPU's store unit needs it).
        let d = cta.resolve_aligned(self, ds, dst_at, size, 8, l, pc, true)?;
        // SAFETY: the range was checked inside live memory.
        unsafe { std::ptr::write_bytes(d, 0, size as usize) };
        Ok(size)
    }

    /// A tensor copy in tile mode: returns the box's bytes (what the mbarrier is told,
    /// out-of-bound elements included).
    fn bulk_tensor(
        &mut self,
        cta: &mut Cta,
        regs: &[u64],
        pc: u32,
        l: usize,
        op: &BulkOp,
        base: u64,
    ) -> Result<u64, Fault> {
        let Some(t) = &op.tensor else {
            return Ok(0);
        };
        let (ms, ma) = t.map;
        let map_at = lane_addr(regs, ma, l);
        let mp = cta.resolve(self, ms, map_at, tensormap::BYTES, l, pc, false)?;
        let mut raw = [0u8; tensormap::BYTES as usize];
        // SAFETY: resolve checked 128 readable bytes.
        unsafe { std::ptr::copy_nonoverlapping(mp, raw.as_mut_ptr(), raw.len()) };
        let map = Map::from_bytes(&raw);
        let four_rows = matches!(t.mode, TensorMode::Gather4 | TensorMode::Scatter4);
        let dims = if four_rows { 2 } else { t.coords.len() };
        let unsupported = if map.rank as usize != dims {
            Some(format!(
                "names {dims} coordinates for the tensor map at {map_at:#x}, of rank {}",
                map.rank
            ))
        } else if map.packed().is_some() && t.mode != TensorMode::Tile {
            Some(format!(
                "reads a tensor map of packed 4- or 6-bit elements in mode {:?} (not yet)",
                t.mode
            ))
        } else if map.interleave != 0 && t.mode == TensorMode::Im2col {
            Some("reads an interleaved tensor map in im2col mode (not yet)".into())
        } else if map.swizzle > 4 {
            Some(format!(
                "reads a tensor map of swizzle mode {}",
                map.swizzle
            ))
        } else {
            None
        };
        if let Some(what) = unsupported {
            return Err(cta.fault_warp_op(self, pc, &what));
        }
        if let Some(what) = layout_refusal(&map, t.mode) {
            return Err(cta.fault_illegal_op(self, pc, &what));
        }
        let es = map.elem_bytes().unwrap_or(1);
        // Each mode reads the maps of its encoder: tile, gather4 and scatter4 copies
        // cuTensorMapEncodeTiled's, im2col ones cuTensorMapEncodeIm2col's, the wide ones
        // cuTensorMapEncodeIm2colWide's of their own wide mode.
        let want = match t.mode {
            TensorMode::Tile | TensorMode::Gather4 | TensorMode::Scatter4 => tensormap::MODE_TILE,
            TensorMode::Im2col => tensormap::MODE_IM2COL,
            TensorMode::Im2colW => tensormap::MODE_IM2COL_W,
            TensorMode::Im2colW128 => tensormap::MODE_IM2COL_W128,
        };
        if map.mode != want {
            let name = |m: u8| match m {
                tensormap::MODE_TILE => "a tiled",
                tensormap::MODE_IM2COL => "an im2col",
                tensormap::MODE_IM2COL_W => "an im2col-wide (W)",
                tensormap::MODE_IM2COL_W128 => "an im2col-wide (W128)",
                _ => "an unknown",
            };
            let what = format!(
                "a copy in mode {:?} reads {} tensor map at {map_at:#x}, not {} one",
                t.mode,
                name(map.mode),
                name(want)
            );
            return Err(cta.fault_warp_op(self, pc, &what));
        }
        if four_rows && map.box_dim[1] != 1 {
            let what = format!(
                "a {:?} copy reads a tensor map whose box is {} rows (the ISA: one)",
                t.mode, map.box_dim[1]
            );
            return Err(cta.fault_warp_op(self, pc, &what));
        }
        let c0: Vec<i64> = (t.coords.iter())
            .map(|&c| get(regs, c, l) as u32 as i32 as i64)
            .collect();
        if let Some(p) = map.packed() {
            return self.packed_tile(cta, pc, l, &map, p, op, t.load, &c0, base);
        }
        let fill = map.fill_bits();
        // A tensor reduction works on the map's element type.
        let reduce = match op.reduce {
            None => None,
            Some((op, _)) => match reduce_type(map.elemtype, op) {
                Some(ty) => Some((op, ty)),
                None => {
                    let what = format!(
                        "reduces ({op:?}) into a tensor map of element type {} (ISA table 33), \
                         which that reduction does not take",
                        map.elemtype
                    );
                    return Err(cta.fault_warp_op(self, pc, &what));
                }
            },
        };
        if let Some(offsets) = &t.im2col {
            let walk = Walk {
                dims: map.dims,
                rank: dims,
                lower: map.pixel_box_lower_corner,
                upper: map.pixel_box_upper_corner,
                strides: map.elem_strides,
                channels: map.channels_per_pixel,
                pixels: map.pixels_per_column,
            };
            let offs: Vec<i64> = (offsets.iter())
                .map(|&o| get(regs, o, l) as u16 as i64)
                .collect();
            let elems = match t.mode {
                TensorMode::Im2colW | TensorMode::Im2colW128 => {
                    walk.wide_elements(&c0, offs[0], offs[1], t.mode == TensorMode::Im2colW128)
                }
                _ => walk.elements(&c0, &offs),
            };
            let elems =
                elems.map_err(|e| cta.fault_illegal_op(self, pc, &format!("im2col copy {e}")))?;
            for (idx, e) in elems.iter().enumerate() {
                let goff = e.map(|at| {
                    (1..dims).fold(at[0] as u64 * es, |g, d| {
                        g.wrapping_add(at[d] as u64 * map.strides[d - 1])
                    })
                });
                self.tensor_element(
                    cta,
                    pc,
                    l,
                    &map,
                    base + idx as u64 * es,
                    goff,
                    true,
                    fill,
                    None,
                )?;
            }
            return Ok(elems.len() as u64 * es);
        }
        // An H200 stops a tile-mode load whose innermost coordinate is not at a multiple of
        // 16 bytes (negative ones included: -2 of f64 loads, -2 of f32 does not) with an
        // illegal instruction (scripts/ground-truth/results/tma-oob-h200.txt). Stores were
        // not measured and are taken as they come.
        if t.load && (c0[0] * es as i64).rem_euclid(16) != 0 {
            let what = format!(
                "loads a box at innermost coordinate {} ({} bytes, not a multiple of 16)",
                c0[0],
                c0[0] * es as i64
            );
            return Err(cta.fault_illegal_op(self, pc, &what));
        }
        if four_rows {
            // Four rows of `box_dim[0]` elements from column c0[0], at rows c0[1..5], one after
            // the other in shared memory (ISA 5.5.3.4).
            let n0 = map.box_dim[0] as u64;
            for (k, &row) in c0[1..5].iter().enumerate() {
                for j in 0..n0 {
                    let c = c0[0] + j as i64;
                    let inside =
                        c >= 0 && c < map.dims[0] as i64 && row >= 0 && row < map.dims[1] as i64;
                    let goff = inside.then(|| c as u64 * es + row as u64 * map.strides[0]);
                    let at = base + (k as u64 * n0 + j) * es;
                    self.tensor_element(cta, pc, l, &map, at, goff, t.load, fill, reduce)?;
                }
            }
            return Ok(4 * n0 * es);
        }
        let (n, step) = box_walk(&map, dims, 1);
        let total: u64 = n.iter().product();
        let bytes = total * es;
        for idx in 0..total {
            // The element's coordinates in the tensor, and its offset in the box.
            let mut rest = idx;
            let mut inside = true;
            let mut goff: u64 = 0;
            for d in 0..dims {
                let j = rest % n[d];
                rest /= n[d];
                let c = c0[d] + j as i64 * step[d];
                if c < 0 || c >= map.dims[d] as i64 {
                    inside = false;
                } else if d == 0 {
                    goff = goff.wrapping_add(c as u64 * es);
                } else {
                    goff = goff.wrapping_add(c as u64 * map.strides[d - 1]);
                }
            }
            let goff = inside.then_some(goff);
            self.tensor_element(
                cta,
                pc,
                l,
                &map,
                base + idx * es,
                goff,
                t.load,
                fill,
                reduce,
            )?;
        }
        Ok(bytes)
    }

    /// A tile-mode copy of a map of packed 4- or 6-bit elements (ISA 5.5.1.1 and the
    /// restrictions of 9.7.9.25.5.1), unit by unit (`p`): dimension 0's coordinate and box
    /// count elements, and a unit is wholly inside the tensor or out (the encoder takes
    /// dimension 0 in whole units). A load copies a unit's packed bytes to the start of its
    /// place in shared memory (`.b4x16`, `.b4x16_p64`, `.b6x16_p32`: the padding after them is
    /// left as it was; outside the tensor they read as zeros). A store of the 6-bit type is
    /// `.b6p2x16`: each of 16 shared bytes gives its low 6 bits, packed into 12 bytes. Returns
    /// the box's bytes in shared memory.
    #[allow(clippy::too_many_arguments)]
    fn packed_tile(
        &mut self,
        cta: &mut Cta,
        pc: u32,
        l: usize,
        map: &Map,
        p: tensormap::Packed,
        op: &BulkOp,
        load: bool,
        c0: &[i64],
        base: u64,
    ) -> Result<u64, Fault> {
        let what = if op.reduce.is_some() {
            Some("reduces into a tensor map of packed 4- or 6-bit elements (the ISA: none)".into())
        } else if !load && map.elemtype == 14 {
            Some("stores through a map of `.b4x16_p64` elements (the ISA: loads only)".into())
        } else if p.shared == 16 && c0[0].rem_euclid(128) != 0 {
            Some(format!(
                "copies a box of packed 16-byte units at innermost coordinate {} (the ISA: a \
                 multiple of 128)",
                c0[0]
            ))
        } else if c0[0].rem_euclid(p.values as i64) != 0
            || (load && (c0[0] / p.values as i64 * p.global as i64).rem_euclid(16) != 0)
        {
            Some(format!(
                "copies a box of packed elements at innermost coordinate {} (not a whole unit \
                 at a multiple of 16 bytes)",
                c0[0]
            ))
        } else {
            None
        };
        if let Some(what) = what {
            return Err(cta.fault_illegal_op(self, pc, &what));
        }
        let dims = c0.len();
        let (n, step) = box_walk(map, dims, p.values);
        let total: u64 = n.iter().product();
        let what = if load {
            race::Access::Write
        } else {
            race::Access::Read
        };
        for idx in 0..total {
            let mut rest = idx;
            let mut goff = Some(0u64);
            for d in 0..dims {
                let j = rest % n[d];
                rest /= n[d];
                // Dimension 0 in units.
                let (c, size, bytes) = if d == 0 {
                    let u = c0[0] / p.values as i64 + j as i64;
                    (u, (map.dims[0] / p.values) as i64, p.global)
                } else {
                    (
                        c0[d] + j as i64 * step[d],
                        map.dims[d] as i64,
                        map.strides[d - 1],
                    )
                };
                goff = goff.filter(|_| (0..size).contains(&c));
                goff = goff.map(|g| g.wrapping_add(c as u64 * bytes));
            }
            let saddr = tensormap::swizzle(base + idx * p.shared, map.swizzle, map.atomicity);
            let len = if load { p.global } else { p.shared };
            cta.race_at(self.id, l, MSpace::Shared, saddr, len, what, pc);
            let sp = cta.resolve(self, MSpace::Shared, saddr, len, l, pc, load)?;
            let mut unit = [0u8; 16];
            match goff {
                Some(goff) => {
                    let g = map.addr.wrapping_add(goff);
                    // (A 6-bit unit, 12 bytes, is aligned to 4: the tensor's address and
                    // strides are multiples of 32.)
                    let gp = cta.resolve_aligned(
                        self,
                        MSpace::Global,
                        g,
                        p.global,
                        4.min(p.global),
                        l,
                        pc,
                        !load,
                    )?;
                    let k = p.global as usize;
                    if load {
                        // SAFETY: both resolved: `k` bytes each, in distinct memories.
                        unsafe { std::ptr::copy_nonoverlapping(gp, sp, k) };
                    } else {
                        // SAFETY: resolve checked `len` readable bytes at `sp`.
                        unsafe {
                            std::ptr::copy_nonoverlapping(sp, unit.as_mut_ptr(), len as usize)
                        };
                        if map.elemtype == 15 {
                            let w = (unit.iter().enumerate())
                                .fold(0u128, |w, (e, &b)| w | ((b & 0x3f) as u128) << (6 * e));
                            unit[..12].copy_from_slice(&w.to_le_bytes()[..12]);
                        }
                        // SAFETY: resolve checked `k` writable bytes at `gp`.
                        unsafe { std::ptr::copy_nonoverlapping(unit.as_ptr(), gp, k) };
                    }
                }
                // SAFETY: resolve checked the unit's packed bytes, writable.
                None if load => unsafe { std::ptr::write_bytes(sp, 0, p.global as usize) },
                None => {}
            }
        }
        Ok(total * p.shared)
    }

    /// Moves one element of a tensor copy between the box's position `at` in shared memory
    /// (before the map's swizzle) and the tensor's element `goff` bytes into it; None: outside
    /// the tensor, filled with `fill` on a load and skipped on a store.
    #[allow(clippy::too_many_arguments)]
    fn tensor_element(
        &mut self,
        cta: &mut Cta,
        pc: u32,
        l: usize,
        map: &Map,
        at: u64,
        goff: Option<u64>,
        load: bool,
        fill: u64,
        reduce: Option<(AtomOp, AtomTy)>,
    ) -> Result<(), Fault> {
        let es = map.elem_bytes().unwrap_or(1);
        let saddr = tensormap::swizzle(at, map.swizzle, map.atomicity);
        let what = if load {
            race::Access::Write
        } else {
            race::Access::Read
        };
        cta.race_at(self.id, l, MSpace::Shared, saddr, es, what, pc);
        let sp = cta.resolve(self, MSpace::Shared, saddr, es, l, pc, load)?;
        let Some(goff) = goff else {
            if load {
                // SAFETY: resolve checked `es` writable bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(fill.to_le_bytes().as_ptr(), sp, es as usize)
                };
            }
            return Ok(());
        };
        let g = map.addr.wrapping_add(goff);
        let gp = cta.resolve(self, MSpace::Global, g, es, l, pc, !load)?;
        if let Some((op, ty)) = reduce {
            // SAFETY: both were checked: `es` bytes each, naturally aligned.
            unsafe { reduce_element(sp, gp, MSpace::Global, op, ty) };
            return Ok(());
        }
        let (from, to) = if load { (gp, sp) } else { (sp, gp) };
        // SAFETY: both were checked: `es` bytes each, in distinct memories.
        unsafe { std::ptr::copy_nonoverlapping(from, to, es as usize) };
        Ok(())
    }
}

/// What the ISA forbids of a map's layout in a copy of `mode` (9.7.9.25.5.1 and 5.5.6), which
/// stops the copy with an illegal instruction: interleave in the four-row and wide im2col
/// modes; the 96-byte swizzle with another atomicity, interleave, a box row over 96 bytes,
/// the packed types or `.im2col::w::128`. And what this engine does not know of an
/// interleaved box: a row of whole 16-byte units places its elements back to back, but where
/// a traversal stride leaves a part-unit row, the ISA does not say whether the row is padded.
fn layout_refusal(map: &Map, mode: TensorMode) -> Option<String> {
    let es = map.elem_bytes().unwrap_or(1);
    if map.interleave != 0
        && matches!(
            mode,
            TensorMode::Gather4
                | TensorMode::Scatter4
                | TensorMode::Im2colW
                | TensorMode::Im2colW128
        )
    {
        return Some(format!(
            "a {mode:?} copy reads an interleaved tensor map (the ISA: no interleave in that mode)"
        ));
    }
    if map.swizzle == 4 {
        let row = match mode {
            TensorMode::Tile | TensorMode::Gather4 | TensorMode::Scatter4 => {
                map.box_dim[0] as u64 * es
            }
            _ => map.channels_per_pixel as u64 * es,
        };
        let why = if map.atomicity != 0 {
            Some("a swizzle atomicity other than 16 bytes")
        } else if map.interleave != 0 {
            Some("interleave")
        } else if row > 96 {
            Some("a box row over 96 bytes")
        } else if map.packed().is_some() {
            Some("a packed 4- or 6-bit element type")
        } else if mode == TensorMode::Im2colW128 {
            Some("`.im2col::w::128`")
        } else {
            None
        };
        if let Some(why) = why {
            return Some(format!(
                "reads a tensor map of the 96-byte swizzle with {why} (the ISA: not allowed)"
            ));
        }
    }
    let es0 = map.elem_strides[0].max(1) as u64;
    if map.interleave != 0 && mode == TensorMode::Tile && es0 > 1 {
        let row = (map.box_dim[0] as u64).div_ceil(es0) * es;
        if !row.is_multiple_of(16) {
            return Some(format!(
                "reads an interleaved box whose rows of {row} bytes (traversal stride {es0} in \
                 dimension 0) are not whole 16-byte units (not yet)"
            ));
        }
    }
    None
}

/// The box of a tile-mode copy: per dimension, how many elements (dimension 0 in units of
/// `unit` elements) and the step between them, the traversal stride (in dimension 0 only with
/// interleave, ISA 5.5.3.2: without it the stride there must be 1, and is taken as 1).
fn box_walk(map: &Map, dims: usize, unit: u64) -> ([u64; 5], [i64; 5]) {
    let mut n = [1u64; 5];
    let mut step = [1i64; 5];
    for d in 0..dims {
        let st = if d == 0 && (map.interleave == 0 || unit != 1) {
            1
        } else {
            map.elem_strides[d].max(1)
        };
        step[d] = st as i64;
        n[d] = (map.box_dim[d] as u64).div_ceil(if d == 0 && unit != 1 { unit } else { st as u64 });
    }
    (n, step)
}
