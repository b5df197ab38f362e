//! Lowering of the warp-level matrix instructions (ISA 9.7.14.4-5): `mma.sync`, `wmma.load`,
//! `wmma.store`, `wmma.mma`, `ldmatrix`, `stmatrix` and `movmatrix`, and of the warpgroup's
//! `wgmma` (9.7.15: every `wgmma.mma_async` and `wgmma.mma_async.sp` form of the ISA), into
//! [`Op::Matrix`].
//!
//! Taken: every `mma` shape and type of sm_70-sm_90 with f16, bf16, tf32, f64, s8/u8, s4/u4,
//! b1 and e4m3/e5m2 elements (the quad-pair m8n8k4 `.f16` form too), the sparse `mma.sp` (and
//! `::ordered_metadata`) of the f16, bf16, tf32, e4m3/e5m2 and integer types, every `wmma` shape
//! and type, the sm_120a `.kind::f8f6f4` and block-scaled `.kind::mxf8f6f4`, `.kind::mxf4` and
//! `.kind::mxf4nvf4` forms, the `.m8n8.b16` forms of ldmatrix/stmatrix/movmatrix and the 8-bit
//! ones of sm_100a (ldmatrix `.m16n16.trans` and `.m8n16` with their decompression, stmatrix
//! `.m16n8.trans`), and `mma.sp::ordered_metadata` of every kind, the block-scaled ones too.

use super::*;
use crate::sem::fragment::{per_lane, sparse_selectors, Role};
use crate::sem::mma::{BitOp, El, Scale};

/// `mNnNkN` as numbers.
fn shape(w: &str) -> Option<(u32, u32, u32)> {
    let rest = w.strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = rest.split_once('k')?;
    Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?))
}

/// Whether `mma` (`wmma` false) or `wmma.mma` computes with these shape and types.
fn valid_mma(wmma: bool, (m, n, k): (u32, u32, u32), a: El, b: El, c: El, d: El) -> bool {
    use El::*;
    let same_ab = a == b
        || (matches!(a, S8 | U8) && matches!(b, S8 | U8))
        || (matches!(a, S4 | U4) && matches!(b, S4 | U4))
        || (matches!(a, E4m3 | E5m2) && matches!(b, E4m3 | E5m2));
    let f16_acc = matches!(c, F16 | F32) && matches!(d, F16 | F32);
    let s = (m, n, k);
    same_ab
        && match (wmma, a) {
            (false, F16) if s == (8, 8, 4) => f16_acc && (c == F16 || d == F32),
            (false, F16) => matches!(s, (16, 8, 8) | (16, 8, 16)) && f16_acc,
            (false, E4m3 | E5m2) => {
                matches!(s, (16, 8, 16) | (16, 8, 32)) && matches!(c, F16 | F32) && c == d
            }
            (false, Bf16) => matches!(s, (16, 8, 8) | (16, 8, 16)) && c == F32 && d == F32,
            (false, Tf32) => matches!(s, (16, 8, 4) | (16, 8, 8)) && c == F32 && d == F32,
            (false, F64) => {
                matches!(s, (8, 8, 4) | (16, 8, 4) | (16, 8, 8) | (16, 8, 16))
                    && c == F64
                    && d == F64
            }
            (false, S8 | U8) => matches!(s, (8, 8, 16) | (16, 8, 16) | (16, 8, 32)),
            (false, S4 | U4) => matches!(s, (8, 8, 32) | (16, 8, 32) | (16, 8, 64)),
            (false, B1) => matches!(s, (8, 8, 128) | (16, 8, 128) | (16, 8, 256)),
            (true, F16) => matches!(s, (16, 16, 16) | (8, 32, 16) | (32, 8, 16)) && f16_acc,
            (true, Bf16) => matches!(s, (16, 16, 16) | (8, 32, 16) | (32, 8, 16)) && c == F32,
            (true, S8 | U8) => matches!(s, (16, 16, 16) | (8, 32, 16) | (32, 8, 16)),
            (true, Tf32) => s == (16, 16, 8) && c == F32,
            (true, F64) => s == (8, 8, 4) && c == F64,
            (true, S4 | U4) => s == (8, 8, 32),
            (true, B1) => s == (8, 8, 128),
            _ => false,
        }
        && (matches!(a, F16 | Bf16 | Tf32 | F64 | E4m3 | E5m2) || (c == S32 && d == S32))
        && (!matches!(a, Bf16 | Tf32) || d == F32)
}

/// Whether `mma.sp` computes with these shape and types (ISA 9.7.14.6.3).
fn valid_sparse((m, n, k): (u32, u32, u32), a: El, b: El, c: El, d: El) -> bool {
    use El::*;
    let ints = |x: El, y: El, set: [El; 2]| set.contains(&x) && set.contains(&y);
    (m, n) == (16, 8)
        && match a {
            F16 => b == F16 && matches!(k, 16 | 32) && matches!(c, F16 | F32) && c == d,
            Bf16 => b == Bf16 && matches!(k, 16 | 32) && c == F32 && d == F32,
            Tf32 => b == Tf32 && matches!(k, 8 | 16) && c == F32 && d == F32,
            S8 | U8 => ints(a, b, [S8, U8]) && matches!(k, 32 | 64) && c == S32 && d == S32,
            S4 | U4 => ints(a, b, [S4, U4]) && matches!(k, 64 | 128) && c == S32 && d == S32,
            E4m3 | E5m2 => matches!(b, E4m3 | E5m2) && k == 64 && c == F32 && d == F32,
            _ => false,
        }
}

/// Whether the sm_120a `mma.sync.kind::KIND` (ISA 9.7.14.5.14, Table 37), or `mma.sp` of it
/// (`sparse`, 9.7.14.6), computes with this shape, types `[a, b, c, d]`, `.scale_vec` and
/// scale type. `.scale_vec::4X` with `.ue8m0` for `.kind::mxf4nvf4` is PTX ISA 9.1's (ptxas
/// 13.5 takes it). Sparse (`mma.sp::ordered_metadata`, 9.7.14.6): every kind at twice the
/// dense K, m16n8k64 for `.kind::f8f6f4` and `.kind::mxf8f6f4`, m16n8k128 for the fp4 kinds.
fn valid_kind(
    kind: &str,
    sparse: bool,
    sh: (u32, u32, u32),
    [a, b, c, d]: [El; 4],
    vec: Option<u32>,
    stype: Option<Scale>,
) -> bool {
    use El::*;
    let f8f6f4 = |t: El| matches!(t, E4m3 | E5m2 | E3m2 | E2m3 | E2m1);
    let f32_acc = c == F32 && d == F32;
    // The K of the 8-bit-container kinds; the fp4 kinds' is twice it.
    let k8 = if sparse { 64 } else { 32 };
    match kind {
        "f8f6f4" => {
            sh == (16, 8, k8)
                && f8f6f4(a)
                && f8f6f4(b)
                && c == d
                && matches!(c, F16 | F32)
                && vec.is_none()
                && stype.is_none()
        }
        "mxf8f6f4" => {
            sh == (16, 8, k8)
                && f8f6f4(a)
                && f8f6f4(b)
                && f32_acc
                && matches!(vec, None | Some(1))
                && stype == Some(Scale::Ue8m0)
        }
        "mxf4" => {
            sh == (16, 8, 2 * k8)
                && (a, b) == (E2m1, E2m1)
                && f32_acc
                && matches!(vec, None | Some(2))
                && stype == Some(Scale::Ue8m0)
        }
        "mxf4nvf4" => {
            sh == (16, 8, 2 * k8)
                && (a, b) == (E2m1, E2m1)
                && f32_acc
                && matches!(
                    (vec, stype),
                    (Some(2), Some(Scale::Ue8m0)) | (Some(4), Some(_))
                )
        }
        _ => false,
    }
}

/// Registers of a fragment: `wmma`'s `.f16` multiplicands have eight whatever the shape.
fn frag_regs(wmma: bool, role: Role, (m, n, k): (u32, u32, u32), t: El) -> u32 {
    if wmma && role != Role::C && t == El::F16 {
        return 8;
    }
    per_lane(role, m, n, k).div_ceil(t.per_reg())
}

impl<'a> Prog<'a> {
    pub(super) fn matrix(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let words: Vec<String> = i.mods.iter().map(|w| w.to_string()).collect();
        for w in ["sync", "aligned"] {
            if !m.take(w) {
                return invalid(i.pos, format!("'{}' needs .{w}", i.full_name()));
            }
        }
        let op = match (i.opcode.as_str(), words.iter().any(|w| w == "mma")) {
            ("mma", _) => self.mma(fc, i, g, m, false)?,
            ("wmma", true) => {
                m.take("mma");
                self.mma(fc, i, g, m, true)?
            }
            ("wmma", false) => self.wmma_ldst(fc, i, g, m)?,
            ("ldmatrix" | "stmatrix", _) => self.ldst_matrix(fc, i, g, m)?,
            ("wgmma", _) => {
                // Fences and groups order the asynchronous operations, which run at issue here.
                if m.take("fence") || m.take("commit_group") {
                    m.done()?;
                    self.emit(i, g, Op::Nop);
                    return Ok(());
                }
                if m.take("wait_group") {
                    m.done()?;
                    return self.wait_group_nop(i, g, "wgmma.wait_group");
                }
                if !m.take("mma_async") {
                    return unsupported(i);
                }
                self.wgmma(fc, i, g, m)?
            }
            ("movmatrix", _) => {
                if !(m.take("m8n8") && m.take("trans") && m.take("b16")) || i.operands.len() != 2 {
                    return unsupported(i);
                }
                m.done()?;
                let d = self.dreg(fc, i, &i.operands[0])?;
                let a = self.src(fc, i, g, &i.operands[1], T::B(32))?;
                MatrixOp::Movmatrix { d, a }
            }
            _ => return unsupported(i),
        };
        self.emit(i, g, Op::Matrix(Box::new(op)));
        Ok(())
    }

    /// The operands of a brace-enclosed fragment of `n` registers.
    fn frag_items<'o>(&self, i: &Instruction, o: &'o O, n: u32) -> R<Vec<&'o O>> {
        let items: Vec<&O> = match o {
            O::Vector(v) => v.iter().collect(),
            o => vec![o],
        };
        if items.len() != n as usize {
            return invalid(
                i.pos,
                format!(
                    "'{}' needs a fragment of {n} registers, not {}",
                    i.full_name(),
                    items.len()
                ),
            );
        }
        Ok(items)
    }

    /// A source fragment of `n` registers of `bits`.
    pub(super) fn frag_srcs(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        o: &O,
        (n, bits): (u32, u32),
    ) -> R<Vec<Src>> {
        (self.frag_items(i, o, n)?.into_iter())
            .map(|o| self.src(fc, i, g, o, T::B(bits)))
            .collect()
    }

    /// A destination fragment of `n` registers.
    pub(super) fn frag_dests(&mut self, fc: &FnCtx, i: &Instruction, o: &O, n: u32) -> R<Vec<Reg>> {
        (self.frag_items(i, o, n)?.into_iter())
            .map(|o| self.dreg(fc, i, o))
            .collect()
    }

    fn mma(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
        wmma: bool,
    ) -> R<MatrixOp> {
        let Some(sh) = i.mods.iter().find_map(|w| shape(w)) else {
            return unsupported(i);
        };
        m.take(&format!("m{}n{}k{}", sh.0, sh.1, sh.2));
        // A's and B's layouts, in order. mma takes A by rows and B by columns, but for sm_70's
        // m8n8k4 with .f16 (any of the four); wmma's fragments do not depend on the layouts
        // the matrices were loaded with.
        let layouts: Vec<&str> = (i.mods.iter())
            .map(|w| w.as_str())
            .filter(|w| matches!(*w, "row" | "col"))
            .collect();
        let quad_pairs = !wmma && sh == (8, 8, 4) && i.mods.iter().any(|w| w == "f16");
        if layouts.len() != 2 || (!wmma && !quad_pairs && layouts != ["row", "col"]) {
            return unsupported(i);
        }
        let (a_row, b_col) = (layouts[0] == "row", layouts[1] == "col");
        for w in layouts {
            m.take(w);
        }
        let unordered = !wmma && m.take("sp");
        let sparse = unordered || (!wmma && m.take("sp::ordered_metadata"));
        let sat = m.take("satfinite");
        let bit_op = if m.take("xor") {
            Some(BitOp::Xor)
        } else if m.take("and") {
            Some(BitOp::And)
        } else {
            None
        };
        if bit_op.is_some() && !m.take("popc") {
            return unsupported(i);
        }
        let rnd = match m.rnd() {
            Rnd::None => Mode::Rn,
            r => match ieee_mode(r) {
                Some(md) => md,
                None => return unsupported(i),
            },
        };
        let kind = ["f8f6f4", "mxf8f6f4", "mxf4", "mxf4nvf4"]
            .into_iter()
            .find(|k| m.take(&format!("kind::{k}")));
        let block_scale = m.take("block_scale");
        let vec = [1, 2, 4]
            .into_iter()
            .find(|v| m.take(&format!("scale_vec::{v}X")));
        let mut type_words = m.types();
        // The block-scaled forms end with the scale factors' type.
        let stype = match block_scale {
            true => type_words.pop().and_then(|w| Scale::parse(&w)),
            false => None,
        };
        let types = el_types(i, &type_words)?;
        m.done()?;
        let (d_ty, mut a_ty, mut b_ty, c_ty) = match types[..] {
            // wmma.mma's .f16 form names only D's and C's types.
            [d, c] if wmma => (d, El::F16, El::F16, c),
            [d, a, b, c] => (d, a, b, c),
            _ => return unsupported(i),
        };
        let valid = match kind {
            Some(kind) => {
                // (ptxas 13.5 takes the sparse kinds with ::ordered_metadata only.)
                let ok = !wmma && !sat && bit_op.is_none() && rnd == Mode::Rn && !unordered;
                ok && valid_kind(kind, sparse, sh, [a_ty, b_ty, c_ty, d_ty], vec, stype)
            }
            None if block_scale || vec.is_some() => false,
            None if sparse => valid_sparse(sh, a_ty, b_ty, c_ty, d_ty),
            None => valid_mma(wmma, sh, a_ty, b_ty, c_ty, d_ty),
        };
        if !valid
            || (bit_op.is_some() != (a_ty == El::B1))
            || (sat && !matches!(a_ty, El::S8 | El::U8 | El::S4 | El::U4))
            || (rnd != Mode::Rn && a_ty != El::F64)
        {
            return unsupported(i);
        }
        // The fp4 of .kind::mxf4 and mxf4nvf4 comes two to a byte, not in 8-bit containers.
        if matches!(kind, Some("mxf4" | "mxf4nvf4")) {
            (a_ty, b_ty) = (El::E2m1x2, El::E2m1x2);
        }
        let want = 4 + 2 * sparse as usize + 4 * block_scale as usize;
        if i.operands.len() != want {
            return invalid(i.pos, format!("'{}' needs {want} operands", i.full_name()));
        }
        let bits = |t: El| if t == El::F64 { 64 } else { 32 };
        let ops = &i.operands;
        let n = |role, t| {
            if quad_pairs {
                // 9.7.14.5.1: A and B two .f16x2 registers, C and D four .f16x2 or eight .f32.
                match (role, t) {
                    (Role::C, El::F32) => 8,
                    _ => 2 * (role == Role::C) as u32 + 2,
                }
            } else {
                frag_regs(wmma, role, sh, t)
            }
        };
        let d = self.frag_dests(fc, i, &ops[0], n(Role::C, d_ty))?;
        // A sparse A packs its non-zero half as a dense A of half the K.
        let a_regs = if sparse {
            frag_regs(false, Role::A, (sh.0, sh.1, sh.2 / 2), a_ty)
        } else {
            n(Role::A, a_ty)
        };
        let a = self.frag_srcs(fc, i, g, &ops[1], (a_regs, bits(a_ty)))?;
        let b = self.frag_srcs(fc, i, g, &ops[2], (n(Role::B, b_ty), bits(b_ty)))?;
        let c = self.frag_srcs(fc, i, g, &ops[3], (n(Role::C, c_ty), bits(c_ty)))?;
        let sparse = if sparse {
            let meta = self.src(fc, i, g, &ops[4], T::B(32))?;
            let sels = sparse_selectors(sh.2, a_ty.bits());
            let sel = match ops[5] {
                O::Int(v) if (0..sels as i64).contains(&v) => v as u32,
                _ => {
                    return invalid(
                        i.pos,
                        format!(
                            "'{}': the sparsity selector must be a constant in 0..{}",
                            i.full_name(),
                            sels - 1
                        ),
                    )
                }
            };
            Some((meta, sel))
        } else {
            None
        };
        let scale = match (stype, vec) {
            (Some(stype), vec) if block_scale => {
                // After the sparse form's metadata and selector.
                let at = 4 + 2 * sparse.is_some() as usize;
                let mut word = |o: &O| self.src(fc, i, g, o, T::B(32));
                let (a, b) = (word(&ops[at])?, word(&ops[at + 2])?);
                let mut sel = |o: &O| -> R<[Src; 2]> {
                    let items = self.frag_items(i, o, 2)?;
                    Ok([
                        self.src(fc, i, g, items[0], T::B(16))?,
                        self.src(fc, i, g, items[1], T::B(16))?,
                    ])
                };
                let (a_sel, b_sel) = (sel(&ops[at + 1])?, sel(&ops[at + 3])?);
                // .kind::mxf4 defaults to 2X, .kind::mxf8f6f4 to 1X (mxf4nvf4 names one).
                let vec = vec.unwrap_or(if kind == Some("mxf4") { 2 } else { 1 });
                Some(Box::new(BlockScale {
                    stype,
                    vec,
                    a,
                    a_sel,
                    b,
                    b_sel,
                }))
            }
            _ => None,
        };
        Ok(MatrixOp::Mma(Mma {
            sparse,
            a_row,
            b_col,
            m: sh.0,
            n: sh.1,
            k: sh.2,
            a_ty,
            b_ty,
            c_ty,
            d_ty,
            wmma,
            sat,
            bit_op,
            rnd,
            kind: kind.is_some(),
            scale,
            d,
            a,
            b,
            c,
        }))
    }

    fn wgmma(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<MatrixOp> {
        let Some((64, n, k)) = i.mods.iter().find_map(|w| shape(w)) else {
            return unsupported(i);
        };
        m.take(&format!("m64n{n}k{k}"));
        let sparse = m.take("sp");
        let sat = m.take("satfinite");
        // `.b1` takes `.and.popc`, nothing else.
        let and = m.take("and");
        if and && !m.take("popc") {
            return unsupported(i);
        }
        let types = el_types(i, &m.types())?;
        m.done()?;
        let [d_ty, a_ty, b_ty] = types[..] else {
            return unsupported(i);
        };
        use El::*;
        // The K of the dense operation: a sparse A packs its rows into K/2.
        let kd = if sparse { k / 2 } else { k };
        // Integer and .b1 shapes: N up to 32 in steps of 8, then in steps of 16.
        let int_n = n <= 32 || n % 16 == 0;
        let ok = n % 8 == 0
            && (8..=256).contains(&n)
            && match a_ty {
                F16 => b_ty == F16 && kd == 16 && matches!(d_ty, F16 | F32),
                Bf16 => b_ty == Bf16 && kd == 16 && d_ty == F32,
                Tf32 => b_ty == Tf32 && kd == 8 && d_ty == F32,
                E4m3 | E5m2 => matches!(b_ty, E4m3 | E5m2) && kd == 32 && matches!(d_ty, F16 | F32),
                S8 | U8 => matches!(b_ty, S8 | U8) && kd == 32 && d_ty == S32 && int_n,
                B1 => b_ty == B1 && !sparse && k == 256 && d_ty == S32 && int_n,
                _ => false,
            }
            && (and == (a_ty == B1))
            && (!sat || matches!(a_ty, S8 | U8));
        if !ok {
            return unsupported(i);
        }
        let ops = &i.operands;
        let d_regs = if d_ty == F16 { n / 4 } else { n / 2 };
        let d = self.frag_dests(fc, i, &ops[0], d_regs)?;
        let a_in_regs = matches!(ops.get(1), Some(O::Vector(_)));
        // Every A fragment is four registers (of a dense A, or of a sparse A's packed half).
        let a_regs = 4;
        let (a_desc, a) = if a_in_regs {
            (None, self.frag_srcs(fc, i, g, &ops[1], (a_regs, 32))?)
        } else {
            (Some(self.src(fc, i, g, &ops[1], T::B(64))?), Vec::new())
        };
        let b_desc = self.src(fc, i, g, &ops[2], T::B(64))?;
        let float = matches!(a_ty, F16 | Bf16 | Tf32 | E4m3 | E5m2);
        // [sp-meta, sp-sel,] scale-d, then imm-scale-a, imm-scale-b (floats), then imm-trans-a
        // (A in shared memory) and imm-trans-b (f16 and bf16).
        let transposes = matches!(a_ty, F16 | Bf16);
        let first = 3 + 2 * sparse as usize;
        let want = first
            + 1
            + 2 * float as usize
            + (transposes && !a_in_regs) as usize
            + transposes as usize;
        if ops.len() != want {
            return invalid(i.pos, format!("'{}' needs {want} operands", i.full_name()));
        }
        let sparse = if sparse {
            let meta = self.src(fc, i, g, &ops[3], T::B(32))?;
            let sels = sparse_selectors(k, a_ty.bits());
            match ops[4] {
                O::Int(v) if (0..sels as i64).contains(&v) => Some((meta, v as u32)),
                _ => {
                    return invalid(
                        i.pos,
                        format!(
                            "'{}': the sparsity selector must be a constant in 0..{}",
                            i.full_name(),
                            sels - 1
                        ),
                    )
                }
            }
        } else {
            None
        };
        let scale_d = self.src(fc, i, g, &ops[first], T::Pred)?;
        let imm = |o: &O, ok: &[i64]| match o {
            O::Int(v) if ok.contains(v) => Ok(*v),
            _ => invalid(
                i.pos,
                format!("'{}': expected one of {ok:?}", i.full_name()),
            ),
        };
        let (mut neg_a, mut neg_b, mut trans_a, mut trans_b) = (false, false, false, false);
        if float {
            neg_a = imm(&ops[first + 1], &[1, -1])? == -1;
            neg_b = imm(&ops[first + 2], &[1, -1])? == -1;
        }
        if transposes {
            let mut next = first + 3;
            if !a_in_regs {
                trans_a = imm(&ops[next], &[0, 1])? == 1;
                next += 1;
            }
            trans_b = imm(&ops[next], &[0, 1])? == 1;
        }
        Ok(MatrixOp::Wgmma(Wgmma {
            n,
            k,
            sparse,
            a_ty,
            b_ty,
            d_ty,
            sat,
            d,
            a_desc,
            a,
            b_desc,
            scale_d,
            neg_a,
            neg_b,
            trans_a,
            trans_b,
        }))
    }

    fn wmma_ldst(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<MatrixOp> {
        let store = m.take("store");
        if !store && !m.take("load") {
            return unsupported(i);
        }
        let role = if store {
            m.take("d").then_some(Role::C)
        } else if m.take("a") {
            Some(Role::A)
        } else if m.take("b") {
            Some(Role::B)
        } else {
            m.take("c").then_some(Role::C)
        };
        let Some(role) = role else {
            return unsupported(i);
        };
        let row = m.take("row");
        if !row && !m.take("col") {
            return unsupported(i);
        }
        let Some(sh) = i.mods.iter().find_map(|w| shape(w)) else {
            return unsupported(i);
        };
        m.take(&format!("m{}n{}k{}", sh.0, sh.1, sh.2));
        let space = m.space();
        let el = match m.types().as_slice() {
            [t] => El::parse(t),
            _ => None,
        };
        m.done()?;
        let Some(el) = el else {
            return unsupported(i);
        };
        // The shape must be one wmma.mma takes with this element type.
        let ok = match role {
            Role::C => [El::F16, El::Bf16, El::S8, El::Tf32, El::F64, El::S4, El::B1]
                .iter()
                .any(|&a| valid_mma(true, sh, a, a, el, el)),
            _ => valid_mma(true, sh, el, el, acc_of(el), acc_of(el)),
        };
        if !ok || !matches!(space, None | Some(AS::Global) | Some(AS::Shared)) {
            return unsupported(i);
        }
        let ops = &i.operands;
        if !(2..=3).contains(&ops.len()) {
            return invalid(i.pos, format!("'{}' needs 2 or 3 operands", i.full_name()));
        }
        let (fo, ao) = if store {
            (&ops[1], &ops[0])
        } else {
            (&ops[0], &ops[1])
        };
        let bits = if el == El::F64 { 64 } else { 32 };
        let n = frag_regs(true, role, sh, el);
        let regs = if store {
            self.frag_srcs(fc, i, g, fo, (n, bits))?
        } else {
            self.frag_dests(fc, i, fo, n)?
                .into_iter()
                .map(Src::Reg)
                .collect()
        };
        let (space, addr) = self.addr(fc, i, ao, space)?;
        let stride = match ops.get(2) {
            Some(o) => Some(self.src(fc, i, g, o, T::U(32))?),
            None => None,
        };
        Ok(MatrixOp::Wmma {
            store,
            frag: Frag {
                role,
                m: sh.0,
                n: sh.1,
                k: sh.2,
                el,
            },
            row,
            space,
            addr,
            stride,
            regs,
        })
    }

    fn ldst_matrix(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<MatrixOp> {
        let store = i.opcode == "stmatrix";
        let num = ["x1", "x2", "x4"].iter().position(|w| m.take(w));
        let trans = m.take("trans");
        let space = m.space();
        // The 6- and 4-bit sources ldmatrix decompresses to bytes (`.b8x16.src_fmt`).
        let src_bits = match !store && m.take("b8x16") {
            true if m.take("b6x16_p32") => Some(6),
            true if m.take("b4x16_p64") => Some(4),
            true => None,
            false => Some(0),
        };
        let shape = if m.take("m8n8") && m.take("b16") && src_bits == Some(0) {
            Some(LdstShape::M8n8 { trans })
        } else if !store && trans && m.take("m16n16") && num != Some(2) {
            // 16x16 only .trans, .x1 or .x2; bytes, or decompressed ones.
            match src_bits {
                Some(0) if m.take("b8") => Some(LdstShape::M16n16 { src_bits: 0 }),
                Some(b) if b != 0 => Some(LdstShape::M16n16 { src_bits: b }),
                _ => None,
            }
        } else if !store && !trans && m.take("m8n16") && matches!(src_bits, Some(4 | 6)) {
            src_bits.map(|src_bits| LdstShape::M8n16 { src_bits })
        } else if store && trans && m.take("m16n8") && m.take("b8") {
            Some(LdstShape::M16n8)
        } else {
            None
        };
        m.done()?;
        let (Some(num), Some(shape)) = (num, shape) else {
            return unsupported(i);
        };
        if !matches!(space, None | Some(AS::Shared)) {
            return unsupported(i);
        }
        let ops = &i.operands;
        if ops.len() != 2 {
            return invalid(i.pos, format!("'{}' needs 2 operands", i.full_name()));
        }
        let (fo, ao) = if store {
            (&ops[1], &ops[0])
        } else {
            (&ops[0], &ops[1])
        };
        let n = (1 << num) * shape.regs() as u32;
        let regs = if store {
            self.frag_srcs(fc, i, g, fo, (n, 32))?
        } else {
            (self.frag_dests(fc, i, fo, n)?.into_iter())
                .map(Src::Reg)
                .collect()
        };
        let (space, addr) = self.addr(fc, i, ao, space)?;
        Ok(MatrixOp::Ldst {
            store,
            shape,
            space,
            addr,
            regs,
        })
    }
}

/// Type words (`Mods::types`) as element types (any other type word: unsupported).
fn el_types(i: &Instruction, words: &[String]) -> R<Vec<El>> {
    (words.iter())
        .map(|w| El::parse(w).map_or_else(|| unsupported(i), Ok))
        .collect()
}

/// The accumulator type `wmma.mma` pairs with multiplicands of `t`.
fn acc_of(t: El) -> El {
    match t {
        El::F16 | El::Bf16 | El::Tf32 => El::F32,
        El::F64 => El::F64,
        _ => El::S32,
    }
}
