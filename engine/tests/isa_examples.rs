//! The example blocks of the PTX ISA 9.0 text (extracted by `scripts/extract-isa-examples.py`
//! into `tests/data/isa_examples/`) as a parser test corpus. The expected outcome comes from the
//! ISA: every example is valid PTX, so each must parse. Statement lists are wrapped into an
//! `.entry` body (registers they use without declaring get declared, with the type their first
//! typed use implies) and loaded: lowering must
//! succeed or reject with a diagnostic, never panic. Lowering outcomes are printed as a summary
//! (instruction coverage is tracked elsewhere).
//!
//! Run with `--nocapture` to see the per-file summary.

use engine::ptx::ast::{Function, Operand, Statement};
use engine::ptx::parser::{self, Error};
use engine::{LoadErrorKind, Module};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Examples that are not PTX as written, with the reason. Keep this list small: a parser change
/// that makes one of these parse should remove it.
const EXCLUDED: &[(&str, &str)] = &[
    // Not one module or statement list.
    (
        "04-03_statements_1.ptx",
        "array size N is a placeholder, not a constant",
    ),
    (
        "11-01-01_version_1.ptx",
        "alternative .version lines, not one module",
    ),
    (
        "11-01-02_target_1.ptx",
        "alternative .target lines, not one module",
    ),
    (
        "11-01-03_address_size_1.ptx",
        "alternative .address_size lines, not one module",
    ),
    (
        "05-05-05-04_woffset_1.ptx",
        "a table of tensor sizes, not PTX",
    ),
    (
        "05-05-05-04_woffset_2.ptx",
        "a table of tensor sizes, not PTX",
    ),
    (
        "09-07-08-06_lop3_1.ptx",
        "pseudo-code (If F = (a & b & c);)",
    ),
    (
        "09-07-16-06-04-01_pipelined_instructions_same_thread_1.ptx",
        "instruction names, not PTX",
    ),
    (
        "09-07-16-06-04-02_non_pipelined_instructions_same_thread_1.ptx",
        "instruction names",
    ),
    (
        "09-07-16-06-04-02_non_pipelined_instructions_same_thread_2.ptx",
        "instruction names",
    ),
    (
        "09-07-16-12-01_tcgen05_commit_1.ptx",
        "prose ('Example 1:') inside the block",
    ),
    (
        "09-07-13-01_bar_barrier_1.ptx",
        "#define needs the C preprocessor (ptxas rejects '#')",
    ),
    // Missing ';' or ',' in the ISA text.
    ("09-07-03-05_mul_1.ptx", "last statement lacks ';'"),
    ("09-07-04-07_min_1.ptx", "last statement lacks ';'"),
    (
        "09-07-09-25-04-01_cp_async_bulk_1.ptx",
        "a statement lacks ';'",
    ),
    (
        "09-07-09-25-05-03_cp_reduce_async_bulk_tensor_1.ptx",
        "last statement lacks ';'",
    ),
    ("09-07-12-02_untitled_1.ptx", "a statement lacks ';'"),
    ("09-07-14-04-03_wmma_load_1.ptx", "a statement lacks ';'"),
    ("09-07-14-05-14_mma_2.ptx", "last statement lacks ';'"),
    (
        "09-07-14-06-03_ordered_metadata_4.ptx",
        "truncated: ends with an operand and a comma",
    ),
    (
        "09-07-15-05-02_wgmma_mma_async_2.ptx",
        "'.reg .b32 bf16a<40>' lacks ';'",
    ),
    ("10-19_lanemask_le_1.ptx", "statement lacks ';'"),
    (
        "11-02-01_entry_1.ptx",
        "'.entry cta_fft' has neither ';' nor a body",
    ),
    (
        "11-04-08_abi_preserve_1.ptx",
        "'.func bar() .abi_preserve 8' lacks ';'",
    ),
    (
        "11-04-09_abi_preserve_control_1.ptx",
        "'.func foo() .abi_preserve_control 14' lacks ';'",
    ),
    (
        "09-07-14-04-05_wmma_mma_1.ptx",
        "'.reg .b32 a<8> b<8> ...' lacks commas",
    ),
    (
        "09-07-14-05-14_mma_1.ptx",
        "'.reg .f16x2 %Ra<2> %Rb<2> ...' lacks commas and ';'",
    ),
    (
        "09-07-14-06-03_ordered_metadata_1.ptx",
        "'.reg .f16x2 %Ra<2> %Rb<2> ...' lacks commas",
    ),
    (
        "09-07-09-19_isspacep_1.ptx",
        "'isspacep.shared::cluster ishrdany sptr' lacks a comma",
    ),
    // Typos and typesetting damage in the ISA text.
    (
        "09-07-08-02_or_1.ptx",
        "'or.b32 mask mask, ...' (doubled operand, no comma)",
    ),
    (
        "09-07-09-09_ld_global_nc_1.ptx",
        "'{...}. [a]' ('.' for ',')",
    ),
    ("09-07-09-21_cvt_1.ptx", "'.f3 2' (split type word)"),
    (
        "09-07-13-04_membar_fence_1.ptx",
        "'membar . gl' (spaced dots)",
    ),
    (
        "09-07-13-16_tensormap_cp_fenceproxy_1.ptx",
        "'bra try_wait loop' (label with a space)",
    ),
    (
        "09-07-13-18_clusterlaunchcontrol_query_cancel_1.ptx",
        "'is_canceled pred.b128' (space)",
    ),
    (
        "09-07-16-10-09-02_tcgen05_mma_sp_1.ptx",
        "'.collector::a:fill' (single ':')",
    ),
    (
        "09-07-16-10-09-03_tcgen05_mma_ws_1.ptx",
        "'.collector::b2:use' (single ':')",
    ),
    (
        "11-07-01_cluster_dimension_directives_1.ptx",
        "'.reqntapercluster' (misspelt)",
    ),
    (
        "11-07-03_maxclusterrank_1.ptx",
        "'..maxclusterrank' (doubled dot)",
    ),
    (
        "09-07-12-04_brx_idx_1.ptx",
        "'.function' is not a directive (.func)",
    ),
    (
        "11-03-01_branchtargets_1.ptx",
        "'.function' is not a directive (.func)",
    ),
    // Misprinted opcodes (ptxas: "Unknown instruction").
    ("09-07-06-03_se1p_1.ptx", "'se1p' for 'selp'"),
    (
        "09-07-13-13_griddepcontrol_1.ptx",
        "'griddecontrol' for 'griddepcontrol'",
    ),
    // `wmma` printed for `wgmma` in 9.7.15 (ptxas: "Unknown modifier '.fence'" for
    // `wmma.fence`, the same for `.commit_group` and `.mma_async`).
    (
        "09-07-15-05-02_wgmma_mma_async_1.ptx",
        "'wmma.mma_async' for 'wgmma.mma_async'",
    ),
    (
        "09-07-15-05-02_wgmma_mma_async_3.ptx",
        "'wmma.mma_async' for 'wgmma.mma_async'",
    ),
    (
        "09-07-15-05-02_wgmma_mma_async_4.ptx",
        "'wmma.mma_async' for 'wgmma.mma_async'",
    ),
    (
        "09-07-15-06-03_wgmma_mma_async_sp_1.ptx",
        "'wmma.fence', 'wmma.mma_async.sp' for 'wgmma...'",
    ),
    (
        "09-07-15-07-02_wgmma_commit_group_1.ptx",
        "'wmma.commit_group' for 'wgmma.commit_group'",
    ),
    (
        "10-26_pm0_64_pm7_64_1.ptx",
        "'mov.u32 %r1, %pm0_64' reads a 64-bit counter into 32 bits (ptxas: Arguments mismatch \
         for instruction 'mov')",
    ),
    // Alternatives in one block (ptxas: duplicate definition).
    (
        "09-07-13-15-15_cp_async_mbarrier_arrive_1.ptx",
        "two examples define label 'waitLoop'",
    ),
    (
        "09-07-13-15-16_mbarrier_test_wait_mbarrier_try_wait_1.ptx",
        "two examples define label 'waitLoop'",
    ),
    (
        "11-02-02_func_1.ptx",
        "two alternative definitions of '.func foo'",
    ),
    (
        "09-07-13-06_red_1.ptx",
        "'red.global.v2.f16x2.max.noftz {d0, d1}, [g], {b0, b1}' has a destination (ptxas: \
         Arguments mismatch for instruction 'red')",
    ),
    (
        "09-07-18-02-03_vadd4_vsub4_vavg4_vabsdiff4_vmin4_vmax4_1.ptx",
        "'vmin4 ... r1.b00': '.b00' is not a mask of 9.7.18.2 (ptxas: Incorrect video selector \
         for operand 0)",
    ),
    (
        "09-07-18-02-04_vset4_1.ptx",
        "'vset4.u32.u32.ne.max': vset4 accumulates only with .add (ptxas: Illegal secondary \
         operation for video instruction 'vset4')",
    ),
    (
        "09-07-01-19_bfe_1.ptx",
        "'bfe.b32' (ptxas: Unexpected instruction types specified for 'bfe'; 9.7.1.19 allows \
         .u32 .s32 .u64 .s64)",
    ),
    // Module-scope functions whose registers are never declared (the harness declares
    // registers only for loose statements).
    ("12-01_nounroll_1.ptx", "predicate 'p' is never declared"),
    (
        "09-07-10-01_texturing_modes_1.ptx",
        "registers r1..r6, f1, f2 are never declared",
    ),
    // Elisions that leave no valid PTX once removed.
    (
        "05-04-04_initializers_2.ptx",
        "'{0xff(foo), ...}' (elided list, trailing comma)",
    ),
    (
        "09-07-13-15-10_mbarrier_inval_1.ptx",
        "'[shmem], ...' (elided operand)",
    ),
    (
        "09-07-14-04-04_wmma_store_1.ptx",
        "'{d0, ...}, ...' (elided operands)",
    ),
    (
        "09-07-16-06-04-05_register_dependencies_same_thread_1.ptx",
        "'%r1, ...' (elided operand)",
    ),
    (
        "09-07-12-05_call_1.ptx",
        "function signatures followed by '...' instead of bodies",
    ),
    (
        "07-01_function_declarations_and_definitions_2.ptx",
        "unbalanced '{' (truncated block)",
    ),
];

/// The ISA elides code with `...` / `. . .` and names some operands with hyphenated
/// placeholders (`cache-policy`). Before parsing, elisions are removed from the code part of each
/// line and these placeholders become identifiers; nothing else is changed.
/// Example lines that are not valid PTX as printed, with the fix (each rejected by ptxas as
/// written: "Arguments mismatch for instruction 'atom'", the address lacks its brackets).
const TYPOS: &[(&str, &str)] = &[
    // 9.7.14.5.14 mma: `.kind::mx8f6f4` for `.kind::mxf8f6f4` (ptxas: "Unknown modifier
    // '.kind::mx8f6f4'").
    (
        "mma.sync.aligned.m16n8k32.row.col.kind::mx8f6f4.block_scale.scale_vec::1X.f32.e4m3. e5m2.f32.ue8m0",
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0",
    ),
    // 9.7.16.9.2 tcgen05.cp: `.warp2::02_13` for `.warpx2::02_13` (ptxas: "Unknown modifier
    // '.warp2::02_13'").
    (
        "tcgen05.cp.cta_group::1.64x128b.warp2::02_13   [taddr2], sdesc2;",
        "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13   [taddr2], sdesc2;",
    ),
    // 9.7.16.11.1 tcgen05.fence: the group names `.cta_group.kind` left in the example
    // (ptxas: "Unknown modifier '.cta_group'").
    (
        "tcgen05.mma.cta_group.kind [taddr0], adesc, bdesc, idesc, p;",
        "tcgen05.mma.cta_group::1.kind::tf32 [taddr0], adesc, bdesc, idesc, p;",
    ),
    // 9.7.9.12 st.async: `.release` without the scope its syntax requires (ptxas: "Modifier
    // '.release' requires scope with 'st.async' instruction").
    (
        "st.async.release.global.u32 [addr], b;",
        "st.async.release.gpu.global.u32 [addr], b;",
    ),
    (
        "atom.shared.b128.cas d,a,b,c;",
        "atom.shared.b128.cas d,[a],b,c;",
    ),
    (
        "atom.global.b128.exch d,a,b;",
        "atom.global.b128.exch d,[a],b;",
    ),
];

fn prepare(text: &str) -> String {
    const PLACEHOLDERS: &[(&str, &str)] = &[
        ("cache-policy", "cache_policy"),
        ("cache- policy", "cache_policy"),
        ("access-prop", "access_prop"),
        ("a-desc", "a_desc"),
        ("b-desc", "b_desc"),
    ];
    let mut out = String::new();
    for l in text.lines() {
        let (code, comment) = match l.find("//") {
            Some(k) => l.split_at(k),
            None => (l, ""),
        };
        let mut code = code
            .replace(". . .", "")
            .replace("...", "")
            .replace("{ .. }", "{ }");
        if code.trim().chars().all(|c| c == '.') {
            code.clear();
        }
        for (a, b) in PLACEHOLDERS {
            code = code.replace(a, b);
        }
        for (a, b) in TYPOS {
            if code.trim() == *a {
                code = b.to_string();
            }
        }
        // A dotted opcode broken by the typesetting: `bytes. multicast` -> `bytes.multicast`.
        let c: Vec<char> = code.chars().collect();
        code = c
            .iter()
            .enumerate()
            .filter(|&(k, &ch)| {
                !(ch == ' '
                    && k >= 2
                    && c[k - 1] == '.'
                    && c[k - 2].is_ascii_alphanumeric()
                    && c.get(k + 1).is_some_and(|n| n.is_ascii_alphabetic()))
            })
            .map(|(_, &ch)| ch)
            .collect();
        out += &code;
        out += comment;
        out.push('\n');
    }
    out
}

/// Splits an example into module-scope items (directives, functions, module variables) and
/// loose statements (which go into a kernel body), using the engine's lexer.
fn split(text: &str) -> (String, String) {
    use engine::ptx::lexer::{Lexer, Tok};
    const MODULE: &[&str] = &[
        "version",
        "target",
        "address_size",
        "entry",
        "func",
        "visible",
        "extern",
        "weak",
        "common",
        "alias",
        "section",
        "file",
        "global",
        "const",
        "tex",
    ];
    const LINE_BASED: &[&str] = &["version", "target", "address_size", "file"];
    let mut toks = Vec::new();
    let mut lx = Lexer::new(text);
    loop {
        let t = lx.next_token();
        if t.tok == Tok::Eof {
            break;
        }
        toks.push(t);
    }
    let (mut module, mut body) = (String::new(), String::new());
    let mut i = 0;
    let src = |a: usize, b: usize| &text[toks[a].start as usize..toks[b - 1].end as usize];
    while i < toks.len() {
        let start = i;
        let is_module = match toks[i].tok {
            Tok::Dot(d) => MODULE.contains(&d),
            Tok::Punct("@") => matches!(toks.get(i + 1).map(|t| t.tok), Some(Tok::Punct("@"))),
            _ => false,
        };
        if is_module {
            let line_based = matches!(toks[i].tok, Tok::Dot(d) if LINE_BASED.contains(&d))
                || matches!(toks[i].tok, Tok::Punct("@"));
            let line = toks[i].line;
            // Functions and sections end with their `}`; variables and the rest with `;`.
            let mut k = i;
            while matches!(toks[k].tok, Tok::Dot(d) if ["visible", "extern", "weak", "common"].contains(&d))
                && k + 1 < toks.len()
            {
                k += 1;
            }
            let braced =
                matches!(toks[k].tok, Tok::Dot(d) if ["entry", "func", "section"].contains(&d));
            i += 1;
            let mut depth = 0;
            while i < toks.len() {
                let t = toks[i].tok;
                if line_based {
                    if toks[i].line != line {
                        break;
                    }
                    i += 1;
                    continue;
                }
                if depth == 0
                    && matches!(t, Tok::Dot(d) if ["entry", "func", "alias", "section"].contains(&d))
                {
                    break;
                }
                i += 1;
                match t {
                    Tok::Punct("{") => depth += 1,
                    Tok::Punct("}") => {
                        depth -= 1;
                        if depth == 0 && braced {
                            break;
                        }
                    }
                    // `.entry foo .pragma "nounroll"; { ... }` goes on after its `;`.
                    Tok::Punct(";")
                        if depth == 0
                            && !matches!(toks.get(i).map(|t| t.tok), Some(Tok::Punct("{"))) =>
                    {
                        break
                    }
                    _ => {}
                }
            }
            module += src(start, i);
            module.push('\n');
        } else {
            // A statement: up to its `;` (or a label's `:`, or a whole `{ }` block).
            let mut depth = 0;
            while i < toks.len() {
                let t = toks[i].tok;
                i += 1;
                match t {
                    Tok::Punct("{") => depth += 1,
                    Tok::Punct("}") => {
                        depth -= 1;
                        if depth <= 0 {
                            break;
                        }
                    }
                    Tok::Punct(";") if depth == 0 => break,
                    Tok::Punct(":") if depth == 0 && i == start + 2 => break,
                    _ => {}
                }
                if depth == 0
                    && matches!(toks.get(i).map(|t| t.tok), Some(Tok::Dot(d)) if ["entry", "func"].contains(&d))
                {
                    break;
                }
            }
            body += src(start, i);
            body.push('\n');
        }
    }
    (module, body)
}

const HEADER: &str = ".version 9.0\n.target sm_100a\n.address_size 64\n";
const HEADER_INDEPENDENT: &str =
    ".version 9.0\n.target sm_100a, texmode_independent\n.address_size 64\n";

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/isa_examples")
}

/// Special registers and predefined names (ISA Table 3) that need no declaration; `_` is the
/// sink operand.
fn predefined(name: &str) -> bool {
    name == "_" || engine::ptx::is_predefined_name(name)
}

#[derive(Default)]
struct Names {
    declared: BTreeSet<String>,
    used: BTreeMap<String, bool>, // name -> used with a `.x` component
    skip: BTreeSet<String>,       // call targets, prototypes, labels
    /// Names used as variables (`A+4`, `A[5]`): they get an array declaration, not a register.
    vars: BTreeSet<String>,
    /// Names the examples branch to.
    targets: BTreeSet<String>,
    labels: BTreeSet<String>,
    /// Names used whole as the vector operand of `ld/st.vN` (`ld.v4.b32 Q, [p]`): vector
    /// registers of that length.
    vectors: BTreeMap<String, u32>,
    /// Names addressed by `ld/st.param`: `.param` variables.
    params: BTreeSet<String>,
    /// Names used as guards: predicates.
    preds: BTreeSet<String>,
    /// The register types the typed uses of a name imply (ISA 9.4: operand types must agree
    /// with the instruction's), with whether a wider register would do, from
    /// [`engine::isa::types::implied_registers`].
    implied: BTreeMap<String, Vec<(String, bool)>>,
}

fn walk_operand(o: &Operand, n: &mut Names) {
    match o {
        Operand::Name { name, comp } => {
            // `.x .y .z .w` (and `.r .g .b .a`) select a vector component; `.h1`, `.b0` of
            // video instructions select part of a scalar register.
            let vector = comp
                .as_deref()
                .is_some_and(|c| ["x", "y", "z", "w", "r", "g", "b", "a"].contains(&c));
            let e = n.used.entry(name.clone()).or_default();
            *e |= vector;
        }
        Operand::Addr {
            base: Some(name), ..
        } => {
            n.used.entry(name.to_string()).or_default();
        }
        Operand::SymOff { name, .. } => {
            n.used.entry(name.clone()).or_default();
            n.vars.insert(name.clone());
        }
        Operand::Vector(v) | Operand::List(v) | Operand::Tuple(v) => {
            v.iter().for_each(|x| walk_operand(x, n))
        }
        Operand::Not(x) => walk_operand(x, n),
        Operand::Pair(a, b) => {
            walk_operand(a, n);
            walk_operand(b, n);
        }
        Operand::Index { name, index } => {
            n.used.entry(name.clone()).or_default();
            n.vars.insert(name.clone());
            walk_operand(index, n)
        }
        Operand::Neg(x) => walk_operand(x, n),
        _ => {}
    }
}

fn walk(body: &[Statement], n: &mut Names) {
    for s in body {
        match s {
            Statement::Var(v) => match v.count {
                Some(c) => (0..c).for_each(|k| {
                    n.declared.insert(format!("{}{k}", v.name));
                }),
                None => {
                    n.declared.insert(v.name.clone());
                }
            },
            Statement::Label(l, _) => {
                n.skip.insert(l.clone());
                n.labels.insert(l.clone());
            }
            Statement::Block(b) => walk(b, n),
            Statement::Inst(i) => {
                for (name, ty, wider) in engine::isa::types::implied_registers(i) {
                    n.implied.entry(name).or_default().push((ty, wider));
                }
                if let Some((g, _)) = &i.guard {
                    n.used.entry(g.clone()).or_default();
                    n.preds.insert(g.clone());
                    n.implied
                        .entry(g.clone())
                        .or_default()
                        .push(("pred".into(), false));
                }
                for (k, o) in i.operands.iter().enumerate() {
                    // The callee and prototype of `call` are not registers.
                    if i.opcode == "call" && matches!(o, Operand::Name { .. }) && k > 0 {
                        if let Operand::Name { name, .. } = o {
                            if !name.starts_with('%') || k + 1 == i.operands.len() {
                                n.skip.insert(name.clone());
                            }
                        }
                    }
                    // Branch targets are labels.
                    if matches!(i.opcode.as_str(), "bra" | "brx") {
                        if let Operand::Name { name, .. } = o {
                            n.skip.insert(name.clone());
                            if i.opcode == "bra" {
                                n.targets.insert(name.clone());
                            }
                        }
                    }
                    let vn = i.mods.iter().find_map(|m| match m.as_str() {
                        "v2" => Some(2),
                        "v4" => Some(4),
                        _ => None,
                    });
                    if let (Some(vn), true, Operand::Name { name, comp: None }) = (
                        vn,
                        matches!(i.opcode.as_str(), "ld" | "ldu" | "st" | "mov")
                            // The value operand: first of ld/ldu, second of st.
                            && k == (i.opcode == "st") as usize,
                        o,
                    ) {
                        n.vectors.insert(name.clone(), vn);
                    }
                    // `st.param [p], r`: `p` is a parameter variable of the body.
                    if let Operand::Addr {
                        base: Some(name), ..
                    } = o
                    {
                        if i.mods.iter().any(|m| m.starts_with("param")) {
                            n.params.insert(name.to_string());
                        }
                    }
                    walk_operand(o, n);
                }
            }
            _ => {}
        }
    }
}

/// Declarations for the registers a statement list uses without declaring, and the labels it
/// branches to without defining (the ISA's examples elide both; the labels go at the end).
fn implicit_decls(f: &Function) -> (String, String, BTreeSet<String>) {
    let mut conflicts = BTreeSet::new();
    let mut n = Names::default();
    for p in f.params.iter().chain(&f.ret_params) {
        n.declared.insert(p.name.clone());
    }
    for (l, _) in f
        .branch_targets
        .iter()
        .chain(&f.call_targets)
        .map(|(l, t)| (l, t))
    {
        n.skip.insert(l.clone());
    }
    for (l, _) in &f.prototypes {
        n.skip.insert(l.clone());
    }
    walk(f.body.as_deref().unwrap_or(&[]), &mut n);
    let mut out = String::new();
    for (name, comp) in &n.used {
        if n.declared.contains(name) || n.skip.contains(name) || predefined(name) {
            continue;
        }
        if n.params.contains(name) {
            out += &format!(".param .align 8 .b8 {name}[64];\n");
        } else if n.preds.contains(name) {
            if n.implied.get(name).is_some_and(|u| !register_type(u).1) {
                conflicts.insert(name.clone());
            }
            out += &format!(".reg .pred {name};\n");
        } else if n.vars.contains(name) {
            out += &format!(".shared .align 16 .b32 {name}[64];\n");
        } else if let Some(vn) = n.vectors.get(name) {
            out += &format!(".reg .v{vn} .b32 {name};\n");
        } else if *comp {
            out += &format!(".reg .v4 .b32 {name};\n");
        } else if let Some(uses) = n.implied.get(name) {
            let (ty, fits) = register_type(uses);
            if !fits {
                conflicts.insert(name.clone());
            }
            out += &format!(".reg .{ty} {name};\n");
        } else {
            out += &format!(".reg .b64 {name};\n");
        }
    }
    let mut labels = String::new();
    for t in n.targets.difference(&n.labels) {
        labels += &format!("{t}:\n");
    }
    (out, labels, conflicts)
}

/// A register type for a name the example uses without declaring, from the types its uses
/// imply (`pred` or `bN`, and whether a wider register would do): one that agrees with every
/// use, and `true`; else the first use's, and `false` (the example uses the name at two
/// incompatible types, as its fragments were written separately).
fn register_type(uses: &[(String, bool)]) -> (String, bool) {
    let bits = |t: &str| t.strip_prefix('b').and_then(|b| b.parse::<u32>().ok());
    let fits = |c: &str| {
        uses.iter().all(|(t, wider)| {
            c == t || (*wider && matches!((bits(c), bits(t)), (Some(a), Some(b)) if a >= b))
        })
    };
    match uses.iter().find(|(c, _)| fits(c)) {
        Some((c, _)) => (c.clone(), true),
        None => (uses[0].0.clone(), false),
    }
}

/// Parses an example: module-scope items at module scope (after a header unless it has its
/// own `.version`), loose statements in the body of a kernel, with declarations for the
/// registers they use without declaring. Returns the module text, whether it has a body, and
/// the undeclared names it uses at incompatible types ([`register_type`]).
fn parse_example(text: &str) -> Result<(String, bool, BTreeSet<String>), String> {
    let (module, body) = split(text);
    let header = if module.contains(".version") {
        ""
    } else if module.contains(".samplerref") {
        // Samplers exist only in the independent texturing mode (ptxas refuses a
        // `.samplerref` under the unified mode the plain header implies).
        HEADER_INDEPENDENT
    } else {
        HEADER
    };
    let has_body = !body.trim().is_empty();
    let assemble = |decls: &str, labels: &str| {
        if has_body {
            format!("{header}{module}.entry isa_example()\n{{\n{decls}{body}\n{labels}ret;\n}}\n")
        } else {
            format!("{header}{module}")
        }
    };
    let first = assemble("", "");
    let line_of = |t: &str, l: u32| {
        t.lines()
            .nth(l as usize - 1)
            .unwrap_or("")
            .trim()
            .to_string()
    };
    match parser::parse(&first) {
        Ok(m) if has_body => {
            let (decls, labels, conflicts) = implicit_decls(m.functions.last().unwrap());
            let text = assemble(&decls, &labels);
            match parser::parse(&text) {
                Ok(_) => Ok((text, true, conflicts)),
                Err(Error::Parse(e)) | Err(Error::Version(e)) => Err(format!(
                    "with implicit declarations: {}:{}: {}",
                    e.line, e.col, e.message
                )),
            }
        }
        Ok(_) => Ok((first, false, BTreeSet::new())),
        Err(Error::Parse(e)) | Err(Error::Version(e)) => Err(format!(
            "{}:{}: {} [{}]",
            e.line,
            e.col,
            e.message,
            line_of(&first, e.line)
        )),
    }
}

/// Whether `message` is the operand type check rejecting one of `conflicts` (names the harness
/// had to declare at one of two incompatible types).
fn reused_at_two_types(message: &str, conflicts: &BTreeSet<String>) -> bool {
    message.contains("(PTX ISA 9.4")
        && conflicts
            .iter()
            .any(|n| message.contains(&format!("'{n}' is declared")))
}

#[test]
fn every_isa_example_parses_and_lowers_or_is_rejected_precisely() {
    let mut files: Vec<_> = std::fs::read_dir(data_dir())
        .expect("tests/data/isa_examples (run scripts/extract-isa-examples.py)")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    assert!(files.len() > 250, "too few ISA examples: {}", files.len());
    let names: BTreeSet<String> = files
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for (f, _) in EXCLUDED {
        assert!(names.contains(*f), "excluded example {f} no longer exists");
    }
    let (mut parsed, mut excluded, mut lowered, mut lower_only_ok) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut unsupported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut invalid = Vec::new();
    // Examples whose fragments use one undeclared name at incompatible types: no declaration
    // makes them valid as one body, so the operand type check (ISA 9.4) may reject them.
    let mut reused = BTreeSet::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if EXCLUDED.iter().any(|(f, _)| *f == name) {
            excluded += 1;
            continue;
        }
        let text = prepare(&std::fs::read_to_string(path).unwrap());
        let (src, is_body, conflicts) = match parse_example(&text) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        parsed += 1;
        // Lower-only: every instruction is valid PTX, so every one lowers to IR (to a typed op,
        // or to a decoded placeholder the executor cannot run yet).
        match std::panic::catch_unwind(|| engine::check(&src, &name, true)) {
            Err(_) => failures.push(format!("{name}: check --lower-only panicked")),
            Ok(c) if !c.ok() => {
                let e = c.error.unwrap();
                if reused_at_two_types(&e.diagnostics[0].message, &conflicts) {
                    reused.insert(name.clone());
                } else {
                    failures.push(format!("{name}: check --lower-only: {e}"))
                }
            }
            Ok(c) => lower_only_ok += usize::from(c.instructions > 0 || c.functions > 0),
        }
        let r = std::panic::catch_unwind(|| Module::load(&src, &name).map(|_| ()));
        match r {
            Err(_) => failures.push(format!("{name}: Module::load panicked")),
            Ok(Ok(())) => lowered += 1,
            Ok(Err(e)) => {
                let d = &e.diagnostics[0];
                assert!(
                    e.to_string()
                        .starts_with(&format!("{name}:{}:{}: error: ", d.line, d.col)),
                    "{name}: diagnostic not in FILE:LINE:COL form: {e}"
                );
                match e.kind {
                    _ if reused_at_two_types(&d.message, &conflicts) => {
                        reused.insert(name.clone());
                    }
                    LoadErrorKind::Unsupported => unsupported
                        .entry(d.message.clone())
                        .or_default()
                        .push(name.clone()),
                    _ => invalid.push(format!(
                        "{name}{}: {}",
                        if is_body { " (body)" } else { "" },
                        d.message
                    )),
                }
            }
        }
    }
    println!(
        "ISA examples: {} files, {parsed} parsed, {excluded} excluded, {lower_only_ok} pass \
         --lower-only; plain load: {lowered} lowered, {} rejected as unsupported, {} rejected \
         as invalid",
        files.len(),
        unsupported.values().map(Vec::len).sum::<usize>(),
        invalid.len()
    );
    println!(
        "  {} examples use an undeclared name at incompatible types (rejected by the operand \
         type check, as ptxas would): {}",
        reused.len(),
        reused.iter().cloned().collect::<Vec<_>>().join(" ")
    );
    for (m, f) in &unsupported {
        println!("  unsupported: {m}: {}", f.join(" "));
    }
    for m in &invalid {
        println!("  lowering rejected: {m}");
    }
    // Valid PTX is never rejected as invalid, in either mode.
    failures.extend(
        invalid
            .iter()
            .map(|m| format!("plain load rejected as invalid: {m}")),
    );
    assert!(
        failures.is_empty(),
        "{} ISA examples failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
