//! The dispatch of one instruction: its guard and names are checked, then one arm per opcode
//! lowers it or hands it to the file of its family.

use super::*;

impl<'a> Prog<'a> {
    /// Lowers one instruction. It is decoded once against the ISA table ([`crate::isa`]): not
    /// admitted there, it is invalid PTX (with the table's reason); admitted, each modifier has
    /// its kind, which lowering consumes ([`Mods`]). What the executor cannot run is
    /// unsupported, or in lower-only mode a placeholder (`nop`) recorded in `unsupported` after
    /// its operands' names are resolved.
    pub(super) fn inst(&mut self, fc: &mut FnCtx, i: &Instruction) -> R<()> {
        let (n_insts, n_info) = (self.insts.len(), self.info.len());
        let name = self.name_of(i);
        let decoded = match crate::isa::decode_cached(i, &name) {
            Ok(d) => d,
            Err(reason) => return invalid(i.pos, reason),
        };
        let e = match self.inst_exec(fc, i, &decoded.kinds) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind == LoadErrorKind::Unsupported => e,
            Err(e) => return Err(e),
        };
        if !self.lower_only {
            return Err(e);
        }
        self.guard(fc, i)?;
        for o in &i.operands {
            self.check_names(fc, i, o)?;
        }
        // Drop what the failed attempt emitted (special-register reads, address arithmetic).
        self.insts.truncate(n_insts);
        self.info.truncate(n_info);
        self.emit(i, None, Op::Nop);
        self.unsupported.push(Unsupported {
            name: i.full_name().to_string(),
            decoded: (*decoded).clone(),
        });
        Ok(())
    }
    /// Every name an operand uses must be declared: a register, variable, function, label or
    /// special register (what ptxas reports as an undefined identifier otherwise).
    pub(super) fn check_names(&self, fc: &FnCtx, i: &Instruction, o: &O) -> R<()> {
        let known = |name: &str| {
            name == "_"
                || sreg(name, None).is_some()
                || crate::ptx::is_predefined_name(name)
                || self.lookup(fc, name).is_some()
                // A vector register named whole (`mov.v4.u32 %rx, %clusterid`).
                || self.lookup(fc, &format!("{name}.x")).is_some()
                || fc.all_labels.contains(name)
                || self.mc.m.globals.iter().any(|g| g.name == name)
                || self.mc.m.functions[fc.fidx]
                    .prototypes
                    .iter()
                    .any(|(l, _)| l == name)
        };
        match o {
            O::Name { name, comp } => {
                let full = comp.as_ref().map(|c| format!("{name}.{c}"));
                if !(known(name) || full.as_deref().is_some_and(known)) {
                    return invalid(i.pos, format!("undefined symbol '{name}'"));
                }
            }
            O::SymOff { name, .. } if !known(name) => {
                return invalid(i.pos, format!("undefined symbol '{name}'"));
            }
            O::Addr {
                base: Some(name), ..
            } if !known(name) => {
                return invalid(i.pos, format!("undefined symbol '{name}'"));
            }
            O::Index { name, index } => {
                if !known(name) {
                    return invalid(i.pos, format!("undefined symbol '{name}'"));
                }
                self.check_names(fc, i, index)?;
            }
            O::Vector(v) | O::List(v) | O::Tuple(v) => {
                for x in v {
                    self.check_names(fc, i, x)?;
                }
            }
            O::Not(x) | O::Neg(x) => self.check_names(fc, i, x)?,
            O::Pair(a, b) => {
                self.check_names(fc, i, a)?;
                self.check_names(fc, i, b)?;
            }
            _ => {}
        }
        Ok(())
    }
    pub(super) fn inst_exec(
        &mut self,
        fc: &mut FnCtx,
        i: &Instruction,
        kinds: &[ModKind],
    ) -> R<()> {
        let g = self.guard(fc, i)?;
        let mut m = Mods::new(i, kinds);
        let ops_ = &i.operands;
        let n = ops_.len();
        let need = |k: usize| -> R<()> {
            if n < k {
                invalid(i.pos, format!("'{}' needs {k} operands", i.full_name()))
            } else {
                Ok(())
            }
        };
        let op_s = i.opcode.as_str();
        if let Some(lower) = dispatch::route(i) {
            return lower(self, fc, i, g, &mut m);
        }
        match op_s {
            "mov" => {
                let vn = m.vec();
                let t = m.ty_data()?;
                m.done()?;
                need(2)?;
                if vn > 1 {
                    if t == T::Other || t == T::Pred || vn > 4 {
                        return unsupported(i);
                    }
                    return self.mov_vector(fc, i, g, vn, t);
                }
                let bits = t.bits();
                if t == T::Other {
                    return unsupported(i);
                }
                // A whole vector register moved to or from a scalar of its total width
                // (`mov.b64 %rd, v` with `v` a `.v2.u32`; the type check allows only that) is
                // the vector of its elements, first element lowest, as `mov.b64 d, {a, b}`.
                let whole = |o: &O| -> R<O> {
                    match o {
                        O::Name { name, comp: None }
                            if self.lookup(fc, name).is_none()
                                && self.lookup(fc, &format!("{name}.x")).is_some() =>
                        {
                            let n = self.vector_len(fc, name);
                            Ok(O::Vector(self.vector_parts(fc, i, o, n)?))
                        }
                        o => Ok(o.clone()),
                    }
                };
                let (o0, o1) = (whole(&ops_[0])?, whole(&ops_[1])?);
                match (&o0, &o1) {
                    (O::Vector(ds), a) => {
                        let a = self.src(fc, i, g, a, T::B(bits))?;
                        let mut regs = Vec::new();
                        for d in ds {
                            regs.push(if matches!(d, O::Name { name, .. } if name == "_") {
                                None
                            } else {
                                Some(self.dreg(fc, i, d)?)
                            });
                        }
                        let pb = bits / ds.len() as u32;
                        self.emit(
                            i,
                            g,
                            Op::Unpack {
                                ds: regs,
                                a,
                                bits: pb,
                            },
                        );
                    }
                    (d, O::Vector(parts)) => {
                        let d = self.dreg(fc, i, d)?;
                        let pb = bits / parts.len() as u32;
                        let mut ss = Vec::new();
                        for p in parts {
                            ss.push(self.src(fc, i, g, p, T::B(pb))?);
                        }
                        self.emit(
                            i,
                            g,
                            Op::Pack {
                                d,
                                parts: ss,
                                bits: pb,
                            },
                        );
                    }
                    (d, O::Name { name, comp }) if sreg(name, comp.as_deref()).is_some() => {
                        let d = self.dreg(fc, i, d)?;
                        let s = sreg(name, comp.as_deref()).unwrap();
                        self.emit(i, g, Op::Sreg { d, s });
                    }
                    (d, a) => {
                        let d = self.dreg(fc, i, d)?;
                        let a = self.src(fc, i, g, a, t)?;
                        self.emit(
                            i,
                            g,
                            Op::Un {
                                op: un(UnOp::Mov { bits }),
                                fl: FloatMods::NONE,
                                d,
                                a,
                            },
                        );
                    }
                }
            }
            "ld" | "ldu" | "st" => {
                // `st.async` (ISA 9.7.9.12) is the store done at issue, then, in its weak form
                // (into the shared memory of a CTA of the cluster), the complete-tx of the
                // stored bytes on the mbarrier operand: a valid execution of the asynchronous
                // store, whose completion is observable only through that mbarrier. Its
                // release form (global memory, sm_100) is a release store; `.mmio` changes
                // nothing for memory the host holds.
                let is_async = i.opcode == "st" && m.take("async");
                if is_async {
                    self.async_qualifiers(i, &mut m)?;
                }
                let space = m.space();
                m.ignore_kinds(MEMORY_QUALIFIERS);
                let vn = m.vec();
                let t = m.ty_data()?;
                m.done()?;
                if t == T::Other || t == T::Pred {
                    return unsupported(i);
                }
                let size = (t.bits() / 8) as u8;
                // 256 bits at once (ISA 9.7.9.8, 9.7.9.10: `.v8` of 32-bit and `.v4` of
                // 64-bit types, sm_100+, only in `.global` or generic addressing, not ldu).
                // `.v8` of narrower types is no PTX (ptxas 13.5 crashes on `ld.global.v8.u16`).
                let wide = vn as u32 * t.bits() > 128 || vn == 8;
                if wide {
                    self.wide_ld_st(i, vn, t, space)?;
                }
                need(2)?;
                let (is_ld, ms, addr, vo) = self.ld_st_operands(fc, i, space)?;
                let parts: Vec<O>;
                let items: Vec<&O> = if vn > 1 {
                    parts = self.vector_parts(fc, i, vo, vn)?;
                    parts.iter().collect()
                } else if matches!(vo, O::Vector(_)) {
                    return invalid(i.pos, "vector operand length mismatch");
                } else {
                    vec![vo]
                };
                if is_ld {
                    let mut d = [None; 8];
                    for (k, o) in items.iter().enumerate() {
                        // The sink `_` leaves that element unread.
                        d[k] = self.opt_dreg(fc, i, o)?;
                    }
                    let sext = matches!(t, T::S(_));
                    self.emit(
                        i,
                        g,
                        Op::Ld {
                            space: ms,
                            size,
                            sext,
                            n: vn,
                            d,
                            addr,
                        },
                    );
                } else {
                    let mut s = [Src::Imm(0); 8];
                    let mut sink = 0u8;
                    for (k, o) in items.iter().enumerate() {
                        if matches!(o, O::Name { name, .. } if name == "_") {
                            // ptxas allows the sink in 256-bit stores only ("Sink '_' not
                            // allowed as a source operand" elsewhere).
                            if !wide {
                                return invalid(
                                    i.pos,
                                    format!("'{}': the sink '_' is not a source", i.full_name()),
                                );
                            }
                            sink |= 1 << k;
                            continue;
                        }
                        s[k] = self.src(fc, i, g, o, t)?;
                    }
                    self.emit(
                        i,
                        g,
                        Op::St {
                            space: ms,
                            size,
                            n: vn,
                            sink,
                            s,
                            addr,
                        },
                    );
                    if is_async && !super::dispatch::has(i, "release") {
                        need(3)?;
                        self.complete_tx(fc, i, g, &ops_[2], space, size as u64 * vn as u64)?;
                    }
                }
            }
            "cvta" => {
                let to = m.take("to");
                let space = m.space();
                let t = m.ty()?;
                m.done()?;
                need(2)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let f = match (space, to) {
                    (Some(AS::Global) | Some(AS::Const), _) => un(UnOp::Mov { bits: t.bits() }),
                    (Some(AS::Shared), false) => un(UnOp::ToGeneric { local: false }),
                    (Some(AS::Local), false) => un(UnOp::ToGeneric { local: true }),
                    (Some(AS::Shared) | Some(AS::Local), true) => un(UnOp::Mov { bits: 32 }),
                    // `.param{::entry}`: kernel parameter offset <-> generic address, through
                    // the launch's global copy of the parameter block.
                    (Some(AS::Param), _) if t == T::U(64) => {
                        let base = self.param_window(i, g);
                        let (f, x, y) = if to {
                            (IBin::Sub, a, base)
                        } else {
                            (IBin::Add, base, a)
                        };
                        let f = bin_int(f, T::U(64).int().unwrap()).unwrap();
                        self.emit(
                            i,
                            g,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d,
                                a: x,
                                b: y,
                            },
                        );
                        return Ok(());
                    }
                    _ => return unsupported(i),
                };
                self.emit(
                    i,
                    g,
                    Op::Un {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                    },
                );
            }
            "isspacep" => {
                // `.shared` alone is `.shared::cta`: the executing CTA's window only.
                let cluster = i.mods.iter().any(|w| w == "shared::cluster");
                let space = m.space();
                m.done()?;
                need(2)?;
                let ms = match space {
                    Some(AS::Global) | Some(AS::Const) => MSpace::Global,
                    Some(AS::Shared) => MSpace::Shared,
                    Some(AS::Local) => MSpace::Local,
                    // `.param{::entry}`: inside the launch's global copy of the parameter block,
                    // i.e. `a - base < bytes` (unsigned).
                    Some(AS::Param) => {
                        let d = self.dreg(fc, i, &ops_[0])?;
                        let a = self.src(fc, i, g, &ops_[1], T::U(64))?;
                        let base = self.param_window(i, g);
                        let u64t = T::U(64).int().unwrap();
                        let off = self.new_reg();
                        let f = bin_int(IBin::Sub, u64t).unwrap();
                        self.emit(
                            i,
                            g,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d: off,
                                a,
                                b: base,
                            },
                        );
                        let f = cmp_int(Cmp::Lt, u64t).unwrap();
                        let b = Src::Imm(self.param_bytes);
                        let op = Op::Setp {
                            op: f,
                            fl: FloatMods::NONE,
                            a: Src::Reg(off),
                            b,
                            d: Some(d),
                            dn: None,
                            comb: None,
                        };
                        self.emit(i, g, op);
                        return Ok(());
                    }
                    _ => return unsupported(i),
                };
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], T::U(64))?;
                self.emit(
                    i,
                    g,
                    Op::Isspacep {
                        d,
                        a,
                        space: ms,
                        cluster,
                    },
                );
            }
            "cvt" => {
                let rnd = m.rnd();
                let ftz = m.ftz();
                let sat = m.sat();
                let dt = m.ty()?;
                let st = m.ty()?;
                m.done()?;
                need(2)?;
                let (Some(dst), Some(src)) = (dt.cvt_ty(), st.cvt_ty()) else {
                    return unsupported(i);
                };
                // ".ftz can only be specified when either .dtype or .atype is .f32" (ISA
                // 9.7.9.21; ptxas 13.5: "Modifier '.ftz' does not apply to this type of convert
                // operation").
                if ftz && dst != Scalar::F32 && src != Scalar::F32 {
                    return invalid(
                        i.pos,
                        format!("'{}': .ftz applies only when a type is .f32", i.full_name()),
                    );
                }
                let ok = match (dst.float(), src.float()) {
                    (false, false) => rnd == Rnd::None,
                    (false, true) => matches!(rnd, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi),
                    (true, false) => ieee_mode(rnd).is_some(),
                    (true, true) => {
                        if dst.bits() < src.bits() {
                            ieee_mode(rnd).is_some()
                        } else if dst.bits() > src.bits() {
                            rnd == Rnd::None
                        } else {
                            matches!(rnd, Rnd::None | Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi)
                        }
                    }
                };
                if !ok {
                    return unsupported(i);
                }
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], st)?;
                self.emit(
                    i,
                    g,
                    Op::Cvt {
                        d,
                        a,
                        dst,
                        src,
                        rnd,
                        sat,
                        ftz,
                    },
                );
            }
            "setp" => {
                let cmp = m.cmp();
                let bop = m.boolop();
                let ftz = m.ftz();
                let t = m.ty()?;
                m.done()?;
                need(3)?;
                let Some(cmp) = cmp else {
                    return unsupported(i);
                };
                let f = match t {
                    T::F(16) if !ftz => CmpOp::Float(cmp, Scalar::F16).resolve(),
                    T::F(16) => None,
                    T::F(b) => CmpOp::Float(cmp, Scalar::float_of_bits(b)).resolve(),
                    T::B(_) if !matches!(cmp, Cmp::Eq | Cmp::Ne) => None,
                    _ => t.int().and_then(|it| cmp_int(cmp, it)),
                };
                let Some(f) = f else { return unsupported(i) };
                let (d, dn) = match &ops_[0] {
                    O::Pair(a, b) => (self.opt_dreg(fc, i, a)?, self.opt_dreg(fc, i, b)?),
                    o => (self.opt_dreg(fc, i, o)?, None),
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                let comb = match bop {
                    Some(bo) => {
                        need(4)?;
                        let (neg, o) = match &ops_[3] {
                            O::Not(x) => (true, &**x),
                            o => (false, o),
                        };
                        Some((bo, self.src(fc, i, g, o, T::Pred)?, neg))
                    }
                    None => None,
                };
                let fl = FloatMods {
                    ftz: ftz && t == T::F(32),
                    sat: false,
                };
                self.emit(
                    i,
                    g,
                    Op::Setp {
                        op: f,
                        fl,
                        a,
                        b,
                        d,
                        dn,
                        comb,
                    },
                );
            }
            "selp" => {
                let t = m.ty()?;
                m.done()?;
                need(4)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                let c = self.src(fc, i, g, &ops_[3], T::Pred)?;
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: ter(TerOp::Selp { bits: t.bits() }),
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
            "bfe" | "prmt" | "shf" => {
                let f = match i.opcode.as_str() {
                    "bfe" => {
                        let t = m.ty()?;
                        t.int().and_then(|it| TerOp::Bfe(it).resolve())
                    }
                    "prmt" => {
                        let t = m.ty()?;
                        let mode = [
                            ("f4e", PrmtMode::F4e),
                            ("b4e", PrmtMode::B4e),
                            ("rc8", PrmtMode::Rc8),
                            ("ecl", PrmtMode::Ecl),
                            // The ISA's PDF renders `.ecl` as `.ec1`: accept both spellings.
                            ("ec1", PrmtMode::Ecl),
                            ("ecr", PrmtMode::Ecr),
                            ("rc16", PrmtMode::Rc16),
                        ]
                        .into_iter()
                        .find(|(w, _)| m.take(w))
                        .map(|(_, md)| md);
                        (t == T::B(32)).then(|| ter(TerOp::Prmt(mode)))
                    }
                    _ => {
                        let left = m.take("l");
                        let right = m.take("r");
                        let clamp = m.take("clamp");
                        let wrap = m.take("wrap");
                        let t = m.ty()?;
                        (left != right && clamp != wrap && t == T::B(32))
                            .then(|| ter(TerOp::Shf { left, clamp }))
                    }
                };
                m.done()?;
                let Some(f) = f else { return unsupported(i) };
                need(4)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], T::B(64))?;
                let b = self.src(fc, i, g, &ops_[2], T::B(64))?;
                let c = self.src(fc, i, g, &ops_[3], T::B(64))?;
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
            "bfi" | "lop3" => {
                // `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` (ISA 9.7.8.6): p = (d != 0) BoolOp q.
                let bop = if op_s == "lop3" {
                    if m.take("or") {
                        Some(BoolOp::Or)
                    } else if m.take("and") {
                        Some(BoolOp::And)
                    } else {
                        None
                    }
                } else {
                    None
                };
                let t = m.ty()?;
                m.done()?;
                need(if bop.is_some() { 6 } else { 5 })?;
                let f = match (i.opcode.as_str(), t) {
                    ("bfi", T::B(b)) => QuadOp::Bfi { bits: b }.resolve(),
                    ("lop3", T::B(32)) => QuadOp::Lop3 { bits: 32 }.resolve(),
                    _ => None,
                };
                let Some(f) = f else { return unsupported(i) };
                let (d, p) = match (&ops_[0], bop) {
                    (O::Pair(d, p), Some(_)) => {
                        (self.opt_dreg(fc, i, d)?, Some(self.dreg(fc, i, p)?))
                    }
                    (O::Pair(..), None) => {
                        return invalid(
                            i.pos,
                            "'lop3' with a predicate destination needs .or or .and",
                        )
                    }
                    (_, Some(_)) => return invalid(i.pos, "'lop3' with .or/.and needs 'd|p'"),
                    (o, None) => (Some(self.dreg(fc, i, o)?), None),
                };
                // The sink `_` as d: the result still feeds p, through a hidden register.
                let d = match d {
                    Some(d) => d,
                    None => self.hidden_reg(),
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                let c = self.src(fc, i, g, &ops_[3], T::U(32))?;
                let e = self.src(fc, i, g, &ops_[4], T::U(32))?;
                self.emit(
                    i,
                    g,
                    Op::Quad {
                        op: f,
                        d,
                        a,
                        b,
                        c,
                        e,
                    },
                );
                if let (Some(p), Some(bo)) = (p, bop) {
                    let q = self.src(fc, i, g, &ops_[5], T::Pred)?;
                    let ne = cmp_int(Cmp::Ne, Scalar::U32).unwrap();
                    self.emit(
                        i,
                        g,
                        Op::Setp {
                            op: ne,
                            fl: FloatMods::NONE,
                            a: Src::Reg(d),
                            b: Src::Imm(0),
                            d: Some(p),
                            dn: None,
                            comb: Some((bo, q, false)),
                        },
                    );
                }
            }
            "bra" => {
                m.take("uni");
                m.done()?;
                need(1)?;
                let O::Name { name, .. } = &ops_[0] else {
                    return invalid(i.pos, "branch target must be a label");
                };
                let pc = self.emit(i, g, Op::Bra { target: 0, rpc: 0 });
                fc.fixups.push((pc, name.clone(), i.pos, fc.label_scope));
            }
            "ret" => {
                m.take("uni");
                m.done()?;
                let pc = self.emit(i, g, Op::Bra { target: 0, rpc: 0 });
                fc.fixups.push((pc, String::new(), i.pos, fc.label_scope));
            }
            "exit" => {
                m.done()?;
                self.emit(i, g, Op::Exit);
            }
            "trap" => {
                m.done()?;
                self.emit(i, g, Op::Trap);
            }
            "stacksave" | "stackrestore" | "alloca" => {
                m.take("local");
                let has_ty = i.mods.iter().any(|w| matches!(w.as_str(), "u32" | "u64"));
                let t = if has_ty { m.ty()? } else { T::U(64) };
                m.done()?;
                if !matches!(t, T::U(32 | 64)) {
                    return unsupported(i);
                }
                if self.sp_reg.is_none() {
                    self.sp_reg = Some(self.hidden_reg());
                }
                need(if op_s == "alloca" { 2 } else { 1 })?;
                match op_s {
                    "stacksave" => {
                        let d = self.dreg(fc, i, &ops_[0])?;
                        self.emit(i, g, Op::StackSave { d });
                    }
                    "stackrestore" => {
                        let a = self.src(fc, i, g, &ops_[0], t)?;
                        self.emit(i, g, Op::StackRestore { a });
                    }
                    _ => {
                        self.uses_alloca = true;
                        let d = self.dreg(fc, i, &ops_[0])?;
                        let size = self.src(fc, i, g, &ops_[1], t)?;
                        // The ISA's default and minimum alignment is 8; immAlign is a power of 2
                        // of at most 2^23.
                        let align = match ops_.get(2) {
                            None => 8,
                            Some(O::Int(a))
                                if *a > 0 && (*a as u64).is_power_of_two() && *a <= 1 << 23 =>
                            {
                                (*a as u32).max(8)
                            }
                            Some(_) => {
                                return invalid(
                                    i.pos,
                                    "alloca alignment must be a power of 2 up to 2^23",
                                )
                            }
                        };
                        self.emit(i, g, Op::Alloca { d, size, align });
                    }
                }
            }
            "membar" | "fence" => {
                // Host atomics are sequentially consistent and a CTA runs on one host thread, so
                // fences order nothing further. Proxy fences (`fence.proxy.*`, `membar.proxy`,
                // `fence.proxy.tensormap::generic.release/acquire [a], size`) order accesses
                // of different memory proxies (generic, async, texture, tensormap), which are
                // all the same host memory accessed synchronously here, and
                // `fence.mbarrier_init` orders mbarrier initialisation, done at once here:
                // nothing to order either; nor do `.sync_restrict` / `.op_restrict` forms. Every
                // form is a no-op, so the words are taken as they are and the ISA table checks
                // them.
                let all: Vec<&str> = i.mods.iter().map(|s| s.as_str()).collect();
                m.ignore(&all);
                for o in ops_ {
                    if let O::Addr { .. } = o {
                        self.addr(fc, i, o, None)?;
                    }
                }
                self.emit(i, g, Op::Nop);
            }
            "brkpt" => {
                m.done()?;
                self.emit(i, g, Op::Brkpt);
            }
            "nanosleep" | "prefetch" | "prefetchu" | "pmevent" => {
                // Prefetches (to a cache, or of a tensor map in `.const`/`.param` or generic
                // space) have no effect on what a program computes: no cache to fill here.
                m.ignore(&[
                    "global",
                    "local",
                    "L1",
                    "L2",
                    "uni",
                    "L2::evict_last",
                    "L2::evict_normal",
                    "mask",
                    "const",
                    "param",
                    "tensormap",
                ]);
                // nanosleep.u32 t: a scheduling hint, nothing to wait for here.
                if op_s == "nanosleep" {
                    m.take("u32");
                }
                m.done()?;
                self.emit(i, g, Op::Nop);
            }
            "shfl" => {
                let sync = m.take("sync");
                let mode = if m.take("up") {
                    ShflMode::Up
                } else if m.take("down") {
                    ShflMode::Down
                } else if m.take("bfly") {
                    ShflMode::Bfly
                } else if m.take("idx") {
                    ShflMode::Idx
                } else {
                    return unsupported(i);
                };
                let t = m.ty()?;
                m.done()?;
                if t != T::B(32) {
                    return unsupported(i);
                }
                need(4)?;
                let (d, p) = match &ops_[0] {
                    O::Pair(a, b) => (self.dreg(fc, i, a)?, self.opt_dreg(fc, i, b)?),
                    o => (self.dreg(fc, i, o)?, None),
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], T::U(32))?;
                let c = self.src(fc, i, g, &ops_[3], T::U(32))?;
                let mask = if sync {
                    need(5)?;
                    Some(self.src(fc, i, g, &ops_[4], T::B(32))?)
                } else {
                    None
                };
                self.emit(
                    i,
                    g,
                    Op::Shfl {
                        mode,
                        d,
                        p,
                        a,
                        b,
                        c,
                        mask,
                    },
                );
            }
            "vote" => {
                let sync = m.take("sync");
                let mode = if m.take("all") {
                    VoteMode::All
                } else if m.take("any") {
                    VoteMode::Any
                } else if m.take("uni") {
                    VoteMode::Uni
                } else if m.take("ballot") {
                    VoteMode::Ballot
                } else {
                    return unsupported(i);
                };
                let t = m.ty()?;
                m.done()?;
                if (mode == VoteMode::Ballot) != (t == T::B(32)) {
                    return unsupported(i);
                }
                need(2)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let (neg, o) = match &ops_[1] {
                    O::Not(x) => (true, &**x),
                    o => (false, o),
                };
                let a = self.src(fc, i, g, o, T::Pred)?;
                let mask = if sync {
                    need(3)?;
                    Some(self.src(fc, i, g, &ops_[2], T::B(32))?)
                } else {
                    None
                };
                self.emit(
                    i,
                    g,
                    Op::Vote {
                        mode,
                        d,
                        a,
                        neg,
                        mask,
                    },
                );
            }
            "match" => {
                let any = m.take("any");
                let all = m.take("all");
                let sync = m.take("sync");
                let t = m.ty()?;
                m.done()?;
                let bits = match t {
                    T::B(b @ (32 | 64)) => b,
                    _ => return unsupported(i),
                };
                if any == all || !sync {
                    return unsupported(i);
                }
                need(3)?;
                let (d, p) = match &ops_[0] {
                    O::Pair(a, b) if all => (self.opt_dreg(fc, i, a)?, self.opt_dreg(fc, i, b)?),
                    o => (self.opt_dreg(fc, i, o)?, None),
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let mask = self.src(fc, i, g, &ops_[2], T::B(32))?;
                self.emit(
                    i,
                    g,
                    Op::Match {
                        all,
                        bits,
                        d,
                        p,
                        a,
                        mask,
                    },
                );
            }
            "redux" => {
                let sync = m.take("sync");
                let abs = m.take("abs");
                let nan = m.take("NaN");
                let word = ["add", "min", "max", "and", "or", "xor"]
                    .into_iter()
                    .find(|w| m.take(w));
                let t = m.ty()?;
                m.done()?;
                let op = match (word, t) {
                    (_, _) if !sync => None,
                    (Some("add"), T::U(32) | T::S(32)) if !abs && !nan => Some(ReduxOp::Add),
                    (Some("min"), T::U(32) | T::S(32)) if !abs && !nan => Some(ReduxOp::Min {
                        signed: t == T::S(32),
                    }),
                    (Some("max"), T::U(32) | T::S(32)) if !abs && !nan => Some(ReduxOp::Max {
                        signed: t == T::S(32),
                    }),
                    (Some("and"), T::B(32)) if !abs && !nan => Some(ReduxOp::And),
                    (Some("or"), T::B(32)) if !abs && !nan => Some(ReduxOp::Or),
                    (Some("xor"), T::B(32)) if !abs && !nan => Some(ReduxOp::Xor),
                    (Some("min"), T::F(32)) => Some(ReduxOp::FMin { abs, nan }),
                    (Some("max"), T::F(32)) => Some(ReduxOp::FMax { abs, nan }),
                    _ => None,
                };
                let Some(op) = op else { return unsupported(i) };
                need(3)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let mask = self.src(fc, i, g, &ops_[2], T::B(32))?;
                self.emit(i, g, Op::Redux { op, d, a, mask });
            }
            "elect" => {
                let sync = m.take("sync");
                m.done()?;
                if !sync {
                    return unsupported(i);
                }
                need(2)?;
                let (d, p) = match &ops_[0] {
                    O::Pair(a, b) => (self.opt_dreg(fc, i, a)?, self.opt_dreg(fc, i, b)?),
                    o => (self.opt_dreg(fc, i, o)?, None),
                };
                let mask = self.src(fc, i, g, &ops_[1], T::B(32))?;
                self.emit(i, g, Op::Elect { d, p, mask });
            }
            "activemask" => {
                m.ty()?;
                m.done()?;
                need(1)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                self.emit(i, g, Op::Activemask { d });
            }
            _ => return unsupported(i),
        }
        Ok(())
    }
    /// Refuses a feature the module's `.target` lacks, with ptxas's words ("Feature '...'
    /// requires .target sm_90 or higher"). A module that names no `sm_NN` target is not checked.
    pub(super) fn require_sm(&self, i: &Instruction, sm: u32, feature: &str) -> R<()> {
        let have = self.mc.m.target.iter().find_map(|t| {
            let n = t.strip_prefix("sm_")?;
            n.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse::<u32>()
                .ok()
        });
        match have {
            Some(have) if have < sm => invalid(
                i.pos,
                format!(
                    "'{}': feature '{feature}' requires .target sm_{sm} or higher",
                    i.full_name()
                ),
            ),
            _ => Ok(()),
        }
    }
}
