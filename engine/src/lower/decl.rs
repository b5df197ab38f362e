//! Declarations: the layout of variables in their state spaces, shared and local memory,
//! register declarations, and the initial values of module variables.

use super::*;

/// Bytes of one element of a variable's type.
pub(super) fn elem_bytes(ty: &str) -> Option<u64> {
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

pub(super) fn flat_len(l: &[Init]) -> usize {
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

pub(super) fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)) * a.max(1)
}

/// The instructions of a function body, nested blocks included.
pub(super) fn count_insts(st: &[Statement]) -> usize {
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
pub(super) fn numbered(prefix: &str, k: u32) -> Name {
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

impl<'a> Prog<'a> {
    pub(super) fn layout_shared(&mut self, kidx: usize) -> R<()> {
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
    pub(super) fn alloc_local(&mut self, size: u64, align: u64) -> u32 {
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
    pub(super) fn declare(&mut self, fc: &mut FnCtx, v: &VarDecl) -> R<()> {
        // A huge parameterized declaration gets registers for the names the body uses only.
        let lazy = match v.count {
            Some(n) if v.space == AS::Reg && n > EAGER_REGS => Some(self.used_numbers(fc, v, n)),
            _ => None,
        };
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
                    Some(_) if lazy.is_some() => {
                        for k in lazy.unwrap() {
                            mk(self, scope, numbered(&v.name, k));
                        }
                    }
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
    /// The numbers `k < n` for which the function's body names `{v.name}k` (each once, in
    /// order), for a declaration too large to materialise whole.
    fn used_numbers(&self, fc: &mut FnCtx, v: &VarDecl, n: u32) -> Vec<u32> {
        let body = self.mc.m.functions[fc.fidx].body.as_deref().unwrap_or(&[]);
        let used = fc.used_names.get_or_insert_with(|| {
            let mut set = FxSet::default();
            names_in(body, &mut set);
            set
        });
        let mut ks: Vec<u32> = used
            .iter()
            .filter_map(|name| {
                let digits = name.strip_prefix(v.name.as_str())?;
                let k: u32 = digits.parse().ok()?;
                // `%r07` is not `%r7`: only the spelling the declaration defines.
                (k < n && numbered(&v.name, k) == *name).then_some(k)
            })
            .collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    }

    pub(super) fn lookup(&self, fc: &FnCtx, name: &str) -> Option<Sym> {
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

/// Parameterized register declarations (`%r<N>`) of more registers than this are materialised
/// lazily: only the names the function's body uses get a register. ptxas accepts counts up to
/// 2^31 and more; creating each would take gigabytes.
pub(super) const EAGER_REGS: u32 = 1 << 16;

/// Every name the statements use: operands' registers and symbols, and guards.
pub(super) fn names_in(st: &[Statement], out: &mut FxSet<Name>) {
    fn operand(o: &O, out: &mut FxSet<Name>) {
        match o {
            O::Name { name, .. } | O::SymOff { name, .. } => {
                out.insert(Name::new(name));
            }
            O::Addr {
                base: Some(name), ..
            } => {
                out.insert(name.clone());
            }
            O::Index { name, index } => {
                out.insert(Name::new(name));
                operand(index, out);
            }
            O::Vector(v) | O::List(v) | O::Tuple(v) => v.iter().for_each(|x| operand(x, out)),
            O::Not(x) | O::Neg(x) => operand(x, out),
            O::Pair(a, b) => {
                operand(a, out);
                operand(b, out);
            }
            _ => {}
        }
    }
    for s in st {
        match s {
            Statement::Inst(i) => {
                if let Some((g, _)) = &i.guard {
                    out.insert(Name::new(g));
                }
                i.operands.iter().for_each(|o| operand(o, out));
            }
            Statement::Block(b) => names_in(b, out),
            _ => {}
        }
    }
}
