//! Lowering of cluster launch control (ISA 9.7.13.17-18): `clusterlaunchcontrol.try_cancel`
//! becomes [`Op::ClcTryCancel`]; `clusterlaunchcontrol.query_cancel` decodes the response
//! in a `.b128` register with plain ops, by the layout [`crate::sem::clc`] gives it.

use super::*;
use crate::sem::clc::CANCELED_HIGH;

impl<'a> Prog<'a> {
    pub(super) fn clc(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let ops = &i.operands;
        let word = i.mods.first().map(|w| w.as_str()).unwrap_or("");
        match word {
            "try_cancel" => {
                m.take(word);
                let space = m.space();
                if !m.take("async")
                    || !m.take("mbarrier::complete_tx::bytes")
                    || space.is_some_and(|s| s != AS::Shared)
                {
                    return unsupported(i);
                }
                let multicast = m.take("multicast::cluster::all");
                if !m.take("b128") {
                    return unsupported(i);
                }
                m.done()?;
                self.need_ops(i, 2)?;
                // Without `.shared::cta` both addresses are generic (9.7.13.17).
                let (ms, addr) = self.addr(fc, i, &ops[0], space)?;
                let (_, mbar) = self.addr(fc, i, &ops[1], space)?;
                let op = Op::ClcTryCancel {
                    space: ms,
                    addr,
                    mbar,
                    multicast,
                };
                self.emit(i, g, op);
                Ok(())
            }
            "query_cancel" => {
                m.take(word);
                self.need_ops(i, 2)?;
                let q = self.pair(fc, i, &ops[1])?;
                let one = |d: Reg, half: u32, upper: bool| Op::Unpack {
                    ds: if upper {
                        vec![None, Some(d)]
                    } else {
                        vec![Some(d), None]
                    },
                    a: Src::Reg(q + half),
                    bits: 32,
                };
                if m.take("is_canceled") {
                    if !m.take("pred") || !m.take("b128") {
                        return unsupported(i);
                    }
                    m.done()?;
                    let d = self.dreg(fc, i, &ops[0])?;
                    let op = Op::Setp {
                        op: cmp_int(Cmp::Ge, T::U(64).int().unwrap()).unwrap(),
                        fl: FloatMods::NONE,
                        a: Src::Reg(q + 1),
                        b: Src::Imm(CANCELED_HIGH),
                        d: Some(d),
                        dn: None,
                        comb: None,
                    };
                    self.emit(i, g, op);
                    return Ok(());
                }
                // `get_first_ctaid.v4` unpacks the four words; `::x`, `::y`, `::z` one each.
                let dim = ["x", "y", "z"]
                    .iter()
                    .position(|d| m.take(&format!("get_first_ctaid::{d}")));
                if dim.is_none() && (!m.take("get_first_ctaid") || !m.take("v4")) {
                    return unsupported(i);
                }
                if !m.take("b32") || !m.take("b128") {
                    return unsupported(i);
                }
                m.done()?;
                match (dim, &ops[0]) {
                    (None, O::Vector(ds)) if ds.len() == 4 => self.unpack(fc, i, g, ds, q),
                    (Some(k), d) => {
                        let d = self.dreg(fc, i, d)?;
                        self.emit(i, g, one(d, k as u32 / 2, k % 2 == 1));
                        Ok(())
                    }
                    _ => invalid(
                        i.pos,
                        format!("'{}' needs four destinations", i.full_name()),
                    ),
                }
            }
            _ => unsupported(i),
        }
    }
}
