//! Lowering of `tex` and `tld4` on texture objects (ISA 9.7.10.3-4), unified mode: the texture
//! is a 64-bit handle in a register, sampled by `crate::tex` when the instruction runs. The
//! forms that are not run yet are refused at load with the instruction named: array, cube and
//! multisample geometries, explicit level, bias or gradients (`.level`, `.grad`), offsets,
//! depth compare, the predicate destination, f16 results, and the independent mode (a
//! `.texref` with a `.samplerref`).

use super::*;

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
            // `.base` names the base level, which a texture without mipmaps always samples.
            m.take("base");
            None
        };
        let dims = match ["1d", "2d", "3d"].iter().position(|w| m.take(w)) {
            Some(d) => d as u8 + 1,
            None => return unsupported(i),
        };
        if (gather.is_some() && dims != 2) || m.vec() != 4 {
            return unsupported(i);
        }
        let types = m.types();
        let result = match types.first().map(String::as_str) {
            Some("f32") => TexResult::F32,
            Some("s32") => TexResult::S32,
            Some("u32") => TexResult::U32,
            _ => return unsupported(i),
        };
        let int_coords = match types.get(1).map(String::as_str) {
            Some("f32") => false,
            Some("s32") if gather.is_none() => true,
            _ => return unsupported(i),
        };
        m.done()?;
        let ops_ = &i.operands;
        let (O::Vector(ds), 2) = (&ops_[0], ops_.len()) else {
            return unsupported(i);
        };
        let O::Tuple(parts) = &ops_[1] else {
            return unsupported(i);
        };
        let [handle, O::Vector(cs)] = parts.as_slice() else {
            return unsupported(i);
        };
        // A `.texref` variable (or any name that is not a register) is the independent mode.
        let O::Name { name, .. } = handle else {
            return unsupported(i);
        };
        if !matches!(self.lookup(fc, name), Some(Sym::Reg(_))) {
            return unsupported(i);
        }
        // The coordinate vector has 1, 2 or 4 elements (a 3-D one is padded to 4).
        if ds.len() != 4 || cs.len() < dims as usize {
            return invalid(
                i.pos,
                format!(
                    "'{}' needs 4 destinations and {dims} coordinates",
                    i.full_name()
                ),
            );
        }
        let mut d = [None; 4];
        for (k, o) in ds.iter().enumerate() {
            d[k] = self.opt_dreg(fc, i, o)?;
        }
        let tex = self.src(fc, i, g, handle, T::B(64))?;
        let ct = if int_coords { T::S(32) } else { T::F(32) };
        let mut coords = [Src::Imm(0); 3];
        for (k, o) in cs.iter().take(dims as usize).enumerate() {
            coords[k] = self.src(fc, i, g, o, ct)?;
        }
        self.emit(
            i,
            g,
            Op::Tex(TexOp {
                d,
                tex,
                coords,
                dims,
                int_coords,
                result,
                gather,
            }),
        );
        Ok(())
    }
}
