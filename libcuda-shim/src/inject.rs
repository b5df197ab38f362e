//! Fault injection: `CUDA_SHIM_INJECT` makes chosen driver calls fail, caps device memory, and
//! makes chosen kernel launches fault, so that a program's error handling can be tested without
//! provoking the errors for real.
//!
//! The value is a list of rules separated by `;` or newlines (`#` starts a comment), or the path
//! of a file holding them. Fields of a rule are separated by `:`:
//!
//! - `PATTERN:error=CODE[:nth=N|every=N|rate=P[:seed=S]]` — a driver call whose name matches
//!   PATTERN (`*` and `?` globs, matched against the name `cuGetProcAddress` knows, e.g.
//!   `cuMemAlloc`, and against the ABI symbol, e.g. `cuMemAlloc_v2`) returns CODE (a `CUresult`
//!   name with or without `CUDA_ERROR_`, or its number) instead of running: on every matching
//!   call, only on the Nth, on every Nth, or with probability P from a generator seeded by S
//!   (default 1), so a run repeats exactly. Counts are per rule, over all threads.
//! - `alloc-budget=SIZE` — device memory holds SIZE bytes (`K`, `M`, `G` suffixes are powers of
//!   1024): allocations past it fail with CUDA_ERROR_OUT_OF_MEMORY, and `cuMemGetInfo` reports
//!   it as the total. Module globals and the driver's own launch buffers count too.
//! - `kernel=PATTERN[:fault=KIND][:nth=N|every=N|rate=P[:seed=S]][:block=X,Y,Z][:thread=X,Y,Z]`
//!   — a launch of a kernel whose name matches PATTERN (the PTX name; a plain identifier also
//!   matches the C++ function of that name, e.g. `saxpy` matches `_Z5saxpyifPfS_`) faults
//!   instead of running, as if thread THREAD (default 0,0,0) of block BLOCK (default 0,0,0) had
//!   hit the fault: KIND is `illegal-address` (default), `misaligned`, `trap`, `assert`,
//!   `stack-overflow` (the per-thread stack: CUDA_ERROR_ILLEGAL_ADDRESS, as on a GPU),
//!   `hardware-stack` (the warp's call stack: CUDA_ERROR_HARDWARE_STACK_ERROR),
//!   `illegal-instruction` or `timeout`. The fault surfaces as a real one
//!   does: the launch itself succeeds, and the error (sticky, as these are on a GPU) is returned
//!   by the next synchronising call and every call after it. A rule whose block or thread lies
//!   outside a launch's shape does not fire for that launch (it still counts it).
//!
//! A bad rule is reported on stderr when the driver first reads the rules, and ignored. Each
//! injection is written to the trace (`CUDA_SHIM_TRACE`), with the rule that made it.

use crate::trace;
use abi::CUresult;
use engine::LaunchConfig;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// When a rule fires, among the calls (or launches) it matches.
#[derive(Debug)]
enum When {
    Always,
    Nth(u64),
    Every(u64),
    /// Probability per match, from a xorshift64* generator (its state).
    Rate(f64, Mutex<u64>),
}

impl When {
    /// Whether the `count`th match (from 1) fires.
    fn fires(&self, count: u64) -> bool {
        match self {
            When::Always => true,
            When::Nth(n) => count == *n,
            When::Every(n) => count.is_multiple_of(*n),
            When::Rate(p, state) => {
                let mut s = state.lock();
                *s ^= *s >> 12;
                *s ^= *s << 25;
                *s ^= *s >> 27;
                let x = s.wrapping_mul(0x2545_f491_4f6c_dd1d);
                ((x >> 11) as f64 / (1u64 << 53) as f64) < *p
            }
        }
    }
}

/// A kernel fault to inject, with the error a real one leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    IllegalAddress,
    Misaligned,
    Trap,
    Assert,
    StackOverflow,
    HardwareStack,
    IllegalInstruction,
    Timeout,
}

impl Fault {
    fn parse(s: &str) -> Option<Fault> {
        Some(match s {
            "illegal-address" => Fault::IllegalAddress,
            "misaligned" => Fault::Misaligned,
            "trap" => Fault::Trap,
            "assert" => Fault::Assert,
            "stack-overflow" => Fault::StackOverflow,
            "hardware-stack" => Fault::HardwareStack,
            "illegal-instruction" => Fault::IllegalInstruction,
            "timeout" => Fault::Timeout,
            _ => return None,
        })
    }

    /// The sticky error the real fault leaves in the context (cuda.h's descriptions). A thread
    /// running past its stack (`cudaLimitStackSize`) ends the launch with
    /// CUDA_ERROR_ILLEGAL_ADDRESS on a GPU (measured on an H100, driver 580.159:
    /// scripts/ground-truth/results/sanitizer-h100.txt), as the engine's real overflow does;
    /// CUDA_ERROR_HARDWARE_STACK_ERROR is the warp's hardware call stack overflowing (cuda-gdb's
    /// "Warp Hardware Stack Overflow").
    pub fn code(self) -> CUresult {
        match self {
            Fault::IllegalAddress => CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            Fault::Misaligned => CUresult::CUDA_ERROR_MISALIGNED_ADDRESS,
            Fault::Trap => CUresult::CUDA_ERROR_LAUNCH_FAILED,
            Fault::Assert => CUresult::CUDA_ERROR_ASSERT,
            Fault::StackOverflow => CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            Fault::HardwareStack => CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR,
            Fault::IllegalInstruction => CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
            Fault::Timeout => CUresult::CUDA_ERROR_LAUNCH_TIMEOUT,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Fault::IllegalAddress => "illegal address",
            Fault::Misaligned => "misaligned address",
            Fault::Trap => "trap",
            Fault::Assert => "assertion failure",
            Fault::StackOverflow => "stack overflow",
            Fault::HardwareStack => "hardware stack overflow",
            Fault::IllegalInstruction => "illegal instruction",
            Fault::Timeout => "timeout",
        }
    }
}

#[derive(Debug)]
struct CallRule {
    text: String,
    pattern: String,
    when: When,
    error: CUresult,
    count: AtomicU64,
}

#[derive(Debug)]
struct KernelRule {
    text: String,
    pattern: String,
    when: When,
    fault: Fault,
    block: [u32; 3],
    thread: [u32; 3],
    count: AtomicU64,
}

/// The parsed rules.
#[derive(Debug, Default)]
pub struct Rules {
    calls: Vec<CallRule>,
    kernels: Vec<KernelRule>,
    budget: Option<u64>,
}

static RULES: Lazy<Option<Rules>> = Lazy::new(|| {
    let value = std::env::var("CUDA_SHIM_INJECT").ok()?;
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    let text = if !value.contains(['=', ';', '\n']) {
        match std::fs::read_to_string(value) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("libcuda-shim: CUDA_SHIM_INJECT names no readable rule file ({value}: {e}); nothing is injected");
                return None;
            }
        }
    } else {
        value.to_string()
    };
    let (rules, complaints) = parse(&text);
    for c in complaints {
        eprintln!("libcuda-shim: CUDA_SHIM_INJECT: {c}");
    }
    Some(rules)
});

/// Parses a rule list (see the module documentation): the rules and one complaint per bad rule.
pub fn parse(text: &str) -> (Rules, Vec<String>) {
    let mut rules = Rules::default();
    let mut complaints = Vec::new();
    for raw in text.split([';', '\n']) {
        let rule = raw.split('#').next().unwrap_or("").trim();
        if rule.is_empty() {
            continue;
        }
        if let Err(e) = parse_rule(rule, &mut rules) {
            complaints.push(format!("rule {rule:?} ignored: {e}"));
        }
    }
    (rules, complaints)
}

fn parse_rule(rule: &str, rules: &mut Rules) -> Result<(), String> {
    let mut fields = rule.split(':').map(str::trim);
    let head = fields.next().unwrap_or("");
    if let Some(size) = head.strip_prefix("alloc-budget=") {
        if fields.next().is_some() {
            return Err("alloc-budget takes no other field".into());
        }
        rules.budget = Some(parse_size(size)?);
        return Ok(());
    }
    let (kernel, pattern) = match head.strip_prefix("kernel=") {
        Some(p) => (true, p),
        None => (false, head),
    };
    if pattern.is_empty() || pattern.contains('=') {
        return Err(
            "it must start with an entry-point pattern, kernel=PATTERN or alloc-budget=SIZE".into(),
        );
    }
    let (mut nth, mut every, mut rate, mut seed) = (None, None, None, 1u64);
    let (mut error, mut fault) = (None, None);
    let (mut block, mut thread) = ([0u32; 3], [0u32; 3]);
    for f in fields {
        let (key, value) = f
            .split_once('=')
            .ok_or_else(|| format!("field {f:?} is not KEY=VALUE"))?;
        let number = || {
            value
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("{key}={value:?} is not a positive number"))
        };
        match (key, kernel) {
            ("nth" | "launch", _) => nth = Some(number()?),
            ("every", _) => every = Some(number()?),
            ("rate", _) => {
                rate = Some(
                    value
                        .parse::<f64>()
                        .ok()
                        .filter(|p| (0.0..=1.0).contains(p))
                        .ok_or_else(|| format!("rate={value:?} is not a probability in [0, 1]"))?,
                )
            }
            ("seed", _) => {
                seed = value
                    .parse::<u64>()
                    .map_err(|_| format!("seed={value:?} is not a number"))?
            }
            ("error", false) => error = Some(parse_error(value)?),
            ("fault", true) => {
                fault = Some(Fault::parse(value).ok_or_else(|| {
                    format!(
                        "fault={value:?} is not one of illegal-address, misaligned, trap, \
                         assert, stack-overflow, hardware-stack, illegal-instruction, timeout"
                    )
                })?)
            }
            ("block", true) => block = parse_dim3(value)?,
            ("thread", true) => thread = parse_dim3(value)?,
            _ => return Err(format!("unknown field {key:?} for this kind of rule")),
        }
    }
    let when = match (nth, every, rate) {
        (None, None, None) => When::Always,
        (Some(n), None, None) => When::Nth(n),
        (None, Some(n), None) => When::Every(n),
        // xorshift needs a non-zero state.
        (None, None, Some(p)) => When::Rate(p, Mutex::new(seed.max(1))),
        _ => return Err("give at most one of nth, every and rate".into()),
    };
    if kernel {
        rules.kernels.push(KernelRule {
            text: rule.to_string(),
            pattern: pattern.to_string(),
            when,
            fault: fault.unwrap_or(Fault::IllegalAddress),
            block,
            thread,
            count: AtomicU64::new(0),
        });
    } else {
        rules.calls.push(CallRule {
            text: rule.to_string(),
            pattern: pattern.to_string(),
            when,
            error: error.ok_or("a call rule needs error=CODE")?,
            count: AtomicU64::new(0),
        });
    }
    Ok(())
}

fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let (digits, shift) = [
        ("kib", 10),
        ("mib", 20),
        ("gib", 30),
        ("k", 10),
        ("m", 20),
        ("g", 30),
    ]
    .iter()
    .find_map(|(suffix, shift)| lower.strip_suffix(suffix).map(|d| (d.to_string(), *shift)))
    .unwrap_or((lower.clone(), 0));
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .ok_or_else(|| format!("{t:?} is not a size (bytes, or with K, M or G)"))
}

fn parse_dim3(s: &str) -> Result<[u32; 3], String> {
    let mut d = [0u32; 3];
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{s:?} is not X[,Y[,Z]]"));
    }
    for (i, p) in parts.iter().enumerate() {
        d[i] = p.parse().map_err(|_| format!("{s:?} is not X[,Y[,Z]]"))?;
    }
    Ok(d)
}

/// A `CUresult` by name (`CUDA_ERROR_OUT_OF_MEMORY`, `OUT_OF_MEMORY`) or number.
fn parse_error(s: &str) -> Result<CUresult, String> {
    if let Ok(n) = s.parse::<u32>() {
        return Ok(CUresult(n));
    }
    let want = if s.starts_with("CUDA_") {
        s.to_string()
    } else {
        format!("CUDA_ERROR_{s}")
    };
    (0..1000u32)
        .map(CUresult)
        .find(|&r| crate::errors::name(r) == want)
        .ok_or_else(|| format!("error={s:?} is not a CUresult name or number"))
}

/// `*` and `?` glob match.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    match (pattern.first(), text.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            glob(&pattern[1..], text) || (!text.is_empty() && glob(pattern, &text[1..]))
        }
        (Some(b'?'), Some(_)) => glob(&pattern[1..], &text[1..]),
        (Some(p), Some(t)) if p == t => glob(&pattern[1..], &text[1..]),
        _ => false,
    }
}

/// The name `cuGetProcAddress` knows for an ABI symbol: without `_ptds`/`_ptsz` and `_vN`.
fn base_name(symbol: &str) -> &str {
    let s = symbol
        .strip_suffix("_ptds")
        .or_else(|| symbol.strip_suffix("_ptsz"))
        .unwrap_or(symbol);
    match s.rfind("_v") {
        Some(i) if s[i + 2..].chars().all(|c| c.is_ascii_digit()) && i + 2 < s.len() => &s[..i],
        _ => s,
    }
}

/// Whether a kernel pattern names this PTX kernel: a glob over its name, or a plain identifier
/// naming the C++ function the (Itanium-mangled) name encodes.
fn kernel_matches(pattern: &str, name: &str) -> bool {
    if glob(pattern.as_bytes(), name.as_bytes()) {
        return true;
    }
    let plain = !pattern.is_empty()
        && pattern
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    plain && name.starts_with(&format!("_Z{}{}", pattern.len(), pattern))
}

/// The error to return instead of running the call `symbol`, if a rule fires for it.
pub fn on_call(symbol: &'static str) -> Option<CUresult> {
    let rules = RULES.as_ref()?;
    let base = base_name(symbol);
    for r in &rules.calls {
        let p = r.pattern.as_bytes();
        if !glob(p, base.as_bytes()) && !glob(p, symbol.as_bytes()) {
            continue;
        }
        let n = r.count.fetch_add(1, Ordering::Relaxed) + 1;
        if r.when.fires(n) {
            trace::trace!(
                "injected {} into {symbol} (its call {n} matching rule {:?})",
                crate::errors::name(r.error),
                r.text
            );
            return Some(r.error);
        }
    }
    None
}

/// The device memory budget (`alloc-budget=SIZE`), if any.
pub fn budget() -> Option<u64> {
    RULES.as_ref()?.budget
}

/// An injected kernel fault: the sticky error and the report a real fault gives.
pub struct InjectedFault {
    pub code: CUresult,
    pub report: String,
}

/// The fault to report instead of running this launch, if a rule fires for it.
pub fn on_launch(kernel: &str, config: &LaunchConfig) -> Option<InjectedFault> {
    let rules = RULES.as_ref()?;
    for r in &rules.kernels {
        if !kernel_matches(&r.pattern, kernel) {
            continue;
        }
        let n = r.count.fetch_add(1, Ordering::Relaxed) + 1;
        if !r.when.fires(n) {
            continue;
        }
        let inside = (0..3).all(|i| r.block[i] < config.grid[i] && r.thread[i] < config.block[i]);
        if !inside {
            trace::trace!(
                "rule {:?} matches launch {n} of {kernel} but names a block or thread outside \
                 its shape; nothing injected",
                r.text
            );
            continue;
        }
        let [bx, by, bz] = r.block;
        let [tx, ty, tz] = r.thread;
        let report = format!(
            "{} in kernel '{kernel}' at block ({bx},{by},{bz}) thread ({tx},{ty},{tz}): injected \
             by CUDA_SHIM_INJECT rule {:?} (launch {n} of this kernel)",
            r.fault.describe(),
            r.text
        );
        trace::trace!("injected {}: {report}", crate::errors::name(r.fault.code()));
        return Some(InjectedFault {
            code: r.fault.code(),
            report,
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_and_fire_as_documented() {
        let (rules, complaints) = parse(
            "cuMemAlloc:nth=3:error=OUT_OF_MEMORY; cuMemcpy*:every=2:error=CUDA_ERROR_UNKNOWN\n\
             # a comment\n\
             cuStreamSynchronize:rate=0.5:seed=7:error=700\n\
             alloc-budget=64M\n\
             kernel=saxpy:fault=misaligned:nth=2:block=1:thread=5,0,0\n\
             cuInit:error=NOPE\n\
             kernel=k:fault=melt\n\
             cuMemFree:nth=1:every=2:error=UNKNOWN",
        );
        assert_eq!(complaints.len(), 3, "{complaints:?}");
        assert_eq!(rules.calls.len(), 3);
        assert_eq!(rules.kernels.len(), 1);
        assert_eq!(rules.budget, Some(64 << 20));
        let alloc = &rules.calls[0];
        assert_eq!(alloc.error, CUresult::CUDA_ERROR_OUT_OF_MEMORY);
        let fired: Vec<bool> = (1..=5).map(|n| alloc.when.fires(n)).collect();
        assert_eq!(fired, [false, false, true, false, false]);
        let every: Vec<bool> = (1..=4).map(|n| rules.calls[1].when.fires(n)).collect();
        assert_eq!(every, [false, true, false, true]);
        assert_eq!(rules.calls[2].error, CUresult::CUDA_ERROR_ILLEGAL_ADDRESS);
        // The seeded rate repeats exactly and fires about half the time.
        let runs: Vec<Vec<bool>> = (0..2)
            .map(|_| {
                let w = When::Rate(0.5, Mutex::new(7));
                (1..=1000).map(|n| w.fires(n)).collect()
            })
            .collect();
        assert_eq!(runs[0], runs[1]);
        let hits = runs[0].iter().filter(|&&b| b).count();
        assert!((400..600).contains(&hits), "{hits}");
        let k = &rules.kernels[0];
        assert_eq!(
            (k.fault, k.block, k.thread),
            (Fault::Misaligned, [1, 0, 0], [5, 0, 0])
        );
    }

    #[test]
    fn names_and_patterns() {
        assert_eq!(base_name("cuMemAlloc_v2"), "cuMemAlloc");
        assert_eq!(base_name("cuMemcpyHtoD_v2_ptds"), "cuMemcpyHtoD");
        assert_eq!(base_name("cuStreamSynchronize_ptsz"), "cuStreamSynchronize");
        assert_eq!(base_name("cuInit"), "cuInit");
        assert!(glob(b"cuMemcpy*", b"cuMemcpyHtoD"));
        assert!(glob(b"cu?emAlloc", b"cuMemAlloc"));
        assert!(!glob(b"cuMemcpy", b"cuMemcpyHtoD"));
        assert!(kernel_matches("saxpy", "_Z5saxpyifPfS_"));
        assert!(!kernel_matches("sax", "_Z5saxpyifPfS_"));
        assert!(kernel_matches("_Z5sax*", "_Z5saxpyifPfS_"));
        assert!(kernel_matches("vector_add", "vector_add"));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert_eq!(
            parse_error("CUDA_ERROR_NOT_READY"),
            Ok(CUresult::CUDA_ERROR_NOT_READY)
        );
        assert_eq!(parse_error("2"), Ok(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
    }
}
