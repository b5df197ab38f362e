//! Lowering of the bulk copies (ISA 9.7.9.25.4-6): `cp.async.bulk` between global and shared
//! memory and between CTAs of a cluster, `cp.async.bulk.tensor` in tile mode in 1 to 5
//! dimensions, their completion (`mbarrier::complete_tx::bytes`, `bulk_group` with
//! `commit_group`/`wait_group`), multicast to the CTAs of a cluster (`.multicast::cluster`
//! with its ctaMask), im2col loads in 3 to 5 dimensions with their offsets, the wide im2col
//! loads `.im2col::w` and `.im2col::w::128` with their wHalo and wOffset (sm_100), the 2-D
//! `.tile::gather4` loads and `.tile::scatter4` stores of four rows (sm_100), the reductions
//! `cp.reduce.async.bulk` (linear and tile-mode tensor ones), the prefetches and `st.bulk`, into
//! [`Op::Bulk`], and the `.cta_group::1`/`::2` of tensor loads (sm_100: with `::2` the
//! mbarrier may be in the peer CTA of the CTA pair), the byte mask of shared-to-global copies
//! (`.cp_mask`, sm_100) and the ignored ends of global-to-shared ones (`.ignore_oob`, PTX ISA
//! 9.2, which CUB's sm_100 scan uses). Refused at load, naming the instruction: the `im2col_no_offs`
//! mode.

use super::*;

/// The modifier of a tensor copy's load mode.
fn mode_word(mode: TensorMode) -> &'static str {
    match mode {
        TensorMode::Tile => "tile",
        TensorMode::Im2col => "im2col",
        TensorMode::Im2colW => "im2col::w",
        TensorMode::Im2colW128 => "im2col::w::128",
        TensorMode::Gather4 => "tile::gather4",
        TensorMode::Scatter4 => "tile::scatter4",
    }
}

impl<'a> Prog<'a> {
    /// `st.bulk` (ISA 9.7.9.13, sm_100): `size` zero bytes written at `[a]` in the CTA's shared
    /// memory (generic addressing must fall there), the bulk copies' executor checking the range.
    /// `size` (32 or 64 bits) is a multiple of 8 up to 16 MiB; another is undefined and stops
    /// the kernel here. `initval` must be the immediate 0, as ptxas requires.
    pub(super) fn st_bulk(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        self.require_sm(i, 100, "st.bulk")?;
        m.take("bulk");
        m.take("weak");
        let space = m.space();
        m.done()?;
        if !matches!(space, None | Some(AS::Shared)) {
            return invalid(i.pos, "st.bulk writes .shared::cta memory");
        }
        let ops = &i.operands;
        if ops.len() != 3 {
            return invalid(i.pos, "st.bulk takes [a], size, initval");
        }
        if !matches!(ops[2], O::Int(0)) {
            return invalid(i.pos, "the initval of st.bulk must be zero");
        }
        let size = self.src(fc, i, g, &ops[1], T::U(64))?;
        let dst = self.addr(fc, i, &ops[0], space)?;
        self.emit(
            i,
            g,
            Op::Bulk(Box::new(BulkOp {
                dst,
                src: dst,
                size: Some(size),
                tensor: None,
                mbar: None,
                multicast: None,
                pair: false,
                reduce: None,
                zero: true,
                byte_mask: None,
                ignore_oob: None,
            })),
        );
        Ok(())
    }

    /// The operation and element type of `cp.reduce.async.bulk` (9.7.9.25.4.2): a linear one
    /// names its type; a tensor one takes its map's (None here).
    fn bulk_reduction(
        &mut self,
        i: &Instruction,
        m: &mut Mods,
        tensor: bool,
    ) -> R<(AtomOp, Option<AtomTy>)> {
        let reductions = &AtomOp::WORDS[..8];
        let Some(op) = (reductions.iter())
            .find(|(w, _)| m.take(w))
            .map(|&(_, o)| o)
        else {
            return unsupported(i);
        };
        let noftz = m.take("noftz");
        if tensor {
            return if noftz {
                unsupported(i)
            } else {
                Ok((op, None))
            };
        }
        let types = m.types();
        let [t] = &types[..] else {
            return unsupported(i);
        };
        use AtomOp::*;
        // The ISA's table for a global destination (a CTA's shared memory takes fewer, checked
        // by the caller): f16/bf16 add only with .noftz, their min/max without.
        let half = |bf| AtomTy::Half { bf, x2: false };
        let ty = match (op, t.as_str(), noftz) {
            (Add, "f16", true) | (Min | Max, "f16", false) => half(false),
            (Add, "bf16", true) | (Min | Max, "bf16", false) => half(true),
            (_, _, true) => return unsupported(i),
            (Add, "f32", _) => AtomTy::F32,
            (Add, "f64", _) => AtomTy::F64,
            (Add | Min | Max, "u32", _) | (Inc | Dec, "u32", _) => AtomTy::U32,
            (Add | Min | Max, "s32", _) => AtomTy::S32,
            (Add | Min | Max, "u64", _) => AtomTy::U64,
            (Min | Max, "s64", _) => AtomTy::S64,
            (And | Or | Xor, "b32" | "u32" | "s32", _) => AtomTy::U32,
            (And | Or | Xor, "b64" | "u64" | "s64", _) => AtomTy::U64,
            _ => return unsupported(i),
        };
        Ok((op, Some(ty)))
    }

    pub(super) fn bulk(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let reduce = m.take("reduce");
        m.take("async");
        m.take("bulk");
        let ops = &i.operands;
        // Completion of a group: every copy is done at issue.
        if m.take("commit_group") {
            m.done()?;
            self.emit(i, g, Op::Nop);
            return Ok(());
        }
        if m.take("wait_group") {
            m.take("read");
            m.done()?;
            return self.wait_group_nop(i, g, "cp.async.bulk.wait_group");
        }
        let tensor = m.take("tensor");
        let dims = if tensor {
            match ["1d", "2d", "3d", "4d", "5d"]
                .iter()
                .position(|w| m.take(w))
            {
                Some(d) => d + 1,
                None => return unsupported(i),
            }
        } else {
            0
        };
        let hint = m.take("L2::cache_hint");
        // A prefetch into the L2 cache changes nothing a program computes.
        if m.take("prefetch") {
            m.take("L2");
            m.take("global");
            m.take("tile");
            m.take("im2col");
            for w in ["tile::gather4", "im2col::w", "im2col::w::128"] {
                if m.take(w) {
                    self.require_sm(i, 100, &format!(".{w}"))?;
                }
            }
            m.done()?;
            self.emit(i, g, Op::Nop);
            return Ok(());
        }
        let spaces: Vec<&str> = (i.mods.iter())
            .map(|w| w.as_str())
            .filter(|w| matches!(*w, "global" | "shared::cta" | "shared::cluster" | "shared"))
            .collect();
        for w in &spaces {
            m.take(w);
        }
        let mbar = m.take("mbarrier::complete_tx::bytes");
        let group = m.take("bulk_group");
        let multicast = m.take("multicast::cluster");
        // `.cta_group::1` is the default; `::2` lets the mbarrier be in the peer CTA.
        let cp_mask = m.take("cp_mask");
        let ignore_oob = m.take("ignore_oob");
        let pair = m.take("cta_group::2");
        self.cta_pair |= pair;
        let cta_group = pair || m.take("cta_group::1");
        let red = match reduce {
            false => None,
            true => Some(self.bulk_reduction(i, m, tensor)?),
        };
        use TensorMode::*;
        let mode = if !tensor {
            Tile
        } else if m.take("im2col::w::128") {
            Im2colW128
        } else if m.take("im2col::w") {
            Im2colW
        } else if m.take("im2col") {
            Im2col
        } else if m.take("tile::gather4") {
            Gather4
        } else if m.take("tile::scatter4") {
            Scatter4
        } else {
            m.take("tile");
            Tile
        };
        let im2col = matches!(mode, Im2col | Im2colW | Im2colW128);
        m.done()?;
        let [dst_w, src_w] = spaces[..] else {
            return unsupported(i);
        };
        let to_global = dst_w == "global";
        // im2col runs from global to shared memory, in 3 to 5 dimensions; gather4 loads and
        // scatter4 stores 2-D tensors.
        if (im2col && (to_global || dims < 3))
            || (mode == Gather4 && (to_global || dims != 2))
            || (mode == Scatter4 && (!to_global || dims != 2))
        {
            return unsupported(i);
        }
        // The ISA's targets: sm_100 for the wide im2col modes and the four-row ones (sm_100a
        // or sm_100f for some of their forms; the suffix is not checked).
        if !matches!(mode, Tile | Im2col) {
            self.require_sm(i, 100, &format!(".{}", mode_word(mode)))?;
        }
        // Reductions go from shared memory to global memory, or (linear ones) to a CTA of
        // the cluster.
        if red.is_some() && (src_w == "global" || im2col || multicast || mode == Scatter4) {
            return unsupported(i);
        }
        // Into a CTA's shared memory: add of u32/s32/u64, min/max of u32/s32, inc/dec, b32
        // bitwise operations (a 64-bit add is `.u64`: `bulk_reduction` takes no `.b64` add).
        if let (Some((op, Some(ty))), false) = (red, to_global) {
            let ok = match ty {
                AtomTy::U32 | AtomTy::S32 => true,
                AtomTy::U64 => op == AtomOp::Add,
                _ => false,
            };
            if !ok {
                return unsupported(i);
            }
        }
        // `.cta_group` (sm_100a/sm_100f, not checked) only on tensor loads, which complete on
        // an mbarrier (9.7.9.25.5.2).
        if cta_group {
            self.require_sm(i, 100, ".cta_group")?;
            if !tensor || to_global {
                return invalid(
                    i.pos,
                    ".cta_group is taken by cp.async.bulk.tensor loads into shared memory only",
                );
            }
        }
        // The completion each direction has: an mbarrier into shared memory, a bulk group out.
        if (to_global && (!group || mbar)) || (!to_global && (!mbar || group)) {
            return unsupported(i);
        }
        let space = |w: &str| match w {
            "global" => AS::Global,
            _ => AS::Shared,
        };
        // Loads into the cluster may name a ctaMask operand (after the mbarrier), then the
        // cache policy.
        if multicast && (to_global || dst_w != "shared::cluster") {
            return unsupported(i);
        }
        // `.cp_mask`: copies from shared memory to global memory, its byteMask last.
        if cp_mask {
            self.require_sm(i, 100, ".cp_mask")?;
            if tensor || !to_global || red.is_some() {
                return unsupported(i);
            }
        }
        // `.ignore_oob` (PTX ISA 9.2): global to `.shared::cta`, with the bytes to ignore at
        // either end after the size.
        if ignore_oob
            && (tensor || to_global || multicast || red.is_some() || dst_w == "shared::cluster")
        {
            return unsupported(i);
        }
        let cache_policy = hint as usize;
        let extra = multicast as usize + cache_policy + cp_mask as usize + 2 * ignore_oob as usize;
        let mask = |p: &mut Self, at: usize| -> R<Option<Src>> {
            match multicast {
                true => Ok(Some(p.src(fc, i, g, &ops[at], T::B(16))?)),
                false => Ok(None),
            }
        };
        let tensor_ref = |p: &mut Self, o: &O, load: bool| -> R<TensorRef> {
            let O::Tuple(parts) = o else {
                return invalid(i.pos, "expected [tensorMap, {coordinates}]");
            };
            let [map, O::Vector(cs)] = parts.as_slice() else {
                return invalid(i.pos, "expected [tensorMap, {coordinates}]");
            };
            // gather4 and scatter4 name a column and four rows.
            let n = match mode {
                Gather4 | Scatter4 => 5,
                _ => dims,
            };
            if cs.len() != n {
                return invalid(i.pos, format!("'{}' needs {n} coordinates", i.full_name()));
            }
            let map_addr = O::Addr {
                base: match map {
                    O::Name { name, .. } => Some(Name::new(name)),
                    _ => return invalid(i.pos, "expected a tensor map"),
                },
                offset: 0,
            };
            let map = p.addr(fc, i, &map_addr, None)?;
            let coords = (cs.iter())
                .map(|c| p.src(fc, i, g, c, T::S(32)))
                .collect::<R<Vec<_>>>()?;
            Ok(TensorRef {
                map,
                coords,
                load,
                im2col: None,
                mode,
            })
        };
        let op = if tensor && !to_global {
            // [dstMem], [tensorMap, coords], [mbar] {, im2colOffsets} {, ctaMask}
            // {, cache-policy}
            let offsets = im2col as usize;
            if ops.len() != 3 + offsets + extra {
                return unsupported(i);
            }
            let dst = self.addr(fc, i, &ops[0], Some(space(dst_w)))?;
            let mut t = tensor_ref(self, &ops[1], true)?;
            let mb = self.addr(fc, i, &ops[2], Some(AS::Shared))?;
            if im2col {
                let O::Vector(offs) = &ops[3] else {
                    return invalid(i.pos, "expected {im2col offsets}");
                };
                // im2colInfo: an offset per spatial dimension, or {wHalo, wOffset}.
                let n = match mode {
                    Im2col => dims - 2,
                    _ => 2,
                };
                if offs.len() != n {
                    return invalid(
                        i.pos,
                        format!("'{}' needs {n} im2col operands", i.full_name()),
                    );
                }
                t.im2col = Some(
                    (offs.iter())
                        .map(|o| self.src(fc, i, g, o, T::U(16)))
                        .collect::<R<Vec<_>>>()?,
                );
            }
            BulkOp {
                dst,
                src: dst,
                size: None,
                tensor: Some(t),
                mbar: Some(mb),
                multicast: mask(self, 3 + offsets)?,
                pair,
                reduce: red,
                zero: false,
                byte_mask: None,
                ignore_oob: None,
            }
        } else if tensor {
            // [tensorMap, coords], [srcMem] {, cache-policy}
            if ops.len() != 2 + cache_policy || src_w == "shared::cluster" {
                return unsupported(i);
            }
            let t = tensor_ref(self, &ops[0], false)?;
            let src = self.addr(fc, i, &ops[1], Some(AS::Shared))?;
            BulkOp {
                dst: src,
                src,
                size: None,
                tensor: Some(t),
                mbar: None,
                multicast: None,
                pair: false,
                reduce: red,
                zero: false,
                byte_mask: None,
                ignore_oob: None,
            }
        } else {
            // [dst], [src], size {, [mbar]} {, ctaMask} {, cache-policy}
            let n = 3 + !to_global as usize;
            // Global to shared memory, shared to global, or to another CTA of the cluster.
            let pair_ok = matches!(
                (dst_w, src_w),
                ("global", "shared::cta" | "shared")
                    | ("shared::cta" | "shared::cluster" | "shared", "global")
                    | ("shared::cluster", "shared::cta")
            );
            if ops.len() != n + extra || !pair_ok {
                return unsupported(i);
            }
            let dst = self.addr(fc, i, &ops[0], Some(space(dst_w)))?;
            let src = self.addr(fc, i, &ops[1], Some(space(src_w)))?;
            let size = self.src(fc, i, g, &ops[2], T::U(32))?;
            let ignore = match ignore_oob {
                true => Some([
                    self.src(fc, i, g, &ops[3], T::U(32))?,
                    self.src(fc, i, g, &ops[4], T::U(32))?,
                ]),
                false => None,
            };
            let at = 3 + 2 * ignore_oob as usize;
            let mbar = match to_global {
                true => None,
                false => Some(self.addr(fc, i, &ops[at], Some(AS::Shared))?),
            };
            let byte_mask = match cp_mask {
                true => Some(self.src(fc, i, g, &ops[ops.len() - 1], T::B(16))?),
                false => None,
            };
            BulkOp {
                dst,
                src,
                size: Some(size),
                tensor: None,
                mbar,
                multicast: mask(self, n + 2 * ignore_oob as usize)?,
                pair: false,
                reduce: red,
                zero: false,
                byte_mask,
                ignore_oob: ignore,
            }
        };
        self.emit(i, g, Op::Bulk(Box::new(op)));
        Ok(())
    }
}
