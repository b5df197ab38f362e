//! `.b128` data (PTX 8.3, ISA 9.7.9.4, 9.7.9.8 to 9.7.9.11, 9.7.13.5): a `.b128` register is
//! held as two consecutive 64-bit registers, the low half (bits 0..63) in the register the name
//! resolves to and the high half in the next. `mov` packs, unpacks and copies; `ld`, `ldu` and
//! `st` move 16 bytes as one naturally aligned access (the low half at the lower address, as
//! the little-endian 128-bit value is laid out); `atom.cas/.exch.b128` update 16 bytes at once.

use super::*;

impl<'a> Prog<'a> {
    pub(super) fn b128(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let ops_ = &i.operands;
        let need = |k: usize| -> R<()> {
            if ops_.len() != k {
                return invalid(i.pos, format!("'{}' needs {k} operands", i.full_name()));
            }
            Ok(())
        };
        match i.opcode.as_str() {
            "mov" => {
                m.take("b128");
                m.done()?;
                need(2)?;
                match (&ops_[0], &ops_[1]) {
                    (O::Vector(ds), a) => {
                        let q = self.pair(fc, i, a)?;
                        self.unpack(fc, i, g, ds, q)
                    }
                    (d, O::Vector(parts)) => {
                        let q = self.pair(fc, i, d)?;
                        self.pack(fc, i, g, q, parts)
                    }
                    (d, a) => {
                        let (d, a) = (self.pair(fc, i, d)?, self.pair(fc, i, a)?);
                        for k in 0..2 {
                            let op = Op::Un {
                                op: un(UnOp::Mov { bits: 64 }),
                                fl: FloatMods::NONE,
                                d: d + k,
                                a: Src::Reg(a + k),
                            };
                            self.emit(i, g, op);
                        }
                        Ok(())
                    }
                }
            }
            "ld" | "ldu" | "st" => {
                let space = m.space();
                m.ignore_kinds(MEMORY_QUALIFIERS);
                m.take("b128");
                m.done()?;
                need(2)?;
                let (is_ld, ms, addr, vo) = self.ld_st_operands(fc, i, space)?;
                let q = self.pair(fc, i, vo)?;
                let op = if is_ld {
                    Op::Ld {
                        space: ms,
                        size: 8,
                        sext: false,
                        n: 2,
                        d: [Some(q), Some(q + 1), None, None, None, None, None, None],
                        addr,
                    }
                } else {
                    let z = Src::Imm(0);
                    Op::St {
                        space: ms,
                        size: 8,
                        n: 2,
                        sink: 0,
                        s: [Src::Reg(q), Src::Reg(q + 1), z, z, z, z, z, z],
                        addr,
                    }
                };
                self.emit(i, g, op);
                Ok(())
            }
            _ => {
                // atom{.sem}{.scope}{.space}.cas.b128 d, [a], b, c and .exch.b128 d, [a], b.
                let space = m.space();
                m.ignore_kinds(MEMORY_QUALIFIERS);
                let cas = m.take("cas");
                let exch = m.take("exch");
                m.take("b128");
                m.done()?;
                if cas == exch {
                    return unsupported(i);
                }
                if !matches!(space, None | Some(AS::Global) | Some(AS::Shared)) {
                    return invalid(
                        i.pos,
                        "'atom.b128' takes global, shared or generic addresses",
                    );
                }
                let n = if cas { 4 } else { 3 };
                // An L2 cache-policy operand may follow exch's value.
                if ops_.len() != n && !(exch && ops_.len() == n + 1) {
                    return invalid(i.pos, format!("'{}' needs {n} operands", i.full_name()));
                }
                let d = match &ops_[0] {
                    O::Name { name, .. } if name == "_" => None,
                    o => Some(self.pair(fc, i, o)?),
                };
                let (ms, addr) = self.addr(fc, i, &ops_[1], space)?;
                let b = self.pair(fc, i, &ops_[2])?;
                let c = if cas { self.pair(fc, i, &ops_[3])? } else { b };
                let op = Op::Atom128 {
                    space: ms,
                    cas,
                    d,
                    addr,
                    b,
                    c,
                };
                self.emit(i, g, op);
                Ok(())
            }
        }
    }

    /// The low register of the `.b128` register operand `o`.
    pub(super) fn pair(&self, fc: &FnCtx, i: &Instruction, o: &O) -> R<Reg> {
        if let O::Name { name, comp: None } = o {
            if let Some(Sym::Reg(r)) = self.lookup(fc, name) {
                if self.b128_regs.contains(&r) {
                    return Ok(r);
                }
            }
        }
        invalid(
            i.pos,
            format!("'{}' needs a .b128 register operand", i.full_name()),
        )
    }

    /// `mov.b128 {d0, d1}, q` (two 64-bit parts) or `{d0, d1, d2, d3}` (four 32-bit parts),
    /// lowest first; `_` skips a part.
    pub(super) fn unpack(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        ds: &[O],
        q: Reg,
    ) -> R<()> {
        let regs = ds
            .iter()
            .map(|d| self.opt_dreg(fc, i, d))
            .collect::<R<Vec<_>>>()?;
        match regs.len() {
            2 => {
                for (k, d) in regs.into_iter().enumerate() {
                    if let Some(d) = d {
                        let op = Op::Un {
                            op: un(UnOp::Mov { bits: 64 }),
                            fl: FloatMods::NONE,
                            d,
                            a: Src::Reg(q + k as u32),
                        };
                        self.emit(i, g, op);
                    }
                }
            }
            4 => {
                for (k, half) in regs.chunks(2).enumerate() {
                    let op = Op::Unpack {
                        ds: half.to_vec(),
                        a: Src::Reg(q + k as u32),
                        bits: 32,
                    };
                    self.emit(i, g, op);
                }
            }
            _ => return invalid(i.pos, "'mov.b128' unpacks into 2 or 4 registers"),
        }
        Ok(())
    }

    /// `mov.b128 q, {a, b}` (64-bit parts) or `{a, b, c, d}` (32-bit parts), lowest first.
    fn pack(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        q: Reg,
        parts: &[O],
    ) -> R<()> {
        match parts.len() {
            2 => {
                for (k, p) in parts.iter().enumerate() {
                    let a = self.src(fc, i, g, p, T::B(64))?;
                    let op = Op::Un {
                        op: un(UnOp::Mov { bits: 64 }),
                        fl: FloatMods::NONE,
                        d: q + k as u32,
                        a,
                    };
                    self.emit(i, g, op);
                }
            }
            4 => {
                for (k, half) in parts.chunks(2).enumerate() {
                    let ss = half
                        .iter()
                        .map(|p| self.src(fc, i, g, p, T::B(32)))
                        .collect::<R<Vec<_>>>()?;
                    let op = Op::Pack {
                        d: q + k as u32,
                        parts: ss,
                        bits: 32,
                    };
                    self.emit(i, g, op);
                }
            }
            _ => return invalid(i.pos, "'mov.b128' packs 2 or 4 registers"),
        }
        Ok(())
    }
}
