//! Linking several PTX modules into one (ISA 11.6, linking directives), as the driver's linker
//! does for `cuLink*` and for `-rdc=true` programs.
//!
//! Every input is parsed on its own, then the syntax trees are merged into one module that is
//! lowered as usual:
//! - `.extern` declarations resolve against the one `.visible` definition of the name, else
//!   against a `.weak` one (the first in input order: weak symbols are "only chosen after
//!   globally visible symbols"), else against the largest `.common` variable;
//! - two `.visible` definitions of a name, or two initialized `.common` ones, are load errors;
//! - a referenced `.extern` with no definition is an "undefined reference" naming the symbol and
//!   the `file:line` of its first use (the real driver answers CUDA_ERROR_INVALID_IMAGE /
//!   "Undefined reference"); the driver's own system calls (`vprintf`, `malloc`, ...) are
//!   exempt, lowering implements them;
//! - symbols without linking directive are private to their input: where the same name also
//!   exists in another input, the private one is renamed `NAME$linkK` (K = input index) so the
//!   inputs cannot see each other's internals.
//!
//! Positions of input K are shifted by the line counts of the inputs before it, so the merged
//! module keeps distinct lines and [`Linked::locate`] maps any line back to `file:line`.

use crate::diag::{Diagnostic, LoadError, LoadErrorKind};
use crate::ptx::ast::{self, Init, Operand, Space, Statement, VarDecl};
use crate::ptx::parser::{self, Error as PErr};
use std::collections::{HashMap, HashSet};

/// The merged module of a link, with the first merged line of each input.
pub(crate) struct Linked {
    pub module: ast::Module,
    /// `(first merged line - 1, name)` per input, in order.
    pub files: Vec<(u32, String)>,
}

impl Linked {
    /// The input and its own line for a line of the merged module.
    pub fn locate(&self, line: u32) -> (String, u32) {
        let k = self.files.partition_point(|(base, _)| *base < line).max(1) - 1;
        let (base, name) = &self.files[k];
        (name.clone(), line - base)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Linkage {
    Extern,
    Visible,
    Weak,
    Common,
    Internal,
}

fn linkage(attrs: &[String]) -> Linkage {
    let has = |w: &str| attrs.iter().any(|a| a == w);
    if has("extern") {
        Linkage::Extern
    } else if has("visible") {
        Linkage::Visible
    } else if has("weak") {
        Linkage::Weak
    } else if has("common") {
        Linkage::Common
    } else {
        Linkage::Internal
    }
}

/// One module-scope symbol of one input.
#[derive(Clone, Copy, Debug)]
struct Sym {
    input: usize,
    /// Index into the input's `functions` or `globals`.
    index: usize,
    func: bool,
    link: Linkage,
    pos: ast::Pos,
}

fn load_error(kind: LoadErrorKind, file: &str, pos: ast::Pos, message: String) -> LoadError {
    LoadError {
        kind,
        diagnostics: vec![Diagnostic {
            file: file.to_string(),
            line: pos.line,
            col: pos.col,
            message,
        }],
    }
}

/// Whether a module-scope variable takes part in linking. `.extern .shared` arrays name the
/// dynamic shared memory of a launch (ISA 5.1.5), not a symbol of another module; `.shared`
/// and `.local` variables are per-CTA / per-thread storage, private to their module.
fn linkable_var(v: &VarDecl) -> bool {
    !matches!(
        v.space,
        Space::Shared | Space::Local | Space::Reg | Space::Sreg
    )
}

/// Parses and links `inputs` (PTX text, name for diagnostics) into one module.
pub(crate) fn link(inputs: &[(&str, &str)]) -> Result<Linked, LoadError> {
    if inputs.is_empty() {
        return Err(load_error(
            LoadErrorKind::InvalidPtx,
            "<link>",
            ast::Pos::default(),
            "nothing to link: no input".into(),
        ));
    }
    let mut mods = Vec::with_capacity(inputs.len());
    for &(ptx, name) in inputs {
        let m = parser::parse(ptx).map_err(|e| match e {
            PErr::Parse(e) => load_error(
                LoadErrorKind::InvalidPtx,
                name,
                ast::Pos {
                    line: e.line,
                    col: e.col,
                },
                e.message,
            ),
            PErr::Version(e) => load_error(
                LoadErrorKind::UnsupportedVersion,
                name,
                ast::Pos {
                    line: e.line,
                    col: e.col,
                },
                e.message,
            ),
        })?;
        mods.push(m);
    }
    link_parsed(inputs, mods)
}

/// [`link`] of inputs already parsed: `mods[k]` is the syntax tree of `inputs[k]`.
pub(crate) fn link_parsed(
    inputs: &[(&str, &str)],
    mut mods: Vec<ast::Module>,
) -> Result<Linked, LoadError> {
    // A module calling the device runtime's cooperative-groups functions gets the engine's PTX
    // of them as one more input (NVIDIA's libcudadevrt has machine code only).
    let with_devrt;
    let inputs = if crate::devrt::needed(&mods) {
        let mut lib =
            parser::parse(crate::devrt::LIBRARY).expect("the device runtime's PTX parses");
        // Its `.target` must not widen the program's.
        lib.target.clear();
        mods.push(lib);
        with_devrt = inputs
            .iter()
            .copied()
            .chain([(crate::devrt::LIBRARY, crate::devrt::NAME)])
            .collect::<Vec<_>>();
        &with_devrt[..]
    } else {
        inputs
    };
    let name_of = |k: usize| inputs[k].1;
    for (k, m) in mods.iter().enumerate().skip(1) {
        if m.address_size != mods[0].address_size {
            return Err(load_error(
                LoadErrorKind::InvalidPtx,
                name_of(k),
                ast::Pos::default(),
                format!(
                    ".address_size {} does not match .address_size {} of '{}'",
                    m.address_size,
                    mods[0].address_size,
                    name_of(0)
                ),
            ));
        }
    }

    // Module-scope symbols of every input. A function declared without a body and without
    // `.extern` is a forward declaration (a prototype) of a function its own input defines
    // later (numba and NVVM declare every callee before its definition this way): it is no
    // symbol of its own, whatever its linkage word. Only `.extern` declares a function of
    // another input; ptxas rejects a prototype that its input leaves undefined ("Unresolved
    // extern function"), even where another input defines the name.
    let symbols = |mods: &[ast::Module]| {
        let mut by_name: HashMap<String, Vec<Sym>> = HashMap::new();
        for (k, m) in mods.iter().enumerate() {
            let defined: HashSet<&str> = (m.functions.iter())
                .filter(|f| f.body.is_some())
                .map(|f| f.name.as_str())
                .collect();
            for (i, f) in m.functions.iter().enumerate() {
                if is_prototype(f) && defined.contains(f.name.as_str()) {
                    continue;
                }
                let link = if f.body.is_none() {
                    Linkage::Extern
                } else if f.is_entry {
                    // Kernels are what the driver looks up by name: always visible.
                    Linkage::Visible
                } else {
                    match linkage(&f.attrs) {
                        Linkage::Extern | Linkage::Common => Linkage::Visible,
                        l => l,
                    }
                };
                by_name.entry(f.name.clone()).or_default().push(Sym {
                    input: k,
                    index: i,
                    func: true,
                    link,
                    pos: f.pos,
                });
            }
            for (i, g) in m.globals.iter().enumerate() {
                let link = if linkable_var(g) {
                    linkage(&g.attrs)
                } else {
                    Linkage::Internal
                };
                by_name.entry(g.name.clone()).or_default().push(Sym {
                    input: k,
                    index: i,
                    func: false,
                    link,
                    pos: g.pos,
                });
            }
        }
        by_name
    };

    // Private symbols whose name another input also uses are renamed in their input. A
    // private function's forward declarations (bodiless, same input) follow it.
    let by_name = symbols(&mods);
    let mut renames: Vec<HashMap<String, String>> = vec![HashMap::new(); mods.len()];
    for (name, syms) in &by_name {
        for s in syms.iter().filter(|s| s.link == Linkage::Internal) {
            let shared_dyn = !s.func && {
                let g = &mods[s.input].globals[s.index];
                g.space == Space::Shared && g.attrs.iter().any(|a| a == "extern")
            };
            if shared_dyn {
                continue; // every `.extern .shared` names the same dynamic shared window
            }
            if syms.iter().any(|o| o.input != s.input) {
                renames[s.input].insert(name.clone(), format!("{name}$link{}", s.input));
            }
        }
    }
    for (k, m) in mods.iter_mut().enumerate() {
        if !renames[k].is_empty() {
            let map = &renames[k];
            rename_module(m, &|n: &str| map.get(n).cloned());
        }
    }

    // First reference of every name in each input (for "undefined reference" diagnostics).
    let mut first_use: HashMap<(usize, String), ast::Pos> = HashMap::new();
    for (k, m) in mods.iter().enumerate() {
        for f in &m.functions {
            if let Some(body) = &f.body {
                uses_in(body, &mut |n, pos| {
                    first_use.entry((k, n.to_string())).or_insert(pos);
                });
            }
        }
        for g in &m.globals {
            if let Some(init) = &g.init {
                init_syms(init, &mut |n| {
                    first_use.entry((k, n.to_string())).or_insert(g.pos);
                });
            }
        }
    }

    // Prototypes whose input defines no such function: an error where used, as in ptxas.
    let mut undefined: Vec<(usize, ast::Pos, String)> = Vec::new();
    for (k, m) in mods.iter().enumerate() {
        for f in m.functions.iter().filter(|f| is_prototype(f)) {
            let defined = m
                .functions
                .iter()
                .any(|g| g.name == f.name && g.body.is_some());
            if defined || crate::ir::SysCall::by_name(&f.name).is_some() {
                continue;
            }
            if let Some(&pos) = first_use.get(&(k, f.name.clone())) {
                undefined.push((
                    k,
                    pos,
                    format!(
                        "Unresolved extern function '{}' (declared at line {} without .extern, \
                         so it must be defined in the same module)",
                        f.name, f.pos.line
                    ),
                ));
            }
        }
    }

    // Resolution: which declarations and definitions survive into the merged module.
    let by_name = symbols(&mods);
    let mut drop_fn: Vec<HashSet<usize>> = vec![HashSet::new(); mods.len()];
    let mut drop_var: Vec<HashSet<usize>> = vec![HashSet::new(); mods.len()];
    let mut names: Vec<&String> = by_name.keys().collect();
    names.sort(); // deterministic diagnostics
    let at = |s: &Sym| format!("{}:{}", name_of(s.input), s.pos.line);
    // Every undefined reference is reported (as linkers do), in input and line order.
    for name in names {
        let syms = &by_name[name];
        let mut drop = |s: &Sym| {
            if s.func {
                drop_fn[s.input].insert(s.index);
            } else {
                drop_var[s.input].insert(s.index);
            }
        };
        // Extern `.shared` declarations: one survives (the most aligned; all alias one window).
        let is_dyn = |s: &Sym| {
            !s.func && {
                let g = &mods[s.input].globals[s.index];
                g.space == Space::Shared && g.attrs.iter().any(|a| a == "extern")
            }
        };
        let dyns: Vec<&Sym> = syms.iter().filter(|s| is_dyn(s)).collect();
        if dyns.len() > 1 {
            let align = |s: &Sym| mods[s.input].globals[s.index].align.unwrap_or(1);
            let keep = dyns
                .iter()
                .max_by_key(|s| align(s))
                .map(|s| (s.input, s.index));
            for s in &dyns {
                if Some((s.input, s.index)) != keep {
                    drop(s);
                }
            }
        }
        let syms: Vec<&Sym> = syms
            .iter()
            .filter(|s| !is_dyn(s) && s.link != Linkage::Internal)
            .collect();
        if syms.is_empty() {
            continue;
        }
        if syms.iter().any(|s| s.func) && syms.iter().any(|s| !s.func) {
            let (f, v) = (
                syms.iter().find(|s| s.func).unwrap(),
                syms.iter().find(|s| !s.func).unwrap(),
            );
            let later = if (f.input, f.pos.line) > (v.input, v.pos.line) {
                f
            } else {
                v
            };
            return Err(load_error(
                LoadErrorKind::InvalidPtx,
                name_of(later.input),
                later.pos,
                format!(
                    "'{name}' is declared both as a function ({}) and as a variable ({})",
                    at(f),
                    at(v)
                ),
            ));
        }
        let visible: Vec<&&Sym> = syms.iter().filter(|s| s.link == Linkage::Visible).collect();
        if visible.len() > 1 {
            return Err(load_error(
                LoadErrorKind::InvalidPtx,
                name_of(visible[1].input),
                visible[1].pos,
                format!(
                    "duplicate definition of '{name}' (first defined at {})",
                    at(visible[0])
                ),
            ));
        }
        let commons: Vec<&&Sym> = syms.iter().filter(|s| s.link == Linkage::Common).collect();
        let winner: Option<&Sym> = if let Some(v) = visible.first() {
            Some(v)
        } else if let Some(w) = syms.iter().find(|s| s.link == Linkage::Weak) {
            Some(w)
        } else if !commons.is_empty() {
            // The largest common wins; only it may carry the initializer (ISA 11.6.4).
            let size = |s: &Sym| -> Result<u64, LoadError> {
                let g = &mods[s.input].globals[s.index];
                crate::lower::var_layout(g)
                    .map(|(n, _)| n)
                    .map_err(|e| load_error(e.kind, name_of(s.input), e.pos, e.message))
            };
            let mut best = commons[0];
            for c in &commons[1..] {
                if size(c)? > size(best)? {
                    best = c;
                }
            }
            let inits: Vec<&&&Sym> = commons
                .iter()
                .filter(|s| mods[s.input].globals[s.index].init.is_some())
                .collect();
            if inits.len() > 1 {
                return Err(load_error(
                    LoadErrorKind::InvalidPtx,
                    name_of(inits[1].input),
                    inits[1].pos,
                    format!(
                        "common symbol '{name}' is initialized in more than one module (also at {})",
                        at(inits[0])
                    ),
                ));
            }
            if let Some(i) = inits.first() {
                if size(i)? < size(best)? {
                    return Err(load_error(
                        LoadErrorKind::InvalidPtx,
                        name_of(i.input),
                        i.pos,
                        format!(
                            "common symbol '{name}' is initialized here but a larger declaration \
                             exists at {}: only the largest may be initialized",
                            at(best)
                        ),
                    ));
                }
            }
            Some(best)
        } else {
            None
        };
        match winner {
            Some(w) => {
                // nvlink compares every `.extern` declaration of a function with the
                // definition it binds to ("Prototype doesn't match").
                if w.func {
                    let def = &mods[w.input].functions[w.index];
                    for s in syms.iter().filter(|s| s.link == Linkage::Extern) {
                        let decl = &mods[s.input].functions[s.index];
                        if signature(decl) != signature(def) {
                            return Err(load_error(
                                LoadErrorKind::InvalidPtx,
                                name_of(s.input),
                                s.pos,
                                format!(
                                    "Prototype doesn't match for '{name}': declared here as {}, \
                                     defined at {} as {}",
                                    show_signature(decl),
                                    at(w),
                                    show_signature(def)
                                ),
                            ));
                        }
                    }
                }
                for s in &syms {
                    if (s.input, s.index) != (w.input, w.index) {
                        drop(s);
                    }
                }
            }
            None => {
                // Only declarations: an error where used, unless lowering implements it.
                let used = syms
                    .iter()
                    .filter_map(|s| first_use.get(&(s.input, name.clone())).map(|p| (s, *p)))
                    .min_by_key(|(s, p)| (s.input, p.line, p.col));
                if let Some((s, pos)) = used {
                    if !(s.func && crate::ir::SysCall::by_name(name).is_some()) {
                        let hint = if name == "cudaDeviceSynchronize"
                            || name == "__cudaCDP2DeviceSynchronize"
                        {
                            " (device-side cudaDeviceSynchronize is the dynamic parallelism of \
                             CUDA 11 and earlier, removed in CUDA 12; it is not supported)"
                        } else if name.starts_with("cuda") || name.starts_with("__cudaCDP") {
                            " (a device-runtime function the engine does not provide)"
                        } else {
                            ""
                        };
                        undefined.push((
                            s.input,
                            pos,
                            format!("Undefined reference to '{name}'{hint}"),
                        ));
                    }
                }
                // Keep one declaration of a function (a system call's signature); drop the rest.
                let keep = syms.iter().find(|s| s.func).map(|s| (s.input, s.index));
                for s in &syms {
                    if Some((s.input, s.index)) != keep {
                        drop(s);
                    }
                }
            }
        }
    }

    if !undefined.is_empty() {
        undefined.sort_by_key(|(k, p, _)| (*k, p.line, p.col));
        return Err(LoadError {
            kind: LoadErrorKind::InvalidPtx,
            diagnostics: undefined
                .into_iter()
                .map(|(k, pos, message)| Diagnostic {
                    file: name_of(k).to_string(),
                    line: pos.line,
                    col: pos.col,
                    message,
                })
                .collect(),
        });
    }

    // Merge, shifting each input's lines past the previous inputs'.
    let mut merged = ast::Module {
        address_size: mods[0].address_size,
        ..Default::default()
    };
    let mut files = Vec::with_capacity(mods.len());
    let mut base = 0u32;
    for (k, mut m) in mods.into_iter().enumerate() {
        if base > 0 {
            shift_module(&mut m, base);
        }
        files.push((base, name_of(k).to_string()));
        merged.version = merged.version.max(m.version);
        for t in m.target {
            if !merged.target.contains(&t) {
                merged.target.push(t);
            }
        }
        merged.functions.extend(
            m.functions
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !drop_fn[k].contains(i))
                .map(|(_, f)| f),
        );
        merged.globals.extend(
            m.globals
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !drop_var[k].contains(i))
                .map(|(_, g)| g),
        );
        merged.aliases.extend(m.aliases);
        merged.files.extend(m.files);
        merged.sections.extend(m.sections);
        merged.pragmas.extend(m.pragmas);
        let lines = inputs[k].0.lines().count() as u32 + 1;
        base = base.saturating_add(lines);
    }
    Ok(Linked {
        module: merged,
        files,
    })
}

/// A function declared without a body and without `.extern`: a forward declaration of a
/// function defined later in the same module.
fn is_prototype(f: &ast::Function) -> bool {
    f.body.is_none() && !f.is_entry && !f.attrs.iter().any(|a| a == "extern")
}

/// How nvlink compares a parameter of two prototypes (measured with nvlink 13.5 on `ptxas -c`
/// objects): scalars by size and by being floating-point or not (`.b32`, `.u32` and `.s32`
/// match each other, `.f32` matches none of them); byte arrays by element type and count,
/// whatever their alignment; a scalar never matches an array.
#[derive(Debug, PartialEq, Eq)]
enum ParamShape {
    Scalar { float: bool, bits: u64 },
    Array { float: bool, bits: u64, count: u64 },
}

fn param_shape(d: &VarDecl) -> ParamShape {
    let ty = d.ty.as_str();
    let float = ty.starts_with('f') || ty.starts_with("bf");
    let digits: String = ty.chars().filter(|c| c.is_ascii_digit()).collect();
    let bits = digits.parse::<u64>().unwrap_or(0) * d.vec.max(1) as u64;
    if d.dims.is_empty() {
        ParamShape::Scalar { float, bits }
    } else {
        let count = d.dims.iter().map(|x| x.unwrap_or(0)).product();
        ParamShape::Array { float, bits, count }
    }
}

/// The parts of a function's prototype the linker compares: return and parameter shapes.
fn signature(f: &ast::Function) -> (Vec<ParamShape>, Vec<ParamShape>) {
    (
        f.ret_params.iter().map(param_shape).collect(),
        f.params.iter().map(param_shape).collect(),
    )
}

/// `(.b64) name(.b32, .align 8 .b8[16])` for diagnostics.
fn show_signature(f: &ast::Function) -> String {
    let list = |ps: &[VarDecl]| {
        ps.iter()
            .map(|p| {
                let dims: String = p
                    .dims
                    .iter()
                    .map(|d| format!("[{}]", d.unwrap_or(0)))
                    .collect();
                format!(".{}{dims}", p.ty)
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let rets = if f.ret_params.is_empty() {
        String::new()
    } else {
        format!("({}) ", list(&f.ret_params))
    };
    format!("{rets}{}({})", f.name, list(&f.params))
}

/// Calls `f` for every name an instruction operand or a local initializer uses, with its
/// position.
fn uses_in(body: &[Statement], f: &mut dyn FnMut(&str, ast::Pos)) {
    fn op(o: &Operand, pos: ast::Pos, f: &mut dyn FnMut(&str, ast::Pos)) {
        match o {
            Operand::Name { name, .. } | Operand::SymOff { name, .. } => f(name, pos),
            Operand::Addr { base: Some(b), .. } => f(b, pos),
            Operand::Index { name, index } => {
                f(name, pos);
                op(index, pos, f);
            }
            Operand::Vector(v) | Operand::List(v) | Operand::Tuple(v) => {
                v.iter().for_each(|x| op(x, pos, f))
            }
            Operand::Not(x) | Operand::Neg(x) => op(x, pos, f),
            Operand::Pair(a, b) => {
                op(a, pos, f);
                op(b, pos, f);
            }
            _ => {}
        }
    }
    for s in body {
        match s {
            Statement::Inst(i) => i.operands.iter().for_each(|o| op(o, i.pos, f)),
            Statement::Var(v) => {
                if let Some(init) = &v.init {
                    init_syms(init, &mut |n| f(n, v.pos));
                }
            }
            Statement::Block(b) => uses_in(b, f),
            _ => {}
        }
    }
}

fn init_syms(i: &Init, f: &mut dyn FnMut(&str)) {
    match i {
        Init::Sym { name, .. } => f(name),
        Init::List(l) => l.iter().for_each(|x| init_syms(x, f)),
        _ => {}
    }
}

/// Renames module-scope symbols throughout `m`. Inside a function, names it declares itself
/// (parameters, locals, labels) shadow module-scope ones and are left alone.
fn rename_module(m: &mut ast::Module, map: &dyn Fn(&str) -> Option<String>) {
    let fix = |s: &mut String| {
        if let Some(n) = map(s) {
            *s = n;
        }
    };
    /// `fix` for a [`ast::Name`] field.
    fn fix_name(n: &mut ast::Name, fix: &dyn Fn(&mut String)) {
        let mut s = n.to_string();
        fix(&mut s);
        if s != *n {
            *n = s.into();
        }
    }
    fn init(i: &mut Init, fix: &dyn Fn(&mut String)) {
        match i {
            Init::Sym { name, .. } => fix_name(name, fix),
            Init::List(l) => l.iter_mut().for_each(|x| init(x, fix)),
            _ => {}
        }
    }
    fn op(o: &mut Operand, fix: &dyn Fn(&mut String)) {
        match o {
            Operand::Name { name, .. } | Operand::SymOff { name, .. } => fix(name),
            Operand::Addr { base: Some(b), .. } => fix_name(b, fix),
            Operand::Index { name, index } => {
                fix(name);
                op(index, fix);
            }
            Operand::Vector(v) | Operand::List(v) | Operand::Tuple(v) => {
                v.iter_mut().for_each(|x| op(x, fix))
            }
            Operand::Not(x) | Operand::Neg(x) => op(x, fix),
            Operand::Pair(a, b) => {
                op(a, fix);
                op(b, fix);
            }
            _ => {}
        }
    }
    fn locals(body: &[Statement], out: &mut HashSet<String>) {
        for s in body {
            match s {
                Statement::Var(v) => {
                    out.insert(v.name.clone());
                }
                Statement::Label(l, _) => {
                    out.insert(l.clone());
                }
                Statement::Block(b) => locals(b, out),
                _ => {}
            }
        }
    }
    fn body(st: &mut [Statement], fix: &dyn Fn(&mut String)) {
        for s in st {
            match s {
                Statement::Inst(i) => i.operands.iter_mut().for_each(|o| op(o, fix)),
                Statement::Var(v) => {
                    if let Some(i) = &mut v.init {
                        init(i, fix);
                    }
                }
                Statement::Block(b) => body(b, fix),
                _ => {}
            }
        }
    }
    for g in &mut m.globals {
        fix(&mut g.name);
        if let Some(i) = &mut g.init {
            init(i, &fix);
        }
    }
    for (a, b) in &mut m.aliases {
        fix(a);
        fix(b);
    }
    for f in &mut m.functions {
        fix(&mut f.name);
        let mut shadow = HashSet::new();
        for p in f.params.iter().chain(&f.ret_params) {
            shadow.insert(p.name.clone());
        }
        if let Some(b) = &f.body {
            locals(b, &mut shadow);
        }
        let ffix = |s: &mut String| {
            if !shadow.contains(s.as_str()) {
                fix(s)
            }
        };
        if let Some(b) = &mut f.body {
            body(b, &ffix);
        }
        for (_, targets) in &mut f.call_targets {
            targets.iter_mut().for_each(&ffix);
        }
        for (_, loc) in &mut f.locs {
            if let Some((n, _)) = &mut loc.function_name {
                ffix(n);
            }
        }
    }
    for s in &mut m.sections {
        for item in &mut s.items {
            if let ast::SectionItem::Data { values, .. } = item {
                for v in values {
                    v.syms.iter_mut().for_each(|(n, _)| fix(n));
                }
            }
        }
    }
}

/// Adds `by` to every line number of `m`.
fn shift_module(m: &mut ast::Module, by: u32) {
    let sh = |p: &mut ast::Pos| p.line = p.line.saturating_add(by);
    fn body(st: &mut [Statement], sh: &dyn Fn(&mut ast::Pos)) {
        for s in st {
            match s {
                Statement::Inst(i) => sh(&mut i.pos),
                Statement::Label(_, p) | Statement::Other(p) => sh(p),
                Statement::Var(v) => sh(&mut v.pos),
                Statement::Block(b) => body(b, sh),
            }
        }
    }
    for g in &mut m.globals {
        sh(&mut g.pos);
    }
    for s in &mut m.sections {
        sh(&mut s.pos);
    }
    for f in &mut m.functions {
        sh(&mut f.pos);
        f.params.iter_mut().for_each(|p| sh(&mut p.pos));
        f.ret_params.iter_mut().for_each(|p| sh(&mut p.pos));
        if let Some(b) = &mut f.body {
            body(b, &sh);
        }
        for (_, p) in &mut f.prototypes {
            sh(&mut p.pos);
            p.params.iter_mut().for_each(|d| sh(&mut d.pos));
            p.ret_params.iter_mut().for_each(|d| sh(&mut d.pos));
        }
        for (p, _) in &mut f.locs {
            sh(p);
        }
    }
}

#[cfg(test)]
mod tests {
    //! Expected values are the arithmetic of the PTX written here (ISA 11.6 for which
    //! definition wins).
    use crate::{launch, mem, LaunchConfig, LoadErrorKind, Module};

    const HEAD: &str = ".version 8.5\n.target sm_80\n.address_size 64\n";

    /// Links `srcs`, runs `k(u64 out)` on one thread and returns `n` u32 of `out`.
    fn run(srcs: &[&str], n: usize) -> Vec<u32> {
        let texts: Vec<String> = srcs.iter().map(|s| format!("{HEAD}{s}")).collect();
        let names: Vec<String> = (0..srcs.len()).map(|i| format!("in{i}.ptx")).collect();
        let inputs: Vec<(&str, &str)> = texts
            .iter()
            .zip(&names)
            .map(|(t, n)| (t.as_str(), n.as_str()))
            .collect();
        let m = Module::link(&inputs).unwrap_or_else(|e| panic!("{e}"));
        let out = mem::alloc(4 * n as u64).unwrap();
        let cfg = LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared_bytes: 0,
            cluster: [1, 1, 1],
            explicit_cluster: false,
        };
        launch(&m.kernel("k").unwrap(), &cfg, &out.to_le_bytes()).unwrap_or_else(|e| panic!("{e}"));
        let mut v = vec![0u32; n];
        // SAFETY: `out` is a live allocation of `n` u32.
        unsafe { std::ptr::copy_nonoverlapping(out as *const u32, v.as_mut_ptr(), n) };
        mem::free(out).unwrap();
        v
    }

    fn link_err(srcs: &[&str]) -> crate::LoadError {
        let texts: Vec<String> = srcs.iter().map(|s| format!("{HEAD}{s}")).collect();
        let names: Vec<String> = (0..srcs.len()).map(|i| format!("in{i}.ptx")).collect();
        let inputs: Vec<(&str, &str)> = texts
            .iter()
            .zip(&names)
            .map(|(t, n)| (t.as_str(), n.as_str()))
            .collect();
        match Module::link(&inputs) {
            Ok(_) => panic!("link must fail"),
            Err(e) => e,
        }
    }

    /// A kernel that stores `f(5)` and the extern `g` into out[0], out[1].
    const USER: &str = "
.extern .func (.param .b32 r) f (.param .b32 a);
.extern .global .align 4 .u32 g;
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], 5;
    call.uni (r0), f, (a0);
    ld.param.b32 %r1, [r0];
    }
    ld.global.u32 %r2, [g];
    st.global.u32 [%rd1], %r1;
    st.global.u32 [%rd1+4], %r2;
    ret;
}
";

    #[test]
    fn extern_function_and_variable_resolve_across_inputs() {
        // f(a) = 3a + 1 = 16; g = 42.
        let lib = "
.visible .global .align 4 .u32 g = 42;
.visible .func (.param .b32 r) f (.param .b32 a)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [a];
    mad.lo.s32 %r2, %r1, 3, 1;
    st.param.b32 [r], %r2;
    ret;
}
";
        assert_eq!(run(&[USER, lib], 2), vec![16, 42]);
        // Order does not matter.
        assert_eq!(run(&[lib, USER], 2), vec![16, 42]);
    }

    #[test]
    fn weak_loses_to_visible_and_first_weak_wins_alone() {
        let weak = "
.weak .global .align 4 .u32 g = 1;
.weak .func (.param .b32 r) f (.param .b32 a)
{
    st.param.b32 [r], 100;
    ret;
}
";
        let strong = "
.visible .global .align 4 .u32 g = 2;
.visible .func (.param .b32 r) f (.param .b32 a)
{
    st.param.b32 [r], 200;
    ret;
}
";
        let weak2 = weak.replace("= 1", "= 3").replace("100", "300");
        assert_eq!(run(&[USER, weak, strong], 2), vec![200, 2]);
        assert_eq!(run(&[USER, weak, &weak2], 2), vec![100, 1]);
    }

    #[test]
    fn common_takes_the_largest_declaration() {
        // g: .common u32 (4 bytes) in one input, .common u32[4] initialized in the other. The
        // kernel reads g[0] through the 4-byte declaration: it is the array's first element.
        let small = "
.common .global .align 4 .u32 g;
.visible .func (.param .b32 r) f (.param .b32 a)
{
    .reg .b32 %r<3>;
    ld.global.u32 %r1, [g+12];
    st.param.b32 [r], %r1;
    ret;
}
";
        let big = ".common .global .align 4 .u32 g[4] = {7, 8, 9, 10};\n";
        assert_eq!(run(&[USER, small, big], 2), vec![10, 7]);
        // Initializing the smaller one is an error (ISA 11.6.4).
        let bad_small = small.replace(".u32 g;", ".u32 g = 5;");
        let bad = ".common .global .align 4 .u32 g[4];\n";
        let e = link_err(&[USER, &bad_small, bad]);
        assert!(e.to_string().contains("only the largest"), "{e}");
    }

    #[test]
    fn private_symbols_of_different_inputs_do_not_collide() {
        // Both inputs have a private `h` and a private `helper`: each sees its own.
        let a = "
.global .align 4 .u32 h = 11;
.func (.param .b32 r) helper ()
{
    st.param.b32 [r], 1000;
    ret;
}
.visible .func (.param .b32 r) f (.param .b32 a)
{
    .reg .b32 %r<4>;
    ld.global.u32 %r1, [h];
    {
    .param .b32 q;
    call.uni (q), helper, ();
    ld.param.b32 %r2, [q];
    }
    add.s32 %r3, %r1, %r2;
    st.param.b32 [r], %r3;
    ret;
}
";
        let b = "
.global .align 4 .u32 h = 22;
.func (.param .b32 r) helper ()
{
    st.param.b32 [r], 2000;
    ret;
}
.visible .global .align 4 .u32 g;
.visible .entry init()
{
    ret;
}
";
        // f = h_a + helper_a = 11 + 1000; g is zero-initialized.
        assert_eq!(run(&[USER, a, b], 2), vec![1011, 0]);
    }

    #[test]
    fn duplicate_and_undefined_symbols_are_errors_with_file_and_line() {
        let def = ".visible .global .u32 g;\n.visible .func (.param .b32 r) f (.param .b32 a)\n{\nret;\n}\n";
        let e = link_err(&[USER, def, def]);
        assert_eq!(e.kind, LoadErrorKind::InvalidPtx);
        let d = &e.diagnostics[0];
        assert!(d.message.contains("duplicate definition of 'f'"), "{e}");
        assert!(d.message.contains("in1.ptx:5"), "{e}");
        assert_eq!((d.file.as_str(), d.line), ("in2.ptx", 5));

        // Only g defined: f is undefined; its first use is the call, line 16 of in0.ptx (3
        // header lines, USER's empty first line, then the call on USER's 13th line).
        let e = link_err(&[USER, ".visible .global .u32 g;\n"]);
        let d = &e.diagnostics[0];
        assert_eq!(d.message, "Undefined reference to 'f'");
        assert_eq!((d.file.as_str(), d.line), ("in0.ptx", 16));
        // With nothing defined, both are reported, in line order (g is read on line 19).
        let e = link_err(&[USER, ".visible .global .u32 other;\n"]);
        let lines: Vec<(u32, &str)> = (e.diagnostics.iter())
            .map(|d| (d.line, d.message.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (16, "Undefined reference to 'f'"),
                (19, "Undefined reference to 'g'")
            ]
        );
    }

    #[test]
    fn lowering_errors_name_the_input_and_its_line() {
        let lib = "
.visible .global .u32 g;
.visible .func (.param .b32 r) f (.param .b32 a)
{
    bogus.op.u32 %r1;
    ret;
}
";
        let e = link_err(&[USER, lib]);
        let d = &e.diagnostics[0];
        assert_eq!((d.file.as_str(), d.line), ("in1.ptx", 8), "{e}");
    }

    #[test]
    fn system_calls_need_no_definition() {
        // Linked and lowered only: running malloc would create the device heap, which other
        // tests running in parallel do not expect to find in the address space.
        let src = format!(
            "{HEAD}
.extern .func (.param .b64 r) malloc (.param .b64 n);
.visible .entry k(.param .u64 out)
{{
    .reg .b64 %rd<4>;
    {{
    .param .b64 n;
    .param .b64 p;
    st.param.b64 [n], 16;
    call.uni (p), malloc, (n);
    ld.param.b64 %rd2, [p];
    }}
    ret;
}}
"
        );
        let other = format!("{HEAD}.visible .global .u32 unused;\n");
        let m =
            Module::link(&[(&src, "a.ptx"), (&other, "b.ptx")]).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.kernel("k").is_some());
        // Any other undefined function is an error.
        let bad = src.replace("malloc", "my_alloc");
        let e = Module::link(&[(&bad, "a.ptx"), (&other, "b.ptx")]).unwrap_err();
        assert_eq!(
            e.diagnostics[0].message,
            "Undefined reference to 'my_alloc'"
        );
    }

    /// numba-cuda and NVVM declare every device function before its definition in the same
    /// module, without `.extern` (`__internal_trig_reduction_slowpathd` of libdevice's sin):
    /// the declaration binds to the definition that follows, in a link of that input alone
    /// or with others; `.weak` forward declarations (numba's device functions) as well.
    /// k stores f(5) = helper(5) + w() = (5 * 7) + 40 and g.
    #[test]
    fn forward_declared_functions_bind_to_their_own_definition() {
        let lib = "
.func (.param .b32 r) helper (.param .b32 a);
.weak .func (.param .b32 r) w ();
.visible .global .align 4 .u32 g = 9;
.visible .func (.param .b32 r) f (.param .b32 a)
{
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [a];
    {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], %r1;
    call.uni (r0), helper, (a0);
    ld.param.b32 %r2, [r0];
    }
    {
    .param .b32 r1;
    call.uni (r1), w, ();
    ld.param.b32 %r3, [r1];
    }
    add.s32 %r2, %r2, %r3;
    st.param.b32 [r], %r2;
    ret;
}
.func (.param .b32 r) helper (.param .b32 a)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [a];
    mul.lo.s32 %r2, %r1, 7;
    st.param.b32 [r], %r2;
    ret;
}
.weak .func (.param .b32 r) w ()
{
    st.param.b32 [r], 40;
    ret;
}
";
        // The whole program in one input (numba's shape: one self-contained PTX per kernel).
        let one = format!(
            "{lib}{}",
            USER.replace(".extern .func", "// .extern .func")
                .replace(".extern .global .align 4 .u32 g;", "")
        );
        assert_eq!(run(&[&one], 2), vec![75, 9]);
        // Beside a user input whose `.extern` declarations it defines.
        assert_eq!(run(&[USER, lib], 2), vec![75, 9]);
        // Another input with its own private `helper` (also forward-declared) and a visible
        // `w`, which wins over lib's weak one: f = 35 + 1000.
        let other = "
.func (.param .b32 r) helper (.param .b32 a);
.visible .func (.param .b32 r) w ()
{
    .reg .b32 %r<2>;
    {
    .param .b32 a0;
    .param .b32 r0;
    st.param.b32 [a0], 1;
    call.uni (r0), helper, (a0);
    ld.param.b32 %r1, [r0];
    }
    st.param.b32 [r], %r1;
    ret;
}
.func (.param .b32 r) helper (.param .b32 a)
{
    st.param.b32 [r], 1000;
    ret;
}
";
        assert_eq!(run(&[USER, lib, other], 2), vec![1035, 9]);
    }

    /// A declaration without `.extern` is no reference to another input: ptxas 13.5 rejects
    /// its input on its own ("Unresolved extern function"), even where another input defines
    /// the name, for plain, `.visible` and `.weak` declarations alike.
    #[test]
    fn a_prototype_its_input_never_defines_is_an_error() {
        let lib = "
.visible .global .align 4 .u32 g = 1;
.visible .func (.param .b32 r) f (.param .b32 a)
{
    st.param.b32 [r], 2;
    ret;
}
";
        for word in ["", ".visible ", ".weak "] {
            let user = USER.replace(".extern .func", &format!("{word}.func"));
            let e = link_err(&[&user, lib]);
            let d = &e.diagnostics[0];
            assert!(
                d.message.starts_with("Unresolved extern function 'f'"),
                "{word}: {e}"
            );
            assert_eq!((d.file.as_str(), d.line), ("in0.ptx", 16), "{word}");
        }
    }

    /// nvlink 13.5 compares an `.extern` declaration with the definition it binds to
    /// ("Prototype doesn't match"): measured on `ptxas -c` objects, a declared `.b64` result
    /// of a function defined without one, a `.b32` parameter defined `.f32` or `.u64`, and a
    /// `.b32` parameter defined as `.align 4 .b8 x[4]` are errors; `.b32` against `.u32` or
    /// `.s32`, and byte arrays of other alignments, are not.
    #[test]
    fn extern_declarations_must_match_the_definition() {
        let user = |decl: &str| {
            format!(
                "
.extern .func {decl};
.visible .entry k(.param .u64 out)
{{
    ret;
}}
"
            )
        };
        let def = |sig: &str| format!(".visible .func {sig}\n{{\nret;\n}}\n");
        let ok = [
            (
                "(.param .b32 r) f (.param .b32 a)",
                "(.param .s32 r) f (.param .u32 a)",
            ),
            (
                "f (.param .align 4 .b8 a[4])",
                "f (.param .align 8 .b8 a[4])",
            ),
            ("f (.param .f64 a)", "f (.param .f64 b)"),
        ];
        for (d, s) in ok {
            let u = user(d);
            let l = def(s);
            let texts = [format!("{HEAD}{u}"), format!("{HEAD}{l}")];
            Module::check_links(&[(&texts[0], "in0.ptx"), (&texts[1], "in1.ptx")])
                .unwrap_or_else(|e| panic!("{d} / {s}: {e}"));
        }
        let bad = [
            (
                "(.param .b64 r) consume (.param .b32 a)",
                "consume (.param .b32 a)",
            ),
            ("f (.param .b32 a)", "f (.param .f32 a)"),
            ("f (.param .b32 a)", "f (.param .u64 a)"),
            ("f (.param .b32 a)", "f (.param .align 4 .b8 a[4])"),
            (
                "f (.param .align 4 .b8 a[8])",
                "f (.param .align 4 .b32 a[2])",
            ),
            ("f (.param .b32 a)", "f (.param .b32 a, .param .b32 b)"),
        ];
        for (d, s) in bad {
            let e = link_err(&[&user(d), &def(s)]);
            let m = &e.diagnostics[0];
            assert!(
                m.message.starts_with("Prototype doesn't match"),
                "{d} / {s}: {e}"
            );
            assert_eq!((m.file.as_str(), m.line), ("in0.ptx", 5), "{e}");
        }
    }

    /// A module calling the device runtime's cooperative-groups functions gets the engine's PTX
    /// of them (the handle of a launch that is not cooperative is 0, its size and rank are the
    /// grid's); one calling CUDA 11's device-side cudaDeviceSynchronize is an undefined
    /// reference saying why.
    #[test]
    fn device_runtime_functions_are_provided() {
        let user = "
.extern .func (.param .b64 r) cudaCGGetIntrinsicHandle (.param .b32 s);
.extern .func (.param .b32 r) cudaCGGetSize (.param .b64 a, .param .b64 b, .param .b64 h);
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    {
    .param .b32 s0;
    .param .b64 r0;
    st.param.b32 [s0], 1;
    call.uni (r0), cudaCGGetIntrinsicHandle, (s0);
    ld.param.b64 %rd2, [r0];
    }
    st.global.u32 [%rd1], %rd2;
    add.u64 %rd3, %rd1, 4;
    {
    .param .b64 a0;
    .param .b64 a1;
    .param .b64 a2;
    .param .b32 r1;
    st.param.b64 [a0], %rd3;
    add.u64 %rd3, %rd1, 8;
    st.param.b64 [a1], %rd3;
    st.param.b64 [a2], %rd2;
    call.uni (r1), cudaCGGetSize, (a0, a1, a2);
    }
    ret;
}";
        // Not cooperative: handle 0; one thread in one grid.
        assert_eq!(run(&[user], 3), [0, 1, 1]);
        let e = link_err(&[".extern .func (.param .b32 r) cudaDeviceSynchronize ();
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<2>;
    {
    .param .b32 r0;
    call.uni (r0), cudaDeviceSynchronize, ();
    ld.param.b32 %r1, [r0];
    }
    ret;
}"]);
        let m = &e.diagnostics[0].message;
        assert!(
            m.starts_with("Undefined reference to 'cudaDeviceSynchronize' (device-side"),
            "{m}"
        );
    }
}
