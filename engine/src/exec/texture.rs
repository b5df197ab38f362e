//! `tex` and `tld4` by a warp: each lane's handle names a texture (`crate::tex`), whose texels
//! must still lie in live device memory; the sampling itself is `crate::tex`'s.

use super::cta::{Cta, Fault};
use super::regfile::*;
use super::warp::*;
use crate::ir::*;
use crate::tex::{self, Texture};
use std::sync::Arc;

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
        let TexOp {
            d,
            tex: handle,
            coords,
            dims,
            int_coords,
            result,
            gather,
        } = *op;
        // Lanes almost always share one handle: look it up once per distinct handle.
        let mut cached: Option<(u64, Arc<Texture>)> = None;
        for l in lanes(em) {
            let h = get(regs, handle, l);
            let t = match &cached {
                Some((ch, t)) if *ch == h => t.clone(),
                _ => {
                    let t = tex::lookup(h)
                        // Its memory must still be allocated.
                        .filter(|t| crate::mem::contains(t.base, t.extent()))
                        .ok_or_else(|| cta.fault_bad_texture(self, pc, l, h))?;
                    cached = Some((h, t.clone()));
                    t
                }
            };
            let c = |k: usize| get(regs, coords[k], l);
            let out: [u32; 4] = if let Some(comp) = gather {
                let xy = [f32::from_bits(c(0) as u32), f32::from_bits(c(1) as u32)];
                tex::gather(&t, comp as usize, xy).map(f32::to_bits)
            } else if int_coords {
                let ijk = [0, 1, 2].map(|k| if k < dims as usize { c(k) as i32 } else { 0 });
                tex::fetch_texel(&t, dims as usize, ijk, result == TexResult::F32)
            } else {
                let xyz = [0, 1, 2].map(|k| {
                    if k < dims as usize {
                        f32::from_bits(c(k) as u32)
                    } else {
                        0.0
                    }
                });
                if result == TexResult::F32 || t.returns_float() {
                    tex::sample(&t, dims as usize, xyz).map(f32::to_bits)
                } else {
                    tex::fetch_bits(&t, dims as usize, xyz)
                }
            };
            for (k, r) in d.iter().enumerate() {
                if let Some(r) = r {
                    regs[*r as usize * 32 + l] = out[k] as u64;
                }
            }
        }
        Ok(())
    }
}
