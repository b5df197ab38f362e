//! Lowering of calls: which functions are reachable and re-entrant, their signatures and
//! formals, call sites with their arguments and results, and calls of the runtime's extern
//! functions (printf, malloc, assert).

use super::*;

/// Which functions of the module have their address taken (named outside the callee position
/// of a call, or in a variable initializer): the candidates of indirect calls. One pass over the
/// module; names that are not functions (registers, mostly) cost one hash lookup each.
pub(super) fn address_taken(m: &ast::Module, funcs: &HashMap<String, usize>) -> Vec<bool> {
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
pub(super) fn reentrant(
    m: &ast::Module,
    funcs: &HashMap<String, usize>,
    taken: &[bool],
) -> Vec<bool> {
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

#[derive(Clone, Copy)]
pub(super) enum Formal {
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

pub(super) struct Sig {
    params: Vec<Formal>,
    rets: Vec<Formal>,
}

impl<'a> Prog<'a> {
    pub(super) fn drain_queue(&mut self) -> R<()> {
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
    pub(super) fn finish_calls(
        &mut self,
        kernel: usize,
        taken: &[bool],
    ) -> (Vec<Func>, Vec<CallSite>) {
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
    pub(super) fn sig(&mut self, fi: usize) -> R<()> {
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
    pub(super) fn formal_scope(&self, fi: usize) -> FxMap<Name, Sym> {
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
    pub(super) fn call(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        m: &mut Mods,
    ) -> R<()> {
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
            if let Some(sc) = SysCall::by_name(name) {
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
    pub(super) fn vector_actual(
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
    pub(super) fn vector_mismatch(
        &self,
        fc: &FnCtx,
        i: &Instruction,
        o: &O,
        n: u8,
        bits: u32,
    ) -> R<()> {
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
    pub(super) fn vector_ret(
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
    pub(super) fn emit_call(
        &mut self,
        i: &Instruction,
        g: Option<(Reg, bool)>,
        site: CallSite,
    ) -> R<()> {
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
    pub(super) fn actual(
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
    pub(super) fn ret_dest(
        &mut self,
        fc: &FnCtx,
        i: &Instruction,
        r: &O,
        formal: Option<Formal>,
    ) -> R<Loc> {
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
    /// A call of a runtime-provided extern function: arguments are `.param` variables of the
    /// caller (read from local memory) or plain operands.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn sys_call(
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
        let want = call.arity();
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
                    // Whole: the device runtime takes `dim3` and structures by value.
                    Some(Sym::Local(off)) => SysArg::Local(off, size as u32),
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
}
