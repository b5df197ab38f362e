//! `tex`, `tld4` and `txq` by a warp: each lane's handle names a texture (`crate::tex`), whose
//! texels must still lie in live device memory; the sampling itself is `crate::tex`'s.

use super::cta::{Cta, Fault};
use super::regfile::*;
use super::warp::*;
use crate::handles::{LastLookup, RefKind};
use crate::ir::*;
use crate::tex::{self, Fetch, Lod, Texture};
use std::sync::Arc;

/// The texture lane `lane`'s handle `h` names, through the instruction's `.samplerref` if any;
/// its memory must still be allocated.
fn texture(
    warp: &Warp,
    cta: &Cta,
    pc: u32,
    lane: usize,
    h: u64,
    sampler: Option<&tex::Sampler>,
) -> Result<Arc<Texture>, Fault> {
    // A register may also hold a `.texref` variable's address (indirect access, PTX ISA 5.3):
    // the texture is the one bound to the variable now.
    let t = tex::TEXTURES
        .lookup(h)
        .or_else(|| {
            let bound = crate::handles::through_ref_variable(h, RefKind::Texture)?;
            tex::TEXTURES.lookup(bound)
        })
        .filter(|t| t.live())
        .ok_or_else(|| cta.fault_bad_texture(warp, pc, lane, h))?;
    Ok(match sampler {
        Some(s) => Arc::new(s.apply(&t)),
        None => t,
    })
}

impl Warp {
    /// `Op::Tex`: see there.
    pub(super) fn tex(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        op: &TexOp,
    ) -> Result<(), Fault> {
        let mut cached = LastLookup::new();
        let geom = op.geom;
        let (dims, first) = (geom.dims(), geom.indexed() as usize);
        for l in lanes(em) {
            let h = get(regs, op.tex, l);
            let t = cached.get(h, || texture(self, cta, pc, l, h, op.sampler.as_ref()))?;
            let bits = |s: Src| get(regs, s, l) as u32;
            let float = |s: Src| f32::from_bits(bits(s));
            let index = if geom.indexed() {
                bits(op.coords[0])
            } else {
                0
            };
            let coord = |k: usize| {
                if k < dims {
                    op.coords[first + k]
                } else {
                    Src::Imm(0)
                }
            };
            let offset = op.offset.map_or([0; 3], |e| e.map(|s| bits(s) as i32));
            let out: [u32; 4] = if op.int_coords {
                let level = match op.lod {
                    TexLod::Level(s) => bits(s) as i32,
                    _ => 0,
                };
                let ijk = [0, 1, 2].map(|k| bits(coord(k)) as i32 + offset[k]);
                let as_float = matches!(
                    op.result,
                    TexResult::F32 | TexResult::F16 | TexResult::F16x2
                );
                tex::fetch_texel(&t, geom, ijk, index, level, as_float)
            } else {
                let lod = match op.lod {
                    TexLod::Base => Lod::Base,
                    TexLod::Level(s) => Lod::Level(float(s)),
                    TexLod::Grad(dx, dy) => Lod::Grad(dx.map(float), dy.map(float)),
                };
                let f = Fetch {
                    geom,
                    coords: [0, 1, 2].map(|k| float(coord(k))),
                    index,
                    offset,
                    lod,
                };
                if let Some(comp) = op.gather {
                    tex::gather(&t, comp as usize, &f).map(f32::to_bits)
                } else if op.result != TexResult::S32 && op.result != TexResult::U32
                    || t.returns_float()
                {
                    tex::sample(&t, &f).map(f32::to_bits)
                } else {
                    tex::fetch_bits(&t, &f)
                }
            };
            // Half results: each channel rounded to f16, two to a register for `.f16x2`.
            let out = match op.result {
                TexResult::F16 => out.map(|v| tex::to_f16(f32::from_bits(v)) as u32),
                TexResult::F16x2 => {
                    let h = out.map(|v| tex::to_f16(f32::from_bits(v)) as u32);
                    [h[0] | h[1] << 16, h[2] | h[3] << 16, 0, 0]
                }
                _ => out,
            };
            for (k, r) in op.d.iter().enumerate() {
                if let Some(r) = r {
                    regs[*r as usize * 32 + l] = out[k] as u64;
                }
            }
            // Every texel of a texture object is resident (no sparse arrays).
            if let Some(p) = op.pred {
                regs[p as usize * 32 + l] = 1;
            }
        }
        Ok(())
    }

    /// `Op::Txq`: see there.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn txq(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        d: Reg,
        handle: Src,
        query: TexQuery,
        level: Option<Src>,
    ) -> Result<(), Fault> {
        let mut cached = LastLookup::new();
        for l in lanes(em) {
            let h = get(regs, handle, l);
            let t = cached.get(h, || texture(self, cta, pc, l, h, None))?;
            let level = level.map_or(0, |s| get(regs, s, l) as u32);
            regs[d as usize * 32 + l] = tex::query(&t, query, level) as u64;
        }
        Ok(())
    }
}
