//! Which lowering an instruction goes to, as data: the routes of each opcode in order, each a
//! condition on the instruction's modifiers and the family function that lowers it. The first
//! route whose condition holds takes the instruction; an opcode with no route that holds is
//! lowered by its arm in `inst.rs` (instructions whose lowering is a few lines of its own).
//!
//! The order matters where forms of one opcode go to different families: `add.cc` is carry
//! arithmetic, `add.u16x2` packed integers, `add.f32x2` packed floats, `add.f16` half precision,
//! and only then is `add` the plain binary operation.

use super::*;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A family's lowering: the function context, the instruction, its guard and its modifiers.
pub(super) type Lower = for<'p, 'm> fn(
    &mut Prog<'p>,
    &mut FnCtx,
    &Instruction,
    Option<(Reg, bool)>,
    &mut Mods<'m>,
) -> R<()>;

struct Route {
    opcodes: &'static [&'static str],
    when: fn(&Instruction) -> bool,
    lower: Lower,
}

fn always(_: &Instruction) -> bool {
    true
}
pub(super) fn has(i: &Instruction, w: &str) -> bool {
    i.mods.iter().any(|x| x == w)
}
pub(super) fn has_any(i: &Instruction, ws: &[&str]) -> bool {
    i.mods.iter().any(|x| ws.contains(&x.as_str()))
}
fn first(i: &Instruction, w: &str) -> bool {
    i.mods.first().is_some_and(|x| x == w)
}
fn half_typed(i: &Instruction) -> bool {
    i.mods.iter().any(|w| half::is_half_word(w))
}
/// `cvt` forms with a narrow format, packing, or a modifier only they have.
fn narrow_cvt(i: &Instruction) -> bool {
    i.mods.iter().any(|w| {
        matches!(
            w.as_str(),
            "relu" | "satfinite" | "rna" | "rs" | "bf16" | "tf32"
        ) || w.ends_with("x2")
            || w.ends_with("x4")
    })
}

const BINARY: &[&str] = &[
    "add", "sub", "mul", "div", "rem", "min", "max", "and", "or", "xor", "shl", "shr", "copysign",
];
const UNARY: &[&str] = &[
    "neg", "abs", "not", "cnot", "popc", "clz", "brev", "sqrt", "rcp", "rsqrt", "ex2", "lg2",
    "sin", "cos", "tanh", "testp",
];
const HALF: &[&str] = &[
    "add", "sub", "mul", "fma", "neg", "abs", "min", "max", "ex2", "tanh",
];
const INT_MISC: &[&str] = &[
    "mul24", "mad24", "sad", "bfind", "fns", "szext", "bmsk", "dp4a", "dp2a",
];
const VIDEO: &[&str] = &[
    "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset",
];
const VIDEO_SIMD: &[&str] = &[
    "vadd2",
    "vsub2",
    "vavrg2",
    "vabsdiff2",
    "vmin2",
    "vmax2",
    "vset2",
    "vadd4",
    "vsub4",
    "vavrg4",
    "vabsdiff4",
    "vmin4",
    "vmax4",
    "vset4",
];
const CLUSTER_MISC: &[&str] = &[
    "applypriority",
    "discard",
    "createpolicy",
    "griddepcontrol",
    "setmaxnreg",
    "mapa",
    "getctarank",
];

static ROUTES: &[Route] = &[
    Route {
        opcodes: &["addc", "subc", "madc"],
        when: always,
        lower: |p, fc, i, g, m| p.carry(fc, i, g, m),
    },
    Route {
        opcodes: &["add", "sub", "mad"],
        when: |i| has(i, "cc"),
        lower: |p, fc, i, g, m| p.carry(fc, i, g, m),
    },
    Route {
        opcodes: &["add", "min", "max"],
        when: |i| has_any(i, &["u16x2", "s16x2"]),
        lower: |p, fc, i, g, m| p.packed_int(fc, i, g, m),
    },
    Route {
        opcodes: &["min", "max"],
        when: |i| has(i, "f32") && has_any(i, &["NaN", "xorsign"]),
        lower: |p, fc, i, g, m| p.minmax_f32_ext(fc, i, g, m),
    },
    Route {
        opcodes: &["mov", "ld", "ldu", "st", "atom"],
        when: |i| has(i, "b128"),
        lower: |p, fc, i, g, m| p.b128(fc, i, g, m),
    },
    Route {
        opcodes: &["add", "sub", "mul", "fma"],
        when: |i| has(i, "f32x2"),
        lower: |p, fc, i, g, m| p.f32x2(fc, i, g, m),
    },
    Route {
        opcodes: HALF,
        when: half_typed,
        lower: |p, fc, i, g, m| p.half(fc, i, g, m),
    },
    Route {
        opcodes: &["setp"],
        when: half_typed,
        lower: |p, fc, i, g, m| p.half_setp(fc, i, g, m),
    },
    Route {
        opcodes: &["set"],
        when: always,
        lower: |p, fc, i, g, m| p.set(fc, i, g, m),
    },
    Route {
        opcodes: &["cvt"],
        when: |i| has(i, "pack"),
        lower: |p, fc, i, g, m| p.cvt_pack(fc, i, g, m),
    },
    Route {
        opcodes: &["cvt"],
        when: narrow_cvt,
        lower: |p, fc, i, g, m| p.cvt_narrow(fc, i, g, m),
    },
    Route {
        opcodes: &["tensormap"],
        when: |i| has(i, "cp_fenceproxy"),
        lower: |p, fc, i, g, m| p.tensormap_cp_fenceproxy(fc, i, g, m),
    },
    Route {
        opcodes: &["tensormap"],
        when: |i| has(i, "replace"),
        lower: |p, fc, i, g, m| {
            m.take("replace");
            p.tensormap_replace(fc, i, g, m)
        },
    },
    Route {
        opcodes: &["suld", "sust", "sured", "suq"],
        when: always,
        lower: |p, fc, i, g, m| p.surf(fc, i, g, m),
    },
    Route {
        opcodes: &["tex", "tld4"],
        when: always,
        lower: |p, fc, i, g, m| p.tex(fc, i, g, m),
    },
    Route {
        opcodes: &["txq"],
        when: always,
        lower: |p, fc, i, g, m| p.txq(fc, i, g, m),
    },
    Route {
        opcodes: &["mma", "wmma", "wgmma", "ldmatrix", "stmatrix", "movmatrix"],
        when: always,
        lower: |p, fc, i, g, m| p.matrix(fc, i, g, m),
    },
    Route {
        opcodes: &["tcgen05"],
        when: always,
        lower: |p, fc, i, g, m| p.tcgen05(fc, i, g, m),
    },
    Route {
        opcodes: &["clusterlaunchcontrol"],
        when: always,
        lower: |p, fc, i, g, m| p.clc(fc, i, g, m),
    },
    Route {
        opcodes: &["slct"],
        when: always,
        lower: |p, fc, i, g, m| p.slct(fc, i, g, m),
    },
    Route {
        opcodes: BINARY,
        when: always,
        lower: |p, fc, i, g, m| p.binary(fc, i, g, m),
    },
    Route {
        opcodes: &["mad", "fma"],
        when: always,
        lower: |p, fc, i, g, m| p.mad(fc, i, g, m),
    },
    Route {
        opcodes: UNARY,
        when: always,
        lower: |p, fc, i, g, m| p.unary(fc, i, g, m),
    },
    Route {
        opcodes: INT_MISC,
        when: always,
        lower: |p, fc, i, g, m| p.int_misc(fc, i, g, m),
    },
    Route {
        opcodes: &["brx"],
        when: always,
        lower: |p, fc, i, g, m| p.brx(fc, i, g, m),
    },
    Route {
        opcodes: &["call"],
        when: always,
        lower: |p, fc, i, g, m| p.call(fc, i, g, m),
    },
    Route {
        opcodes: &["barrier"],
        when: |i| first(i, "cluster"),
        lower: |p, fc, i, g, m| p.cluster_barrier(fc, i, g, m),
    },
    Route {
        opcodes: &["bar", "barrier"],
        when: always,
        lower: |p, fc, i, g, m| p.bar(fc, i, g, m),
    },
    Route {
        opcodes: CLUSTER_MISC,
        when: always,
        lower: |p, fc, i, g, m| p.cluster_misc(fc, i, g, m),
    },
    Route {
        opcodes: VIDEO,
        when: always,
        lower: |p, fc, i, g, m| p.video(fc, i, g, m),
    },
    Route {
        opcodes: &["vmad"],
        when: always,
        lower: |p, fc, i, g, m| p.vmad(fc, i, g, m),
    },
    Route {
        opcodes: VIDEO_SIMD,
        when: always,
        lower: |p, fc, i, g, m| p.video_simd(fc, i, g, m),
    },
    Route {
        opcodes: &["mbarrier"],
        when: always,
        lower: |p, fc, i, g, m| p.mbarrier(fc, i, g, m),
    },
    Route {
        opcodes: &["cp"],
        when: |i| {
            (first(i, "async") && i.mods.get(1).is_some_and(|w| w == "bulk"))
                || (first(i, "reduce") && i.mods.get(2).is_some_and(|w| w == "bulk"))
        },
        lower: |p, fc, i, g, m| p.bulk(fc, i, g, m),
    },
    Route {
        opcodes: &["cp"],
        when: |i| first(i, "async"),
        lower: |p, fc, i, g, m| p.cp_async(fc, i, g, m),
    },
    Route {
        opcodes: &["st"],
        when: |i| has(i, "bulk"),
        lower: |p, fc, i, g, m| p.st_bulk(fc, i, g, m),
    },
    Route {
        opcodes: &["red"],
        when: |i| has(i, "async"),
        lower: |p, fc, i, g, m| p.red_async(fc, i, g, m),
    },
    Route {
        opcodes: &["atom", "red"],
        when: always,
        lower: |p, fc, i, g, m| p.atom(fc, i, g, m),
    },
];

/// The lowering of `i`'s first route whose condition holds, if any.
pub(super) fn route(i: &Instruction) -> Option<Lower> {
    static BY_OPCODE: OnceLock<HashMap<&'static str, Vec<&'static Route>>> = OnceLock::new();
    let map = BY_OPCODE.get_or_init(|| {
        let mut map: HashMap<_, Vec<_>> = HashMap::new();
        for r in ROUTES {
            for &op in r.opcodes {
                map.entry(op).or_default().push(r);
            }
        }
        map
    });
    let routes = map.get(i.opcode.as_str())?;
    routes.iter().find(|r| (r.when)(i)).map(|r| r.lower)
}
