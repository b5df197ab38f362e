//! `check`: what `cuda-shim check` reports for one PTX file. Every function (kernels and device
//! functions alike) is parsed and lowered; in lower-only mode an instruction the executor cannot
//! run is decoded against the ISA table and counted instead of failing, so the question
//! answered is "is this valid PTX that lowers to IR"; in plain mode the file is also loaded as
//! the driver loads it ([`Module::load`]), which fails at the first instruction the executor
//! cannot run.

use crate::diag::{Diagnostic, LoadError, LoadErrorKind};
use crate::lower::{self, ModCtx};
use crate::ptx::ast::{Space, Statement};
use crate::ptx::parser::{self, Error as PErr};
use crate::Module;
use std::collections::{BTreeMap, HashMap};

/// The outcome of checking one file.
#[derive(Debug, Default)]
pub struct CheckSummary {
    pub file: String,
    /// Functions with a body (kernels and device functions).
    pub functions: usize,
    pub kernels: usize,
    /// Instructions in those bodies.
    pub instructions: usize,
    /// Valid instructions the executor cannot run yet, by opcode: count and the distinct
    /// instruction names (`opcode.mod1.mod2`) seen.
    pub unsupported: BTreeMap<String, (usize, Vec<String>)>,
    /// The first error: in lower-only mode, invalid PTX (or a construct lowering cannot
    /// represent); in plain mode, also what makes the driver's load fail.
    pub error: Option<LoadError>,
    /// Each kernel's registers per thread as the driver reports them (`NUM_REGS`, the estimate
    /// of what ptxas allocates), when the module loads.
    pub kernel_regs: Vec<(String, u32)>,
}

impl CheckSummary {
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }
    pub fn unsupported_total(&self) -> usize {
        self.unsupported.values().map(|(n, _)| n).sum()
    }
}

/// Checks `ptx` (named `name` in diagnostics). See the module documentation for the modes.
pub fn check(ptx: &str, name: &str, lower_only: bool) -> CheckSummary {
    let mut s = CheckSummary {
        file: name.to_string(),
        ..Default::default()
    };
    let err = |kind, line, col, message: String| LoadError {
        kind,
        diagnostics: vec![Diagnostic {
            file: name.to_string(),
            line,
            col,
            message,
        }],
    };
    let ast = match parser::parse(ptx) {
        Ok(m) => m,
        Err(PErr::Parse(e)) => {
            s.error = Some(err(LoadErrorKind::InvalidPtx, e.line, e.col, e.message));
            return s;
        }
        Err(PErr::Version(e)) => {
            s.error = Some(err(
                LoadErrorKind::UnsupportedVersion,
                e.line,
                e.col,
                e.message,
            ));
            return s;
        }
    };
    // As a load does, a module calling the device runtime's cooperative-groups functions is
    // checked with their PTX linked in.
    let ast = if crate::devrt::needed(std::slice::from_ref(&ast)) {
        match crate::link::link_parsed(&[(ptx, name)], vec![ast]) {
            Ok(l) => l.module,
            Err(e) => {
                s.error = Some(e);
                return s;
            }
        }
    } else {
        ast
    };
    fn count(st: &[Statement]) -> usize {
        st.iter()
            .map(|s| match s {
                Statement::Inst(_) => 1,
                Statement::Block(b) => count(b),
                _ => 0,
            })
            .sum()
    }
    for f in &ast.functions {
        if let Some(b) = &f.body {
            s.functions += 1;
            s.kernels += f.is_entry as usize;
            s.instructions += count(b);
        }
    }
    // Lower every function without touching device memory: variables get stand-in addresses
    // (lowering only embeds them) and their initializers are written to scratch buffers.
    let lerr = |e: lower::LowerError| err(e.kind, e.pos.line, e.pos.col, e.message);
    let mut addrs = HashMap::new();
    let mut next = 1u64 << 40;
    let mut layouts = Vec::new();
    for g in &ast.globals {
        if !matches!(g.space, Space::Global | Space::Const) {
            continue;
        }
        match lower::var_layout(g) {
            Ok((size, align)) => {
                next = next.div_ceil(align.max(1)) * align.max(1);
                addrs.insert(g.name.to_string(), next);
                layouts.push((g, size));
                next += size.max(1);
            }
            Err(e) => {
                s.error = Some(lerr(e));
                return s;
            }
        }
    }
    let mut funcs: HashMap<String, usize> = HashMap::new();
    for (i, f) in ast.functions.iter().enumerate() {
        let keep = funcs
            .get(&f.name)
            .is_some_and(|&j| ast.functions[j].body.is_some() && f.body.is_none());
        if !keep {
            funcs.insert(f.name.clone(), i);
        }
    }
    let mut init_addrs = addrs.clone();
    for (n, &i) in &funcs {
        if !ast.functions[i].is_entry {
            init_addrs.insert(n.clone(), crate::ir::func_addr(i));
        }
    }
    for (g, size) in layouts {
        let mut buf = vec![0u8; size as usize];
        if let Err(e) = lower::write_init(g, &mut buf, &init_addrs) {
            s.error = Some(lerr(e));
            return s;
        }
    }
    let mc = ModCtx::new(&ast, addrs, funcs);
    let mut done = vec![false; ast.functions.len()];
    // Kernels first (a device function is lowered with the first kernel that calls it), then
    // the device functions no kernel reaches.
    let order = (0..ast.functions.len())
        .filter(|&i| ast.functions[i].is_entry)
        .chain((0..ast.functions.len()).filter(|&i| !ast.functions[i].is_entry));
    for i in order {
        let f = &ast.functions[i];
        if done[i] || f.body.is_none() || mc.funcs.get(&f.name) != Some(&i) {
            continue;
        }
        match lower::lower_kernel(&mc, i, true) {
            Ok(k) => {
                for &f in &k.lowered {
                    done[f] = true;
                }
                for u in k.unsupported {
                    let e = s
                        .unsupported
                        .entry(u.decoded.opcode().name.to_string())
                        .or_default();
                    e.0 += 1;
                    if !e.1.contains(&u.name) {
                        e.1.push(u.name);
                    }
                }
            }
            Err(e) => {
                s.error = Some(lerr(e));
                return s;
            }
        }
    }
    if !lower_only {
        match Module::load(ptx, name) {
            Ok(m) => {
                s.kernel_regs = m
                    .kernels()
                    .iter()
                    .map(|k| (k.name.clone(), k.num_regs))
                    .collect()
            }
            Err(e) => s.error = Some(e),
        }
    }
    s
}
