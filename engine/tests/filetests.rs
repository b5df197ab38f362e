//! File tests: every `.ptx` file under `tests/filetests/` is one case, whose leading `//`
//! comment lines say how to launch it, what to put in its parameters and buffers, and what must
//! come out (`tests/filetests/README.md` is the reference). One test runs them all, on every
//! execution tier, and lists every failure at the end rather than stopping at the first.
//!
//! `CUDA_SHIM_FILETEST=substring` runs only the files whose path (relative to
//! `tests/filetests/`) contains it.

use engine::{mem, ExecError, Kernel, LaunchConfig, Module};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An execution tier: one way of running a kernel. Every case runs on each and must give the
/// same results, so a new tier (a compiler, say) is one more line here.
struct Tier {
    name: &'static str,
    launch: Launch,
}

type Launch = fn(&Arc<Kernel>, &LaunchConfig, &[u8]) -> Result<(), ExecError>;

const TIERS: &[Tier] = &[Tier {
    name: "interp",
    launch: engine::launch,
}];

/// The printed IR of `kernel` (what `cuda-shim check --emit-ir` prints), which `ir:`
/// directives search, after the verifier has checked it.
fn ir_text(module: &Module, kernel: &str) -> Option<String> {
    let k = module.kernel(kernel)?;
    if let Err(e) = k.verify_ir() {
        return Some(format!("the IR fails verification: {e}"));
    }
    Some(k.ir_text())
}

/// Element types of parameters, buffers and expectations (`.bN` reads as `.uN`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    U(u32),
    S(u32),
    F16,
    Bf16,
    F32,
    F64,
}

impl Ty {
    fn parse(s: &str) -> Option<Ty> {
        let bits = |t: &str| match t {
            "8" | "16" | "32" | "64" => t.parse().ok(),
            _ => None,
        };
        Some(match s {
            "f16" => Ty::F16,
            "bf16" => Ty::Bf16,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            _ if s.starts_with('u') || s.starts_with('b') => Ty::U(bits(&s[1..])?),
            _ if s.starts_with('s') => Ty::S(bits(&s[1..])?),
            _ => return None,
        })
    }

    fn bytes(self) -> usize {
        match self {
            Ty::U(b) | Ty::S(b) => b as usize / 8,
            Ty::F16 | Ty::Bf16 => 2,
            Ty::F32 => 4,
            Ty::F64 => 8,
        }
    }

    fn mask(self) -> u64 {
        u64::MAX >> (64 - 8 * self.bytes())
    }

    fn name(self) -> String {
        match self {
            Ty::U(b) => format!("u{b}"),
            Ty::S(b) => format!("s{b}"),
            t => format!("{t:?}").to_lowercase(),
        }
    }

    /// `bits` in hex and as the typed value, for failure reports.
    fn show(self, bits: u64) -> String {
        let w = 2 * self.bytes();
        let value = match self {
            Ty::U(_) => bits.to_string(),
            Ty::S(b) => (((bits << (64 - b)) as i64) >> (64 - b)).to_string(),
            Ty::F16 => format!("{:?}", f16_value(bits as u16)),
            Ty::Bf16 => format!("{:?}", f32::from_bits((bits as u32) << 16)),
            Ty::F32 => format!("{:?}", f32::from_bits(bits as u32)),
            Ty::F64 => format!("{:?}", f64::from_bits(bits)),
        };
        format!("{bits:#0w$x} ({value})", w = w + 2)
    }

    /// The bits of one scalar literal (see the README for the forms).
    fn scalar(self, tok: &str) -> Result<u64, String> {
        if let Some(hex) = tok.strip_prefix("0x") {
            let v = u64::from_str_radix(hex, 16).map_err(|e| format!("'{tok}': {e}"))?;
            return if v & !self.mask() == 0 {
                Ok(v)
            } else {
                Err(format!("'{tok}' does not fit in {} bytes", self.bytes()))
            };
        }
        match self {
            Ty::U(_) | Ty::S(_) => {
                let v: i128 = tok.parse().map_err(|_| format!("'{tok}' is no integer"))?;
                let bits = 8 * self.bytes() as u32;
                if v < -(1i128 << (bits - 1)) || v >= 1i128 << bits {
                    return Err(format!("'{tok}' does not fit in {bits} bits"));
                }
                Ok(v as u64 & self.mask())
            }
            Ty::F16 | Ty::Bf16 => Err(format!("'{tok}': give {} values as 0x bits", self.name())),
            Ty::F32 => float(tok).map(|v| (v as f32).to_bits() as u64),
            Ty::F64 => float(tok).map(f64::to_bits),
        }
    }
}

/// A decimal float literal, `nan` or `[+-]inf`. The f32 case rounds the f64 parse again, which
/// is exact for every literal a test writes (they are short and exactly representable).
fn float(tok: &str) -> Result<f64, String> {
    match tok {
        "nan" => Ok(f64::NAN),
        "inf" | "+inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        _ => tok.parse().map_err(|_| format!("'{tok}' is no float")),
    }
}

fn f16_value(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let (e, f) = ((h >> 10) & 0x1f, (h & 0x3ff) as f64);
    match e {
        0 => sign * f * 2f64.powi(-24),
        31 if f == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + f / 1024.0) * 2f64.powi(e as i32 - 15),
    }
}

/// Elements of a value list: Some(bits), or None for `*` (don't care).
type Elems = Vec<Option<u64>>;

/// Parses a value list.
/// `list := item (',' item)* [',']`, `item := atom ['x' COUNT]`,
/// `atom := '(' list ')' | '*' | INT '..' INT | scalar`.
fn values(ty: Ty, text: &str) -> Result<Elems, String> {
    let mut toks = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_whitespace() || "(),*".contains(c) {
            if !word.is_empty() {
                toks.push(std::mem::take(&mut word));
            }
            if !c.is_whitespace() {
                toks.push(c.to_string());
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        toks.push(word);
    }
    let mut pos = 0;
    let v = list(ty, &toks, &mut pos)?;
    match toks.get(pos) {
        None => Ok(v),
        Some(t) => Err(format!("unexpected '{t}' in value list")),
    }
}

fn list(ty: Ty, toks: &[String], pos: &mut usize) -> Result<Elems, String> {
    let mut out = Vec::new();
    while *pos < toks.len() && toks[*pos] != ")" {
        let tok = toks[*pos].as_str();
        *pos += 1;
        let atom = match tok {
            "(" => {
                let inner = list(ty, toks, pos)?;
                if toks.get(*pos).map(String::as_str) != Some(")") {
                    return Err("unclosed '('".into());
                }
                *pos += 1;
                inner
            }
            "*" => vec![None],
            "," | "x" => return Err(format!("expected a value, found '{tok}'")),
            _ => match tok.split_once("..") {
                Some((a, b)) if matches!(ty, Ty::U(_) | Ty::S(_)) => {
                    let (a, b) = (int(a)?, int(b)?);
                    (a..b)
                        .map(|v| ty.scalar(&v.to_string()).map(Some))
                        .collect::<Result<_, _>>()?
                }
                _ => vec![Some(ty.scalar(tok)?)],
            },
        };
        if toks.get(*pos).map(String::as_str) == Some("x") {
            let n = toks.get(*pos + 1).ok_or("'x' needs a count")?;
            *pos += 2;
            for _ in 0..int(n)? {
                out.extend_from_slice(&atom);
            }
        } else {
            out.extend(atom);
        }
        match toks.get(*pos).map(String::as_str) {
            Some(",") => *pos += 1,
            None | Some(")") => {}
            Some(t) => return Err(format!("expected ',' before '{t}'")),
        }
    }
    Ok(out)
}

fn int(s: &str) -> Result<i64, String> {
    s.parse().map_err(|_| format!("'{s}' is no integer"))
}

/// One `// key [name[+offset]]: value` line of the header (continuation lines joined).
struct Directive {
    line: usize,
    key: String,
    name: Option<String>,
    offset: usize,
    value: String,
}

const KEYS: &str = "source kernel grid block shared cluster param buffer expect expect-error \
                    expect-load-error error-message error-prefix error-contains ir";

/// Reads one directive line's text (after `//`): ` key [name[+offset]]: value`.
fn directive(line: usize, text: &str) -> Result<Directive, String> {
    let bad = || format!("line {line}: not a directive (prose goes above '// source:')");
    let (head, value) = text
        .strip_prefix(' ')
        .and_then(|t| t.split_once(':'))
        .ok_or_else(bad)?;
    let (key, name) = match head.split_whitespace().collect::<Vec<_>>()[..] {
        [k] => (k, None),
        [k, n] => (k, Some(n.split_once('+').unwrap_or((n, "0")))),
        _ => return Err(bad()),
    };
    if !KEYS.split_whitespace().any(|k| k == key) {
        return Err(format!("line {line}: unknown directive '{key}'"));
    }
    let offset = match name {
        Some((_, off)) => off
            .parse()
            .map_err(|_| format!("line {line}: bad offset '+{off}'"))?,
        None => 0,
    };
    Ok(Directive {
        line,
        key: key.to_string(),
        name: name.map(|(n, _)| n.to_string()),
        offset,
        value: value.trim().to_string(),
    })
}

/// A device buffer: allocated with `init` before each launch, its address passed to the
/// kernel parameter of the same name.
struct Buffer {
    name: String,
    init: Vec<u8>,
}

/// `expect NAME+OFFSET: TYPE = values`.
struct Expect {
    line: usize,
    buffer: String,
    offset: usize,
    ty: Ty,
    values: Elems,
}

/// How an `error-*` line matches the error's text.
enum Match {
    Message,
    Prefix,
    Contains,
}

/// An expected error: its line, its kind's Debug name (or `*`) and the texts it must match.
struct Failure {
    line: usize,
    kind: String,
    texts: Vec<(usize, Match, String)>,
}

/// One file's case, from its header.
struct Case {
    kernel: Option<String>,
    config: LaunchConfig,
    /// Parameters given by value: (name, directive line, bytes).
    params: Vec<(String, usize, Vec<u8>)>,
    buffers: Vec<Buffer>,
    expects: Vec<Expect>,
    exec_error: Option<Failure>,
    load_error: Option<Failure>,
    /// `ir:` texts with their lines.
    ir: Vec<(usize, String)>,
}

/// The directives of the header (the leading `//` and blank lines): prose above `// source:`,
/// directives from it on, each continued by the `//  `-indented lines under it.
fn directives(lines: &[&str]) -> Result<Vec<Directive>, String> {
    let first = lines
        .iter()
        .position(|l| l.starts_with("// source:"))
        .unwrap_or(lines.len());
    // A directive among the prose would be ignored silently: refuse it.
    for (i, l) in lines[..first].iter().enumerate() {
        if let Some(Ok(d)) = l.strip_prefix("//").map(|t| directive(i + 1, t)) {
            return Err(format!(
                "line {}: '{}' above '// source:' is ignored",
                d.line, d.key
            ));
        }
    }
    let mut ds: Vec<Directive> = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(first) {
        match (l.strip_prefix("//"), ds.last_mut()) {
            (Some(t), Some(d)) if t.starts_with("  ") => {
                d.value = format!("{} {}", d.value, t.trim())
            }
            (Some(t), _) => ds.push(directive(i + 1, t)?),
            (None, _) => {}
        }
    }
    Ok(ds)
}

/// `{line:TEXT}` in `s`: the number of the first line of `body` (which starts at line
/// `first + 1`) containing TEXT, so messages naming a PTX line survive edits of the header.
fn line_refs(s: &str, body: &[&str], first: usize) -> Result<String, String> {
    let mut s = s.to_string();
    while let Some(at) = s.find("{line:") {
        let end = at + s[at..].find('}').ok_or("unclosed '{line:'")?;
        let needle = &s[at + 6..end];
        let n = body.iter().position(|l| l.contains(needle));
        let n = n.ok_or_else(|| format!("no line contains '{needle}'"))?;
        s.replace_range(at..=end, &(first + n + 1).to_string());
    }
    Ok(s)
}

/// `TYPE = values` (param, expect) or `TYPE[N] [= values]` (buffer).
fn typed(value: &str) -> Result<(Ty, Option<usize>, Elems), String> {
    let (t, v) = value.split_once('=').unwrap_or((value, ""));
    let (t, n) = match t.trim().split_once('[') {
        Some((t, n)) => {
            let n = n.strip_suffix(']').and_then(|n| n.parse().ok());
            (
                t,
                Some(n.ok_or_else(|| format!("bad element count in '{value}'"))?),
            )
        }
        None => (t.trim(), None),
    };
    let ty = Ty::parse(t).ok_or_else(|| format!("unknown type '{t}'"))?;
    Ok((ty, n, values(ty, v)?))
}

/// The little-endian bytes of `v`, which must hold no `*`.
fn bytes(ty: Ty, v: &[Option<u64>]) -> Result<Vec<u8>, String> {
    let v: Option<Vec<u64>> = v.iter().copied().collect();
    let v = v.ok_or("'*' is only for expectations")?;
    Ok(v.iter()
        .flat_map(|b| b.to_le_bytes()[..ty.bytes()].to_vec())
        .collect())
}

fn dims(value: &str) -> Result<[u32; 3], String> {
    let v: Result<Vec<u32>, _> = value.split(',').map(|s| s.trim().parse()).collect();
    match v.as_deref() {
        Ok(&[x]) => Ok([x, 1, 1]),
        Ok(&[x, y]) => Ok([x, y, 1]),
        Ok(&[x, y, z]) => Ok([x, y, z]),
        _ => Err(format!("bad shape '{value}'")),
    }
}

/// Parses the header of `text` into a case.
fn parse(text: &str) -> Result<Case, String> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| !(l.trim().is_empty() || l.starts_with("//")));
    let header = header.unwrap_or(lines.len());
    let mut c = Case {
        kernel: None,
        config: LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared_bytes: 0,
            cluster: [1, 1, 1],
            explicit_cluster: false,
        },
        params: Vec::new(),
        buffers: Vec::new(),
        expects: Vec::new(),
        exec_error: None,
        load_error: None,
        ir: Vec::new(),
    };
    let mut source = false;
    let mut texts = Vec::new();
    for d in directives(&lines[..header])? {
        let at = |e: String| format!("line {}: {e}", d.line);
        let name = || {
            d.name
                .clone()
                .ok_or_else(|| at(format!("'{}' needs a name", d.key)))
        };
        let failure = || Failure {
            line: d.line,
            kind: d.value.clone(),
            texts: Vec::new(),
        };
        let text = || line_refs(&d.value, &lines[header..], header).map_err(at);
        match d.key.as_str() {
            _ if d.value.is_empty() => return Err(at(format!("'{}' needs a value", d.key))),
            "source" => source = true,
            "kernel" => c.kernel = Some(d.value.clone()),
            "grid" => c.config.grid = dims(&d.value).map_err(at)?,
            "block" => c.config.block = dims(&d.value).map_err(at)?,
            "cluster" => {
                c.config.cluster = dims(&d.value).map_err(at)?;
                c.config.explicit_cluster = true;
            }
            "shared" => {
                let n = d.value.parse().map_err(|_| at("bad byte count".into()))?;
                c.config.dynamic_shared_bytes = n;
            }
            "param" => {
                let (ty, _, v) = typed(&d.value).map_err(at)?;
                c.params.push((name()?, d.line, bytes(ty, &v).map_err(at)?));
            }
            "buffer" => {
                let (ty, n, v) = typed(&d.value).map_err(at)?;
                let v = match (n, v.len()) {
                    (Some(n), 0) => vec![Some(0); n],
                    (Some(n), 1) => vec![v[0]; n],
                    (Some(n), len) if len != n => {
                        return Err(at(format!("{len} values for {n} elements")))
                    }
                    _ => v,
                };
                c.buffers.push(Buffer {
                    name: name()?,
                    init: bytes(ty, &v).map_err(at)?,
                });
            }
            "expect" => {
                let (ty, _, values) = typed(&d.value).map_err(at)?;
                let (line, offset) = (d.line, d.offset);
                c.expects.push(Expect {
                    line,
                    buffer: name()?,
                    offset,
                    ty,
                    values,
                });
            }
            "expect-error" => c.exec_error = Some(failure()),
            "expect-load-error" => c.load_error = Some(failure()),
            "error-message" => texts.push((d.line, Match::Message, text()?)),
            "error-prefix" => texts.push((d.line, Match::Prefix, text()?)),
            "error-contains" => texts.push((d.line, Match::Contains, text()?)),
            "ir" => c.ir.push((d.line, d.value.clone())),
            _ => unreachable!("a key of KEYS"),
        }
    }
    if !source {
        return Err("no '// source:' line: say where the expected values come from".into());
    }
    match (&mut c.exec_error, &mut c.load_error) {
        (Some(_), Some(_)) => return Err("both expect-error and expect-load-error".into()),
        (Some(f), None) | (None, Some(f)) => f.texts = texts,
        (None, None) if !texts.is_empty() => return Err("error-* lines but no error".into()),
        (None, None) => {}
    }
    // Every byte of an expected buffer is checked exactly once (`*` where it does not matter),
    // so a miscounted list is an error rather than a silently shorter check.
    for e in &c.expects {
        let b = c.buffers.iter().find(|b| b.name == e.buffer);
        let b = b.ok_or_else(|| format!("line {}: no buffer '{}'", e.line, e.buffer))?;
        let end = e.offset + e.ty.bytes() * e.values.len();
        if end > b.init.len() {
            let n = b.init.len();
            return Err(format!(
                "line {}: expects {end} bytes of '{}', which has {n}",
                e.line, b.name
            ));
        }
    }
    for b in &c.buffers {
        let mut seen = vec![0u8; b.init.len()];
        let mine: Vec<&Expect> = c.expects.iter().filter(|e| e.buffer == b.name).collect();
        for e in &mine {
            let end = e.offset + e.ty.bytes() * e.values.len();
            seen[e.offset..end].iter_mut().for_each(|s| *s += 1);
        }
        if let Some(at) = seen
            .iter()
            .position(|&s| s != 1)
            .filter(|_| !mine.is_empty())
        {
            let n = seen[at];
            return Err(format!(
                "the expectations of '{}' cover byte {at} {n} times",
                b.name
            ));
        }
    }
    Ok(c)
}

/// Checks an error's kind (its Debug name) and text against the expected one.
fn check_error(want: &Failure, kind: String, text: &str, fails: &mut Vec<String>) {
    if want.kind != "*" && kind != want.kind {
        fails.push(format!(
            "line {}: expected error {}, got {kind}: {text}",
            want.line, want.kind
        ));
    }
    for (line, how, t) in &want.texts {
        let ok = match how {
            Match::Message => text == t,
            Match::Prefix => text.starts_with(t.as_str()),
            Match::Contains => text.contains(t.as_str()),
        };
        if !ok {
            let key = match how {
                Match::Message => "error-message",
                Match::Prefix => "error-prefix",
                Match::Contains => "error-contains",
            };
            fails.push(format!("line {line}: {key} '{t}' not met by: {text}"));
        }
    }
}

/// The kernel of the case, with every parameter given by name in the size it declares.
fn kernel_of(c: &Case, m: &Module) -> Result<Arc<Kernel>, Vec<String>> {
    let k = match (&c.kernel, m.kernels()) {
        (Some(k), _) => m
            .kernel(k)
            .ok_or_else(|| vec![format!("no kernel '{k}'")])?,
        (None, [k]) => k.clone(),
        (None, _) => return Err(vec!["several kernels: name one with '// kernel:'".into()]),
    };
    let mut fails = Vec::new();
    for p in &k.params {
        let buffer = c.buffers.iter().any(|b| b.name == p.name);
        match c.params.iter().find(|q| q.0 == p.name) {
            _ if buffer && p.size != 8 => {
                fails.push(format!("buffer '{}' is no 64-bit pointer", p.name))
            }
            _ if buffer => {}
            None => fails.push(format!("parameter '{}' is not given", p.name)),
            Some((_, line, b)) if b.len() != p.size => {
                let (n, size) = (b.len(), p.size);
                fails.push(format!(
                    "line {line}: '{}' is {size} bytes, given {n}",
                    p.name
                ))
            }
            Some(_) => {}
        }
    }
    let names = c
        .params
        .iter()
        .map(|q| &q.0)
        .chain(c.buffers.iter().map(|b| &b.name));
    for name in names.filter(|n| !k.params.iter().any(|p| &&p.name == n)) {
        fails.push(format!("kernel '{}' has no parameter '{name}'", k.name));
    }
    if fails.is_empty() {
        Ok(k)
    } else {
        Err(fails)
    }
}

/// Runs the case on one tier with fresh buffers; returns its failures.
fn run_on(tier: &Tier, c: &Case, kernel: &Arc<Kernel>) -> Vec<String> {
    let mut fails = Vec::new();
    let bufs: Vec<u64> = c
        .buffers
        .iter()
        .map(|b| {
            let p = mem::alloc(b.init.len().max(1) as u64).expect("device memory");
            // SAFETY: p is a fresh allocation of at least init.len() bytes.
            unsafe { std::ptr::copy_nonoverlapping(b.init.as_ptr(), p as *mut u8, b.init.len()) };
            p
        })
        .collect();
    let mut block = vec![0u8; kernel.param_bytes];
    for p in &kernel.params {
        let bytes = match c.buffers.iter().position(|b| b.name == p.name) {
            Some(i) => bufs[i].to_le_bytes().to_vec(),
            None => c.params.iter().find(|q| q.0 == p.name).unwrap().2.clone(),
        };
        block[p.offset..p.offset + p.size].copy_from_slice(&bytes);
    }
    match ((tier.launch)(kernel, &c.config, &block), &c.exec_error) {
        (Ok(()), Some(want)) => {
            fails.push(format!("line {}: ran, expected {}", want.line, want.kind))
        }
        (Err(e), Some(want)) => check_error(want, format!("{:?}", e.kind), &e.message, &mut fails),
        (Err(e), None) => fails.push(format!("launch failed ({:?}): {e}", e.kind)),
        (Ok(()), None) => {}
    }
    for e in &c.expects {
        let base = bufs[c.buffers.iter().position(|b| b.name == e.buffer).unwrap()];
        let size = e.ty.bytes();
        let mut bad = Vec::new();
        for (k, want) in e.values.iter().enumerate() {
            let at = e.offset + k * size;
            let mut got = [0u8; 8];
            // SAFETY: the buffer is live, and parse() checked that the element lies within it.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    (base + at as u64) as *const u8,
                    got.as_mut_ptr(),
                    size,
                )
            };
            let got = u64::from_le_bytes(got);
            if let Some(want) = want.filter(|&w| w != got) {
                // The index in the buffer read as the expectation's type, where the offset allows.
                let i = if e.offset % size == 0 {
                    format!("[{}]", at / size)
                } else {
                    format!("+{}[{k}]", e.offset)
                };
                bad.push(format!(
                    "  {}{i} (byte +{at}): expected {}, got {}",
                    e.buffer,
                    e.ty.show(want),
                    e.ty.show(got)
                ));
            }
        }
        if !bad.is_empty() {
            let n = bad.len();
            bad.truncate(8);
            if n > 8 {
                bad.push(format!("  ... and {} more", n - 8));
            }
            let (all, ty) = (e.values.len(), e.ty.name());
            fails.push(format!(
                "line {}: {n} of {all} {ty} elements differ\n{}",
                e.line,
                bad.join("\n")
            ));
        }
    }
    for p in bufs {
        mem::free(p).unwrap();
    }
    fails
        .into_iter()
        .map(|f| format!("[{}] {f}", tier.name))
        .collect()
}

/// Runs one file on every tier; returns its failures and notes (skipped checks).
fn run_file(path: &Path, text: &str, notes: &mut Vec<String>) -> Vec<String> {
    let c = match parse(text) {
        Ok(c) => c,
        Err(e) => return vec![e],
    };
    let file = path.file_name().unwrap().to_string_lossy();
    let m = match (Module::load(text, &file), &c.load_error) {
        (Err(e), Some(want)) => {
            let mut fails = Vec::new();
            check_error(want, format!("{:?}", e.kind), &e.to_string(), &mut fails);
            return fails;
        }
        (Ok(_), Some(want)) => {
            return vec![format!(
                "line {}: loaded, expected {}",
                want.line, want.kind
            )]
        }
        (Err(e), None) => return vec![format!("load failed: {e}")],
        (Ok(m), None) => m,
    };
    let kernel = match kernel_of(&c, &m) {
        Ok(k) => k,
        Err(fails) => return fails,
    };
    let mut fails = Vec::new();
    if let Some((line, _)) = c.ir.first() {
        match ir_text(&m, &kernel.name) {
            None => notes.push(format!(
                "line {line}: {} ir checks skipped (no printed IR yet)",
                c.ir.len()
            )),
            Some(ir) => {
                let mut from = 0;
                for (line, want) in &c.ir {
                    match ir[from..].find(want.as_str()) {
                        Some(at) => from += at + want.len(),
                        None => {
                            fails.push(format!("line {line}: ir '{want}' not found (in order)"))
                        }
                    }
                }
            }
        }
    }
    for tier in TIERS {
        fails.extend(run_on(tier, &c, &kernel));
    }
    fails
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

#[test]
fn filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .ptx files under {}", root.display());
    let filter = std::env::var("CUDA_SHIM_FILETEST").unwrap_or_default();
    let (mut ran, mut failed, mut notes) = (0, Vec::new(), Vec::new());
    for path in &files {
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        if !rel.contains(&filter) {
            continue;
        }
        ran += 1;
        let text = std::fs::read_to_string(path).unwrap();
        let mut n = Vec::new();
        let f = run_file(path, &text, &mut n);
        notes.extend(n.into_iter().map(|n| format!("{rel}: {n}")));
        if !f.is_empty() {
            failed.push(format!("tests/filetests/{rel}:\n  {}", f.join("\n  ")));
        }
    }
    for n in &notes {
        println!("skipped: {n}");
    }
    println!(
        "{ran} file tests on {} tier(s), {} failed",
        TIERS.len(),
        failed.len()
    );
    assert!(ran > 0, "CUDA_SHIM_FILETEST='{filter}' matches no file");
    let n = failed.len();
    assert!(
        failed.is_empty(),
        "{n} of {ran} file tests failed:\n{}",
        failed.join("\n")
    );
}
