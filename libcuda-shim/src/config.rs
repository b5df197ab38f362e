//! The environment variables, parsed once on first use (never at load: loading the library
//! must do nothing, but for one `setenv`, `jit_compilers::ask_cupy_for_ptx`). A bad value is
//! reported on stderr and the default is used. `CUDA_SHIM_INJECT` is read by `inject`.
//!
//! - `CUDA_SHIM_DEVICE` = `h100` (default) | `a100` | `b200`: the emulated device profile.
//! - `CUDA_SHIM_DEVICES` = `1` (default) to `16`: how many devices of that profile are emulated;
//!   `CUDA_VISIBLE_DEVICES` selects and orders them ([`visible_devices`]).
//! - `CUDA_SHIM_TRACE` = unset/`0` (default, off) | `1` (stderr) | a file path: log every driver
//!   call with its arguments and result.
//! - `CUDA_SHIM_THREADS` = unset (default: all cores) | a positive number: host threads that run
//!   CTAs in parallel.
//! - `CUDA_SHIM_STRICT_ARCH` = unset/`0` (default) | `1`: refuse an image whose only PTX targets
//!   a newer architecture than the emulated device, as a GPU driver does (by default it runs).
//! - `CUDA_SHIM_KERNEL_TIMEOUT` = unset (default: no limit) | seconds: a launch running longer
//!   stops with CUDA_ERROR_LAUNCH_TIMEOUT (sticky) and a report of where its warps were.
//! - `CUDA_SHIM_SCHEDULE` = unset (default) | `seed:N`: run CTAs and warps in the seeded random
//!   interleaving N (one host thread; the same seed gives the same interleaving).
//! - `CUDA_SHIM_CHECK` = unset (default) | `memcheck` | `memcheck,leaks` | `racecheck` | `synccheck` | `initcheck`, with `print-limit=N` (memcheck's printed reports): the sanitizer
//!   (`sanitizer.rs`); `CUDA_SHIM_CHECK_REPORT` = a file the error count is written to at exit;
//!   `CUDA_SHIM_CHECK_LOG` = a file the reports go to instead of stderr (`%p`, `%n`, `%q{VAR}`).
//! - `CUDA_SHIM_STATS` = unset/`0` (default) | `1`/`table` | `json:FILE`: a summary of what ran,
//!   at exit (`stats.rs`); `CUDA_SHIM_PROGRESS` = unset/`0` | `1`: a live progress line.
//! - `CUDA_SHIM_JIT` = `on` (default) | `off` | `verify`: the compiling tier (`engine::jit`):
//!   `on` runs the stretches it compiles as host code, `verify` runs them both ways and reports
//!   the first difference on stderr. `CUDA_SHIM_JIT_HOT` = N (default
//!   `engine::jit::HOT_PER_OP`): `on` compiles a kernel once it has run N thread-instructions
//!   per op of its IR on the interpreter; 0: at its first launch.
//! - `CUDA_SHIM_CACHE_DIR` = unset (default: `$XDG_CACHE_HOME/libcuda-shim/jit`, else
//!   `~/.cache/libcuda-shim/jit`) | a directory | `off`/`0`/empty: where the compiling tier
//!   keeps compiled code between processes (`engine::jit::cache`).

use crate::profile::{by_key, uuid_string, Profile, PROFILES};

use once_cell::sync::Lazy;

/// Where the trace goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceTarget {
    Off,
    Stderr,
    File(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Index into [`PROFILES`].
    pub device: usize,
    pub trace: TraceTarget,
    /// Host threads for the executor; `None` means all cores.
    pub threads: Option<usize>,
}

/// The emulated device's profile, as `CUDA_SHIM_DEVICE` chose it.
pub fn profile() -> &'static Profile {
    &PROFILES[get().device]
}

static CONFIG: Lazy<Config> = Lazy::new(|| {
    let (config, complaints) = parse(
        std::env::var("CUDA_SHIM_DEVICE").ok().as_deref(),
        std::env::var("CUDA_SHIM_TRACE").ok().as_deref(),
        std::env::var("CUDA_SHIM_THREADS").ok().as_deref(),
    );
    for c in complaints {
        eprintln!("libcuda-shim: {c}");
    }
    config
});

/// The configuration of this process.
pub fn get() -> &'static Config {
    &CONFIG
}

/// Pure parsing, so it can be tested: the configuration and the complaints about bad values.
pub fn parse(
    device: Option<&str>,
    trace: Option<&str>,
    threads: Option<&str>,
) -> (Config, Vec<String>) {
    let mut complaints = Vec::new();
    let device = match device.map(str::trim).filter(|d| !d.is_empty()) {
        None => 0,
        Some(d) => by_key(d).unwrap_or_else(|| {
            let known: Vec<_> = PROFILES.iter().map(|p| p.key).collect();
            complaints.push(format!(
                "CUDA_SHIM_DEVICE={d:?} is not a known device (known: {}); using {}",
                known.join(", "),
                known[0]
            ));
            0
        }),
    };
    let trace = match trace.map(str::trim) {
        None | Some("") | Some("0") => TraceTarget::Off,
        Some("1") | Some("stderr") => TraceTarget::Stderr,
        Some(path) if path.contains('/') || path.contains('.') => TraceTarget::File(path.into()),
        Some(other) => {
            complaints.push(format!(
                "CUDA_SHIM_TRACE={other:?} is neither 0, 1 nor a file path (write ./{other} \
                 for a file in the current directory); tracing to stderr"
            ));
            TraceTarget::Stderr
        }
    };
    let threads = match threads.map(str::trim).filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => match t.parse::<usize>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                complaints.push(format!(
                    "CUDA_SHIM_THREADS={t:?} is not a positive number; using all cores"
                ));
                None
            }
        },
    };
    (
        Config {
            device,
            trace,
            threads,
        },
        complaints,
    )
}

/// `CUDA_SHIM_STRICT_ARCH=1`: no PTX newer than the emulated device (see the module comment).
pub fn strict_arch() -> bool {
    static STRICT: Lazy<bool> = Lazy::new(|| flag("CUDA_SHIM_STRICT_ARCH"));
    *STRICT
}

/// A boolean variable, the real driver's or ours (`1` on, `0` or unset off); anything else is
/// reported and read as off.
fn flag(name: &str) -> bool {
    match std::env::var(name).ok().as_deref().map(str::trim) {
        None | Some("") | Some("0") => false,
        Some("1") => true,
        Some(other) => {
            eprintln!("libcuda-shim: {name}={other:?} is neither 0 nor 1; using 0");
            false
        }
    }
}

/// `CUDA_LAUNCH_BLOCKING=1` (as the real driver reads it): every kernel launch returns only once
/// the kernel has run, with the error it left, so a fault is reported by its launch.
pub fn launch_blocking() -> bool {
    static ON: Lazy<bool> = Lazy::new(|| flag("CUDA_LAUNCH_BLOCKING"));
    *ON
}

/// `CUDA_DISABLE_PTX_JIT=1`: the driver may not compile PTX, so every module fails to load with
/// CUDA_ERROR_JIT_COMPILATION_DISABLED (the shim has nothing but PTX to run).
pub fn ptx_jit_disabled() -> bool {
    static ON: Lazy<bool> = Lazy::new(|| flag("CUDA_DISABLE_PTX_JIT"));
    *ON
}

/// The real driver's variables that change nothing here, checked at cuInit so that a bad value
/// is reported rather than ignored: `CUDA_FORCE_PTX_JIT` (the shim always runs PTX),
/// `CUDA_MODULE_LOADING` (`LAZY`/`EAGER`: kernels are lowered when their module loads either
/// way), `CUDA_DEVICE_ORDER` (`FASTEST_FIRST`/`PCI_BUS_ID`: the emulated devices are identical
/// and numbered in PCI bus order, so both orders are ordinal order) and
/// `CUDA_DEVICE_MAX_CONNECTIONS` (1 to 32; each stream has its own queue regardless).
pub fn check_driver_variables() {
    let _ = flag("CUDA_FORCE_PTX_JIT");
    for (name, ok) in [
        ("CUDA_MODULE_LOADING", &["LAZY", "EAGER"][..]),
        ("CUDA_DEVICE_ORDER", &["FASTEST_FIRST", "PCI_BUS_ID"][..]),
    ] {
        if let Ok(v) = std::env::var(name) {
            if !ok.contains(&v.trim()) {
                eprintln!(
                    "libcuda-shim: {name}={v:?} is not one of {}; ignored",
                    ok.join(", ")
                );
            }
        }
    }
    if let Ok(v) = std::env::var("CUDA_DEVICE_MAX_CONNECTIONS") {
        if !v.trim().parse::<u32>().is_ok_and(|n| (1..=32).contains(&n)) {
            eprintln!(
                "libcuda-shim: CUDA_DEVICE_MAX_CONNECTIONS={v:?} is not a number from 1 to 32; \
                 ignored"
            );
        }
    }
}

/// The most devices `CUDA_SHIM_DEVICES` may ask for: each one's memory is address space
/// reserved at the first allocation (80 GiB for an H100), so more would only waste it.
pub const MAX_DEVICES: usize = 16;

/// `CUDA_SHIM_DEVICES=N`: how many devices of the profile are emulated (unset: 1). A value
/// that is not a number from 1 to [`MAX_DEVICES`] is reported, and 1 is used.
pub fn parse_device_count(v: Option<&str>) -> (usize, Option<String>) {
    match v.map(str::trim).filter(|t| !t.is_empty()) {
        None => (1, None),
        Some(t) => match t.parse::<usize>() {
            Ok(n) if (1..=MAX_DEVICES).contains(&n) => (n, None),
            _ => (
                1,
                Some(format!(
                    "CUDA_SHIM_DEVICES={t:?} is not a number of devices from 1 to \
                     {MAX_DEVICES}; emulating 1"
                )),
            ),
        },
    }
}

/// The emulated devices the program sees, in ordinal order: entry `i` is the index (among
/// the `CUDA_SHIM_DEVICES` emulated ones) of device ordinal `i`, as `CUDA_VISIBLE_DEVICES`
/// selects and orders them. Empty when it hides them all (cuInit: CUDA_ERROR_NO_DEVICE).
/// Parsed at the first call (cuInit), where bad values are reported.
pub fn visible_devices() -> &'static [usize] {
    static VISIBLE: Lazy<Vec<usize>> = Lazy::new(|| {
        let (count, complaint) =
            parse_device_count(std::env::var("CUDA_SHIM_DEVICES").ok().as_deref());
        if let Some(c) = complaint {
            eprintln!("libcuda-shim: {c}");
        }
        let Ok(list) = std::env::var("CUDA_VISIBLE_DEVICES") else {
            return (0..count).collect();
        };
        let uuids: Vec<String> = (0..count)
            .map(|i| uuid_string(&profile().uuid_of(i)))
            .collect();
        let (visible, complaint) = parse_visible(&list, &uuids);
        if let Some(c) = complaint {
            eprintln!("libcuda-shim: {c}");
        }
        visible
    });
    &VISIBLE
}

/// Reads `list`, a `CUDA_VISIBLE_DEVICES` value, over the emulated devices whose UUIDs are
/// `uuids` (`GPU-xxxxxxxx-...`), as the real driver reads it: comma-separated entries, each an
/// index or a UUID (a unique prefix is enough), selecting devices in the order given; the first
/// entry that names no device (or one named already) ends the list, and the devices before it
/// are visible. Gives the visible devices' indices and, when an entry ended the list, a
/// complaint naming it (an empty value or a leading negative index, the usual ways of hiding
/// every device, end it silently).
pub fn parse_visible(list: &str, uuids: &[String]) -> (Vec<usize>, Option<String>) {
    let mut visible = Vec::new();
    if list.trim().is_empty() {
        return (visible, None);
    }
    for entry in list.split(',').map(str::trim) {
        let found = if entry.starts_with("GPU-") && entry.len() > 4 {
            let mut matches = (0..uuids.len()).filter(|&i| uuids[i].starts_with(entry));
            match (matches.next(), matches.next()) {
                (Some(i), None) => Some(i),
                _ => None,
            }
        } else {
            entry.parse::<usize>().ok().filter(|&i| i < uuids.len())
        };
        match found {
            Some(i) if !visible.contains(&i) => visible.push(i),
            _ => {
                let hiding = visible.is_empty() && entry.parse::<i64>().is_ok_and(|n| n < 0);
                let complaint = (!hiding).then(|| {
                    format!(
                        "CUDA_VISIBLE_DEVICES={list:?}: {entry:?} names no device (or one named \
                         before); there are {} (0 to {}, or their UUIDs); the list ends there, \
                         as the real driver reads it: {} visible",
                        uuids.len(),
                        uuids.len() - 1,
                        visible.len()
                    )
                });
                return (visible, complaint);
            }
        }
    }
    (visible, None)
}

/// `CUDA_SHIM_KERNEL_TIMEOUT=SECONDS`: the watchdog's limit for every launch (unset: none), as
/// a display GPU's watchdog ends long kernels with CUDA_ERROR_LAUNCH_TIMEOUT.
pub fn kernel_timeout() -> Option<std::time::Duration> {
    static LIMIT: Lazy<Option<std::time::Duration>> = Lazy::new(|| {
        let v = std::env::var("CUDA_SHIM_KERNEL_TIMEOUT").ok()?;
        let (limit, complaint) = parse_timeout(&v);
        if let Some(c) = complaint {
            eprintln!("libcuda-shim: {c}");
        }
        limit
    });
    *LIMIT
}

/// Where `--stats` puts the summary at exit (`stats.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StatsOutput {
    Off,
    /// A table on stderr.
    Table,
    /// JSON written to this file.
    Json(String),
}

/// `CUDA_SHIM_STATS`: unset or `0` (off), `1` or `table` (a table on stderr), `json:FILE`.
pub fn parse_stats(v: Option<&str>) -> (StatsOutput, Option<String>) {
    match v.map(str::trim) {
        None | Some("") | Some("0") => (StatsOutput::Off, None),
        Some("1") | Some("table") => (StatsOutput::Table, None),
        Some(v) => match v.strip_prefix("json:") {
            Some(path) if !path.is_empty() => (StatsOutput::Json(path.to_string()), None),
            _ => (
                StatsOutput::Off,
                Some(format!(
                    "CUDA_SHIM_STATS={v:?} is not 0, 1, table or json:FILE; ignored"
                )),
            ),
        },
    }
}

/// `CUDA_SHIM_STATS`: the summary of what ran, printed or written at exit (`stats`).
pub fn stats() -> &'static StatsOutput {
    static OUT: Lazy<StatsOutput> = Lazy::new(|| {
        let (out, complaint) = parse_stats(std::env::var("CUDA_SHIM_STATS").ok().as_deref());
        if let Some(c) = complaint {
            eprintln!("libcuda-shim: {c}");
        }
        out
    });
    &OUT
}

/// `CUDA_SHIM_JIT`: `off`, `on` or `verify` (`1` and `0` for on and off).
pub fn parse_jit(v: Option<&str>) -> (engine::jit::Mode, Option<String>) {
    use engine::jit::Mode;
    match v.map(str::trim) {
        // On by default: the whole test suite passes on it and it beats the interpreter on
        // every workload of the executor benchmark (README, "Benchmarks").
        None | Some("") | Some("1") | Some("on") => (Mode::On, None),
        Some("0") | Some("off") => (Mode::Off, None),
        Some("verify") => (Mode::Verify, None),
        Some(v) => (
            Mode::On,
            Some(format!(
                "CUDA_SHIM_JIT={v:?} is not off, on or verify; ignored"
            )),
        ),
    }
}

/// The tier launches run on (`CUDA_SHIM_JIT`).
pub fn jit() -> engine::jit::Mode {
    static MODE: Lazy<engine::jit::Mode> = Lazy::new(|| {
        let (m, complaint) = parse_jit(std::env::var("CUDA_SHIM_JIT").ok().as_deref());
        if let Some(c) = complaint {
            eprintln!("libcuda-shim: {c}");
        }
        m
    });
    *MODE
}

/// `CUDA_SHIM_JIT_HOT`: thread-instructions per IR op a kernel runs on the interpreter before
/// the `on` tier compiles it (unset or not a number: [`engine::jit::HOT_PER_OP`]).
pub fn parse_jit_hot(v: Option<&str>) -> (u64, Option<String>) {
    match v.map(str::trim) {
        None | Some("") => (engine::jit::HOT_PER_OP, None),
        Some(v) => match v.parse() {
            Ok(n) => (n, None),
            Err(_) => (
                engine::jit::HOT_PER_OP,
                Some(format!(
                    "CUDA_SHIM_JIT_HOT={v:?} is not a number; using {}",
                    engine::jit::HOT_PER_OP
                )),
            ),
        },
    }
}

/// When the `on` tier compiles a kernel (`CUDA_SHIM_JIT_HOT`, [`engine::jit::set_hot`]).
pub fn jit_hot() -> u64 {
    let (n, complaint) = parse_jit_hot(std::env::var("CUDA_SHIM_JIT_HOT").ok().as_deref());
    if let Some(c) = complaint {
        eprintln!("libcuda-shim: {c}");
    }
    n
}

/// `CUDA_SHIM_CACHE_DIR` given `$XDG_CACHE_HOME` and `$HOME`: the directory of the compiling
/// tier's cache, None for none. Unset: the user's cache directory (none without one); `off`,
/// `0` or empty: none; else that directory.
pub fn parse_cache_dir(
    v: Option<&str>,
    xdg_cache_home: Option<&str>,
    home: Option<&str>,
) -> Option<std::path::PathBuf> {
    use std::path::{Path, PathBuf};
    match v.map(str::trim) {
        Some("") | Some("0") | Some("off") => None,
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            // As the XDG base-directory specification says: a relative XDG_CACHE_HOME is
            // ignored.
            let base = match xdg_cache_home.filter(|x| Path::new(x).is_absolute()) {
                Some(x) => PathBuf::from(x),
                None => Path::new(home.filter(|h| !h.is_empty())?).join(".cache"),
            };
            Some(base.join("libcuda-shim").join("jit"))
        }
    }
}

/// The compiling tier's cache directory (`CUDA_SHIM_CACHE_DIR`), None for none.
pub fn cache_dir() -> Option<std::path::PathBuf> {
    let var = |n| std::env::var(n).ok();
    parse_cache_dir(
        var("CUDA_SHIM_CACHE_DIR").as_deref(),
        var("XDG_CACHE_HOME").as_deref(),
        var("HOME").as_deref(),
    )
}

/// `CUDA_SHIM_PROGRESS=1`: a live line on stderr for launches running longer than a second.
pub fn progress() -> bool {
    static ON: Lazy<bool> = Lazy::new(|| flag("CUDA_SHIM_PROGRESS"));
    *ON
}

/// `CUDA_SHIM_SCHEDULE=seed:N`: a seeded interleaving of CTAs and warps for every launch
/// (unset: the default schedule), so that a race can be reproduced and explored.
pub fn schedule() -> Option<u64> {
    static SEED: Lazy<Option<u64>> = Lazy::new(|| {
        let v = std::env::var("CUDA_SHIM_SCHEDULE").ok()?;
        let (seed, complaint) = parse_schedule(&v);
        if let Some(c) = complaint {
            eprintln!("libcuda-shim: {c}");
        }
        seed
    });
    *SEED
}

/// `seed:N` with N a decimal or `0x` number (empty: the default schedule).
pub fn parse_schedule(v: &str) -> (Option<u64>, Option<String>) {
    let t = v.trim();
    if t.is_empty() {
        return (None, None);
    }
    let n = t
        .strip_prefix("seed:")
        .and_then(|n| match n.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => n.parse::<u64>().ok(),
        });
    match n {
        Some(n) => (Some(n), None),
        None => (
            None,
            Some(format!(
                "CUDA_SHIM_SCHEDULE={t:?} is not seed:N (N a number); the default schedule"
            )),
        ),
    }
}

/// A kernel time limit in seconds (a positive number, fractions allowed; empty or `0`: none).
pub fn parse_timeout(v: &str) -> (Option<std::time::Duration>, Option<String>) {
    match v.trim() {
        "" | "0" => (None, None),
        t => match t.parse::<f64>() {
            Ok(s) if s > 0.0 && s.is_finite() && s < 1e9 => {
                (Some(std::time::Duration::from_secs_f64(s)), None)
            }
            _ => (
                None,
                Some(format!(
                    "CUDA_SHIM_KERNEL_TIMEOUT={t:?} is not a positive number of seconds; no limit"
                )),
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_dir_defaults_to_the_users_cache_and_can_be_moved_or_turned_off() {
        use std::path::PathBuf;
        let p = |v, x, h| parse_cache_dir(v, x, h);
        assert_eq!(
            p(None, None, Some("/home/u")),
            Some(PathBuf::from("/home/u/.cache/libcuda-shim/jit"))
        );
        assert_eq!(
            p(None, Some("/xdg"), Some("/home/u")),
            Some(PathBuf::from("/xdg/libcuda-shim/jit"))
        );
        assert_eq!(
            p(None, Some("rel"), Some("/home/u")),
            Some(PathBuf::from("/home/u/.cache/libcuda-shim/jit"))
        );
        assert_eq!(p(None, None, None), None);
        assert_eq!(p(None, Some(""), Some("")), None);
        assert_eq!(
            p(Some("/tmp/c"), Some("/xdg"), Some("/h")),
            Some(PathBuf::from("/tmp/c"))
        );
        for off in ["off", "0", "", " off "] {
            assert_eq!(p(Some(off), Some("/xdg"), Some("/h")), None, "{off:?}");
        }
    }

    #[test]
    fn jit_takes_off_on_or_verify() {
        use engine::jit::Mode;
        assert_eq!(parse_jit(None).0, Mode::On);
        assert_eq!(parse_jit(Some("off")).0, Mode::Off);
        assert_eq!(parse_jit(Some("on")).0, Mode::On);
        assert_eq!(parse_jit(Some("1")).0, Mode::On);
        assert_eq!(parse_jit(Some("verify")).0, Mode::Verify);
        let (m, complaint) = parse_jit(Some("fast"));
        assert_eq!(m, Mode::On);
        assert!(complaint.unwrap().contains("CUDA_SHIM_JIT"));
    }

    #[test]
    fn jit_hot_takes_a_number() {
        let hot = engine::jit::HOT_PER_OP;
        assert_eq!(parse_jit_hot(None), (hot, None));
        assert_eq!(parse_jit_hot(Some("")), (hot, None));
        assert_eq!(parse_jit_hot(Some("0")), (0, None));
        assert_eq!(parse_jit_hot(Some(" 1000 ")), (1000, None));
        let (n, complaint) = parse_jit_hot(Some("soon"));
        assert_eq!(n, hot);
        assert!(complaint.unwrap().contains("CUDA_SHIM_JIT_HOT"));
    }

    #[test]
    fn stats_takes_table_or_a_json_file() {
        assert_eq!(parse_stats(None).0, StatsOutput::Off);
        assert_eq!(parse_stats(Some("0")).0, StatsOutput::Off);
        assert_eq!(parse_stats(Some("1")).0, StatsOutput::Table);
        assert_eq!(parse_stats(Some("table")).0, StatsOutput::Table);
        assert_eq!(
            parse_stats(Some("json:/tmp/s.json")).0,
            StatsOutput::Json("/tmp/s.json".into())
        );
        let (o, complaint) = parse_stats(Some("yes"));
        assert_eq!(o, StatsOutput::Off);
        assert!(complaint.unwrap().contains("CUDA_SHIM_STATS=\"yes\""));
    }

    #[test]
    fn schedules() {
        assert_eq!(parse_schedule(""), (None, None));
        assert_eq!(parse_schedule("seed:42").0, Some(42));
        assert_eq!(parse_schedule("seed:0x2a").0, Some(42));
        let (s, c) = parse_schedule("random");
        assert_eq!(s, None);
        assert!(c.unwrap().contains("is not seed:N"));
    }

    #[test]
    fn parses_values_and_complains_about_bad_ones() {
        assert_eq!(
            parse(None, None, None).0,
            Config {
                device: 0,
                trace: TraceTarget::Off,
                threads: None,
            }
        );
        let (c, e) = parse(Some("A100"), Some("/tmp/t.log"), Some("3"));
        assert_eq!(c.threads, Some(3));
        assert_eq!(c.trace, TraceTarget::File("/tmp/t.log".into()));
        assert_eq!(PROFILES[c.device].key, "a100");
        assert!(e.is_empty());
        let (c, e) = parse(Some("v100"), Some("yes"), Some("0"));
        assert_eq!(
            (c.device, c.trace, c.threads),
            (0, TraceTarget::Stderr, None)
        );
        assert_eq!(e.len(), 3);
    }

    #[test]
    fn kernel_timeouts() {
        use std::time::Duration;
        assert_eq!(parse_timeout(""), (None, None));
        assert_eq!(parse_timeout("0"), (None, None));
        assert_eq!(parse_timeout("2.5").0, Some(Duration::from_millis(2500)));
        let (limit, complaint) = parse_timeout("soon");
        assert!(limit.is_none() && complaint.is_some());
        assert!(parse_timeout("-1").1.is_some());
    }

    #[test]
    fn visible_devices_with_one_device() {
        let one = ["GPU-12345678-9abc-def0-1234-56789abcdef0".to_string()];
        let shown = |l: &str| parse_visible(l, &one).0;
        assert_eq!(shown("0"), [0]);
        assert_eq!(shown("0,1"), [0]);
        assert_eq!(shown("GPU-1234"), [0]);
        assert!(shown("").is_empty());
        assert!(shown("-1").is_empty());
        assert!(shown("1,0").is_empty());
        assert!(shown("GPU-9999").is_empty());
        assert!(parse_visible("-1", &one).1.is_none());
        assert!(parse_visible("1,0", &one).1.unwrap().contains("\"1\""));
    }

    #[test]
    fn visible_devices_select_and_reorder() {
        let uuids: Vec<String> = (1..=4)
            .map(|i| format!("GPU-0000000{i}-0000-0000-0000-00000000000{i}"))
            .collect();
        let shown = |l: &str| parse_visible(l, &uuids).0;
        assert_eq!(shown("2,0"), [2, 0]);
        assert_eq!(shown(" 3 , 1 "), [3, 1]);
        assert_eq!(shown("GPU-00000004,0"), [3, 0]);
        // The list ends at the first entry naming nothing, a repeat, or an ambiguous prefix.
        assert_eq!(shown("1,7,0"), [1]);
        assert_eq!(shown("1,1,0"), [1]);
        assert_eq!(shown("0,GPU-0000,2"), [0]);
        assert_eq!(shown("0,x,2"), [0]);
        assert!(parse_visible("0,x", &uuids).1.is_some());
        assert!(parse_visible("0,1", &uuids).1.is_none());
    }

    #[test]
    fn device_counts() {
        assert_eq!(parse_device_count(None), (1, None));
        assert_eq!(parse_device_count(Some("4")).0, 4);
        assert_eq!(parse_device_count(Some("16")).0, 16);
        for bad in ["0", "17", "two", "-1"] {
            let (n, c) = parse_device_count(Some(bad));
            assert_eq!(n, 1);
            assert!(c.unwrap().contains("CUDA_SHIM_DEVICES"), "{bad}");
        }
    }

    #[test]
    fn check_words_and_print_limit() {
        let (c, bad) = parse_check("memcheck,leaks,print-limit=0");
        assert!(c.memcheck && c.leaks && bad.is_none());
        assert_eq!(c.print_limit, 0);
        assert_eq!(parse_check("racecheck").0.print_limit, 100);
        let (c, bad) = parse_check("memcheck,print-limit=x");
        assert!(c.memcheck && bad.is_some_and(|m| m.contains("print-limit=x")));
    }
}

/// What `CUDA_SHIM_CHECK` asks of the sanitizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Check {
    pub memcheck: bool,
    /// Report the device memory the program never freed (compute-sanitizer's
    /// `--leak-check full`).
    pub leaks: bool,
    /// Report shared-memory races between threads of a CTA.
    pub racecheck: bool,
    /// Report barriers reached by part of a warp and warp barriers with bad membermasks.
    pub synccheck: bool,
    /// Report kernel reads of device memory nothing wrote since it was allocated.
    pub initcheck: bool,
    /// Memcheck prints the reports of this many bad accesses at most (the rest are counted),
    /// as compute-sanitizer's `--print-limit` (default 100; 0: no limit).
    pub print_limit: u64,
}

impl Default for Check {
    fn default() -> Self {
        Check {
            memcheck: false,
            leaks: false,
            racecheck: false,
            synccheck: false,
            initcheck: false,
            print_limit: 100,
        }
    }
}

/// `CUDA_SHIM_CHECK`, parsed once (unset: no checking).
pub fn check() -> Check {
    static CHECK: Lazy<Check> = Lazy::new(|| {
        let Ok(v) = std::env::var("CUDA_SHIM_CHECK") else {
            return Check::default();
        };
        let (c, complaint) = parse_check(&v);
        if let Some(m) = complaint {
            eprintln!("libcuda-shim: {m}");
        }
        c
    });
    *CHECK
}

/// A comma-separated list of `memcheck`, `leaks` (which implies memcheck), `racecheck`,
/// `synccheck`, `initcheck` and `print-limit=N`.
pub fn parse_check(v: &str) -> (Check, Option<String>) {
    let mut c = Check::default();
    let mut bad = Vec::new();
    for w in v.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match w {
            "memcheck" => c.memcheck = true,
            "leaks" => {
                c.memcheck = true;
                c.leaks = true;
            }
            "racecheck" => c.racecheck = true,
            "synccheck" => c.synccheck = true,
            "initcheck" => c.initcheck = true,
            _ => match w.strip_prefix("print-limit=").map(str::parse::<u64>) {
                Some(Ok(n)) => c.print_limit = n,
                _ => bad.push(format!(
                    "'{w}' is not one of memcheck, leaks, racecheck, synccheck, initcheck, \
                     print-limit=N"
                )),
            },
        }
    }
    let complaint =
        (!bad.is_empty()).then(|| format!("CUDA_SHIM_CHECK={v:?}: {}; ignored", bad.join(", ")));
    (c, complaint)
}
