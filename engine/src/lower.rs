//! Lowering: AST -> IR, one program per kernel (the kernel plus every device function it calls).
//! Modifiers are resolved to enums and lane functions here, registers to dense indices, symbols
//! to addresses or offsets in their state space. Anything the executor cannot run is rejected
//! here, naming the instruction and its line.

use crate::analysis;
use crate::diag::LoadErrorKind;
use crate::ir::*;
use crate::ptx::ast::{
    self, Init, Instruction, Name, Operand as O, Pos, Space as AS, Statement, VarDecl,
};
use crate::sem::softfloat::Mode;
use crate::sem::{Cmp, FBin, FUn, FloatTy, IBin, IUn, IntTy, LaneFamily, PrmtMode, Testp};
use std::collections::HashMap;

/// Maps and sets of the per-operand lookups (names, registers), with a fast hash.
type FxMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;
type FxSet<K> = std::collections::HashSet<K, rustc_hash::FxBuildHasher>;

mod atom;
mod b128;
mod half;
mod misc;
mod packed;
mod sync;
mod video;

pub struct LowerError {
    pub kind: LoadErrorKind,
    pub pos: Pos,
    pub message: String,
}
type R<T> = Result<T, LowerError>;

fn invalid<T>(pos: Pos, m: impl Into<String>) -> R<T> {
    Err(LowerError {
        kind: LoadErrorKind::InvalidPtx,
        pos,
        message: m.into(),
    })
}
fn unsupported<T>(i: &Instruction) -> R<T> {
    Err(LowerError {
        kind: LoadErrorKind::Unsupported,
        pos: i.pos,
        message: format!("unsupported instruction '{}'", i.full_name()),
    })
}

/// A scalar type word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum T {
    B(u32),
    U(u32),
    S(u32),
    F(u32),
    Pred,
    /// Parses but is not run yet (f16x2, bf16, tf32, b128, fp8 ...).
    Other,
}

impl T {
    pub fn bits(self) -> u32 {
        match self {
            T::B(b) | T::U(b) | T::S(b) | T::F(b) => b,
            T::Pred => 1,
            T::Other => 0,
        }
    }
    fn int(self) -> Option<IntTy> {
        match self {
            T::B(b) | T::U(b) => Some(IntTy {
                bits: b,
                signed: false,
            }),
            T::S(b) => Some(IntTy {
                bits: b,
                signed: true,
            }),
            _ => None,
        }
    }
    fn cvt_ty(self) -> Option<Ty> {
        Some(match self {
            T::U(8) | T::B(8) => Ty::U8,
            T::U(16) | T::B(16) => Ty::U16,
            T::U(32) | T::B(32) => Ty::U32,
            T::U(64) | T::B(64) => Ty::U64,
            T::S(8) => Ty::S8,
            T::S(16) => Ty::S16,
            T::S(32) => Ty::S32,
            T::S(64) => Ty::S64,
            T::F(16) => Ty::F16,
            T::F(32) => Ty::F32,
            T::F(64) => Ty::F64,
            _ => return None,
        })
    }
}

pub fn ty_word(s: &str) -> Option<T> {
    Some(match s {
        "pred" => T::Pred,
        "b8" => T::B(8),
        "b16" => T::B(16),
        "b32" => T::B(32),
        "b64" => T::B(64),
        "u8" => T::U(8),
        "u16" => T::U(16),
        "u32" => T::U(32),
        "u64" => T::U(64),
        "s8" => T::S(8),
        "s16" => T::S(16),
        "s32" => T::S(32),
        "s64" => T::S(64),
        "f32" => T::F(32),
        "f64" => T::F(64),
        "f16" => T::F(16),
        "f16x2" | "bf16" | "bf16x2" | "tf32" | "b128" | "e4m3" | "e5m2" | "e4m3x2" | "e5m2x2"
        | "s4" | "u4" | "b1" | "s2" | "u2" | "e2m1" | "e3m2" | "e2m3" | "f8x4" => T::Other,
        _ => return None,
    })
}

/// Bytes of one element of a variable's type.
fn elem_bytes(ty: &str) -> Option<u64> {
    Some(match ty {
        "b8" | "u8" | "s8" | "pred" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" | "tf32" => 4,
        "b64" | "u64" | "s64" | "f64" | "texref" | "samplerref" | "surfref" => 8,
        "b128" => 16,
        _ => return None,
    })
}

/// Size and alignment of a variable (elements x vector x array dimensions).
pub fn var_layout(v: &VarDecl) -> R<(u64, u64)> {
    let eb = match elem_bytes(&v.ty) {
        Some(b) => b,
        None => return invalid(v.pos, format!("unknown type '.{}'", v.ty)),
    };
    let el = eb * v.vec as u64;
    let mut n = 1u64;
    for d in &v.dims {
        match d {
            Some(k) => n = n.saturating_mul(*k),
            None => {
                // Unsized array: its initializer gives the length, else it is 0 (extern).
                n = match &v.init {
                    Some(Init::List(l)) => flat_len(l) as u64 / v.vec as u64,
                    _ => 0,
                };
            }
        }
    }
    let align = v.align.map(|a| a as u64).unwrap_or(el).max(1);
    Ok((el.saturating_mul(n), align))
}

fn flat_len(l: &[Init]) -> usize {
    l.iter()
        .map(|i| {
            if let Init::List(x) = i {
                flat_len(x)
            } else {
                1
            }
        })
        .sum()
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// Module-scope facts shared by every kernel's lowering.
pub struct ModCtx<'a> {
    pub m: &'a ast::Module,
    /// `.global` / `.const` variables: name -> device address.
    pub globals: HashMap<String, u64>,
    pub funcs: HashMap<String, usize>,
    /// Functions whose address is taken ([`address_taken`]): a module-wide fact, computed once
    /// per module (computing it per kernel made loading quadratic in the number of kernels).
    pub taken: Vec<bool>,
    /// Device functions (not entries) that declare `.shared` variables, in module order: every
    /// kernel's static shared layout includes them.
    pub shared_funcs: Vec<usize>,
    /// Functions that may be re-entered ([`reentrant`]).
    pub reentrant: Vec<bool>,
    /// `.global` / `.const` variables declared in function bodies: their declaration's
    /// (line, column) -> device address (allocated by the module with the others).
    pub scoped: HashMap<(u32, u32), u64>,
}

impl<'a> ModCtx<'a> {
    pub fn new(
        m: &'a ast::Module,
        globals: HashMap<String, u64>,
        funcs: HashMap<String, usize>,
    ) -> Self {
        let mut mc = ModCtx {
            m,
            globals,
            funcs,
            taken: Vec::new(),
            shared_funcs: Vec::new(),
            reentrant: Vec::new(),
            scoped: HashMap::new(),
        };
        mc.taken = address_taken(m, &mc.funcs);
        mc.reentrant = reentrant(m, &mc.funcs, &mc.taken);
        fn declares_shared(st: &[Statement]) -> bool {
            st.iter().any(|s| match s {
                Statement::Var(v) => v.space == AS::Shared,
                Statement::Block(b) => declares_shared(b),
                _ => false,
            })
        }
        mc.shared_funcs = (m.functions.iter().enumerate())
            .filter(|(_, f)| !f.is_entry && f.body.as_deref().is_some_and(declares_shared))
            .map(|(i, _)| i)
            .collect();
        mc
    }
}

#[derive(Clone, Copy, Debug)]
enum Sym {
    Reg(Reg),
    Global(u64),
    Shared(u32),
    Local(u32),
    /// A `.local` variable of a re-entrant function: its offset in the activation's frame,
    /// whose base is the function's frame register ([`FnCtx::frame`]).
    Frame(u32),
    KParam(u32),
    Func(usize),
}

/// The instructions of a function body, nested blocks included.
fn count_insts(st: &[Statement]) -> usize {
    st.iter()
        .map(|s| match s {
            Statement::Inst(_) => 1,
            Statement::Block(b) => count_insts(b),
            _ => 0,
        })
        .sum()
}

/// `{prefix}{k}`: the name of register `k` of a parameterized declaration (`%r<16>`), written
/// without going through `fmt` (a module declares many of them).
fn numbered(prefix: &str, k: u32) -> Name {
    let mut digits = [0u8; 10];
    let (mut i, mut k) = (digits.len(), k);
    loop {
        i -= 1;
        digits[i] = b'0' + (k % 10) as u8;
        k /= 10;
        if k == 0 {
            break;
        }
    }
    let mut buf = [0u8; 24];
    let len = prefix.len() + digits.len() - i;
    if len <= buf.len() {
        buf[..prefix.len()].copy_from_slice(prefix.as_bytes());
        buf[prefix.len()..len].copy_from_slice(&digits[i..]);
        // SAFETY: a `str` followed by ASCII digits is valid UTF-8.
        return Name::new(unsafe { std::str::from_utf8_unchecked(&buf[..len]) });
    }
    let mut s = Name::with_capacity(len);
    s.push_str(prefix);
    for &d in &digits[i..] {
        s.push(d as char);
    }
    s
}

#[derive(Clone, Copy)]
enum Formal {
    Local(u32, u32),
    Reg(Reg, u32),
}

impl Formal {
    fn loc(self) -> Loc {
        match self {
            Formal::Local(o, n) => Loc::Local(o, n),
            Formal::Reg(r, bits) => Loc::Reg(r, bits),
        }
    }
}

/// Which functions of the module have their address taken (named outside the callee position
/// of a call, or in a variable initializer): the candidates of indirect calls. One pass over the
/// module; names that are not functions (registers, mostly) cost one hash lookup each.
fn address_taken(m: &ast::Module, funcs: &HashMap<String, usize>) -> Vec<bool> {
    struct W<'b> {
        funcs: &'b HashMap<String, usize>,
        t: Vec<bool>,
    }
    impl W<'_> {
        fn mark(&mut self, name: &str) {
            if let Some(&f) = self.funcs.get(name) {
                self.t[f] = true;
            }
        }
        fn init(&mut self, i: &Init) {
            match i {
                Init::Sym { name, .. } => self.mark(name),
                Init::List(l) => l.iter().for_each(|x| self.init(x)),
                _ => {}
            }
        }
        fn op(&mut self, o: &O) {
            match o {
                O::Name { name, .. } | O::SymOff { name, .. } => self.mark(name),
                O::Index { name, index } => {
                    self.mark(name);
                    self.op(index)
                }
                O::Vector(v) | O::List(v) | O::Tuple(v) => v.iter().for_each(|x| self.op(x)),
                O::Not(x) | O::Neg(x) => self.op(x),
                O::Pair(a, b) => {
                    self.op(a);
                    self.op(b);
                }
                _ => {}
            }
        }
        fn stmts(&mut self, st: &[Statement]) {
            for s in st {
                match s {
                    Statement::Inst(i) => {
                        // The callee position of `call` is a call, not an address use.
                        let callee_pos = match i.operands.first() {
                            Some(O::List(_)) => 1,
                            _ => 0,
                        };
                        for (k, o) in i.operands.iter().enumerate() {
                            if !(i.opcode == "call" && k == callee_pos) {
                                self.op(o);
                            }
                        }
                    }
                    Statement::Var(v) => {
                        if let Some(i) = &v.init {
                            self.init(i);
                        }
                    }
                    Statement::Block(b) => self.stmts(b),
                    _ => {}
                }
            }
        }
    }
    let mut w = W {
        funcs,
        t: vec![false; m.functions.len()],
    };
    if funcs.values().all(|&f| m.functions[f].is_entry) {
        return w.t; // no device function: nothing can be called indirectly
    }
    for g in &m.globals {
        if let Some(i) = &g.init {
            w.init(i);
        }
    }
    for f in &m.functions {
        if let Some(b) = &f.body {
            w.stmts(b);
        }
    }
    w.t
}

/// Which functions of the module may be re-entered while active (they lie on a cycle of the
/// module's static call graph: direct calls by name, and every indirect call to every
/// address-taken function). Their `.local` variables live in a frame per activation on the
/// thread's stack, so a pointer to a caller's local stays valid in its callees; every other
/// function keeps its locals at fixed offsets (faster, and correct as it cannot be re-entered).
/// A module-wide over-approximation of each kernel's call graph: computed once per module.
fn reentrant(m: &ast::Module, funcs: &HashMap<String, usize>, taken: &[bool]) -> Vec<bool> {
    let n = m.functions.len();
    let targets: Vec<usize> = (0..n)
        .filter(|&f| taken[f] && !m.functions[f].is_entry)
        .collect();
    fn calls(st: &[Statement], funcs: &HashMap<String, usize>, out: &mut Vec<Option<usize>>) {
        for s in st {
            match s {
                Statement::Inst(i) if i.opcode == "call" => {
                    let k = match i.operands.first() {
                        Some(O::List(_)) => 1,
                        _ => 0,
                    };
                    match i.operands.get(k) {
                        Some(O::Name { name, .. }) => out.push(funcs.get(name).copied()),
                        _ => out.push(None),
                    }
                }
                Statement::Block(b) => calls(b, funcs, out),
                _ => {}
            }
        }
    }
    // Successors: a direct callee, or (None) every indirect-call target.
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (f, func) in m.functions.iter().enumerate() {
        let Some(b) = &func.body else { continue };
        let mut cs = Vec::new();
        calls(b, funcs, &mut cs);
        for c in cs {
            match c {
                Some(c) => succ[f].push(c),
                None => succ[f].extend_from_slice(&targets),
            }
        }
        succ[f].sort_unstable();
        succ[f].dedup();
    }
    // Strongly connected components (Kosaraju, with explicit stacks: call chains can be long).
    let mut seen = vec![false; n];
    let mut finish = Vec::with_capacity(n);
    for s in 0..n {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let mut st = vec![(s, 0usize)];
        while let Some(&mut (v, ref mut k)) = st.last_mut() {
            if let Some(&w) = succ[v].get(*k) {
                *k += 1;
                if !seen[w] {
                    seen[w] = true;
                    st.push((w, 0));
                }
            } else {
                finish.push(v);
                st.pop();
            }
        }
    }
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (v, ws) in succ.iter().enumerate() {
        for &w in ws {
            pred[w].push(v);
        }
    }
    let mut comp = vec![usize::MAX; n];
    let mut size = Vec::new();
    for &s in finish.iter().rev() {
        if comp[s] != usize::MAX {
            continue;
        }
        let c = size.len();
        size.push(0usize);
        comp[s] = c;
        let mut st = vec![s];
        while let Some(v) = st.pop() {
            size[c] += 1;
            for &w in &pred[v] {
                if comp[w] == usize::MAX {
                    comp[w] = c;
                    st.push(w);
                }
            }
        }
    }
    (0..n)
        .map(|f| size[comp[f]] > 1 || succ[f].contains(&f))
        .collect()
}

struct Sig {
    params: Vec<Formal>,
    rets: Vec<Formal>,
}

pub struct KernelOut {
    pub name: String,
    pub params: Vec<crate::Param>,
    pub param_bytes: usize,
    pub max_threads: u32,
    pub program: Program,
    /// Lower-only mode: the instructions lowered to placeholders.
    pub unsupported: Vec<Unsupported>,
    /// Module function indices this program lowered (the kernel and its callees).
    pub lowered: Vec<usize>,
}

struct FnCtx {
    scopes: Vec<FxMap<Name, Sym>>,
    labels: FxMap<Name, u32>,
    fixups: Vec<(usize, String, Pos)>,
    /// `brx.idx` instructions and the labels of their `.branchtargets` list.
    brx_fixups: Vec<(usize, Vec<String>, Pos)>,
    is_kernel: bool,
    fidx: usize,
    /// Every label of the function (any scope), for name checks of unsupported instructions.
    all_labels: FxSet<Name>,
    /// A re-entrant function's frame: its `.local` variables, allocated on the thread's stack
    /// at each entry ([`Op::Frame`]).
    frame: Option<FrameCtx>,
}

/// The frame of a re-entrant function being lowered.
struct FrameCtx {
    /// The hidden per-lane register holding the activation's frame base (a `.local` offset).
    /// Owned by the function, so calls that may re-enter it save and restore it.
    base: Reg,
    bytes: u64,
    align: u64,
}

struct Prog<'a> {
    mc: &'a ModCtx<'a>,
    insts: Vec<Inst>,
    info: Vec<InstInfo>,
    /// The address of the instruction [`Prog::emit`] last named, and its name.
    last_name: Option<(usize, Name)>,
    nregs: u32,
    /// Static shared layout, computed before lowering so dynamic shared memory can follow it:
    /// module variables by name, function variables by declaration position.
    shared_mod: HashMap<String, u32>,
    shared_fn: HashMap<(u32, u32), u32>,
    shared_size: u64,
    dyn_off: u32,
    local_mod: HashMap<String, u32>,
    local_size: u64,
    sigs: FxMap<usize, Sig>,
    code: FxMap<usize, (u32, u32)>,
    queue: Vec<usize>,
    /// Direct call edges (caller, callee) of the call graph.
    edges: Vec<(usize, usize)>,
    /// The hidden per-lane carry flag register (CC.CF), allocated at its first use.
    cc_reg: Option<Reg>,
    /// The function whose registers and locals are being allocated (usize::MAX: none).
    owner: usize,
    fn_regs: FxMap<usize, Vec<Reg>>,
    fn_locals: FxMap<usize, Vec<(u32, u32)>>,
    /// Declared bytes of each register (4 unless declared 64-bit), for frame sizes.
    reg_bytes: Vec<u8>,
    /// 32-bit hardware registers each register's value occupies (2 for 64-bit ones, 0 for
    /// predicates and hidden registers), for the register estimate ([`crate::regs`]).
    reg_words: Vec<u8>,
    /// Call sites; `callees` hold module function indices until the end of lowering.
    sites: Vec<CallSite>,
    /// Functions that contain an indirect call.
    indirect_callers: Vec<usize>,
    sp_reg: Option<Reg>,
    uses_alloca: bool,
    /// Bytes of the kernel's parameter block, and whether an instruction takes generic
    /// addresses of it (`cvta.param`, `isspacep.param`): then each launch places a copy of the
    /// block in global memory (the ISA's `.param` window lies inside the `.global` one).
    param_bytes: u64,
    param_window: bool,
    /// The low registers of `.b128` registers (each is a pair: low half, then high half).
    b128_regs: FxSet<Reg>,
    /// Registers declared `.pred` (operands whose meaning depends on their type: cp.async's
    /// src-size or ignore-src).
    pred_regs: FxSet<Reg>,
    /// Element bytes of array variables by name (module and function scope), for `sym[i]`.
    elem: HashMap<String, u64>,
    /// Lower-only mode (`check --lower-only`): an instruction the executor cannot run is
    /// decoded against the ISA table, recorded in `unsupported` and lowered to a placeholder,
    /// instead of failing the load.
    lower_only: bool,
    unsupported: Vec<Unsupported>,
    /// Module function indices whose bodies this program lowered.
    lowered: Vec<usize>,
}

/// A valid instruction the executor cannot run yet, decoded against the ISA table.
#[derive(Clone, Debug)]
pub struct Unsupported {
    /// `opcode.mod1.mod2` as written.
    pub name: String,
    pub decoded: crate::isa::Decoded,
}

/// Lowers kernel `fidx` of the module (or, for a device function, the function and everything
/// it calls, as if it were launched: how `check` and load validate functions no kernel calls).
pub fn lower_kernel(mc: &ModCtx, fidx: usize, lower_only: bool) -> R<KernelOut> {
    let f = &mc.m.functions[fidx];
    let mut p = Prog {
        mc,
        insts: Vec::new(),
        info: Vec::new(),
        last_name: None,
        nregs: 0,
        shared_mod: HashMap::new(),
        shared_fn: HashMap::new(),
        shared_size: 0,
        dyn_off: 0,
        local_mod: HashMap::new(),
        local_size: 0,
        sigs: FxMap::default(),
        code: FxMap::default(),
        queue: Vec::new(),
        edges: Vec::new(),
        cc_reg: None,
        owner: usize::MAX,
        fn_regs: FxMap::default(),
        fn_locals: FxMap::default(),
        reg_bytes: Vec::new(),
        reg_words: Vec::new(),
        sites: Vec::new(),
        indirect_callers: Vec::new(),
        sp_reg: None,
        uses_alloca: false,
        param_bytes: 0,
        param_window: false,
        b128_regs: Default::default(),
        pred_regs: Default::default(),
        elem: HashMap::new(),
        lower_only,
        unsupported: Vec::new(),
        lowered: Vec::new(),
    };
    for g in &mc.m.globals {
        if let Some(b) = elem_bytes(&g.ty) {
            p.elem.insert(g.name.to_string(), b * g.vec as u64);
        }
    }
    p.layout_shared(fidx)?;
    for g in &mc.m.globals {
        if g.space == AS::Local {
            let (size, align) = var_layout(g)?;
            let off = p.alloc_local(size, align);
            p.local_mod.insert(g.name.to_string(), off);
        }
    }
    // Kernel parameters: natural alignment unless `.align` says otherwise.
    let mut params = Vec::new();
    let mut scope = FxMap::default();
    let mut off = 0u64;
    for d in &f.params {
        let (size, align) = var_layout(d)?;
        off = align_up(off, align);
        scope.insert(Name::new(&d.name), Sym::KParam(off as u32));
        params.push(crate::Param {
            name: d.name.to_string(),
            offset: off as usize,
            size: size as usize,
            align: align as usize,
        });
        off += size;
    }
    p.param_bytes = off;
    let max_threads = f
        .directives
        .iter()
        .find(|(n, _)| n == "maxntid" || n == "reqntid")
        .map(|(_, v)| v.iter().map(|&x| x as u32).product())
        .unwrap_or(0);
    let (entry, exit) = if f.is_entry {
        p.lower_fn(fidx, scope, true)?
    } else {
        p.sig(fidx)?;
        let scope = p.formal_scope(fidx);
        p.lower_fn(fidx, scope, false)?
    };
    p.code.insert(fidx, (entry, exit));
    p.drain_queue()?;
    // An indirect call may reach any function whose address is taken: lower them all.
    let taken = &mc.taken;
    if !p.indirect_callers.is_empty() {
        for (fi, f) in mc.m.functions.iter().enumerate() {
            if taken[fi] && !f.is_entry && f.body.is_some() && !p.code.contains_key(&fi) {
                p.sig(fi)?;
                p.queue.push(fi);
            }
        }
        p.drain_queue()?;
    }
    let (funcs, sites) = p.finish_calls(fidx, taken);
    // A kernel without registers still has one slot (`nregs` is at least 1).
    let nregs = p.nregs.max(1);
    p.reg_words.resize(nregs as usize, 0);
    let program = Program {
        insts: p.insts,
        info: p.info,
        entry,
        exit,
        nregs,
        reg_words: p.reg_words,
        shared_static: p.shared_size as u32,
        dyn_shared_off: p.dyn_off,
        local_bytes: align_up(p.local_size, 16) as u32,
        funcs,
        sites,
        sp: p.sp_reg,
        uses_alloca: p.uses_alloca,
        param_window: p.param_window,
    };
    // The executor trusts the IR's invariants; debug builds (and so every engine test) check
    // them at each load.
    #[cfg(debug_assertions)]
    if let Err(e) = crate::ir::verify::verify(&program) {
        return Err(LowerError {
            kind: LoadErrorKind::Unsupported,
            pos: f.pos,
            message: format!(
                "internal error, the IR of '{}' fails verification: {e}",
                f.name
            ),
        });
    }
    Ok(KernelOut {
        name: f.name.clone(),
        params,
        param_bytes: off as usize,
        max_threads,
        program,
        unsupported: p.unsupported,
        lowered: p.lowered,
    })
}

impl<'a> Prog<'a> {
    fn layout_shared(&mut self, kidx: usize) -> R<()> {
        let mut size = 0u64;
        let mut max_align = 16u64;
        for g in &self.mc.m.globals {
            if g.space == AS::Shared && !g.attrs.iter().any(|a| a == "extern") {
                let (s, a) = var_layout(g)?;
                size = align_up(size, a);
                self.shared_mod.insert(g.name.to_string(), size as u32);
                size += s;
            } else if g.space == AS::Shared {
                max_align = max_align.max(g.align.unwrap_or(1) as u64);
            }
        }
        fn walk(
            st: &[Statement],
            size: &mut u64,
            max_align: &mut u64,
            out: &mut HashMap<(u32, u32), u32>,
        ) -> R<()> {
            for s in st {
                match s {
                    Statement::Var(v) if v.space == AS::Shared => {
                        if v.attrs.iter().any(|a| a == "extern") {
                            *max_align = (*max_align).max(v.align.unwrap_or(1) as u64);
                        } else {
                            let (sz, a) = var_layout(v)?;
                            *size = align_up(*size, a);
                            out.insert((v.pos.line, v.pos.col), *size as u32);
                            *size += sz;
                        }
                    }
                    Statement::Block(b) => walk(b, size, max_align, out)?,
                    _ => {}
                }
            }
            Ok(())
        }
        // The kernel's own variables and those of every device function that declares any, in
        // module order (the device functions are found once per module: see `ModCtx::new`).
        let mut fns = self.mc.shared_funcs.clone();
        if let Err(k) = fns.binary_search(&kidx) {
            fns.insert(k, kidx);
        }
        for i in fns {
            if let Some(b) = &self.mc.m.functions[i].body {
                walk(b, &mut size, &mut max_align, &mut self.shared_fn)?;
            }
        }
        self.shared_size = size;
        self.dyn_off = align_up(size, max_align) as u32;
        if size >= WINDOW_SIZE {
            return invalid(
                self.mc.m.functions[kidx].pos,
                "static shared memory too large",
            );
        }
        Ok(())
    }

    fn alloc_local(&mut self, size: u64, align: u64) -> u32 {
        self.local_size = align_up(self.local_size, align);
        let off = self.local_size as u32;
        self.local_size += size;
        if self.owner != usize::MAX && size > 0 {
            self.fn_locals
                .entry(self.owner)
                .or_default()
                .push((off, size as u32));
        }
        off
    }

    fn new_reg(&mut self) -> Reg {
        self.nregs += 1;
        self.reg_bytes.push(4);
        self.reg_words.push(1);
        if self.owner != usize::MAX {
            self.fn_regs
                .entry(self.owner)
                .or_default()
                .push(self.nregs - 1);
        }
        self.nregs - 1
    }

    /// A hidden register of the program (carry flag, stack pointer): owned by no function, so
    /// never saved or restored by calls.
    fn hidden_reg(&mut self) -> Reg {
        self.nregs += 1;
        self.reg_bytes.push(0);
        self.reg_words.push(0);
        self.nregs - 1
    }

    fn drain_queue(&mut self) -> R<()> {
        while let Some(fi) = self.queue.pop() {
            if self.code.contains_key(&fi) {
                continue;
            }
            let scope = self.formal_scope(fi);
            let r = self.lower_fn(fi, scope, false)?;
            self.code.insert(fi, r);
        }
        Ok(())
    }

    /// Builds the program's function table and resolves call sites: callee indices, the
    /// candidates of indirect calls (address-taken functions of the same arity), and which
    /// calls must save their caller's frame (those whose callee can reach the caller again).
    fn finish_calls(&mut self, kernel: usize, taken: &[bool]) -> (Vec<Func>, Vec<CallSite>) {
        let mut order: Vec<usize> = vec![kernel];
        let mut rest: Vec<usize> = self.code.keys().copied().filter(|&f| f != kernel).collect();
        rest.sort_unstable();
        order.extend(rest);
        let index: HashMap<usize, u32> = order
            .iter()
            .enumerate()
            .map(|(k, &f)| (f, k as u32))
            .collect();
        let ranges = |v: Option<&Vec<Reg>>| {
            let mut v = v.cloned().unwrap_or_default();
            v.sort_unstable();
            let mut out: Vec<(Reg, Reg)> = Vec::new();
            for r in v {
                match out.last_mut() {
                    Some((_, e)) if *e == r => *e += 1,
                    _ => out.push((r, r + 1)),
                }
            }
            out
        };
        let mut funcs = Vec::new();
        for &fi in &order {
            let f = &self.mc.m.functions[fi];
            let (entry, exit) = self.code[&fi];
            let regs = ranges(self.fn_regs.get(&fi));
            let locals = self.fn_locals.get(&fi).cloned().unwrap_or_default();
            let (params, rets) = match self.sigs.get(&fi) {
                Some(s) => (
                    s.params.iter().map(|x| x.loc()).collect(),
                    s.rets.iter().map(|x| x.loc()).collect(),
                ),
                None => (Vec::new(), Vec::new()),
            };
            funcs.push(Func {
                name: f.name.clone(),
                addr: func_addr(fi),
                entry,
                exit,
                params,
                rets,
                regs,
                locals,
                // Set below for the functions whose calls save them.
                frame_bytes: 0,
            });
        }
        // Call graph over module indices: direct edges, and indirect callers to every
        // address-taken function in the program.
        let mut succ: HashMap<usize, Vec<usize>> = HashMap::new();
        for &(a, b) in &self.edges {
            succ.entry(a).or_default().push(b);
        }
        for &a in &self.indirect_callers {
            for &b in &order {
                if taken[b] && b != kernel {
                    succ.entry(a).or_default().push(b);
                }
            }
        }
        let reaches = |from: usize, to: usize| {
            let mut seen = vec![from];
            let mut stack = vec![from];
            while let Some(v) = stack.pop() {
                if v == to {
                    return true;
                }
                for &w in succ.get(&v).map(|x| x.as_slice()).unwrap_or(&[]) {
                    if !seen.contains(&w) {
                        seen.push(w);
                        stack.push(w);
                    }
                }
            }
            false
        };
        let mut sites = std::mem::take(&mut self.sites);
        for s in sites.iter_mut() {
            // `save` holds the caller's module index here, `callees` the callee's (direct).
            let caller = s.save.unwrap() as usize;
            let cands: Vec<usize> = if s.sel.is_some() {
                order
                    .iter()
                    .copied()
                    .filter(|&f| {
                        let fu = &funcs[index[&f] as usize];
                        f != kernel
                            && taken[f]
                            && fu.params.len() == s.args.len()
                            && fu.rets.len() == s.rets.len()
                    })
                    .collect()
            } else {
                vec![s.callees[0] as usize]
            };
            let recursive = cands.iter().any(|&c| reaches(c, caller));
            s.save = recursive.then(|| index[&caller]);
            s.callees = cands.iter().map(|c| index[c]).collect();
            // What a hardware ABI frame of the caller holds besides its `.local` variables
            // (those are charged by `Op::Frame`): the registers it saves (see `frame`). The
            // executor saves all of the caller's state; only the charge is estimated.
            if let Some(k) = s.save {
                let f = &mut funcs[k as usize];
                if f.frame_bytes == 0 {
                    f.frame_bytes = crate::frame::saved_bytes(&self.mc.m.functions[caller]);
                }
            }
        }
        (funcs, sites)
    }

    /// The formal parameters of device function `fi`: `.param` ones live in local memory,
    /// `.reg` ones in registers. Allocated once per program, at the first call.
    fn sig(&mut self, fi: usize) -> R<()> {
        if self.sigs.contains_key(&fi) {
            return Ok(());
        }
        let f = &self.mc.m.functions[fi];
        let saved_owner = std::mem::replace(&mut self.owner, fi);
        // A `.reg .v2/.v4` formal is one register formal per element (`a.x`, `a.y`, ...): the
        // caller passes the elements of a vector of that shape, or splits a scalar of the same
        // total width (see `vector_actual`).
        let mk = |p: &mut Prog, d: &VarDecl, out: &mut Vec<Formal>| -> R<()> {
            let (size, align) = var_layout(d)?;
            if d.space == AS::Reg {
                let n = d.vec.max(1) as u64;
                for _ in 0..n {
                    let r = p.new_reg();
                    p.reg_words[r as usize] = match d.ty.as_str() {
                        "pred" => 0,
                        _ => (size / n).div_ceil(4).min(2) as u8,
                    };
                    out.push(Formal::Reg(r, (size / n * 8) as u32));
                }
            } else {
                out.push(Formal::Local(p.alloc_local(size, align), size as u32));
            }
            Ok(())
        };
        let mut params = Vec::new();
        for d in &f.params {
            mk(self, d, &mut params)?;
        }
        let mut rets = Vec::new();
        for d in &f.ret_params {
            mk(self, d, &mut rets)?;
        }
        self.sigs.insert(fi, Sig { params, rets });
        self.owner = saved_owner;
        Ok(())
    }

    fn formal_scope(&self, fi: usize) -> FxMap<Name, Sym> {
        let f = &self.mc.m.functions[fi];
        let sig = &self.sigs[&fi];
        let mut s = FxMap::default();
        for (decls, formals) in [(&f.params, &sig.params), (&f.ret_params, &sig.rets)] {
            let mut fms = formals.iter();
            for d in decls {
                let n = if d.space == AS::Reg { d.vec.max(1) } else { 1 };
                for c in ["x", "y", "z", "w"].iter().take(n as usize) {
                    let Some(fm) = fms.next() else { break };
                    let sym = match *fm {
                        Formal::Local(o, _) => Sym::Local(o),
                        Formal::Reg(r, _) => Sym::Reg(r),
                    };
                    let name = if n > 1 {
                        Name::new(format!("{}.{c}", d.name))
                    } else {
                        Name::new(&d.name)
                    };
                    s.insert(name, sym);
                }
            }
        }
        s
    }

    fn lower_fn(&mut self, fidx: usize, scope: FxMap<Name, Sym>, is_kernel: bool) -> R<(u32, u32)> {
        let f = &self.mc.m.functions[fidx];
        let body = match &f.body {
            Some(b) => b,
            None => {
                return Err(LowerError {
                    kind: LoadErrorKind::Unsupported,
                    pos: f.pos,
                    message: format!("unsupported call of external function '{}'", f.name),
                })
            }
        };
        if let Err((pos, m)) = crate::isa::types::check_function(f, body) {
            return invalid(pos, m);
        }
        // Room for the body's code up front (lowering emits about one IR instruction per PTX
        // instruction, often more): the tables grow by doubling otherwise.
        let n = count_insts(body);
        self.insts.reserve(n + n / 2);
        self.info.reserve(n + n / 2);
        let entry = self.insts.len() as u32;
        self.lowered.push(fidx);
        let saved_owner = std::mem::replace(&mut self.owner, fidx);
        let mut fc = FnCtx {
            scopes: vec![scope],
            labels: FxMap::default(),
            fixups: Vec::new(),
            brx_fixups: Vec::new(),
            is_kernel,
            fidx,
            all_labels: Default::default(),
            frame: None,
        };
        // A re-entrant function with `.local` variables allocates its frame on entry; the
        // size is known once the body is lowered. (Calls restore the stack pointer on return,
        // which frees it.)
        fn declares_local(st: &[Statement]) -> bool {
            st.iter().any(|s| match s {
                Statement::Var(v) => v.space == AS::Local,
                Statement::Block(b) => declares_local(b),
                _ => false,
            })
        }
        let frame_pc = if !is_kernel && self.mc.reentrant[fidx] && declares_local(body) {
            let base = self.new_reg();
            // Not charged as a spilled register: the 16 bytes of saved state per frame are.
            self.reg_bytes[base as usize] = 0;
            // Nor counted as a hardware register: the ABI's stack pointer, counted in the
            // estimate's fixed part, addresses the frame.
            self.reg_words[base as usize] = 0;
            fc.frame = Some(FrameCtx {
                base,
                bytes: 0,
                align: 1,
            });
            self.uses_alloca = true;
            if self.sp_reg.is_none() {
                self.sp_reg = Some(self.hidden_reg());
            }
            self.insts.push(Inst {
                op: Op::Frame {
                    d: base,
                    size: 0,
                    align: 1,
                },
                guard: None,
            });
            self.info.push(InstInfo {
                line: f.pos.line,
                name: Name::new(&f.name),
            });
            Some(entry as usize)
        } else {
            None
        };
        if self.lower_only {
            fn labels(st: &[Statement], out: &mut FxSet<Name>) {
                for s in st {
                    match s {
                        Statement::Label(l, _) => {
                            out.insert(Name::new(l));
                        }
                        Statement::Block(b) => labels(b, out),
                        _ => {}
                    }
                }
            }
            labels(body, &mut fc.all_labels);
        }
        self.stmts(&mut fc, body)?;
        if let (Some(pc), Some(fr)) = (frame_pc, &fc.frame) {
            if fr.bytes > u32::MAX as u64 / 2 {
                return invalid(f.pos, "local variables of the function too large");
            }
            self.insts[pc].op = Op::Frame {
                d: fr.base,
                size: align_up(fr.bytes, fr.align) as u32,
                align: fr.align as u32,
            };
        }
        let exit = self.insts.len();
        self.insts.push(Inst {
            op: Op::End,
            guard: None,
        });
        self.info.push(InstInfo {
            line: 0,
            name: "end".into(),
        });
        for (pc, label, pos) in std::mem::take(&mut fc.fixups) {
            let t = if label.is_empty() {
                exit as u32
            } else {
                match fc.labels.get(label.as_str()) {
                    Some(&t) => t,
                    None => return invalid(pos, format!("undefined label '{label}'")),
                }
            };
            if let Op::Bra { ref mut target, .. } = self.insts[pc].op {
                *target = t;
            }
        }
        for (pc, list, pos) in std::mem::take(&mut fc.brx_fixups) {
            let mut ts = Vec::with_capacity(list.len());
            for label in &list {
                match fc.labels.get(label.as_str()) {
                    Some(&t) => ts.push(t),
                    None => return invalid(pos, format!("undefined label '{label}'")),
                }
            }
            if let Op::Brx {
                ref mut targets, ..
            } = self.insts[pc].op
            {
                *targets = ts;
            }
        }
        analysis::set_reconvergence(&mut self.insts, entry as usize, exit);
        self.owner = saved_owner;
        Ok((entry, exit as u32))
    }

    fn stmts(&mut self, fc: &mut FnCtx, st: &[Statement]) -> R<()> {
        // Labels are function-scoped: collect this level's first so forward branches resolve.
        for s in st {
            match s {
                Statement::Inst(i) => self.inst(fc, i)?,
                Statement::Label(l, pos) => {
                    if fc
                        .labels
                        .insert(Name::new(l), self.insts.len() as u32)
                        .is_some()
                    {
                        return invalid(*pos, format!("duplicate label '{l}'"));
                    }
                }
                Statement::Var(v) => self.declare(fc, v)?,
                Statement::Block(b) => {
                    fc.scopes.push(FxMap::default());
                    self.stmts(fc, b)?;
                    fc.scopes.pop();
                }
                Statement::Other(_) => {}
            }
        }
        Ok(())
    }

    fn declare(&mut self, fc: &mut FnCtx, v: &VarDecl) -> R<()> {
        let scope = fc.scopes.last_mut().unwrap();
        match v.space {
            AS::Reg => {
                if elem_bytes(&v.ty).is_none() {
                    return invalid(v.pos, format!("unknown register type '.{}'", v.ty));
                }
                let comps = ["x", "y", "z", "w"];
                let wide = elem_bytes(&v.ty) == Some(8);
                let pred = v.ty == "pred";
                let b128 = v.ty == "b128";
                let mk = |p: &mut Prog, scope: &mut FxMap<Name, Sym>, name: Name| {
                    let new = |p: &mut Prog| {
                        let r = p.new_reg();
                        if wide {
                            p.reg_bytes[r as usize] = 8;
                            p.reg_words[r as usize] = 2;
                        }
                        if b128 {
                            // The high half: the next register (`new_reg` numbers densely).
                            let hi = p.new_reg();
                            debug_assert_eq!(hi, r + 1);
                            p.reg_bytes[r as usize] = 8;
                            p.reg_bytes[hi as usize] = 8;
                            p.reg_words[r as usize] = 2;
                            p.reg_words[hi as usize] = 2;
                            p.b128_regs.insert(r);
                        }
                        if pred {
                            p.pred_regs.insert(r);
                            p.reg_words[r as usize] = 0;
                        }
                        r
                    };
                    if v.vec > 1 {
                        for c in comps.iter().take(v.vec as usize) {
                            let r = new(p);
                            let mut full = name.clone();
                            full.push('.');
                            full.push_str(c);
                            scope.insert(full, Sym::Reg(r));
                        }
                    } else {
                        let r = new(p);
                        scope.insert(name, Sym::Reg(r));
                    }
                };
                match v.count {
                    Some(n) => {
                        let regs = n as usize * v.vec.max(1) as usize;
                        scope.reserve(regs);
                        self.reg_bytes.reserve(regs);
                        self.reg_words.reserve(regs);
                        for k in 0..n {
                            mk(self, scope, numbered(&v.name, k));
                        }
                    }
                    None => mk(self, scope, Name::new(&v.name)),
                }
            }
            AS::Shared => {
                if let Some(b) = elem_bytes(&v.ty) {
                    self.elem.insert(v.name.to_string(), b * v.vec as u64);
                }
                let off = if v.attrs.iter().any(|a| a == "extern") {
                    self.dyn_off
                } else {
                    self.shared_fn[&(v.pos.line, v.pos.col)]
                };
                fc.scopes
                    .last_mut()
                    .unwrap()
                    .insert(Name::new(&v.name), Sym::Shared(off));
            }
            AS::Local | AS::Param => {
                if let Some(b) = elem_bytes(&v.ty) {
                    self.elem.insert(v.name.to_string(), b * v.vec as u64);
                }
                let (size, align) = var_layout(v)?;
                let sym = match &mut fc.frame {
                    // In the activation's frame (`.param` variables are call buffers, copied
                    // in and out: they stay at fixed offsets, saved around re-entrant calls).
                    Some(fr) if v.space == AS::Local => {
                        let off = align_up(fr.bytes, align);
                        fr.bytes = off + size;
                        fr.align = fr.align.max(align);
                        Sym::Frame(off as u32)
                    }
                    _ => Sym::Local(self.alloc_local(size, align)),
                };
                fc.scopes
                    .last_mut()
                    .unwrap()
                    .insert(Name::new(&v.name), sym);
            }
            AS::Global | AS::Const if self.mc.scoped.contains_key(&(v.pos.line, v.pos.col)) => {
                if let Some(b) = elem_bytes(&v.ty) {
                    self.elem.insert(v.name.to_string(), b * v.vec as u64);
                }
                let a = self.mc.scoped[&(v.pos.line, v.pos.col)];
                fc.scopes
                    .last_mut()
                    .unwrap()
                    .insert(Name::new(&v.name), Sym::Global(a));
            }
            _ => {
                return Err(LowerError {
                    kind: LoadErrorKind::Unsupported,
                    pos: v.pos,
                    message: format!(
                        "unsupported function-scope {:?} variable '{}'",
                        v.space, v.name
                    ),
                })
            }
        }
        Ok(())
    }

    fn lookup(&self, fc: &FnCtx, name: &str) -> Option<Sym> {
        for s in fc.scopes.iter().rev() {
            if let Some(&x) = s.get(name) {
                return Some(x);
            }
        }
        if let Some(&a) = self.mc.globals.get(name) {
            return Some(Sym::Global(a));
        }
        if let Some(&o) = self.shared_mod.get(name) {
            return Some(Sym::Shared(o));
        }
        if let Some(&o) = self.local_mod.get(name) {
            return Some(Sym::Local(o));
        }
        if self
            .mc
            .m
            .globals
            .iter()
            .any(|g| g.space == AS::Shared && g.name == name)
        {
            return Some(Sym::Shared(self.dyn_off));
        }
        self.mc.funcs.get(name).map(|&f| Sym::Func(f))
    }

    fn emit(&mut self, i: &Instruction, guard: Option<(Reg, bool)>, op: Op) -> usize {
        self.insts.push(Inst { op, guard });
        let name = self.name_of(i);
        self.info.push(InstInfo {
            line: i.pos.line,
            name,
        });
        self.insts.len() - 1
    }

    /// `i.full_name()`, built once per instruction (which often emits several): the
    /// instructions named are those of the syntax tree, which outlives the lowering.
    fn name_of(&mut self, i: &Instruction) -> Name {
        let at = i as *const Instruction as usize;
        match &self.last_name {
            Some((a, n)) if *a == at => n.clone(),
            _ => {
                let n = i.full_name();
                self.last_name = Some((at, n.clone()));
                n
            }
        }
    }

    /// The guard of `i`: a predicate register, or the predicate special register
    /// `%is_explicit_cluster` (ISA 10.11), which ptxas 13.5 accepts as a guard
    /// (`@%is_explicit_cluster bra L`) and which is read into a register first.
    fn guard(&mut self, fc: &FnCtx, i: &Instruction) -> R<Option<(Reg, bool)>> {
        match &i.guard {
            None => Ok(None),
            Some((g, neg)) => match self.lookup(fc, g) {
                Some(Sym::Reg(r)) => Ok(Some((r, *neg))),
                None if g.as_str() == "%is_explicit_cluster" => {
                    let d = self.new_reg();
                    let s = SReg::IsExplicitCluster;
                    self.emit(i, None, Op::Sreg { d, s });
                    Ok(Some((d, *neg)))
                }
                _ => invalid(i.pos, format!("guard '{g}' is not a predicate register")),
            },
        }
    }

    /// A destination register (`_` gives a scratch register).
    fn dreg(&mut self, fc: &FnCtx, i: &Instruction, o: &O) -> R<Reg> {
        match o {
            O::Name { name, comp } => {
                if name == "_" {
                    return Ok(self.new_reg());
                }
                let full = comp.as_ref().map(|c| format!("{name}.{c}"));
                match full
                    .as_deref()
                    .and_then(|n| self.lookup(fc, n))
                    .or_else(|| self.lookup(fc, name))
                {
                    Some(Sym::Reg(r)) => Ok(r),
                    _ => invalid(i.pos, format!("'{name}' is not a register")),
                }
            }
            _ => invalid(
                i.pos,
                format!("expected a destination register in '{}'", i.full_name()),
            ),
        }
    }

    /// A source operand of type `t`. Special registers and symbol addresses become registers or
    /// immediates here.
    fn src(&mut self, fc: &FnCtx, i: &Instruction, g: Option<(Reg, bool)>, o: &O, t: T) -> R<Src> {
        match o {
            O::Int(v) => Ok(Src::Imm(match t {
                T::F(32) => (*v as f32).to_bits() as u64,
                T::F(64) => (*v as f64).to_bits(),
                _ => *v as u64,
            })),
            O::Float { bits, single } => match t {
                T::F(32) => Ok(Src::Imm((f64::from_bits(*bits) as f32).to_bits() as u64)),
                T::F(64) => Ok(Src::Imm(*bits)),
                // A 0f literal used as raw bits of a 32-bit operand.
                T::B(32) | T::U(32) | T::S(32) if *single => {
                    Ok(Src::Imm((f64::from_bits(*bits) as f32).to_bits() as u64))
                }
                T::B(64) if !*single => Ok(Src::Imm(*bits)),
                _ => invalid(i.pos, "float literal used with a non-float type"),
            },
            O::Name { name, comp } => {
                if let Some(s) = sreg(name, comp.as_deref()) {
                    let d = self.new_reg();
                    self.emit(i, g, Op::Sreg { d, s });
                    return Ok(Src::Reg(d));
                }
                let full = comp.as_ref().map(|c| format!("{name}.{c}"));
                let sym = full
                    .as_deref()
                    .and_then(|n| self.lookup(fc, n))
                    .or_else(|| self.lookup(fc, name));
                match sym {
                    Some(Sym::Reg(r)) => Ok(Src::Reg(r)),
                    Some(s) => self.sym_addr(fc, i, g, s, 0),
                    None => invalid(i.pos, format!("undefined symbol '{name}'")),
                }
            }
            O::SymOff { name, offset } => match self.lookup(fc, name) {
                Some(Sym::Reg(r)) => self.reg_plus_imm(i, g, r, *offset, t),
                Some(s) => self.sym_addr(fc, i, g, s, *offset),
                None => invalid(i.pos, format!("undefined symbol '{name}'")),
            },
            O::Not(inner) => {
                let s = self.src(fc, i, g, inner, T::Pred)?;
                let d = self.new_reg();
                self.emit(
                    i,
                    g,
                    Op::Un {
                        op: un(UnOp::NotPred),
                        fl: FloatMods::NONE,
                        d,
                        a: s,
                    },
                );
                Ok(Src::Reg(d))
            }
            O::Index { name, index } => {
                // `mov r, A[i]`: the address of element i (scaled by the element size: ptxas
                // assembles `A[3]` of a `.u32` array as `A+12`).
                let (s, es) = self.indexed(fc, i, name)?;
                match &**index {
                    O::Int(k) => self.sym_addr(fc, i, g, s, k.wrapping_mul(es as i64)),
                    idx => {
                        let base = self.sym_addr(fc, i, g, s, 0)?;
                        let r = self.scaled_index(fc, i, g, idx, es)?;
                        let d = self.new_reg();
                        let f = bin_int(IBin::Add, T::U(64).int().unwrap()).unwrap();
                        self.emit(
                            i,
                            g,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d,
                                a: base,
                                b: Src::Reg(r),
                            },
                        );
                        Ok(Src::Reg(d))
                    }
                }
            }
            // Bracketed tuples (texture, surface, tensor operands) and negated sources (vmad)
            // belong to instructions lowering does not run: the ISA table decides.
            O::Tuple(_) | O::Neg(_) => unsupported(i),
            _ => invalid(i.pos, format!("unexpected operand in '{}'", i.full_name())),
        }
    }

    /// The rules of a 256-bit `ld`/`st` (`vn` elements of type `t`), in ptxas 13.5's words.
    fn wide_ld_st(&self, i: &Instruction, vn: u8, t: T, space: Option<AS>) -> R<()> {
        let limit = || {
            invalid(
                i.pos,
                format!(
                    "'{}': vector type too large, exceeds 128 bit limit",
                    i.full_name()
                ),
            )
        };
        if i.opcode == "ldu" || vn as u32 * t.bits() > 256 {
            return limit();
        }
        if !matches!((vn, t.bits()), (8, 32) | (4, 64)) {
            return invalid(
                i.pos,
                format!(
                    "'{}': .v8 takes only .b32, .s32, .u32 and .f32",
                    i.full_name()
                ),
            );
        }
        self.require_sm(i, 100, "256 bit wide load/store")?;
        if !matches!(space, None | Some(AS::Global)) {
            return invalid(
                i.pos,
                format!(
                    "'{}': global state space expected for feature '256 bit wide load/store'",
                    i.full_name()
                ),
            );
        }
        Ok(())
    }

    /// Refuses a feature the module's `.target` lacks, with ptxas's words ("Feature '...'
    /// requires .target sm_90 or higher"). A module that names no `sm_NN` target is not checked.
    fn require_sm(&self, i: &Instruction, sm: u32, feature: &str) -> R<()> {
        let have = self.mc.m.target.iter().find_map(|t| {
            let n = t.strip_prefix("sm_")?;
            n.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse::<u32>()
                .ok()
        });
        match have {
            Some(have) if have < sm => invalid(
                i.pos,
                format!(
                    "'{}': feature '{feature}' requires .target sm_{sm} or higher",
                    i.full_name()
                ),
            ),
            _ => Ok(()),
        }
    }

    /// A source operand `reg + imm` (`st.u64 [a], r + 1;`): ptxas assembles it for integer and
    /// bit-size operands as the sum in the operand's type, `add.tN tmp, reg, imm` (the same
    /// machine code, checked against ptxas 13.5 for u16, u32 and u64 sources and for cvt and
    /// setp operands). For floating-point and predicate operands ptxas accepts the syntax but
    /// the code it emits has no defined meaning (it drops the store), so those are refused.
    fn reg_plus_imm(
        &mut self,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        r: Reg,
        off: i64,
        t: T,
    ) -> R<Src> {
        let it = match t {
            // An 8-bit operand is used through its low byte: the 16-bit sum has the same one.
            T::B(8) | T::U(8) | T::S(8) => T::U(16).int(),
            T::B(b) | T::U(b) | T::S(b) if b <= 64 => T::U(b).int(),
            _ => None,
        };
        let Some(f) = it.and_then(|it| bin_int(IBin::Add, it)) else {
            return invalid(
                i.pos,
                format!(
                    "'{}': a register plus an immediate is only defined for integer operands",
                    i.full_name()
                ),
            );
        };
        let d = self.new_reg();
        let b = Src::Imm(off as u64);
        self.emit(
            i,
            g,
            Op::Bin {
                op: f,
                fl: FloatMods::NONE,
                d,
                a: Src::Reg(r),
                b,
            },
        );
        Ok(Src::Reg(d))
    }

    /// The symbol and element bytes of an array operand `name[...]`.
    fn indexed(&self, fc: &FnCtx, i: &Instruction, name: &str) -> R<(Sym, u64)> {
        match self.lookup(fc, name) {
            Some(Sym::Reg(_)) => invalid(i.pos, format!("'{name}' is a register, not an array")),
            Some(s) => Ok((s, self.elem.get(name).copied().unwrap_or(1))),
            None => invalid(i.pos, format!("undefined symbol '{name}'")),
        }
    }

    /// `index * elem_bytes` in a fresh 64-bit register, for `A[r]` and `A[r+k]` (ISA 6.4.2: a
    /// register, or a register plus or minus a constant).
    fn scaled_index(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        idx: &O,
        es: u64,
    ) -> R<Reg> {
        let (reg_op, k) = match idx {
            O::SymOff { name, offset } => (
                O::Name {
                    name: name.clone(),
                    comp: None,
                },
                *offset,
            ),
            o => (o.clone(), 0),
        };
        let r = self.src(fc, i, g, &reg_op, T::U(64))?;
        let u64t = T::U(64).int().unwrap();
        let d = self.new_reg();
        let f = bin_int(IBin::Add, u64t).unwrap();
        self.emit(
            i,
            g,
            Op::Bin {
                op: f,
                fl: FloatMods::NONE,
                d,
                a: r,
                b: Src::Imm(k as u64),
            },
        );
        let f = bin_int(IBin::MulLo, u64t).unwrap();
        self.emit(
            i,
            g,
            Op::Bin {
                op: f,
                fl: FloatMods::NONE,
                d,
                a: Src::Reg(d),
                b: Src::Imm(es),
            },
        );
        Ok(d)
    }

    /// The address of a symbol in its own state space (what `mov r, sym` yields).
    fn sym_addr(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        s: Sym,
        off: i64,
    ) -> R<Src> {
        if let Sym::Frame(o) = s {
            // The activation's frame base plus the variable's offset in the frame.
            let base = fc
                .frame
                .as_ref()
                .expect("frame symbols are declared in a frame")
                .base;
            let d = self.new_reg();
            let f = bin_int(IBin::Add, T::U(64).int().unwrap()).unwrap();
            let b = Src::Imm((o as i64).wrapping_add(off) as u64);
            self.emit(
                i,
                g,
                Op::Bin {
                    op: f,
                    fl: FloatMods::NONE,
                    d,
                    a: Src::Reg(base),
                    b,
                },
            );
            return Ok(Src::Reg(d));
        }
        Ok(Src::Imm(match s {
            Sym::Global(a) => a.wrapping_add(off as u64),
            Sym::Shared(o) | Sym::Local(o) | Sym::KParam(o) => (o as i64 + off) as u64,
            Sym::Frame(_) => unreachable!("handled above"),
            Sym::Func(f) => func_addr(f).wrapping_add(off as u64),
            Sym::Reg(_) => return invalid(i.pos, "register used as an address"),
        }))
    }

    /// `[base+off]` in state space `space` (None = generic).
    fn addr(&mut self, fc: &FnCtx, i: &Instruction, o: &O, space: Option<AS>) -> R<(MSpace, Addr)> {
        let (base, off) = match o {
            O::Addr { base, offset } => (base.clone(), *offset),
            // `ld.global.u32 s, a[2]` (ISA 6.4.2): element 2 of array `a`.
            O::Index { name, index } => {
                let (_, es) = self.indexed(fc, i, name)?;
                match &**index {
                    O::Int(k) => (Some(Name::new(name)), k.wrapping_mul(es as i64)),
                    idx => {
                        let r = self.scaled_index(fc, i, None, idx, es)?;
                        let (ms, a) = self.addr(
                            fc,
                            i,
                            &O::Addr {
                                base: Some(Name::new(name)),
                                offset: 0,
                            },
                            space,
                        )?;
                        // The symbol's address plus the scaled index, in a register.
                        let d = self.new_reg();
                        let f = bin_int(IBin::Add, T::U(64).int().unwrap()).unwrap();
                        let base = match a.base {
                            Some(b) => Src::Reg(b),
                            None => Src::Imm(0),
                        };
                        self.emit(
                            i,
                            None,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d,
                                a: base,
                                b: Src::Reg(r),
                            },
                        );
                        return Ok((
                            ms,
                            Addr {
                                base: Some(d),
                                off: a.off,
                            },
                        ));
                    }
                }
            }
            _ => return invalid(i.pos, format!("expected an address in '{}'", i.full_name())),
        };
        let reg_space = |fc: &FnCtx| match space {
            None => MSpace::Generic,
            Some(AS::Global) | Some(AS::Const) => MSpace::Global,
            Some(AS::Shared) => MSpace::Shared,
            Some(AS::Local) => MSpace::Local,
            Some(AS::Param) if fc.is_kernel => MSpace::KParam,
            Some(_) => MSpace::Local,
        };
        let Some(name) = base else {
            return Ok((reg_space(fc), Addr { base: None, off }));
        };
        match self.lookup(fc, &name) {
            Some(Sym::Reg(r)) => Ok((reg_space(fc), Addr { base: Some(r), off })),
            Some(Sym::Global(a)) => Ok((
                MSpace::Global,
                Addr {
                    base: None,
                    off: a as i64 + off,
                },
            )),
            // A shared or local symbol: its offset in that space, or in the space's generic
            // window when the instruction names no space.
            Some(Sym::Shared(o)) => Ok(windowed(
                space.is_none(),
                MSpace::Shared,
                SHARED_WINDOW,
                o,
                off,
            )),
            Some(Sym::Local(o)) => Ok(windowed(
                space.is_none(),
                MSpace::Local,
                LOCAL_WINDOW,
                o,
                off,
            )),
            // Relative to the activation's frame base (a `.local` offset), in the generic
            // window when the instruction names no space.
            Some(Sym::Frame(o)) => {
                let base = fc
                    .frame
                    .as_ref()
                    .expect("frame symbols are declared in a frame")
                    .base;
                let (kind, start) = match space {
                    None => (MSpace::Generic, LOCAL_WINDOW.wrapping_add(o as u64)),
                    Some(_) => (MSpace::Local, o as u64),
                };
                Ok((
                    kind,
                    Addr {
                        base: Some(base),
                        off: (start as i64).wrapping_add(off),
                    },
                ))
            }
            Some(Sym::KParam(o)) => Ok((
                MSpace::KParam,
                Addr {
                    base: None,
                    off: o as i64 + off,
                },
            )),
            _ => invalid(i.pos, format!("undefined symbol '{name}'")),
        }
    }

    /// Lowers one instruction. What the executor cannot run is decoded against the ISA table
    /// ([`crate::isa`]): not admitted there, it is invalid PTX (with the table's reason);
    /// admitted, it is unsupported, or in lower-only mode a placeholder (`nop`) recorded in
    /// `unsupported` after its operands' names are resolved.
    fn inst(&mut self, fc: &mut FnCtx, i: &Instruction) -> R<()> {
        let (n_insts, n_info) = (self.insts.len(), self.info.len());
        let name = self.name_of(i);
        let e = match self.inst_exec(fc, i) {
            // The executor's lowering checks what it runs; the table still checks the
            // instruction's words and operand count (lowering reads only the operands it needs).
            Ok(()) => {
                return match crate::isa::check(i, &name) {
                    Ok(()) => Ok(()),
                    Err(reason) => invalid(i.pos, reason),
                }
            }
            Err(e) if e.kind == LoadErrorKind::Unsupported => e,
            Err(e) => return Err(e),
        };
        let decoded = match crate::isa::decode(i) {
            Ok(d) => d,
            Err(reason) => return invalid(i.pos, reason),
        };
        if !self.lower_only {
            return Err(e);
        }
        self.guard(fc, i)?;
        for o in &i.operands {
            self.check_names(fc, i, o)?;
        }
        // Drop what the failed attempt emitted (special-register reads, address arithmetic).
        self.insts.truncate(n_insts);
        self.info.truncate(n_info);
        self.emit(i, None, Op::Nop);
        self.unsupported.push(Unsupported {
            name: i.full_name().to_string(),
            decoded,
        });
        Ok(())
    }

    /// Every name an operand uses must be declared: a register, variable, function, label or
    /// special register (what ptxas reports as an undefined identifier otherwise).
    fn check_names(&self, fc: &FnCtx, i: &Instruction, o: &O) -> R<()> {
        let known = |name: &str| {
            name == "_"
                || sreg(name, None).is_some()
                || crate::ptx::is_predefined_name(name)
                || self.lookup(fc, name).is_some()
                // A vector register named whole (`mov.v4.u32 %rx, %clusterid`).
                || self.lookup(fc, &format!("{name}.x")).is_some()
                || fc.all_labels.contains(name)
                || self.mc.m.globals.iter().any(|g| g.name == name)
                || self.mc.m.functions[fc.fidx]
                    .prototypes
                    .iter()
                    .any(|(l, _)| l == name)
        };
        match o {
            O::Name { name, comp } => {
                let full = comp.as_ref().map(|c| format!("{name}.{c}"));
                if !(known(name) || full.as_deref().is_some_and(known)) {
                    return invalid(i.pos, format!("undefined symbol '{name}'"));
                }
            }
            O::SymOff { name, .. } if !known(name) => {
                return invalid(i.pos, format!("undefined symbol '{name}'"));
            }
            O::Addr {
                base: Some(name), ..
            } if !known(name) => {
                return invalid(i.pos, format!("undefined symbol '{name}'"));
            }
            O::Index { name, index } => {
                if !known(name) {
                    return invalid(i.pos, format!("undefined symbol '{name}'"));
                }
                self.check_names(fc, i, index)?;
            }
            O::Vector(v) | O::List(v) | O::Tuple(v) => {
                for x in v {
                    self.check_names(fc, i, x)?;
                }
            }
            O::Not(x) | O::Neg(x) => self.check_names(fc, i, x)?,
            O::Pair(a, b) => {
                self.check_names(fc, i, a)?;
                self.check_names(fc, i, b)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn inst_exec(&mut self, fc: &mut FnCtx, i: &Instruction) -> R<()> {
        let g = self.guard(fc, i)?;
        let mut m = Mods::new(i);
        let ops_ = &i.operands;
        let n = ops_.len();
        let need = |k: usize| -> R<()> {
            if n < k {
                invalid(i.pos, format!("'{}' needs {k} operands", i.full_name()))
            } else {
                Ok(())
            }
        };
        let op_s = i.opcode.as_str();
        if matches!(op_s, "addc" | "subc" | "madc")
            || (matches!(op_s, "add" | "sub" | "mad") && i.mods.iter().any(|x| x == "cc"))
        {
            return self.carry(fc, i, g, &mut m);
        }
        let has = |f: fn(&str) -> bool| i.mods.iter().any(|w| f(w));
        if matches!(op_s, "add" | "min" | "max") && has(|w| w == "u16x2" || w == "s16x2") {
            return self.packed_int(fc, i, g, &mut m);
        }
        if matches!(op_s, "min" | "max")
            && has(|w| w == "f32")
            && has(|w| w == "NaN" || w == "xorsign")
        {
            return self.minmax_f32_ext(fc, i, g, &mut m);
        }
        if matches!(op_s, "mov" | "ld" | "ldu" | "st" | "atom") && has(|w| w == "b128") {
            return self.b128(fc, i, g, &mut m);
        }
        if matches!(op_s, "add" | "sub" | "mul" | "fma") && has(|w| w == "f32x2") {
            return self.f32x2(fc, i, g, &mut m);
        }
        if has(half::is_half_word) {
            match op_s {
                "add" | "sub" | "mul" | "fma" | "neg" | "abs" | "min" | "max" | "ex2" | "tanh" => {
                    return self.half(fc, i, g, &mut m)
                }
                "setp" => return self.half_setp(fc, i, g, &mut m),
                _ => {}
            }
        }
        match op_s {
            "set" => return self.set(fc, i, g, &mut m),
            "cvt" if has(|w| w == "pack") => return self.cvt_pack(fc, i, g, &mut m),
            "cvt"
                if has(|w| {
                    matches!(w, "relu" | "satfinite" | "rna" | "rs" | "bf16" | "tf32")
                        || w.ends_with("x2")
                        || w.ends_with("x4")
                }) =>
            {
                return self.cvt_narrow(fc, i, g, &mut m)
            }
            _ => {}
        }
        match op_s {
            "tensormap" if m.take("replace") => return self.tensormap_replace(fc, i, g, &mut m),
            "mov" => {
                let vn = m.vec();
                let t = m.ty_data()?;
                m.done()?;
                need(2)?;
                if vn > 1 {
                    if t == T::Other || t == T::Pred || vn > 4 {
                        return unsupported(i);
                    }
                    return self.mov_vector(fc, i, g, vn, t);
                }
                let bits = t.bits();
                if t == T::Other {
                    return unsupported(i);
                }
                // A whole vector register moved to or from a scalar of its total width
                // (`mov.b64 %rd, v` with `v` a `.v2.u32`; the type check allows only that) is
                // the vector of its elements, first element lowest, as `mov.b64 d, {a, b}`.
                let whole = |o: &O| -> R<O> {
                    match o {
                        O::Name { name, comp: None }
                            if self.lookup(fc, name).is_none()
                                && self.lookup(fc, &format!("{name}.x")).is_some() =>
                        {
                            let n = self.vector_len(fc, name);
                            Ok(O::Vector(self.vector_parts(fc, i, o, n)?))
                        }
                        o => Ok(o.clone()),
                    }
                };
                let (o0, o1) = (whole(&ops_[0])?, whole(&ops_[1])?);
                match (&o0, &o1) {
                    (O::Vector(ds), a) => {
                        let a = self.src(fc, i, g, a, T::B(bits))?;
                        let mut regs = Vec::new();
                        for d in ds {
                            regs.push(if matches!(d, O::Name { name, .. } if name == "_") {
                                None
                            } else {
                                Some(self.dreg(fc, i, d)?)
                            });
                        }
                        let pb = bits / ds.len() as u32;
                        self.emit(
                            i,
                            g,
                            Op::Unpack {
                                ds: regs,
                                a,
                                bits: pb,
                            },
                        );
                    }
                    (d, O::Vector(parts)) => {
                        let d = self.dreg(fc, i, d)?;
                        let pb = bits / parts.len() as u32;
                        let mut ss = Vec::new();
                        for p in parts {
                            ss.push(self.src(fc, i, g, p, T::B(pb))?);
                        }
                        self.emit(
                            i,
                            g,
                            Op::Pack {
                                d,
                                parts: ss,
                                bits: pb,
                            },
                        );
                    }
                    (d, O::Name { name, comp }) if sreg(name, comp.as_deref()).is_some() => {
                        let d = self.dreg(fc, i, d)?;
                        let s = sreg(name, comp.as_deref()).unwrap();
                        self.emit(i, g, Op::Sreg { d, s });
                    }
                    (d, a) => {
                        let d = self.dreg(fc, i, d)?;
                        let a = self.src(fc, i, g, a, t)?;
                        self.emit(
                            i,
                            g,
                            Op::Un {
                                op: un(UnOp::Mov { bits }),
                                fl: FloatMods::NONE,
                                d,
                                a,
                            },
                        );
                    }
                }
            }
            "ld" | "ldu" | "st" => {
                let space = m.space();
                m.ignore(LD_ST_QUALIFIERS);
                let vn = m.vec();
                let t = m.ty_data()?;
                m.done()?;
                if t == T::Other || t == T::Pred {
                    return unsupported(i);
                }
                let size = (t.bits() / 8) as u8;
                // 256 bits at once (ISA 9.7.9.8, 9.7.9.10: `.v8` of 32-bit and `.v4` of
                // 64-bit types, sm_100+, only in `.global` or generic addressing, not ldu).
                // `.v8` of narrower types is no PTX (ptxas 13.5 crashes on `ld.global.v8.u16`).
                let wide = vn as u32 * t.bits() > 128 || vn == 8;
                if wide {
                    self.wide_ld_st(i, vn, t, space)?;
                }
                need(2)?;
                let (is_ld, ms, addr, vo) = self.ld_st_operands(fc, i, space)?;
                let parts: Vec<O>;
                let items: Vec<&O> = if vn > 1 {
                    parts = self.vector_parts(fc, i, vo, vn)?;
                    parts.iter().collect()
                } else if matches!(vo, O::Vector(_)) {
                    return invalid(i.pos, "vector operand length mismatch");
                } else {
                    vec![vo]
                };
                if is_ld {
                    let mut d = [None; 8];
                    for (k, o) in items.iter().enumerate() {
                        // The sink `_` leaves that element unread.
                        d[k] = self.opt_dreg(fc, i, o)?;
                    }
                    let sext = matches!(t, T::S(_));
                    self.emit(
                        i,
                        g,
                        Op::Ld {
                            space: ms,
                            size,
                            sext,
                            n: vn,
                            d,
                            addr,
                        },
                    );
                } else {
                    let mut s = [Src::Imm(0); 8];
                    let mut sink = 0u8;
                    for (k, o) in items.iter().enumerate() {
                        if matches!(o, O::Name { name, .. } if name == "_") {
                            // ptxas allows the sink in 256-bit stores only ("Sink '_' not
                            // allowed as a source operand" elsewhere).
                            if !wide {
                                return invalid(
                                    i.pos,
                                    format!("'{}': the sink '_' is not a source", i.full_name()),
                                );
                            }
                            sink |= 1 << k;
                            continue;
                        }
                        s[k] = self.src(fc, i, g, o, t)?;
                    }
                    self.emit(
                        i,
                        g,
                        Op::St {
                            space: ms,
                            size,
                            n: vn,
                            sink,
                            s,
                            addr,
                        },
                    );
                }
            }
            "cvta" => {
                let to = m.take("to");
                let space = m.space();
                let t = m.ty()?;
                m.done()?;
                need(2)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let f = match (space, to) {
                    (Some(AS::Global) | Some(AS::Const), _) => un(UnOp::Mov { bits: t.bits() }),
                    (Some(AS::Shared), false) => un(UnOp::ToGeneric { local: false }),
                    (Some(AS::Local), false) => un(UnOp::ToGeneric { local: true }),
                    (Some(AS::Shared) | Some(AS::Local), true) => un(UnOp::Mov { bits: 32 }),
                    // `.param{::entry}`: kernel parameter offset <-> generic address, through
                    // the launch's global copy of the parameter block.
                    (Some(AS::Param), _) if t == T::U(64) => {
                        let base = self.param_window(i, g);
                        let (f, x, y) = if to {
                            (IBin::Sub, a, base)
                        } else {
                            (IBin::Add, base, a)
                        };
                        let f = bin_int(f, T::U(64).int().unwrap()).unwrap();
                        self.emit(
                            i,
                            g,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d,
                                a: x,
                                b: y,
                            },
                        );
                        return Ok(());
                    }
                    _ => return unsupported(i),
                };
                self.emit(
                    i,
                    g,
                    Op::Un {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                    },
                );
            }
            "isspacep" => {
                // `.shared` alone is `.shared::cta`: the executing CTA's window only.
                let cluster = i.mods.iter().any(|w| w == "shared::cluster");
                let space = m.space();
                m.done()?;
                need(2)?;
                let ms = match space {
                    Some(AS::Global) | Some(AS::Const) => MSpace::Global,
                    Some(AS::Shared) => MSpace::Shared,
                    Some(AS::Local) => MSpace::Local,
                    // `.param{::entry}`: inside the launch's global copy of the parameter block,
                    // i.e. `a - base < bytes` (unsigned).
                    Some(AS::Param) => {
                        let d = self.dreg(fc, i, &ops_[0])?;
                        let a = self.src(fc, i, g, &ops_[1], T::U(64))?;
                        let base = self.param_window(i, g);
                        let u64t = T::U(64).int().unwrap();
                        let off = self.new_reg();
                        let f = bin_int(IBin::Sub, u64t).unwrap();
                        self.emit(
                            i,
                            g,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d: off,
                                a,
                                b: base,
                            },
                        );
                        let f = cmp_int(Cmp::Lt, u64t).unwrap();
                        let b = Src::Imm(self.param_bytes);
                        let op = Op::Setp {
                            op: f,
                            fl: FloatMods::NONE,
                            a: Src::Reg(off),
                            b,
                            d: Some(d),
                            dn: None,
                            comb: None,
                        };
                        self.emit(i, g, op);
                        return Ok(());
                    }
                    _ => return unsupported(i),
                };
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], T::U(64))?;
                self.emit(
                    i,
                    g,
                    Op::Isspacep {
                        d,
                        a,
                        space: ms,
                        cluster,
                    },
                );
            }
            "cvt" => {
                let rnd = m.rnd();
                let ftz = m.take("ftz");
                let sat = m.take("sat");
                let dt = m.ty()?;
                let st = m.ty()?;
                m.done()?;
                need(2)?;
                let (Some(dst), Some(src)) = (dt.cvt_ty(), st.cvt_ty()) else {
                    return unsupported(i);
                };
                // ".ftz can only be specified when either .dtype or .atype is .f32" (ISA
                // 9.7.9.21; ptxas 13.5: "Modifier '.ftz' does not apply to this type of convert
                // operation").
                if ftz && dst != Ty::F32 && src != Ty::F32 {
                    return invalid(
                        i.pos,
                        format!("'{}': .ftz applies only when a type is .f32", i.full_name()),
                    );
                }
                let ok = match (dst.float(), src.float()) {
                    (false, false) => rnd == Rnd::None,
                    (false, true) => matches!(rnd, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi),
                    (true, false) => ieee_mode(rnd).is_some(),
                    (true, true) => {
                        if dst.bits() < src.bits() {
                            ieee_mode(rnd).is_some()
                        } else if dst.bits() > src.bits() {
                            rnd == Rnd::None
                        } else {
                            matches!(rnd, Rnd::None | Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi)
                        }
                    }
                };
                if !ok {
                    return unsupported(i);
                }
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], st)?;
                self.emit(
                    i,
                    g,
                    Op::Cvt {
                        d,
                        a,
                        dst,
                        src,
                        rnd,
                        sat,
                        ftz,
                    },
                );
            }
            "setp" => {
                let cmp = m.cmp();
                let bop = m.boolop();
                let ftz = m.take("ftz");
                let t = m.ty()?;
                m.done()?;
                need(3)?;
                let Some(cmp) = cmp else {
                    return unsupported(i);
                };
                let f = match t {
                    T::F(16) if !ftz => CmpOp::Float(cmp, FloatTy::F16).resolve(),
                    T::F(16) => None,
                    T::F(b) => CmpOp::Float(cmp, FloatTy::of_bits(b)).resolve(),
                    T::B(_) if !matches!(cmp, Cmp::Eq | Cmp::Ne) => None,
                    _ => t.int().and_then(|it| cmp_int(cmp, it)),
                };
                let Some(f) = f else { return unsupported(i) };
                let (d, dn) = match &ops_[0] {
                    O::Pair(a, b) => (self.opt_dreg(fc, i, a)?, self.opt_dreg(fc, i, b)?),
                    o => (self.opt_dreg(fc, i, o)?, None),
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                let comb = match bop {
                    Some(bo) => {
                        need(4)?;
                        let (neg, o) = match &ops_[3] {
                            O::Not(x) => (true, &**x),
                            o => (false, o),
                        };
                        Some((bo, self.src(fc, i, g, o, T::Pred)?, neg))
                    }
                    None => None,
                };
                let fl = FloatMods {
                    ftz: ftz && t == T::F(32),
                    sat: false,
                };
                self.emit(
                    i,
                    g,
                    Op::Setp {
                        op: f,
                        fl,
                        a,
                        b,
                        d,
                        dn,
                        comb,
                    },
                );
            }
            "slct" => self.slct(fc, i, g, &mut m)?,
            "selp" => {
                let t = m.ty()?;
                m.done()?;
                need(4)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                let c = self.src(fc, i, g, &ops_[3], T::Pred)?;
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: ter(TerOp::Selp { bits: t.bits() }),
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor"
            | "shl" | "shr" | "copysign" => self.binary(fc, i, g, &mut m)?,
            "mad" | "fma" => self.mad(fc, i, g, &mut m)?,
            "neg" | "abs" | "not" | "cnot" | "popc" | "clz" | "brev" | "sqrt" | "rcp" | "rsqrt"
            | "ex2" | "lg2" | "sin" | "cos" | "tanh" | "testp" => self.unary(fc, i, g, &mut m)?,
            "bfe" | "prmt" | "shf" => {
                let f = match i.opcode.as_str() {
                    "bfe" => {
                        let t = m.ty()?;
                        t.int().and_then(|it| TerOp::Bfe(it).resolve())
                    }
                    "prmt" => {
                        let t = m.ty()?;
                        let mode = [
                            ("f4e", PrmtMode::F4e),
                            ("b4e", PrmtMode::B4e),
                            ("rc8", PrmtMode::Rc8),
                            ("ecl", PrmtMode::Ecl),
                            // The ISA's PDF renders `.ecl` as `.ec1`: accept both spellings.
                            ("ec1", PrmtMode::Ecl),
                            ("ecr", PrmtMode::Ecr),
                            ("rc16", PrmtMode::Rc16),
                        ]
                        .into_iter()
                        .find(|(w, _)| m.take(w))
                        .map(|(_, md)| md);
                        (t == T::B(32)).then(|| ter(TerOp::Prmt(mode)))
                    }
                    _ => {
                        let left = m.take("l");
                        let right = m.take("r");
                        let clamp = m.take("clamp");
                        let wrap = m.take("wrap");
                        let t = m.ty()?;
                        (left != right && clamp != wrap && t == T::B(32))
                            .then(|| ter(TerOp::Shf { left, clamp }))
                    }
                };
                m.done()?;
                let Some(f) = f else { return unsupported(i) };
                need(4)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], T::B(64))?;
                let b = self.src(fc, i, g, &ops_[2], T::B(64))?;
                let c = self.src(fc, i, g, &ops_[3], T::B(64))?;
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
            "mul24" | "mad24" | "sad" | "bfind" | "fns" | "szext" | "bmsk" | "dp4a" | "dp2a" => {
                self.int_misc(fc, i, g, &mut m)?
            }
            "bfi" | "lop3" => {
                // `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` (ISA 9.7.8.6): p = (d != 0) BoolOp q.
                let bop = if op_s == "lop3" {
                    if m.take("or") {
                        Some(BoolOp::Or)
                    } else if m.take("and") {
                        Some(BoolOp::And)
                    } else {
                        None
                    }
                } else {
                    None
                };
                let t = m.ty()?;
                m.done()?;
                need(if bop.is_some() { 6 } else { 5 })?;
                let f = match (i.opcode.as_str(), t) {
                    ("bfi", T::B(b)) => QuadOp::Bfi { bits: b }.resolve(),
                    ("lop3", T::B(32)) => QuadOp::Lop3 { bits: 32 }.resolve(),
                    _ => None,
                };
                let Some(f) = f else { return unsupported(i) };
                let (d, p) = match (&ops_[0], bop) {
                    (O::Pair(d, p), Some(_)) => {
                        (self.opt_dreg(fc, i, d)?, Some(self.dreg(fc, i, p)?))
                    }
                    (O::Pair(..), None) => {
                        return invalid(
                            i.pos,
                            "'lop3' with a predicate destination needs .or or .and",
                        )
                    }
                    (_, Some(_)) => return invalid(i.pos, "'lop3' with .or/.and needs 'd|p'"),
                    (o, None) => (Some(self.dreg(fc, i, o)?), None),
                };
                // The sink `_` as d: the result still feeds p, through a hidden register.
                let d = match d {
                    Some(d) => d,
                    None => self.hidden_reg(),
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                let c = self.src(fc, i, g, &ops_[3], T::U(32))?;
                let e = self.src(fc, i, g, &ops_[4], T::U(32))?;
                self.emit(
                    i,
                    g,
                    Op::Quad {
                        op: f,
                        d,
                        a,
                        b,
                        c,
                        e,
                    },
                );
                if let (Some(p), Some(bo)) = (p, bop) {
                    let q = self.src(fc, i, g, &ops_[5], T::Pred)?;
                    let ne = cmp_int(
                        Cmp::Ne,
                        IntTy {
                            bits: 32,
                            signed: false,
                        },
                    )
                    .unwrap();
                    self.emit(
                        i,
                        g,
                        Op::Setp {
                            op: ne,
                            fl: FloatMods::NONE,
                            a: Src::Reg(d),
                            b: Src::Imm(0),
                            d: Some(p),
                            dn: None,
                            comb: Some((bo, q, false)),
                        },
                    );
                }
            }
            "bra" | "brx" => {
                if i.opcode == "brx" {
                    return self.brx(fc, i, g, &mut m);
                }
                m.take("uni");
                m.done()?;
                need(1)?;
                let O::Name { name, .. } = &ops_[0] else {
                    return invalid(i.pos, "branch target must be a label");
                };
                let pc = self.emit(i, g, Op::Bra { target: 0, rpc: 0 });
                fc.fixups.push((pc, name.clone(), i.pos));
            }
            "ret" => {
                m.take("uni");
                m.done()?;
                let pc = self.emit(i, g, Op::Bra { target: 0, rpc: 0 });
                fc.fixups.push((pc, String::new(), i.pos));
            }
            "exit" => {
                m.done()?;
                self.emit(i, g, Op::Exit);
            }
            "trap" => {
                m.done()?;
                self.emit(i, g, Op::Trap);
            }
            "call" => self.call(fc, i, g, &mut m)?,
            "stacksave" | "stackrestore" | "alloca" => {
                m.take("local");
                let has_ty = i.mods.iter().any(|w| matches!(w.as_str(), "u32" | "u64"));
                let t = if has_ty { m.ty()? } else { T::U(64) };
                m.done()?;
                if !matches!(t, T::U(32 | 64)) {
                    return unsupported(i);
                }
                if self.sp_reg.is_none() {
                    self.sp_reg = Some(self.hidden_reg());
                }
                need(if op_s == "alloca" { 2 } else { 1 })?;
                match op_s {
                    "stacksave" => {
                        let d = self.dreg(fc, i, &ops_[0])?;
                        self.emit(i, g, Op::StackSave { d });
                    }
                    "stackrestore" => {
                        let a = self.src(fc, i, g, &ops_[0], t)?;
                        self.emit(i, g, Op::StackRestore { a });
                    }
                    _ => {
                        self.uses_alloca = true;
                        let d = self.dreg(fc, i, &ops_[0])?;
                        let size = self.src(fc, i, g, &ops_[1], t)?;
                        // The ISA's default and minimum alignment is 8; immAlign is a power of 2
                        // of at most 2^23.
                        let align = match ops_.get(2) {
                            None => 8,
                            Some(O::Int(a))
                                if *a > 0 && (*a as u64).is_power_of_two() && *a <= 1 << 23 =>
                            {
                                (*a as u32).max(8)
                            }
                            Some(_) => {
                                return invalid(
                                    i.pos,
                                    "alloca alignment must be a power of 2 up to 2^23",
                                )
                            }
                        };
                        self.emit(i, g, Op::Alloca { d, size, align });
                    }
                }
            }
            "barrier" if i.mods.first().is_some_and(|w| w == "cluster") => {
                self.cluster_barrier(fc, i, g, &mut m)?
            }
            "bar" | "barrier" => self.bar(fc, i, g, &mut m)?,
            "applypriority" | "discard" | "createpolicy" | "griddepcontrol" | "setmaxnreg"
            | "mapa" | "getctarank" => self.cluster_misc(fc, i, g, &mut m)?,
            "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vset" => {
                self.video(fc, i, g, &mut m)?
            }
            "vmad" => self.vmad(fc, i, g, &mut m)?,
            "vadd2" | "vsub2" | "vavrg2" | "vabsdiff2" | "vmin2" | "vmax2" | "vset2" | "vadd4"
            | "vsub4" | "vavrg4" | "vabsdiff4" | "vmin4" | "vmax4" | "vset4" => {
                self.video_simd(fc, i, g, &mut m)?
            }
            "mbarrier" => self.mbarrier(fc, i, g, &mut m)?,
            "cp" if i.mods.first().is_some_and(|w| w == "async") => {
                self.cp_async(fc, i, g, &mut m)?
            }
            "membar" | "fence" => {
                // Host atomics are sequentially consistent and a CTA runs on one host thread, so
                // fences order nothing further. Proxy fences (`fence.proxy.*`, `membar.proxy`,
                // `fence.proxy.tensormap::generic.release/acquire [a], size`) order accesses
                // of different memory proxies (generic, async, texture, tensormap), which are
                // all the same host memory accessed synchronously here, and
                // `fence.mbarrier_init` orders mbarrier initialisation, done at once here:
                // nothing to order either; nor do `.sync_restrict` / `.op_restrict` forms. Every
                // form is a no-op, so the words are taken as they are and the ISA table checks
                // them.
                let all: Vec<&str> = i.mods.iter().map(|s| s.as_str()).collect();
                m.ignore(&all);
                for o in ops_ {
                    if let O::Addr { .. } = o {
                        self.addr(fc, i, o, None)?;
                    }
                }
                self.emit(i, g, Op::Nop);
            }
            "brkpt" => {
                m.done()?;
                self.emit(i, g, Op::Brkpt);
            }
            "nanosleep" | "prefetch" | "prefetchu" | "pmevent" => {
                // Prefetches (to a cache, or of a tensor map in `.const`/`.param` or generic
                // space) have no effect on what a program computes: no cache to fill here.
                m.ignore(&[
                    "global",
                    "local",
                    "L1",
                    "L2",
                    "uni",
                    "L2::evict_last",
                    "L2::evict_normal",
                    "mask",
                    "const",
                    "param",
                    "tensormap",
                ]);
                // nanosleep.u32 t: a scheduling hint, nothing to wait for here.
                if op_s == "nanosleep" {
                    m.take("u32");
                }
                m.done()?;
                self.emit(i, g, Op::Nop);
            }
            "atom" | "red" => self.atom(fc, i, g, &mut m)?,
            "shfl" => {
                let sync = m.take("sync");
                let mode = if m.take("up") {
                    ShflMode::Up
                } else if m.take("down") {
                    ShflMode::Down
                } else if m.take("bfly") {
                    ShflMode::Bfly
                } else if m.take("idx") {
                    ShflMode::Idx
                } else {
                    return unsupported(i);
                };
                let t = m.ty()?;
                m.done()?;
                if t != T::B(32) {
                    return unsupported(i);
                }
                need(4)?;
                let (d, p) = match &ops_[0] {
                    O::Pair(a, b) => (self.dreg(fc, i, a)?, self.opt_dreg(fc, i, b)?),
                    o => (self.dreg(fc, i, o)?, None),
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], T::U(32))?;
                let c = self.src(fc, i, g, &ops_[3], T::U(32))?;
                let mask = if sync {
                    need(5)?;
                    Some(self.src(fc, i, g, &ops_[4], T::B(32))?)
                } else {
                    None
                };
                self.emit(
                    i,
                    g,
                    Op::Shfl {
                        mode,
                        d,
                        p,
                        a,
                        b,
                        c,
                        mask,
                    },
                );
            }
            "vote" => {
                let sync = m.take("sync");
                let mode = if m.take("all") {
                    VoteMode::All
                } else if m.take("any") {
                    VoteMode::Any
                } else if m.take("uni") {
                    VoteMode::Uni
                } else if m.take("ballot") {
                    VoteMode::Ballot
                } else {
                    return unsupported(i);
                };
                let t = m.ty()?;
                m.done()?;
                if (mode == VoteMode::Ballot) != (t == T::B(32)) {
                    return unsupported(i);
                }
                need(2)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let (neg, o) = match &ops_[1] {
                    O::Not(x) => (true, &**x),
                    o => (false, o),
                };
                let a = self.src(fc, i, g, o, T::Pred)?;
                let mask = if sync {
                    need(3)?;
                    Some(self.src(fc, i, g, &ops_[2], T::B(32))?)
                } else {
                    None
                };
                self.emit(
                    i,
                    g,
                    Op::Vote {
                        mode,
                        d,
                        a,
                        neg,
                        mask,
                    },
                );
            }
            "match" => {
                let any = m.take("any");
                let all = m.take("all");
                let sync = m.take("sync");
                let t = m.ty()?;
                m.done()?;
                let bits = match t {
                    T::B(b @ (32 | 64)) => b,
                    _ => return unsupported(i),
                };
                if any == all || !sync {
                    return unsupported(i);
                }
                need(3)?;
                let (d, p) = match &ops_[0] {
                    O::Pair(a, b) if all => (self.opt_dreg(fc, i, a)?, self.opt_dreg(fc, i, b)?),
                    o => (self.opt_dreg(fc, i, o)?, None),
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let mask = self.src(fc, i, g, &ops_[2], T::B(32))?;
                self.emit(
                    i,
                    g,
                    Op::Match {
                        all,
                        bits,
                        d,
                        p,
                        a,
                        mask,
                    },
                );
            }
            "redux" => {
                let sync = m.take("sync");
                let abs = m.take("abs");
                let nan = m.take("NaN");
                let word = ["add", "min", "max", "and", "or", "xor"]
                    .into_iter()
                    .find(|w| m.take(w));
                let t = m.ty()?;
                m.done()?;
                let op = match (word, t) {
                    (_, _) if !sync => None,
                    (Some("add"), T::U(32) | T::S(32)) if !abs && !nan => Some(ReduxOp::Add),
                    (Some("min"), T::U(32) | T::S(32)) if !abs && !nan => Some(ReduxOp::Min {
                        signed: t == T::S(32),
                    }),
                    (Some("max"), T::U(32) | T::S(32)) if !abs && !nan => Some(ReduxOp::Max {
                        signed: t == T::S(32),
                    }),
                    (Some("and"), T::B(32)) if !abs && !nan => Some(ReduxOp::And),
                    (Some("or"), T::B(32)) if !abs && !nan => Some(ReduxOp::Or),
                    (Some("xor"), T::B(32)) if !abs && !nan => Some(ReduxOp::Xor),
                    (Some("min"), T::F(32)) => Some(ReduxOp::FMin { abs, nan }),
                    (Some("max"), T::F(32)) => Some(ReduxOp::FMax { abs, nan }),
                    _ => None,
                };
                let Some(op) = op else { return unsupported(i) };
                need(3)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let mask = self.src(fc, i, g, &ops_[2], T::B(32))?;
                self.emit(i, g, Op::Redux { op, d, a, mask });
            }
            "elect" => {
                let sync = m.take("sync");
                m.done()?;
                if !sync {
                    return unsupported(i);
                }
                need(2)?;
                let (d, p) = match &ops_[0] {
                    O::Pair(a, b) => (self.opt_dreg(fc, i, a)?, self.opt_dreg(fc, i, b)?),
                    o => (self.opt_dreg(fc, i, o)?, None),
                };
                let mask = self.src(fc, i, g, &ops_[1], T::B(32))?;
                self.emit(i, g, Op::Elect { d, p, mask });
            }
            "activemask" => {
                m.ty()?;
                m.done()?;
                need(1)?;
                let d = self.dreg(fc, i, &ops_[0])?;
                self.emit(i, g, Op::Activemask { d });
            }
            _ => return unsupported(i),
        }
        Ok(())
    }

    /// The `vn` elements of a vector operand: a brace list, or a vector register or vector
    /// special register named whole (`.reg .v4 .b32 Q; ld.v4.b32 Q, [p]`,
    /// `mov.v4.u32 %rx, %clusterid`), which stands for its components `.x .y .z .w`.
    fn vector_parts(&self, fc: &FnCtx, i: &Instruction, o: &O, vn: u8) -> R<Vec<O>> {
        match o {
            O::Vector(v) if v.len() == vn as usize => Ok(v.clone()),
            O::Vector(_) => invalid(i.pos, "vector operand length mismatch"),
            // Vector special registers are all `.v4`; a vector register has exactly the
            // components it was declared with (ptxas: "Argument vector size mismatch").
            O::Name { name, comp: None }
                if (sreg(name, Some("x")).is_some() && vn == 4)
                    || (self.lookup(fc, &format!("{name}.x")).is_some()
                        && self.vector_len(fc, name) == vn) =>
            {
                Ok(["x", "y", "z", "w"]
                    .iter()
                    .take(vn as usize)
                    .map(|c| O::Name {
                        name: name.clone(),
                        comp: Some(Name::new(c)),
                    })
                    .collect())
            }
            _ => invalid(i.pos, "expected a vector operand"),
        }
    }

    /// The operands of ld/ldu/st (two, checked by the caller): whether it loads, the address
    /// in its space, and the value operand (first of ld/ldu, second of st).
    fn ld_st_operands<'o>(
        &mut self,
        fc: &FnCtx,
        i: &'o Instruction,
        space: Option<AS>,
    ) -> R<(bool, MSpace, Addr, &'o O)> {
        let ops_ = &i.operands;
        let is_ld = i.opcode != "st";
        let (ao, vo) = if is_ld {
            (&ops_[1], &ops_[0])
        } else {
            (&ops_[0], &ops_[1])
        };
        let (ms, addr) = self.addr(fc, i, ao, space)?;
        if ms == MSpace::KParam && !is_ld {
            return invalid(i.pos, "store to a kernel parameter");
        }
        Ok((is_ld, ms, addr, vo))
    }

    /// `tensormap.replace.tile.FIELD{.ss}.b1024.TYPE [addr], {ord,} new_val` (ISA 9.7.9.26): a
    /// store of the new value into the field of the tensor-map object at `addr`, a weak memory
    /// operation as the ISA says. The object's layout is [`crate::tensormap`]'s.
    fn tensormap_replace(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        const FIELDS: [&str; 11] = [
            "global_address",
            "rank",
            "box_dim",
            "global_dim",
            "global_stride",
            "element_stride",
            "elemtype",
            "interleave_layout",
            "swizzle_mode",
            "swizzle_atomicity",
            "fill_mode",
        ];
        if !m.take("tile") {
            return unsupported(i);
        }
        let Some(field) = FIELDS.iter().copied().find(|f| m.take(f)) else {
            return unsupported(i);
        };
        let space = m.space();
        if !matches!(space, None | Some(AS::Global) | Some(AS::Shared)) {
            return invalid(i.pos, "tensormap.replace addresses .global or .shared::cta");
        }
        if !m.take("b1024") {
            return invalid(i.pos, "tensormap.replace needs the object type .b1024");
        }
        let t = m.ty()?;
        m.done()?;
        let wide = matches!(field, "global_address" | "global_stride");
        if t != T::B(if wide { 64 } else { 32 }) {
            let want = if wide { "b64" } else { "b32" };
            return invalid(i.pos, format!("'.{field}' takes a .{want} value"));
        }
        let ops_ = &i.operands;
        let has_ord = matches!(
            field,
            "box_dim" | "global_dim" | "global_stride" | "element_stride"
        );
        if ops_.len() != if has_ord { 3 } else { 2 } {
            return invalid(
                i.pos,
                format!("wrong number of operands for '{}'", i.full_name()),
            );
        }
        let ord = if has_ord {
            match &ops_[1] {
                O::Int(v) if (0..=u32::MAX as i64).contains(v) => *v as u32,
                _ => return invalid(i.pos, "the ordinal must be a non-negative immediate"),
            }
        } else {
            0
        };
        let Some((off, width)) = crate::tensormap::field(field, ord) else {
            return invalid(
                i.pos,
                format!(
                    "ordinal {ord} of '.{field}' is past the {} dimensions of a tensor map",
                    crate::tensormap::MAX_RANK
                ),
            );
        };
        let vo = &ops_[ops_.len() - 1];
        let s = match crate::tensormap::field3_max(field) {
            Some(max) => match vo {
                O::Int(v) if (0..=max as i64).contains(v) => Src::Imm(*v as u64),
                O::Int(v) => {
                    return invalid(
                        i.pos,
                        format!("{v} is not a value of '.{field}' (0 to {max})"),
                    )
                }
                _ => {
                    return invalid(
                        i.pos,
                        format!("the new value of '.{field}' must be an immediate"),
                    )
                }
            },
            None => self.src(fc, i, g, vo, t)?,
        };
        let (ms, mut addr) = self.addr(fc, i, &ops_[0], space)?;
        addr.off += off as i64;
        let mut srcs = [Src::Imm(0); 8];
        srcs[0] = s;
        self.emit(
            i,
            g,
            Op::St {
                space: ms,
                size: width,
                n: 1,
                sink: 0,
                s: srcs,
                addr,
            },
        );
        Ok(())
    }

    /// The generic address of the launch's global copy of the kernel parameter block, read into
    /// a fresh register (and the program marked as needing that copy).
    fn param_window(&mut self, i: &Instruction, g: Option<(Reg, bool)>) -> Src {
        self.param_window = true;
        let d = self.new_reg();
        self.emit(
            i,
            g,
            Op::Sreg {
                d,
                s: SReg::ParamWindow,
            },
        );
        Src::Reg(d)
    }

    /// The number of components of the vector register `name` (declared `.v2` or `.v4`).
    fn vector_len(&self, fc: &FnCtx, name: &str) -> u8 {
        ["x", "y", "z", "w"]
            .iter()
            .take_while(|c| self.lookup(fc, &format!("{name}.{c}")).is_some())
            .count() as u8
    }

    /// `mov.v2/.v4`: element-wise moves between vector operands; the unused fourth element of
    /// a vector special register (`%tid.w` and the like, ISA chapter 10) reads as zero.
    fn mov_vector(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        vn: u8,
        t: T,
    ) -> R<()> {
        let ops_ = &i.operands;
        if ops_.len() < 2 {
            return invalid(i.pos, format!("'{}' needs 2 operands", i.full_name()));
        }
        let ds = self.vector_parts(fc, i, &ops_[0], vn)?;
        let ss = self.vector_parts(fc, i, &ops_[1], vn)?;
        let mut dregs = Vec::with_capacity(ds.len());
        for d in &ds {
            dregs.push(self.opt_dreg(fc, i, d)?);
        }
        // The move reads every source before it writes any destination: when a destination is
        // also a source (`mov.v4.u16 {a,b,c,d}, {d,a,b,c}`), the register sources are first
        // copied to fresh registers.
        let mut srcs = Vec::with_capacity(ss.len());
        for a in &ss {
            srcs.push(match a {
                // Special registers (and the zero `.w` of a vector one) are handled below.
                O::Name { name, comp }
                    if sreg(name, comp.as_deref()).is_some() || sreg(name, Some("x")).is_some() =>
                {
                    None
                }
                a => Some(self.src(fc, i, g, a, t)?),
            });
        }
        let overlap = srcs
            .iter()
            .any(|s| matches!(s, Some(Src::Reg(r)) if dregs.contains(&Some(*r))));
        if overlap {
            for s in srcs.iter_mut() {
                if let Some(Src::Reg(r)) = *s {
                    let d = self.new_reg();
                    let f = un(UnOp::Mov { bits: t.bits() });
                    self.emit(
                        i,
                        g,
                        Op::Un {
                            op: f,
                            fl: FloatMods::NONE,
                            d,
                            a: Src::Reg(r),
                        },
                    );
                    *s = Some(Src::Reg(d));
                }
            }
        }
        for ((d, a), s) in dregs.into_iter().zip(&ss).zip(srcs) {
            let Some(d) = d else {
                continue;
            };
            if let Some(a) = s {
                let f = un(UnOp::Mov { bits: t.bits() });
                self.emit(
                    i,
                    g,
                    Op::Un {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                    },
                );
                continue;
            }
            match a {
                O::Name { name, comp } if sreg(name, comp.as_deref()).is_some() => {
                    let s = sreg(name, comp.as_deref()).unwrap();
                    self.emit(i, g, Op::Sreg { d, s });
                }
                O::Name {
                    name,
                    comp: Some(w),
                } if w == "w" && sreg(name, Some("x")).is_some() => {
                    let f = un(UnOp::Mov { bits: 32 });
                    let a = Src::Imm(0);
                    self.emit(
                        i,
                        g,
                        Op::Un {
                            op: f,
                            fl: FloatMods::NONE,
                            d,
                            a,
                        },
                    );
                }
                _ => return invalid(i.pos, format!("unexpected operand in '{}'", i.full_name())),
            }
        }
        Ok(())
    }

    fn opt_dreg(&mut self, fc: &FnCtx, i: &Instruction, o: &O) -> R<Option<Reg>> {
        if matches!(o, O::Name { name, .. } if name == "_") {
            return Ok(None);
        }
        Ok(Some(self.dreg(fc, i, o)?))
    }

    fn binary(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = i.opcode.as_str();
        let rnd = m.rnd();
        let ftz = m.take("ftz");
        let sat = m.take("sat");
        let approx = m.take("approx");
        let full = m.take("full");
        let lo = m.take("lo");
        let hi = m.take("hi");
        let wide = m.take("wide");
        let t = m.ty()?;
        m.done()?;
        let ops_ = &i.operands;
        if ops_.len() < 3 {
            return invalid(i.pos, format!("'{}' needs 3 operands", i.full_name()));
        }
        let mut fl = FloatMods::NONE;
        let f: Option<Bin> = match t {
            T::F(b) => {
                let fop = match op {
                    "add" => FBin::Add,
                    "sub" => FBin::Sub,
                    "mul" => FBin::Mul,
                    "div" => FBin::Div,
                    "min" => FBin::Min,
                    "max" => FBin::Max,
                    "copysign" => FBin::Copysign,
                    _ => return unsupported(i),
                };
                let rnd_ok = match fop {
                    FBin::Add | FBin::Sub | FBin::Mul => {
                        (rnd == Rnd::None || ieee_mode(rnd).is_some()) && !approx && !full
                    }
                    // div.approx/div.full are within 2 ulp of the exact quotient; we return it.
                    FBin::Div => {
                        (ieee_mode(rnd).is_some() && !approx && !full)
                            || (b == 32 && rnd == Rnd::None && (approx || full))
                    }
                    _ => rnd == Rnd::None && !approx && !full,
                };
                if !rnd_ok || lo || hi || wide || (sat && b == 64) || (ftz && b == 64) {
                    return unsupported(i);
                }
                if b == 16 {
                    // f16: add/sub/mul round to nearest through the exact arithmetic (.ftz and
                    // .sat on f16 are not run yet).
                    if ftz || sat || rnd == Rnd::Rz || rnd == Rnd::Rm || rnd == Rnd::Rp {
                        return unsupported(i);
                    }
                    let float = BinOp::Float {
                        op: fop,
                        ty: FloatTy::F16,
                        rnd: Mode::Rn,
                    };
                    let Some(f) = float.resolve().filter(|_| fop != FBin::Div) else {
                        return unsupported(i);
                    };
                    let d = self.dreg(fc, i, &ops_[0])?;
                    let a = self.src(fc, i, g, &ops_[1], t)?;
                    let b = self.src(fc, i, g, &ops_[2], t)?;
                    self.emit(
                        i,
                        g,
                        Op::Bin {
                            op: f,
                            fl: FloatMods::NONE,
                            d,
                            a,
                            b,
                        },
                    );
                    return Ok(());
                }
                fl = FloatMods { ftz, sat };
                // Directed rounding is exact arithmetic rounded once; round-to-nearest is the
                // host's IEEE arithmetic, already exact.
                BinOp::Float {
                    op: fop,
                    ty: FloatTy::of_bits(b),
                    rnd: directed(rnd).unwrap_or(Mode::Rn),
                }
                .resolve()
            }
            T::Pred if matches!(op, "and" | "or" | "xor") => {
                let it = IntTy {
                    bits: 32,
                    signed: false,
                };
                bin_int(
                    match op {
                        "and" => IBin::And,
                        "or" => IBin::Or,
                        _ => IBin::Xor,
                    },
                    it,
                )
            }
            _ => {
                let Some(it) = t.int() else {
                    return unsupported(i);
                };
                if rnd != Rnd::None || ftz || approx || full || it.bits == 8 {
                    return unsupported(i);
                }
                let is_b = matches!(t, T::B(_));
                let bop = match (op, lo, hi, wide, sat) {
                    ("add", false, false, false, false) => IBin::Add,
                    ("sub", false, false, false, false) => IBin::Sub,
                    ("add", false, false, false, true) if t == T::S(32) => IBin::AddSat,
                    ("sub", false, false, false, true) if t == T::S(32) => IBin::SubSat,
                    ("mul", true, false, false, false) => IBin::MulLo,
                    ("mul", false, true, false, false) => IBin::MulHi,
                    ("mul", false, false, true, false) => {
                        let d = self.dreg(fc, i, &ops_[0])?;
                        let a = self.src(fc, i, g, &ops_[1], t)?;
                        let b = self.src(fc, i, g, &ops_[2], t)?;
                        let Some(f) = BinOp::MulWide(it).resolve() else {
                            return unsupported(i);
                        };
                        self.emit(
                            i,
                            g,
                            Op::Bin {
                                op: f,
                                fl: FloatMods::NONE,
                                d,
                                a,
                                b,
                            },
                        );
                        return Ok(());
                    }
                    ("div", false, false, false, false) if !is_b => IBin::Div,
                    ("rem", false, false, false, false) if !is_b => IBin::Rem,
                    ("min", false, false, false, false) if !is_b => IBin::Min,
                    ("max", false, false, false, false) if !is_b => IBin::Max,
                    ("and", false, false, false, false) if is_b => IBin::And,
                    ("or", false, false, false, false) if is_b => IBin::Or,
                    ("xor", false, false, false, false) if is_b => IBin::Xor,
                    ("shl", false, false, false, false) if is_b => IBin::Shl,
                    ("shr", false, false, false, false) => IBin::Shr,
                    _ => return unsupported(i),
                };
                bin_int(bop, it)
            }
        };
        let Some(f) = f else { return unsupported(i) };
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], t)?;
        let bt = if matches!(op, "shl" | "shr") {
            T::U(32)
        } else {
            t
        };
        let b = self.src(fc, i, g, &ops_[2], bt)?;
        self.emit(i, g, Op::Bin { op: f, fl, d, a, b });
        Ok(())
    }

    /// A call of a runtime-provided extern function: arguments are `.param` variables of the
    /// caller (read from local memory) or plain operands.
    #[allow(clippy::too_many_arguments)]
    fn sys_call(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        callee: usize,
        call: SysCall,
        args: &[O],
        rets: &[O],
    ) -> R<()> {
        let f = &self.mc.m.functions[callee];
        let want = match call {
            SysCall::Vprintf => (2, 1),
            SysCall::AssertFail => (5, 0),
            SysCall::Malloc => (1, 1),
            SysCall::Free => (1, 0),
            SysCall::GraphSetConditional => (2, 0),
        };
        if args.len() != want.0 || rets.len() > want.1 || f.params.len() != want.0 {
            return invalid(
                i.pos,
                format!("call of '{}' with the wrong number of arguments", f.name),
            );
        }
        let mut sargs = Vec::new();
        for (a, d) in args.iter().zip(&f.params) {
            let (size, _) = var_layout(d)?;
            let arg = match a {
                O::Name { name, .. } => match self.lookup(fc, name) {
                    Some(Sym::Local(off)) => SysArg::Local(off, size.min(8) as u32),
                    _ => match self.src(fc, i, g, a, T::B(64))? {
                        Src::Reg(r) => SysArg::Reg(r),
                        Src::Imm(v) => SysArg::Imm(v),
                    },
                },
                _ => match self.src(fc, i, g, a, T::B(64))? {
                    Src::Reg(r) => SysArg::Reg(r),
                    Src::Imm(v) => SysArg::Imm(v),
                },
            };
            sargs.push(arg);
        }
        let ret = match rets.first() {
            None => None,
            Some(r @ O::Name { name, .. }) => match self.lookup(fc, name) {
                Some(Sym::Local(off)) => {
                    let size = f.ret_params.first().map_or(Ok((8, 8)), var_layout)?.0;
                    Some(SysRet::Local(off, size.min(8) as u32))
                }
                _ => Some(SysRet::Reg(self.dreg(fc, i, r)?)),
            },
            Some(_) => return invalid(i.pos, "return value must be a .param variable"),
        };
        self.emit(
            i,
            g,
            Op::Sys {
                call,
                args: sargs,
                ret,
            },
        );
        Ok(())
    }

    /// mul24, mad24, sad, bfind, fns, szext, bmsk, dp4a, dp2a.
    fn int_misc(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = i.opcode.as_str();
        let hi = m.take("hi");
        let lo = m.take("lo");
        let shiftamt = m.take("shiftamt");
        let clamp = m.take("clamp");
        let wrap = m.take("wrap");
        let sat = m.take("sat");
        let t = m.ty()?;
        let t2 = if matches!(op, "dp4a" | "dp2a") {
            Some(m.ty()?)
        } else {
            None
        };
        m.done()?;
        let s32 = |t: T| match t {
            T::U(32) => Some(false),
            T::S(32) => Some(true),
            _ => None,
        };
        let ops_ = &i.operands;
        let nops = match op {
            "mad24" | "sad" | "fns" | "dp4a" | "dp2a" => 4,
            "bfind" => 2,
            _ => 3,
        };
        if ops_.len() < nops {
            return invalid(i.pos, format!("'{}' needs {nops} operands", i.full_name()));
        }
        let no_mods = !hi && !lo && !shiftamt && !clamp && !wrap && !sat;
        let d = self.dreg(fc, i, &ops_[0])?;
        match op {
            "mul24" | "mad24" => {
                let (Some(sg), true) = (s32(t), hi != lo && !shiftamt && !clamp && !wrap) else {
                    return unsupported(i);
                };
                // `.sat` exists only as `mad24.hi.sat.s32`.
                if sat && !(op == "mad24" && hi && sg) {
                    return unsupported(i);
                }
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                if op == "mul24" {
                    let f = bin(BinOp::Mul24 { hi, signed: sg });
                    self.emit(
                        i,
                        g,
                        Op::Bin {
                            op: f,
                            fl: FloatMods::NONE,
                            d,
                            a,
                            b,
                        },
                    );
                } else {
                    let c = self.src(fc, i, g, &ops_[3], t)?;
                    let f = ter(if sat {
                        TerOp::Mad24HiSat
                    } else {
                        TerOp::Mad24 { hi, signed: sg }
                    });
                    self.emit(
                        i,
                        g,
                        Op::Ter {
                            op: f,
                            fl: FloatMods::NONE,
                            d,
                            a,
                            b,
                            c,
                        },
                    );
                }
            }
            "sad" => {
                let Some(f) = t
                    .int()
                    .filter(|_| no_mods && !matches!(t, T::B(_)))
                    .and_then(|it| TerOp::Sad(it).resolve())
                else {
                    return unsupported(i);
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t)?;
                let c = self.src(fc, i, g, &ops_[3], t)?;
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
            "bfind" => {
                let f = match t {
                    T::U(32 | 64) | T::S(32 | 64) if !hi && !lo && !clamp && !wrap => UnOp::Bfind {
                        ty: t.int().unwrap(),
                        shiftamt,
                    }
                    .resolve(),
                    _ => None,
                };
                let Some(f) = f else { return unsupported(i) };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                self.emit(
                    i,
                    g,
                    Op::Un {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                    },
                );
            }
            "fns" => {
                if t != T::B(32) || !no_mods {
                    return unsupported(i);
                }
                let a = self.src(fc, i, g, &ops_[1], T::B(32))?;
                let b = self.src(fc, i, g, &ops_[2], T::U(32))?;
                let c = self.src(fc, i, g, &ops_[3], T::S(32))?;
                let f = ter(TerOp::Fns);
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
            "szext" | "bmsk" => {
                let ok = clamp != wrap
                    && !hi
                    && !lo
                    && !shiftamt
                    && if op == "szext" {
                        s32(t).is_some()
                    } else {
                        t == T::B(32)
                    };
                if !ok {
                    return unsupported(i);
                }
                let f = bin(if op == "szext" {
                    BinOp::Szext {
                        signed: s32(t).unwrap(),
                        clamp,
                    }
                } else {
                    BinOp::Bmsk { clamp }
                });
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], T::U(32))?;
                self.emit(
                    i,
                    g,
                    Op::Bin {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                    },
                );
            }
            _ => {
                // dp4a / dp2a: c is unsigned only when both inputs are.
                let (Some(sa), Some(sb)) = (s32(t), t2.and_then(s32)) else {
                    return unsupported(i);
                };
                let f = if op == "dp4a" {
                    if !no_mods {
                        return unsupported(i);
                    }
                    ter(TerOp::Dp4a { sa, sb })
                } else {
                    if hi == lo || shiftamt || clamp || wrap {
                        return unsupported(i);
                    }
                    ter(TerOp::Dp2a { sa, sb, hi })
                };
                let a = self.src(fc, i, g, &ops_[1], t)?;
                let b = self.src(fc, i, g, &ops_[2], t2.unwrap())?;
                let ct = if sa || sb { T::S(32) } else { T::U(32) };
                let c = self.src(fc, i, g, &ops_[3], ct)?;
                self.emit(
                    i,
                    g,
                    Op::Ter {
                        op: f,
                        fl: FloatMods::NONE,
                        d,
                        a,
                        b,
                        c,
                    },
                );
            }
        }
        Ok(())
    }

    /// add.cc, addc, sub.cc, subc, mad.cc, madc on u32/s32/u64/s64.
    fn carry(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = i.opcode.as_str();
        let cin = op.ends_with('c');
        let cout = m.take("cc");
        let lo = m.take("lo");
        let hi = m.take("hi");
        let t = m.ty()?;
        m.done()?;
        let (bits, signed) = match t {
            T::U(b @ (32 | 64)) => (b, false),
            T::S(b @ (32 | 64)) => (b, true),
            _ => return unsupported(i),
        };
        let cop = match (op, lo, hi) {
            ("add" | "addc", false, false) => CarryOp::Add,
            ("sub" | "subc", false, false) => CarryOp::Sub,
            ("mad" | "madc", true, false) => CarryOp::MadLo,
            ("mad" | "madc", false, true) => CarryOp::MadHi,
            _ => return unsupported(i),
        };
        let nops = if matches!(cop, CarryOp::MadLo | CarryOp::MadHi) {
            4
        } else {
            3
        };
        if i.operands.len() < nops {
            return invalid(i.pos, format!("'{}' needs {nops} operands", i.full_name()));
        }
        let cc = match self.cc_reg {
            Some(r) => r,
            None => {
                let r = self.hidden_reg();
                self.cc_reg = Some(r);
                r
            }
        };
        let d = self.dreg(fc, i, &i.operands[0])?;
        let a = self.src(fc, i, g, &i.operands[1], t)?;
        let b = self.src(fc, i, g, &i.operands[2], t)?;
        let c = if nops == 4 {
            self.src(fc, i, g, &i.operands[3], t)?
        } else {
            Src::Imm(0)
        };
        self.emit(
            i,
            g,
            Op::Carry {
                op: cop,
                bits,
                signed,
                cin,
                cout,
                cc,
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }

    fn mad(&mut self, fc: &FnCtx, i: &Instruction, g: Option<(Reg, bool)>, m: &mut Mods) -> R<()> {
        let rnd = m.rnd();
        let ftz = m.take("ftz");
        let sat = m.take("sat");
        let lo = m.take("lo");
        let hi = m.take("hi");
        let wide = m.take("wide");
        let t = m.ty()?;
        m.done()?;
        let ops_ = &i.operands;
        if ops_.len() < 4 {
            return invalid(i.pos, format!("'{}' needs 4 operands", i.full_name()));
        }
        let mut fl = FloatMods::NONE;
        let (f, ct) = match t {
            T::F(b) => {
                // fma.rn and mad.rn (mad.f32 without rounding is fma on sm_20+).
                let ok = ieee_mode(rnd).is_some() || (i.opcode == "mad" && rnd == Rnd::None);
                if !ok || lo || hi || wide || (b == 64 && (ftz || sat)) {
                    return unsupported(i);
                }
                fl = FloatMods { ftz, sat };
                if b == 16 && (ftz || sat || rnd != Rnd::Rn) {
                    return unsupported(i);
                }
                let f = TerOp::Fma {
                    ty: FloatTy::of_bits(b),
                    rnd: directed(rnd).unwrap_or(Mode::Rn),
                };
                (f.resolve(), t)
            }
            _ => {
                let Some(it) = t.int() else {
                    return unsupported(i);
                };
                if i.opcode != "mad" || rnd != Rnd::None || ftz || matches!(t, T::B(_)) {
                    return unsupported(i);
                }
                match (lo, hi, wide, sat) {
                    (true, false, false, false) => (TerOp::MadLo(it).resolve(), t),
                    (false, true, false, false) => (TerOp::MadHi(it).resolve(), t),
                    (false, true, false, true) if t == T::S(32) => (TerOp::MadHiSat.resolve(), t),
                    (false, false, true, false) => (
                        TerOp::MadWide(it).resolve(),
                        if it.signed {
                            T::S(it.bits * 2)
                        } else {
                            T::U(it.bits * 2)
                        },
                    ),
                    _ => return unsupported(i),
                }
            }
        };
        let Some(f) = f else { return unsupported(i) };
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], t)?;
        let b = self.src(fc, i, g, &ops_[2], t)?;
        let c = self.src(fc, i, g, &ops_[3], ct)?;
        self.emit(
            i,
            g,
            Op::Ter {
                op: f,
                fl,
                d,
                a,
                b,
                c,
            },
        );
        Ok(())
    }

    fn unary(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
        let op = i.opcode.as_str();
        let rnd = m.rnd();
        let ftz = m.take("ftz");
        let approx = m.take("approx");
        let full = m.take("full");
        let tp = if op == "testp" {
            Some(if m.take("finite") {
                Testp::Finite
            } else if m.take("infinite") {
                Testp::Infinite
            } else if m.take("number") {
                Testp::Number
            } else if m.take("notanumber") {
                Testp::NotANumber
            } else if m.take("normal") {
                Testp::Normal
            } else if m.take("subnormal") {
                Testp::Subnormal
            } else {
                return unsupported(i);
            })
        } else {
            None
        };
        let t = m.ty()?;
        m.done()?;
        let ops_ = &i.operands;
        if ops_.len() < 2 {
            return invalid(i.pos, format!("'{}' needs 2 operands", i.full_name()));
        }
        let mut fl = FloatMods::NONE;
        let f: Option<Un> = match t {
            T::F(16) => match op {
                "neg" if rnd == Rnd::None && !ftz && !approx && !full => Some(un(UnOp::NegHalf)),
                "abs" if rnd == Rnd::None && !ftz && !approx && !full => Some(un(UnOp::AbsHalf)),
                _ => return unsupported(i),
            },
            T::F(b) => {
                if let Some(tp) = tp {
                    UnOp::Testp(tp, FloatTy::of_bits(b)).resolve()
                } else {
                    let fop = match op {
                        "neg" => FUn::Neg,
                        "abs" => FUn::Abs,
                        "sqrt" => FUn::Sqrt,
                        "rcp" => FUn::Rcp,
                        "rsqrt" => FUn::Rsqrt,
                        "ex2" => FUn::Ex2,
                        "lg2" => FUn::Lg2,
                        "sin" => FUn::Sin,
                        "cos" => FUn::Cos,
                        "tanh" => FUn::Tanh,
                        _ => return unsupported(i),
                    };
                    let ok = match fop {
                        FUn::Neg | FUn::Abs => rnd == Rnd::None && !approx,
                        // Exact with .rn; .approx forms are within their documented bounds.
                        FUn::Sqrt | FUn::Rcp => {
                            (ieee_mode(rnd).is_some() && !approx)
                                || (rnd == Rnd::None && approx && (b == 32 || ftz))
                        }
                        FUn::Rsqrt => rnd == Rnd::None && approx,
                        FUn::Ex2 | FUn::Lg2 | FUn::Sin | FUn::Cos | FUn::Tanh => {
                            rnd == Rnd::None && approx && b == 32
                        }
                    };
                    if !ok
                        || full
                        || (ftz && b == 64 && !(approx && matches!(fop, FUn::Rcp | FUn::Rsqrt)))
                    {
                        return unsupported(i);
                    }
                    if ftz && b == 32 {
                        fl = FloatMods::FTZ;
                    }
                    // Only sqrt and rcp take a directed rounding (checked above).
                    UnOp::Float {
                        op: fop,
                        ty: FloatTy::of_bits(b),
                        rnd: directed(rnd).unwrap_or(Mode::Rn),
                    }
                    .resolve()
                }
            }
            T::Pred if op == "not" => Some(un(UnOp::NotPred)),
            _ => {
                let Some(it) = t.int() else {
                    return unsupported(i);
                };
                if rnd != Rnd::None || ftz || approx || full || tp.is_some() {
                    return unsupported(i);
                }
                let is_b = matches!(t, T::B(_));
                let uop = match op {
                    "neg" if matches!(t, T::S(_)) => IUn::Neg,
                    "abs" if matches!(t, T::S(_)) => IUn::Abs,
                    "not" if is_b => IUn::Not,
                    "cnot" if is_b => IUn::Cnot,
                    "popc" if is_b && it.bits >= 32 => IUn::Popc,
                    "clz" if is_b && it.bits >= 32 => IUn::Clz,
                    "brev" if is_b && it.bits >= 32 => IUn::Brev,
                    _ => return unsupported(i),
                };
                UnOp::Int(uop, it).resolve()
            }
        };
        let Some(f) = f else { return unsupported(i) };
        let d = self.dreg(fc, i, &ops_[0])?;
        let a = self.src(fc, i, g, &ops_[1], t)?;
        self.emit(i, g, Op::Un { op: f, fl, d, a });
        Ok(())
    }

    fn atom(&mut self, fc: &FnCtx, i: &Instruction, g: Option<(Reg, bool)>, m: &mut Mods) -> R<()> {
        let is_red = i.opcode == "red";
        // `.shared::cluster` addresses carry the CTA's rank (`ir::CLUSTER_RANK_SHIFT`): the
        // executor resolves shared addresses in the cluster's shared memory (see `Mods::space`).
        let space = m.space();
        m.ignore(ATOM_QUALIFIERS);
        let ops = [
            ("add", AtomOp::Add),
            ("min", AtomOp::Min),
            ("max", AtomOp::Max),
            ("inc", AtomOp::Inc),
            ("dec", AtomOp::Dec),
            ("and", AtomOp::And),
            ("or", AtomOp::Or),
            ("xor", AtomOp::Xor),
            ("exch", AtomOp::Exch),
            ("cas", AtomOp::Cas),
        ];
        let mut op = None;
        for (w, o) in ops {
            if m.take(w) {
                op = Some(o);
            }
        }
        let noftz = m.take("noftz");
        let vn = m.vec();
        let half_ty = i
            .mods
            .iter()
            .find(|w| half::is_half_word(w))
            .map(|w| (w.starts_with("bf"), w.ends_with("x2")));
        let t = if let Some((_, x2)) = half_ty {
            m.ignore(&["f16", "f16x2", "bf16", "bf16x2"]);
            T::B(if x2 { 32 } else { 16 })
        } else {
            m.ty()?
        };
        m.done()?;
        let Some(op) = op else { return unsupported(i) };
        if vn > 1 {
            return self.atom_vec(fc, i, g, is_red, space, op, vn, half_ty, noftz, t);
        }
        if noftz != half_ty.is_some() {
            // .noftz is required on, and only allowed on, the half-precision adds.
            return unsupported(i);
        }
        let ty = match (t, op) {
            (_, AtomOp::Add) if half_ty.is_some() => {
                let (bf, x2) = half_ty.unwrap();
                AtomTy::Half { bf, x2 }
            }
            _ if half_ty.is_some() => return unsupported(i),
            (T::U(32), _) => AtomTy::U32,
            (T::S(32), _) => AtomTy::S32,
            (T::U(64), _) => AtomTy::U64,
            (T::S(64), _) => AtomTy::S64,
            (T::B(32), AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Exch | AtomOp::Cas) => {
                AtomTy::U32
            }
            (T::B(64), AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Exch | AtomOp::Cas) => {
                AtomTy::U64
            }
            // atom.cas.b16 (sm_70): executed by exec::warp as a host 16-bit compare-exchange.
            (T::B(16), AtomOp::Cas) => AtomTy::B16,
            (T::F(32), AtomOp::Add | AtomOp::Exch) => AtomTy::F32,
            (T::F(64), AtomOp::Add) => AtomTy::F64,
            _ => return unsupported(i),
        };
        if matches!(op, AtomOp::Inc | AtomOp::Dec) && ty != AtomTy::U32 {
            return unsupported(i);
        }
        if !matches!(space, None | Some(AS::Global) | Some(AS::Shared)) {
            return unsupported(i);
        }
        let ops_ = &i.operands;
        let k = if is_red { 0 } else { 1 };
        let want = k + 2 + (op == AtomOp::Cas) as usize;
        if ops_.len() < want {
            return invalid(i.pos, format!("'{}' needs {want} operands", i.full_name()));
        }
        let d = if is_red {
            None
        } else {
            self.opt_dreg(fc, i, &ops_[0])?
        };
        let (ms, addr) = self.addr(fc, i, &ops_[k], space)?;
        let a = self.src(fc, i, g, &ops_[k + 1], t)?;
        let b = if op == AtomOp::Cas {
            self.src(fc, i, g, &ops_[k + 2], t)?
        } else {
            Src::Imm(0)
        };
        self.emit(
            i,
            g,
            Op::Atom {
                space: ms,
                op,
                ty,
                d,
                addr,
                a,
                b,
            },
        );
        Ok(())
    }

    fn call(&mut self, fc: &FnCtx, i: &Instruction, g: Option<(Reg, bool)>, m: &mut Mods) -> R<()> {
        m.take("uni");
        m.done()?;
        let ops_ = &i.operands;
        let (rets, rest) = match ops_.first() {
            Some(O::List(r)) => (r.as_slice(), &ops_[1..]),
            _ => (&[][..], &ops_[..]),
        };
        let Some(O::Name { name, .. }) = rest.first() else {
            return invalid(i.pos, "call needs a function name");
        };
        let args: &[O] = match rest.get(1) {
            Some(O::List(a)) => a,
            None => &[],
            Some(_) => return invalid(i.pos, "call arguments must be a parenthesized list"),
        };
        let callee = match self.lookup(fc, name) {
            Some(Sym::Func(f)) => Some(f),
            // Indirect call through a function pointer (with a `.callprototype` or a
            // `.calltargets` label as the last operand).
            Some(Sym::Reg(_)) => None,
            _ => return invalid(i.pos, format!("call of undefined function '{name}'")),
        };
        let Some(callee) = callee else {
            let sel = self.src(fc, i, g, &rest[0], T::U(64))?;
            let mut actuals = Vec::new();
            for a in args {
                actuals.push(self.actual(fc, i, g, a, None)?);
            }
            let mut dests = Vec::new();
            for r in rets {
                dests.push(self.ret_dest(fc, i, r, None)?);
            }
            self.indirect_callers.push(fc.fidx);
            return self.emit_call(
                i,
                g,
                CallSite {
                    sel: Some(sel),
                    callees: Vec::new(),
                    args: actuals,
                    rets: dests,
                    save: Some(fc.fidx as u32),
                },
            );
        };
        if self.mc.m.functions[callee].is_entry {
            return invalid(i.pos, "call of a kernel");
        }
        if self.mc.m.functions[callee].body.is_none() {
            let sc = match name.as_str() {
                "vprintf" => Some(SysCall::Vprintf),
                "__assertfail" => Some(SysCall::AssertFail),
                "malloc" => Some(SysCall::Malloc),
                "free" => Some(SysCall::Free),
                "cudaGraphSetConditional" => Some(SysCall::GraphSetConditional),
                _ => None,
            };
            if let Some(sc) = sc {
                return self.sys_call(fc, i, g, callee, sc, args, rets);
            }
            return Err(LowerError {
                kind: LoadErrorKind::Unsupported,
                pos: i.pos,
                message: format!("unsupported call of external function '{name}'"),
            });
        }
        self.sig(callee)?;
        let (params, retf) = {
            let s = &self.sigs[&callee];
            (s.params.clone(), s.rets.clone())
        };
        let cf = &self.mc.m.functions[callee];
        if cf.params.len() != args.len() || cf.ret_params.len() != rets.len() {
            return invalid(
                i.pos,
                format!("call of '{name}' with the wrong number of arguments"),
            );
        }
        let shape = |d: &VarDecl| {
            if d.space == AS::Reg {
                d.vec.max(1) as usize
            } else {
                1
            }
        };
        let pshape: Vec<usize> = cf.params.iter().map(shape).collect();
        let rshape: Vec<usize> = cf.ret_params.iter().map(shape).collect();
        let mut actuals = Vec::new();
        let mut fs = params.iter();
        for (a, n) in args.iter().zip(pshape) {
            let f: Vec<Formal> = fs.by_ref().take(n).copied().collect();
            if n > 1 {
                actuals.extend(self.vector_actual(fc, i, g, a, &f)?);
            } else {
                actuals.push(self.actual(fc, i, g, a, f.first().copied())?);
            }
        }
        let mut dests = Vec::new();
        let mut packs = Vec::new();
        let mut fs = retf.iter();
        for (r, n) in rets.iter().zip(rshape) {
            let f: Vec<Formal> = fs.by_ref().take(n).copied().collect();
            if n > 1 {
                dests.extend(self.vector_ret(fc, i, r, &f, &mut packs)?);
            } else {
                dests.push(self.ret_dest(fc, i, r, f.first().copied())?);
            }
        }
        self.edges.push((fc.fidx, callee));
        if !self.code.contains_key(&callee) {
            self.queue.push(callee);
        }
        self.emit_call(
            i,
            g,
            CallSite {
                sel: None,
                callees: vec![callee as u32],
                args: actuals,
                rets: dests,
                save: Some(fc.fidx as u32),
            },
        )?;
        // A vector result received in a scalar register: joined after the return.
        for (d, parts, bits) in packs {
            self.emit(i, g, Op::Pack { d, parts, bits });
        }
        Ok(())
    }

    /// The actuals of a `.reg .vN` formal (`f`, one per element): a vector register of that
    /// shape or a brace list of N values, element by element, or a scalar register or
    /// immediate of the same total width split into elements, first element lowest (as
    /// `mov.b64 v, %rd` splits it), all of which ptxas 13.5 accepts.
    fn vector_actual(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        a: &O,
        f: &[Formal],
    ) -> R<Vec<Actual>> {
        let n = f.len() as u8;
        let Some(&Formal::Reg(_, bits)) = f.first() else {
            return invalid(i.pos, "vector argument of a non-register formal");
        };
        if let Ok(parts) = self.vector_parts(fc, i, a, n) {
            let mut out = Vec::new();
            for p in &parts {
                out.push(Actual::Val(self.src(fc, i, g, p, T::B(bits))?));
            }
            return Ok(out);
        }
        self.vector_mismatch(fc, i, a, n, bits)?;
        let whole = self.src(fc, i, g, a, T::B(bits * n as u32))?;
        let ds: Vec<Reg> = (0..n).map(|_| self.new_reg()).collect();
        let op = Op::Unpack {
            ds: ds.iter().map(|&d| Some(d)).collect(),
            a: whole,
            bits,
        };
        self.emit(i, g, op);
        Ok(ds.into_iter().map(|d| Actual::Val(Src::Reg(d))).collect())
    }

    /// Refuses an operand that cannot stand for a `.reg .vN` formal of `n` elements of `bits`
    /// (ptxas 13.5: "Type of argument does not match formal parameter"): a vector register of
    /// another length, or a scalar register whose width (64 bits or not) differs from the
    /// formal's total. (Registers of 32 bits and less are not told apart here.)
    fn vector_mismatch(&self, fc: &FnCtx, i: &Instruction, o: &O, n: u8, bits: u32) -> R<()> {
        let total = bits * n as u32;
        let bad = match o {
            O::Name { name, comp: None } if self.lookup(fc, &format!("{name}.x")).is_some() => {
                self.vector_len(fc, name) != n
            }
            O::Name { name, comp } => {
                let full = comp.as_ref().map(|c| format!("{name}.{c}"));
                let r = full.as_deref().and_then(|f| self.lookup(fc, f));
                match r.or_else(|| self.lookup(fc, name)) {
                    Some(Sym::Reg(r)) if total <= 64 => {
                        (self.reg_bytes[r as usize] == 8) != (total == 64)
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        if bad {
            return invalid(
                i.pos,
                format!(
                    "'{}': an operand does not match its .v{n} formal parameter of {total} bits",
                    i.full_name()
                ),
            );
        }
        Ok(())
    }

    /// Where the elements of a `.reg .vN` result go: the elements of a vector register or
    /// brace list, or fresh registers that `packs` joins into a scalar destination after the
    /// call (`call (%rd), f, ...` with a `.v2.u32` result).
    fn vector_ret(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        r: &O,
        f: &[Formal],
        packs: &mut Vec<(Reg, Vec<Src>, u32)>,
    ) -> R<Vec<Loc>> {
        let n = f.len() as u8;
        let Some(&Formal::Reg(_, bits)) = f.first() else {
            return invalid(i.pos, "vector result of a non-register formal");
        };
        if matches!(r, O::Vector(_)) {
            // ptxas 13.5: a syntax error (a brace list is an argument, never a result).
            return invalid(i.pos, "a call result cannot be a brace list");
        }
        if let Ok(parts) = self.vector_parts(fc, i, r, n) {
            let mut out = Vec::new();
            for p in &parts {
                out.push(Loc::Reg(self.dreg(fc, i, p)?, bits));
            }
            return Ok(out);
        }
        self.vector_mismatch(fc, i, r, n, bits)?;
        let d = self.dreg(fc, i, r)?;
        let ts: Vec<Reg> = (0..n).map(|_| self.new_reg()).collect();
        packs.push((d, ts.iter().map(|&t| Src::Reg(t)).collect(), bits));
        Ok(ts.into_iter().map(|t| Loc::Reg(t, bits)).collect())
    }

    /// Emits `Call` (guarded) and its `CallRet` (unguarded: it pops the frame the call pushed).
    fn emit_call(&mut self, i: &Instruction, g: Option<(Reg, bool)>, site: CallSite) -> R<()> {
        if self.sp_reg.is_none() {
            self.sp_reg = Some(self.hidden_reg());
        }
        let k = self.sites.len() as u32;
        self.sites.push(site);
        self.emit(i, g, Op::Call { site: k });
        self.emit(i, None, Op::CallRet { site: k });
        Ok(())
    }

    /// An actual argument: a `.param` variable of the caller, or a value for a `.reg` formal.
    fn actual(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        a: &O,
        formal: Option<Formal>,
    ) -> R<Actual> {
        if let O::Name { name: an, .. } = a {
            if let Some(Sym::Local(src)) = self.lookup(fc, an) {
                return Ok(Actual::Local(src));
            }
        }
        match formal {
            Some(Formal::Local(..)) => invalid(i.pos, "argument must be a .param variable"),
            Some(Formal::Reg(_, bits)) => {
                Ok(Actual::Val(self.src(fc, i, g, a, T::B(bits.max(8)))?))
            }
            None => Ok(Actual::Val(self.src(fc, i, g, a, T::B(64))?)),
        }
    }

    /// Where a return value goes in the caller.
    fn ret_dest(&mut self, fc: &FnCtx, i: &Instruction, r: &O, formal: Option<Formal>) -> R<Loc> {
        if let O::Name { name: rn, .. } = r {
            if let Some(Sym::Local(dst)) = self.lookup(fc, rn) {
                let n = match formal {
                    Some(f) => f.loc().bytes() as u32,
                    // Indirect: the callee's formal decides how many bytes are copied.
                    None => u32::MAX,
                };
                return Ok(Loc::Local(dst, n));
            }
        }
        match formal {
            Some(Formal::Local(..)) => invalid(i.pos, "return value must be a .param variable"),
            Some(Formal::Reg(_, bits)) => Ok(Loc::Reg(self.dreg(fc, i, r)?, bits)),
            None => Ok(Loc::Reg(self.dreg(fc, i, r)?, 64)),
        }
    }
}

/// The IEEE rounding of `.rn/.rz/.rm/.rp`.
fn ieee_mode(r: Rnd) -> Option<Mode> {
    Some(match r {
        Rnd::Rn => Mode::Rn,
        Rnd::Rz => Mode::Rz,
        Rnd::Rm => Mode::Rm,
        Rnd::Rp => Mode::Rp,
        _ => return None,
    })
}

/// A directed rounding (the host cannot do these; round-to-nearest it can).
fn directed(r: Rnd) -> Option<Mode> {
    ieee_mode(r).filter(|&m| m != Mode::Rn)
}

/// The resolved form of an operation that exists for every type lowering gives it.
fn un(op: UnOp) -> Un {
    op.resolve()
        .unwrap_or_else(|| unreachable!("{op} has a lane function"))
}
fn bin(op: BinOp) -> Bin {
    op.resolve()
        .unwrap_or_else(|| unreachable!("{op} has a lane function"))
}
fn ter(op: TerOp) -> Ter {
    op.resolve()
        .unwrap_or_else(|| unreachable!("{op} has a lane function"))
}
fn bin_int(op: IBin, t: IntTy) -> Option<Bin> {
    BinOp::Int(op, t).resolve()
}
fn cmp_int(c: Cmp, t: IntTy) -> Option<Compare> {
    CmpOp::Int(c, t).resolve()
}

/// The address of a `.shared`/`.local` symbol at `offset` bytes into `space_kind`, or of its
/// generic alias inside `window` when the instruction names no state space (`generic`).
fn windowed(
    generic: bool,
    space_kind: MSpace,
    window: u64,
    offset: impl Into<u64>,
    off: i64,
) -> (MSpace, Addr) {
    let o = offset.into();
    let (kind, start) = if generic {
        (MSpace::Generic, window + o)
    } else {
        (space_kind, o)
    };
    (
        kind,
        Addr {
            base: None,
            off: start as i64 + off,
        },
    )
}

fn sreg(name: &str, comp: Option<&str>) -> Option<SReg> {
    let dim = || match comp {
        Some("x") => Some(0u8),
        Some("y") => Some(1),
        Some("z") => Some(2),
        _ => None,
    };
    Some(match name {
        "%tid" => SReg::Tid(dim()?),
        "%ntid" => SReg::Ntid(dim()?),
        "%ctaid" => SReg::Ctaid(dim()?),
        "%nctaid" => SReg::Nctaid(dim()?),
        "%laneid" => SReg::Laneid,
        "%warpid" => SReg::Warpid,
        "%nwarpid" => SReg::Nwarpid,
        "%smid" => SReg::Smid,
        "%nsmid" => SReg::Nsmid,
        "%gridid" => SReg::Gridid,
        "%lanemask_eq" => SReg::LanemaskEq,
        "%lanemask_le" => SReg::LanemaskLe,
        "%lanemask_lt" => SReg::LanemaskLt,
        "%lanemask_ge" => SReg::LanemaskGe,
        "%lanemask_gt" => SReg::LanemaskGt,
        "%clock" => SReg::Clock,
        "%clock64" => SReg::Clock64,
        "%globaltimer" => SReg::Globaltimer,
        "%dynamic_smem_size" => SReg::DynamicSmemSize,
        "%total_smem_size" => SReg::TotalSmemSize,
        "%aggr_smem_size" => SReg::AggrSmemSize,
        "%reserved_smem_offset_begin"
        | "%reserved_smem_offset_end"
        | "%reserved_smem_offset_0"
        | "%reserved_smem_offset_1" => SReg::ReservedSmemEnd,
        "%clock_hi" => SReg::ClockHi,
        "%reserved_smem_offset_cap" | "%current_graph_exec" => SReg::Zero,
        "%is_explicit_cluster" => SReg::IsExplicitCluster,
        "%cluster_ctarank" => SReg::ClusterCtarank,
        "%cluster_nctarank" => SReg::ClusterNctarank,
        "%clusterid" => SReg::Clusterid(dim()?),
        "%nclusterid" => SReg::Nclusterid(dim()?),
        "%cluster_ctaid" => SReg::ClusterCtaid(dim()?),
        "%cluster_nctaid" => SReg::ClusterNctaid(dim()?),
        _ => {
            let num = |p: &str, max: u32| {
                name.strip_prefix(p)
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|&n| n < max)
            };
            if let Some(n) = num("%envreg", 32) {
                // Set by the driver per launch (the cooperative grid workspace).
                SReg::Envreg(n as u8)
            } else if num("%pm", 8).is_some()
                || name
                    .strip_suffix("_64")
                    .and_then(|n| n.strip_prefix("%pm"))
                    .and_then(|n| n.parse::<u32>().ok())
                    .is_some_and(|n| n < 8)
            {
                SReg::Zero
            } else {
                return None;
            }
        }
    })
}

/// Qualifiers of ld/ldu/st that do not change what a single-threaded-per-CTA executor with
/// sequentially consistent host memory computes: memory order and scope (every access is
/// already as strong), cache operators and eviction priorities, `.nc`, `.unified`.
const LD_ST_QUALIFIERS: &[&str] = &[
    "weak",
    "volatile",
    "relaxed",
    "acquire",
    "release",
    "mmio",
    "cta",
    "gpu",
    "sys",
    "cluster",
    "nc",
    "ca",
    "cg",
    "cs",
    "lu",
    "cv",
    "wb",
    "wt",
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L1::evict_first",
    "L1::evict_last",
    "L1::no_allocate",
    "L2::evict_normal",
    "L2::evict_first",
    "L2::evict_last",
    "L2::64B",
    "L2::128B",
    "L2::256B",
    "L2::cache_hint",
    "unified",
];

/// Memory-order and scope qualifiers of atom/red (every atomic here is a sequentially
/// consistent host atomic, which satisfies each of them) and the L2 cache hint.
const ATOM_QUALIFIERS: &[&str] = &[
    "relaxed",
    "acquire",
    "release",
    "acq_rel",
    "sc",
    "cta",
    "gpu",
    "sys",
    "cluster",
    "L2::cache_hint",
];

/// The modifiers of one instruction: each is taken once by lowering; any left over makes the
/// instruction unsupported (never silently ignored).
struct Mods<'a> {
    i: &'a Instruction,
    /// The modifiers as `str`s, read once.
    words: smallvec::SmallVec<[&'a str; 8]>,
    /// Which modifiers a lowering has read (inline: instructions have a few).
    used: smallvec::SmallVec<[bool; 16]>,
}

/// `a == b` for the short words of modifiers, without a call to `memcmp`.
#[inline]
fn same_word(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

impl<'a> Mods<'a> {
    fn new(i: &'a Instruction) -> Self {
        Mods {
            i,
            words: i.mods.iter().map(|m| m.as_str()).collect(),
            used: smallvec::SmallVec::from_elem(false, i.mods.len()),
        }
    }
    fn take(&mut self, w: &str) -> bool {
        for (k, m) in self.words.iter().enumerate() {
            if !self.used[k] && same_word(m, w) {
                self.used[k] = true;
                return true;
            }
        }
        false
    }
    /// Marks every unused modifier that is one of `ws`.
    fn ignore(&mut self, ws: &[&str]) {
        for (k, m) in self.words.iter().enumerate() {
            if !self.used[k] && ws.iter().any(|w| same_word(w, m)) {
                self.used[k] = true;
            }
        }
    }
    /// The next unused type word, with the packed and bf16 float types read as the bit types of
    /// their width (for data movement, which does not interpret them).
    fn ty_data(&mut self) -> R<T> {
        for (k, m) in self.i.mods.iter().enumerate() {
            if !self.used[k] {
                let t = match m.as_str() {
                    "f16x2" | "bf16x2" => Some(T::B(32)),
                    "bf16" => Some(T::B(16)),
                    w => ty_word(w),
                };
                if let Some(t) = t {
                    self.used[k] = true;
                    return Ok(t);
                }
            }
        }
        self.no_type()
    }
    /// No type word lowering knows: with modifiers left over (a packed type such as `.u16x2`,
    /// or an instruction form lowering does not know), the ISA table decides; with none, the
    /// instruction lacks its type.
    fn no_type<X>(&self) -> R<X> {
        if self.used.iter().any(|u| !u) {
            unsupported(self.i)
        } else {
            invalid(self.i.pos, format!("'{}' lacks a type", self.i.full_name()))
        }
    }
    /// The next unused type word.
    fn ty(&mut self) -> R<T> {
        for (k, m) in self.i.mods.iter().enumerate() {
            if !self.used[k] {
                if let Some(t) = ty_word(m) {
                    self.used[k] = true;
                    return Ok(t);
                }
            }
        }
        self.no_type()
    }
    fn vec(&mut self) -> u8 {
        if self.take("v2") {
            2
        } else if self.take("v4") {
            4
        } else if self.take("v8") {
            8
        } else {
            1
        }
    }
    fn space(&mut self) -> Option<AS> {
        for (w, s) in [
            ("global", AS::Global),
            ("shared", AS::Shared),
            ("shared::cta", AS::Shared),
            // A `.shared::cluster` address names its CTA itself (`ir::CLUSTER_RANK_SHIFT`).
            ("shared::cluster", AS::Shared),
            ("local", AS::Local),
            ("param", AS::Param),
            ("param::entry", AS::Param),
            ("param::func", AS::Param),
            ("const", AS::Const),
        ] {
            if self.take(w) {
                return Some(s);
            }
        }
        None
    }
    fn rnd(&mut self) -> Rnd {
        for (w, r) in [
            ("rn", Rnd::Rn),
            ("rz", Rnd::Rz),
            ("rm", Rnd::Rm),
            ("rp", Rnd::Rp),
            ("rni", Rnd::Rni),
            ("rzi", Rnd::Rzi),
            ("rmi", Rnd::Rmi),
            ("rpi", Rnd::Rpi),
        ] {
            if self.take(w) {
                return r;
            }
        }
        Rnd::None
    }
    fn cmp(&mut self) -> Option<Cmp> {
        for (w, c) in [
            ("eq", Cmp::Eq),
            ("ne", Cmp::Ne),
            ("lt", Cmp::Lt),
            ("le", Cmp::Le),
            ("gt", Cmp::Gt),
            ("ge", Cmp::Ge),
            ("lo", Cmp::Lt),
            ("ls", Cmp::Le),
            ("hi", Cmp::Gt),
            ("hs", Cmp::Ge),
            ("equ", Cmp::Equ),
            ("neu", Cmp::Neu),
            ("ltu", Cmp::Ltu),
            ("leu", Cmp::Leu),
            ("gtu", Cmp::Gtu),
            ("geu", Cmp::Geu),
            ("num", Cmp::Num),
            ("nan", Cmp::Nan),
        ] {
            if self.take(w) {
                // lo/ls/hi/hs compare unsigned: the type word must be unsigned (checked by the
                // integer type the caller picks), so they map onto the ordered forms.
                return Some(c);
            }
        }
        None
    }
    fn boolop(&mut self) -> Option<BoolOp> {
        if self.take("and") {
            Some(BoolOp::And)
        } else if self.take("or") {
            Some(BoolOp::Or)
        } else if self.take("xor") {
            Some(BoolOp::Xor)
        } else {
            None
        }
    }
    fn done(&self) -> R<()> {
        if self.used.iter().all(|&u| u) {
            Ok(())
        } else {
            unsupported(self.i)
        }
    }
}

/// Writes a variable's initializer into `buf` (device memory of the variable), resolving symbol
/// addresses through `globals`.
pub fn write_init(v: &VarDecl, buf: &mut [u8], globals: &HashMap<String, u64>) -> R<()> {
    let Some(init) = &v.init else { return Ok(()) };
    let eb = elem_bytes(&v.ty).unwrap_or(1) as usize;
    let is_float = v.ty.starts_with('f');
    let mut flat = Vec::new();
    fn fl<'b>(i: &'b Init, out: &mut Vec<&'b Init>) {
        match i {
            Init::List(l) => l.iter().for_each(|x| fl(x, out)),
            x => out.push(x),
        }
    }
    fl(init, &mut flat);
    for (k, it) in flat.iter().enumerate() {
        let off = k * eb;
        if off + eb > buf.len() {
            return invalid(v.pos, format!("initializer of '{}' is too long", v.name));
        }
        let bits: u64 = match it {
            Init::Int(x) if is_float && eb == 4 => (*x as f32).to_bits() as u64,
            Init::Int(x) if is_float => (*x as f64).to_bits(),
            Init::Int(x) => *x as u64,
            Init::Float { bits, .. } if eb == 4 => (f64::from_bits(*bits) as f32).to_bits() as u64,
            Init::Float { bits, .. } => *bits,
            Init::Sym {
                name, offset, mask, ..
            } => match globals.get(name.as_str()) {
                // ISA 5.4.4: `mask(expr)` extracts the masked byte of the address and stores it at
                // bit 0 (so `0xFF00(foo)` in a `.u8` array is the address's second byte).
                Some(a) => match mask {
                    Some(m) if m.count_ones() == 8 && (m >> m.trailing_zeros()) == 0xFF => {
                        (a.wrapping_add(*offset as u64) & m) >> m.trailing_zeros()
                    }
                    Some(m) => {
                        return invalid(
                            v.pos,
                            format!("mask() operator 0x{m:X} does not select one byte"),
                        )
                    }
                    None => a.wrapping_add(*offset as u64),
                },
                None => {
                    return Err(LowerError {
                        kind: LoadErrorKind::Unsupported,
                        pos: v.pos,
                        message: format!("unsupported initializer: address of '{name}'"),
                    })
                }
            },
            Init::List(_) => unreachable!(),
        };
        buf[off..off + eb].copy_from_slice(&bits.to_le_bytes()[..eb]);
    }
    Ok(())
}
