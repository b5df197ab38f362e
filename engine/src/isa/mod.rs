//! The instruction table of PTX ISA 9.0 chapter 9.7: every instruction's forms, with their
//! modifier groups and operand counts, generated from the ISA's syntax blocks
//! (`scripts/gen-isa-table.py` writes `table.rs`).
//!
//! Lowering decodes every instruction once, first ([`decode_cached`]): an instruction no form
//! of the table admits is invalid PTX (the reason names the modifier or the operand count); one
//! it admits is valid, so the executor's refusal is reported as "unsupported". The decoded form
//! gives each modifier its kind ([`words::ModKind`]: a type, a rounding, a comparison, ...),
//! which lowering consumes.
//!
//! [`types`] checks every instruction's operand types against its instruction type (ISA 9.4,
//! 9.4.1), for all functions lowering reaches, before they are lowered.

mod table;
pub mod types;
pub mod words;

use crate::ptx::ast::{Instruction, Operand};

/// One opcode (the first dotted word of an instruction, as the parser splits it).
#[derive(Debug)]
pub struct Opcode {
    pub name: &'static str,
    /// The ISA sections (9.7.x.y) whose syntax blocks give its forms.
    pub sections: &'static [&'static str],
    /// The first "Introduced in PTX ISA version" after its syntax block: informative only (the
    /// notes of several sections name a later extension first, so it is not enforced).
    pub since: (u8, u8),
    /// Operand counts over all forms.
    pub min_ops: u8,
    pub max_ops: u8,
    /// Every modifier word of every form, sorted; `*` where a form accepts any word in a group
    /// the ISA defines in prose.
    pub words: &'static [&'static str],
    pub forms: &'static [Form],
}

/// One syntax line: its modifier groups in order and its operand count range.
#[derive(Debug)]
pub struct Form {
    pub groups: &'static [Group],
    pub min_ops: u8,
    pub max_ops: u8,
}

/// A modifier slot of a form: a fixed word (`sync`), or a group (`.type = { .u32, .s32 }`),
/// required or optional (`{.ftz}`). `*` accepts any word.
#[derive(Debug)]
pub struct Group {
    pub name: &'static str,
    pub optional: bool,
    pub words: &'static [&'static str],
}

/// An instruction decoded against the table: which opcode, which form (when one form admits it
/// exactly), for each modifier its (group, word) indices in that form, and for each modifier
/// what it is to lowering: the kind of its group ([`words::group_kind`]), or of the word
/// itself where no single form admits the instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub opcode: u16,
    pub form: Option<u16>,
    pub mods: Vec<(u8, u8)>,
    pub kinds: Vec<words::ModKind>,
}

impl Decoded {
    pub fn opcode(&self) -> &'static Opcode {
        &table::OPCODES[self.opcode as usize]
    }
}

/// Every opcode of the table, sorted by name.
pub fn opcodes() -> &'static [Opcode] {
    table::OPCODES
}

pub fn lookup(name: &str) -> Option<(usize, &'static Opcode)> {
    let t = table::OPCODES;
    t.binary_search_by(|o| o.name.cmp(name))
        .ok()
        .map(|k| (k, &t[k]))
}

/// Matches the modifiers and operand count of `i` against `f`: each modifier takes a free group
/// that lists it, or else one that accepts any word (groups are not ordered: ptxas accepts
/// modifiers in any order), and every required group must be taken. A small backtracking
/// search: a wildcard group must not swallow the word a later required group needs.
fn match_form(f: &Form, i: &Instruction) -> Option<Vec<(u8, u8)>> {
    let n = i.operands.len();
    if n < f.min_ops as usize || n > f.max_ops as usize || f.groups.len() > 64 {
        return None;
    }
    struct S<'a> {
        f: &'a Form,
        mods: &'a [crate::ptx::ast::Name],
        taken: u64,
        out: Vec<(u8, u8)>,
        steps: u32,
    }
    fn go(s: &mut S, k: usize) -> bool {
        s.steps += 1;
        if s.steps > 2000 {
            return false;
        }
        if k == s.mods.len() {
            return (s.f.groups.iter().enumerate())
                .all(|(g, grp)| grp.optional || s.taken & (1 << g) != 0);
        }
        for wild in [false, true] {
            for g in 0..s.f.groups.len() {
                if s.taken & (1 << g) != 0 {
                    continue;
                }
                let w = s.f.groups[g]
                    .words
                    .iter()
                    .position(|w| *w == s.mods[k] || (wild && *w == "*"));
                if let Some(w) = w {
                    s.taken |= 1 << g;
                    s.out.push((g as u8, w as u8));
                    if go(s, k + 1) {
                        return true;
                    }
                    s.out.pop();
                    s.taken &= !(1 << g);
                }
            }
        }
        false
    }
    let mut s = S {
        f,
        mods: &i.mods,
        taken: 0,
        out: Vec::with_capacity(i.mods.len()),
        steps: 0,
    };
    go(&mut s, 0).then_some(s.out)
}

/// Decodes `i` against the table, or says why it is not valid PTX.
pub fn decode(i: &Instruction) -> Result<Decoded, String> {
    let Some((k, op)) = lookup(&i.opcode) else {
        return Err(format!("unknown instruction '{}'", i.full_name()));
    };
    for (fi, f) in op.forms.iter().enumerate() {
        if let Some(mods) = match_form(f, i) {
            let kinds = (mods.iter())
                .map(|&(g, _)| words::group_kind(f.groups[g as usize].words))
                .collect();
            return Ok(Decoded {
                opcode: k as u16,
                form: Some(fi as u16),
                mods,
                kinds,
            });
        }
    }
    // No single form admits it. The forms are extracted from typeset text (groups defined in
    // prose become `*`), so a combination of words the forms spell separately is accepted as
    // long as every word belongs to the opcode and the operand count is one of its counts:
    // what is rejected is certainly invalid.
    let any = op.words.binary_search(&"*").is_ok();
    for m in &i.mods {
        if !any && op.words.binary_search(&m.as_str()).is_err() {
            return Err(format!(
                "'.{m}' is not a modifier of '{}' (PTX ISA {})",
                op.name,
                op.sections.join(", ")
            ));
        }
    }
    let n = i.operands.len();
    if n < op.min_ops as usize || n > op.max_ops as usize {
        return Err(format!(
            "'{}' takes {} operands, not {n} (PTX ISA {})",
            i.full_name(),
            if op.min_ops == op.max_ops {
                op.min_ops.to_string()
            } else {
                format!("{} to {}", op.min_ops, op.max_ops)
            },
            op.sections.join(", ")
        ));
    }
    if let Some(bad) = i.operands.iter().find(|o| matches!(o, Operand::Neg(_))) {
        // Only the video instruction vmad negates a source operand (ISA 9.7.18.1.3).
        if op.name != "vmad" {
            return Err(format!(
                "negated operand {bad:?} not allowed in '{}'",
                i.full_name()
            ));
        }
    }
    Ok(Decoded {
        opcode: k as u16,
        form: None,
        mods: Vec::new(),
        kinds: i.mods.iter().map(|w| words::word_kind(w)).collect(),
    })
}

/// [`decode`], remembering the instructions (opcode, modifiers, operand count, whether one is
/// negated: all that decoding reads) decoded on this thread, so that a module's repeated
/// instructions are decoded once. `full_name` is `i.full_name()`.
pub fn decode_cached(
    i: &Instruction,
    full_name: &crate::ptx::ast::Name,
) -> Result<std::rc::Rc<Decoded>, String> {
    use std::cell::RefCell;
    use std::rc::Rc;
    type Key = (crate::ptx::ast::Name, u16, bool);
    type Cache = std::collections::HashMap<Key, Rc<Decoded>, rustc_hash::FxBuildHasher>;
    thread_local! {
        static DECODED: RefCell<Cache> = RefCell::default();
    }
    let neg = i.operands.iter().any(|o| matches!(o, Operand::Neg(_)));
    let key: Key = (
        full_name.clone(),
        i.operands.len().min(u16::MAX as usize) as u16,
        neg,
    );
    if let Some(d) = DECODED.with(|v| v.borrow().get(&key).cloned()) {
        return Ok(d);
    }
    let d = Rc::new(decode(i)?);
    DECODED.with(|v| {
        let mut v = v.borrow_mut();
        // Bounded: a program that generates endless distinct instructions keeps a fresh map.
        if v.len() >= 1 << 14 {
            v.clear();
        }
        v.insert(key, d.clone());
    });
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::parser;

    fn inst(text: &str) -> Instruction {
        let src = format!(
            ".version 9.0\n.target sm_100a\n.address_size 64\n.entry k()\n{{\n\
             .reg .b32 a, b, c, d;\n.reg .b64 p;\n.reg .pred q;\n{text}\n}}\n"
        );
        let m = parser::parse(&src).unwrap_or_else(|_| panic!("{text} must parse"));
        let body = m.functions[0].body.as_ref().unwrap();
        body.iter()
            .find_map(|s| match s {
                crate::ptx::ast::Statement::Inst(i) => Some(i.clone()),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn table_is_sorted_and_covers_chapter_9() {
        let t = opcodes();
        assert!(t.windows(2).all(|w| w[0].name < w[1].name));
        // Instruction families of ISA 9.7 the executor does not run yet are described too.
        for name in [
            "wmma",
            "mma",
            "wgmma",
            "tcgen05",
            "cp",
            "tensormap",
            "tex",
            "tld4",
            "suld",
            "sust",
            "griddepcontrol",
            "clusterlaunchcontrol",
            "multimem",
            "setmaxnreg",
            "selp",
            "shfl",
            "vadd4",
        ] {
            assert!(lookup(name).is_some(), "{name} missing from the table");
        }
        assert!(t.len() > 120, "{} opcodes", t.len());
    }

    #[test]
    fn valid_instructions_decode_to_a_form() {
        // Forms copied from the syntax blocks of ISA 9.7.
        for text in [
            "add.s32 a, b, c;",
            "tanh.approx.f16x2 a, b;",
            "setp.lt.and.s32 q|q, a, b, q;",
            "ld.global.v2.u32 {a, b}, [p];",
            "griddepcontrol.wait;",
            "setmaxnreg.inc.sync.aligned.u32 240;",
        ] {
            let d = decode(&inst(text)).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(d.form.is_some(), "{text}: no exact form");
        }
    }

    /// Opcodes that accepted any modifier word before every syntax block of their sections
    /// was read (their words were thought to be prose-only). Verdicts of ptxas 13.5
    /// (`-arch=sm_90a`): it rejects each `.frob` with "Unknown modifier '.frob'" (and
    /// `dp4a.frob`: "Unexpected instruction types") and accepts the valid forms.
    #[test]
    fn formerly_prose_opcodes_check_their_words() {
        for text in [
            "atom.global.frob.add.u32 a, [p], b;",
            "red.global.frob.add.u32 [p], b;",
            "ld.global.frob.u32 a, [p];",
            "ldu.global.frob.u32 a, [p];",
            "st.global.frob.u32 [p], a;",
            "mov.frob.u32 a, b;",
            "ldmatrix.sync.aligned.m8n8.x1.frob.b16 {a}, [p];",
            "wgmma.fence.sync.aligned.frob;",
            "multimem.ld_reduce.relaxed.gpu.global.frob.and.b32 a, [p];",
            "mad.frob.lo.u32 a, b, c, d;",
            "ex2.approx.frob.f16 a, b;",
            "dp4a.frob.u32 a, b, c, d;",
        ] {
            let e = decode(&inst(text)).expect_err(text);
            assert!(e.contains("'.frob' is not a modifier"), "{text}: {e}");
        }
        // ptxas: "Unexpected instruction types specified for 'mov'" (raw moves are .b32).
        let e = decode(&inst("mov.f16x2 a, b;")).unwrap_err();
        assert!(e.contains("'.f16x2' is not a modifier of 'mov'"), "{e}");
        for text in [
            "ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {a}, [p];",
            "wgmma.fence.sync.aligned;",
            "fence.proxy.async.shared::cta;",
            "multimem.ld_reduce.relaxed.gpu.global.and.b32 a, [p];",
            "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 a, p;",
            "wmma.load.a.sync.aligned.row.m16n16k16.bf16 {a, b}, [p];",
            "mad.hi.cc.u32 a, b, c, d;",
            "dp4a.s32.u32 a, b, c, d;",
            "fma.rn.oob.relu.bf16 a, b, c, d;",
            "ex2.approx.f16x2 a, b;",
        ] {
            decode(&inst(text)).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }

    /// The four opcodes that kept a wildcard group (their groups left undefined by a block, or
    /// given in a block the extraction did not pair with its forms): cp (9.7.9.25.5.3's
    /// `.level::cache_hint`), mma (the sparse and block-scaling forms of 9.7.14.5.14 and
    /// 9.7.14.6.3), sust (9.7.11.2's `.{1d,2d,3d}`) and tcgen05 (9.7.16, `.collector::buffer::op`).
    /// Verdicts of ptxas 13.5 (`-arch=sm_90a`; tcgen05 `sm_100a`, `kind::f8f6f4` `sm_120a`):
    /// each rejected word is an "Unknown modifier", each accepted form assembles.
    #[test]
    fn formerly_wildcard_opcodes_check_their_words() {
        for (text, word) in [
            ("cp.async.ca.shared.global.frob [p], [p], 4;", "frob"),
            (
                "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group.L3::cache_hint [p, {a}], [b], p;",
                "L3::cache_hint",
            ),
            ("mma.sync.aligned.m16n8k8.row.col.frob.f32.f16.f16.f32 {a, b, c, d}, {a, b}, {a}, {a, b, c, d};", "frob"),
            ("sust.b.1d.frob.b32.trap [p, {a}], {b};", "frob"),
            (
                "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b4::use [a], [b], p, c, q;",
                "collector::b4::use",
            ),
            (
                "tcgen05.mma.cta_group::1.kind::tf32.collector::a::filll [a], p, p, c, q;",
                "collector::a::filll",
            ),
        ] {
            let e = decode(&inst(text)).expect_err(text);
            assert!(e.contains(&format!("'.{word}' is not a modifier")), "{text}: {e}");
        }
        for text in [
            "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group.L2::cache_hint [p, {a}], [b], p;",
            "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [a], [p], b, [c];",
            "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64.rz {a, b, c, d}, {a, b}, {a}, {a, b, c, d};",
            "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.u4.u4.s32 {a, b}, {a}, {b}, {c, d};",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32 {a, b, c, d}, {a, b, c, d}, {a, b, c, d}, {a, b, c, d}, a, 0;",
            "sust.b.1d.b32.trap [p, {a}], {b};",
            "sust.b.a1d.v2.b32.zero [p, {a, b}], {c, d};",
            "sust.p.2d.v4.b32.trap [p, {a, b}], {a, b, c, d};",
            "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b2::use [a], [b], p, c, q;",
            "tcgen05.mma.cta_group::1.kind::tf32.collector::a::fill [a], p, p, c, q;",
            "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [a], p;",
        ] {
            decode(&inst(text)).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
        assert!(opcodes().iter().all(|o| !o.words.contains(&"*")));
    }

    #[test]
    fn invalid_instructions_say_why() {
        // ISA 9.7.1.1: add has no .f7 type; 9.7.4.9 tanh has one source; rcp has no .lo.
        let e = decode(&inst("add.f7 a, b, c;")).unwrap_err();
        assert!(e.contains("'.f7' is not a modifier of 'add'"), "{e}");
        let e = decode(&inst("tanh.approx.f32 a, b, c;")).unwrap_err();
        assert!(e.contains("takes 2 operands, not 3"), "{e}");
        let e = decode(&inst("frobnicate.b32 a, b;")).unwrap_err();
        assert!(e.contains("unknown instruction 'frobnicate.b32'"), "{e}");
    }
}
