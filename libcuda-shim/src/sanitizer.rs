//! The sanitizer on the CPU, modelled on compute-sanitizer's memcheck, racecheck, synccheck and
//! initcheck (`CUDA_SHIM_CHECK=memcheck[,leaks]`, `racecheck`, `synccheck` or `initcheck`,
//! `cuda-shim run --check memcheck [--leak-check full]`, `--check racecheck`, and so on).
//!
//! - Every global access is checked against the exact bytes of its allocation (a GPU lets a
//!   kernel touch the rest of the allocation's 256-byte granule; memcheck reports it), and freed
//!   memory is quarantined so an access through a dangling pointer is caught
//!   ([`engine::mem::set_checked`]).
//! - A kernel's bad access is reported as compute-sanitizer lays it out (the layout was recorded
//!   on an H100: `scripts/ground-truth/results/sanitizer-h100.txt`): kind, space and size, the
//!   kernel and its PTX line, thread and block, the address and where it lies relative to the
//!   nearest allocation; every faulting thread's, as compute-sanitizer reports them
//!   (`engine::exec::memcheck`: the launch runs on and fails with CUDA_ERROR_LAUNCH_FAILED),
//!   the first `--print-limit` of them printed and all counted. Other kernel faults are reported
//!   with their message.
//! - With `leaks`, device memory still allocated when its context is destroyed or reset, or when
//!   the process exits, is reported allocation by allocation, with a leak summary.
//! - racecheck: shared-memory accesses of two threads to the same bytes that nothing orders, at
//!   least one a write ([`engine::RaceReport`]; threads of one warp, atomics, asynchronous
//!   copies and a cluster's distributed shared memory included, see `engine::exec::race`),
//!   reported after each launch once per pair of instructions with the number of bytes in
//!   hazard, as compute-sanitizer's racecheck reports them: errors, and warnings for hazards
//!   within a warp.
//! - synccheck: an aligned CTA barrier reached by part of a warp, and a warp barrier executed
//!   by a thread outside its membermask ([`engine::SyncReport`]), reported after the launch with
//!   one error per thread, as compute-sanitizer's synccheck counts them; the launch fails.
//! - initcheck: kernel loads of device memory nothing wrote since it was allocated
//!   ([`engine::InitReport`]: each new allocation is filled with a pattern the engine recognises,
//!   see `engine::exec::initcheck`), reported after the launch once per instruction and
//!   allocation, counted per thread.
//! - At exit an error summary is printed, and the count is written to `CUDA_SHIM_CHECK_REPORT`
//!   (the launcher turns it into its exit status).
//!
//! - memcheck reports the driver calls that fail as compute-sanitizer reports failed API calls
//!   ([`api_error`]): under the name of the CUDA runtime function the program called.
//!
//! What differs from compute-sanitizer: locations are PTX lines, not SASS offsets and source
//! lines; a host frame is named by its symbol, not by its source line.

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static ERRORS: AtomicU64 = AtomicU64::new(0);
static STARTED: AtomicBool = AtomicBool::new(false);

/// Device allocations the program made and has not freed, base -> (size, context), kept while
/// leaks are checked.
static LIVE: Mutex<BTreeMap<u64, (u64, usize)>> = Mutex::new(BTreeMap::new());
static LEAKED: Mutex<(u64, u64)> = Mutex::new((0, 0));

fn on() -> bool {
    crate::config::check().memcheck
}

fn racecheck_on() -> bool {
    crate::config::check().racecheck
}

fn synccheck_on() -> bool {
    crate::config::check().synccheck
}

fn initcheck_on() -> bool {
    crate::config::check().initcheck
}

/// Racecheck's hazards reported as errors and as warnings.
static RACES: AtomicU64 = AtomicU64::new(0);
static RACE_WARNINGS: AtomicU64 = AtomicU64::new(0);

fn leaks_on() -> bool {
    crate::config::check().leaks
}

/// Called once at `cuInit`: turns the engine's memory checking on and prints the banner.
pub fn start() {
    if !(on() || racecheck_on() || synccheck_on() || initcheck_on())
        || STARTED.swap(true, Ordering::AcqRel)
    {
        return;
    }
    if on() {
        engine::mem::set_checked(true);
        emit(&["LIBCUDA-SHIM MEMCHECK".to_string()]);
    }
    if racecheck_on() {
        engine::set_racecheck(true);
        emit(&["LIBCUDA-SHIM RACECHECK".to_string()]);
    }
    if synccheck_on() {
        engine::set_synccheck(true);
        emit(&["LIBCUDA-SHIM SYNCCHECK".to_string()]);
    }
    if initcheck_on() {
        engine::set_initcheck(true);
        emit(&["LIBCUDA-SHIM INITCHECK".to_string()]);
    }
    // SAFETY: registers a plain `extern "C" fn` to run at exit.
    unsafe { libc::atexit(at_exit) };
}

/// Writes report lines, each with the `========= ` prefix compute-sanitizer uses, in one write:
/// to stderr, or to the file `CUDA_SHIM_CHECK_LOG` names (compute-sanitizer's `--log-file`).
fn emit(lines: &[String]) {
    let mut s = String::new();
    for l in lines {
        s.push_str("========= ");
        s.push_str(l);
        s.push('\n');
    }
    static LOG: once_cell::sync::Lazy<Option<Mutex<std::fs::File>>> =
        once_cell::sync::Lazy::new(|| {
            let pattern = std::env::var("CUDA_SHIM_CHECK_LOG").ok()?;
            let path = log_path(&pattern, std::process::id(), &program_name(), |v| {
                std::env::var(v).ok()
            });
            match std::fs::File::create(&path) {
                Ok(f) => Some(Mutex::new(f)),
                Err(e) => {
                    eprintln!("libcuda-shim: CUDA_SHIM_CHECK_LOG: cannot create {path}: {e}");
                    None
                }
            }
        });
    match &*LOG {
        Some(f) => {
            let _ = f.lock().write_all(s.as_bytes());
        }
        None => {
            let _ = std::io::stderr().lock().write_all(s.as_bytes());
        }
    }
}

/// The running program's file name (for `%n` in a log file's name).
fn program_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "program".into())
}

/// A log file's name from its pattern, as compute-sanitizer's `--log-file` expands it: `%p` the
/// process ID, `%q{VAR}` the environment variable VAR, `%%` a percent sign; and `%n`, the
/// program's file name (the shim's addition, so that one pattern can serve a whole test suite).
fn log_path(pattern: &str, pid: u32, name: &str, env: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        let mut chars = rest.chars();
        match chars.next() {
            Some('p') => out.push_str(&pid.to_string()),
            Some('n') => out.push_str(name),
            Some('%') => out.push('%'),
            Some('q') if chars.as_str().starts_with('{') => {
                if let Some(end) = chars.as_str().find('}') {
                    let var = &chars.as_str()[1..end];
                    out.push_str(&env(var).unwrap_or_default());
                    rest = &chars.as_str()[end + 1..];
                    continue;
                }
                out.push_str("%q");
            }
            Some(c) => {
                out.push('%');
                out.push(c);
            }
            None => out.push('%'),
        }
        rest = &rest[rest.chars().next().map_or(0, char::len_utf8)..];
    }
    out.push_str(rest);
    out
}

/// Reports a driver call that failed, as compute-sanitizer's memcheck reports a failed API call
/// (its default `--report-api-errors explicit`; the layout was recorded on an H100:
/// `scripts/ground-truth/results/sanitizer-h100.txt`), and counts it. The call is named as
/// the program made it: the CUDA runtime function on the stack when there is one
/// ([`crate::host_frames`]), with the runtime's own name and text of the error, else the
/// driver entry point. Then the program's frames, up to `main`. Not reported: NOT_READY, which
/// `cuStreamQuery` and `cuEventQuery` answer for work still running (not an error), and failures
/// of the calls cudart makes on its own to probe the driver (`probe`, `handled_by_runtime`).
pub fn api_error(entry: &str, result: abi::CUresult) {
    use crate::host_frames::{self, Frame};
    if !on() || result == abi::CUresult::CUDA_ERROR_NOT_READY || probe(entry) {
        return;
    }
    let frames = host_frames::capture(64);
    // The shim's own frames first: the object holding this function.
    let own = frames.first().map(|f| f.object.clone()).unwrap_or_default();
    let mut rest = frames.iter().skip_while(|f| f.object == own).peekable();
    let symbol = |f: &Frame| f.symbol.clone().unwrap_or_default();
    let runtime = |f: &Frame| {
        let s = symbol(f);
        f.object.starts_with("libcudart")
            || ["cuda", "__cudart", "_ZN6cudart", "libcudart_static_"]
                .iter()
                .any(|p| s.starts_with(p))
    };
    // The outermost public runtime function (`cudaXxx`) of the runtime's frames.
    let mut api: Option<&Frame> = None;
    while let Some(f) = rest.next_if(|f| runtime(f)) {
        let s = symbol(f);
        if s.strip_prefix("cuda")
            .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_uppercase()))
        {
            api = Some(f);
        }
    }
    if api.is_some() && handled_by_runtime(entry, result) {
        return;
    }
    let code = result.0 as i32;
    let (what, name, text) = match api.and_then(|f| runtime_error_text(f, code)) {
        Some((name, text)) => (symbol(api.unwrap()), name, text),
        None => {
            let (n, t) =
                crate::errors::describe(result).unwrap_or(("CUDA_ERROR_UNKNOWN", "unknown error"));
            let what = api.map(symbol).unwrap_or_else(|| entry.to_string());
            (what, n.to_string(), t.to_string())
        }
    };
    let mut lines = vec![
        format!("Program hit {name} (error {code}) due to \"{text}\" on CUDA API call to {what}."),
        "    Saved host backtrace up to driver entry point at error".to_string(),
    ];
    for f in rest.take(16) {
        let s = f.symbol.as_deref().map(host_frames::demangle);
        lines.push(format!(
            "        Host Frame: {}[{:#x}] in {}",
            s.as_deref().map(|s| format!("{s} ")).unwrap_or_default(),
            f.offset,
            f.object
        ));
        if f.symbol.as_deref() == Some("main") {
            break;
        }
    }
    lines.push(String::new());
    // (compute-sanitizer's print limit counts these too: its H100 log of `--print-limit 1`
    // left a launch's three API errors unprinted.)
    report_fault(&lines);
    ERRORS.fetch_add(1, Ordering::AcqRel);
}

/// The runtime's name and text of error `code`, from its own `cudaGetErrorName` and
/// `cudaGetErrorString` in the object holding `frame` (the numbers of the runtime's errors are
/// the driver's for every error the driver returns).
fn runtime_error_text(frame: &crate::host_frames::Frame, code: i32) -> Option<(String, String)> {
    type Text = unsafe extern "C" fn(i32) -> *const std::ffi::c_char;
    let call = |f: &str| {
        let p = crate::host_frames::function(frame, f)?;
        // SAFETY: the runtime's `const char* f(cudaError_t)`, a table lookup; its strings are
        // static.
        let s = unsafe { std::mem::transmute::<usize, Text>(p)(code) };
        (!s.is_null()).then(|| {
            unsafe { std::ffi::CStr::from_ptr(s) }
                .to_string_lossy()
                .into_owned()
        })
    };
    Some((call("cudaGetErrorName")?, call("cudaGetErrorString")?))
}

/// Driver calls whose failure a program made no call for: the runtime asks them while it starts.
fn probe(entry: &str) -> bool {
    entry.starts_with("cuGetProcAddress") || entry == "cuGetExportTable"
}

/// Failures the CUDA runtime asks for and handles inside a call that then succeeds: a query of
/// the current context when there is none (`cudaGetDevice` asks `cuCtxGetDevice`, and with no
/// context answers the device it would use).
fn handled_by_runtime(entry: &str, result: abi::CUresult) -> bool {
    result == abi::CUresult::CUDA_ERROR_INVALID_CONTEXT && entry.starts_with("cuCtxGet")
}

/// Whether the launch [`after_launch`] saw last stopped at a barrier error synccheck reported.
static SYNC_REPORTED: AtomicBool = AtomicBool::new(false);

/// Reports a kernel's fault and counts it, under the sanitizer (false otherwise: the caller
/// warns). A barrier error synccheck reported is said already. Under memcheck a launch's bad
/// accesses are all reported, one per faulting thread (`engine::exec::memcheck`), the launch's
/// error `e` being the first of them; any other fault is reported from `e`.
pub fn kernel_fault(kernel: &str, e: &engine::ExecError) -> bool {
    if SYNC_REPORTED.swap(false, Ordering::AcqRel) {
        return true;
    }
    if !on() {
        return false;
    }
    let (mut faults, mut more) = engine::take_fault_reports(kernel);
    // A grid the kernel launched from the device faulted: its faults are under its own name.
    if let Some(child) = e
        .access
        .as_ref()
        .map(|a| &a.kernel)
        .filter(|k| *k != kernel)
    {
        let (f, m) = engine::take_fault_reports(child);
        faults.extend(f);
        more += m;
    }
    let said = e
        .access
        .as_ref()
        .is_some_and(|a| faults.iter().any(|f| f == a.as_ref()));
    for f in &faults {
        report_fault(&access_lines(f));
    }
    UNPRINTED.fetch_add(more, Ordering::AcqRel);
    ERRORS.fetch_add(faults.len() as u64 + more, Ordering::AcqRel);
    if !said {
        ERRORS.fetch_add(1, Ordering::AcqRel);
        report_fault(&fault_lines(kernel, e));
    }
    true
}

/// Memcheck's reports printed so far, and those past the print limit (counted, not printed).
static PRINTED: AtomicU64 = AtomicU64::new(0);
static UNPRINTED: AtomicU64 = AtomicU64::new(0);

/// Prints one of memcheck's error reports unless the print limit (`--print-limit`) is reached.
fn report_fault(lines: &[String]) {
    let limit = crate::config::check().print_limit;
    if limit == 0 || PRINTED.fetch_add(1, Ordering::AcqRel) < limit {
        emit(lines);
    } else {
        UNPRINTED.fetch_add(1, Ordering::AcqRel);
    }
}

/// After a launch of `kernel`: reports the races it had (racecheck) and its barrier errors
/// (synccheck).
pub fn after_launch(kernel: &str) {
    if synccheck_on() {
        let reports = engine::take_sync_reports(kernel);
        SYNC_REPORTED.store(!reports.is_empty(), Ordering::Release);
        for r in reports {
            ERRORS.fetch_add(r.threads as u64, Ordering::AcqRel);
            emit(&sync_lines(&r));
        }
    }
    if initcheck_on() {
        for r in engine::take_init_reports(kernel) {
            ERRORS.fetch_add(r.threads, Ordering::AcqRel);
            emit(&init_lines(&r));
        }
    }
    if !racecheck_on() {
        return;
    }
    for r in engine::take_race_reports(kernel) {
        // A warning (threads of one warp) is shown and summed apart; it does not set the exit
        // status, which counts errors.
        if r.severity == engine::RaceSeverity::Warning {
            RACE_WARNINGS.fetch_add(1, Ordering::AcqRel);
        } else {
            RACES.fetch_add(1, Ordering::AcqRel);
            ERRORS.fetch_add(1, Ordering::AcqRel);
        }
        emit(&race_lines(&r));
    }
}

/// The report of one barrier error, as compute-sanitizer's synccheck words it (its error
/// count is the number of threads, counted by the caller).
pub fn sync_lines(r: &engine::SyncReport) -> Vec<String> {
    let what = match r.kind {
        engine::SyncErrorKind::DivergentThreads => "Divergent thread(s) in warp.",
        engine::SyncErrorKind::InvalidArguments => "Invalid arguments.",
    };
    vec![
        format!("Barrier error detected. {what}"),
        format!("    at {} PTX line {} ({})", r.kernel, r.line, r.inst),
        format!(
            "    by thread ({},{},{}) in block ({},{},{})",
            r.thread[0], r.thread[1], r.thread[2], r.block[0], r.block[1], r.block[2]
        ),
        String::new(),
    ]
}

/// The report of uninitialised reads at one instruction, as compute-sanitizer's initcheck
/// words the first of them (it reports each thread's; the error count here is the threads').
pub fn init_lines(r: &engine::InitReport) -> Vec<String> {
    let mut out = vec![
        format!(
            "Uninitialized __global__ memory read of size {} bytes",
            r.size
        ),
        format!("    at {} PTX line {} ({})", r.kernel, r.line, r.inst),
        format!(
            "    by thread ({},{},{}) in block ({},{},{})",
            r.thread[0], r.thread[1], r.thread[2], r.block[0], r.block[1], r.block[2]
        ),
    ];
    match r.allocation {
        Some(a) => out.push(format!(
            "    Address {:#x} is {} bytes inside allocation at {:#x} of size {} bytes",
            r.addr,
            r.addr - a.base,
            a.base,
            group(a.size)
        )),
        None => out.push(format!("    Address {:#x}", r.addr)),
    }
    if r.threads > 1 {
        out.push(format!(
            "    ({} threads of the launch read uninitialized memory here)",
            r.threads
        ));
    }
    out.push(String::new());
    out
}

/// The report of one pair of racing instructions, as compute-sanitizer's racecheck words it
/// (`Error:` between threads of different warps, `Warning:` within a warp).
pub fn race_lines(r: &engine::RaceReport) -> Vec<String> {
    let other = match r.kind {
        engine::HazardKind::WriteRead => "Read",
        engine::HazardKind::WriteWrite => "Write",
    };
    let level = match r.severity {
        engine::RaceSeverity::Error => "Error",
        engine::RaceSeverity::Warning => "Warning",
    };
    let t = |t: [u32; 3]| format!("({},{},{})", t[0], t[1], t[2]);
    // Threads of one block, as most races are; a cluster's CTAs name theirs.
    let example = if r.first_block == r.block && r.second_block == r.block {
        format!(
            "    e.g. threads {} and {} of block {}, shared memory offset {:#x}",
            t(r.first_thread),
            t(r.second_thread),
            t(r.block),
            r.offset
        )
    } else {
        format!(
            "    e.g. thread {} of block {} and thread {} of block {}, shared memory offset {:#x} of block {}",
            t(r.first_thread),
            t(r.first_block),
            t(r.second_thread),
            t(r.second_block),
            r.offset,
            t(r.block)
        )
    };
    vec![
        format!(
            "{level}: Race reported between Write access at {} PTX line {} ({})",
            r.kernel, r.first_line, r.first_inst
        ),
        format!(
            "    and {other} access at {} PTX line {} ({}) [{} hazards]",
            r.kernel, r.second_line, r.second_inst, r.hazards
        ),
        example,
        String::new(),
    ]
}

/// The report of one fault, as compute-sanitizer's memcheck words it.
pub fn fault_lines(kernel: &str, e: &engine::ExecError) -> Vec<String> {
    match &e.access {
        Some(a) => access_lines(a),
        None => vec![
            format!("Kernel fault in {kernel}"),
            format!("    {}", e.message),
            String::new(),
        ],
    }
}

/// The report of one thread's bad access, as compute-sanitizer's memcheck words it.
pub fn access_lines(a: &engine::AccessFault) -> Vec<String> {
    let what = if a.atomic {
        "atomic"
    } else if a.write {
        "write"
    } else {
        "read"
    };
    let mut l = vec![
        format!("Invalid __{}__ {what} of size {} bytes", a.space, a.size),
        format!("    at {} PTX line {} ({})", a.kernel, a.ptx_line, a.inst),
        format!(
            "    by thread ({},{},{}) in block ({},{},{})",
            a.thread[0], a.thread[1], a.thread[2], a.block[0], a.block[1], a.block[2]
        ),
    ];
    let how = if a.misaligned {
        "misaligned"
    } else {
        "out of bounds"
    };
    l.push(format!("    Access to {:#x} is {how}", a.addr));
    if let Some(f) = a.freed {
        l.push(format!(
            "    and is inside an allocation at {:#x} of size {} bytes that was freed (use after free)",
            f.base,
            group(f.size)
        ));
    } else if let Some(n) = a.allocation {
        let rel = if a.addr >= n.base + n.size {
            format!("{} bytes after", a.addr - (n.base + n.size) + 1)
        } else if a.addr < n.base {
            format!("{} bytes before", n.base - a.addr)
        } else {
            "inside".to_string()
        };
        l.push(format!(
            "    and is {rel} the nearest allocation at {:#x} of size {} bytes",
            n.base,
            group(n.size)
        ));
    }
    l.push(String::new());
    l
}

/// `4,096` as compute-sanitizer prints sizes.
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A new device allocation, of any kind: initcheck marks it unwritten. (Pool allocations come
/// here directly; the others through [`allocated`], which also tracks them for leaks.)
pub fn initcheck_allocated(base: u64, size: u64) {
    if !initcheck_on() {
        return;
    }
    if size > INITCHECK_MAX {
        // Marking writes every page of the allocation: an allocation as large as the device
        // (80 GB) would take that much host memory. It is left unmarked, so reads of it are
        // never reported.
        static SAID: AtomicBool = AtomicBool::new(false);
        if !SAID.swap(true, Ordering::AcqRel) {
            crate::trace::warn(&format!(
                "initcheck does not track allocations over {} MiB (this one: {size} bytes)",
                INITCHECK_MAX >> 20
            ));
        }
        return;
    }
    engine::initcheck_poison(base, size);
}

/// The largest allocation initcheck marks unwritten.
const INITCHECK_MAX: u64 = 1 << 30;

/// A device allocation the program made in context `ctx` (a handle).
pub fn allocated(base: u64, size: u64, ctx: usize) {
    initcheck_allocated(base, size);
    if leaks_on() {
        LIVE.lock().insert(base, (size, ctx));
    }
}

/// The program freed the allocation at `base`.
pub fn freed(base: u64) {
    if leaks_on() {
        LIVE.lock().remove(&base);
    }
}

/// Context `ctx` is being destroyed or reset: what it still holds leaked.
pub fn context_released(ctx: usize) {
    if !leaks_on() {
        return;
    }
    let gone: Vec<(u64, u64)> = {
        let mut live = LIVE.lock();
        let bases: Vec<u64> = (live.iter())
            .filter(|(_, &(_, c))| c == ctx)
            .map(|(&b, _)| b)
            .collect();
        bases
            .into_iter()
            .filter_map(|b| live.remove(&b).map(|(s, _)| (b, s)))
            .collect()
    };
    report_leaks(&gone);
}

fn report_leaks(leaks: &[(u64, u64)]) {
    for &(base, size) in leaks {
        ERRORS.fetch_add(1, Ordering::AcqRel);
        emit(&[
            format!("Leaked {} bytes at {base:#x}", group(size)),
            String::new(),
        ]);
        let mut t = LEAKED.lock();
        t.0 += size;
        t.1 += 1;
    }
}

extern "C" fn at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if leaks_on() {
            let rest: Vec<(u64, u64)> = std::mem::take(&mut *LIVE.lock())
                .into_iter()
                .map(|(b, (s, _))| (b, s))
                .collect();
            report_leaks(&rest);
            let (bytes, n) = *LEAKED.lock();
            emit(&[format!(
                "LEAK SUMMARY: {bytes} bytes leaked in {n} allocations"
            )]);
        }
        let n = ERRORS.load(Ordering::Acquire);
        let plural = |k: u64| if k == 1 { "" } else { "s" };
        if racecheck_on() {
            let (e, w) = (
                RACES.load(Ordering::Acquire),
                RACE_WARNINGS.load(Ordering::Acquire),
            );
            emit(&[format!(
                "RACECHECK SUMMARY: {} hazard{} displayed ({e} error{}, {w} warning{})",
                e + w,
                plural(e + w),
                plural(e),
                plural(w)
            )]);
        }
        if on() || synccheck_on() || initcheck_on() {
            emit(&[format!("ERROR SUMMARY: {n} error{}", plural(n))]);
        }
        let hidden = UNPRINTED.load(Ordering::Acquire);
        if hidden > 0 {
            // compute-sanitizer's line, word for word ("1 errors were" included).
            emit(&[format!(
                "ERROR SUMMARY: {hidden} errors were not printed. Use --print-limit option to \
                 adjust the number of printed errors"
            )]);
        }
        if let Ok(path) = std::env::var("CUDA_SHIM_CHECK_REPORT") {
            let _ = std::fs::write(path, format!("{n}\n"));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_grouped_by_thousands() {
        assert_eq!(group(400), "400");
        assert_eq!(group(4096), "4,096");
        assert_eq!(group(1234567), "1,234,567");
    }

    #[test]
    fn log_file_names_expand_as_compute_sanitizer_does() {
        let env = |v: &str| (v == "RANK").then(|| "3".to_string());
        assert_eq!(log_path("log.%p.txt", 42, "prog", env), "log.42.txt");
        assert_eq!(log_path("%n-%p", 7, "saxpy", env), "saxpy-7");
        assert_eq!(log_path("r%q{RANK}/%q{NONE}x", 1, "p", env), "r3/x");
        assert_eq!(log_path("100%%", 1, "p", env), "100%");
        assert_eq!(log_path("a%zb%", 1, "p", env), "a%zb%");
    }
}
