//! Bulk copies (`Op::Bulk`): each active lane's copy is performed when it issues, then the
//! mbarrier it names sees its bytes as completed transactions. Tensor copies read their tensor
//! map (`crate::tensormap`), walk the box in tile mode (traversal strides, out-of-bound
//! elements filled on loads and skipped on stores) and place each element in shared memory
//! by the map's swizzle.

use super::cta::{Cta, Fault};
use super::regfile::*;
use super::warp::*;
use crate::ir::*;
use crate::tensormap::{self, Map};

/// A lane's address operand.
fn lane_addr(regs: &[u64], a: Addr, l: usize) -> u64 {
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
            let bytes = match &op.tensor {
                None => self.bulk_bytes(cta, regs, pc, l, op)?,
                Some(t) => self.bulk_tensor(cta, regs, pc, l, op, t)?,
            };
            // The bytes complete transactions on the lane's mbarrier, as `mbarrier.complete_tx`.
            if let Some((space, a)) = op.mbar {
                let b = Src::Imm(bytes);
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
        Ok(())
    }

    /// A linear copy of `size` bytes (a multiple of 16, both addresses 16-byte aligned).
    fn bulk_bytes(
        &mut self,
        cta: &mut Cta,
        regs: &[u64],
        pc: u32,
        l: usize,
        op: &BulkOp,
    ) -> Result<u64, Fault> {
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
        let (ds, da) = op.dst;
        let (ss, sa) = op.src;
        let s = cta.resolve(self, ss, lane_addr(regs, sa, l), size, l, pc, false)?;
        let d = cta.resolve(self, ds, lane_addr(regs, da, l), size, l, pc, true)?;
        // SAFETY: both ranges were checked inside live memory; they may overlap only when
        // both are shared memory, which `copy` allows.
        unsafe { std::ptr::copy(s, d, size as usize) };
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
        t: &TensorRef,
    ) -> Result<u64, Fault> {
        let (ms, ma) = t.map;
        let map_at = lane_addr(regs, ma, l);
        let mp = cta.resolve(self, ms, map_at, tensormap::BYTES, l, pc, false)?;
        let mut raw = [0u8; tensormap::BYTES as usize];
        // SAFETY: resolve checked 128 readable bytes.
        unsafe { std::ptr::copy_nonoverlapping(mp, raw.as_mut_ptr(), raw.len()) };
        let map = Map::from_bytes(&raw);
        let dims = t.coords.len();
        let unsupported = if map.rank as usize != dims {
            Some(format!(
                "names {dims} coordinates for the tensor map at {map_at:#x}, of rank {}",
                map.rank
            ))
        } else if map.elem_bytes().is_none() {
            Some("reads a tensor map of packed 4- or 6-bit elements (not yet)".into())
        } else if map.interleave != 0 {
            Some("reads an interleaved tensor map (not yet)".into())
        } else if map.swizzle > 3 {
            Some("reads a 96-byte swizzle (not yet)".into())
        } else {
            None
        };
        if let Some(what) = unsupported {
            return Err(cta.fault_warp_op(self, pc, &what));
        }
        let es = map.elem_bytes().unwrap_or(1);
        // Elements per dimension of the box: dimension 0 without traversal stride (the ISA
        // ignores it without interleave).
        let mut n = [1u64; 5];
        let mut step = [1i64; 5];
        for d in 0..dims {
            let st = if d == 0 {
                1
            } else {
                map.elem_strides[d].max(1)
            };
            step[d] = st as i64;
            n[d] = (map.box_dim[d] as u64).div_ceil(st as u64);
        }
        let total: u64 = n.iter().product();
        let bytes = total * es;
        let c0: Vec<i64> = (t.coords.iter())
            .map(|&c| get(regs, c, l) as u32 as i32 as i64)
            .collect();
        let (ss, sa) = if t.load { op.dst } else { op.src };
        let base = lane_addr(regs, sa, l);
        let fill = map.fill_bits();
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
            let saddr = tensormap::swizzle(base + idx * es, map.swizzle, map.atomicity);
            let sp = cta.resolve(self, ss, saddr, es, l, pc, t.load)?;
            if !inside {
                if t.load {
                    // SAFETY: resolve checked `es` writable bytes.
                    unsafe {
                        std::ptr::copy_nonoverlapping(fill.to_le_bytes().as_ptr(), sp, es as usize)
                    };
                }
                continue;
            }
            let gp = cta.resolve(
                self,
                MSpace::Global,
                map.addr.wrapping_add(goff),
                es,
                l,
                pc,
                !t.load,
            )?;
            let (from, to) = if t.load { (gp, sp) } else { (sp, gp) };
            // SAFETY: both were checked: `es` bytes each, in distinct memories.
            unsafe { std::ptr::copy_nonoverlapping(from, to, es as usize) };
        }
        Ok(bytes)
    }
}
