//! A loaded PTX module: its kernels (lowered IR, parameter layouts) and its globals.

use crate::diag::{Diagnostic, LoadError, LoadErrorKind};
use crate::ir::Program;
use crate::lower::{self, ModCtx};
use crate::mem;
use crate::ptx::ast::Space;
use crate::ptx::parser::{self, Error as PErr};
use std::collections::HashMap;
use std::sync::Arc;

/// One kernel parameter as laid out in the parameter block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub offset: usize,
    pub size: usize,
    pub align: usize,
}

/// An `.entry` of a loaded module, ready to launch.
#[derive(Debug)]
pub struct Kernel {
    pub name: String,
    pub params: Vec<Param>,
    /// Size of the whole parameter block (end of the last parameter).
    pub param_bytes: usize,
    /// Bytes of statically declared `.shared` memory.
    pub static_shared_bytes: usize,
    /// Bytes of `.local` memory per thread.
    pub local_bytes_per_thread: usize,
    /// `.maxntid` product if declared, else 0.
    pub max_threads_per_block: u32,
    /// Registers per thread as ptxas would allocate them with no JIT register limit: the
    /// estimate limited by the kernel's bounds ([`crate::regs`]).
    pub num_regs: u32,
    /// The registers the code needs before any limit ([`crate::regs::estimate`]).
    pub reg_estimate: u32,
    /// The bounds the kernel declares (`.maxnreg`, `.maxntid`/`.reqntid`, `.minnctapersm`).
    pub reg_bounds: crate::regs::Bounds,
    /// `.reqnctapercluster` if declared: the cluster shape the kernel must be launched with
    /// ([`crate::launch`] runs it with that shape when the configuration names none).
    pub cluster_dims: Option<[u32; 3]>,
    /// `.explicitcluster`: the kernel must be launched with a cluster shape named at launch
    /// time or by `.reqnctapercluster` (ISA 11.7.2).
    pub explicit_cluster: bool,
    /// The lowered code: this kernel plus every device function it calls.
    pub(crate) program: Arc<Program>,
    /// Thread-instructions executed by all launches of this kernel so far (`--stats`).
    pub executed: std::sync::atomic::AtomicU64,
    /// The kernel's own tier ([`Kernel::set_jit`]; `u8::MAX`: the process's, [`crate::jit::mode`]).
    jit_mode: std::sync::atomic::AtomicU8,
    /// Its compiled segments, made at the first launch that runs them (`on`: once it is hot,
    /// [`crate::jit::set_hot`]).
    jit: std::sync::OnceLock<Option<crate::jit::Code>>,
    /// Thread-instructions its CTAs ran on the interpreter while it had no code on `on`.
    heat: std::sync::atomic::AtomicU64,
    /// Whether the cache was asked for its code (once, when it is warm), and whether a launch
    /// thread took on compiling it (the others interpret meanwhile).
    probed: std::sync::atomic::AtomicBool,
    compiling: std::sync::atomic::AtomicBool,
    /// Its function-pointer value (`mov.u64 %rd, kernel`): what a launch from device code names.
    pub(crate) addr: u64,
    /// The kernels of its module by function-pointer value, for launches from device code
    /// (weak: the module owns its kernels).
    pub(crate) siblings: Siblings,
}

/// The kernels of one module by function-pointer value, filled once every kernel is lowered.
pub(crate) type Siblings = Arc<std::sync::OnceLock<Vec<(u64, std::sync::Weak<Kernel>)>>>;

impl Kernel {
    /// The kernel of this kernel's module that the function pointer `addr` names.
    pub(crate) fn sibling(&self, addr: u64) -> Option<Arc<Kernel>> {
        let all = self.siblings.get()?;
        all.iter().find(|(a, _)| *a == addr)?.1.upgrade()
    }
}

/// A module-scope `.global` or `.const` variable, allocated in device memory at load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub name: String,
    /// Device address (a host address inside the device region).
    pub address: u64,
    pub size: usize,
    /// Declared `.attribute(.managed)` (a CUDA `__managed__` variable): the driver hands its
    /// address to the host through `cuLibraryGetManaged`.
    pub managed: bool,
    /// The declared type word (`u32`, `texref`, `surfref`...): the driver hands out texture and
    /// surface references for variables of those types only.
    pub ty: String,
}

impl Kernel {
    /// Chooses this kernel's tier, whatever the process's (None: the process's again).
    pub fn set_jit(&self, m: Option<crate::jit::Mode>) {
        let v = m.map_or(u8::MAX, |m| m as u8);
        self.jit_mode.store(v, std::sync::atomic::Ordering::Relaxed);
    }

    /// The tier a launch runs on now.
    pub fn jit_mode(&self) -> crate::jit::Mode {
        crate::jit::from_u8(self.jit_mode.load(std::sync::atomic::Ordering::Relaxed))
            .unwrap_or_else(crate::jit::mode)
    }

    /// The compiled code for a CTA of a launch on `mode`, compiled by the first caller; on
    /// `on`, None until the kernel is hot ([`crate::jit::set_hot`]; [`Kernel::heat`] counts).
    pub(crate) fn code(&self, mode: crate::jit::Mode) -> Option<&crate::jit::Code> {
        use std::sync::atomic::Ordering::Relaxed;
        if mode == crate::jit::Mode::Off {
            return None;
        }
        if let Some(c) = self.jit.get() {
            return c.as_ref();
        }
        let per_op = crate::jit::hot();
        if mode == crate::jit::Mode::On && per_op > 0 {
            let heat = self.heat.load(Relaxed);
            let cost = (self.program.insts.len() as u64).saturating_mul(per_op);
            if heat < cost {
                // Warm: an earlier process that found it hot may have left its code.
                if heat >= cost / 16 && !self.probed.swap(true, Relaxed) {
                    if let Some(c) = crate::jit::Code::load(&self.program) {
                        let _ = self.jit.set(c);
                        return self.jit.get()?.as_ref();
                    }
                }
                return None;
            }
            if self.compiling.swap(true, Relaxed) {
                return None;
            }
        }
        self.jit
            .get_or_init(|| crate::jit::Code::compile(&self.program))
            .as_ref()
    }

    /// Counts `n` thread-instructions a CTA of a launch on `mode` ran without compiled code.
    pub(crate) fn heat(&self, mode: crate::jit::Mode, n: u64) {
        if mode == crate::jit::Mode::On && self.jit.get().is_none() {
            self.heat.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Compiles the kernel's code with `cache` and keeps it for its launches (tests: the
    /// process's cache is one for all tests).
    #[cfg(test)]
    pub(crate) fn compile_jit_with(
        &self,
        cache: Option<&crate::jit::cache::Cache>,
    ) -> Option<crate::jit::Summary> {
        let c = crate::jit::Code::compile_with(&self.program, cache);
        let s = c.as_ref().map(|c| c.summary());
        assert!(self.jit.set(c).is_ok(), "compiled twice");
        s
    }

    /// Ops of the kernel's IR (with its callees).
    pub fn ir_ops(&self) -> usize {
        self.program.insts.len()
    }

    /// Compiled segments and the ops in them, the time compiling took and whether the code
    /// came from the on-disk cache, once compiled.
    pub fn jit_summary(&self) -> Option<crate::jit::Summary> {
        Some(self.jit.get()?.as_ref()?.summary())
    }

    /// Compiles the kernel's code afresh with `cache` (None: no cache) without keeping it: for
    /// measuring compile times (`cargo bench -p engine --bench jit_compile`). None when nothing
    /// of it compiles.
    pub fn jit_compile(
        &self,
        cache: Option<&crate::jit::cache::Cache>,
    ) -> Option<crate::jit::Summary> {
        Some(crate::jit::Code::compile_with(&self.program, cache)?.summary())
    }

    /// The kernel's IR (with every device function it calls) in its textual form: what
    /// `cuda-shim check --emit-ir` prints and file tests match.
    pub fn ir_text(&self) -> String {
        self.program.to_string()
    }

    /// Checks the invariants the executor relies on (debug builds check them at every load).
    pub fn verify_ir(&self) -> Result<(), String> {
        crate::ir::verify::verify(&self.program).map_err(|e| e.to_string())
    }

    /// Registers per thread under a JIT register limit (`CU_JIT_MAX_REGISTERS`, as ptxas's
    /// `-maxrregcount`), besides the kernel's own bounds.
    pub fn num_regs_with_limit(&self, jit_max: Option<u32>) -> u32 {
        crate::regs::allocate(self.reg_estimate, &self.reg_bounds, jit_max)
    }
}

/// A loaded module. Dropping it frees its globals.
#[derive(Debug)]
pub struct Module {
    pub name: String,
    kernels: Vec<Arc<Kernel>>,
    globals: Vec<Global>,
    /// Addresses of the `.global`/`.const` variables declared inside function bodies: device
    /// memory of the module, but no symbol of it (`cuModuleGetGlobal` does not see them).
    scoped: Vec<u64>,
    /// Names of the `.func`s declared `.attribute(.unified)` (host-device unified functions).
    unified_functions: Vec<String>,
    /// Bytes of the module's `.const` variables, laid out in order with their alignment (the
    /// user constant bank every kernel of the module is given).
    pub const_bytes: usize,
    /// `.version` (major, minor).
    pub ptx_version: (u32, u32),
    /// The architecture of `.target` (`sm_80` -> 80, `sm_90a` -> 90; the highest of a linked
    /// module's inputs), if it names one.
    pub target_sm: Option<u32>,
}

/// Drops the syntax tree of a large module on a thread of its own: freeing its millions of
/// small allocations took about a sixth of a 10 MB module's load (65 of 450 ms here), and
/// nothing needs to wait for it. Small modules, and a failed spawn, drop it here.
fn free_in_background(ast: crate::ptx::ast::Module, source_bytes: usize) {
    if source_bytes >= 1 << 20 {
        // On failure the closure, and with it the tree, is dropped right here.
        let _ = std::thread::Builder::new()
            .name("ptx-free".into())
            .spawn(move || drop(ast));
    }
}

impl Module {
    /// Parses, lowers and validates `ptx`. `name` is used in diagnostics (`name:LINE:COL`).
    pub fn load(ptx: &str, name: &str) -> Result<Module, LoadError> {
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
                return Err(err(LoadErrorKind::InvalidPtx, e.line, e.col, e.message))
            }
            Err(PErr::Version(e)) => {
                return Err(err(
                    LoadErrorKind::UnsupportedVersion,
                    e.line,
                    e.col,
                    e.message,
                ))
            }
        };
        if let Err((line, message)) = check_target(&ast) {
            return Err(err(LoadErrorKind::InvalidPtx, line, 1, message));
        }
        if crate::devrt::needed(std::slice::from_ref(&ast)) {
            // Linked with the device runtime's PTX.
            let linked = crate::link::link_parsed(&[(ptx, name)], vec![ast])?;
            return Self::from_ast(&linked.module, name, &|line| linked.locate(line));
        }
        let module = Self::from_ast(&ast, name, &|line| (name.to_string(), line));
        free_in_background(ast, ptx.len());
        module
    }

    /// Links several PTX modules (text, name for diagnostics) into one and loads it: `.extern`
    /// functions and variables resolve against `.visible`, `.weak` and `.common` definitions of
    /// the other inputs (ISA 11.6); private symbols of different inputs stay apart. Duplicate
    /// definitions and undefined references are [`LoadErrorKind::InvalidPtx`] errors naming the
    /// symbol and `file:line`. The module is named after the first input.
    pub fn link(inputs: &[(&str, &str)]) -> Result<Module, LoadError> {
        let linked = crate::link::link(inputs)?;
        let name = inputs.first().map_or("<link>", |i| i.1);
        Self::from_ast(&linked.module, name, &|line| linked.locate(line))
    }

    /// The symbol resolution of [`Module::link`] alone (inputs parsed, nothing lowered or
    /// allocated): a driver tells link errors (undefined or duplicate symbols, reported as
    /// CUDA_ERROR_INVALID_IMAGE) from errors in the PTX of an input this way.
    pub fn check_links(inputs: &[(&str, &str)]) -> Result<(), LoadError> {
        crate::link::link(inputs).map(|_| ())
    }

    /// Lowers a parsed module. `locate` maps a line of `ast` to the file and line diagnostics
    /// name (the identity for one file; the input of a linked module).
    fn from_ast(
        ast: &crate::ptx::ast::Module,
        name: &str,
        locate: &dyn Fn(u32) -> (String, u32),
    ) -> Result<Module, LoadError> {
        let err = |kind, line, col, message: String| {
            let (file, line) = locate(line);
            LoadError {
                kind,
                diagnostics: vec![Diagnostic {
                    file,
                    line,
                    col,
                    message,
                }],
            }
        };
        if let Err((line, col, message)) = check_module_limits(ast) {
            return Err(err(LoadErrorKind::InvalidPtx, line, col, message));
        }
        let target_sm = (ast.target.iter())
            .filter_map(|t| t.strip_prefix("sm_"))
            .filter_map(|t| {
                t.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                    .parse()
                    .ok()
            })
            .max();
        let mut module = Module {
            name: name.to_string(),
            kernels: Vec::new(),
            globals: Vec::new(),
            scoped: Vec::new(),
            unified_functions: (ast.functions.iter())
                .filter(|f| !f.is_entry && f.attrs.iter().any(|a| a == "unified"))
                .map(|f| f.name.clone())
                .collect(),
            const_bytes: 0,
            ptx_version: ast.version,
            target_sm,
        };
        // Globals first (kernels embed their addresses); `module` frees them if anything fails.
        let mut addrs = HashMap::new();
        let mut layouts = Vec::new();
        for g in &ast.globals {
            if !matches!(g.space, Space::Global | Space::Const) {
                continue;
            }
            let lerr = |e: lower::LowerError| err(e.kind, e.pos.line, e.pos.col, e.message);
            // Samplers exist only in the independent mode (PTX ISA 9.7.10.1; ptxas: "violates
            // .target texmode_unified setting").
            if g.ty == "samplerref" && !ast.target.iter().any(|t| t == "texmode_independent") {
                return Err(err(
                    LoadErrorKind::InvalidPtx,
                    g.pos.line,
                    g.pos.col,
                    format!(
                        "'.samplerref {}' outside the independent texturing mode (ptxas: \
                         declaration violates .target texmode_unified setting)",
                        g.name
                    ),
                ));
            }
            if g.attrs.iter().any(|a| a == "extern") {
                return Err(err(
                    LoadErrorKind::Unsupported,
                    g.pos.line,
                    g.pos.col,
                    format!("unsupported external variable '{}' (needs linking)", g.name),
                ));
            }
            let (size, align) = lower::var_layout(g).map_err(lerr)?;
            if g.space == Space::Const {
                let start = (module.const_bytes as u64).next_multiple_of(align.max(1));
                module.const_bytes = (start + size) as usize;
            }
            let address = mem::alloc(size.max(1)).map_err(|_| {
                err(
                    LoadErrorKind::OutOfMemory,
                    g.pos.line,
                    g.pos.col,
                    format!("out of device memory for variable '{}'", g.name),
                )
            })?;
            let kind = match g.ty.as_str() {
                "texref" => Some(crate::handles::RefKind::Texture),
                "surfref" => Some(crate::handles::RefKind::Surface),
                _ => None,
            };
            if let Some(kind) = kind {
                crate::handles::add_ref_variable(address, kind);
            }
            module.globals.push(Global {
                name: g.name.to_string(),
                address,
                size: size as usize,
                managed: g.attrs.iter().any(|a| a == "managed"),
                ty: g.ty.to_string(),
            });
            addrs.insert(g.name.to_string(), address);
            layouts.push((g, address, size));
        }
        // A name maps to its definition when there is one, else to its (last) declaration.
        let mut funcs: HashMap<String, usize> = HashMap::new();
        for (i, f) in ast.functions.iter().enumerate() {
            let keep = funcs
                .get(&f.name)
                .is_some_and(|&j| ast.functions[j].body.is_some() && f.body.is_none());
            if !keep {
                funcs.insert(f.name.clone(), i);
            }
        }
        // Initializers may also name functions (vtables, tables of function pointers).
        let mut init_addrs = addrs.clone();
        for (name, &i) in &funcs {
            if !ast.functions[i].is_entry {
                init_addrs.insert(name.clone(), crate::ir::func_addr(i));
            }
        }
        for (g, address, size) in layouts {
            // Variables start zero-filled past their initializers, or wholly without one (ISA
            // 5.4.4); a reused allocation holds what a freed one left behind.
            mem::zero(address, size.max(1));
            // SAFETY: `address` is a fresh allocation of `size` bytes in the device region.
            let buf = unsafe { std::slice::from_raw_parts_mut(address as *mut u8, size as usize) };
            lower::write_init(g, buf, &init_addrs)
                .map_err(|e| err(e.kind, e.pos.line, e.pos.col, e.message))?;
        }
        let scoped = alloc_scoped_vars(ast, &init_addrs, &mut module.scoped)
            .map_err(|e| err(e.kind, e.pos.line, e.pos.col, e.message))?;
        let mut mc = ModCtx::new(ast, addrs, funcs);
        mc.scoped = scoped;
        // Every function is compiled at load, as a driver's JIT compiles the whole module: those
        // no kernel reaches are lowered on their own below (each once).
        //
        // Eagerly, not lazily on first launch: lowering is what finds an instruction the
        // executor cannot run, and the issue (like the driver, whose ptxas rejects invalid PTX
        // at cuModuleLoad) wants that reported at load, not as a launch failure; lowering a
        // kernel lazily would either move those errors to cuLaunchKernel or redo the work at
        // load. The operand type check (isa::types), the ISA table and name resolution are a
        // large part of lowering's cost anyway. Kernels are lowered in parallel instead.
        let mut validated = vec![false; ast.functions.len()];
        let entries: Vec<usize> = (ast.functions.iter().enumerate())
            .filter(|(_, f)| f.is_entry && f.body.is_some())
            .map(|(i, _)| i)
            .collect();
        let mut lowered = lower_all(&mc, &entries).into_iter();
        let siblings = Siblings::default();
        for (index, f) in ast.functions.iter().enumerate() {
            if !f.is_entry || f.body.is_none() {
                continue;
            }
            let (k, reg_estimate) = (lowered.next())
                .expect("one result per kernel")
                .map_err(|e| err(e.kind, e.pos.line, e.pos.col, e.message))?;
            check_kernel_limits(ast, f, k.param_bytes, k.program.shared_static as u64)
                .map_err(|m| err(LoadErrorKind::InvalidPtx, f.pos.line, f.pos.col, m))?;
            let reg_bounds = crate::regs::Bounds::from_directives(&f.directives);
            for &f in &k.lowered {
                validated[f] = true;
            }
            let cluster_dims = f
                .directives
                .iter()
                .find(|(n, _)| n == "reqnctapercluster")
                .map(|(_, v)| {
                    let d = |k: usize| v.get(k).map_or(1, |&x| x as u32);
                    [d(0), d(1), d(2)]
                });
            module.kernels.push(Arc::new(Kernel {
                name: k.name,
                params: k.params,
                param_bytes: k.param_bytes,
                static_shared_bytes: k.program.shared_static as usize,
                local_bytes_per_thread: k.program.local_bytes as usize,
                max_threads_per_block: k.max_threads,
                num_regs: crate::regs::allocate(reg_estimate, &reg_bounds, None),
                reg_estimate,
                reg_bounds,
                cluster_dims,
                explicit_cluster: f.directives.iter().any(|(n, _)| n == "explicitcluster"),
                program: Arc::new(k.program),
                executed: Default::default(),
                jit_mode: std::sync::atomic::AtomicU8::new(u8::MAX),
                heat: Default::default(),
                probed: Default::default(),
                compiling: Default::default(),
                jit: Default::default(),
                addr: crate::ir::func_addr(mc.funcs.get(&f.name).copied().unwrap_or(index)),
                siblings: siblings.clone(),
            }));
        }
        let _ = siblings.set(
            (module.kernels.iter())
                .map(|k| (k.addr, Arc::downgrade(k)))
                .collect(),
        );
        for (i, f) in ast.functions.iter().enumerate() {
            if validated[i] || f.is_entry || f.body.is_none() || mc.funcs.get(&f.name) != Some(&i) {
                continue;
            }
            let k = lower::lower_kernel(&mc, i, false)
                .map_err(|e| err(e.kind, e.pos.line, e.pos.col, e.message))?;
            for &f in &k.lowered {
                validated[f] = true;
            }
        }
        Ok(module)
    }

    pub fn kernel(&self, name: &str) -> Option<Arc<Kernel>> {
        self.kernels.iter().find(|k| k.name == name).cloned()
    }

    pub fn kernels(&self) -> &[Arc<Kernel>] {
        &self.kernels
    }

    pub fn global(&self, name: &str) -> Option<&Global> {
        self.globals.iter().find(|g| g.name == name)
    }

    pub fn globals(&self) -> &[Global] {
        &self.globals
    }

    /// Whether `name` is a `.func` declared `.attribute(.unified)`.
    pub fn is_unified_function(&self, name: &str) -> bool {
        self.unified_functions.iter().any(|f| f == name)
    }
}

/// Allocates and initialises the `.global` and `.const` variables declared inside function
/// bodies (ISA 5.1: variables of these spaces may be declared at function scope; they live as
/// long as the module, one instance for all threads and calls), pushing each address to
/// `owned`. Returns their addresses by declaration position, which is how lowering finds them
/// in their scope. ptxas refuses linking directives on them.
fn alloc_scoped_vars(
    ast: &crate::ptx::ast::Module,
    init_addrs: &HashMap<String, u64>,
    owned: &mut Vec<u64>,
) -> Result<HashMap<(u32, u32), u64>, lower::LowerError> {
    use crate::ptx::ast::{Statement, VarDecl};
    fn walk<'a>(st: &'a [Statement], out: &mut Vec<&'a VarDecl>) {
        for s in st {
            match s {
                Statement::Var(v) if matches!(v.space, Space::Global | Space::Const) => out.push(v),
                Statement::Block(b) => walk(b, out),
                _ => {}
            }
        }
    }
    let mut vars = Vec::new();
    for f in &ast.functions {
        if let Some(b) = &f.body {
            walk(b, &mut vars);
        }
    }
    let mut at = HashMap::new();
    for v in vars {
        if let Some(a) = v
            .attrs
            .iter()
            .find(|a| matches!(a.as_str(), "extern" | "visible" | "weak" | "common"))
        {
            return Err(lower::LowerError {
                kind: LoadErrorKind::InvalidPtx,
                pos: v.pos,
                message: format!("'.{a}' on the function-scope variable '{}'", v.name),
            });
        }
        let (size, _align) = lower::var_layout(v)?;
        let address = mem::alloc(size.max(1)).map_err(|_| lower::LowerError {
            kind: LoadErrorKind::OutOfMemory,
            pos: v.pos,
            message: format!("out of device memory for variable '{}'", v.name),
        })?;
        owned.push(address);
        // SAFETY: `address` is a fresh allocation of `size` bytes in the device region.
        let buf = unsafe { std::slice::from_raw_parts_mut(address as *mut u8, size as usize) };
        buf.fill(0);
        lower::write_init(v, buf, init_addrs)?;
        at.insert((v.pos.line, v.pos.col), address);
    }
    Ok(at)
}

/// Lowers the kernels `entries` of a module on up to [`crate::exec::worker_threads`] threads
/// (each kernel's lowering reads only the AST and module-scope facts), returning the results
/// in the order of `entries`: a load reports the same first error as a sequential one.
/// Each kernel comes with its register estimate ([`crate::regs::estimate`]).
fn lower_all(
    mc: &ModCtx,
    entries: &[usize],
) -> Vec<Result<(lower::KernelOut, u32), lower::LowerError>> {
    let lower = |fidx| {
        lower::lower_kernel(mc, fidx, false).map(|k| {
            let regs = crate::regs::estimate(&k.program);
            (k, regs)
        })
    };
    // Below a few kernels per thread, starting threads costs more than it saves.
    let threads = crate::exec::worker_threads().min(entries.len() / 4).max(1);
    if threads == 1 {
        return (entries.iter()).map(|&i| lower(i)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<parking_lot::Mutex<Option<_>>> = entries
        .iter()
        .map(|_| parking_lot::Mutex::new(None))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&fidx) = entries.get(k) else { break };
                *slots[k].lock() = Some(lower(fidx));
            });
        }
    });
    (slots.into_iter())
        .map(|m| m.into_inner().expect("every kernel is lowered"))
        .collect()
}

impl Drop for Module {
    fn drop(&mut self) {
        for g in &self.globals {
            if matches!(g.ty.as_str(), "texref" | "surfref") {
                crate::handles::forget_ref_variable(g.address);
            }
            let _ = mem::free(g.address);
        }
        for &a in &self.scoped {
            let _ = mem::free(a);
        }
    }
}

// ---- What ptxas refuses that the rest of loading would take: the driver's JIT (ptxas) fails
// such a module with CUDA_ERROR_INVALID_PTX. Messages and limits are ptxas 13.5's (sm_80 and
// sm_90 give the same).

/// The `.target` a file must have ("Missing .target directive at start of file") and its
/// architectures, which must be real ones ("Unsupported .target 'sm_999'"): those of the ISA's
/// `.target` section, `a` suffixes from sm_90 and `f` from sm_100.
fn check_target(ast: &crate::ptx::ast::Module) -> Result<(), (u32, String)> {
    const SM: &[u32] = &[
        10, 11, 12, 13, 20, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89,
        90, 100, 101, 103, 110, 120, 121,
    ];
    if ast.target.is_empty() {
        return Err((1, "Missing .target directive at start of file".into()));
    }
    for t in &ast.target {
        let ok = match t.strip_prefix("sm_") {
            None => matches!(
                t.as_str(),
                "texmode_unified" | "texmode_independent" | "debug" | "map_f64_to_f32"
            ),
            Some(rest) => {
                let digits = rest.trim_end_matches(['a', 'f']);
                let suffix = &rest[digits.len()..];
                digits.parse::<u32>().is_ok_and(|n| {
                    SM.contains(&n)
                        && match suffix {
                            "" => true,
                            "a" => n >= 90,
                            "f" => n >= 100,
                            _ => false,
                        }
                })
            }
        };
        if !ok {
            return Err((1, format!("Unsupported .target '{t}'")));
        }
    }
    Ok(())
}

/// Module-wide limits: one definition per function, positive launch-bound directives, and at
/// most 64 KiB of `.const` data.
fn check_module_limits(ast: &crate::ptx::ast::Module) -> Result<(), (u32, u32, String)> {
    let mut defined = std::collections::HashSet::new();
    for f in ast.functions.iter().filter(|f| f.body.is_some()) {
        if !defined.insert(f.name.as_str()) {
            return Err((
                f.pos.line,
                f.pos.col,
                format!("Duplicate definition of function '{}'", f.name),
            ));
        }
        for (d, values) in &f.directives {
            let bound = matches!(
                d.as_str(),
                "maxntid" | "reqntid" | "maxnreg" | "minnctapersm"
            );
            if bound && values.contains(&0) {
                return Err((
                    f.pos.line,
                    f.pos.col,
                    format!("Positive non-zero value expected for {d}"),
                ));
            }
        }
    }
    const CONST_MAX: u64 = 0x10000;
    let mut bytes = 0u64;
    for g in ast.globals.iter().filter(|g| g.space == Space::Const) {
        if let Ok((size, align)) = lower::var_layout(g) {
            bytes = bytes.next_multiple_of(align.max(1)) + size;
        }
        if bytes > CONST_MAX {
            return Err((
                g.pos.line,
                g.pos.col,
                format!(
                    "File uses too much global constant data ({bytes:#x} bytes, {CONST_MAX:#x} \
                     max)"
                ),
            ));
        }
    }
    Ok(())
}

/// A kernel's limits: parameter space (4352 bytes before PTX 8.1, 32764 from it) and static
/// shared memory (48 KiB: more must be dynamic, opted into with
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
fn check_kernel_limits(
    ast: &crate::ptx::ast::Module,
    f: &crate::ptx::ast::Function,
    param_bytes: usize,
    shared_bytes: u64,
) -> Result<(), String> {
    let param_max: usize = if ast.version >= (8, 1) {
        0x7ffc
    } else {
        0x1100
    };
    if param_bytes > param_max {
        return Err(format!(
            "Entry function '{}' uses too much parameter space ({param_bytes:#x} bytes, \
             {param_max:#x} max).",
            f.name
        ));
    }
    const SHARED_MAX: u64 = 0xc000;
    if shared_bytes > SHARED_MAX {
        return Err(format!(
            "Entry function '{}' uses too much shared data ({shared_bytes:#x} bytes, \
             {SHARED_MAX:#x} max)",
            f.name
        ));
    }
    Ok(())
}
