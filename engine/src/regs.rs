//! The registers per thread a kernel gets from NVIDIA's PTX assembler (ptxas), estimated:
//! what `CU_FUNC_ATTRIBUTE_NUM_REGS` reports and what the launch check and the occupancy
//! calculators charge. PTX declares virtual registers without bound (compilers emit one per
//! value); ptxas allocates physical 32-bit registers to the values live at once, up to 255 and
//! up to what the kernel's launch bounds leave each thread.
//!
//! The estimate ([`estimate`]) is the most 32-bit words live at once in the kernel and, at each
//! call, in the callee on top of what is live across the call (as if inlined, which is what
//! ptxas mostly does), plus [`FIXED`]. Liveness is computed on the lowered IR: a 64-bit value
//! takes two registers, a predicate none (predicates have a file of their own), a register is
//! live only where some definition may reach it, and a guarded definition kills a value only
//! where none reached it before. What ptxas does beyond allocating is modelled where it moves
//! the count most on real compiler output: warp-uniform values (parameters, grid sizes and
//! what is computed from them alone) live in uniform registers that the count leaves out
//! ([`uniform_regs`]); values one or two operations away from another live value are
//! recomputed rather than kept ([`remat_roots`]); IEEE division, square root and 64-bit
//! integer division expand to sequences with scratch registers ([`expansion`]), and runtime
//! calls (printf) follow the ABI ([`SYS_CALL`]). Not modelled: ptxas's scheduling, which hoists
//! loads and raises pressure in unrolled code. [`allocate`] then applies the limits ptxas
//! applies: `.maxnreg`, the JIT's `CU_JIT_MAX_REGISTERS` (both raised to ptxas's floor of
//! [`MIN_LIMIT`]) and the registers `.maxntid`/`.reqntid` with `.minnctapersm` leave a thread
//! ([`bound_limit`]), so a launch within the declared bounds always fits.
//!
//! `engine/tests/regs_corpus.rs` compares the estimate with `ptxas -v` over the PTX corpus.

use crate::ir::operands::{operands, successors, Operands};
use crate::ir::regset::RegSet as Set;
use crate::ir::{Inst, Loc, MSpace, Op, Program, Reg, SReg};

/// Registers a thread can have at most.
pub const MAX_REGS: u32 = 255;
/// The lowest register limit ptxas accepts from `-maxrregcount`, `CU_JIT_MAX_REGISTERS` or
/// `.maxnreg` for sm_80 through sm_100 ("adjusting per thread register count of 10 to lower
/// bound of 24", ptxas 13.5): a smaller limit is raised to it.
pub const MIN_LIMIT: u32 = 24;
/// 32-bit registers per SM (and per block) on every architecture the profiles emulate.
const REGS_PER_SM: u32 = 65536;
/// Registers per warp are allocated in units of 256 (8 per thread), and the warps of a block
/// are spread over the SM's 4 register file partitions (as the occupancy calculator models).
const REG_UNIT: u32 = 256;
const PARTITIONS: u32 = 4;
/// Registers ptxas uses beyond the values the program keeps: the ABI's stack pointer (R1),
/// registers for constants and addresses, the scratch registers of its instruction sequences
/// and what its scheduling adds. ptxas 13.5 gives an empty kernel 4 and one that stores
/// `%tid.x` through a pointer parameter 8 (1 per-thread word live here); 8 puts the median
/// ratio estimate / ptxas over the corpus at 0.95 (4 puts it near 0.8).
pub const FIXED: u32 = 8;

/// A kernel's declared bounds (its performance-tuning directives, ISA 11.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// `.maxnreg`.
    pub maxnreg: Option<u32>,
    /// Threads per block of `.maxntid` or `.reqntid` (the product of the dimensions).
    pub max_threads: Option<u32>,
    /// `.minnctapersm` (ptxas ignores it without `.maxntid` or `.reqntid`).
    pub min_blocks: Option<u32>,
}

impl Bounds {
    /// The bounds a kernel's directives declare (`("maxntid", [256, 1, 1])`, ...).
    pub fn from_directives(directives: &[(String, Vec<u64>)]) -> Bounds {
        let get = |name: &str| directives.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let threads = |v: &Vec<u64>| {
            let t = v.iter().fold(1u64, |a, &x| a.saturating_mul(x));
            t.min(u32::MAX as u64) as u32
        };
        let one = |v: &Vec<u64>| v.first().map(|&x| x.min(u32::MAX as u64) as u32);
        Bounds {
            maxnreg: get("maxnreg").and_then(one),
            max_threads: get("reqntid").or(get("maxntid")).map(threads),
            min_blocks: get("minnctapersm").and_then(one),
        }
    }
}

/// The most registers per thread that let `min_blocks` blocks of `threads` threads be
/// resident on one SM at once (the occupancy calculator's register rule: registers per warp in
/// units of [`REG_UNIT`], warps per partition out of a quarter of the register file). ptxas
/// targets this limit for `.maxntid`/`.reqntid` (with `.minnctapersm`, else one block): with
/// 200 live values it reports 64 registers for `.maxntid 1024`, 168 for `.maxntid 384`, 128
/// for `.maxntid 200 .minnctapersm 2` and 64 for `.maxntid 256 .minnctapersm 4` (ptxas 13.5,
/// sm_90). At least 1 (what no block size reaches).
pub fn bound_limit(threads: u32, min_blocks: u32) -> u32 {
    let warps = threads.div_ceil(32).max(1);
    let blocks = min_blocks.max(1);
    let fits = |r: u32| {
        let per_warp = (r * 32).div_ceil(REG_UNIT) * REG_UNIT;
        let per_block = per_warp * warps.div_ceil(PARTITIONS) * PARTITIONS;
        let per_partition = REGS_PER_SM / PARTITIONS / per_warp;
        per_block <= REGS_PER_SM && per_partition * PARTITIONS / warps >= blocks
    };
    (1..=MAX_REGS).rev().find(|&r| fits(r)).unwrap_or(1)
}

/// The register limit of a kernel: `.maxnreg` and the JIT option (each raised to
/// [`MIN_LIMIT`]), the launch bounds ([`bound_limit`]), and [`MAX_REGS`].
pub fn limit(bounds: &Bounds, jit_max: Option<u32>) -> u32 {
    let mut l = MAX_REGS;
    for m in [bounds.maxnreg, jit_max].into_iter().flatten() {
        l = l.min(m.max(MIN_LIMIT));
    }
    if let Some(t) = bounds.max_threads {
        l = l.min(bound_limit(t, bounds.min_blocks.unwrap_or(1)));
    }
    l
}

/// The registers a kernel whose code needs `estimate` gets under `bounds` and the JIT option.
pub fn allocate(estimate: u32, bounds: &Bounds, jit_max: Option<u32>) -> u32 {
    estimate.clamp(1, limit(bounds, jit_max))
}

/// The 32-bit registers the program's code needs per thread (see the module documentation),
/// at most [`MAX_REGS`].
pub(crate) fn estimate(p: &Program) -> u32 {
    let n = p.funcs.len();
    let table = Table::new(p);
    let mut uniform = uniform_regs(p, &table);
    // The uniform datapath has integer operations only: a floating-point result takes a
    // per-thread register even when every lane holds the same value (numba's
    // func_with_lots_of_registers keeps twenty such loop-carried values: ptxas 70 registers).
    for (pc, info) in p.info.iter().enumerate().take(p.insts.len()) {
        if float_arith(&info.name) {
            for &d in table.defs(pc) {
                uniform[d as usize] = false;
            }
        }
    }
    let mut slot = vec![u32::MAX; p.nregs as usize];
    let locals: Vec<Local> = (0..n)
        .map(|f| local_pressure(p, f, &table, &uniform, &mut slot))
        .collect();
    // Each function's need with its callees': depth first, a call back into a function being
    // computed (recursion) adding only what is live across the call.
    let mut memo: Vec<Option<u32>> = vec![None; n];
    let mut on_stack = vec![false; n];
    fn need(
        f: usize,
        locals: &[Local],
        p: &Program,
        memo: &mut Vec<Option<u32>>,
        on_stack: &mut Vec<bool>,
    ) -> u32 {
        if let Some(v) = memo[f] {
            return v;
        }
        if on_stack[f] {
            return 0;
        }
        on_stack[f] = true;
        let mut v = locals[f].max;
        for &(site, across) in &locals[f].calls {
            let callee = (p.sites[site as usize].callees.iter())
                .map(|&c| need(c as usize, locals, p, memo, on_stack))
                .max()
                .unwrap_or(0);
            v = v.max(across + callee);
        }
        on_stack[f] = false;
        memo[f] = Some(v);
        v
    }
    let words = need(0, &locals, p, &mut memo, &mut on_stack);
    (words + FIXED).min(MAX_REGS)
}

/// The pressure of one function on its own: the most words live at once, and per call site
/// the words live across it.
struct Local {
    max: u32,
    calls: Vec<(u32, u32)>,
}

/// The operands of every instruction of a program, flat (one allocation for all).
struct Table {
    uses: Vec<Reg>,
    defs: Vec<Reg>,
    /// Where each instruction's uses and definitions start (one more entry than instructions).
    use_at: Vec<u32>,
    def_at: Vec<u32>,
    /// The function each instruction belongs to.
    func_of: Vec<u32>,
}

impl Table {
    fn new(p: &Program) -> Table {
        let n = p.insts.len();
        let mut func_of = vec![0u32; n];
        for (fi, f) in p.funcs.iter().enumerate() {
            for pc in f.entry..=f.exit.min(n as u32 - 1) {
                func_of[pc as usize] = fi as u32;
            }
        }
        let mut t = Table {
            uses: Vec::with_capacity(2 * n),
            defs: Vec::with_capacity(n),
            use_at: Vec::with_capacity(n + 1),
            def_at: Vec::with_capacity(n + 1),
            func_of,
        };
        let mut o = Operands::default();
        for (pc, inst) in p.insts.iter().enumerate() {
            operands(p, t.func_of[pc] as usize, inst, &mut o);
            t.use_at.push(t.uses.len() as u32);
            t.def_at.push(t.defs.len() as u32);
            t.uses.extend_from_slice(&o.uses);
            t.defs.extend_from_slice(&o.defs);
        }
        t.use_at.push(t.uses.len() as u32);
        t.def_at.push(t.defs.len() as u32);
        t
    }
    fn uses(&self, pc: usize) -> &[Reg] {
        &self.uses[self.use_at[pc] as usize..self.use_at[pc + 1] as usize]
    }
    fn defs(&self, pc: usize) -> &[Reg] {
        &self.defs[self.def_at[pc] as usize..self.def_at[pc + 1] as usize]
    }
}

/// Registers (32-bit words) an ABI call of a runtime function takes beyond what is live
/// across it: ptxas 13.5 gives a kernel whose only other values are printf's arguments 24.
const SYS_CALL: u32 = 16;

/// Scratch words ptxas's expansion of an instruction needs beyond its operands: the IEEE
/// divisions, remainders, square roots and reciprocals are instruction sequences (a Newton
/// iteration with a slow path), 64-bit integer division a subroutine; the approximate
/// transcendental functions need a range-reduced temporary. By the PTX opcode.
fn expansion(name: &str) -> u32 {
    let op = name.split('.').next().unwrap_or("");
    if !matches!(
        op,
        "div" | "rem" | "sqrt" | "rcp" | "rsqrt" | "sin" | "cos" | "ex2" | "lg2" | "tanh"
    ) {
        return 0;
    }
    let has = |m: &str| name.split('.').skip(1).any(|w| w == m);
    let wide = has("f64") || has("s64") || has("u64") || has("b64");
    let approx = has("approx") || has("full");
    match op {
        "div" | "rem" if approx => 1,
        "div" | "rem" if wide => 12,
        "div" if has("f32") => 6,
        "div" | "rem" => 4,
        "sqrt" | "rcp" | "rsqrt" if wide => 8,
        "sqrt" | "rcp" | "rsqrt" if !approx => 4,
        "sin" | "cos" | "ex2" | "lg2" | "tanh" => 1,
        _ => 0,
    }
}

/// The live set of the pressure walk, with the words it holds: a rematerialisable value
/// ([`remat_roots`]) costs nothing while its root is live.
struct Tracker<'a> {
    live: Set,
    w: u32,
    /// Per root: words of the live values it can recompute.
    dep: Vec<u32>,
    /// Words of live values whose root is live too.
    disc: u32,
    weight: &'a [u32],
    root: &'a [Option<u32>],
}

impl Tracker<'_> {
    fn held(&self) -> u32 {
        self.w - self.disc
    }
    fn add(&mut self, r: u32) {
        if self.live.has(r) {
            return;
        }
        self.live.set(r);
        let wr = self.weight[r as usize];
        self.w += wr;
        if let Some(q) = self.root[r as usize] {
            self.dep[q as usize] += wr;
            if self.live.has(q) {
                self.disc += wr;
            }
        }
        self.disc += self.dep[r as usize];
    }
    fn remove(&mut self, r: u32) {
        self.live.unset(r);
        let wr = self.weight[r as usize];
        self.w -= wr;
        if let Some(q) = self.root[r as usize] {
            self.dep[q as usize] -= wr;
            if self.live.has(q) {
                self.disc -= wr;
            }
        }
        self.disc -= self.dep[r as usize];
    }
}

/// Values ptxas recomputes where they are used rather than keep in a register (or folds into
/// the using instruction: an address offset, a sign extension): those computed by one or two
/// register-to-register operations from a single other per-thread value (the root) and
/// uniform ones or constants. Such a value costs nothing where its root is live anyway: a
/// kernel that keeps `(int64)(tid + k * 128)` for k = 0..15 across a loop needs the 32 words
/// of the sixteen values in the PTX and one register under ptxas. Per register (local index):
/// its root, if rematerialisable.
fn remat_roots(insts: &[Inst], ops: &Ops) -> Vec<Option<u32>> {
    let n = ops.nregs;
    let mut defs = vec![0u32; n];
    for &r in &ops.defs {
        defs[r as usize] += 1;
    }
    // The single source of each single-definition value of a pure operation.
    let mut src: Vec<Option<u32>> = vec![None; n];
    for (i, inst) in insts.iter().enumerate() {
        let pure = matches!(
            inst.op,
            Op::Un { .. } | Op::Bin { .. } | Op::Ter { .. } | Op::Lane { .. } | Op::Cvt { .. }
        );
        let (u, d) = (ops.uses(i), ops.defs(i));
        if pure && inst.guard.is_none() && d.len() == 1 && defs[d[0] as usize] == 1 {
            if let [a] = u {
                if *a != d[0] {
                    src[d[0] as usize] = Some(*a);
                }
            }
        }
    }
    (0..n)
        .map(|r| {
            let s = src[r]?;
            // Two operations at most: one step further back when the source is derived too.
            Some(src[s as usize].filter(|&q| q as usize != r).unwrap_or(s))
        })
        .collect()
}

/// Functions whose basic blocks times registers live across blocks exceed this (the bits of
/// one set per block; the analysis keeps six such, 12 MiB at the limit) are measured by
/// [`intervals`] instead, which needs no sets.
const HUGE: u64 = 1 << 24;

/// The pressure of a huge function, cheaply: each register is taken live from its first to its
/// last mention in program order (no loop extension, so an underestimate inside loops).
fn intervals(insts: &[Inst], ops: &Ops, weight: &[u32]) -> Local {
    let mut first = vec![u32::MAX; weight.len()];
    let mut last = vec![0u32; weight.len()];
    for i in 0..insts.len() {
        for &r in ops.uses(i).iter().chain(ops.defs(i)) {
            first[r as usize] = first[r as usize].min(i as u32);
            last[r as usize] = i as u32;
        }
    }
    // +weight at the first mention, -weight after the last.
    let mut delta = vec![0i64; insts.len() + 1];
    for r in 0..weight.len() {
        if first[r] != u32::MAX {
            delta[first[r] as usize] += weight[r] as i64;
            delta[last[r] as usize + 1] -= weight[r] as i64;
        }
    }
    let (mut w, mut max, mut calls) = (0i64, 0i64, Vec::new());
    for (i, inst) in insts.iter().enumerate() {
        w += delta[i];
        max = max.max(w);
        if let Op::Call { site } = inst.op {
            calls.push((site, w.max(0) as u32));
        }
    }
    Local {
        max: max as u32,
        calls,
    }
}

/// Whether an instruction (`opcode.mods`) computes in floating point: any arithmetic, comparison
/// or conversion with a floating-point type among its modifiers. Moves, selects, loads and
/// stores only carry bits, which the uniform datapath can do.
fn float_arith(name: &str) -> bool {
    let mut parts = name.split('.');
    let op = parts.next().unwrap_or("");
    if matches!(
        op,
        "mov" | "selp" | "ld" | "ldu" | "st" | "shfl" | "prmt" | "slct"
    ) {
        return false;
    }
    parts.any(|m| {
        matches!(
            m,
            "f16" | "f16x2" | "bf16" | "bf16x2" | "f32" | "f64" | "tf32" | "f32x2"
        ) || m.starts_with("e4m3")
            || m.starts_with("e5m2")
    })
}

/// Whether a special register is the same for every thread of a warp (ptxas reads those into
/// uniform registers).
fn uniform_sreg(s: SReg) -> bool {
    !matches!(
        s,
        SReg::Tid(_)
            | SReg::Laneid
            | SReg::Warpid
            | SReg::Smid
            | SReg::LanemaskEq
            | SReg::LanemaskLe
            | SReg::LanemaskLt
            | SReg::LanemaskGe
            | SReg::LanemaskGt
            | SReg::Clock
            | SReg::Clock64
            | SReg::ClockHi
            | SReg::Globaltimer
    )
}

/// Registers whose value is the same in every thread of a warp and that ptxas keeps out of
/// the per-thread register file: kernel parameters (read from the constant bank as operands
/// or into uniform registers), warp-uniform special registers, constants, and arithmetic on
/// those alone. Since sm_75 ptxas gives such values uniform registers, which "Used N
/// registers" does not count: a grid-stride loop's bound, stride and base pointers cost no
/// per-thread register. A register defined more than once (a value merged from several
/// paths) counts as uniform only in a function without divergent branches, since a merge
/// after a branch some lanes take and others not differs between lanes.
fn uniform_regs(p: &Program, t: &Table) -> Vec<bool> {
    let n = p.nregs as usize;
    let mut defs = vec![0u32; n];
    for f in &p.funcs {
        for l in &f.params {
            if let Loc::Reg(r, _) = l {
                defs[*r as usize] += 2; // defined by every call: not uniform
            }
        }
    }
    for &d in &t.defs {
        defs[d as usize] += 1;
    }
    let mut uniform: Vec<bool> = defs.iter().map(|&d| d > 0).collect();
    let mut divergent = vec![false; p.funcs.len()];
    loop {
        let mut changed = false;
        for (pc, inst) in p.insts.iter().enumerate() {
            let all = t.uses(pc).iter().all(|&r| uniform[r as usize]);
            let f = t.func_of[pc] as usize;
            let kind = match &inst.op {
                Op::Un { .. }
                | Op::Bin { .. }
                | Op::Ter { .. }
                | Op::Quad { .. }
                | Op::Lane { .. }
                | Op::Setp { .. }
                | Op::Cvt { .. }
                | Op::Carry { .. }
                | Op::Pack { .. }
                | Op::Unpack { .. } => true,
                Op::Sreg { s, .. } => uniform_sreg(*s),
                Op::Ld { space, .. } => *space == MSpace::KParam,
                Op::Bra { .. } | Op::Brx { .. } => {
                    if !all && !divergent[f] {
                        divergent[f] = true;
                        changed = true;
                    }
                    continue;
                }
                _ => false,
            };
            for &d in t.defs(pc) {
                let u = kind && all && (defs[d as usize] == 1 || !divergent[f]);
                if !u && uniform[d as usize] {
                    uniform[d as usize] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            return uniform;
        }
    }
}

/// One function's operands in its own dense register numbering (only registers that take words):
/// first those live across basic blocks (`global` of them), then those that live and die
/// within one block, which the dataflow over blocks never needs to see.
struct Ops {
    uses: Vec<u32>,
    defs: Vec<u32>,
    use_at: Vec<u32>,
    def_at: Vec<u32>,
    /// Whether each definition kills the value (parallel to `defs`).
    kills: Vec<bool>,
    nregs: usize,
}

impl Ops {
    fn uses(&self, i: usize) -> &[u32] {
        &self.uses[self.use_at[i] as usize..self.use_at[i + 1] as usize]
    }
    fn defs(&self, i: usize) -> &[u32] {
        &self.defs[self.def_at[i] as usize..self.def_at[i + 1] as usize]
    }
    fn def_range(&self, i: usize) -> std::ops::Range<usize> {
        self.def_at[i] as usize..self.def_at[i + 1] as usize
    }
}

/// Liveness of one function and its pressure. `slot` (one entry per register of the program,
/// all `u32::MAX`) is scratch space, returned as it was given.
fn local_pressure(
    p: &Program,
    func: usize,
    t: &Table,
    uniform: &[bool],
    slot: &mut [u32],
) -> Local {
    let f = &p.funcs[func];
    let (start, end) = (f.entry, f.exit);
    let words = |r: Reg| {
        if uniform[r as usize] {
            return 0;
        }
        p.reg_words.get(r as usize).copied().unwrap_or(1) as u32
    };
    let insts = &p.insts[start as usize..=end as usize];
    let n = insts.len() as u32;
    // Basic blocks: leaders are the entry, branch targets and what follows a branch.
    let mut leader = vec![false; n as usize + 1];
    leader[0] = true;
    let mut succ = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        if matches!(
            inst.op,
            Op::Bra { .. } | Op::Brx { .. } | Op::Exit | Op::Trap | Op::Brkpt | Op::End
        ) {
            leader[i + 1] = true;
            successors(inst, start + i as u32, &mut succ);
            for &s in &succ {
                if (start..=end).contains(&s) {
                    leader[(s - start) as usize] = true;
                }
            }
        }
    }
    let mut block_of = vec![0u32; n as usize];
    let mut blocks: Vec<(u32, u32)> = Vec::new(); // [first, last] local pcs
    for i in 0..n {
        if leader[i as usize] {
            blocks.push((i, i));
        }
        blocks.last_mut().unwrap().1 = i;
        block_of[i as usize] = blocks.len() as u32 - 1;
    }
    let nb = blocks.len();
    let mut bsucc: Vec<Vec<u32>> = vec![Vec::new(); nb];
    let mut bpred: Vec<Vec<u32>> = vec![Vec::new(); nb];
    for (b, &(_, last)) in blocks.iter().enumerate() {
        successors(&insts[last as usize], start + last, &mut succ);
        for &s in &succ {
            if (start..=end).contains(&s) {
                let sb = block_of[(s - start) as usize];
                bsucc[b].push(sb);
                bpred[sb as usize].push(b as u32);
            }
        }
    }
    // The function's registers in order of first mention, and whether each lives within one
    // block: mentioned in no other block, first by a definition that kills (so never live
    // into the block).
    let mut regs: Vec<Reg> = Vec::new();
    let mut home: Vec<(u32, bool)> = Vec::new(); // (block, block-local so far)
    let mut mention = |r: Reg, b: u32, kill: bool, slot: &mut [u32]| {
        let k = slot[r as usize];
        if k == u32::MAX {
            slot[r as usize] = regs.len() as u32;
            regs.push(r);
            home.push((b, kill));
        } else if home[k as usize].0 != b {
            home[k as usize].1 = false;
        }
    };
    for &l in &f.params {
        if let Loc::Reg(r, _) = l {
            if words(r) > 0 {
                mention(r, u32::MAX, false, slot);
            }
        }
    }
    for i in 0..n as usize {
        let pc = start as usize + i;
        let b = block_of[i];
        let unguarded = insts[i].guard.is_none();
        for &r in t.uses(pc) {
            if words(r) > 0 {
                mention(r, b, false, slot);
            }
        }
        for &r in t.defs(pc) {
            if words(r) > 0 {
                mention(r, b, unguarded, slot);
            }
        }
    }
    // Final numbering: registers live across blocks first.
    let nregs = regs.len();
    let mut order: Vec<u32> = (0..nregs as u32).collect();
    order.sort_by_key(|&k| home[k as usize].1);
    let global = home.iter().filter(|h| !h.1).count();
    let mut weight = vec![0u32; nregs];
    for (idx, &k) in order.iter().enumerate() {
        let r = regs[k as usize];
        slot[r as usize] = idx as u32;
        weight[idx] = words(r);
    }
    let mut ops = Ops {
        uses: Vec::new(),
        defs: Vec::new(),
        use_at: Vec::with_capacity(n as usize + 1),
        def_at: Vec::with_capacity(n as usize + 1),
        kills: Vec::new(),
        nregs,
    };
    for i in 0..n as usize {
        let pc = start as usize + i;
        ops.use_at.push(ops.uses.len() as u32);
        ops.def_at.push(ops.defs.len() as u32);
        let keep = |r: &Reg| words(*r) > 0;
        ops.uses.extend(
            t.uses(pc)
                .iter()
                .filter(|r| keep(r))
                .map(|&r| slot[r as usize]),
        );
        ops.defs.extend(
            t.defs(pc)
                .iter()
                .filter(|r| keep(r))
                .map(|&r| slot[r as usize]),
        );
    }
    ops.use_at.push(ops.uses.len() as u32);
    ops.def_at.push(ops.defs.len() as u32);
    let params: Vec<u32> = (f.params.iter())
        .filter_map(|l| match l {
            Loc::Reg(r, _) if words(*r) > 0 => Some(slot[*r as usize]),
            _ => None,
        })
        .collect();
    for &r in &regs {
        slot[r as usize] = u32::MAX;
    }
    if nb as u64 * global as u64 > HUGE {
        return intervals(insts, &ops, &weight);
    }
    // Forward: registers (live across blocks) some definition may reach; the formals are
    // defined on entry.
    let g = global;
    let mut gen = vec![Set::new(g); nb];
    for (b, &(first, last)) in blocks.iter().enumerate() {
        for i in first..=last {
            for &d in ops.defs(i as usize) {
                if (d as usize) < g {
                    gen[b].set(d);
                }
            }
        }
    }
    let mut def_in = vec![Set::new(g); nb];
    for &r in &params {
        def_in[0].set(r);
    }
    let mut def_out: Vec<Set> = (0..nb)
        .map(|b| {
            let mut s = def_in[b].clone();
            s.union(&gen[b]);
            s
        })
        .collect();
    let mut scratch = Set::new(g);
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..nb {
            scratch.0.copy_from_slice(&def_in[b].0);
            for &q in &bpred[b] {
                scratch.union(&def_out[q as usize]);
            }
            if scratch != def_in[b] {
                std::mem::swap(&mut def_in[b], &mut scratch);
                def_out[b].union(&def_in[b]);
                changed = true;
            }
        }
    }
    drop(gen);
    // Which definitions kill: unguarded ones, and guarded ones no other definition reaches
    // (the register held nothing before them). A block-local register is defined before a
    // point of its block if an earlier instruction of the block defines it.
    ops.kills = vec![true; ops.defs.len()];
    let mut local_defined = vec![false; nregs - g];
    let mut cur = Set::new(g);
    for (b, &(first, last)) in blocks.iter().enumerate() {
        cur.0.copy_from_slice(&def_in[b].0);
        for i in first..=last {
            let guarded = insts[i as usize].guard.is_some();
            for k in ops.def_range(i as usize) {
                let d = ops.defs[k];
                let before = if (d as usize) < g {
                    let h = cur.has(d);
                    cur.set(d);
                    h
                } else {
                    std::mem::replace(&mut local_defined[d as usize - g], true)
                };
                ops.kills[k] = !guarded || !before;
            }
        }
    }
    // Backward: registers live across blocks, cut to those some definition reaches.
    let mut uses = vec![Set::new(g); nb];
    let mut killed = vec![Set::new(g); nb];
    for (b, &(first, last)) in blocks.iter().enumerate() {
        for i in (first..=last).rev() {
            for k in ops.def_range(i as usize) {
                let r = ops.defs[k];
                if (r as usize) < g && ops.kills[k] {
                    uses[b].unset(r);
                    killed[b].set(r);
                }
            }
            for &r in ops.uses(i as usize) {
                if (r as usize) < g {
                    uses[b].set(r);
                }
            }
        }
    }
    let mut live_in = uses.clone();
    let mut live_out = vec![Set::new(g); nb];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb).rev() {
            scratch.0.iter_mut().for_each(|w| *w = 0);
            for &s in &bsucc[b] {
                scratch.union(&live_in[s as usize]);
            }
            for (o, d) in scratch.0.iter_mut().zip(&def_out[b].0) {
                *o &= d;
            }
            if scratch != live_out[b] {
                std::mem::swap(&mut live_out[b], &mut scratch);
                let inn = &mut live_in[b];
                for (((i, o), k), u) in (inn.0.iter_mut())
                    .zip(&live_out[b].0)
                    .zip(&killed[b].0)
                    .zip(&uses[b].0)
                {
                    *i = u | (o & !k);
                }
                changed = true;
            }
        }
    }
    // Values ptxas recomputes instead of keeping: see `remat_roots`.
    let root = remat_roots(insts, &ops);
    // Pressure: walk each block backward from its live-out set. The tracker is empty between
    // blocks: block-local registers die at their first definition, the rest are removed.
    let mut max = 0u32;
    let mut calls = Vec::new();
    let mut tr = Tracker {
        live: Set::new(nregs),
        w: 0,
        dep: vec![0; nregs],
        disc: 0,
        weight: &weight,
        root: &root,
    };
    for (b, &(first, last)) in blocks.iter().enumerate() {
        for r in live_out[b].iter() {
            tr.add(r);
        }
        for i in (first..=last).rev() {
            let (u, d) = (ops.uses(i as usize), ops.defs(i as usize));
            match &insts[i as usize].op {
                Op::Call { site } => calls.push((*site, tr.held())),
                // An ABI call of the runtime (vprintf, malloc, free, __assertfail): its
                // arguments and what the callee itself uses ([`SYS_CALL`]).
                Op::Sys { .. } => max = max.max(tr.held() + SYS_CALL),
                _ => {}
            }
            // Results are written while the live values are held; a dead result still takes
            // a register for the moment.
            let dead: u32 = (d.iter())
                .filter(|&&r| !tr.live.has(r))
                .map(|&r| weight[r as usize])
                .sum();
            let pc = (start + i) as usize;
            max = max.max(tr.held() + dead + expansion(p.info[pc].name.as_str()));
            for k in ops.def_range(i as usize) {
                let r = ops.defs[k];
                if ops.kills[k] && tr.live.has(r) {
                    tr.remove(r);
                }
            }
            for &r in u {
                tr.add(r);
            }
            max = max.max(tr.held());
        }
        let left: Vec<u32> = tr.live.iter().collect();
        for r in left {
            tr.remove(r);
        }
    }
    Local { max, calls }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits ptxas 13.5 applied (sm_90) to a kernel with 200 live f32 values (it needs
    /// 206 registers unbounded), for the bounds named.
    #[test]
    fn bound_limits_match_ptxas() {
        for (threads, blocks, ptxas) in [
            (1024, 1, 64),
            (1000, 1, 64),
            (384, 1, 168),
            (96, 1, 255),
            (256, 4, 64),
            (128, 3, 168),
            (200, 2, 128),
        ] {
            assert_eq!(bound_limit(threads, blocks), ptxas, "{threads} x {blocks}");
        }
        // And what fits 512 and 768 threads (ptxas chose fewer there: it spilled anyway).
        assert_eq!(bound_limit(512, 1), 128);
        assert_eq!(bound_limit(768, 1), 80);
    }

    #[test]
    fn limits_of_maxnreg_and_jit_option() {
        let none = Bounds::default();
        assert_eq!(limit(&none, None), 255);
        // ptxas: "adjusting per thread register count of 10 to lower bound of 24".
        assert_eq!(limit(&none, Some(10)), 24);
        assert_eq!(limit(&none, Some(38)), 38);
        let b = Bounds {
            maxnreg: Some(37),
            ..Bounds::default()
        };
        assert_eq!(allocate(206, &b, None), 37);
        assert_eq!(allocate(206, &b, Some(30)), 30);
        let b = Bounds::from_directives(&[("reqntid".into(), vec![32, 32, 1])]);
        assert_eq!(allocate(206, &b, None), 64);
        assert_eq!(allocate(20, &b, None), 20);
    }
}
