//! Lowering of `slct` (9.7.6.4) and `brx.idx` (9.7.12.4).

use super::*;
use crate::sem::lane::{SLCT_F32, SLCT_FTZ};

impl<'a> Prog<'a> {
    /// `slct.dtype.s32 d, a, b, c` and `slct{.ftz}.dtype.f32 d, a, b, c`.
    pub(super) fn slct(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let ftz = m.ftz();
        let dt = m.ty()?;
        let ct = m.ty()?;
        m.done()?;
        if !matches!(
            dt,
            T::B(16 | 32 | 64) | T::U(16 | 32 | 64) | T::S(16 | 32 | 64) | T::F(32 | 64)
        ) || !matches!(ct, T::S(32) | T::F(32))
        {
            return invalid(
                i.pos,
                format!(
                    "'{}': slct takes .dtype = .b16/.b32/.b64/.u16/.u32/.u64/.s16/.s32/.s64/.f32/.f64 \
                     and .s32 or .f32 (ISA 9.7.6.4)",
                    i.full_name()
                ),
            );
        }
        if ftz && ct != T::F(32) {
            return invalid(i.pos, "slct: .ftz applies only to the .f32 comparison");
        }
        if i.operands.len() != 4 {
            return invalid(i.pos, format!("'{}' needs 4 operands", i.full_name()));
        }
        let d = self.dreg(fc, i, &i.operands[0])?;
        let a = self.src(fc, i, g, &i.operands[1], dt)?;
        let b = self.src(fc, i, g, &i.operands[2], dt)?;
        let c = self.src(fc, i, g, &i.operands[3], ct)?;
        let cfg = dt.bits() as u64
            | if ct == T::F(32) { SLCT_F32 } else { 0 }
            | if ftz { SLCT_FTZ } else { 0 };
        self.emit(
            i,
            g,
            Op::Lane {
                op: LaneOp::new(LaneFamily::Slct, cfg),
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }

    /// `brx.idx{.uni} index, tlist`: `tlist` names a `.branchtargets` directive of the function
    /// (the parser keeps them in `Function::branch_targets`); its labels are resolved with the
    /// function's other labels at its end. `.uni` only promises no divergence: the divergent
    /// path is correct for it too.
    pub(super) fn brx(
        &mut self,
        fc: &mut FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        if !m.take("idx") {
            return unsupported(i);
        }
        m.take("uni");
        m.done()?;
        if i.operands.len() != 2 {
            return invalid(i.pos, "brx.idx needs an index and a target list");
        }
        let O::Name { name, comp: None } = &i.operands[1] else {
            return invalid(
                i.pos,
                "brx.idx: the target list must be a .branchtargets label",
            );
        };
        let f = &self.mc.m.functions[fc.fidx];
        let Some((_, list)) = f.branch_targets.iter().find(|(l, _)| l == name) else {
            return invalid(
                i.pos,
                format!("brx.idx: '{name}' is not a .branchtargets list of this function"),
            );
        };
        if list.is_empty() {
            return invalid(i.pos, format!("brx.idx: '{name}' lists no target"));
        }
        let list = list.clone();
        let idx = self.src(fc, i, g, &i.operands[0], T::U(32))?;
        let pc = self.emit(
            i,
            g,
            Op::Brx {
                idx,
                targets: Vec::new(),
                rpc: 0,
            },
        );
        fc.brx_fixups.push((pc, list, i.pos, fc.label_scope));
        Ok(())
    }
}

impl<'a> Prog<'a> {
    /// Cache, scheduling and cluster-addressing instructions: applypriority, discard,
    /// createpolicy, griddepcontrol, setmaxnreg (nothing or a constant on a CPU), mapa and
    /// getctarank (arithmetic on `.shared::cluster` addresses). The ISA table ([`crate::isa::decode`]) checks their modifiers and operand
    /// counts after lowering, so modifiers are taken here without judging them.
    pub(super) fn cluster_misc(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let ops_ = &i.operands;
        let need = |k: usize| -> R<()> {
            if ops_.len() < k {
                invalid(i.pos, format!("'{}' needs {k} operands", i.full_name()))
            } else {
                Ok(())
            }
        };
        let all: Vec<&str> = i.mods.iter().map(|s| s.as_str()).collect();
        match i.opcode.as_str() {
            // Eviction priorities of L2 lines: there is no cache to prioritise.
            // `discard`: the lines' data becomes undefined; leaving memory unchanged is one of
            // the values an undefined read may return, so doing nothing is a valid execution.
            // `griddepcontrol.launch_dependents` only allows a dependent grid to start early and
            // `griddepcontrol.wait` waits for the prerequisite grids to complete and flush:
            // launches in one stream run to completion in order here, so by the time this grid
            // runs its prerequisites are complete and there is nothing to wait for.
            // `setmaxnreg`: a register-allocation hint to the hardware; registers are not a
            // finite resource of the interpreter, so there is nothing to release or acquire.
            "applypriority" | "discard" | "griddepcontrol" | "setmaxnreg" => {
                m.ignore(&all);
                for o in ops_ {
                    // Operands are still resolved (undefined names are errors).
                    if let O::Addr { .. } = o {
                        self.addr(fc, i, o, None)?;
                    }
                }
                self.emit(i, g, Op::Nop);
            }
            // An opaque cache policy: ld/st/atom `.L2::cache_hint` accept and ignore it. The
            // value is a fixed tag (plus the converted access property for `.cvt`), so the
            // same instruction always yields the same policy.
            "createpolicy" => {
                m.ignore(&all);
                need(2)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = if all.first() == Some(&"cvt") {
                    self.src(fc, i, g, &ops_[1], T::B(64))?
                } else {
                    // Fraction, range sizes and address only tune the hardware cache.
                    for o in &ops_[1..] {
                        match o {
                            O::Addr { .. } => {
                                self.addr(fc, i, o, None)?;
                            }
                            O::Name { .. } => {
                                self.src(fc, i, g, o, T::B(64))?;
                            }
                            _ => {}
                        }
                    }
                    Src::Imm(0x1c_0000_0000_0000)
                };
                self.emit(
                    i,
                    g,
                    Op::Un {
                        op: un(UnOp::Mov { bits: 64 }),
                        fl: FloatMods::NONE,
                        d,
                        a,
                    },
                );
            }
            "mapa" => {
                let generic = !m.take("shared::cluster");
                let t = m.ty()?;
                m.done()?;
                let bits = match t {
                    T::U(b @ (32 | 64)) => b,
                    _ => return unsupported(i),
                };
                need(3)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = match &ops_[1] {
                    // `mapa.shared::cluster d, sh(+imm), b`: the variable's shared address.
                    O::Name { .. } | O::SymOff { .. } => self.src(fc, i, g, &ops_[1], t)?,
                    o => return invalid(i.pos, format!("mapa: unexpected operand {o:?}")),
                };
                let b = self.src(fc, i, g, &ops_[2], T::U(32))?;
                let cfg = if generic { 64 } else { bits as u64 };
                self.emit(
                    i,
                    g,
                    Op::Lane {
                        op: LaneOp::new(LaneFamily::Mapa, cfg),
                        d,
                        a,
                        b,
                        c: Src::Imm(0),
                    },
                );
            }
            // The rank is in the address, except for the executing CTA's own addresses
            // (field 0), whose rank is `%cluster_ctarank`, read into a register first.
            "getctarank" => {
                let generic = !m.take("shared::cluster");
                let t = m.ty()?;
                m.done()?;
                if !matches!(t, T::U(32 | 64)) {
                    return unsupported(i);
                }
                need(2)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let own = self.new_reg();
                self.emit(
                    i,
                    g,
                    Op::Sreg {
                        d: own,
                        s: SReg::ClusterCtarank,
                    },
                );
                self.emit(
                    i,
                    g,
                    Op::Lane {
                        op: LaneOp::new(LaneFamily::GetCtarank, if generic { 64 } else { 32 }),
                        d,
                        a,
                        b: Src::Imm(0),
                        c: Src::Reg(own),
                    },
                );
            }
            _ => return unsupported(i),
        }
        Ok(())
    }

    /// `barrier.cluster.arrive{.release|.relaxed}{.aligned}` and
    /// `barrier.cluster.wait{.acquire}{.aligned}` (9.7.13.3): a split barrier over every
    /// non-exited thread of the cluster, run by `exec::cluster::ClusterBar`. The memory
    /// qualifiers need nothing: a cluster's CTAs run on one host thread, so every access before
    /// an arrive is visible after the matching wait.
    pub(super) fn cluster_barrier(
        &mut self,
        _fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        m.take("cluster");
        m.take("aligned");
        let arrive = m.take("arrive");
        let wait = m.take("wait");
        m.take("release");
        m.take("relaxed");
        m.take("acquire");
        m.done()?;
        if arrive == wait || !i.operands.is_empty() {
            return unsupported(i);
        }
        self.emit(i, g, Op::ClusterBar { wait });
        Ok(())
    }
}
