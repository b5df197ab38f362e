//! Operand type checking (PTX ISA 9.4 and 9.4.1): every register operand's declared type must
//! agree with the type the instruction gives that operand, and every literal must be one the
//! operand's type admits. One pass over a function body, before anything is lowered, so that a
//! mismatch is reported at load (as the real driver's ptxas reports it at `cuModuleLoad`)
//! whether or not the executor runs the instruction.
//!
//! The rules, as the ISA states them and ptxas applies them (each verified with ptxas 13.5; the
//! cases are in `engine/tests/operand_types.rs`):
//! - Table 26 (9.4): a bit-size instruction type agrees with any register of its size; a signed
//!   or unsigned integer type with bit-size and integer registers of its size (and `.f16x2`
//!   ones, which ptxas treats as 32 raw bits there); a floating-point type only with its own
//!   type or a bit-size register of its size. Predicates agree only with predicates.
//! - 9.4.1 (Tables 27 and 28): the data operands of `ld`, `ldu`, `st` and `cvt` may be wider
//!   than the instruction type ("chopped" sources, zero/sign-extended destinations), except
//!   that a floating-point operand must still match a floating-point type exactly.
//! - Literals: an integer literal is no floating-point operand (`add.f32 d, a, 1` is rejected);
//!   a floating-point literal is no integer operand, and a raw-bits use needs the literal's own
//!   width (`0f` for `.b32`, `0d` or decimal for `.b64`).
//!
//! - Special registers (chapter 10) have their own types: `mov.u64 %rd, %tid.x` is rejected
//!   (`%tid` is .u32, which ptxas also reads into 16 bits), `mov.u32 %r, %clock64` too.
//!   They are read by `mov` and `cvt` only, with integer or bit-size types (ISA 10: "accessed
//!   through mov or cvt instructions"): `add.u32 %r, %tid.x, 1` and `cvt.rn.f32.u32 %f,
//!   %tid.x` are rejected. As elements of a vector operand ptxas accepts them anywhere, and
//!   checks such a vector's elements by size only.
//!
//! - `cvt` (9.7.9.21, 9.7.9.22): the packing forms have fixed operand sizes: `.f16x2`/`.bf16x2`
//!   from two `.f32`, fp8/fp6 pairs and `.ue8m0x2` in `.b16`, `.e2m1x2` in `.b8`, x4 types from
//!   a vector of four `.f32`, `.rs` random bits `.b32`, `cvt.pack` into a `.u32` from `.s32`
//!   sources. A conversion involving `.bf16`, `.bf16x2`, `.tf32` or a packed type checks every
//!   operand exactly (ptxas grants 9.4.1's wider registers to the classic types only).
//! - `wmma` (9.7.14.4.1): each matrix fragment is a vector of as many registers, of the type,
//!   as its shape and element type give; the stride is a `.u32`. `mma` and `mma.sp`
//!   (9.7.14.5, 9.7.14.6.2): the fragments of A, B, C and D, by shape and element size.
//! - `tex` (9.7.10.3): the destination vector, the coordinates by geometry (the array index a
//!   `.u32`), `lod`, the gradients, the offset and the depth compare value.
//!
//! Operands whose type the ISA defines independently of the instruction type (shift amounts,
//! bit-field positions, the predicates of `selp` and `setp`, the member masks of warp
//! collectives) are given explicitly per opcode. Instructions with a type word this module does
//! not model (packed integers, fp8, tf32, ...), and opcodes it has no signature for, are not
//! checked here: what is rejected is certainly invalid, never the other way round.

use crate::ptx::ast::{Function, Instruction, Operand as O, Pos, Space, Statement, VarDecl};
use crate::ptx::is_predefined_name;
use std::collections::HashMap;

/// A rejected operand: the instruction's position and the message.
type R<T> = Result<T, (Pos, String)>;

fn invalid<T>(pos: Pos, m: String) -> R<T> {
    Err((pos, m))
}

use super::words::{TyKind as K, TypeWord as Ty};

/// A type word: `Some(Some(t))` for a type this module checks, `Some(None)` for another type
/// word (its instruction is not checked), `None` for a word that is no type.
fn type_word(w: &str) -> Option<Option<Ty>> {
    Ty::parse(w).map(Ty::checked)
}

/// How a register operand's type must relate to the type the instruction gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// Table 26: same size, compatible kind.
    Exact,
    /// 9.4.1: the data operand of `ld`/`ldu`/`st`/`cvt` may be a wider register.
    Wider,
}

#[derive(Clone, Copy, Debug)]
enum W {
    /// Not checked here (addresses, symbols, immediates the instruction encodes, ...).
    Skip,
    T(Ty, Rule),
    /// A vector of exactly this many registers of this type (the matrix fragments of `wmma`).
    Vec(Ty, u8),
}

fn t(ty: Ty) -> W {
    W::T(ty, Rule::Exact)
}

/// Up to 8 operand types, without allocating (this runs for every instruction of a module).
#[derive(Clone, Copy)]
struct Sig {
    w: [W; 8],
    n: usize,
}

impl Sig {
    fn of(ws: &[W]) -> Sig {
        let n = ws.len().min(8);
        let mut s = Sig { w: [W::Skip; 8], n };
        s.w[..n].copy_from_slice(&ws[..n]);
        s
    }
    fn rep(w: W, n: usize) -> Sig {
        let n = n.min(8);
        let mut s = Sig { w: [W::Skip; 8], n };
        s.w[..n].fill(w);
        s
    }
    fn push(&mut self, w: W) {
        if self.n < self.w.len() {
            self.w[self.n] = w;
            self.n += 1;
        }
    }
}

/// The types an instruction gives its operands, in order, or `None` when it is not checked.
fn signature(i: &Instruction) -> Option<Sig> {
    // Most untyped instructions (bra, bar, ret, call) leave before their words are read.
    if matches!(
        i.opcode.as_str(),
        "bra" | "bar" | "ret" | "call" | "barrier" | "exit"
    ) {
        return None;
    }
    if i.opcode.as_str() == "cvt" {
        return cvt_signature(i);
    }
    if i.opcode.as_str() == "wmma" {
        return wmma_signature(i);
    }
    if i.opcode.as_str() == "mma" {
        return mma_signature(i);
    }
    let mut types = [Ty::PRED; 4];
    let mut nt = 0;
    for m in &i.mods {
        match type_word(m) {
            Some(Some(ty)) if nt < types.len() => {
                types[nt] = ty;
                nt += 1;
            }
            Some(_) => return None,
            None => {}
        }
    }
    let types = &types[..nt];
    let has = |w: &str| i.mods.iter().any(|m| m == w);
    let n = i.operands.len();
    let one = (types.len() == 1).then(|| types[0]);
    let all = |ty: Ty| Sig::rep(t(ty), n);
    Some(match i.opcode.as_str() {
        "mul" | "mad" if has("wide") => {
            let ty = one?;
            let mut v = Sig::of(&[t(ty.wide()), t(ty), t(ty)]);
            if i.opcode == "mad" {
                v.push(t(ty.wide()));
            }
            v
        }
        "add" | "sub" | "mul" | "mad" | "addc" | "subc" | "madc" | "mul24" | "mad24" | "sad"
        | "div" | "rem" | "abs" | "neg" | "min" | "max" | "and" | "or" | "xor" | "not" | "cnot"
        | "fma" | "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh"
        | "copysign" | "brev" | "prmt" | "cvta" | "activemask" => all(one?),
        // 9.4: "the shift amount operand ... always has type .u32".
        "shl" | "shr" => Sig::of(&[t(one?), t(one?), t(Ty::U32)]),
        "shf" => Sig::of(&[t(one?), t(one?), t(one?), t(Ty::U32)]),
        // 9.7.1.19/20: bit positions and lengths are .u32.
        "bfe" => Sig::of(&[t(one?), t(one?), t(Ty::U32), t(Ty::U32)]),
        "bfi" => Sig::of(&[t(one?), t(one?), t(one?), t(Ty::U32), t(Ty::U32)]),
        // 9.7.1.14/15/16: the count or position is a .u32 whatever the source type.
        "popc" | "clz" | "bfind" => Sig::of(&[t(Ty::U32), t(one?)]),
        // 9.7.8.6: d|p, a, b, c, immLut, q.
        "lop3" => Sig::of(&[t(one?), t(one?), t(one?), t(one?), W::Skip, t(Ty::PRED)]),
        // 9.7.6.2: p|q, a, b, {!}c.
        "setp" => Sig::of(&[t(Ty::PRED), t(one?), t(one?), t(Ty::PRED)]),
        // 9.7.6.1: set.cmp.dtype.stype d, a, b, {!}c.
        "set" if types.len() == 2 => Sig::of(&[t(types[0]), t(types[1]), t(types[1]), t(Ty::PRED)]),
        "selp" => Sig::of(&[t(one?), t(one?), t(one?), t(Ty::PRED)]),
        "slct" if types.len() == 2 => {
            Sig::of(&[t(types[0]), t(types[0]), t(types[0]), t(types[1])])
        }
        "testp" => Sig::of(&[t(Ty::PRED), t(one?)]),
        "mov" => Sig::of(&[t(one?), t(one?)]),
        "ld" | "ldu" => Sig::of(&[W::T(one?, Rule::Wider)]),
        "st" => Sig::of(&[W::Skip, W::T(one?, Rule::Wider)]),
        // 9.7.13.5: d, [a], b{, c}; a trailing cache policy is a .b64 the table does not check.
        "atom" => {
            let ty = one?;
            let mut v = Sig::of(&[t(ty), W::Skip, t(ty)]);
            if has("cas") {
                v.push(t(ty));
            }
            v
        }
        "red" => Sig::of(&[W::Skip, t(one?)]),
        // 9.7.9.5/6: every operand of shfl is .b32 (d|p takes the predicate of the pair).
        "shfl" => all(one?),
        // 9.7.13.8/9: vote.mode.pred d, {!}a, membermask / vote.ballot.b32 d, {!}a, membermask.
        "vote" => Sig::of(&[t(one?), t(Ty::PRED), t(Ty::B32)]),
        "redux" => Sig::of(&[t(one?), t(one?), t(Ty::B32)]),
        // 9.7.13.10: match.any.sync.type d, a, membermask: d is a .b32 mask.
        "match" => Sig::of(&[t(Ty::B32), t(one?), t(Ty::B32)]),
        // 9.7.1.22: bmsk.mode.b32 d, a, b; ptxas refuses an .f32 destination, so all three
        // are taken as .u32.
        "bmsk" => Sig::rep(t(Ty::U32), 3),
        // 9.7.1.23/24 dp4a/dp2a: 32-bit operands (packed bytes or halves, and the accumulator).
        "dp4a" | "dp2a" => Sig::rep(t(Ty::B32), 4),
        "nanosleep" => Sig::of(&[t(Ty::U32)]),
        // 9.7.9.23: mapa.type d, a, b: the target CTA rank b is a .u32.
        "mapa" => Sig::of(&[t(one?), t(one?), t(Ty::U32)]),
        // 9.7.13.15: the state of an mbarrier is a 64-bit integer (ptxas refuses an .f64
        // register for it), counts, phase parities and time hints are .u32, waitComplete a
        // predicate.
        "mbarrier" => {
            let (u64, u32) = (t(Ty::new(K::U, 64)), t(Ty::U32));
            match i.mods.first().map(|m| &**m) {
                Some("init" | "expect_tx" | "complete_tx") => Sig::of(&[W::Skip, u32]),
                Some("arrive" | "arrive_drop") => Sig::of(&[u64, W::Skip, u32]),
                Some("test_wait" | "try_wait") if has("parity") => {
                    Sig::of(&[t(Ty::PRED), W::Skip, u32, u32])
                }
                Some("test_wait" | "try_wait") => Sig::of(&[t(Ty::PRED), W::Skip, u64, u32]),
                Some("pending_count") => Sig::of(&[u32, u64]),
                _ => return None,
            }
        }
        // 9.7.13.14: elect.sync d|p, membermask.
        "elect" => Sig::of(&[t(Ty::B32), t(Ty::B32)]),
        _ => return None,
    })
}

/// The type of a `cvt` type word (ISA 9.7.9.21), and whether it is one of the types 9.4.1's
/// relaxed size rule applies to: ptxas lets the operands of a conversion between integer,
/// `.f16`, `.f16x2`, `.f32` and `.f64` types be wider registers, and checks every operand of
/// one involving `.bf16`, `.bf16x2`, `.tf32` or a packed fp8/fp6/fp4 type exactly.
fn cvt_type(w: &str) -> Option<(Ty, bool)> {
    let raw = |n: &'static str, bits| Some((Ty::new(K::Raw(n), bits), false));
    match w {
        // "For .tf32 instruction type, operand d has .b32 type."
        "tf32" => raw("tf32", 32),
        // "When converting to .e4m3x2/.e5m2x2 [.e2m3x2/.e3m2x2, .ue8m0x2] data formats, the
        // destination operand d has .b16 type"; from them, "source operand a has .b16 type".
        "e4m3x2" => raw("e4m3x2", 16),
        "e5m2x2" => raw("e5m2x2", 16),
        "e2m3x2" => raw("e2m3x2", 16),
        "e3m2x2" => raw("e3m2x2", 16),
        "ue8m0x2" => raw("ue8m0x2", 16),
        // ".e2m1x2 ... the destination operand d has .b8 type" (and the source, from it).
        "e2m1x2" => raw("e2m1x2", 8),
        // ".e5m2x4/.e4m3x4/.e3m2x4/.e2m3x4 ... the destination operand d has .b32 type"; four
        // 4-bit .e2m1 values make 16 bits (ptxas: .b16).
        "e4m3x4" => raw("e4m3x4", 32),
        "e5m2x4" => raw("e5m2x4", 32),
        "e2m3x4" => raw("e2m3x4", 32),
        "e3m2x4" => raw("e3m2x4", 32),
        "e2m1x4" => raw("e2m1x4", 16),
        _ => match type_word(w)?? {
            t if matches!(t.k, K::Bf | K::Bf2) => Some((t, false)),
            t => Some((t, true)),
        },
    }
}

/// 9.7.9.21 `cvt` and 9.7.9.22 `cvt.pack`: the operand types of every form.
fn cvt_signature(i: &Instruction) -> Option<Sig> {
    let n = i.operands.len();
    let words: Vec<&str> = i
        .mods
        .iter()
        .map(|m| &**m)
        .filter(|m| type_word(m).is_some())
        .collect();
    if i.mods.iter().any(|m| &**m == "pack") {
        // 9.7.9.22: cvt.pack.sat.convertType.abType{.cType} d, a, b{, c}: "Destination d is an
        // unsigned 32-bit integer", a and b are .s32, c is .b32; ptxas lets each be a wider
        // register (as the data operands of cvt, 9.4.1).
        let w = |ty| W::T(ty, Rule::Wider);
        let sig = [
            w(Ty::U32),
            w(Ty::new(K::S, 32)),
            w(Ty::new(K::S, 32)),
            w(Ty::B32),
        ];
        return (n == 3 || n == 4).then(|| Sig::of(&sig[..n]));
    }
    let [d, a] = words[..] else {
        return None;
    };
    let ((dt, dc), (at, ac)) = (cvt_type(d)?, cvt_type(a)?);
    let rule = if dc && ac { Rule::Wider } else { Rule::Exact };
    let (dw, aw) = (W::T(dt, rule), W::T(at, rule));
    // `rbits` of the .rs forms: "a .b32 type register operand" (ptxas: .b32 registers only).
    let rbits = t(Ty::new(K::Raw("b32"), 32));
    Some(match n {
        // cvt.dtype.atype d, a.
        2 => Sig::of(&[dw, aw]),
        // cvt.rs...f8x4type.f32 d, {a, b, e, f}, rbits.
        3 if matches!(i.operands[1], O::Vector(_)) => Sig::of(&[dw, aw, rbits]),
        // cvt.frnd2.f16x2.f32 d, a, b (and .bf16x2, the x2 fp8/fp6/fp4 types, .ue8m0x2).
        3 => Sig::of(&[dw, aw, aw]),
        // cvt.rs.f16x2.f32 d, a, b, rbits.
        4 => Sig::of(&[dw, aw, aw, rbits]),
        _ => return None,
    })
}

/// 9.7.14.4.1: the fragment of matrix `m` (`a`, `b`, `c`, `d`) of a `wmma` of this shape and
/// element type: how many registers, of which type. The element types are ptxas's: `.f16`
/// halves in `.f16x2` or `.b32` registers, `.u8`/`.s8` bytes and `.s32` accumulators in
/// integer or bit-size ones (no `.f16x2`, ptxas 13.5: "Arguments mismatch"), `.bf16` and `.tf32`
/// elements in `.b32` registers only, sub-byte and single-bit ones in any 32-bit register. The
/// `.f64` accumulator is two `.f64` registers (the ISA's table says one; ptxas requires two, as
/// for `mma.m8n8k4`, 9.7.14.5.14).
fn wmma_fragment(m: &str, shape: &str, ty: &str) -> Option<(Ty, u8)> {
    let ab = matches!(m, "a" | "b");
    let bits = Ty::new(K::Raw("b32"), 32);
    // Multiplicand counts: `sq` for m16n16k16, (A, B) for m8n32k16 and for m32n8k16.
    let count = |sq: u8, m8n32: (u8, u8), m32n8: (u8, u8)| -> Option<u8> {
        let (a, b) = match shape {
            "m16n16k16" => (sq, sq),
            "m8n32k16" => m8n32,
            "m32n8k16" => m32n8,
            _ => return None,
        };
        Some(if m == "a" { a } else { b })
    };
    Some(match (ty, ab) {
        ("f16", true) => (Ty::new(K::H2, 32), 8),
        ("f16", false) => (Ty::new(K::H2, 32), 4),
        ("f32", false) => (Ty::new(K::F, 32), 8),
        ("s32", false) => (
            INT32,
            if matches!(shape, "m8n8k32" | "m8n8k128") {
                2
            } else {
                8
            },
        ),
        ("u8" | "s8", true) => (Ty::new(K::Raw("u32"), 32), count(2, (1, 4), (4, 1))?),
        ("bf16", true) => (bits, count(4, (2, 8), (8, 2))?),
        ("tf32", true) if shape == "m16n16k8" => (bits, 4),
        ("f64", true) => (Ty::new(K::F, 64), 1),
        ("f64", false) => (Ty::new(K::F, 64), 2),
        ("u4" | "s4" | "b1", true) => (Ty::B32, 1),
        _ => return None,
    })
}

/// 9.7.14.4.3-5 `wmma.load`, `wmma.store`, `wmma.mma`: fragments are vectors of the registers
/// [`wmma_fragment`] gives, the stride a `.u32`.
fn wmma_signature(i: &Instruction) -> Option<Sig> {
    let mods: Vec<&str> = i.mods.iter().map(|m| &**m).collect();
    let shape = shape_word(&mods)?;
    let types: Vec<&str> = mods
        .iter()
        .copied()
        .filter(|m| type_word(m).is_some())
        .collect();
    let frag = |m: &str, ty: &str| wmma_fragment(m, shape, ty).map(|(t, n)| W::Vec(t, n));
    let stride = t(Ty::U32);
    Some(match (mods.first().copied(), mods.get(1).copied()) {
        (Some("load"), Some(m @ ("a" | "b" | "c"))) => {
            Sig::of(&[frag(m, types.last()?)?, W::Skip, stride])
        }
        (Some("store"), Some("d")) => Sig::of(&[W::Skip, frag("d", types.last()?)?, stride]),
        (Some("mma"), _) => {
            // `.dtype.ctype` (.f16 multiplicands) or `.dtype.atype.btype.ctype`.
            let (d, a, b, c) = match types[..] {
                [d, c] => (d, "f16", "f16", c),
                [d, a, b, c] => (d, a, b, c),
                _ => return None,
            };
            Sig::of(&[frag("d", d)?, frag("a", a)?, frag("b", b)?, frag("c", c)?])
        }
        _ => return None,
    })
}

/// A 32-bit integer fragment register of `wmma` and `mma` (9.7.14.4.1, 9.7.14.5.14,
/// 9.7.14.6.2): an integer or bit-size register, where ptxas 13.5 takes no `.f16x2` one (it
/// does for integer arithmetic, where `.s32` agrees with `.f16x2`).
const INT32: Ty = Ty::new(K::Raw("s32"), 32);

/// The geometry, destination type and coordinate type of a `tex` (9.7.10.3).
fn tex_types(i: &Instruction) -> Option<(&str, &str, &str)> {
    let geom = i.mods.iter().map(|m| &**m).find(|m| {
        matches!(
            *m,
            "1d" | "2d" | "3d" | "a1d" | "a2d" | "cube" | "acube" | "2dms" | "a2dms"
        )
    })?;
    let mut types = i
        .mods
        .iter()
        .map(|m| &**m)
        .filter(|w| type_word(w).is_some());
    let (d, c) = (types.next()?, types.next()?);
    types.next().is_none().then_some((geom, d, c))
}

/// 9.7.10.3 `tex.geom.v4.dtype.ctype d[|p], [a, {b,} c] {, lod | dPdx, dPdy} {, e} {, f}`, as
/// ptxas 13.5 checks it: calls `f(k, leaf, want)` for every element of `d` (the destination
/// type; `.f32` ones may be any 32-bit registers), of the coordinates `c` (the coordinate type,
/// any 32-bit register for `.f32`; the array index of a1d, a2d, acube and a2dms a `.u32`), for
/// `lod` (the coordinate type), the gradients (`.f32`), the offset `e` (`.s32`) and the depth
/// compare value `f` after it (`.f32`). The counts of `d`, `c`, `e` and the gradients are
/// checked by the caller.
fn tex_leaves(i: &Instruction, f: &mut dyn FnMut(usize, &O, Ty) -> R<()>) -> R<()> {
    let Some((geom, dt, ct)) = tex_types(i) else {
        return Ok(());
    };
    let dwant = match dt {
        "f32" => Ty::B32,
        "f16x2" => Ty::new(K::H2, 32),
        "u32" => Ty::U32,
        "s32" => Ty::new(K::S, 32),
        "f16" => Ty::new(K::B, 16),
        _ => return Ok(()),
    };
    let (cwant, lod) = match ct {
        "f32" => (Ty::B32, Ty::new(K::F, 32)),
        "s32" => (Ty::new(K::S, 32), Ty::new(K::S, 32)),
        _ => return Ok(()),
    };
    let f32 = Ty::new(K::F, 32);
    let mut each = |k: usize, o: &O, want: &dyn Fn(usize) -> Ty| -> R<()> {
        match o {
            O::Vector(v) => v.iter().enumerate().try_for_each(|(n, x)| f(k, x, want(n))),
            O::Name { .. } | O::Int(_) | O::Float { .. } => f(k, o, want(0)),
            _ => Ok(()),
        }
    };
    match i.operands.first() {
        Some(O::Pair(d, _)) => each(0, d, &|_| dwant)?,
        Some(d) => each(0, d, &|_| dwant)?,
        None => {}
    }
    if let Some(O::Tuple(t)) = i.operands.get(1) {
        if let Some(c) = t.last() {
            let array = geom.starts_with('a');
            each(1, c, &|n| if array && n == 0 { Ty::U32 } else { cwant })?;
        }
    }
    let mut k = 2;
    if i.mods.iter().any(|m| &**m == "level") {
        if let Some(o) = i.operands.get(k) {
            each(k, o, &|_| lod)?;
        }
        k += 1;
    } else if i.mods.iter().any(|m| &**m == "grad") {
        for k in k..k + 2 {
            if let Some(o) = i.operands.get(k) {
                each(k, o, &|_| f32)?;
            }
        }
        k += 2;
    }
    // `e` is a vector, `f` a scalar; ptxas does not check a lone scalar after the coordinates
    // (`tex.2d... [a, c], %r` with a .u32 %r assembles).
    let rest = i.operands.len().saturating_sub(k);
    for (k, o) in i.operands.iter().enumerate().skip(k) {
        match o {
            O::Vector(_) => each(k, o, &|_| Ty::new(K::S, 32))?,
            _ if rest == 2 => each(k, o, &|_| f32)?,
            _ => {}
        }
    }
    Ok(())
}

/// The `mMnNkK` shape word of a matrix instruction.
fn shape_word<'a>(mods: &[&'a str]) -> Option<&'a str> {
    mods.iter().copied().find(|m| {
        m.starts_with('m')
            && m.contains('n')
            && m.contains('k')
            && m.as_bytes().get(1).is_some_and(u8::is_ascii_digit)
    })
}

/// 9.7.14.5.1-13 and 9.7.14.6.2, the fragments of `mma` and `mma.sp`: each thread of the warp
/// holds M*K/32 elements of A (half of them for a sparse A), K*N/32 of B and M*N/32 of C and D,
/// packed into 32-bit registers (`.f64` ones for `.f64`); `.m8n8k4` with `.f16` works on quad
/// pairs (9.7.14.5.1: A and B two `.f16x2` registers, C and D four `.f16x2` or eight `.f32`).
/// Multiplicand registers of packed integer and fp8 types are taken as `.b32` (any 32-bit
/// register); the accumulators have their types. The operands after c (sparsity metadata,
/// block scales) are not checked here.
fn mma_signature(i: &Instruction) -> Option<Sig> {
    let mods: Vec<&str> = i.mods.iter().map(|m| &**m).collect();
    let shape = shape_word(&mods)?;
    let dims = |c: char| -> Option<u32> {
        let k = shape.find(c)? + 1;
        let end = shape[k..]
            .find(|x: char| !x.is_ascii_digit())
            .map_or(shape.len(), |e| k + e);
        shape[k..end].parse().ok()
    };
    let (m, n, k) = (dims('m')?, dims('n')?, dims('k')?);
    let sparse = mods.first()?.starts_with("sp");
    let types: Vec<&str> = mods
        .iter()
        .copied()
        .filter(|w| type_word(w).is_some())
        .collect();
    let [d, a, b, c, ..] = types[..] else {
        return None;
    };
    // `.e2m1` is stored in 4 bits with the mxf4 kinds, in 8 bits with f8f6f4 (9.7.14.5.14).
    let fp4_packed = mods.iter().any(|w| w.starts_with("kind::mxf4"));
    let bits = |ty: &str| -> Option<u32> {
        Some(match ty {
            "f16" | "bf16" => 16,
            "tf32" | "f32" | "s32" => 32,
            "f64" => 64,
            "e4m3" | "e5m2" | "e3m2" | "e2m3" | "u8" | "s8" => 8,
            "e2m1" if fp4_packed => 4,
            "e2m1" => 8,
            "u4" | "s4" => 4,
            "b1" => 1,
            _ => return None,
        })
    };
    // ptxas 13.5: dense `.bf16`/`.tf32` multiplicands only in `.b32` registers; with a sparse
    // A, it checks only the sizes of the `.bf16` multiplicands and of the `.f32` accumulators.
    let reg = |ty: &str, acc: bool| match ty {
        "f16" => Ty::new(K::H2, 32),
        "f64" => Ty::new(K::F, 64),
        "f32" if acc && sparse => Ty::B32,
        "f32" if acc => Ty::new(K::F, 32),
        // An `.s32` accumulator, sparse or not, is an integer or bit-size register (no `.f32`
        // nor `.f16x2` one, ptxas 13.5: "Arguments mismatch").
        "s32" if acc => INT32,
        "bf16" | "tf32" if !sparse => Ty::new(K::Raw("b32"), 32),
        _ => Ty::B32,
    };
    let frag = |ty: &str, elems: u32, acc: bool| -> Option<W> {
        let r = reg(ty, acc);
        let total = elems * bits(ty)?;
        (total.is_multiple_of(r.bits as u32) && total > 0)
            .then(|| W::Vec(r, (total / r.bits as u32) as u8))
    };
    let quad = (m, n, k) == (8, 8, 4) && a == "f16";
    let (ea, eb, ec) = if quad {
        (4, 4, 8)
    } else {
        (
            m * k / 32 / if sparse { 2 } else { 1 },
            k * n / 32,
            m * n / 32,
        )
    };
    Some(Sig::of(&[
        frag(d, ec, true)?,
        frag(a, ea, false)?,
        frag(b, eb, false)?,
        frag(c, ec, true)?,
    ]))
}

/// A register's declared type, `None` for a type this module does not check.
#[derive(Clone, Copy)]
struct Decl {
    ty: Option<Ty>,
    /// `.v2`/`.v4` (1 for a scalar register).
    vec: u32,
}

/// A multiply-rotate hash (FxHash's) for register names: short keys hashed once per operand
/// of every instruction, where SipHash's DoS resistance buys nothing.
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            self.0 =
                (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Map<'a, V> = HashMap<&'a str, V, std::hash::BuildHasherDefault<Fx>>;

/// Register declarations in scope: explicit names, and `%r<N>` ranges by prefix.
#[derive(Default)]
struct Scope<'a> {
    names: Map<'a, Decl>,
    ranges: Map<'a, (u32, Decl)>,
}

struct Checker<'a> {
    scopes: Vec<Scope<'a>>,
}

impl<'a> Checker<'a> {
    fn declare(&mut self, v: &'a VarDecl) {
        if v.space != Space::Reg {
            return;
        }
        let d = Decl {
            ty: type_word(&v.ty).flatten(),
            vec: v.vec,
        };
        let s = self.scopes.last_mut().expect("a scope");
        match v.count {
            Some(n) => {
                s.ranges.insert(&v.name, (n, d));
            }
            None => {
                s.names.insert(&v.name, d);
            }
        }
    }

    /// The element type and count of `name` when it is a vector register (`.reg .v2 .u32 v`).
    fn vector_reg(&self, name: &str) -> Option<(Ty, u32)> {
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, idx) = name.split_at(name.len() - digits);
        for s in self.scopes.iter().rev() {
            let d = s.names.get(name).or_else(|| {
                let (n, d) = s.ranges.get(prefix).filter(|_| digits > 0)?;
                (idx.parse::<u32>().ok()? < *n).then_some(d)
            });
            if let Some(d) = d {
                return (d.vec > 1).then_some((d.ty?, d.vec));
            }
        }
        None
    }

    /// `mov.bN` between a whole vector register and a scalar register or immediate of the same
    /// total width (`mov.b64 %rd, v` with `v` a `.v2.u32`, `mov.b32 v, %r` with `v` a `.v2.b16`),
    /// which ptxas 13.5 accepts in both directions and nowhere else: not with a `.uN`/`.fN`
    /// type, not between two vectors ("Illegal vector-vector operands for vector-scalar or
    /// scalar-vector mov instruction"). `None` when the mov names no whole vector register.
    fn mov_vector_scalar(&self, i: &Instruction) -> Option<R<()>> {
        let whole = |o: &O| match o {
            O::Name { name, comp: None } => self.vector_reg(name),
            _ => None,
        };
        let [d, a] = i.operands.as_slice() else {
            return None;
        };
        let (k, (ety, n), other) = match (whole(d), whole(a)) {
            (Some(v), None) => (0, v, a),
            (None, Some(v)) => (1, v, d),
            _ => return None,
        };
        if i.mods
            .iter()
            .any(|w| matches!(w.as_str(), "v2" | "v4" | "v8"))
        {
            return None;
        }
        let bits = i
            .mods
            .iter()
            .find_map(|w| w.strip_prefix('b')?.parse::<u16>().ok());
        let err = |what: &str| {
            Some(invalid(
                i.pos,
                format!(
                    "'{}': operand {} {what} (PTX ISA 9.7.9.10)",
                    i.full_name(),
                    k + 1
                ),
            ))
        };
        if matches!(other, O::Vector(_)) {
            return err(
                "is a whole vector register; a vector operand cannot be moved to or from it",
            );
        }
        match bits {
            Some(b) if b as u32 == ety.bits as u32 * n && i.mods.len() == 1 => {
                let want = Ty::new(K::B, b);
                Some(self.leaf(i, 1 - k, other, want, Rule::Exact, false))
            }
            _ => err(&format!(
                "is a vector of {n} {} registers; only mov.b{} moves it whole",
                ety.name(),
                ety.bits as u32 * n
            )),
        }
    }

    /// The declared type of register `name`, if it is one this module checks.
    fn reg(&self, name: &str) -> Option<Ty> {
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, idx) = name.split_at(name.len() - digits);
        for s in self.scopes.iter().rev() {
            if let Some(d) = s.names.get(name) {
                return d.ty;
            }
            if digits > 0 {
                if let (Some((n, d)), Ok(k)) = (s.ranges.get(prefix), idx.parse::<u32>()) {
                    if k < *n {
                        return d.ty;
                    }
                }
            }
        }
        None
    }

    fn stmts(&mut self, st: &'a [Statement]) -> R<()> {
        for s in st {
            match s {
                Statement::Var(v) => self.declare(v),
                Statement::Inst(i) => self.inst(i)?,
                Statement::Block(b) => {
                    self.scopes.push(Scope::default());
                    let r = self.stmts(b);
                    self.scopes.pop();
                    r?
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn inst(&self, i: &Instruction) -> R<()> {
        self.sreg_operands(i)?;
        if i.opcode.as_str() == "tex" {
            return self.tex(i);
        }
        if i.opcode.as_str() == "mov" {
            if let Some(r) = self.mov_vector_scalar(i) {
                return r;
            }
        }
        let Some(sig) = signature(i) else {
            return Ok(());
        };
        // Vector operands with a special register element: ptxas then checks every element
        // by its size only (`st.v2.f32 [a], {%tid.x, %r}` is accepted).
        let mut loose = 0u32;
        for (k, o) in i.operands.iter().enumerate().take(32) {
            if let O::Vector(v) = o {
                if v.iter().any(|x| self.sreg_name(x).is_some()) {
                    loose |= 1 << k;
                }
            }
        }
        leaves(i, &sig, &mut |k, o, want, rule| {
            self.leaf(i, k, o, want, rule, k < 32 && loose & (1 << k) != 0)
        })?;
        for (k, o) in i.operands.iter().enumerate() {
            if let O::Vector(v) = o {
                self.vector(i, k, v)?;
            }
            if let Some(&W::Vec(ty, n)) = sig.w[..sig.n].get(k) {
                let len = match o {
                    O::Vector(v) => v.len(),
                    _ => 0,
                };
                if len != n as usize {
                    let is = match o {
                        O::Vector(_) => format!("is a vector of {len}"),
                        _ => "is no vector".into(),
                    };
                    return invalid(
                        i.pos,
                        format!(
                            "'{}': operand {} {is}; the fragment is a vector of {n} {} registers \
                             (PTX ISA {})",
                            i.full_name(),
                            k + 1,
                            ty.name(),
                            if i.opcode.as_str() == "wmma" {
                                "9.7.14.4.1"
                            } else {
                                "9.7.14.5, 9.7.14.6.2"
                            }
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// 9.7.10.3 `tex`: the counts [`tex_leaves`] does not check, then the element types.
    fn tex(&self, i: &Instruction) -> R<()> {
        let Some((geom, _, _)) = tex_types(i) else {
            return Ok(());
        };
        let count = |k: usize, n: usize, what: String| {
            invalid(
                i.pos,
                format!(
                    "'{}': operand {} has {n} elements; {what} (PTX ISA 9.7.10.3)",
                    i.full_name(),
                    k + 1
                ),
            )
        };
        let dn = if i.mods.iter().any(|m| &**m == "v2") {
            2
        } else {
            4
        };
        let d = match i.operands.first() {
            Some(O::Pair(d, _)) => Some(&**d),
            d => d,
        };
        if let Some(O::Vector(v)) = d {
            if v.len() != dn {
                return count(0, v.len(), format!("the destination is a vector of {dn}"));
            }
        }
        if let Some(O::Tuple(t)) = i.operands.get(1) {
            let need = match geom {
                "1d" => 1,
                "2d" | "a1d" => 2,
                _ => 4,
            };
            let n = match t.last() {
                Some(O::Vector(v)) => v.len(),
                _ => need,
            };
            if n < need {
                return count(1, n, format!("a .{geom} texture takes {need} coordinates"));
            }
            // 9.7.10.3: under `.f32` the coordinates are floating point. ptxas 13.5 lets an
            // integer literal lead a vector of integer or bit-size registers (`{1, %r}`), but
            // not stand beside a floating-point register or literal ("Vector with elements of
            // different types"), nor fill the vector ("Arguments mismatch"); after the first
            // element it crashes (segmentation fault) in 1d, 2d, 3d and a1d (a2d takes it).
            if let (Some(O::Vector(v)), Some((_, _, "f32"))) = (t.last(), tex_types(i)) {
                let coords = &v[usize::from(geom.starts_with('a')).min(v.len())..];
                let float = |o: &O| match o {
                    O::Float { .. } => true,
                    O::Name { name, .. } => {
                        self.reg(name).is_some_and(|t| matches!(t.k, K::F | K::H2))
                    }
                    _ => false,
                };
                let is_int = |o: &O| matches!(o, O::Int(_));
                let int = coords.iter().any(is_int);
                let late =
                    matches!(geom, "1d" | "2d" | "3d" | "a1d") && v.iter().skip(1).any(is_int);
                if int && (late || coords.iter().any(float) || v.iter().all(is_int)) {
                    return invalid(
                        i.pos,
                        format!(
                            "'{}': operand 2 has an integer literal among .f32 coordinates \
                             (PTX ISA 9.7.10.3)",
                            i.full_name()
                        ),
                    );
                }
            }
        }
        // 9.7.10.3: the gradients have one element per dimension of the geometry (ptxas
        // 13.5: exactly; it also takes either 2 or 4 for .acube, which is left unchecked),
        // the offset at least that many (ptxas takes a .v4 offset for a 1d or 2d texture).
        let dims = match geom {
            "1d" | "a1d" => Some(1),
            "2d" | "a2d" => Some(2),
            "3d" | "cube" => Some(4),
            _ => None,
        };
        if let Some(dims) = dims {
            let len = |o: Option<&O>| match o {
                Some(O::Vector(v)) => Some(v.len()),
                _ => None,
            };
            let mut k = 2;
            if i.mods.iter().any(|m| &**m == "level") {
                k += 1;
            } else if i.mods.iter().any(|m| &**m == "grad") {
                for k in 2..4 {
                    if let Some(n) = len(i.operands.get(k)).filter(|&n| n != dims) {
                        return count(k, n, format!("a .{geom} gradient has {dims}"));
                    }
                }
                k += 2;
            }
            if let Some(n) = len(i.operands.get(k)).filter(|&n| n < dims && geom != "cube") {
                return count(k, n, format!("a .{geom} offset has {dims}"));
            }
        }
        // A floating-point literal among `.f32` coordinates (any 32-bit register there) is
        // one of `.f32`: ptxas 13.5 takes `{%f, 1.0}`.
        let f32 = Ty::new(K::F, 32);
        tex_leaves(i, &mut |k, o, want| {
            let want = match o {
                O::Float { .. } if want == Ty::B32 => f32,
                _ => want,
            };
            self.leaf(i, k, o, want, Rule::Exact, false)
        })
    }

    /// Whether `name` is a register declared in scope (of any type).
    fn declared(&self, name: &str) -> bool {
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, idx) = name.split_at(name.len() - digits);
        self.scopes.iter().any(|s| {
            s.names.contains_key(name)
                || (digits > 0
                    && matches!((s.ranges.get(prefix), idx.parse::<u32>()), (Some((n, _)), Ok(k)) if k < *n))
        })
    }

    /// The name of the special register `o` reads (`%tid` for `%tid.x`), if it is one.
    fn sreg_name<'o>(&self, o: &'o O) -> Option<&'o str> {
        match o {
            O::Name { name, .. } => {
                let name: &str = name;
                (name.starts_with('%') && is_predefined_name(name) && !self.declared(name))
                    .then_some(name)
            }
            _ => None,
        }
    }

    /// ISA chapter 10: special registers "are accessed through `mov` or `cvt` instructions".
    /// ptxas 13.5 rejects one as an operand of any other instruction ("Special register
    /// argument not allowed for instruction 'add'"), and of a `mov` or `cvt` with a
    /// floating-point type (`mov.f32`, `cvt.rn.f32.u32`); `mov.b32 %f, %tid.x` is accepted.
    /// Elements of a vector operand are exempt (ptxas accepts `st.v2.u32 [a], {%tid.x,
    /// %tid.y}`), and so is the guard (`@%is_explicit_cluster`).
    fn sreg_operands(&self, i: &Instruction) -> R<()> {
        fn scalar<'o>(o: &'o O, out: &mut Vec<&'o O>) {
            match o {
                O::Not(x) | O::Neg(x) => scalar(x, out),
                O::Pair(a, b) => {
                    scalar(a, out);
                    scalar(b, out);
                }
                O::Name { .. } => out.push(o),
                _ => {}
            }
        }
        let mut leaves = Vec::new();
        for o in &i.operands {
            scalar(o, &mut leaves);
        }
        let Some(name) = leaves.iter().find_map(|o| self.sreg_name(o)) else {
            return Ok(());
        };
        let op: &str = &i.opcode;
        let reader = matches!(op, "mov" | "cvt");
        let integer = i.mods.iter().all(|m| match type_word(m) {
            Some(Some(t)) => matches!(t.k, K::B | K::S | K::U | K::Pred),
            Some(None) => false,
            None => true,
        });
        if reader && integer {
            return Ok(());
        }
        let why = if reader {
            "with a floating-point type"
        } else {
            "other than mov and cvt"
        };
        invalid(
            i.pos,
            format!(
                "'{}': special register '{name}' is not allowed as an operand of an instruction \
                 {why} (PTX ISA 10)",
                i.full_name()
            ),
        )
    }

    /// The registers of one vector operand must agree with each other (ptxas: "Incompatible
    /// elements of vector expression"): one size, and no floating-point register beside an
    /// integer one (`{%r, %f}`), though a bit-size register goes with either.
    fn vector(&self, i: &Instruction, k: usize, v: &[O]) -> R<()> {
        // A special register element counts as a bit-size register of its width (ptxas:
        // `{%tid.x, %f}` is accepted, `{%tid.x, %h}` is not), and `%gridid` as 64 bits.
        let regs: Vec<(&str, Ty)> = v
            .iter()
            .filter_map(|o| match o {
                O::Name { name, .. } => match self.sreg_name(o) {
                    Some(s) => sreg_vector_type(s).map(|t| (s, bits_of(t))),
                    None => self.reg(name).map(|t| (&**name, t)),
                },
                _ => None,
            })
            .collect();
        let int = |t: Ty| matches!(t.k, K::S | K::U);
        // Every pair: `{%tid.x, %f, %r}` mixes .f32 and .u32 behind a bit-size first element.
        let pairs = regs
            .iter()
            .enumerate()
            .flat_map(|(x, &a)| regs[x + 1..].iter().map(move |&b| (a, b)));
        for ((a, ta), (b, tb)) in pairs {
            if tb.bits != ta.bits || (int(ta) && tb.k == K::F) || (ta.k == K::F && int(tb)) {
                return invalid(
                    i.pos,
                    format!(
                        "'{}': operand {}: vector elements '{a}' ({}) and '{b}' ({}) have \
                         incompatible types (PTX ISA 9.4)",
                        i.full_name(),
                        k + 1,
                        ta.name(),
                        tb.name()
                    ),
                );
            }
        }
        Ok(())
    }

    /// Checks one leaf `o` of operand `k` of `i` (a register or literal) against `want`.
    /// In a `loose` vector (one with a special register element), registers are checked by
    /// their size only.
    fn leaf(&self, i: &Instruction, k: usize, o: &O, want: Ty, rule: Rule, loose: bool) -> R<()> {
        let err = |what: String| {
            invalid(
                i.pos,
                format!(
                    "'{}': operand {} {what}; {} (PTX ISA {})",
                    i.full_name(),
                    k + 1,
                    requires(want, rule),
                    if rule == Rule::Wider { "9.4.1" } else { "9.4" }
                ),
            )
        };
        match o {
            // `%v.x` of a vector register has the register's element type; special registers,
            // symbols and labels are not registers declared here.
            O::Name { name, .. } if loose => {
                let ty = match self.sreg_name(o) {
                    Some(s) => sreg_vector_type(s),
                    None => self.reg(name),
                };
                match ty {
                    Some(ty) if !agrees(want, bits_of(ty), rule) => {
                        err(format!("'{name}' is {}", ty.name()))
                    }
                    _ => Ok(()),
                }
            }
            O::Name { name, .. } => match self.reg(name) {
                Some(ty) if !agrees(want, ty, rule) => {
                    err(format!("'{name}' is declared {}", ty.name()))
                }
                Some(_) => Ok(()),
                None => match sreg_type(name) {
                    // ptxas still reads the CTA geometry registers into 16-bit registers
                    // (`mov.u16 %rh, %tid.x`, the PTX 1.x idiom), none of the others.
                    Some((ty, legacy16)) => {
                        let legacy =
                            legacy16 && want.bits == 16 && matches!(want.k, K::B | K::S | K::U);
                        if agrees(want, ty, rule) || legacy {
                            Ok(())
                        } else {
                            err(format!("special register '{name}' is {}", ty.name()))
                        }
                    }
                    None => Ok(()),
                },
            },
            // ptxas: no integer literal for floating-point nor packed 16-bit integer operands
            // (`add.u16x2 %r, %r, 1` is rejected).
            O::Int(_) if matches!(want.k, K::F | K::H2 | K::Raw("u16x2" | "s16x2")) => {
                err("is an integer literal".into())
            }
            O::Float { single, .. } if !float_literal_ok(want, *single) => {
                let form = if *single {
                    "an 0f"
                } else {
                    "a double-precision"
                };
                err(format!("is {form} floating-point literal"))
            }
            _ => Ok(()),
        }
    }
}

/// Calls `f(k, leaf, want, rule)` for every typed leaf of every operand `k` of `i`: the operand
/// itself, the elements of a vector, both sides of a `d|p` pair, the predicate of `!p`.
fn leaves(i: &Instruction, sig: &Sig, f: &mut dyn FnMut(usize, &O, Ty, Rule) -> R<()>) -> R<()> {
    fn go(
        i: &Instruction,
        k: usize,
        o: &O,
        want: Ty,
        rule: Rule,
        top: bool,
        f: &mut dyn FnMut(usize, &O, Ty, Rule) -> R<()>,
    ) -> R<()> {
        match o {
            // `!p`: the predicate negated.
            O::Not(x) if want.k == K::Pred => go(i, k, x, want, rule, top, f),
            // `d|p`: the second register of the pair is a predicate (setp, shfl, lop3, ...).
            O::Pair(a, b) if top => {
                go(i, k, a, want, rule, false, f)?;
                go(i, k, b, Ty::PRED, Rule::Exact, false, f)
            }
            // `{a, b}`: the elements of a vector of ld/st/atom/red, and of `mov.v2/.v4`, each
            // have the instruction type; those of plain mov (packing, unpacking) split the
            // bit-size type evenly.
            O::Vector(v) if top => {
                let vector_mov = i.mods.iter().any(|m| m == "v2" || m == "v4");
                let want = if i.opcode == "mov" && !vector_mov {
                    if want.k != K::B || v.is_empty() || !want.bits.is_multiple_of(v.len() as u16) {
                        return Ok(());
                    }
                    Ty::new(K::B, want.bits / v.len() as u16)
                } else {
                    want
                };
                v.iter().try_for_each(|x| go(i, k, x, want, rule, false, f))
            }
            O::Name { .. } | O::Int(_) | O::Float { .. } => f(k, o, want, rule),
            _ => Ok(()),
        }
    }
    for (k, (o, w)) in i.operands.iter().zip(&sig.w[..sig.n]).enumerate() {
        match *w {
            W::T(ty, rule) => go(i, k, o, ty, rule, true, f)?,
            W::Vec(ty, _) => go(i, k, o, ty, Rule::Exact, true, f)?,
            W::Skip => {}
        }
    }
    Ok(())
}

/// Whether this module checks the operand types of `i` (it has a signature for its opcode and
/// models all its type words): for coverage counts.
pub fn is_checked(i: &Instruction) -> bool {
    signature(i).is_some() || (i.opcode.as_str() == "tex" && tex_types(i).is_some())
}

/// The registers `i` names where its signature gives a type, each with a register type that
/// agrees with it (`pred`, or the bit-size type of the operand's size) and whether a wider
/// register would do too (the data operands of ld/st/cvt, 9.4.1), in operand order. For code
/// that must declare registers a fragment uses without declaring (the ISA's examples).
pub fn implied_registers(i: &Instruction) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    let reg = |want: Ty| match want.k {
        K::Pred => "pred".to_string(),
        _ => format!("b{}", want.bits),
    };
    if i.opcode.as_str() == "tex" {
        let _ = tex_leaves(i, &mut |_, o, want| {
            if let O::Name { name, .. } = o {
                out.push((name.to_string(), reg(want), false));
            }
            Ok(())
        });
        return out;
    }
    let Some(sig) = signature(i) else {
        return out;
    };
    let _ = leaves(i, &sig, &mut |_, o, want, rule| {
        if let O::Name { name, .. } = o {
            out.push((name.to_string(), reg(want), rule == Rule::Wider));
        }
        Ok(())
    });
    out
}

/// The type of a special register (ISA chapter 10) read as an operand, and whether ptxas also
/// lets it be read into 16 bits. Verified with ptxas 13.5 (`mov.u64 %rd, %tid.x` and
/// `mov.u32 %r, %clock64` are rejected, `mov.u16 %rh, %ntid.y` accepted). Registers not listed
/// (`%gridid`, which ptxas reads at either width) are not checked.
fn sreg_type(name: &str) -> Option<(Ty, bool)> {
    let u64 = Ty::new(K::U, 64);
    Some(match name {
        "%tid" | "%ntid" | "%ctaid" | "%nctaid" => (Ty::U32, true),
        "%laneid" | "%warpid" | "%nwarpid" | "%smid" | "%nsmid" | "%clock" | "%lanemask_eq"
        | "%lanemask_le" | "%lanemask_lt" | "%lanemask_ge" | "%lanemask_gt"
        | "%dynamic_smem_size" | "%total_smem_size" | "%aggr_smem_size" | "%globaltimer_lo"
        | "%globaltimer_hi" | "%cluster_ctarank" | "%cluster_nctarank" | "%clusterid"
        | "%nclusterid" | "%cluster_ctaid" | "%cluster_nctaid" => (Ty::U32, false),
        // 10.23, 10.29: .u32 (ptxas reads neither into 16 nor 64 bits).
        "%clock_hi"
        | "%reserved_smem_offset_begin"
        | "%reserved_smem_offset_end"
        | "%reserved_smem_offset_cap"
        | "%reserved_smem_offset_0"
        | "%reserved_smem_offset_1" => (Ty::U32, false),
        "%clock64" | "%globaltimer" | "%current_graph_exec" => (u64, false),
        "%is_explicit_cluster" => (Ty::PRED, false),
        _ => {
            // 10.27: %envreg0 .. %envreg31, .b32.
            if let Some(n) = name.strip_prefix("%envreg") {
                return match n.parse::<u8>() {
                    Ok(0..=31) if !n.starts_with('0') || n == "0" => Some((Ty::B32, false)),
                    _ => None,
                };
            }
            let n = name.strip_prefix("%pm")?;
            match n.strip_suffix("_64") {
                Some(d) if d.len() == 1 && d.as_bytes()[0].is_ascii_digit() => (u64, false),
                None if n.len() == 1 && n.as_bytes()[0].is_ascii_digit() => (Ty::U32, false),
                _ => return None,
            }
        }
    })
}

/// The type of a special register as an element of a vector operand: its own type (`%gridid`
/// is 64 bits there; ptxas rejects `{%gridid, %r}`).
fn sreg_vector_type(name: &str) -> Option<Ty> {
    match name {
        "%gridid" => Some(Ty::new(K::U, 64)),
        _ => sreg_type(name).map(|(t, _)| t),
    }
}

/// A register type as a bit-size one of its width (predicates stay predicates).
fn bits_of(t: Ty) -> Ty {
    match t.k {
        K::Pred => t,
        _ => Ty::new(K::B, t.bits),
    }
}

/// Table 26 (`Exact`) and Tables 27/28 (`Wider`): does a register declared `reg` agree with an
/// operand of type `want`?
fn agrees(want: Ty, reg: Ty, rule: Rule) -> bool {
    if want.k == K::Pred || reg.k == K::Pred {
        return want.k == reg.k;
    }
    let size = if rule == Rule::Wider {
        reg.bits >= want.bits
    } else {
        reg.bits == want.bits
    };
    match want.k {
        K::B => size,
        K::S | K::U => matches!(reg.k, K::B | K::S | K::U | K::H2) && size,
        K::F => match reg.k {
            K::F => reg.bits == want.bits,
            K::B => size,
            _ => false,
        },
        K::H2 => matches!(reg.k, K::B | K::H2) && size,
        // ptxas takes the packed integer types in .f16x2 registers too (`min.u16x2 %r, %r,
        // %h2` assembles), not in .u32 ones.
        K::Raw("u16x2" | "s16x2") => matches!(reg.k, K::B | K::H2) && size,
        // Integer matrix fragments ([`INT32`]): no `.f16x2` register, unlike `.s32`/`.u32`.
        K::Raw("s32" | "u32") => matches!(reg.k, K::B | K::S | K::U) && size,
        K::Bf | K::Bf2 | K::Raw(_) | K::Other => reg.k == K::B && size,
        K::Pred => unreachable!(),
    }
}

/// Whether a floating-point literal (`0f` when `single`, else `0d` or decimal) may be an
/// operand of type `want` (ptxas: floating-point types take both forms; a bit-size type takes
/// the form of its own width; integer, `.f16` and predicate operands take none).
fn float_literal_ok(want: Ty, single: bool) -> bool {
    match want.k {
        K::F => want.bits >= 32,
        K::B => match want.bits {
            16 => false,
            32 => single,
            64 => !single,
            _ => true,
        },
        K::S | K::U | K::Pred | K::Raw("s32" | "u32") => false,
        // Not established against ptxas: accepted.
        K::H2 | K::Bf | K::Bf2 | K::Raw(_) | K::Other => true,
    }
}

/// What an operand of type `want` requires, for diagnostics.
fn requires(want: Ty, rule: Rule) -> String {
    let n = want.bits;
    let wider = rule == Rule::Wider;
    let size = if wider {
        format!("at least {n} bits")
    } else {
        format!("{n} bits")
    };
    match want.k {
        K::Pred => "the instruction requires a .pred register".into(),
        K::B => format!(
            "the instruction type {} requires a register of {size}",
            want.name()
        ),
        K::S | K::U => format!(
            "the instruction type {} requires a bit-size or integer register of {size}",
            want.name()
        ),
        K::F => format!(
            "the instruction type {} requires a {} register or a bit-size register of {size}",
            want.name(),
            want.name()
        ),
        K::H2 => format!(
            "the instruction type {} requires a .f16x2 or bit-size register of {size}",
            want.name()
        ),
        K::Bf | K::Bf2 | K::Raw(_) | K::Other => format!(
            "the instruction type {} requires a bit-size register of {size}",
            want.name()
        ),
    }
}

/// Checks the operand types of every instruction of `f`'s body (`body`).
pub fn check_function(f: &Function, body: &[Statement]) -> R<()> {
    let mut c = Checker {
        scopes: vec![Scope::default()],
    };
    // Register parameters of device functions (`.func (.reg .b32 r) f(.reg .u64 a)`).
    for p in f.ret_params.iter().chain(&f.params) {
        c.declare(p);
    }
    c.scopes.push(Scope::default());
    c.stmts(body)
}
