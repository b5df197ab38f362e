//! Lowering of `tex`, `tld4` and `txq` (ISA 9.7.10.3-5). The texture is a 64-bit handle in a
//! register (a texture object), or a module-scope `.texref` variable the driver writes the
//! handle of its bound texture into (texture references); `crate::tex` samples or queries it
//! when the instruction runs. Every geometry a texture object can have (1d, 2d, 3d, a1d, a2d,
//! cube, acube), `.base`, `.level` and `.grad`, offsets, the residency predicate and
//! `.f16`/`.f16x2` results are lowered. The independent mode: a module-scope `.samplerref`
//! named by `tex` or `tld4` overrides the texture's sampler with its static fields, and `txq`
//! on it answers them. `txq.channel_data_type`/`channel_order` answer in OpenCL's
//! enumerations, the only ones the ISA names (5.3.3); a sampler's `clamp_ogl` is OpenGL's
//! `GL_CLAMP` (`crate::tex::AddressMode::ClampOgl`). A register may also hold a `.texref`
//! variable's address (indirect access): `crate::exec::texture` reads the handle bound to it.
//! Refused at load with the instruction named: the multisample geometries and depth compare (no
//! CUDA texture descriptor can create a multisample or a comparing texture). `.texref` and
//! `.samplerref` kernel parameters are refused with the kernel (`lower_kernel`): the CUDA
//! driver loads no such module.

use super::*;
use crate::tex::{AddressMode, Filter};

/// Refuses `i` at load as not run, saying which part.
fn refuse<X>(i: &Instruction, what: &str) -> R<X> {
    Err(LowerError {
        kind: LoadErrorKind::Unsupported,
        pos: i.pos,
        message: format!("unsupported instruction '{}': {what}", i.full_name()),
    })
}

/// The elements of a coordinate-like operand: a vector's, or a lone scalar (a 1-D
/// coordinate may be written without braces).
fn elements(o: &O) -> Option<&[O]> {
    match o {
        O::Vector(v) => Some(v),
        O::Name { .. } | O::Int(_) | O::Float { .. } => Some(std::slice::from_ref(o)),
        _ => None,
    }
}

impl<'a> Prog<'a> {
    pub(super) fn tex(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let gather = if i.opcode == "tld4" {
            let comp = ["r", "g", "b", "a"].iter().position(|w| m.take(w));
            match comp {
                Some(c) => Some(c as u8),
                None => return unsupported(i),
            }
        } else {
            None
        };
        let mode = if m.take("level") {
            1
        } else if m.take("grad") {
            2
        } else {
            m.take("base");
            0
        };
        if ["2dms", "a2dms"].iter().any(|w| m.take(w)) {
            return refuse(i, "multisample textures (no CUDA texture object is one)");
        }
        let geoms = [
            ("1d", TexGeom::D1),
            ("2d", TexGeom::D2),
            ("3d", TexGeom::D3),
            ("a1d", TexGeom::A1),
            ("a2d", TexGeom::A2),
            ("cube", TexGeom::Cube),
            ("acube", TexGeom::ACube),
        ];
        let Some(geom) = geoms.iter().find(|(w, _)| m.take(w)).map(|g| g.1) else {
            return unsupported(i);
        };
        let vec = m.vec();
        let types = m.types();
        let result = match types.first().map(String::as_str) {
            Some("f32") => TexResult::F32,
            Some("s32") => TexResult::S32,
            Some("u32") => TexResult::U32,
            Some("f16") if gather.is_none() => TexResult::F16,
            Some("f16x2") if gather.is_none() => TexResult::F16x2,
            _ => return unsupported(i),
        };
        let int_coords = match types.get(1).map(String::as_str) {
            Some("f32") => false,
            Some("s32") if gather.is_none() && !geom.cube() => true,
            _ => return unsupported(i),
        };
        let gather_geom = matches!(
            geom,
            TexGeom::D2 | TexGeom::A2 | TexGeom::Cube | TexGeom::ACube
        );
        let results = if result == TexResult::F16x2 { 2 } else { 4 };
        if (gather.is_some() && (!gather_geom || mode != 0)) || vec != results {
            return unsupported(i);
        }
        m.done()?;
        let ops_ = &i.operands;
        if ops_.len() < 2 {
            return unsupported(i);
        }
        let (dests, pred) = match &ops_[0] {
            O::Pair(d, p) => (&**d, Some(&**p)),
            d => (d, None),
        };
        let O::Vector(ds) = dests else {
            return unsupported(i);
        };
        let O::Tuple(parts) = &ops_[1] else {
            return unsupported(i);
        };
        let independent = self.mc.m.target.iter().any(|t| t == "texmode_independent");
        let (handle, sampler, cs) = match parts.as_slice() {
            // The independent mode always names a sampler (ptxas: "Argument 2 of instruction
            // 'tex': .samplerref or .u64 register expected").
            [_, _] if independent => {
                return invalid(
                    i.pos,
                    format!(
                        "'{}' names no sampler in the independent texturing mode (ptxas: \
                         .samplerref or .u64 register expected)",
                        i.full_name()
                    ),
                )
            }
            [h, c] => (h, None, c),
            [h, s, c] => (h, Some(self.sampler(i, s)?), c),
            _ => return unsupported(i),
        };
        let O::Name { name, .. } = handle else {
            return unsupported(i);
        };
        let dims = geom.dims();
        let ncoords = geom.indexed() as usize + dims;
        let cs = elements(cs).unwrap_or(&[]);
        if ds.len() != results as usize || cs.len() < ncoords {
            return invalid(
                i.pos,
                format!(
                    "'{}' needs {results} destinations and {ncoords} coordinates",
                    i.full_name()
                ),
            );
        }
        let mut d = [None; 4];
        for (k, o) in ds.iter().enumerate() {
            d[k] = self.opt_dreg(fc, i, o)?;
        }
        let pred = match pred {
            Some(p) => self.opt_dreg(fc, i, p)?,
            None => None,
        };
        let tex = self.texture_handle(fc, i, g, name)?;
        let ct = if int_coords { T::S(32) } else { T::F(32) };
        let mut coords = [Src::Imm(0); 4];
        for (k, o) in cs.iter().take(ncoords).enumerate() {
            let t = if geom.indexed() && k == 0 {
                T::U(32)
            } else {
                ct
            };
            coords[k] = self.src(fc, i, g, o, t)?;
        }
        // The operands after the coordinates: the level or the two gradients, then the offset
        // vector `e` and the depth compare value `f` (a scalar).
        let mut rest = ops_[2..].iter();
        let vector_of = |this: &mut Self, o: Option<&O>, t: T| -> R<[Src; 3]> {
            let Some(v) = o.and_then(elements).filter(|v| v.len() >= dims) else {
                return invalid(
                    i.pos,
                    format!("'{}' needs a vector of {dims}", i.full_name()),
                );
            };
            let mut out = [Src::Imm(0); 3];
            for (k, o) in v.iter().take(dims).enumerate() {
                out[k] = this.src(fc, i, g, o, t)?;
            }
            Ok(out)
        };
        let lod = match mode {
            1 => match rest.next() {
                Some(o) => TexLod::Level(self.src(fc, i, g, o, ct)?),
                None => return invalid(i.pos, format!("'{}' needs a level", i.full_name())),
            },
            2 => {
                let dx = vector_of(self, rest.next(), T::F(32))?;
                let dy = vector_of(self, rest.next(), T::F(32))?;
                TexLod::Grad(dx, dy)
            }
            _ => TexLod::Base,
        };
        let mut offset = None;
        for o in rest {
            match o {
                O::Vector(_) if offset.is_none() && !geom.cube() => {
                    offset = Some(vector_of(self, Some(o), T::S(32))?);
                }
                O::Vector(_) => return unsupported(i),
                _ => {
                    return refuse(
                        i,
                        "depth compare (no CUDA texture object is a depth texture)",
                    )
                }
            }
        }
        self.emit(
            i,
            g,
            Op::Tex(Box::new(TexOp {
                d,
                pred,
                tex,
                coords,
                geom,
                int_coords,
                result,
                gather,
                lod,
                offset,
                sampler,
            })),
        );
        Ok(())
    }

    /// The static fields of the module-scope `.samplerref` `o` names (PTX ISA 5.3.2).
    fn sampler(&self, i: &Instruction, o: &O) -> R<TexSampler> {
        let O::Name { name, comp: None } = o else {
            return unsupported(i);
        };
        let Some(v) = self
            .mc
            .m
            .globals
            .iter()
            .find(|v| &v.name == name && v.ty.as_str() == "samplerref")
        else {
            return refuse(i, "a sampler that is no module-scope .samplerref");
        };
        let mut smp = TexSampler::default();
        for (field, value) in &v.fields {
            let mode = || match value.as_str() {
                "wrap" => Ok(AddressMode::Wrap),
                "mirror" => Ok(AddressMode::Mirror),
                "clamp_to_edge" => Ok(AddressMode::Clamp),
                "clamp_to_border" => Ok(AddressMode::Border),
                "clamp_ogl" => Ok(AddressMode::ClampOgl),
                _ => invalid(v.pos, format!("'{value}' is no addressing mode")),
            };
            match (field.as_str(), value.as_str()) {
                ("addr_mode_0", _) => smp.address[0] = Some(mode()?),
                ("addr_mode_1", _) => smp.address[1] = Some(mode()?),
                ("addr_mode_2", _) => smp.address[2] = Some(mode()?),
                ("filter_mode", "nearest") => smp.filter = Some(Filter::Point),
                ("filter_mode", "linear") => smp.filter = Some(Filter::Linear),
                ("force_unnormalized_coords", "0" | "1") => {
                    smp.force_unnormalized = value == "1";
                }
                _ => {
                    return invalid(
                        v.pos,
                        format!("'{field} = {value}' is no .samplerref field"),
                    )
                }
            }
        }
        Ok(smp)
    }

    /// `txq{.level}.query.b32 d, [a]{, lod}` on a texture object.
    pub(super) fn txq(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let ops_ = &i.operands;
        let name = match ops_.get(1) {
            Some(O::Tuple(t)) if t.len() == 1 => match &t[0] {
                O::Name { name, .. } => name.as_str(),
                _ => return unsupported(i),
            },
            Some(O::Addr {
                base: Some(b),
                offset: 0,
            }) => b.as_ref(),
            _ => return unsupported(i),
        };
        let is_sampler = self
            .mc
            .m
            .globals
            .iter()
            .any(|v| v.name == name && v.ty.as_str() == "samplerref");
        if is_sampler {
            return self.txq_sampler(fc, i, g, m, name);
        }
        let level = m.take("level");
        let queries = [
            ("width", TexQuery::Width),
            ("height", TexQuery::Height),
            ("depth", TexQuery::Depth),
            ("channel_data_type", TexQuery::ChannelDataType),
            ("channel_order", TexQuery::ChannelOrder),
            ("normalized_coords", TexQuery::NormalizedCoords),
            ("array_size", TexQuery::ArraySize),
            ("num_mipmap_levels", TexQuery::NumMipmapLevels),
            ("num_samples", TexQuery::NumSamples),
            ("filter_mode", TexQuery::FilterMode),
            ("addr_mode_0", TexQuery::AddrMode(0)),
            ("addr_mode_1", TexQuery::AddrMode(1)),
            ("addr_mode_2", TexQuery::AddrMode(2)),
        ];
        let Some(query) = queries.iter().find(|(w, _)| m.take(w)).map(|q| q.1) else {
            // force_unnormalized_coords is a sampler's field only.
            return unsupported(i);
        };
        if level && !matches!(query, TexQuery::Width | TexQuery::Height | TexQuery::Depth) {
            return unsupported(i);
        }
        m.take("b32");
        m.done()?;
        self.txq_on(fc, i, g, query, level, name)
    }

    /// `txq.squery.b32 d, [s]` on a module-scope `.samplerref`: its static fields, known at
    /// load (a field its initializer leaves out reads 0: nearest, wrap, not forced).
    fn txq_sampler(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
        name: &str,
    ) -> R<()> {
        let o = O::Name {
            name: name.to_string(),
            comp: None,
        };
        let smp = self.sampler(i, &o)?;
        let code = |a: Option<AddressMode>| match a {
            None | Some(AddressMode::Wrap) => 0,
            Some(AddressMode::Mirror) => 1,
            Some(AddressMode::ClampOgl) => 2,
            Some(AddressMode::Clamp) => 3,
            Some(AddressMode::Border) => 4,
        };
        let v = if m.take("force_unnormalized_coords") {
            smp.force_unnormalized as u64
        } else if m.take("filter_mode") {
            (smp.filter == Some(Filter::Linear)) as u64
        } else if let Some(k) = ["addr_mode_0", "addr_mode_1", "addr_mode_2"]
            .iter()
            .position(|w| m.take(w))
        {
            code(smp.address[k])
        } else {
            return invalid(
                i.pos,
                format!(
                    "'{}': a .samplerref answers sampler queries only",
                    i.full_name()
                ),
            );
        };
        m.take("b32");
        m.done()?;
        if i.operands.len() != 2 {
            return invalid(i.pos, format!("'{}': wrong operands", i.full_name()));
        }
        let d = self.dreg(fc, i, &i.operands[0])?;
        self.emit(
            i,
            g,
            Op::Un {
                op: super::arith::un(UnOp::Mov { bits: 32 }),
                fl: FloatMods::NONE,
                d,
                a: Src::Imm(v),
            },
        );
        Ok(())
    }

    /// The texture handle `name` gives: a register holding one (a texture object), or a
    /// module-scope `.texref` variable, which holds the handle of the texture the driver
    /// bound to it (`cuModuleGetTexRef` and `cuTexRefSet*`).
    fn texture_handle(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        name: &str,
    ) -> R<Src> {
        match self.opaque_handle(fc, i, g, name, "texref")? {
            Some(h) => Ok(h),
            None => refuse(i, "a texture that is no register or module-scope .texref"),
        }
    }

    fn txq_on(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        query: TexQuery,
        level: bool,
        name: &str,
    ) -> R<()> {
        let ops_ = &i.operands;
        if ops_.len() != 2 + level as usize {
            return invalid(i.pos, format!("'{}': wrong operands", i.full_name()));
        }
        let d = self.dreg(fc, i, &ops_[0])?;
        let tex = self.texture_handle(fc, i, g, name)?;
        let level = match level {
            true => Some(self.src(fc, i, g, &ops_[2], T::B(32))?),
            false => None,
        };
        self.emit(
            i,
            g,
            Op::Txq {
                d,
                tex,
                query,
                level,
            },
        );
        Ok(())
    }
}
