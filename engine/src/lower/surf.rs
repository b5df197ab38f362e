//! Lowering of the surface instructions (ISA 9.7.11): the surface is a 64-bit handle, of a
//! surface object in a register (the unified mode) or bound by the driver to a `.surfref`
//! variable (the independent mode), looked up in `crate::surf` when the instruction runs. Every
//! form of the ISA's syntax is lowered: `suld.b` and `sust.b` in each geometry, vector width
//! and size, `sust.p`, `sured.b`/`.p` with the operations and types the ISA lists, and every
//! `suq` query. Refused at load with the instruction named: any combination the ISA's syntax
//! does not list. Indirect access (a register holding a `.surfref`'s address) cannot be told
//! from a surface object at load: `crate::exec::surface` finds the address among the
//! reference variables when it names no surface object, and reads the handle bound there.

use super::*;
use crate::surf::{Bound, Geom, Query};

impl<'a> Prog<'a> {
    pub(super) fn surf(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = i.opcode.as_str();
        if op == "suq" {
            return self.suq(fc, i, g, m);
        }
        let formatted = if m.take("p") {
            true
        } else if m.take("b") {
            false
        } else {
            return unsupported(i);
        };
        let red_op = if op == "sured" {
            let ops = [
                ("add", AtomOp::Add),
                ("min", AtomOp::Min),
                ("max", AtomOp::Max),
                ("and", AtomOp::And),
                ("or", AtomOp::Or),
            ];
            match ops.iter().find(|(w, _)| m.take(w)) {
                Some(&(_, o)) => Some(o),
                None => return unsupported(i),
            }
        } else {
            None
        };
        let geoms = [
            ("1d", Geom::D1),
            ("2d", Geom::D2),
            ("3d", Geom::D3),
            ("a1d", Geom::A1),
            ("a2d", Geom::A2),
        ];
        let Some(&(_, geom)) = geoms.iter().find(|(w, _)| m.take(w)) else {
            return unsupported(i);
        };
        // Cache operators change nothing a single coherent memory computes.
        m.ignore(&["ca", "cg", "cs", "cv", "wb", "wt"]);
        let vec = m.vec();
        let types = [
            ("b8", 8, false),
            ("b16", 16, false),
            ("b32", 32, false),
            ("b64", 64, false),
            ("u32", 32, false),
            ("s32", 32, true),
            ("u64", 64, false),
            ("s64", 64, true),
        ];
        let Some(&(ty, bits, signed)) = types.iter().find(|(w, ..)| m.take(w)) else {
            return unsupported(i);
        };
        let bounds = [
            ("trap", Bound::Trap),
            ("clamp", Bound::Clamp),
            ("zero", Bound::Zero),
        ];
        let Some(&(_, bound)) = bounds.iter().find(|(w, _)| m.take(w)) else {
            return unsupported(i);
        };
        m.done()?;
        // The combinations the ISA's syntax blocks list.
        let kind = match (op, red_op) {
            ("suld", _) if !formatted && ty.starts_with('b') => SurfKind::Load,
            ("sust", _) if !formatted && ty.starts_with('b') => SurfKind::Store,
            // ptxas 13.5 takes the array geometries for `.p` too (the ISA lists 1d, 2d, 3d).
            ("sust", _) if formatted && ty == "b32" => SurfKind::StoreFormatted,
            ("sured", Some(o)) if vec == 1 && !geom.indexed() => {
                let ok = if formatted {
                    ty == "b32" || (ty == "b64" && matches!(o, AtomOp::Min | AtomOp::Max))
                } else {
                    match o {
                        AtomOp::Add => matches!(ty, "u32" | "u64" | "s32"),
                        AtomOp::Min | AtomOp::Max => {
                            matches!(ty, "u32" | "s32" | "u64" | "s64")
                        }
                        AtomOp::And | AtomOp::Or => ty == "b32",
                        // (sured's words name none of the others.)
                        _ => false,
                    }
                };
                if !ok {
                    return unsupported(i);
                }
                SurfKind::Red(SurfRed {
                    op: o,
                    formatted,
                    signed,
                })
            }
            _ => return unsupported(i),
        };
        if !matches!(vec, 1 | 2 | 4) || (vec == 4 && bits == 64) {
            return unsupported(i);
        }
        let ops_ = &i.operands;
        if ops_.len() != 2 {
            return invalid(i.pos, format!("'{}' needs 2 operands", i.full_name()));
        }
        let (tuple, data) = if op == "suld" {
            (&ops_[1], &ops_[0])
        } else {
            (&ops_[0], &ops_[1])
        };
        let O::Tuple(parts) = tuple else {
            return unsupported(i);
        };
        let [handle, coords] = parts.as_slice() else {
            return unsupported(i);
        };
        let surf = self.handle(fc, i, g, handle)?;
        // The coordinate vector: a scalar or singleton for 1d, two for 2d, four for 3d (the
        // fourth ignored); the array forms put the layer index first (two and four elements).
        let cs: Vec<&O> = match coords {
            O::Vector(v) => v.iter().collect(),
            o => vec![o],
        };
        let want = match geom {
            Geom::D1 => 1,
            Geom::D2 | Geom::A1 => 2,
            // (Surfaces have no cube geometries: the lowering above names none.)
            Geom::D3 | Geom::A2 | Geom::Cube | Geom::ACube => 4,
        };
        if cs.len() != want {
            return invalid(
                i.pos,
                format!(
                    "'{}' needs a coordinate vector of {want} elements",
                    i.full_name()
                ),
            );
        }
        let (layer, xyz) = if geom.indexed() {
            (self.src(fc, i, g, cs[0], T::B(32))?, &cs[1..])
        } else {
            (Src::Imm(0), &cs[..])
        };
        let mut coords = [Src::Imm(0); 3];
        for (k, o) in xyz.iter().take(geom.dims()).enumerate() {
            coords[k] = self.src(fc, i, g, o, T::S(32))?;
        }
        let vals: Vec<&O> = match data {
            O::Vector(v) => v.iter().collect(),
            o => vec![o],
        };
        if vals.len() != vec as usize {
            return invalid(
                i.pos,
                format!("'{}' needs {vec} data operands", i.full_name()),
            );
        }
        let mut d = [None; 4];
        let mut c = [Src::Imm(0); 4];
        let dt = if bits == 8 {
            T::B(16)
        } else {
            T::B(bits as u32)
        };
        for (k, o) in vals.iter().enumerate() {
            if kind == SurfKind::Load {
                d[k] = self.opt_dreg(fc, i, o)?;
            } else {
                c[k] = self.src(fc, i, g, o, dt)?;
            }
        }
        self.emit(
            i,
            g,
            Op::Surf(Box::new(SurfOp {
                kind,
                surf,
                geom,
                coords,
                layer,
                d,
                c,
                vec,
                bits,
                bound,
            })),
        );
        Ok(())
    }

    /// `suq.query.b32 d, [a]`.
    fn suq(&mut self, fc: &FnCtx, i: &Instruction, g: Option<(Reg, bool)>, m: &mut Mods) -> R<()> {
        let Some(&(_, q)) = Query::WORDS.iter().find(|(w, _)| m.take(w)) else {
            return unsupported(i);
        };
        if !m.take("b32") {
            return unsupported(i);
        }
        m.done()?;
        let [dst, a] = i.operands.as_slice() else {
            return invalid(i.pos, format!("'{}' needs 2 operands", i.full_name()));
        };
        let handle = match a {
            O::Addr {
                base: Some(name),
                offset: 0,
            } => O::Name {
                name: name.to_string(),
                comp: None,
            },
            _ => return unsupported(i),
        };
        let surf = self.handle(fc, i, g, &handle)?;
        let d = self.opt_dreg(fc, i, dst)?;
        self.emit(
            i,
            g,
            Op::Surf(Box::new(SurfOp {
                kind: SurfKind::Query(q),
                surf,
                geom: Geom::D1,
                coords: [Src::Imm(0); 3],
                layer: Src::Imm(0),
                d: [d, None, None, None],
                c: [Src::Imm(0); 4],
                vec: 1,
                bits: 32,
                bound: Bound::Trap,
            })),
        );
        Ok(())
    }

    /// The surface operand: a `.u64` register holding a surface object (the unified mode), or
    /// a `.surfref` module variable (the independent mode), which holds the handle of the
    /// surface the driver bound to it (`cuSurfRefSetArray`; 0, no surface, until then). A
    /// `.surfref` kernel parameter never gets here: the kernel is refused (`lower_kernel`).
    fn handle(&mut self, fc: &FnCtx, i: &Instruction, g: Option<(Reg, bool)>, o: &O) -> R<Src> {
        // ptxas takes no variable there but a module-scope `.surfref` ("`.surfref` or `.u64`
        // register expected").
        match o {
            O::Name { name, comp: None } => self
                .opaque_handle(fc, i, g, name, "surfref")?
                .map_or_else(|| unsupported(i), Ok),
            _ => unsupported(i),
        }
    }
}
