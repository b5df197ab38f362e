//! What a program ran, for the person waiting on it: `CUDA_SHIM_STATS` (`cuda-shim run
//! --stats` / `--stats-json FILE`) prints at exit, per kernel, its launches, blocks, threads,
//! thread-instructions, time and the execution tier that ran it, then what the compiling tier
//! compiled and what it loaded from its on-disk cache (kernels and times), the device memory
//! peak and the bytes copied each way and set, and a fidelity line: which executed instructions may give
//! other bits than a GPU (approximate math, the engine's readings where the ISA is silent:
//! `engine::fidelity`) and how often they ran; `CUDA_SHIM_PROGRESS` (`--progress`) keeps a line on
//! stderr with the name and the share of blocks done of each launch running longer than a
//! second.
//!
//! Nothing is counted unless the summary was asked for ([`start`] switches the counters on):
//! counting a launch takes a lock and keeps its kernel alive until exit.

use crate::config::StatsOutput as Output;
use engine::{Kernel, LaunchConfig};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Which way a copy went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    HtoD,
    DtoH,
    DtoD,
    HtoH,
}

const DIRECTIONS: [(Direction, &str); 4] = [
    (Direction::HtoD, "host to device"),
    (Direction::DtoH, "device to host"),
    (Direction::DtoD, "device to device"),
    (Direction::HtoH, "host to host"),
];

/// Whether the counters count (`CUDA_SHIM_STATS` set).
static ON: AtomicBool = AtomicBool::new(false);

static COPIED: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];
static SET: AtomicU64 = AtomicU64::new(0);

/// One kernel's totals.
struct Row {
    kernel: Arc<Kernel>,
    launches: u64,
    blocks: u64,
    threads: u64,
    time: Duration,
}

/// Kernels launched so far, by the address of their `Kernel` (two modules' kernels of one
/// name are two rows).
static KERNELS: Lazy<Mutex<HashMap<usize, Row>>> = Lazy::new(Default::default);

/// Counts bytes copied.
pub fn copied(dir: Direction, bytes: usize) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    COPIED[dir as usize].fetch_add(bytes as u64, Ordering::Relaxed);
}

/// Counts bytes set by a memset.
pub fn set(bytes: usize) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    SET.fetch_add(bytes as u64, Ordering::Relaxed);
}

/// Records one launch of `kernel` that took `time`.
pub fn launched(kernel: &Arc<Kernel>, cfg: &LaunchConfig, time: Duration) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    let blocks = cfg.grid.iter().map(|&x| x as u64).product::<u64>();
    let per = cfg.block.iter().map(|&x| x as u64).product::<u64>();
    let mut k = KERNELS.lock();
    let row = k
        .entry(Arc::as_ptr(kernel) as usize)
        .or_insert_with(|| Row {
            kernel: kernel.clone(),
            launches: 0,
            blocks: 0,
            threads: 0,
            time: Duration::ZERO,
        });
    row.launches += 1;
    row.blocks += blocks;
    row.threads += blocks * per;
    row.time += time;
}

/// Starts what the configuration asks for: the summary at exit, the progress line.
pub fn start() {
    static STARTED: AtomicBool = AtomicBool::new(false);
    if STARTED.swap(true, Ordering::AcqRel) {
        return;
    }
    if *crate::config::stats() != Output::Off {
        ON.store(true, Ordering::Relaxed);
        // Before any module is loaded: the tallies are emitted when kernels are lowered.
        engine::fidelity::start();
        // SAFETY: registers a plain `extern "C" fn` to run at exit.
        unsafe { libc::atexit(at_exit) };
    }
    if crate::config::progress() {
        let _ = std::thread::Builder::new()
            .name("cuda-shim-progress".into())
            .spawn(progress_loop);
    }
}

extern "C" fn at_exit() {
    // Nothing may unwind out of an atexit handler.
    let _ = std::panic::catch_unwind(|| match crate::config::stats() {
        Output::Off => {}
        Output::Table => {
            let _ = std::io::stderr().lock().write_all(table().as_bytes());
        }
        Output::Json(path) => {
            if let Err(e) = std::fs::write(path, json()) {
                eprintln!("libcuda-shim: cannot write the statistics to {path}: {e}");
            }
        }
    });
}

/// The execution tier that ran a kernel: the interpreter, or (`CUDA_SHIM_JIT`) the compiling
/// tier with how many of the kernel's ops its compiled segments hold.
fn tier(k: &engine::Kernel) -> String {
    match (k.jit_mode(), k.jit_summary()) {
        (engine::jit::Mode::Off, _) | (_, None) => "interpreter".into(),
        (m, Some(s)) => {
            let total = k.ir_ops();
            let v = if m == engine::jit::Mode::Verify {
                ", verified"
            } else {
                ""
            };
            let from = if s.cached { ", cached" } else { "" };
            format!("jit {}/{total} ops{v}{from}", s.ops)
        }
    }
}

/// The compiling tier's work for the kernels that ran: kernels compiled and the time it took,
/// kernels whose code came from the on-disk cache, the time loading it took and the time
/// compiling it had taken; the checks its segments failed (runs handed to the interpreter) and
/// the segments switched off for failing them ([`engine::jit::MAX_FAILS`]); the back edges of
/// loops its code took without returning to the interpreter.
#[derive(Default)]
struct Compiled {
    compiled: u64,
    compile_s: f64,
    cached: u64,
    load_s: f64,
    saved_s: f64,
    stops: u64,
    off: usize,
    looped: u64,
}

fn compiled() -> Compiled {
    let k = KERNELS.lock();
    let mut c = Compiled::default();
    for s in k.values().filter_map(|r| r.kernel.jit_summary()) {
        if s.cached {
            c.cached += 1;
            c.load_s += s.ns as f64 * 1e-9;
            c.saved_s += s.compiled_ns as f64 * 1e-9;
        } else {
            c.compiled += 1;
            c.compile_s += s.ns as f64 * 1e-9;
        }
        c.stops += s.stops;
        c.off += s.off;
        c.looped += s.looped;
    }
    c
}

/// The compiling tier's line: what it compiled and what the cache gave.
fn compiled_line() -> String {
    let c = compiled();
    let dir = engine::jit::cache_dir().map_or("off (CUDA_SHIM_CACHE_DIR)".into(), |d| {
        d.display().to_string()
    });
    format!(
        "compiling tier: {} kernels compiled in {:.1} ms, {} loaded from the cache in {:.1} ms \
         (compiling them took {:.1} ms); {} failed checks, {} segments switched off; {} loop \
         back edges taken in compiled code; cache {dir}\n",
        c.compiled,
        c.compile_s * 1e3,
        c.cached,
        c.load_s * 1e3,
        c.saved_s * 1e3,
        c.stops,
        c.off,
        c.looped,
    )
}

/// Rows sorted by time, longest first.
#[allow(clippy::type_complexity)]
fn rows() -> Vec<(String, u64, u64, u64, u64, f64, String)> {
    let k = KERNELS.lock();
    let mut v: Vec<_> = k
        .values()
        .map(|r| {
            (
                r.kernel.name.clone(),
                r.launches,
                r.blocks,
                r.threads,
                r.kernel.executed.load(Ordering::Relaxed),
                r.time.as_secs_f64(),
                tier(&r.kernel),
            )
        })
        .collect();
    v.sort_by(|a, b| b.5.total_cmp(&a.5).then_with(|| a.0.cmp(&b.0)));
    v
}

/// The summary as a table.
pub fn table() -> String {
    let mut s = String::from("== libcuda-shim statistics\n");
    s += &format!(
        "{:<40} {:>9} {:>10} {:>12} {:>16} {:>11}  tier\n",
        "kernel", "launches", "blocks", "threads", "thread-instr", "time s"
    );
    for (name, launches, blocks, threads, instr, time, tier) in rows() {
        let shown = if name.len() > 40 {
            format!("{}...", &name[..37])
        } else {
            name
        };
        s += &format!(
            "{shown:<40} {launches:>9} {blocks:>10} {threads:>12} {instr:>16} {time:>11.3}  {tier}\n"
        );
    }
    s += &compiled_line();
    s += &format!("device memory peak: {} bytes\n", engine::mem::peak_used());
    for (d, name) in DIRECTIONS {
        s += &format!(
            "copied {name}: {} bytes\n",
            COPIED[d as usize].load(Ordering::Relaxed)
        );
    }
    s += &format!("memset: {} bytes\n", SET.load(Ordering::Relaxed));
    s += &fidelity_line();
    s
}

/// The fidelity line: the executed instructions whose bits may differ from a GPU's, each with
/// its thread-executions, grouped by why.
fn fidelity_line() -> String {
    use engine::fidelity::Kind;
    let counts = engine::fidelity::counts();
    if counts.is_empty() {
        return "fidelity: no approximate math and none of the engine's readings where the ISA \
                is silent ran; every instruction that ran has the ISA's exact result\n"
            .into();
    }
    let total: u64 = counts.iter().map(|c| c.2).sum();
    let group = |kind: Kind, why: &str| {
        let items: Vec<String> = counts
            .iter()
            .filter(|c| c.1 == kind)
            .map(|(name, _, n)| format!("{name} {n}"))
            .collect();
        (!items.is_empty()).then(|| format!("{} ({why})", items.join(", ")))
    };
    let parts: Vec<String> = [
        group(
            Kind::Approximate,
            "approximate: within the ISA's error bound, not necessarily a GPU's bits",
        ),
        group(
            Kind::Reading,
            "the engine's reading where the ISA is silent",
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    format!(
        "fidelity: {total} thread-executions may differ from a GPU's bits: {}\n",
        parts.join("; ")
    )
}

/// A JSON string literal.
fn quoted(t: &str) -> String {
    let mut s = String::from("\"");
    for c in t.chars() {
        match c {
            '"' => s += "\\\"",
            '\\' => s += "\\\\",
            c if (c as u32) < 0x20 => s += &format!("\\u{:04x}", c as u32),
            c => s.push(c),
        }
    }
    s + "\""
}

/// The summary as JSON: `{"kernels": [{"name", "launches", "blocks", "threads",
/// "thread_instructions", "seconds", "tier"}...], "device_memory_peak_bytes",
/// "jit": {"compiled", "compile_seconds", "cached", "load_seconds", "cached_compile_seconds",
/// "failed_checks", "segments_switched_off", "compiled_back_edges"},
/// "copied_bytes": {"host_to_device", ...}, "memset_bytes", "fidelity": [{"instruction",
/// "kind" ("approximate" or "reading"), "thread_executions"}...]}`.
pub fn json() -> String {
    let kernels: Vec<String> = rows()
        .into_iter()
        .map(|(name, launches, blocks, threads, instr, time, tier)| {
            format!(
                "{{\"name\": {}, \"launches\": {launches}, \"blocks\": {blocks}, \"threads\": \
                 {threads}, \"thread_instructions\": {instr}, \"seconds\": {time:.6}, \
                 \"tier\": \"{tier}\"}}",
                quoted(&name)
            )
        })
        .collect();
    let copied: Vec<String> = DIRECTIONS
        .iter()
        .map(|(d, name)| {
            format!(
                "\"{}\": {}",
                name.replace(' ', "_"),
                COPIED[*d as usize].load(Ordering::Relaxed)
            )
        })
        .collect();
    let fidelity: Vec<String> = engine::fidelity::counts()
        .into_iter()
        .map(|(name, kind, n)| {
            let kind = match kind {
                engine::fidelity::Kind::Approximate => "approximate",
                engine::fidelity::Kind::Reading => "reading",
            };
            format!(
                "{{\"instruction\": {}, \"kind\": \"{kind}\", \"thread_executions\": {n}}}",
                quoted(&name)
            )
        })
        .collect();
    let c = compiled();
    format!(
        "{{\"kernels\": [{}], \"jit\": {{\"compiled\": {}, \"compile_seconds\": {:.6}, \
         \"cached\": {}, \"load_seconds\": {:.6}, \"cached_compile_seconds\": {:.6}, \
         \"failed_checks\": {}, \"segments_switched_off\": {}, \"compiled_back_edges\": {}}}, \
         \"device_memory_peak_bytes\": {}, \"copied_bytes\": {{{}}}, \
         \"memset_bytes\": {}, \"fidelity\": [{}]}}\n",
        kernels.join(", "),
        c.compiled,
        c.compile_s,
        c.cached,
        c.load_s,
        c.saved_s,
        c.stops,
        c.off,
        c.looped,
        engine::mem::peak_used(),
        copied.join(", "),
        SET.load(Ordering::Relaxed),
        fidelity.join(", ")
    )
}

/// Redraws the progress line every quarter second while a launch older than a second runs,
/// and clears it when none does.
fn progress_loop() {
    let mut shown = false;
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let long: Vec<String> = engine::running()
            .into_iter()
            .filter(|p| p.started.elapsed() >= Duration::from_secs(1))
            .map(|p| {
                format!(
                    "{}: {}% of {} blocks, {:.0} s",
                    p.kernel,
                    p.done * 100 / p.total.max(1),
                    p.total,
                    p.started.elapsed().as_secs_f64()
                )
            })
            .collect();
        let mut err = std::io::stderr().lock();
        if !long.is_empty() {
            let _ = write!(err, "\r\x1b[K[cuda-shim] {}", long.join("; "));
            shown = true;
        } else if shown {
            let _ = write!(err, "\r\x1b[K");
            shown = false;
        }
        let _ = err.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_for_json() {
        assert_eq!(quoted("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
