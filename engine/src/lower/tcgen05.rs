//! Lowering of the `tcgen05` family (ISA 9.7.16) with `.cta_group::1` and `::2` (the CTA
//! pair's forms): Tensor Memory allocation (`alloc`, `dealloc`, `relinquish_alloc_permit`),
//! `ld` and `st` of every shape (with `.pack::16b` / `.unpack::16b`), `wait::ld` / `wait::st`,
//! the two `fence`s, `commit` to an mbarrier (and `.multicast::cluster` to those of a ctaMask),
//! `cp` from a shared-memory descriptor (every shape and multicast, the 4- and 6-bit
//! decompressions), `shift.down`, and `mma` of `.kind::f16`, `::tf32`, `::i8` and `::f8f6f4`
//! (dense, A from a shared-memory descriptor or Tensor Memory) and of the block-scaled
//! `.kind::mxf8f6f4`, `::mxf4` and `::mxf4nvf4` with `.cta_group::1` (their scale vector size
//! from `.scale_vec::NX`, `.block16` / `.block32` or the kind). Every asynchronous operation completes at
//! issue (a valid execution: its completion is observable only through `commit`'s mbarrier or
//! the waits, which then find it done), so the waits and fences order nothing more and are
//! `nop`s.
//!
//! Refused at load as unsupported, naming the instruction: `tcgen05.ld.red`, and `mma`'s
//! block-scaled kinds with `.cta_group::2`, `.sp`, `.ws` and `.ashift`.

use super::*;

impl<'a> Prog<'a> {
    pub(super) fn tcgen05(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        // `.cta_group::2`: the CTA pair's (9.7.16.5.1), the peer CTA's Tensor Memory too.
        let pair = m.take("cta_group::2");
        self.cta_pair |= pair;
        let group = m.take("cta_group::1") != pair;
        let word = i.mods.first().map(|w| w.as_str()).unwrap_or("");
        let ops = &i.operands;
        let sync = |m: &mut Mods| {
            if m.take("sync") && m.take("aligned") {
                Ok(())
            } else {
                invalid(i.pos, format!("'{}' needs .sync.aligned", i.full_name()))
            }
        };
        match word {
            "alloc" | "dealloc" | "relinquish_alloc_permit" if group => {
                m.take(word);
                sync(m)?;
                let op = match word {
                    "alloc" => {
                        let space = if m.take("shared::cta") {
                            Some(AS::Shared)
                        } else {
                            m.space()
                        };
                        if space.is_some_and(|s| s != AS::Shared) || !m.take("b32") {
                            return unsupported(i);
                        }
                        m.done()?;
                        self.need_ops(i, 2)?;
                        let (space, addr) = self.addr(fc, i, &ops[0], space)?;
                        let ncols = self.src(fc, i, g, &ops[1], T::U(32))?;
                        TmemOp::Alloc {
                            space,
                            addr,
                            ncols,
                            pair,
                        }
                    }
                    "dealloc" => {
                        if !m.take("b32") {
                            return unsupported(i);
                        }
                        m.done()?;
                        self.need_ops(i, 2)?;
                        let taddr = self.src(fc, i, g, &ops[0], T::B(32))?;
                        let ncols = self.src(fc, i, g, &ops[1], T::U(32))?;
                        TmemOp::Dealloc { taddr, ncols, pair }
                    }
                    _ => {
                        m.done()?;
                        self.need_ops(i, 0)?;
                        TmemOp::Relinquish
                    }
                };
                self.emit(i, g, Op::Matrix(Box::new(MatrixOp::Tmem(op))));
            }
            "ld" | "st" if !pair => {
                m.take(word);
                if m.take("red") {
                    return unsupported(i);
                }
                sync(m)?;
                let store = word == "st";
                let shape = [
                    ("16x64b", TmemShape::S16x64b),
                    ("16x128b", TmemShape::S16x128b),
                    ("16x256b", TmemShape::S16x256b),
                    ("32x32b", TmemShape::S32x32b),
                    ("16x32bx2", TmemShape::S16x32bx2),
                ]
                .into_iter()
                .find(|(w, _)| m.take(w))
                .map(|(_, s)| s);
                let num = (0..8).map(|k| 1u32 << k).find(|n| m.take(&format!("x{n}")));
                let pack = m.take(if store { "unpack::16b" } else { "pack::16b" });
                let (Some(shape), Some(num)) = (shape, num) else {
                    return unsupported(i);
                };
                if !m.take("b32") {
                    return unsupported(i);
                }
                m.done()?;
                // Registers per repetition (ISA table 49); .16x256b stops at .x32, .16x128b
                // at .x64.
                let per = match shape {
                    TmemShape::S16x128b => 2,
                    TmemShape::S16x256b => 4,
                    _ => 1,
                };
                if per * num > 128 {
                    return unsupported(i);
                }
                let split_op = shape == TmemShape::S16x32bx2;
                self.need_ops(i, 2 + split_op as usize)?;
                let (data, at) = if store { (1, 0) } else { (0, 1) };
                let regs = if store {
                    self.frag_srcs(fc, i, g, &ops[data], (per * num, 32))?
                } else {
                    let d = self.frag_dests(fc, i, &ops[data], per * num)?;
                    d.into_iter().map(Src::Reg).collect()
                };
                let taddr = match &ops[at] {
                    o @ O::Addr { .. } => self.addr(fc, i, o, None)?.1,
                    _ => return invalid(i.pos, format!("'{}' needs [taddr]", i.full_name())),
                };
                let split = match ops.get(2) {
                    Some(O::Int(v)) if split_op && (0..512).contains(v) => *v as u32,
                    None if !split_op => 0,
                    _ => {
                        return invalid(
                            i.pos,
                            format!("'{}': immHalfSplitoff must be a constant", i.full_name()),
                        )
                    }
                };
                let op = TmemOp::Ldst {
                    store,
                    shape,
                    num,
                    pack,
                    taddr,
                    split,
                    regs,
                };
                self.emit(i, g, Op::Matrix(Box::new(MatrixOp::Tmem(op))));
            }
            // Asynchronous operations complete at issue: nothing is left to wait for or order.
            "wait::ld" | "wait::st" => {
                m.take(word);
                sync(m)?;
                m.done()?;
                self.need_ops(i, 0)?;
                self.emit(i, g, Op::Nop);
            }
            "fence::before_thread_sync" | "fence::after_thread_sync" => {
                m.take(word);
                m.done()?;
                self.need_ops(i, 0)?;
                self.emit(i, g, Op::Nop);
            }
            // The mbarrier tracks the thread's earlier asynchronous tcgen05 operations, all
            // complete: its arrive-on (count 1) happens at once, and the warp yields, so that
            // the other warps see the phase complete before this one can start the next (a
            // CTA whose one warp issues the MMAs relies on it, as CuTe's tutorials do).
            "commit" if group => {
                m.take(word);
                if !m.take("mbarrier::arrive::one") {
                    return unsupported(i);
                }
                let multicast = m.take("multicast::cluster");
                let space = if m.take("shared::cluster") {
                    Some(AS::Shared)
                } else {
                    m.space()
                };
                if space.is_some_and(|s| s != AS::Shared) || !m.take("b64") {
                    return unsupported(i);
                }
                m.done()?;
                self.need_ops(i, 1 + multicast as usize)?;
                let (space, addr) = self.addr(fc, i, &ops[0], space)?;
                let mask = match multicast {
                    true => Some(self.src(fc, i, g, &ops[1], T::B(16))?),
                    false => None,
                };
                let op = Op::TcCommit { space, addr, mask };
                self.emit(i, g, op);
            }
            "cp" if group => {
                m.take(word);
                let shape = [
                    ("128x256b", CpShape::S128x256b),
                    ("128x128b", CpShape::S128x128b),
                    ("4x256b", CpShape::S4x256b),
                    ("64x128b", CpShape::S64x128bW0213),
                    ("32x128b", CpShape::S32x128bW4),
                ]
                .into_iter()
                .find(|(w, _)| m.take(w))
                .map(|(_, s)| s);
                // .64x128b needs a .warpx2 multicast and .32x128b .warpx4; the others none.
                let shape = match shape {
                    Some(CpShape::S64x128bW0213) if m.take("warpx2::02_13") => shape,
                    Some(CpShape::S64x128bW0213) if m.take("warpx2::01_23") => {
                        Some(CpShape::S64x128bW0123)
                    }
                    Some(CpShape::S32x128bW4) if m.take("warpx4") => shape,
                    Some(CpShape::S64x128bW0213 | CpShape::S32x128bW4) => None,
                    s => s,
                };
                let src_bits = match m.take("b8x16") {
                    false => 0,
                    true if m.take("b4x16_p64") => 4,
                    true if m.take("b6x16_p32") => 6,
                    true => return unsupported(i),
                };
                let Some(shape) = shape else {
                    return invalid(
                        i.pos,
                        format!(
                            "'{}': .64x128b needs .warpx2::02_13 or ::01_23, .32x128b \
                             .warpx4, the other shapes no multicast",
                            i.full_name()
                        ),
                    );
                };
                m.done()?;
                self.need_ops(i, 2)?;
                let taddr = match &ops[0] {
                    o @ O::Addr { .. } => self.addr(fc, i, o, None)?.1,
                    _ => return invalid(i.pos, format!("'{}' needs [taddr]", i.full_name())),
                };
                let desc = self.src(fc, i, g, &ops[1], T::B(64))?;
                let x = TcCopy {
                    shape: Some(shape),
                    src_bits,
                    taddr,
                    desc,
                    pair,
                };
                self.emit(i, g, Op::TcCopy(Box::new(x)));
            }
            "shift" if group => {
                m.take(word);
                if !m.take("down") {
                    return unsupported(i);
                }
                m.done()?;
                self.need_ops(i, 1)?;
                let taddr = match &ops[0] {
                    o @ O::Addr { .. } => self.addr(fc, i, o, None)?.1,
                    _ => return invalid(i.pos, format!("'{}' needs [taddr]", i.full_name())),
                };
                let x = TcCopy {
                    shape: None,
                    src_bits: 0,
                    taddr,
                    desc: Src::Imm(0),
                    pair,
                };
                self.emit(i, g, Op::TcCopy(Box::new(x)));
            }
            "mma" if group => {
                m.take(word);
                let kind = [
                    ("kind::f16", TcKind::F16),
                    ("kind::tf32", TcKind::Tf32),
                    ("kind::i8", TcKind::I8),
                    ("kind::f8f6f4", TcKind::F8f6f4),
                    ("kind::mxf8f6f4", TcKind::Mxf8f6f4),
                    ("kind::mxf4", TcKind::Mxf4),
                    ("kind::mxf4nvf4", TcKind::Mxf4nvf4),
                ]
                .into_iter()
                .find(|(w, _)| m.take(w))
                .map(|(_, k)| k);
                // The collector buffer is a permission to reuse A, which reading it afresh
                // at every issue never needs.
                m.ignore(&[
                    "collector::a::fill",
                    "collector::a::use",
                    "collector::a::lastuse",
                    "collector::a::discard",
                ]);
                let Some(kind) = kind else {
                    return unsupported(i);
                };
                let scaled = matches!(kind, TcKind::Mxf8f6f4 | TcKind::Mxf4 | TcKind::Mxf4nvf4);
                // `.block_scale` (which the ISA's own example leaves out) and the scale
                // vector size: `.block32` is 1X for mxf8f6f4 and 2X for the fp4 kinds,
                // `.block16` 4X; none is `.block32` but for mxf4nvf4, which must name it
                // (9.7.16.10.9.1, table 57).
                let vec = if scaled {
                    m.take("block_scale");
                    let named = [
                        ("scale_vec::1X", 1),
                        ("scale_vec::2X", 2),
                        ("scale_vec::4X", 4),
                        ("block16", 4),
                        ("block32", if kind == TcKind::Mxf8f6f4 { 1 } else { 2 }),
                    ]
                    .into_iter()
                    .find(|(w, _)| m.take(w))
                    .map(|(_, v)| v);
                    let vec = match (kind, named) {
                        (TcKind::Mxf8f6f4, None) => 1,
                        (TcKind::Mxf4, None) => 2,
                        (_, v) => v.unwrap_or(0),
                    };
                    let ok = match kind {
                        TcKind::Mxf8f6f4 => vec == 1,
                        TcKind::Mxf4 => vec == 2,
                        _ => vec == 2 || vec == 4,
                    };
                    if !ok {
                        return invalid(
                            i.pos,
                            format!(
                                "'{}': a scale vector size the kind does not take (ISA table 57)",
                                i.full_name()
                            ),
                        );
                    }
                    vec
                } else {
                    0
                };
                // The block-scaled kinds of the CTA pair are not taken yet.
                if m.done().is_err() || (scaled && pair) {
                    return unsupported(i);
                }
                // [d], a, b, idesc, {disable-output-lane,} enable-input-d {, scale-input-d};
                // the block-scaled kinds [d], a, b, idesc, [scale-A], [scale-B], enable-input-d.
                let masked = !scaled && matches!(ops.get(4), Some(O::Vector(_)));
                let want = if scaled { 7 } else { 5 + masked as usize };
                if !(want..=want + 1).contains(&ops.len()) {
                    return invalid(
                        i.pos,
                        format!("'{}' needs {want} or {} operands", i.full_name(), want + 1),
                    );
                }
                let scale_d = match ops.get(want) {
                    None => 0,
                    Some(O::Int(v))
                        if matches!(kind, TcKind::F16 | TcKind::Tf32) && (0..=15).contains(v) =>
                    {
                        *v as u8
                    }
                    _ => {
                        return invalid(
                            i.pos,
                            format!(
                                "'{}': scale-input-d is a constant from 0 to 15, of .kind::f16 \
                                 and ::tf32",
                                i.full_name()
                            ),
                        )
                    }
                };
                let tmem_addr = |s: &mut Self, o: &O, what: &str| match o {
                    o @ O::Addr { .. } => Ok(s.addr(fc, i, o, None)?.1),
                    _ => invalid(i.pos, format!("'{}' needs [{what}]", i.full_name())),
                };
                let scale = if scaled {
                    Some(TcScale {
                        a: tmem_addr(self, &ops[4], "scale-A-tmem")?,
                        b: tmem_addr(self, &ops[5], "scale-B-tmem")?,
                        vec,
                    })
                } else {
                    None
                };
                // Four words of the mask per CTA (ISA 9.7.16.10.9.1).
                let disable = if masked {
                    let words = if pair { 8 } else { 4 };
                    let mut v = self.frag_srcs(fc, i, g, &ops[4], (words, 32))?;
                    v.resize(8, Src::Imm(0));
                    Some([v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]])
                } else {
                    None
                };
                let d = tmem_addr(self, &ops[0], "d-tmem")?;
                let (a_tmem, a) = match &ops[1] {
                    o @ O::Addr { .. } => {
                        let a = self.addr(fc, i, o, None)?.1;
                        let base = a.base.map_or(Src::Imm(0), Src::Reg);
                        if a.off != 0 {
                            return unsupported(i);
                        }
                        (true, base)
                    }
                    o => (false, self.src(fc, i, g, o, T::B(64))?),
                };
                let b = self.src(fc, i, g, &ops[2], T::B(64))?;
                let idesc = self.src(fc, i, g, &ops[3], T::B(32))?;
                let enable_d = self.src(fc, i, g, &ops[want - 1], T::Pred)?;
                let x = TcMma {
                    kind,
                    scale,
                    d,
                    a_tmem,
                    a,
                    b,
                    idesc,
                    enable_d,
                    disable,
                    scale_d,
                    pair,
                };
                self.emit(i, g, Op::TcMma(Box::new(x)));
            }
            _ => return unsupported(i),
        }
        Ok(())
    }

    pub(super) fn need_ops(&self, i: &Instruction, k: usize) -> R<()> {
        if i.operands.len() != k {
            return invalid(i.pos, format!("'{}' needs {k} operand(s)", i.full_name()));
        }
        Ok(())
    }
}
