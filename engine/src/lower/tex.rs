//! Lowering of `tex`, `tld4` and `txq` on texture objects (ISA 9.7.10.3-5), unified mode: the
//! texture is a 64-bit handle in a register, sampled or queried by `crate::tex` when the
//! instruction runs. Every geometry a texture object can have (1d, 2d, 3d, a1d, a2d, cube,
//! acube), `.base`, `.level` and `.grad`, offsets, the residency predicate and `.f16`/`.f16x2`
//! results are lowered. Refused at load with the instruction named: the multisample geometries
//! and depth compare (no CUDA texture descriptor can create a multisample or a comparing
//! texture), the independent mode (a `.samplerref`, or a `.texref` parameter), and
//! `txq.force_unnormalized_coords` (a sampler's). `txq.channel_data_type`/`channel_order`
//! answer in OpenCL's enumerations, the only ones the ISA names (5.3.3). A module-scope `.texref` variable names the
//! texture the driver binds to it (texture references), read from the variable at run time.

use super::*;

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
        let (handle, cs) = match parts.as_slice() {
            [h, c] => (h, c),
            [_, _, _] => return refuse(i, "an explicit sampler (the independent mode)"),
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
            })),
        );
        Ok(())
    }

    /// `txq{.level}.query.b32 d, [a]{, lod}` on a texture object.
    pub(super) fn txq(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
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
            if m.take("force_unnormalized_coords") {
                return refuse(i, "a .samplerref query (the independent mode)");
            }
            return unsupported(i);
        };
        if level && !matches!(query, TexQuery::Width | TexQuery::Height | TexQuery::Depth) {
            return unsupported(i);
        }
        m.take("b32");
        m.done()?;
        let ops_ = &i.operands;
        let handle = match ops_.get(1) {
            Some(O::Tuple(t)) if t.len() == 1 => &t[0],
            Some(O::Addr {
                base: Some(b),
                offset: 0,
            }) => {
                return self.txq_on(fc, i, g, query, level, b.as_ref());
            }
            _ => return unsupported(i),
        };
        let O::Name { name, .. } = handle else {
            return unsupported(i);
        };
        self.txq_on(fc, i, g, query, level, name)
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
            None => refuse(
                i,
                "a .texref parameter or a .samplerref (the independent mode)",
            ),
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
