//! Data movement that is more than one op: `mov` of vectors, 256-bit loads and stores, and
//! `tensormap.replace` (stores into the engine's tensor-map layout).

use super::*;

impl<'a> Prog<'a> {
    /// The rules of a 256-bit `ld`/`st` (`vn` elements of type `t`), in ptxas 13.5's words.
    pub(super) fn wide_ld_st(&self, i: &Instruction, vn: u8, t: T, space: Option<AS>) -> R<()> {
        let limit = || {
            invalid(
                i.pos,
                format!(
                    "'{}': vector type too large, exceeds 128 bit limit",
                    i.full_name()
                ),
            )
        };
        if i.opcode == "ldu" || vn as u32 * t.bits() > 256 {
            return limit();
        }
        if !matches!((vn, t.bits()), (8, 32) | (4, 64)) {
            return invalid(
                i.pos,
                format!(
                    "'{}': .v8 takes only .b32, .s32, .u32 and .f32",
                    i.full_name()
                ),
            );
        }
        self.require_sm(i, 100, "256 bit wide load/store")?;
        if !matches!(space, None | Some(AS::Global)) {
            return invalid(
                i.pos,
                format!(
                    "'{}': global state space expected for feature '256 bit wide load/store'",
                    i.full_name()
                ),
            );
        }
        Ok(())
    }
    /// `mov.v2/.v4`: element-wise moves between vector operands; the unused fourth element of
    /// a vector special register (`%tid.w` and the like, ISA chapter 10) reads as zero.
    pub(super) fn mov_vector(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        vn: u8,
        t: T,
    ) -> R<()> {
        let ops_ = &i.operands;
        if ops_.len() < 2 {
            return invalid(i.pos, format!("'{}' needs 2 operands", i.full_name()));
        }
        let ds = self.vector_parts(fc, i, &ops_[0], vn)?;
        let ss = self.vector_parts(fc, i, &ops_[1], vn)?;
        let mut dregs = Vec::with_capacity(ds.len());
        for d in &ds {
            dregs.push(self.opt_dreg(fc, i, d)?);
        }
        // The move reads every source before it writes any destination: when a destination is
        // also a source (`mov.v4.u16 {a,b,c,d}, {d,a,b,c}`), the register sources are first
        // copied to fresh registers.
        let mut srcs = Vec::with_capacity(ss.len());
        for a in &ss {
            srcs.push(match a {
                // Special registers (and the zero `.w` of a vector one) are handled below.
                O::Name { name, comp }
                    if sreg(name, comp.as_deref()).is_some() || sreg(name, Some("x")).is_some() =>
                {
                    None
                }
                a => Some(self.src(fc, i, g, a, t)?),
            });
        }
        let overlap = srcs
            .iter()
            .any(|s| matches!(s, Some(Src::Reg(r)) if dregs.contains(&Some(*r))));
        if overlap {
            for s in srcs.iter_mut() {
                if let Some(Src::Reg(r)) = *s {
                    let d = self.new_reg();
                    let f = un(UnOp::Mov { bits: t.bits() });
                    self.emit(
                        i,
                        g,
                        Op::Un {
                            op: f,
                            fl: FloatMods::NONE,
                            d,
                            a: Src::Reg(r),
                        },
                    );
                    *s = Some(Src::Reg(d));
                }
            }
        }
        for ((d, a), s) in dregs.into_iter().zip(&ss).zip(srcs) {
            let Some(d) = d else {
                continue;
            };
            if let Some(a) = s {
                let f = un(UnOp::Mov { bits: t.bits() });
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
                continue;
            }
            match a {
                O::Name { name, comp } if sreg(name, comp.as_deref()).is_some() => {
                    let s = sreg(name, comp.as_deref()).unwrap();
                    self.emit(i, g, Op::Sreg { d, s });
                }
                O::Name {
                    name,
                    comp: Some(w),
                } if w == "w" && sreg(name, Some("x")).is_some() => {
                    let f = un(UnOp::Mov { bits: 32 });
                    let a = Src::Imm(0);
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
                _ => return invalid(i.pos, format!("unexpected operand in '{}'", i.full_name())),
            }
        }
        Ok(())
    }
    /// `tensormap.replace.tile.FIELD{.ss}.b1024.TYPE [addr], {ord,} new_val` (ISA 9.7.9.26): a
    /// store of the new value into the field of the tensor-map object at `addr`, a weak memory
    /// operation as the ISA says. The object's layout is [`crate::tensormap`]'s.
    /// `tensormap.cp_fenceproxy` (ISA 9.7.13.16): each thread copies the 128-byte tensor map
    /// at `[src]` in its CTA's shared memory to `[dst]` in global memory, then orders that copy
    /// before the tensormap proxy's later reads of `dst`. Here a tensor copy reads its map from
    /// memory when it issues, through the one proxy there is, so the fence has nothing left to
    /// order: the instruction is a 128-byte copy done at issue (the bulk copy's executor, which
    /// checks both ranges). `.sync.aligned`: the warp's threads copy the same bytes.
    pub(super) fn tensormap_cp_fenceproxy(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        m.take("cp_fenceproxy");
        let words = [
            "global",
            "shared::cta",
            "tensormap::generic",
            "release",
            "sync",
            "aligned",
        ];
        let complete = words.iter().all(|w| m.take(w));
        let scoped = ["cta", "cluster", "gpu", "sys"].iter().any(|s| m.take(s));
        m.done()?;
        if !complete || !scoped {
            return invalid(
                i.pos,
                "tensormap.cp_fenceproxy needs .global.shared::cta.tensormap::generic.release, \
                 a scope and .sync.aligned",
            );
        }
        let ops_ = &i.operands;
        if ops_.len() != 3 {
            return invalid(i.pos, "tensormap.cp_fenceproxy takes [dst], [src], size");
        }
        if !matches!(ops_[2], O::Int(128)) {
            return invalid(i.pos, "the size of tensormap.cp_fenceproxy must be 128");
        }
        let dst = self.addr(fc, i, &ops_[0], Some(AS::Global))?;
        let src = self.addr(fc, i, &ops_[1], Some(AS::Shared))?;
        self.emit(
            i,
            g,
            Op::Bulk(Box::new(BulkOp {
                dst,
                src,
                size: Some(Src::Imm(128)),
                tensor: None,
                mbar: None,
                multicast: None,
                pair: false,
                reduce: None,
                zero: false,
                byte_mask: None,
                ignore_oob: None,
            })),
        );
        Ok(())
    }

    pub(super) fn tensormap_replace(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        const FIELDS: [&str; 11] = [
            "global_address",
            "rank",
            "box_dim",
            "global_dim",
            "global_stride",
            "element_stride",
            "elemtype",
            "interleave_layout",
            "swizzle_mode",
            "swizzle_atomicity",
            "fill_mode",
        ];
        if !m.take("tile") {
            return unsupported(i);
        }
        let Some(field) = FIELDS.iter().copied().find(|f| m.take(f)) else {
            return unsupported(i);
        };
        let space = m.space();
        if !matches!(space, None | Some(AS::Global) | Some(AS::Shared)) {
            return invalid(i.pos, "tensormap.replace addresses .global or .shared::cta");
        }
        if !m.take("b1024") {
            return invalid(i.pos, "tensormap.replace needs the object type .b1024");
        }
        let t = m.ty()?;
        m.done()?;
        let wide = matches!(field, "global_address" | "global_stride");
        if t != T::B(if wide { 64 } else { 32 }) {
            let want = if wide { "b64" } else { "b32" };
            return invalid(i.pos, format!("'.{field}' takes a .{want} value"));
        }
        let ops_ = &i.operands;
        let has_ord = matches!(
            field,
            "box_dim" | "global_dim" | "global_stride" | "element_stride"
        );
        if ops_.len() != if has_ord { 3 } else { 2 } {
            return invalid(
                i.pos,
                format!("wrong number of operands for '{}'", i.full_name()),
            );
        }
        let ord = if has_ord {
            match &ops_[1] {
                O::Int(v) if (0..=u32::MAX as i64).contains(v) => *v as u32,
                _ => return invalid(i.pos, "the ordinal must be a non-negative immediate"),
            }
        } else {
            0
        };
        let Some((off, width)) = crate::tensormap::field(field, ord) else {
            return invalid(
                i.pos,
                format!(
                    "ordinal {ord} of '.{field}' is past the {} dimensions of a tensor map",
                    crate::tensormap::MAX_RANK
                ),
            );
        };
        let vo = &ops_[ops_.len() - 1];
        let s = match crate::tensormap::field3_max(field) {
            Some(max) => match vo {
                O::Int(v) if (0..=max as i64).contains(v) => Src::Imm(*v as u64),
                O::Int(v) => {
                    return invalid(
                        i.pos,
                        format!("{v} is not a value of '.{field}' (0 to {max})"),
                    )
                }
                _ => {
                    return invalid(
                        i.pos,
                        format!("the new value of '.{field}' must be an immediate"),
                    )
                }
            },
            None => self.src(fc, i, g, vo, t)?,
        };
        let (ms, mut addr) = self.addr(fc, i, &ops_[0], space)?;
        addr.off += off as i64;
        let mut srcs = [Src::Imm(0); 8];
        srcs[0] = s;
        self.emit(
            i,
            g,
            Op::St {
                space: ms,
                size: width,
                n: 1,
                sink: 0,
                s: srcs,
                addr,
            },
        );
        Ok(())
    }
}
