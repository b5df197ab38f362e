//! Lowering: AST -> IR, one program per kernel (the kernel plus every device function it calls).
//! Modifiers are resolved to the named operations of [`crate::sem`], registers to dense indices,
//! symbols to addresses or offsets in their state space. Anything the executor cannot run is
//! rejected here, naming the instruction and its line.
//!
//! - `mod.rs`: a kernel's lowering (`lower_kernel`) and one function's body;
//! - `inst.rs`: one instruction: its checks and the arms of opcodes lowered in a few lines;
//! - `dispatch.rs`: the routes of opcodes to their family's lowering, as a table;
//! - `mods.rs`: modifier decoding; `operands.rs`: registers, sources and addresses;
//! - `decl.rs`: variable layout and initializers; `calls.rs`: the call graph and the call ABI;
//! - one file per instruction family: `arith.rs`, `atom.rs`, `b128.rs`, `data.rs`, `half.rs`,
//!   `misc.rs`, `packed.rs`, `sync.rs`, `video.rs`.

use crate::analysis;
use crate::diag::LoadErrorKind;
use crate::ir::*;
use crate::isa::words::{ModKind, TyKind, TypeWord};
use crate::ptx::ast::{
    self, Init, Instruction, Name, Operand as O, Pos, Space as AS, Statement, VarDecl,
};
use crate::sem::softfloat::Mode;
use crate::sem::{Cmp, FBin, FUn, IBin, IUn, LaneFamily, PrmtMode, Scalar, Testp};
use std::collections::HashMap;

/// Maps and sets of the per-operand lookups (names, registers), with a fast hash.
type FxMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;
type FxSet<K> = std::collections::HashSet<K, rustc_hash::FxBuildHasher>;

mod arith;
mod atom;
mod b128;
mod bulk;
mod calls;
mod clc;
mod data;
mod decl;
mod dispatch;
mod half;
mod inst;
mod matrix;
mod misc;
mod mods;
mod operands;
mod packed;
mod surf;
mod sync;
mod tcgen05;
mod tex;
mod video;

use arith::*;
use calls::*;
use decl::*;
pub use decl::{var_layout, write_init};
use mods::*;
use operands::*;

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
    /// The integer scalar of an integer or bit type (bit types compute as unsigned).
    fn int(self) -> Option<Scalar> {
        match self {
            T::B(b) | T::U(b) => Scalar::int_of(b, false),
            T::S(b) => Scalar::int_of(b, true),
            _ => None,
        }
    }
    /// The scalar `cvt` converts to or from: an integer or bit type, or f16, f32, f64.
    fn cvt_ty(self) -> Option<Scalar> {
        match self {
            T::F(b @ (16 | 32 | 64)) => Some(Scalar::float_of_bits(b)),
            _ => self.int(),
        }
    }
}

impl T {
    /// Lowering's classification of a type word ([`TypeWord`], the one parser of them).
    pub fn of(t: TypeWord) -> T {
        match (t.k, t.bits) {
            (TyKind::Pred, _) => T::Pred,
            (TyKind::B, b @ (8 | 16 | 32 | 64)) => T::B(b as u32),
            (TyKind::U, b) => T::U(b as u32),
            (TyKind::S, b) => T::S(b as u32),
            (TyKind::F, b) => T::F(b as u32),
            _ => T::Other,
        }
    }
}

/// The type a word names, as lowering classifies it ([`T::of`]).
pub fn ty_word(s: &str) -> Option<T> {
    TypeWord::parse(s).map(T::of)
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
    /// Labels are scoped by `{ }` blocks, as variables are (ISA 7.1; ptxas 13.5 takes the same
    /// label in two blocks and refuses a branch from outside a block to a label inside it):
    /// one map per block of the body, with the index of the enclosing block (`usize::MAX` for
    /// the body itself). Inline assembly relies on it: CUTLASS's mbarrier waits put the same
    /// `LAB_WAIT:` in a block of their own many times in one function.
    label_scopes: Vec<(usize, FxMap<Name, u32>)>,
    /// The block being lowered (an index into `label_scopes`).
    label_scope: usize,
    /// Branches, with the block they are in, resolved at the function's end.
    fixups: Vec<(usize, String, Pos, usize)>,
    /// `brx.idx` instructions and the labels of their `.branchtargets` list.
    brx_fixups: Vec<(usize, Vec<String>, Pos, usize)>,
    is_kernel: bool,
    fidx: usize,
    /// Every label of the function (any scope), for name checks of unsupported instructions.
    all_labels: FxSet<Name>,
    /// A re-entrant function's frame: its `.local` variables, allocated on the thread's stack
    /// at each entry ([`Op::Frame`]).
    frame: Option<FrameCtx>,
    /// Every name the body uses, collected at the first declaration too large to materialise
    /// whole ([`decl::EAGER_REGS`]).
    used_names: Option<FxSet<Name>>,
}

impl FnCtx {
    /// The instruction a branch in block `scope` to `name` goes to: the label of that block
    /// or of the nearest enclosing one that has it.
    fn label(&self, mut scope: usize, name: &str) -> Option<u32> {
        while scope != usize::MAX {
            let (outer, labels) = &self.label_scopes[scope];
            if let Some(&t) = labels.get(name) {
                return Some(t);
            }
            scope = *outer;
        }
        None
    }
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
    /// The instruction (its address) whose tally `emit` last considered ([`crate::fidelity`]).
    last_tallied: usize,
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
    /// Some instruction named `.cta_group::2` ([`Program::cta_pair`]).
    cta_pair: bool,
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
        last_tallied: usize::MAX,
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
        cta_pair: false,
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
        // The ISA lets opaque references be kernel parameters (5.3, 11.2.1), which ptxas
        // compiles as per-kernel texture, sampler and surface bindings outside the parameter
        // buffer; but no driver call binds one, and the CUDA driver refuses such a module at
        // load (CUDA_ERROR_INVALID_IMAGE on an H200, driver 580.159:
        // scripts/ground-truth/results/texref-param-h200.txt). There is no behaviour to follow.
        if matches!(d.ty.as_str(), "texref" | "samplerref" | "surfref") {
            return Err(LowerError {
                kind: LoadErrorKind::NotLoadable,
                pos: d.pos,
                message: format!(
                    "kernel parameter '{}' is a .{}: the CUDA driver loads no module with an \
                     opaque kernel parameter (CUDA_ERROR_INVALID_IMAGE)",
                    d.name, d.ty
                ),
            });
        }
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
    let mut program = Program {
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
        cta_pair: p.cta_pair,
        param_window: p.param_window,
        zeroed: None,
    };
    program.zeroed = crate::ir::uninit::maybe_uninit(&program);
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
            label_scopes: vec![(usize::MAX, FxMap::default())],
            label_scope: 0,
            fixups: Vec::new(),
            brx_fixups: Vec::new(),
            is_kernel,
            fidx,
            all_labels: Default::default(),
            frame: None,
            used_names: None,
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
        for (pc, label, pos, scope) in std::mem::take(&mut fc.fixups) {
            let t = if label.is_empty() {
                exit as u32
            } else {
                match fc.label(scope, &label) {
                    Some(t) => t,
                    None => return invalid(pos, format!("undefined label '{label}'")),
                }
            };
            if let Op::Bra { ref mut target, .. } = self.insts[pc].op {
                *target = t;
            }
        }
        for (pc, list, pos, scope) in std::mem::take(&mut fc.brx_fixups) {
            let mut ts = Vec::with_capacity(list.len());
            for label in &list {
                match fc.label(scope, label) {
                    Some(t) => ts.push(t),
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
        // A label belongs to its block; branches are resolved at the function's end, from the
        // block they are in outwards, so forward branches find their labels.
        for s in st {
            match s {
                Statement::Inst(i) => self.inst(fc, i)?,
                Statement::Label(l, pos) => {
                    let at = self.insts.len() as u32;
                    let scope = &mut fc.label_scopes[fc.label_scope].1;
                    if scope.insert(Name::new(l), at).is_some() {
                        return invalid(*pos, format!("duplicate label '{l}'"));
                    }
                }
                Statement::Var(v) => self.declare(fc, v)?,
                Statement::Block(b) => {
                    fc.scopes.push(FxMap::default());
                    let outer = fc.label_scope;
                    fc.label_scopes.push((outer, FxMap::default()));
                    fc.label_scope = fc.label_scopes.len() - 1;
                    self.stmts(fc, b)?;
                    fc.label_scope = outer;
                    fc.scopes.pop();
                }
                Statement::Other(_) => {}
            }
        }
        Ok(())
    }
}
