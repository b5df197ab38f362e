//! The parser's tree for the forms the ISA defines (chapters 4, 5, 7, 11), with expected values
//! taken from the ISA text, and its diagnostics for malformed input.

use engine::ptx::ast::{Init, Operand, SectionItem, Space, Statement};
use engine::ptx::parser::{parse, Error};
use engine::{LoadErrorKind, Module};

const H: &str = ".version 9.0\n.target sm_90a, texmode_independent, debug\n.address_size 64\n";

fn module(body: &str) -> engine::ptx::ast::Module {
    match parse(&format!("{H}{body}")) {
        Ok(m) => m,
        Err(Error::Parse(e)) | Err(Error::Version(e)) => {
            panic!("{}:{}: {}\n{body}", e.line, e.col, e.message)
        }
    }
}

#[test]
fn module_directives_and_linking() {
    let m = module(
        ".file 1 \"kernel.cu\", 1339013327, 64118\n.pragma \"nounroll\";\n\
         .extern .func (.param .b32 r) ext (.param .b64 a);\n\
         .weak .func w() .noreturn;\n.visible .func foo(.param .u32 p) { ret; }\n.alias bar, foo;\n\
         .common .global .u32 gbl;\n.global .attribute(.unified(19,95)) .f32 f;\n\
         .global .texref t;\n.global .samplerref s = { addr_mode_0 = clamp_to_border, filter_mode = nearest };\n",
    );
    assert_eq!(m.target, ["sm_90a", "texmode_independent", "debug"]);
    assert_eq!(m.files, [(1, "kernel.cu".to_string())]);
    assert_eq!(m.pragmas, ["nounroll"]);
    assert_eq!(m.aliases, [("bar".to_string(), "foo".to_string())]);
    assert_eq!(m.functions.len(), 3);
    assert!(m.functions[0].body.is_none() && m.functions[0].attrs == ["extern"]);
    assert_eq!(
        m.functions[1].directives,
        [("noreturn".to_string(), vec![])]
    );
    assert!(m.globals[0].attrs.contains(&"common".to_string()));
    assert!(m.globals[1].attrs.contains(&"unified".to_string()));
    assert_eq!(m.globals[2].ty, "texref");
    assert_eq!(
        m.globals[3].fields[1],
        ("filter_mode".into(), "nearest".into())
    );
    // .version newer than the engine accepts is its own error kind.
    let e = Module::load(".version 9.6\n.target sm_90\n", "v.ptx").unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::UnsupportedVersion);
}

#[test]
fn variables_initializers_and_constant_expressions() {
    // ISA 5.4.3-5.4.4 and 4.5.
    let m = module(
        ".global .s32 offset[][2] = { {-1, 0}, {0, -1}, {1, 0}, {0, 1} };\n\
         .global .f32 blur[][3] = {{.05, .1, .05}, {.1, .4, .1}, {.05, .1, .05}};\n\
         .const .u32 foo = 42;\n.global .u32 parr[] = { generic(foo), generic(foo)+4, foo+(2*4) };\n\
         .global .u8 addr[] = {0xff(foo), 0xff00(generic(foo)+4), 0xFF00(1000 + 546)};\n\
         .global .u64 big = (1 << 40) | 0x8000000000000000U;\n\
         .global .align 16 .v4 .b32 v = {1, 2, 3, 4};\n.global .b32 dims[2*2][WARP_SZ/16];\n",
    );
    let g = &m.globals;
    assert_eq!(g[0].dims, [None, Some(2)]);
    assert_eq!(
        g[0].init,
        Some(Init::List(vec![
            Init::List(vec![Init::Int(-1), Init::Int(0)]),
            Init::List(vec![Init::Int(0), Init::Int(-1)]),
            Init::List(vec![Init::Int(1), Init::Int(0)]),
            Init::List(vec![Init::Int(0), Init::Int(1)]),
        ]))
    );
    let Some(Init::List(rows)) = &g[1].init else {
        panic!()
    };
    assert_eq!(
        rows[0],
        Init::List(vec![
            Init::Float {
                bits: 0.05f64.to_bits(),
                single: false
            },
            Init::Float {
                bits: 0.1f64.to_bits(),
                single: false
            },
            Init::Float {
                bits: 0.05f64.to_bits(),
                single: false
            },
        ])
    );
    let sym = |name: &str, offset, generic, mask| Init::Sym {
        name: name.into(),
        offset,
        generic,
        mask,
    };
    assert_eq!(
        g[3].init,
        Some(Init::List(vec![
            sym("foo", 0, true, None),
            sym("foo", 4, true, None),
            sym("foo", 8, false, None),
        ]))
    );
    // mask(): the masked byte of the value, shifted to bit 0 (1546 = 0x60A -> 0x06).
    assert_eq!(
        g[4].init,
        Some(Init::List(vec![
            sym("foo", 0, false, Some(0xff)),
            sym("foo", 4, true, Some(0xff00)),
            Init::Int(6),
        ]))
    );
    assert_eq!(
        g[5].init,
        Some(Init::Int(((1u64 << 40) | (1 << 63)) as i64))
    );
    assert_eq!((g[6].vec, g[6].align), (4, Some(16)));
    assert_eq!(g[7].dims, [Some(4), Some(2)]);
}

#[test]
fn functions_statements_and_operands() {
    let m = module(
        ".entry k ( .param .u64 .ptr.global.align 16 p, .param .align 8 .b8 buf[16] )\n\
         .maxntid 256, 1, 1 .minnctapersm 2 .reqnctapercluster 2, 1, 1 .explicitcluster\n{\n\
         .reg .b32 %r<4>; .reg .pred p<2>; .reg .f32 f<8>; .reg .b64 rd;\n\
         .loc 1 9 3, function_name info_string0, inlined_at 1 21 3\n\
         @!p1 add.s32 %r1, %r2, -(4*2);\n\
         setp.lt.s32 p0|p1, %r1, %r2;\n\
         tex.3d.v4.s32.s32 {%r0,%r1,%r2,%r3}|p0, [tex_a, {f1, f2, f3, f4}];\n\
         ld.global.v2.f32 {f0, _}, [rd+-8];\n ld.global.f32 f0, [rd].unified;\n\
         mov.u32 %r0, %tid.x; mov.b32 f1, 0f3F800000; mov.u64 rd, buf+8;\n\
         vmad.s32.s32.u32.sat %r0, %r1.h0, %r2, -%r3;\n\
         { .reg .b32 t; L1: mov.b32 t, 1; }\n\
         ts: .branchtargets L1, N<2>;\n Fp: .callprototype (.param .b32 _) _ (.param .b8 _[12]) .abi_preserve 10;\n\
         call (%r0), %r1, (%r2, %r3), Fp;\n ret;\n}\n\
         .section .debug_info { .b32 Lend-Lbegin\n Lbegin: .b8 2, 0\n .b32 .debug_abbrev+0x4\n .b64 -1\n Lend: }\n",
    );
    let f = &m.functions[0];
    assert_eq!(f.params[0].ptr_attrs, ["global", "align 16"]);
    assert_eq!(
        (f.params[1].align, f.params[1].dims.clone()),
        (Some(8), vec![Some(16)])
    );
    assert_eq!(f.directives[0], ("maxntid".to_string(), vec![256, 1, 1]));
    assert_eq!(f.directives[3], ("explicitcluster".to_string(), vec![]));
    assert_eq!(f.locs[0].1.inlined_at, Some((1, 21, 3)));
    assert_eq!(f.branch_targets[0].1, ["L1", "N0", "N1"]);
    assert_eq!(
        f.prototypes[0].1.directives,
        [("abi_preserve".to_string(), vec![10])]
    );
    let insts: Vec<_> = f
        .body
        .as_ref()
        .unwrap()
        .iter()
        .filter_map(|s| {
            if let Statement::Inst(i) = s {
                Some(i)
            } else {
                None
            }
        })
        .collect();
    let name = |n: &str| Operand::Name {
        name: n.into(),
        comp: None,
    };
    assert_eq!(insts[0].guard, Some(("p1".to_string(), true)));
    assert_eq!(insts[0].operands[2], Operand::Int(-8));
    assert_eq!(
        insts[1].operands[0],
        Operand::Pair(Box::new(name("p0")), Box::new(name("p1")))
    );
    assert!(matches!(&insts[2].operands[1], Operand::Tuple(t) if t.len() == 2));
    assert!(matches!(&insts[2].operands[0], Operand::Pair(..)));
    assert_eq!(
        insts[3].operands[1],
        Operand::Addr {
            base: Some("rd".into()),
            offset: -8
        }
    );
    assert_eq!(insts[4].mods, ["global", "f32", "unified"]);
    assert_eq!(
        insts[5].operands[1],
        Operand::Name {
            name: "%tid".into(),
            comp: Some("x".into())
        }
    );
    assert_eq!(
        insts[6].operands[1],
        Operand::Float {
            bits: 1f64.to_bits(),
            single: true
        }
    );
    assert_eq!(
        insts[7].operands[1],
        Operand::SymOff {
            name: "buf".into(),
            offset: 8
        }
    );
    assert_eq!(insts[8].operands[3], Operand::Neg(Box::new(name("%r3"))));
    assert!(matches!(&insts[9].operands[0], Operand::List(v) if v.len() == 1));
    assert!(f
        .body
        .as_ref()
        .unwrap()
        .iter()
        .any(|s| matches!(s, Statement::Block(_))));
    assert_eq!(
        f.body
            .as_ref()
            .unwrap()
            .iter()
            .filter(|s| matches!(s, Statement::Var(v) if v.space == Space::Reg))
            .count(),
        4
    );
    let SectionItem::Data { bits, values } = &m.sections[0].items[0] else {
        panic!()
    };
    assert_eq!(*bits, 32);
    assert_eq!(
        values[0].syms,
        [("Lend".to_string(), true), ("Lbegin".to_string(), false)]
    );
    assert_eq!(
        m.sections[0].items[3],
        SectionItem::Data {
            bits: 32,
            values: vec![engine::ptx::ast::SectionValue {
                syms: vec![(".debug_abbrev".into(), true)],
                offset: 4
            }],
        }
    );
}

#[test]
fn malformed_input_gives_file_line_col_diagnostics() {
    for (src, line, col, msg) in [
        ("mov.u32 %r1 %r2;", 6, 13, "expected ',' or ';'"),
        (".reg .b32 x = 1/0;", 6, 16, "division by zero"),
        ("/* unterminated", 6, 1, "unterminated comment"),
        ("mov.f32 %f1, 0f3F80;", 6, 14, "malformed hexadecimal float"),
        ("mov.u32 %r1, 08;", 6, 14, "malformed integer"),
        // Any non-ASCII character, the driver's JIT's message (driver 580.159 on an H200,
        // 2026-11-26: scripts/ground-truth/results/nonascii-h200.txt).
        (
            "add.u32 %r1, %r2, \u{e9};",
            6,
            19,
            "Unexpected non-ASCII character encountered on line 6",
        ),
        (".foo .b32 x;", 6, 1, "unknown directive '.foo'"),
    ] {
        let text = format!("{H}.entry k()\n{{\n{src}\n}}\n");
        let e = Module::load(&text, "bad.ptx").unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::InvalidPtx, "{src}");
        let s = e.to_string();
        assert!(
            s.starts_with(&format!("bad.ptx:{line}:{col}: error: ")) && s.contains(msg),
            "{src}: {s}"
        );
    }
}
