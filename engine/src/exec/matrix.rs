//! The warp-level matrix instructions (`Op::Matrix`): the warp's fragments are gathered into
//! whole matrices (`crate::sem::fragment` says which lane holds which element), computed or
//! moved, and scattered back. Every lane of the warp must execute them (`.sync.aligned`);
//! anything else is undefined in the ISA and reported here as a trap.

use super::cta::{Cta, Fault};
use super::race;
use super::regfile::*;
use super::warp::*;
use crate::ir::*;
use crate::sem::fragment::{
    mma_coord, per_lane, quad_pair_coord, sparse_chunk, sparse_columns, sparse_meta_at,
    wgmma_d_coord, wgmma_smem, wmma_coord, Role,
};
use crate::sem::mma::{self, El};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Element `i` of a lane's fragment `regs` of element type `t`.
fn elem(regs: &[u64], frag: &[Src], lane: usize, t: El, i: u32) -> u64 {
    let (per, bits) = (t.per_reg(), t.bits());
    let v = get(regs, frag[(i / per) as usize], lane);
    if bits == 64 {
        v
    } else {
        (v >> ((i % per) * bits)) & ((1u64 << bits) - 1)
    }
}

/// Sets element `i` of a lane's fragment held in `out` (one row per register).
fn set_elem(out: &mut [u64], t: El, i: u32, v: u64) {
    let (per, bits) = (t.per_reg(), t.bits());
    let r = (i / per) as usize;
    if bits == 64 {
        out[r] = v;
    } else {
        let sh = (i % per) * bits;
        let mask = ((1u64 << bits) - 1) << sh;
        out[r] = (out[r] & !mask) | ((v << sh) & mask);
    }
}

/// Row and column of each element of each lane's fragment.
type Table = Rc<[(u32, u32)]>;

/// Row and column of element `i` of each lane's fragment of `role`, at `[lane * n + i]` for
/// the `n` elements a lane holds: `wmma`'s layout (`wmma` true) or `mma`'s, for shape M x N x K
/// and `epr` elements a register. The layouts are fixed, so each is computed once per host
/// thread and kept: an instruction would otherwise recompute them for every element.
fn fragment_coords(wmma: bool, role: Role, (m, n, k): (u32, u32, u32), epr: u32) -> Table {
    type Key = (bool, u8, u32, u32, u32, u32);
    thread_local! {
        static TABLES: RefCell<HashMap<Key, Table>> = RefCell::default();
    }
    let key = (wmma, role as u8, m, n, k, epr);
    TABLES.with(|t| {
        t.borrow_mut()
            .entry(key)
            .or_insert_with(|| {
                let per = per_lane(role, m, n, k);
                (0..32 * per)
                    .map(|j| {
                        let (lane, i) = (j / per, j % per);
                        if wmma {
                            wmma_coord(role, (m, n, k), epr, lane, i)
                        } else {
                            mma_coord(role, m, epr, lane, i)
                        }
                    })
                    .collect()
            })
            .clone()
    })
}

impl Warp {
    /// `Op::Matrix`: see there.
    pub(super) fn matrix(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        op: &MatrixOp,
    ) -> Result<(), Fault> {
        if em != FULL || self.valid != FULL {
            let who = if self.valid != FULL {
                format!("by a warp of {} threads", self.valid.count_ones())
            } else {
                format!("by lanes {em:#010x} only")
            };
            let what = format!(
                "executed {who}: every thread of a whole warp must execute it (.sync.aligned; \
                 anything else is undefined in the ISA)"
            );
            return Err(cta.fault_warp_op(self, pc, &what));
        }
        match op {
            MatrixOp::Mma(x) => {
                self.mma(regs, x);
                Ok(())
            }
            MatrixOp::Wmma {
                store,
                frag,
                row,
                space,
                addr,
                stride,
                regs: fr,
            } => self.wmma_ldst(
                cta, regs, pc, *store, frag, *row, *space, *addr, *stride, fr,
            ),
            MatrixOp::Ldst {
                store,
                shape,
                space,
                addr,
                regs: fr,
            } => self.ldst_matrix(cta, regs, pc, *store, *shape, *space, *addr, fr),
            MatrixOp::Wgmma(x) => self.wgmma(cta, regs, pc, x),
            MatrixOp::Tmem(x) => self.tmem(cta, regs, pc, x),
            MatrixOp::Movmatrix { d, a } => {
                let mut x = [0u64; 32];
                fetch(regs, *a, &mut x);
                // Element (r, c) of the matrix is half c % 2 of lane 4r + c/2; lane l receives
                // row l/4, columns 2(l%4) and 2(l%4)+1 of the transpose.
                let at = |r: usize, c: usize| (x[4 * r + c / 2] >> (16 * (c % 2))) & 0xffff;
                for l in 0..32 {
                    let (r, c) = (l / 4, 2 * (l % 4));
                    regs[*d as usize * 32 + l] = at(c, r) | at(c + 1, r) << 16;
                }
                Ok(())
            }
        }
    }

    /// `mma.m8n8k4` with `.f16`: four 8x8x4 products, each on its quad pair of lanes.
    fn mma_quad_pairs(&self, regs: &mut [u64], x: &Mma) {
        let types = mma::Types {
            a: x.a_ty,
            b: x.b_ty,
            c: x.c_ty,
            d: x.d_ty,
        };
        let coord =
            |role, t: El, lane, i| quad_pair_coord(role, x.a_row, x.b_col, t == El::F32, lane, i);
        let lanes = |q: u32| {
            (0..4)
                .map(move |j| 4 * q + j)
                .chain((0..4).map(move |j| 4 * q + 16 + j))
        };
        for q in 0..4u32 {
            let (mut a, mut b, mut c) = ([0u64; 32], [0u64; 32], [0u64; 64]);
            for lane in lanes(q) {
                let l = lane as usize;
                for i in 0..4 {
                    let (r, col) = coord(Role::A, x.a_ty, lane, i);
                    a[(r * 4 + col) as usize] = elem(regs, &x.a, l, x.a_ty, i);
                    let (r, col) = coord(Role::B, x.b_ty, lane, i);
                    b[(col * 4 + r) as usize] = elem(regs, &x.b, l, x.b_ty, i);
                }
                for i in 0..8 {
                    let (r, col) = coord(Role::C, x.c_ty, lane, i);
                    c[(r * 8 + col) as usize] = elem(regs, &x.c, l, x.c_ty, i);
                }
            }
            for lane in lanes(q) {
                let mut out = vec![0u64; x.d.len()];
                for i in 0..8 {
                    let (r, col) = coord(Role::C, x.d_ty, lane, i);
                    let (r, col) = (r as usize, col as usize);
                    let d = mma::dot_m8n8k4_f16(
                        types,
                        &a[r * 4..r * 4 + 4],
                        &b[col * 4..col * 4 + 4],
                        c[r * 8 + col],
                    );
                    set_elem(&mut out, x.d_ty, i, d);
                }
                for (j, &reg) in x.d.iter().enumerate() {
                    regs[reg as usize * 32 + lane as usize] = out[j];
                }
            }
        }
    }

    fn mma(&self, regs: &mut [u64], x: &Mma) {
        let (m, n, k) = (x.m, x.n, x.k);
        if !x.wmma && (m, n, k) == (8, 8, 4) && x.a_ty == El::F16 {
            return self.mma_quad_pairs(regs, x);
        }
        let (ku, nu) = (k as usize, n as usize);
        let mut b = vec![0u64; (k * n) as usize];
        let mut c = vec![0u64; (m * n) as usize];
        // A, M x K; a sparse A arrives packed, M x K/2, and the metadata says where it goes.
        let ka = if x.sparse.is_some() { k / 2 } else { k };
        let mut packed = vec![0u64; (m * ka) as usize];
        let table = |role, k, t: El| fragment_coords(x.wmma, role, (m, n, k), t.per_reg());
        let (ta, tb, tc) = (
            table(Role::A, ka, x.a_ty),
            table(Role::B, k, x.b_ty),
            table(Role::C, k, x.c_ty),
        );
        let (na, nb, nc) = (
            per_lane(Role::A, m, n, ka),
            per_lane(Role::B, m, n, k),
            per_lane(Role::C, m, n, k),
        );
        for l in 0..32usize {
            for i in 0..na {
                let (r, col) = ta[l * na as usize + i as usize];
                packed[(r * ka + col) as usize] = elem(regs, &x.a, l, x.a_ty, i);
            }
            for i in 0..nb {
                let (r, col) = tb[l * nb as usize + i as usize];
                // B by columns: column `col` is contiguous.
                b[col as usize * ku + r as usize] = elem(regs, &x.b, l, x.b_ty, i);
            }
            for i in 0..nc {
                let (r, col) = tc[l * nc as usize + i as usize];
                c[r as usize * nu + col as usize] = elem(regs, &x.c, l, x.c_ty, i);
            }
        }
        // The sparse form sums only the packed products, in packed order: B's elements are
        // gathered to the columns the metadata names (`picked`, per row of A). The tensor
        // core then sums K/2 products, not K (so a k32 f16 mma.sp is one 32-byte block where
        // the dense k32 is two: an H200 agrees, scripts/ground-truth/results).
        let mut picked = Vec::new();
        match x.sparse {
            None => {}
            Some((meta, sel)) => {
                picked = vec![0u32; (m * ka) as usize];
                let bits = x.a_ty.bits();
                for r in 0..m {
                    for j in 0..k / sparse_chunk(bits) {
                        let (lane, at) = sparse_meta_at(k, bits, sel, r, j);
                        let nibble = (get(regs, meta, lane as usize) >> at) as u32 & 0xf;
                        for (p, col) in sparse_columns(bits, j, nibble) {
                            picked[(r * ka + p) as usize] = col;
                        }
                    }
                }
            }
        }
        let arch = mma::arch();
        let types = mma::Types {
            a: x.a_ty,
            b: x.b_ty,
            c: x.c_ty,
            d: x.d_ty,
        };
        let kp = ka as usize;
        // The scale factors of each row of A and column of B (9.7.14.3): row r's word is lane
        // 4 * (r % 8) + 2 * thread-id-a + r / 8's, column n's lane 4 * n + thread-id-b's, and
        // factor q of K's chunks is byte byte-id + q of it. Selectors are read from lane 0
        // (out-of-range values, undefined in the ISA, wrap).
        let (mut fa, mut fb) = (Vec::new(), Vec::new());
        if let Some(s) = &x.scale {
            let sel = |src: Src| get(regs, src, 0) as u32;
            let (bida, tida) = (sel(s.a_sel[0]), sel(s.a_sel[1]) & 1);
            let (bidb, tidb) = (sel(s.b_sel[0]), sel(s.b_sel[1]) & 3);
            let bytes = |word: Src, lane: u32, bid: u32, out: &mut Vec<u8>| {
                let w = get(regs, word, lane as usize);
                out.extend((0..s.vec).map(|q| (w >> (8 * ((bid + q) & 3))) as u8));
            };
            for r in 0..m {
                bytes(s.a, 4 * (r % 8) + 2 * tida + r / 8, bida, &mut fa);
            }
            for col in 0..n {
                bytes(s.b, 4 * col + tidb, bidb, &mut fb);
            }
        }
        // The float multiplicands of a dense mma, decoded once (each serves N or M elements).
        let float = matches!(x.a_ty, El::F16 | El::Bf16 | El::Tf32) && x.sparse.is_none();
        let (da, db) = match float {
            true => (
                mma::decode_all(x.a_ty, &packed),
                mma::decode_all(x.b_ty, &b),
            ),
            false => (Vec::new(), Vec::new()),
        };
        let dot = |r: usize, col: usize| {
            if float {
                let (ar, bc) = (&da[r * ku..][..ku], &db[col * ku..][..ku]);
                return mma::dot_decoded(arch, types, ar, bc, c[r * nu + col]);
            }
            let gathered: Vec<u64>;
            let (ar, bc) = if x.sparse.is_some() {
                let bcol = &b[col * ku..col * ku + ku];
                gathered = (0..kp).map(|p| bcol[picked[r * kp + p] as usize]).collect();
                (&packed[r * kp..r * kp + kp], &gathered[..])
            } else {
                (&packed[r * ku..r * ku + ku], &b[col * ku..col * ku + ku])
            };
            let cv = c[r * nu + col];
            if let Some(s) = &x.scale {
                let v = s.vec as usize;
                let (sa, sb) = (&fa[r * v..][..v], &fb[col * v..][..v]);
                return match x.a_ty {
                    El::E2m1x2 => mma::dot_mxf4(types, ar, bc, cv, s.stype, sa, sb),
                    _ => mma::dot_mxf8f6f4(types, ar, bc, cv, s.stype, sa[0], sb[0]),
                };
            }
            if x.kind {
                return mma::dot_f8f6f4(types, ar, bc, cv);
            }
            match x.a_ty {
                El::F16 | El::Bf16 | El::Tf32 => mma::dot(arch, types, ar, bc, cv),
                El::E4m3 | El::E5m2 => mma::dot_f8(arch, types, ar, bc, cv),
                El::F64 => mma::dot_f64(ar, bc, cv, x.rnd),
                El::B1 => mma::dot_b1(x.bit_op.unwrap_or(mma::BitOp::Xor), ar, bc, cv),
                _ => mma::dot_int(x.a_ty, x.b_ty, ar, bc, cv, x.sat),
            }
        };
        let d: Vec<u64> = (0..(m * n) as usize).map(|e| dot(e / nu, e % nu)).collect();
        let td = table(Role::C, k, x.d_ty);
        let mut out = vec![0u64; x.d.len()];
        for l in 0..32usize {
            out.iter_mut().for_each(|v| *v = 0);
            for i in 0..nc {
                let (r, col) = td[l * nc as usize + i as usize];
                set_elem(&mut out, x.d_ty, i, d[r as usize * nu + col as usize]);
            }
            for (j, &reg) in x.d.iter().enumerate() {
                regs[reg as usize * 32 + l] = out[j];
            }
        }
    }

    /// `wgmma.mma_async`: this warp's 16 rows of D (warp `id % 4` of its warpgroup), from its
    /// rows of A (registers, or shared memory through A's descriptor) and all of B (shared
    /// memory through B's descriptor). A sparse A's rows arrive packed (K/2 elements) and this
    /// warp's metadata (the lanes of `mma.sp`'s figures for its 16 rows) places them.
    fn wgmma(&mut self, cta: &mut Cta, regs: &mut [u64], pc: u32, x: &Wgmma) -> Result<(), Fault> {
        let (n, k) = (x.n as usize, x.k as usize);
        let ka = if x.sparse.is_some() { k / 2 } else { k };
        let wq = self.id % 4;
        let bits = x.a_ty.bits();
        let sign = |t: El| match t {
            El::F16 | El::Bf16 => 0x8000u64,
            El::Tf32 => 0x8000_0000,
            El::E4m3 | El::E5m2 => 0x80,
            _ => 0,
        };
        // A: 16 x KA, row r of this warp's slice.
        let mut a = vec![0u64; 16 * ka];
        match x.a_desc {
            Some(desc) => {
                let desc = get(regs, desc, 0);
                for r in 0..16 {
                    for kk in 0..ka {
                        let row = 16 * wq + r as u32;
                        a[r * ka + kk] =
                            self.operand_elem(cta, pc, desc, !x.trans_a, bits, row, kk)?;
                    }
                }
            }
            None => {
                for lane in 0..32u32 {
                    for i in 0..per_lane(Role::A, 16, 8, ka as u32) {
                        let (r, c) = mma_coord(Role::A, 16, x.a_ty.per_reg(), lane, i);
                        a[r as usize * ka + c as usize] =
                            elem(regs, &x.a, lane as usize, x.a_ty, i);
                    }
                }
            }
        }
        // B: K x N, kept by columns.
        let mut b = vec![0u64; k * n];
        let bdesc = get(regs, x.b_desc, 0);
        for col in 0..n {
            for kk in 0..k {
                b[col * k + kk] =
                    self.operand_elem(cta, pc, bdesc, !x.trans_b, bits, col as u32, kk)?;
            }
        }
        if x.neg_a {
            a.iter_mut().for_each(|v| *v ^= sign(x.a_ty));
        }
        if x.neg_b {
            b.iter_mut().for_each(|v| *v ^= sign(x.b_ty));
        }
        // A sparse row sums only its packed products, in packed order, with the elements of B
        // its metadata names (`picked`), as `mma.sp` does.
        let picked: Vec<usize> = match x.sparse {
            None => Vec::new(),
            Some((meta, sel)) => {
                let mut picked = vec![0usize; 16 * ka];
                for r in 0..16u32 {
                    for j in 0..k as u32 / sparse_chunk(bits) {
                        let (lane, at) = sparse_meta_at(k as u32, bits, sel, r, j);
                        let nibble = (get(regs, meta, lane as usize) >> at) as u32 & 0xf;
                        for (p, col) in sparse_columns(bits, j, nibble) {
                            picked[r as usize * ka + p as usize] = col as usize;
                        }
                    }
                }
                picked
            }
        };
        let types = mma::Types {
            a: x.a_ty,
            b: x.b_ty,
            c: x.d_ty,
            d: x.d_ty,
        };
        let per = (n / 2) as u32;
        let float = matches!(x.a_ty, El::F16 | El::Bf16 | El::Tf32 | El::E4m3 | El::E5m2);
        let (da, db) = match float {
            true => (mma::decode_all(x.a_ty, &a), mma::decode_all(x.b_ty, &b)),
            false => (Vec::new(), Vec::new()),
        };
        // Column `col` of B as row `r` of A meets it: all of it, or the elements `picked`.
        fn column<'a, T: Copy>(
            b: &'a [T],
            picked: &[usize],
            (k, ka): (usize, usize),
            r: usize,
            col: usize,
        ) -> std::borrow::Cow<'a, [T]> {
            let bc = &b[col * k..][..k];
            if picked.is_empty() {
                bc.into()
            } else {
                picked[r * ka..][..ka].iter().map(|&p| bc[p]).collect()
            }
        }
        let arch = mma::arch();
        // scale-d is uniform over the warpgroup; lane 0's is taken for all.
        let keep = get(regs, x.scale_d, 0) & 1 != 0;
        let dsrc: Vec<Src> = x.d.iter().map(|&r| Src::Reg(r)).collect();
        for lane in 0..32usize {
            let mut out: Vec<u64> = x.d.iter().map(|&r| regs[r as usize * 32 + lane]).collect();
            for i in 0..per {
                let (r, col) = wgmma_d_coord(0, lane as u32, i);
                let (r, col) = (r as usize, col as usize);
                let c = if keep {
                    elem(regs, &dsrc, lane, x.d_ty, i)
                } else {
                    0
                };
                let v = if float {
                    let (ar, bc) = (&da[r * ka..][..ka], column(&db, &picked, (k, ka), r, col));
                    match x.a_ty {
                        El::E4m3 | El::E5m2 => mma::dot_wgmma_f8(types, ar, &bc, c),
                        _ => mma::dot_decoded(arch, types, ar, &bc, c),
                    }
                } else {
                    let (ar, bc) = (&a[r * ka..][..ka], column(&b, &picked, (k, ka), r, col));
                    match x.a_ty {
                        El::B1 => mma::dot_b1(mma::BitOp::And, ar, &bc, c),
                        _ => mma::dot_int(x.a_ty, x.b_ty, ar, &bc, c, x.sat),
                    }
                };
                set_elem(&mut out, x.d_ty, i, v);
            }
            for (j, &reg) in x.d.iter().enumerate() {
                regs[reg as usize * 32 + lane] = out[j];
            }
        }
        Ok(())
    }

    /// Element (`mn`, `k`) of a `wgmma` operand of `bits`-bit elements in shared memory, as
    /// `desc` lays it out (`k_major`). A `.b1` operand's layout is that of its bytes (the
    /// canonical layouts count 16-byte rows, 128 `.b1` or 16 bytes), element `k` bit `k % 8`
    /// of byte `k / 8`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn operand_elem(
        &mut self,
        cta: &mut Cta,
        pc: u32,
        desc: u64,
        k_major: bool,
        bits: u32,
        mn: u32,
        k: usize,
    ) -> Result<u64, Fault> {
        if bits == 1 {
            let addr = wgmma_smem(desc, k_major, 8, mn, k as u32 / 8);
            return Ok(self.smem_elem(cta, pc, addr, 1)? >> (k % 8) & 1);
        }
        let addr = wgmma_smem(desc, k_major, bits, mn, k as u32);
        self.smem_elem(cta, pc, addr, (bits / 8) as u64)
    }

    /// An element of `bytes` at a shared address of this CTA (or a `.shared::cluster` one).
    pub(super) fn smem_elem(
        &mut self,
        cta: &mut Cta,
        pc: u32,
        addr: u64,
        bytes: u64,
    ) -> Result<u64, Fault> {
        let p = cta.resolve(self, MSpace::Shared, addr, bytes, 0, pc, false)?;
        // For racecheck, wgmma's operands are read by the warp's first thread at issue (the
        // asynchronous read happens before `wgmma.wait_group`; issue is the earliest it can).
        cta.race_at(
            self.id,
            0,
            MSpace::Shared,
            addr,
            bytes,
            race::Access::Read,
            pc,
        );
        let mut v = [0u8; 8];
        // SAFETY: resolve checked `bytes` (at most 8) readable bytes.
        unsafe { std::ptr::copy_nonoverlapping(p, v.as_mut_ptr(), bytes as usize) };
        Ok(u64::from_le_bytes(v))
    }

    /// `wmma.load` / `wmma.store`: each lane moves its own fragment's elements, element (r, c)
    /// of the matrix at `p + (r * stride + c) * size` (by rows) or `p + (c * stride + r) * size`
    /// (by columns), with the lane's own `p` and `stride`.
    #[allow(clippy::too_many_arguments)]
    fn wmma_ldst(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        store: bool,
        f: &Frag,
        row: bool,
        space: MSpace,
        addr: Addr,
        stride: Option<Src>,
        frag: &[Src],
    ) -> Result<(), Fault> {
        let (rows, cols) = match f.role {
            Role::A => (f.m, f.k),
            Role::B => (f.k, f.n),
            Role::C => (f.m, f.n),
        };
        let bits = f.el.bits();
        let unique = per_lane(f.role, f.m, f.n, f.k);
        let uregs = unique.div_ceil(f.el.per_reg()) as usize;
        let mut out = vec![0u64; frag.len()];
        let coords = fragment_coords(true, f.role, (f.m, f.n, f.k), f.el.per_reg());
        for l in 0..32 {
            let p = addr.base.map_or(0, |b| regs[b as usize * 32 + l]) as i64 + addr.off;
            let ld = match stride {
                Some(s) => get(regs, s, l) as u32,
                None if row => cols,
                None => rows,
            } as u64;
            out.iter_mut().for_each(|v| *v = 0);
            for i in 0..unique {
                let (r, c) = coords[l * unique as usize + i as usize];
                let idx = if row {
                    r as u64 * ld + c as u64
                } else {
                    c as u64 * ld + r as u64
                };
                let bit = idx * bits as u64;
                let a = (p as u64).wrapping_add(bit / 8);
                let len = (bits as u64).div_ceil(8);
                let q = cta.resolve(self, space, a, len, l, pc, store)?;
                cta.race_at(self.id, l, space, a, len, race::Access::of(store), pc);
                let sh = (bit % 8) as u32;
                let mask = if bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                if store {
                    let v = elem(regs, frag, l, f.el, i);
                    // SAFETY: resolve checked [a, a + len) inside writable memory.
                    unsafe { write_bits(q, len as usize, sh, mask, v) };
                } else {
                    // SAFETY: as above, readable.
                    let v = unsafe { read_bits(q, len as usize, sh, mask) };
                    set_elem(&mut out, f.el, i, v);
                }
            }
            if !store {
                for (j, s) in frag.iter().enumerate() {
                    if let Src::Reg(d) = s {
                        // The registers past the distinct elements repeat the first ones.
                        regs[*d as usize * 32 + l] = out[j % uregs];
                    }
                }
            }
        }
        Ok(())
    }

    /// `ldmatrix` / `stmatrix`: see `MatrixOp::Ldst`.
    #[allow(clippy::too_many_arguments)]
    fn ldst_matrix(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        store: bool,
        shape: LdstShape,
        space: MSpace,
        addr: Addr,
        frag: &[Src],
    ) -> Result<(), Fault> {
        // Row addresses: lane rows * q + r gives row r of matrix q; resolved once each (16
        // bytes).
        let mut rows = [std::ptr::null_mut::<u8>(); 32];
        let per = shape.rows();
        for l in 0..per * frag.len() / shape.regs() {
            let p = addr.base.map_or(0, |b| regs[b as usize * 32 + l]) as i64 + addr.off;
            rows[l] = cta.resolve(self, space, p as u64, 16, l, pc, store)?;
            // (Each row is the access of the lane that gave its address.)
            cta.race_at(self.id, l, space, p as u64, 16, race::Access::of(store), pc);
        }
        let trans = match shape {
            LdstShape::M8n8 { trans } => trans,
            _ => return self.ldst_bytes(regs, shape, &rows, frag, store),
        };
        for (q, s) in frag.iter().enumerate() {
            for l in 0..32 {
                // Lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 of its fragment; with
                // `trans` that is column l/4, rows 2(l%4) and 2(l%4)+1 of the stored matrix.
                let half = |h: usize| -> *mut u8 {
                    let (r, c) = if trans {
                        (2 * (l % 4) + h, l / 4)
                    } else {
                        (l / 4, 2 * (l % 4) + h)
                    };
                    // SAFETY: each row pointer covers 16 bytes, 8 elements of 2.
                    unsafe { rows[8 * q + r].add(2 * c) }
                };
                // SAFETY: the pointers are inside the rows resolved above (readable, and
                // writable for stmatrix).
                unsafe {
                    if store {
                        let v = get(regs, *s, l);
                        (half(0) as *mut u16).write_unaligned(v as u16);
                        (half(1) as *mut u16).write_unaligned((v >> 16) as u16);
                    } else if let Src::Reg(d) = s {
                        let lo = (half(0) as *const u16).read_unaligned() as u64;
                        let hi = (half(1) as *const u16).read_unaligned() as u64;
                        regs[*d as usize * 32 + l] = lo | hi << 16;
                    }
                }
            }
        }
        Ok(())
    }

    /// The 8-bit shapes of `ldmatrix`/`stmatrix` (sm_100a), `rows` their resolved row
    /// addresses. Byte `k` of a lane's register `r` of a matrix (lane l = 4 * b + a), in the
    /// matrix's rows of 16 bytes (ISA figures 105, 106 and 108; the `.trans` ones read as the
    /// transpose of the figure, as CUTLASS's SM100 LDSM/STSM copy traits lay them out):
    /// - m16n16, `.trans`: row 4a + k, byte b + 8r;
    /// - m8n16: row l / 4, byte 4a + k;
    /// - m16n8, `.trans`: row 2a + k % 2, byte b + 8 (k / 2).
    fn ldst_bytes(
        &self,
        regs: &mut [u64],
        shape: LdstShape,
        rows: &[*mut u8; 32],
        frag: &[Src],
        store: bool,
    ) -> Result<(), Fault> {
        let at = |l: usize, r: usize, k: usize| -> (usize, usize) {
            let (a, b) = (l % 4, l / 4);
            match shape {
                LdstShape::M16n16 { .. } => (4 * a + k, b + 8 * r),
                LdstShape::M8n16 { .. } => (b, 4 * a + k),
                _ => (2 * a + k % 2, b + 8 * (k / 2)),
            }
        };
        let (per, nregs) = (shape.rows(), shape.regs());
        if store {
            for (j, s) in frag.iter().enumerate() {
                let (q, r) = (j / nregs, j % nregs);
                for l in 0..32 {
                    let v = get(regs, *s, l);
                    for k in 0..4 {
                        let (row, col) = at(l, r, k);
                        // SAFETY: each row pointer covers 16 writable bytes.
                        unsafe { *rows[per * q + row].add(col) = (v >> (8 * k)) as u8 };
                    }
                }
            }
            return Ok(());
        }
        // The rows as bytes, decompressed as tcgen05.cp does (`mma::decompress`).
        let src_bits = match shape {
            LdstShape::M16n16 { src_bits } | LdstShape::M8n16 { src_bits } => src_bits as u32,
            _ => 0,
        };
        let n = per * frag.len() / nregs;
        let mut bytes = vec![[0u8; 16]; n];
        for (row, out) in bytes.iter_mut().enumerate() {
            // SAFETY: each row pointer covers 16 readable bytes.
            unsafe { std::ptr::copy_nonoverlapping(rows[row], out.as_mut_ptr(), 16) };
            if src_bits != 0 {
                mma::decompress(out, src_bits);
            }
        }
        for (j, s) in frag.iter().enumerate() {
            let (q, r) = (j / nregs, j % nregs);
            let Src::Reg(d) = s else { continue };
            for l in 0..32 {
                let v = (0..4).fold(0u64, |v, k| {
                    let (row, col) = at(l, r, k);
                    v | (bytes[per * q + row][col] as u64) << (8 * k)
                });
                regs[*d as usize * 32 + l] = v;
            }
        }
        Ok(())
    }
}

/// `mask` bits at bit `sh` of the `len` bytes at `p`, little-endian.
///
/// # Safety
/// `p` is valid for reading `len` (at most 8) bytes.
unsafe fn read_bits(p: *const u8, len: usize, sh: u32, mask: u64) -> u64 {
    let mut b = [0u8; 8];
    // SAFETY: forwarded.
    unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), len) };
    (u64::from_le_bytes(b) >> sh) & mask
}

/// Writes `v` into `mask` bits at bit `sh` of the `len` bytes at `p`, keeping the others.
///
/// # Safety
/// `p` is valid for reading and writing `len` (at most 8) bytes.
unsafe fn write_bits(p: *mut u8, len: usize, sh: u32, mask: u64, v: u64) {
    let mut b = [0u8; 8];
    // SAFETY: forwarded.
    unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), len) };
    let old = u64::from_le_bytes(b);
    let new = (old & !(mask << sh)) | ((v & mask) << sh);
    // SAFETY: forwarded.
    unsafe { std::ptr::copy_nonoverlapping(new.to_le_bytes().as_ptr(), p, len) };
}
