//! Operands: registers, immediate and register sources, guards, symbol addresses and the
//! address operands of memory instructions, special registers.

use super::*;

impl<'a> Prog<'a> {
    pub(super) fn new_reg(&mut self) -> Reg {
        self.nregs += 1;
        self.reg_bytes.push(4);
        self.reg_words.push(1);
        if self.owner != usize::MAX {
            self.fn_regs
                .entry(self.owner)
                .or_default()
                .push(self.nregs - 1);
        }
        self.nregs - 1
    }
    /// A hidden register of the program (carry flag, stack pointer): owned by no function, so
    /// never saved or restored by calls.
    pub(super) fn hidden_reg(&mut self) -> Reg {
        self.nregs += 1;
        self.reg_bytes.push(0);
        self.reg_words.push(0);
        self.nregs - 1
    }
    pub(super) fn emit(&mut self, i: &Instruction, guard: Option<(Reg, bool)>, op: Op) -> usize {
        let name = self.name_of(i);
        if crate::fidelity::counting() {
            self.tally(i, guard, &name);
        }
        self.insts.push(Inst { op, guard });
        self.info.push(InstInfo {
            line: i.pos.line,
            name,
        });
        self.insts.len() - 1
    }
    /// Before the first op of an instruction whose bits may differ from a GPU's, a tally of its
    /// executions (the run summary's fidelity line: [`crate::fidelity`]).
    fn tally(&mut self, i: &Instruction, guard: Option<(Reg, bool)>, name: &Name) {
        let at = i as *const Instruction as usize;
        if self.last_tallied == at {
            return;
        }
        self.last_tallied = at;
        if let Some(kind) = crate::fidelity::judge(i) {
            let slot = crate::fidelity::slot(name, kind);
            self.insts.push(Inst {
                op: Op::Tally { slot },
                guard,
            });
            self.info.push(InstInfo {
                line: i.pos.line,
                name: name.clone(),
            });
        }
    }
    /// `i.full_name()`, built once per instruction (which often emits several): the
    /// instructions named are those of the syntax tree, which outlives the lowering.
    pub(super) fn name_of(&mut self, i: &Instruction) -> Name {
        let at = i as *const Instruction as usize;
        match &self.last_name {
            Some((a, n)) if *a == at => n.clone(),
            _ => {
                let n = i.full_name();
                self.last_name = Some((at, n.clone()));
                n
            }
        }
    }
    /// The guard of `i`: a predicate register, or the predicate special register
    /// `%is_explicit_cluster` (ISA 10.11), which ptxas 13.5 accepts as a guard
    /// (`@%is_explicit_cluster bra L`) and which is read into a register first.
    pub(super) fn guard(&mut self, fc: &FnCtx, i: &Instruction) -> R<Option<(Reg, bool)>> {
        match &i.guard {
            None => Ok(None),
            Some((g, neg)) => match self.lookup(fc, g) {
                Some(Sym::Reg(r)) => Ok(Some((r, *neg))),
                None if g.as_str() == "%is_explicit_cluster" => {
                    let d = self.new_reg();
                    let s = SReg::IsExplicitCluster;
                    self.emit(i, None, Op::Sreg { d, s });
                    Ok(Some((d, *neg)))
                }
                _ => invalid(i.pos, format!("guard '{g}' is not a predicate register")),
            },
        }
    }
    /// A destination register (`_` gives a scratch register).
    pub(super) fn dreg(&mut self, fc: &FnCtx, i: &Instruction, o: &O) -> R<Reg> {
        match o {
            O::Name { name, comp } => {
                if name == "_" {
                    return Ok(self.new_reg());
                }
                let full = comp.as_ref().map(|c| format!("{name}.{c}"));
                match full
                    .as_deref()
                    .and_then(|n| self.lookup(fc, n))
                    .or_else(|| self.lookup(fc, name))
                {
                    Some(Sym::Reg(r)) => Ok(r),
                    _ => invalid(i.pos, format!("'{name}' is not a register")),
                }
            }
            _ => invalid(
                i.pos,
                format!("expected a destination register in '{}'", i.full_name()),
            ),
        }
    }
    /// A source operand of type `t`. Special registers and symbol addresses become registers or
    /// immediates here.
    pub(super) fn src(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        o: &O,
        t: T,
    ) -> R<Src> {
        match o {
            O::Int(v) => Ok(Src::Imm(match t {
                T::F(32) => (*v as f32).to_bits() as u64,
                T::F(64) => (*v as f64).to_bits(),
                _ => *v as u64,
            })),
            O::Float { bits, single } => match t {
                T::F(32) => Ok(Src::Imm((f64::from_bits(*bits) as f32).to_bits() as u64)),
                T::F(64) => Ok(Src::Imm(*bits)),
                // A 0f literal used as raw bits of a 32-bit operand.
                T::B(32) | T::U(32) | T::S(32) if *single => {
                    Ok(Src::Imm((f64::from_bits(*bits) as f32).to_bits() as u64))
                }
                T::B(64) if !*single => Ok(Src::Imm(*bits)),
                _ => invalid(i.pos, "float literal used with a non-float type"),
            },
            O::Name { name, comp } => {
                if let Some(s) = sreg(name, comp.as_deref()) {
                    let d = self.new_reg();
                    self.emit(i, g, Op::Sreg { d, s });
                    return Ok(Src::Reg(d));
                }
                let full = comp.as_ref().map(|c| format!("{name}.{c}"));
                let sym = full
                    .as_deref()
                    .and_then(|n| self.lookup(fc, n))
                    .or_else(|| self.lookup(fc, name));
                match sym {
                    Some(Sym::Reg(r)) => Ok(Src::Reg(r)),
                    Some(s) => self.sym_addr(fc, i, g, s, 0),
                    None => invalid(i.pos, format!("undefined symbol '{name}'")),
                }
            }
            O::SymOff { name, offset } => match self.lookup(fc, name) {
                Some(Sym::Reg(r)) => self.reg_plus_imm(i, g, r, *offset, t),
                Some(s) => self.sym_addr(fc, i, g, s, *offset),
                None => invalid(i.pos, format!("undefined symbol '{name}'")),
            },
            O::Not(inner) => {
                let s = self.src(fc, i, g, inner, T::Pred)?;
                let d = self.new_reg();
                self.emit(
                    i,
                    g,
                    Op::Un {
                        op: un(UnOp::NotPred),
                        fl: FloatMods::NONE,
                        d,
                        a: s,
                    },
                );
                Ok(Src::Reg(d))
            }
            O::Index { name, index } => {
                // `mov r, A[i]`: the address of element i (scaled by the element size: ptxas
                // assembles `A[3]` of a `.u32` array as `A+12`).
                let (s, es) = self.indexed(fc, i, name)?;
                match &**index {
                    O::Int(k) => self.sym_addr(fc, i, g, s, k.wrapping_mul(es as i64)),
                    idx => {
                        let base = self.sym_addr(fc, i, g, s, 0)?;
                        let r = self.scaled_index(fc, i, g, idx, es)?;
                        let d = self.new_reg();
                        let f = bin_int(IBin::Add, T::U(64).int().unwrap()).unwrap();
                        self.emit(
                            i,
                            g,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d,
                                a: base,
                                b: Src::Reg(r),
                            },
                        );
                        Ok(Src::Reg(d))
                    }
                }
            }
            // Bracketed tuples (texture, surface, tensor operands) and negated sources (vmad)
            // belong to instructions lowering does not run: the ISA table decides.
            O::Tuple(_) | O::Neg(_) => unsupported(i),
            _ => invalid(i.pos, format!("unexpected operand in '{}'", i.full_name())),
        }
    }
    /// A source operand `reg + imm` (`st.u64 [a], r + 1;`): ptxas assembles it for integer and
    /// bit-size operands as the sum in the operand's type, `add.tN tmp, reg, imm` (the same
    /// machine code, checked against ptxas 13.5 for u16, u32 and u64 sources and for cvt and
    /// setp operands). For floating-point and predicate operands ptxas accepts the syntax but
    /// the code it emits has no defined meaning (it drops the store), so those are refused.
    pub(super) fn reg_plus_imm(
        &mut self,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        r: Reg,
        off: i64,
        t: T,
    ) -> R<Src> {
        let it = match t {
            // An 8-bit operand is used through its low byte: the 16-bit sum has the same one.
            T::B(8) | T::U(8) | T::S(8) => T::U(16).int(),
            T::B(b) | T::U(b) | T::S(b) if b <= 64 => T::U(b).int(),
            _ => None,
        };
        let Some(f) = it.and_then(|it| bin_int(IBin::Add, it)) else {
            return invalid(
                i.pos,
                format!(
                    "'{}': a register plus an immediate is only defined for integer operands",
                    i.full_name()
                ),
            );
        };
        let d = self.new_reg();
        let b = Src::Imm(off as u64);
        self.emit(
            i,
            g,
            Op::Bin {
                op: f,
                fl: FloatMods::NONE,
                d,
                a: Src::Reg(r),
                b,
            },
        );
        Ok(Src::Reg(d))
    }
    /// The symbol and element bytes of an array operand `name[...]`.
    pub(super) fn indexed(&self, fc: &FnCtx, i: &Instruction, name: &str) -> R<(Sym, u64)> {
        match self.lookup(fc, name) {
            Some(Sym::Reg(_)) => invalid(i.pos, format!("'{name}' is a register, not an array")),
            Some(s) => Ok((s, self.elem.get(name).copied().unwrap_or(1))),
            None => invalid(i.pos, format!("undefined symbol '{name}'")),
        }
    }
    /// `index * elem_bytes` in a fresh 64-bit register, for `A[r]` and `A[r+k]` (ISA 6.4.2: a
    /// register, or a register plus or minus a constant).
    pub(super) fn scaled_index(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        idx: &O,
        es: u64,
    ) -> R<Reg> {
        let (reg_op, k) = match idx {
            O::SymOff { name, offset } => (
                O::Name {
                    name: name.clone(),
                    comp: None,
                },
                *offset,
            ),
            o => (o.clone(), 0),
        };
        let r = self.src(fc, i, g, &reg_op, T::U(64))?;
        let u64t = T::U(64).int().unwrap();
        let d = self.new_reg();
        let f = bin_int(IBin::Add, u64t).unwrap();
        self.emit(
            i,
            g,
            Op::Bin {
                op: f,
                fl: FloatMods::NONE,
                d,
                a: r,
                b: Src::Imm(k as u64),
            },
        );
        let f = bin_int(IBin::MulLo, u64t).unwrap();
        self.emit(
            i,
            g,
            Op::Bin {
                op: f,
                fl: FloatMods::NONE,
                d,
                a: Src::Reg(d),
                b: Src::Imm(es),
            },
        );
        Ok(d)
    }
    /// The address of a symbol in its own state space (what `mov r, sym` yields).
    pub(super) fn sym_addr(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        s: Sym,
        off: i64,
    ) -> R<Src> {
        if let Sym::Frame(o) = s {
            // The activation's frame base plus the variable's offset in the frame.
            let base = fc
                .frame
                .as_ref()
                .expect("frame symbols are declared in a frame")
                .base;
            let d = self.new_reg();
            let f = bin_int(IBin::Add, T::U(64).int().unwrap()).unwrap();
            let b = Src::Imm((o as i64).wrapping_add(off) as u64);
            self.emit(
                i,
                g,
                Op::Bin {
                    op: f,
                    fl: FloatMods::NONE,
                    d,
                    a: Src::Reg(base),
                    b,
                },
            );
            return Ok(Src::Reg(d));
        }
        Ok(Src::Imm(match s {
            Sym::Global(a) => a.wrapping_add(off as u64),
            Sym::Shared(o) | Sym::Local(o) | Sym::KParam(o) => (o as i64 + off) as u64,
            Sym::Frame(_) => unreachable!("handled above"),
            Sym::Func(f) => func_addr(f).wrapping_add(off as u64),
            Sym::Reg(_) => return invalid(i.pos, "register used as an address"),
        }))
    }
    /// `[base+off]` in state space `space` (None = generic).
    pub(super) fn addr(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        o: &O,
        space: Option<AS>,
    ) -> R<(MSpace, Addr)> {
        let (base, off) = match o {
            O::Addr { base, offset } => (base.clone(), *offset),
            // `ld.global.u32 s, a[2]` (ISA 6.4.2): element 2 of array `a`.
            O::Index { name, index } => {
                let (_, es) = self.indexed(fc, i, name)?;
                match &**index {
                    O::Int(k) => (Some(Name::new(name)), k.wrapping_mul(es as i64)),
                    idx => {
                        let r = self.scaled_index(fc, i, None, idx, es)?;
                        let (ms, a) = self.addr(
                            fc,
                            i,
                            &O::Addr {
                                base: Some(Name::new(name)),
                                offset: 0,
                            },
                            space,
                        )?;
                        // The symbol's address plus the scaled index, in a register.
                        let d = self.new_reg();
                        let f = bin_int(IBin::Add, T::U(64).int().unwrap()).unwrap();
                        let base = match a.base {
                            Some(b) => Src::Reg(b),
                            None => Src::Imm(0),
                        };
                        self.emit(
                            i,
                            None,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d,
                                a: base,
                                b: Src::Reg(r),
                            },
                        );
                        return Ok((
                            ms,
                            Addr {
                                base: Some(d),
                                off: a.off,
                            },
                        ));
                    }
                }
            }
            _ => return invalid(i.pos, format!("expected an address in '{}'", i.full_name())),
        };
        let reg_space = |fc: &FnCtx| match space {
            None => MSpace::Generic,
            Some(AS::Global) | Some(AS::Const) => MSpace::Global,
            Some(AS::Shared) => MSpace::Shared,
            Some(AS::Local) => MSpace::Local,
            Some(AS::Param) if fc.is_kernel => MSpace::KParam,
            Some(_) => MSpace::Local,
        };
        let Some(name) = base else {
            return Ok((reg_space(fc), Addr { base: None, off }));
        };
        match self.lookup(fc, &name) {
            Some(Sym::Reg(r)) => Ok((reg_space(fc), Addr { base: Some(r), off })),
            Some(Sym::Global(a)) => Ok((
                MSpace::Global,
                Addr {
                    base: None,
                    off: a as i64 + off,
                },
            )),
            // A shared or local symbol: its offset in that space, or in the space's generic
            // window when the instruction names no space.
            Some(Sym::Shared(o)) => Ok(windowed(
                space.is_none(),
                MSpace::Shared,
                SHARED_WINDOW,
                o,
                off,
            )),
            Some(Sym::Local(o)) => Ok(windowed(
                space.is_none(),
                MSpace::Local,
                LOCAL_WINDOW,
                o,
                off,
            )),
            // Relative to the activation's frame base (a `.local` offset), in the generic
            // window when the instruction names no space.
            Some(Sym::Frame(o)) => {
                let base = fc
                    .frame
                    .as_ref()
                    .expect("frame symbols are declared in a frame")
                    .base;
                let (kind, start) = match space {
                    None => (MSpace::Generic, LOCAL_WINDOW.wrapping_add(o as u64)),
                    Some(_) => (MSpace::Local, o as u64),
                };
                Ok((
                    kind,
                    Addr {
                        base: Some(base),
                        off: (start as i64).wrapping_add(off),
                    },
                ))
            }
            Some(Sym::KParam(o)) => Ok((
                MSpace::KParam,
                Addr {
                    base: None,
                    off: o as i64 + off,
                },
            )),
            _ => invalid(i.pos, format!("undefined symbol '{name}'")),
        }
    }
    /// The `vn` elements of a vector operand: a brace list, or a vector register or vector
    /// special register named whole (`.reg .v4 .b32 Q; ld.v4.b32 Q, [p]`,
    /// `mov.v4.u32 %rx, %clusterid`), which stands for its components `.x .y .z .w`.
    pub(super) fn vector_parts(&self, fc: &FnCtx, i: &Instruction, o: &O, vn: u8) -> R<Vec<O>> {
        match o {
            O::Vector(v) if v.len() == vn as usize => Ok(v.clone()),
            O::Vector(_) => invalid(i.pos, "vector operand length mismatch"),
            // Vector special registers are all `.v4`; a vector register has exactly the
            // components it was declared with (ptxas: "Argument vector size mismatch").
            O::Name { name, comp: None }
                if (sreg(name, Some("x")).is_some() && vn == 4)
                    || (self.lookup(fc, &format!("{name}.x")).is_some()
                        && self.vector_len(fc, name) == vn) =>
            {
                Ok(["x", "y", "z", "w"]
                    .iter()
                    .take(vn as usize)
                    .map(|c| O::Name {
                        name: name.clone(),
                        comp: Some(Name::new(c)),
                    })
                    .collect())
            }
            _ => invalid(i.pos, "expected a vector operand"),
        }
    }
    /// The operands of ld/ldu/st (two, checked by the caller): whether it loads, the address
    /// in its space, and the value operand (first of ld/ldu, second of st).
    pub(super) fn ld_st_operands<'o>(
        &mut self,
        fc: &FnCtx,
        i: &'o Instruction,
        space: Option<AS>,
    ) -> R<(bool, MSpace, Addr, &'o O)> {
        let ops_ = &i.operands;
        let is_ld = i.opcode != "st";
        let (ao, vo) = if is_ld {
            (&ops_[1], &ops_[0])
        } else {
            (&ops_[0], &ops_[1])
        };
        let (ms, addr) = self.addr(fc, i, ao, space)?;
        if ms == MSpace::KParam && !is_ld {
            return invalid(i.pos, "store to a kernel parameter");
        }
        Ok((is_ld, ms, addr, vo))
    }
    /// The number of components of the vector register `name` (declared `.v2` or `.v4`).
    pub(super) fn vector_len(&self, fc: &FnCtx, name: &str) -> u8 {
        ["x", "y", "z", "w"]
            .iter()
            .take_while(|c| self.lookup(fc, &format!("{name}.{c}")).is_some())
            .count() as u8
    }
    /// A texture or surface handle named `name`: a `.u64` register holding one, or a
    /// module-scope variable of the opaque type `ty` (`texref`, `surfref`), whose eight bytes
    /// the driver fills with the handle of what it binds there, loaded when the instruction
    /// runs; `None` for any other name.
    pub(super) fn opaque_handle(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        name: &str,
        ty: &str,
    ) -> R<Option<Src>> {
        let o = O::Name {
            name: name.to_string(),
            comp: None,
        };
        match self.lookup(fc, name) {
            Some(Sym::Reg(_)) => Ok(Some(self.src(fc, i, g, &o, T::B(64))?)),
            Some(Sym::Global(a))
                if self
                    .mc
                    .m
                    .globals
                    .iter()
                    .any(|v| v.name == name && v.ty.as_str() == ty) =>
            {
                let d = self.new_reg();
                let mut ds = [None; 8];
                ds[0] = Some(d);
                let addr = Addr {
                    base: None,
                    off: a as i64,
                };
                self.emit(
                    i,
                    g,
                    Op::Ld {
                        space: MSpace::Global,
                        size: 8,
                        sext: false,
                        n: 1,
                        d: ds,
                        addr,
                    },
                );
                Ok(Some(Src::Reg(d)))
            }
            _ => Ok(None),
        }
    }
    pub(super) fn opt_dreg(&mut self, fc: &FnCtx, i: &Instruction, o: &O) -> R<Option<Reg>> {
        if matches!(o, O::Name { name, .. } if name == "_") {
            return Ok(None);
        }
        Ok(Some(self.dreg(fc, i, o)?))
    }
    /// The generic address of the launch's global copy of the kernel parameter block, read into
    /// a fresh register (and the program marked as needing that copy).
    pub(super) fn param_window(&mut self, i: &Instruction, g: Option<(Reg, bool)>) -> Src {
        self.param_window = true;
        let d = self.new_reg();
        self.emit(
            i,
            g,
            Op::Sreg {
                d,
                s: SReg::ParamWindow,
            },
        );
        Src::Reg(d)
    }
}

/// The address of a `.shared`/`.local` symbol at `offset` bytes into `space_kind`, or of its
/// generic alias inside `window` when the instruction names no state space (`generic`).
pub(super) fn windowed(
    generic: bool,
    space_kind: MSpace,
    window: u64,
    offset: impl Into<u64>,
    off: i64,
) -> (MSpace, Addr) {
    let o = offset.into();
    let (kind, start) = if generic {
        (MSpace::Generic, window + o)
    } else {
        (space_kind, o)
    };
    (
        kind,
        Addr {
            base: None,
            off: start as i64 + off,
        },
    )
}

pub(super) fn sreg(name: &str, comp: Option<&str>) -> Option<SReg> {
    let dim = || match comp {
        Some("x") => Some(0u8),
        Some("y") => Some(1),
        Some("z") => Some(2),
        _ => None,
    };
    Some(match name {
        "%tid" => SReg::Tid(dim()?),
        "%ntid" => SReg::Ntid(dim()?),
        "%ctaid" => SReg::Ctaid(dim()?),
        "%nctaid" => SReg::Nctaid(dim()?),
        "%laneid" => SReg::Laneid,
        "%warpid" => SReg::Warpid,
        "%nwarpid" => SReg::Nwarpid,
        "%smid" => SReg::Smid,
        "%nsmid" => SReg::Nsmid,
        "%gridid" => SReg::Gridid,
        "%lanemask_eq" => SReg::LanemaskEq,
        "%lanemask_le" => SReg::LanemaskLe,
        "%lanemask_lt" => SReg::LanemaskLt,
        "%lanemask_ge" => SReg::LanemaskGe,
        "%lanemask_gt" => SReg::LanemaskGt,
        "%clock" => SReg::Clock,
        "%clock64" => SReg::Clock64,
        "%globaltimer" => SReg::Globaltimer,
        "%dynamic_smem_size" => SReg::DynamicSmemSize,
        "%total_smem_size" => SReg::TotalSmemSize,
        "%aggr_smem_size" => SReg::AggrSmemSize,
        "%reserved_smem_offset_begin"
        | "%reserved_smem_offset_end"
        | "%reserved_smem_offset_0"
        | "%reserved_smem_offset_1" => SReg::ReservedSmemEnd,
        "%clock_hi" => SReg::ClockHi,
        "%reserved_smem_offset_cap" | "%current_graph_exec" => SReg::Zero,
        "%is_explicit_cluster" => SReg::IsExplicitCluster,
        "%cluster_ctarank" => SReg::ClusterCtarank,
        "%cluster_nctarank" => SReg::ClusterNctarank,
        "%clusterid" => SReg::Clusterid(dim()?),
        "%nclusterid" => SReg::Nclusterid(dim()?),
        "%cluster_ctaid" => SReg::ClusterCtaid(dim()?),
        "%cluster_nctaid" => SReg::ClusterNctaid(dim()?),
        _ => {
            let num = |p: &str, max: u32| {
                name.strip_prefix(p)
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|&n| n < max)
            };
            if let Some(n) = num("%envreg", 32) {
                // Set by the driver per launch (the cooperative grid workspace).
                SReg::Envreg(n as u8)
            } else if num("%pm", 8).is_some()
                || name
                    .strip_suffix("_64")
                    .and_then(|n| n.strip_prefix("%pm"))
                    .and_then(|n| n.parse::<u32>().ok())
                    .is_some_and(|n| n < 8)
            {
                SReg::Zero
            } else {
                return None;
            }
        }
    })
}
