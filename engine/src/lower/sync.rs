//! Lowering of CTA synchronization: `bar`/`barrier` (sync, arrive, red), `mbarrier` and the
//! non-bulk `cp.async` family (9.7.13.1, 9.7.13.15, 9.7.9.25).

use super::*;

impl<'a> Prog<'a> {
    fn need(&self, i: &Instruction, k: usize) -> R<()> {
        if i.operands.len() < k {
            invalid(i.pos, format!("'{}' needs {k} operands", i.full_name()))
        } else {
            Ok(())
        }
    }

    /// `bar{.cta}` / `barrier{.cta}`: `.sync`, `.arrive`, `.red.{popc,and,or}`, and
    /// `bar.warp.sync`.
    pub(super) fn bar(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        m.take("cta");
        // `bar` is `barrier.aligned`: every thread of a warp executes it together.
        let aligned = m.take("aligned") || i.opcode == "bar";
        let sync = m.take("sync");
        let arrive = m.take("arrive");
        let warp = m.take("warp");
        let red = m.take("red");
        let rop = if !red {
            None
        } else if m.take("popc") {
            Some(BarRed::Popc)
        } else if m.take("and") {
            Some(BarRed::And)
        } else if m.take("or") {
            Some(BarRed::Or)
        } else {
            return unsupported(i);
        };
        let t = if red { Some(m.ty()?) } else { None };
        m.done()?;
        let ops_ = &i.operands;
        if warp {
            // bar.warp.sync: warps execute in lockstep here; the membermask is checked.
            self.need(i, 1)?;
            let mask = self.src(fc, i, g, &ops_[0], T::B(32))?;
            self.emit(i, g, Op::WarpSync { mask });
            return Ok(());
        }
        if sync as u8 + arrive as u8 + red as u8 != 1 {
            return unsupported(i);
        }
        if let Some(op) = rop {
            // popc yields a .u32 count, and/or a predicate.
            if (op == BarRed::Popc) != (t == Some(T::U(32)))
                || (op != BarRed::Popc && t != Some(T::Pred))
            {
                return unsupported(i);
            }
            self.need(i, 3)?;
            let d = self.dreg(fc, i, &ops_[0])?;
            let id = self.src(fc, i, g, &ops_[1], T::U(32))?;
            let count = if ops_.len() > 3 {
                Some(self.src(fc, i, g, &ops_[2], T::U(32))?)
            } else {
                None
            };
            let p = self.src(fc, i, g, &ops_[ops_.len() - 1], T::Pred)?;
            self.emit(
                i,
                g,
                Op::Bar {
                    id,
                    count,
                    arrive: false,
                    red: Some((op, d, p)),
                    aligned,
                },
            );
            return Ok(());
        }
        self.need(i, 1)?;
        let id = self.src(fc, i, g, &ops_[0], T::U(32))?;
        let count = if ops_.len() > 1 {
            Some(self.src(fc, i, g, &ops_[1], T::U(32))?)
        } else {
            None
        };
        if arrive && count.is_none() {
            return invalid(i.pos, "bar.arrive needs a thread count");
        }
        self.emit(
            i,
            g,
            Op::Bar {
                id,
                count,
                arrive,
                red: None,
                aligned,
            },
        );
        Ok(())
    }

    /// The state space of an mbarrier operand: `.shared{::cta,::cluster}` or generic. A
    /// `.shared::cluster` address names its CTA itself (`ir::CLUSTER_RANK_SHIFT`), so both are
    /// shared addresses to the executor.
    /// A `wait_group N` of asynchronous operations that are done at issue (cp.async,
    /// cp.async.bulk, wgmma): nothing to wait for, once N is checked to be one non-negative
    /// integer constant.
    pub(super) fn wait_group_nop(
        &mut self,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        what: &str,
    ) -> R<()> {
        self.need(i, 1)?;
        if !matches!(i.operands[..], [O::Int(n)] if n >= 0) {
            return invalid(i.pos, format!("{what} needs an integer constant"));
        }
        self.emit(i, g, Op::Nop);
        Ok(())
    }

    fn mbar_space(m: &mut Mods) -> Option<AS> {
        if m.take("shared::cluster") {
            return Some(AS::Shared);
        }
        m.space()
    }

    /// `mbarrier.*` (9.7.13.15).
    pub(super) fn mbarrier(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let word = i.mods.first().map(|m| m.as_str()).unwrap_or("");
        m.take(word);
        // Memory semantics and scopes: a CTA runs on one host thread, so every mbarrier
        // operation is ordered with the CTA's other memory operations as release/acquire need.
        m.ignore(&["release", "acquire", "relaxed", "cta", "cluster"]);
        let space = Self::mbar_space(m);
        if space.is_some_and(|s| s != AS::Shared) {
            return unsupported(i);
        }
        let ops_ = &i.operands;
        if word == "pending_count" {
            m.take("b64");
            m.done()?;
            self.need(i, 2)?;
            let d = self.dreg(fc, i, &ops_[0])?;
            let a = self.src(fc, i, g, &ops_[1], T::B(64))?;
            self.emit(
                i,
                g,
                Op::Lane {
                    op: LaneOp::new(LaneFamily::MbarPendingCount, 0),
                    d,
                    a,
                    b: Src::Imm(0),
                    c: Src::Imm(0),
                },
            );
            return Ok(());
        }
        let cluster = i.mods.iter().any(|w| w == "shared::cluster");
        let op = match word {
            "init" => MbarOp::Init,
            "inval" => MbarOp::Inval,
            "arrive" | "arrive_drop" => MbarOp::Arrive {
                drop: word == "arrive_drop",
                tx: m.take("expect_tx"),
                no_complete: m.take("noComplete"),
                cluster,
            },
            "expect_tx" => MbarOp::ExpectTx,
            "complete_tx" => MbarOp::CompleteTx,
            "test_wait" | "try_wait" => MbarOp::Wait {
                parity: m.take("parity"),
                try_: word == "try_wait",
            },
            _ => return unsupported(i),
        };
        // `.shared::cluster` may appear after the other qualifiers too.
        let space = space.or_else(|| Self::mbar_space(m));
        m.ignore(&["release", "acquire", "relaxed", "cta", "cluster"]);
        if !m.take("b64") {
            return unsupported(i);
        }
        m.done()?;
        let (d, k) = match op {
            MbarOp::Arrive { .. } | MbarOp::Wait { .. } => {
                self.need(i, 2)?;
                (self.opt_dreg(fc, i, &ops_[0])?, 1)
            }
            _ => (None, 0),
        };
        self.need(i, k + 1)?;
        let (ms, addr) = self.addr(fc, i, &ops_[k], space)?;
        let arg = |p: &mut Self, n: usize, t: T, dflt: u64| -> R<Src> {
            match ops_.get(n) {
                Some(o) => p.src(fc, i, g, o, t),
                None => Ok(Src::Imm(dflt)),
            }
        };
        let (a, b) = match op {
            MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx => {
                self.need(i, 2)?;
                (arg(self, 1, T::U(32), 0)?, Src::Imm(0))
            }
            MbarOp::Inval => (Src::Imm(0), Src::Imm(0)),
            // With .expect_tx the operand is the tx count and the arrive-on count is 1.
            MbarOp::Arrive { tx: true, .. } => {
                self.need(i, 3)?;
                (Src::Imm(1), arg(self, 2, T::U(32), 0)?)
            }
            MbarOp::Arrive { no_complete, .. } => {
                if no_complete {
                    self.need(i, 3)?;
                }
                (arg(self, 2, T::U(32), 1)?, Src::Imm(0))
            }
            // The suspend-time hint (operand 3) only bounds how long a thread may sleep.
            MbarOp::Wait { parity, .. } => {
                self.need(i, 3)?;
                let t = if parity { T::U(32) } else { T::B(64) };
                (arg(self, 2, t, 0)?, Src::Imm(0))
            }
            MbarOp::CpAsyncArrive { .. } => unreachable!(),
        };
        self.emit(
            i,
            g,
            Op::Mbar {
                op,
                space: ms,
                addr,
                d,
                a,
                b,
            },
        );
        Ok(())
    }

    /// `cp.async.{ca,cg}.shared.global`, `cp.async.commit_group`, `cp.async.wait_group`,
    /// `cp.async.wait_all`, `cp.async.mbarrier.arrive`. Copies complete at issue, so the group
    /// operations have nothing left to wait for.
    pub(super) fn cp_async(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        m.take("async");
        let ops_ = &i.operands;
        if m.take("commit_group") || m.take("wait_all") {
            m.done()?;
            self.emit(i, g, Op::Nop);
            return Ok(());
        }
        if m.take("wait_group") {
            m.done()?;
            return self.wait_group_nop(i, g, "cp.async.wait_group");
        }
        if m.take("mbarrier") {
            if !m.take("arrive") {
                return unsupported(i);
            }
            let noinc = m.take("noinc");
            let space = Self::mbar_space(m);
            if space.is_some_and(|s| s != AS::Shared) || !m.take("b64") {
                return unsupported(i);
            }
            m.done()?;
            self.need(i, 1)?;
            let (ms, addr) = self.addr(fc, i, &ops_[0], space)?;
            self.emit(
                i,
                g,
                Op::Mbar {
                    op: MbarOp::CpAsyncArrive { noinc },
                    space: ms,
                    addr,
                    d: None,
                    a: Src::Imm(0),
                    b: Src::Imm(0),
                },
            );
            return Ok(());
        }
        let ca = m.take("ca");
        let cg = m.take("cg");
        let dst_ok = m.take("shared") || m.take("shared::cta");
        let src_ok = m.take("global");
        let hint = m.take("L2::cache_hint");
        m.ignore(&["L2::64B", "L2::128B", "L2::256B"]);
        m.done()?;
        if ca == cg || !dst_ok || !src_ok {
            return unsupported(i);
        }
        self.need(i, 3)?;
        let size = match ops_[2] {
            O::Int(n @ (4 | 8 | 16)) if ca || n == 16 => n as u8,
            _ => return invalid(i.pos, "cp.async size must be 4, 8 or 16 (16 with .cg)"),
        };
        let (dspace, dst) = self.addr(fc, i, &ops_[0], Some(AS::Shared))?;
        let (sspace, src) = self.addr(fc, i, &ops_[1], Some(AS::Global))?;
        // Optional src-size (u32) or ignore-src (predicate), then the cache policy with
        // .L2::cache_hint (a hint only).
        let extra = &ops_[3..ops_.len() - hint as usize];
        let (mut src_size, mut ignore) = (None, None);
        match extra {
            [] => {}
            [o] => {
                let is_pred = match o {
                    O::Not(_) => true,
                    O::Name { name, .. } => {
                        matches!(self.lookup(fc, name), Some(Sym::Reg(r)) if self.pred_regs.contains(&r))
                    }
                    _ => false,
                };
                if is_pred {
                    ignore = Some(self.src(fc, i, g, o, T::Pred)?);
                } else {
                    src_size = Some(self.src(fc, i, g, o, T::U(32))?);
                }
            }
            _ => return invalid(i.pos, format!("too many operands in '{}'", i.full_name())),
        }
        self.emit(
            i,
            g,
            Op::CpAsync {
                dst,
                dspace,
                src,
                sspace,
                size,
                src_size,
                ignore,
            },
        );
        Ok(())
    }
}
