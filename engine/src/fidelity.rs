//! Which executed instructions may give other bits than a GPU, and how often they ran: the
//! fidelity line of the shim's run summary (`CUDA_SHIM_STATS`).
//!
//! Two kinds of instruction qualify ([`judge`], the one place that decides):
//! - approximate math (`.approx`, and `div.full`, which the ISA defines by an error bound):
//!   the ISA gives a maximum error, not a result; the engine returns a value within it (most
//!   often the correctly rounded one), where a GPU's special-function unit returns its own;
//! - our readings where the ISA is silent on the bits: `cvt` with `.rs` (which random bits meet
//!   a discarded field wider than they are), `sust.p` and `sured.p` (the conversion to a
//!   surface's channel format, and which channel `sured.p` acts on).
//!
//! Counting is off unless [`start`] was called before a module was loaded: lowering then puts
//! an [`Op::Tally`](crate::ir::Op) before each such instruction, whose execution adds the
//! number of its active lanes to the instruction's counter. Without it nothing is emitted and
//! nothing is counted, so a run without the summary pays nothing.

use crate::ptx::ast::Instruction;
use crate::ptx::ast::Name;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Why an instruction's bits may differ from a GPU's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Approximate math: within the ISA's error bound, not necessarily the GPU's bits.
    Approximate,
    /// The engine's reading where the ISA does not say what the bits are.
    Reading,
}

/// Distinct instruction names counted; a program using more (it would need hundreds of
/// spellings of approximate math) has the rest counted under the last slot's name.
const SLOTS: usize = 256;

static COUNTING: AtomicBool = AtomicBool::new(false);
static COUNTS: [AtomicU64; SLOTS] = [const { AtomicU64::new(0) }; SLOTS];
/// The name and kind of each slot in use, in order of first lowering.
static NAMES: Mutex<Vec<(Name, Kind)>> = Mutex::new(Vec::new());

/// Switches counting on for the modules loaded from now on.
pub fn start() {
    COUNTING.store(true, Ordering::Relaxed);
}

/// Whether lowering should emit tallies.
pub(crate) fn counting() -> bool {
    COUNTING.load(Ordering::Relaxed)
}

/// Whether `i`'s result may differ from a GPU's, and why.
pub fn judge(i: &Instruction) -> Option<Kind> {
    let has = |m: &str| i.mods.iter().any(|x| x == m);
    match i.opcode.as_str() {
        "sqrt" | "rcp" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "tanh" | "div"
            if has("approx") || has("full") =>
        {
            Some(Kind::Approximate)
        }
        "cvt" if has("rs") => Some(Kind::Reading),
        "sust" | "sured" if has("p") => Some(Kind::Reading),
        _ => None,
    }
}

/// The counter slot of an instruction named `name` (its full name, e.g. `sin.approx.ftz.f32`).
pub(crate) fn slot(name: &Name, kind: Kind) -> u16 {
    let mut names = NAMES.lock();
    if let Some(k) = names.iter().position(|(n, _)| n == name) {
        return k as u16;
    }
    if names.len() < SLOTS {
        names.push((name.clone(), kind));
    }
    (names.len() - 1) as u16
}

/// Counts `lanes` executions of the instruction in `slot`.
#[inline]
pub(crate) fn tally(slot: u16, lanes: u32) {
    COUNTS[slot as usize].fetch_add(u64::from(lanes), Ordering::Relaxed);
}

/// Each counted instruction that ran: its name, kind and thread-executions, most frequent
/// first.
pub fn counts() -> Vec<(String, Kind, u64)> {
    let names = NAMES.lock();
    let mut out: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(k, (n, kind))| (n.to_string(), *kind, COUNTS[k].load(Ordering::Relaxed)))
        .filter(|r| r.2 > 0)
        .collect();
    out.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    out
}
