//! The stack a hardware ABI gives one activation of a device function, estimated from its PTX,
//! so that recursion is charged against the stack limit (CU_LIMIT_STACK_SIZE) as on a GPU.
//!
//! What ptxas puts in a function's frame ("N bytes stack frame" of `ptxas -v`): its `.local`
//! variables (charged apart, when [`crate::ir::Op::Frame`] allocates them) and the registers it
//! saves ("N bytes spill stores"): the return address and the callee-saved registers that hold
//! values across its calls; the sum rounded up to 8. Arguments and results travel in
//! registers, never on the stack. Measured with ptxas 13.5 (sm_80 and sm_90) on recursive
//! functions with 0, 2, 4 and 8 32-bit values and with 2 64-bit values live across their
//! calls, the spill stores are 12 + 4 x (32-bit registers live across a call) bytes: 12, 20,
//! 28, 44 and 28.
//!
//! The estimate of those registers: at the call that keeps the most, the ones whose live
//! range (first to last mention in program order, stretched over the loops it enters) spans
//! it and that are read, not first written, after it, in 32-bit words; predicates together as
//! one word; values ptxas rematerializes or takes from another register instead of saving
//! (constants, symbol addresses such as `__local_depot`, those plus a constant, copies and
//! `cvta` conversions) not at all. The charge leaves out the rounding, so that it stays at or
//! below ptxas's frame: on 25 recursive functions (those of tests/cuda, the ones above,
//! numba-cuda's fib) it is equal for 4 and below for the rest (ptxas keeps values in more registers than the
//! liveness needs, or keeps what the estimate sees as free); only functions that keep nothing
//! across a call they end with are charged 12 bytes where ptxas saves 4 (virtual destructors).

use crate::ptx::ast::{Function, Operand, Space, Statement};
use std::collections::HashMap;

/// Bytes one activation of `f` saves on the stack besides its `.local` variables (ptxas's
/// spill stores).
pub fn saved_bytes(f: &Function) -> u32 {
    let Some(body) = &f.body else { return 0 };
    let mut w = Walk::default();
    let formals: Vec<Decl> = (f.params.iter().chain(&f.ret_params))
        .filter(|p| p.space == Space::Reg)
        .map(|p| w.decl(&p.ty, p.vec, p.count))
        .collect();
    let mut scope: HashMap<String, Decl> = HashMap::new();
    let reg_formals = f
        .params
        .iter()
        .chain(&f.ret_params)
        .filter(|p| p.space == Space::Reg);
    for (p, d) in reg_formals.zip(formals) {
        scope.insert(p.name.clone(), d);
        // Defined on entry (position 0).
        w.mention((d.id, 0));
    }
    w.scopes.push(scope);
    w.body(body);
    12 + 4 * w.live_words_across_calls()
}

/// One `.reg` declaration: its id (its registers' size is `Walk::words[id]`) and how many
/// registers it declares (`%r<N>`).
#[derive(Clone, Copy)]
struct Decl {
    id: u32,
    count: Option<u32>,
}

/// A register: (declaration id, index in a `%r<N>` declaration).
type Key = (u32, u32);

#[derive(Default)]
struct Walk {
    scopes: Vec<HashMap<String, Decl>>,
    next_id: u32,
    /// Position of each instruction (and label) in program order.
    pos: u32,
    labels: HashMap<String, u32>,
    /// (position, label) of each branch.
    branches: Vec<(u32, String)>,
    calls: Vec<u32>,
    /// First and last position each register is mentioned at.
    range: HashMap<Key, (u32, u32)>,
    /// Each mention of a register in program order: its position, and whether it only
    /// writes the register (a definition that reads no earlier value).
    mentions: HashMap<Key, Vec<(u32, bool)>>,
    /// Per declaration, the size of each of its registers in 32-bit words (0: a predicate).
    words: Vec<u32>,
    /// Per register, its definitions: whether each is a rematerializable form, and the
    /// registers that form reads.
    defs: HashMap<Key, Vec<Option<Vec<Key>>>>,
}

impl Walk {
    fn decl(&mut self, ty: &str, vec: u32, count: Option<u32>) -> Decl {
        let words = match ty {
            "pred" => 0,
            _ => {
                let bits: u32 = (ty
                    .chars()
                    .filter(|c| c.is_ascii_digit())
                    .collect::<String>())
                .parse()
                .unwrap_or(32);
                (bits * vec.max(1)).div_ceil(32).max(1)
            }
        };
        let d = Decl {
            id: self.next_id,
            count,
        };
        self.next_id += 1;
        self.words.push(words);
        d
    }

    /// The register a name denotes in the current scope, if any.
    fn reg(&self, name: &str) -> Option<Key> {
        for s in self.scopes.iter().rev() {
            if let Some(d) = s.get(name) {
                if d.count.is_none() {
                    return Some((d.id, 0));
                }
            }
            // `%r12` from `%r<N>`: the longest declared prefix followed by digits.
            let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 {
                let (prefix, num) = name.split_at(name.len() - digits);
                if let Some(d) = s.get(prefix) {
                    if let (Some(n), Ok(i)) = (d.count, num.parse::<u32>()) {
                        if i < n {
                            return Some((d.id, i));
                        }
                    }
                }
            }
        }
        None
    }

    fn mention(&mut self, k: Key) {
        let p = self.pos;
        let r = self.range.entry(k).or_insert((p, p));
        r.1 = p;
    }

    /// The registers an operand names, in order.
    fn regs_of(&self, o: &Operand, out: &mut Vec<Key>) {
        match o {
            Operand::Name { name, .. } => out.extend(self.reg(name)),
            Operand::Addr { base: Some(b), .. } => out.extend(self.reg(b)),
            Operand::Index { index, .. } => self.regs_of(index, out),
            Operand::Vector(v) | Operand::List(v) | Operand::Tuple(v) => {
                v.iter().for_each(|x| self.regs_of(x, out))
            }
            Operand::Not(x) | Operand::Neg(x) => self.regs_of(x, out),
            Operand::Pair(a, b) => {
                self.regs_of(a, out);
                self.regs_of(b, out);
            }
            _ => {}
        }
    }

    /// For an instruction that writes register operand 0: whether it computes a value ptxas
    /// would rematerialize (a constant, a symbol's address, `cvta` of one, or one plus a
    /// constant), and from which registers.
    fn remat_form(&self, op: &str, ops: &[Operand]) -> Option<Vec<Key>> {
        let src = |o: &Operand| -> Option<Option<Key>> {
            match o {
                Operand::Int(_) | Operand::Float { .. } | Operand::SymOff { .. } => Some(None),
                Operand::Name { name, .. } => match self.reg(name) {
                    Some(k) => Some(Some(k)),
                    // A symbol (variable or function): its address is a constant.
                    None if !name.starts_with('%') => Some(None),
                    None => None, // a special register
                },
                _ => None,
            }
        };
        match (op, ops) {
            // A copy, or a conversion to or from the generic window (`cvta.to.global` is the
            // same address): ptxas uses the source, and saves that one if it must.
            ("mov" | "cvta", [_, a]) => src(a).map(|_| Vec::new()),
            ("add" | "sub", [_, a, b]) => {
                let (a, b) = (src(a)?, src(b)?);
                // Register plus constant (a symbol or an immediate); not register plus register.
                match (a, b) {
                    (Some(_), Some(_)) => None,
                    (a, b) => Some(a.into_iter().chain(b).collect()),
                }
            }
            _ => None,
        }
    }

    fn body(&mut self, st: &[Statement]) {
        self.scopes.push(HashMap::new());
        for s in st {
            match s {
                Statement::Var(v) if v.space == Space::Reg => {
                    let d = self.decl(&v.ty, v.vec, v.count);
                    self.scopes.last_mut().unwrap().insert(v.name.clone(), d);
                }
                Statement::Label(l, _) => {
                    self.labels.insert(l.clone(), self.pos);
                }
                Statement::Block(b) => self.body(b),
                Statement::Inst(i) => {
                    self.pos += 1;
                    let op = i.opcode.as_str();
                    // Operand 0 is the destination, unless it is an address (`st`, `cp.async`,
                    // `wmma.store`, `mbarrier.init`, ...) or the instruction writes no register
                    // (branches; calls, whose result list is counted as read here; barriers,
                    // whose operand 0 is a barrier number).
                    let writes = !matches!(
                        op,
                        "st" | "red" | "bra" | "brx" | "call" | "ret" | "exit" | "bar" | "barrier"
                    ) && !matches!(i.operands.first(), Some(Operand::Addr { .. }));
                    let mut defs = Vec::new();
                    let mut uses = Vec::new();
                    if let Some((g, _)) = &i.guard {
                        uses.extend(self.reg(g));
                    }
                    for (k, o) in i.operands.iter().enumerate() {
                        if k == 0 && writes {
                            self.regs_of(o, &mut defs);
                        } else {
                            self.regs_of(o, &mut uses);
                        }
                    }
                    for &k in &defs {
                        self.mention(k);
                        // A guarded write may keep the old value: it reads it too.
                        let only = i.guard.is_none() && !uses.contains(&k);
                        self.mentions.entry(k).or_default().push((self.pos, only));
                    }
                    for &k in &uses {
                        self.mention(k);
                        if !defs.contains(&k) {
                            self.mentions.entry(k).or_default().push((self.pos, false));
                        }
                    }
                    match op {
                        "call" => self.calls.push(self.pos),
                        "bra" | "brx" => {
                            for o in &i.operands {
                                if let Operand::Name { name, .. } = o {
                                    if self.reg(name).is_none() {
                                        self.branches.push((self.pos, name.clone()));
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                    if let ([k], true) = (defs.as_slice(), writes) {
                        let form = if i.guard.is_none() {
                            self.remat_form(op, &i.operands)
                        } else {
                            None
                        };
                        self.defs.entry(*k).or_default().push(form);
                    } else {
                        for k in defs {
                            self.defs.entry(k).or_default().push(None);
                        }
                    }
                }
                _ => {}
            }
        }
        self.scopes.pop();
    }

    fn live_words_across_calls(mut self) -> u32 {
        if self.calls.is_empty() {
            return 0;
        }
        // A value live into a loop stays live around it: stretch ranges that enter a loop
        // (a backward branch's target) to its end, until nothing changes (nested loops).
        let loops: Vec<(u32, u32)> = (self.branches.iter())
            .filter_map(|(b, l)| self.labels.get(l).map(|&t| (t, *b)))
            .filter(|&(t, b)| t < b)
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for r in self.range.values_mut() {
                for &(t, b) in &loops {
                    if r.0 <= t && r.1 > t && r.1 < b {
                        r.1 = b;
                        changed = true;
                    }
                }
            }
        }
        // Rematerializable registers: the least fixed point of "every definition is a
        // rematerializable form of rematerializable registers".
        let mut remat: std::collections::HashSet<Key> = Default::default();
        loop {
            let before = remat.len();
            for (k, defs) in &self.defs {
                if !remat.contains(k)
                    && defs.iter().all(|d| {
                        d.as_ref()
                            .is_some_and(|srcs| srcs.iter().all(|s| remat.contains(s)))
                    })
                {
                    remat.insert(*k);
                }
            }
            if remat.len() == before {
                break;
            }
        }
        // Live across call c: mentioned before it, and after it, where the next mention in
        // program order reads it (a write first kills it; none means a loop carries it back).
        let live_across = |k: &Key, first: u32, last: u32, c: u32| {
            first < c
                && c < last
                && self.mentions.get(k).is_none_or(|m| {
                    m.iter()
                        .find(|&&(p, _)| p > c)
                        .is_none_or(|&(_, only_writes)| !only_writes)
                })
        };
        // The call that keeps the most (ptxas reuses a callee-saved register for values that
        // are live across different calls).
        (self.calls.iter())
            .map(|&c| {
                let (mut words, mut preds) = (0, false);
                for (k, &(first, last)) in &self.range {
                    if remat.contains(k) || !live_across(k, first, last, c) {
                        continue;
                    }
                    match self.words[k.0 as usize] {
                        0 => preds = true,
                        n => words += n,
                    }
                }
                words + preds as u32
            })
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    //! Expected values: the "bytes spill stores" of `ptxas -v` 13.5 (sm_80 and sm_90) on the
    //! same functions (their frames hold no `.local` variables unless said), compiled by
    //! nvcc 13.5 from the CUDA C++ in each comment ("N bytes stack frame", no `.local`).
    use super::saved_bytes;
    use crate::ptx::parser;

    fn frame_of(src: &str, name: &str) -> u32 {
        let m = parser::parse(&format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n{src}"
        ))
        .unwrap_or_else(|e| panic!("{e:?}"));
        let f = m
            .functions
            .iter()
            .find(|f| f.name == name && f.body.is_some())
            .unwrap();
        saved_bytes(f)
    }

    /// `int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }`: ptxas 20 bytes (a
    /// 24-byte frame), keeping n and the first result in two registers. The estimate: one word
    /// across each call (n across the first, its result across the second), 12 + 4 = 16.
    #[test]
    fn int_fib_saves_two_registers() {
        let src = "
.func (.param .b32 func_retval0) fib(.param .b32 fib_param_0)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;
	ld.param.u32 	%r8, [fib_param_0];
	setp.lt.s32 	%p1, %r8, 2;
	@%p1 bra 	$L__BB0_2;
	add.s32 	%r4, %r8, -1;
	{
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r4;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0);
	ld.param.b32 	%r5, [retval0+0];
	}
	add.s32 	%r6, %r8, -2;
	{
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r6;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0);
	ld.param.b32 	%r7, [retval0+0];
	}
	add.s32 	%r8, %r7, %r5;
$L__BB0_2:
	st.param.b32 	[func_retval0+0], %r8;
	ret;
}";
        assert_eq!(frame_of(src, "fib"), 16);
        // The same with 64-bit values: ptxas gives 28 bytes for `long long fib(long long)` but
        // 20 for `double fib(double)`, whose PTX has the same shape (it reuses one register
        // pair): the estimate, 12 + 8, stays within both.
        let wide = src.replace(".b32 \t%r<9>", ".b64 \t%r<9>");
        assert_eq!(frame_of(&wide, "fib"), 20);
    }

    /// `void a0(int n) { if (n == 0) return; a0(n - 1); sink = 1; }` (nothing live across the
    /// call): 12 bytes (a 16-byte frame); `int a4(int n, int m, int p, int q)` keeping four
    /// values across its call: 28 bytes (a 32-byte frame).
    #[test]
    fn frame_grows_with_the_values_kept_across_calls() {
        let a0 = "
.global .align 4 .u32 sink;
.func _Z2a0i(
	.param .b32 _Z2a0i_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	ld.param.u32 	%r1, [_Z2a0i_param_0];
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_2;
	add.s32 	%r2, %r1, -1;
	mov.u32 	%r3, 1;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r2;
	call.uni 
	_Z2a0i, 
	(
	param0
	);
	} // callseq 0
	st.global.u32 	[sink], %r3;
$L__BB0_2:
	ret;
}";
        assert_eq!(frame_of(a0, "_Z2a0i"), 12);
        let a4 = "
.func  (.param .b32 func_retval0) _Z2a4iiii(
	.param .b32 _Z2a4iiii_param_0,
	.param .b32 _Z2a4iiii_param_1,
	.param .b32 _Z2a4iiii_param_2,
	.param .b32 _Z2a4iiii_param_3
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<17>;
	ld.param.u32 	%r3, [_Z2a4iiii_param_0];
	ld.param.u32 	%r4, [_Z2a4iiii_param_1];
	ld.param.u32 	%r5, [_Z2a4iiii_param_2];
	ld.param.u32 	%r6, [_Z2a4iiii_param_3];
	setp.eq.s32 	%p1, %r3, 0;
	mov.u32 	%r16, 0;
	@%p1 bra 	$L__BB3_2;
	add.s32 	%r8, %r3, -1;
	mul.lo.s32 	%r9, %r6, 7;
	mul.lo.s32 	%r10, %r5, 5;
	mul.lo.s32 	%r11, %r4, 3;
	{ // callseq 2, 0
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0+0], %r8;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r11;
	.param .b32 param2;
	st.param.b32 	[param2+0], %r10;
	.param .b32 param3;
	st.param.b32 	[param3+0], %r9;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z2a4iiii, 
	(
	param0, 
	param1, 
	param2, 
	param3
	);
	ld.param.b32 	%r12, [retval0+0];
	} // callseq 2
	xor.b32  	%r13, %r12, %r3;
	add.s32 	%r14, %r13, %r4;
	mul.lo.s32 	%r15, %r14, %r5;
	sub.s32 	%r16, %r15, %r6;
$L__BB3_2:
	st.param.b32 	[func_retval0+0], %r16;
	ret;
}";
        assert_eq!(frame_of(a4, "_Z2a4iiii"), 28);
    }

    /// `int walk(const int* next, int i) { if (i < 0) return 0; int r = walk(next, next[i]);
    /// return r * 31 + i; }`: ptxas 16 bytes (i kept; the result register, set to 0 before the
    /// branch, is written anew after the call, so it holds nothing across it).
    #[test]
    fn a_register_written_after_the_call_is_not_live_across_it() {
        let src = "
.func  (.param .b32 func_retval0) _Z4walkPKii(
	.param .b64 _Z4walkPKii_param_0,
	.param .b32 _Z4walkPKii_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<5>;
	ld.param.u64 	%rd1, [_Z4walkPKii_param_0];
	ld.param.u32 	%r3, [_Z4walkPKii_param_1];
	setp.lt.s32 	%p1, %r3, 0;
	mov.u32 	%r7, 0;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r3, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.u32 	%r5, [%rd4];
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r5;
	.param .b32 retval0;
	call.uni (retval0), 
	_Z4walkPKii, 
	(
	param0, 
	param1
	);
	ld.param.b32 	%r6, [retval0+0];
	} // callseq 0
	mad.lo.s32 	%r7, %r6, 31, %r3;
$L__BB0_2:
	st.param.b32 	[func_retval0+0], %r7;
	ret;
}";
        assert_eq!(frame_of(src, "_Z4walkPKii"), 16);
    }

    /// numba-cuda 0.30.4's `fib` (recursion_usecases.fib3, int64): ptxas reports a 64-byte
    /// frame, 16 of them its `.local` depot (charged apart) and 44 bytes of spills. Its
    /// `__local_depot` addresses and the constant 0 are rematerialized; the estimate keeps n and
    /// the result pointer across the first call, the pointer and the first result across the
    /// second: 12 + 4 x 4 = 28 (with the depot, 44 of the 64 bytes: fib(10), 10 deep, fits
    /// the 1024-byte stack as on a GPU).
    #[test]
    fn numba_fib_keeps_three_values() {
        let src = "
.weak .func  (.param .b32 func_retval0) fib(.param .b64 fib_param_0, .param .b64 fib_param_1);
.weak .func  (.param .b32 func_retval0) fib(
	.param .b64 fib_param_0,
	.param .b64 fib_param_1
)
{
	.local .align 8 .b8 	__local_depot1[16];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<16>;
	mov.u64 	%SPL, __local_depot1;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u64 	%rd3, [fib_param_0];
	ld.param.u64 	%rd4, [fib_param_1];
	add.u64 	%rd5, %SP, 0;
	add.u64 	%rd1, %SPL, 0;
	mov.u64 	%rd6, 0;
	st.local.u64 	[%rd1], %rd6;
	add.u64 	%rd7, %SP, 8;
	add.u64 	%rd2, %SPL, 8;
	st.local.u64 	[%rd2], %rd6;
	setp.lt.s64 	%p1, %rd4, 2;
	@%p1 bra 	$L__BB1_2;
	bra.uni 	$L__BB1_1;
$L__BB1_2:
	st.u64 	[%rd3], %rd4;
	bra.uni 	$L__BB1_3;
$L__BB1_1:
	add.s64 	%rd8, %rd4, -1;
	st.local.u64 	[%rd1], %rd6;
	{
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd5;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd8;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0, param1);
	ld.param.b32 	%r1, [retval0+0];
	}
	ld.local.u64 	%rd11, [%rd1];
	st.local.u64 	[%rd2], %rd6;
	add.s64 	%rd12, %rd4, -2;
	{
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd7;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd12;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0, param1);
	ld.param.b32 	%r2, [retval0+0];
	}
	ld.local.u64 	%rd14, [%rd2];
	add.s64 	%rd15, %rd14, %rd11;
	st.u64 	[%rd3], %rd15;
$L__BB1_3:
	mov.u32 	%r3, 0;
	st.param.b32 	[func_retval0+0], %r3;
	ret;
}";
        assert_eq!(frame_of(src, "fib"), 28);
    }

    /// A counter kept across a call inside a loop, though last mentioned before the call in
    /// program order, is live across it (the back edge).
    #[test]
    fn loops_keep_their_values_live_across_calls() {
        let src = "
.func f(.reg .b32 n)
{
	.reg .pred 	%p;
	.reg .b32 	%i;
	.reg .b32 	%x;
	mov.u32 	%i, 0;
	mov.u32 	%x, 7;
$L_top:
	setp.ge.u32 	%p, %i, n;
	@%p bra 	$L_done;
	add.u32 	%i, %i, 1;
	call f, (%x);
	bra.uni 	$L_top;
$L_done:
	ret;
}";
        // ptxas: 28 bytes. The estimate keeps %i (not rematerializable: it is also
        // incremented) and n (a `.reg` formal read at the loop top) across the call: 12 + 8
        // = 20; %x is a constant, the predicate is set anew before each use. Without the
        // back edge neither would count (12).
        assert_eq!(frame_of(src, "f"), 20);
    }
}
