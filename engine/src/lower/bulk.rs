//! Lowering of the bulk copies (ISA 9.7.9.25.4-6): `cp.async.bulk` between global and shared
//! memory and between CTAs of a cluster, `cp.async.bulk.tensor` in tile mode in 1 to 5
//! dimensions, their completion (`mbarrier::complete_tx::bytes`, `bulk_group` with
//! `commit_group`/`wait_group`) and the prefetches, into [`Op::Bulk`]. Refused at load,
//! naming the instruction: multicast, `.cta_group`, the im2col, gather4 and scatter4 modes,
//! `.cp_mask`, and `cp.reduce.async.bulk`.

use super::*;

impl<'a> Prog<'a> {
    pub(super) fn bulk(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
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
        if tensor {
            m.take("tile");
        }
        m.done()?;
        let [dst_w, src_w] = spaces[..] else {
            return unsupported(i);
        };
        let to_global = dst_w == "global";
        // The completion each direction has: an mbarrier into shared memory, a bulk group out.
        if (to_global && (!group || mbar)) || (!to_global && (!mbar || group)) {
            return unsupported(i);
        }
        let space = |w: &str| match w {
            "global" => AS::Global,
            _ => AS::Shared,
        };
        let cache_policy = hint as usize;
        let tensor_ref = |p: &mut Self, o: &O, load: bool| -> R<TensorRef> {
            let O::Tuple(parts) = o else {
                return invalid(i.pos, "expected [tensorMap, {coordinates}]");
            };
            let [map, O::Vector(cs)] = parts.as_slice() else {
                return invalid(i.pos, "expected [tensorMap, {coordinates}]");
            };
            if cs.len() != dims {
                return invalid(
                    i.pos,
                    format!("'{}' needs {dims} coordinates", i.full_name()),
                );
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
            Ok(TensorRef { map, coords, load })
        };
        let op = if tensor && !to_global {
            // [dstMem], [tensorMap, coords], [mbar] {, cache-policy}
            if ops.len() != 3 + cache_policy {
                return unsupported(i);
            }
            let dst = self.addr(fc, i, &ops[0], Some(space(dst_w)))?;
            let t = tensor_ref(self, &ops[1], true)?;
            let mb = self.addr(fc, i, &ops[2], Some(AS::Shared))?;
            BulkOp {
                dst,
                src: dst,
                size: None,
                tensor: Some(t),
                mbar: Some(mb),
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
            }
        } else {
            // [dst], [src], size {, [mbar]} {, cache-policy}
            let n = 3 + !to_global as usize;
            if ops.len() != n + cache_policy
                || (src_w == "global") == (dst_w == "global")
                || (src_w == "shared::cluster")
            {
                return unsupported(i);
            }
            let dst = self.addr(fc, i, &ops[0], Some(space(dst_w)))?;
            let src = self.addr(fc, i, &ops[1], Some(space(src_w)))?;
            let size = self.src(fc, i, g, &ops[2], T::U(32))?;
            let mbar = match to_global {
                true => None,
                false => Some(self.addr(fc, i, &ops[3], Some(AS::Shared))?),
            };
            BulkOp {
                dst,
                src,
                size: Some(size),
                tensor: None,
                mbar,
            }
        };
        self.emit(i, g, Op::Bulk(Box::new(op)));
        Ok(())
    }
}
