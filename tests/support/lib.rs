//! Support for the end-to-end tests: the pinned toolkit, the shim built in release mode, and
//! CUDA programs compiled by nvcc with a virtual architecture only (so their fatbins hold PTX).
//!
//! Every program runs as a separate process with the shim preloaded, exactly as a user runs it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Condvar, Mutex, OnceLock};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The cargo target directory (honours CARGO_TARGET_DIR, like cargo itself).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                repo().join(dir)
            }
        }
        None => repo().join("target"),
    }
}

/// Root of the pinned NVIDIA toolkit (bin/nvcc, include/, lib/), installed on first use by
/// `scripts/install-toolkit.sh`. The tests need it; CI always installs it, so none is skipped.
pub fn toolkit() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| install_toolkit(&[]))
}

/// Runs `scripts/install-toolkit.sh` with `args` (`--nvrtc`, `--cutlass`, `--cudart12`, or
/// none) and returns the directory it prints; the tests that need it fail when it fails.
pub fn install_toolkit(args: &[&str]) -> PathBuf {
    let out = Command::new("bash")
        .arg(repo().join("scripts/install-toolkit.sh"))
        .args(args)
        .output()
        .expect("cannot run scripts/install-toolkit.sh");
    assert!(
        out.status.success(),
        "these tests need NVIDIA's pip packages and scripts/install-toolkit.sh {} failed:\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// The shim as users get it: `target/release/libcuda.so` and `target/release/cuda-shim`.
pub struct Shim {
    pub library: PathBuf,
    pub cli: PathBuf,
}

/// Builds the shim in release mode once per test process. The emulator's speed matters for the
/// bigger programs, so the tests always run the release build, as users do. Building
/// `target/release` from inside `cargo test` is safe: cargo locks each profile directory apart.
///
/// Also keeps the programs the tests run out of the user's cache of compiled code: unless the
/// suite runs with `CUDA_SHIM_CACHE_DIR` set, it is set (for this process and so for every
/// program it starts) to [`jit_cache_dir`]. And runs every program on both tiers: unless the
/// suite runs with `CUDA_SHIM_JIT` set, it is `verify` (every compiled segment is interpreted
/// too and the two compared, the interpreter's results kept), and [`assert_pass`] and
/// [`assert_prints_recorded`] fail a program that reported a difference.
pub fn shim() -> &'static Shim {
    static SHIM: OnceLock<Shim> = OnceLock::new();
    SHIM.get_or_init(|| {
        if std::env::var_os("CUDA_SHIM_CACHE_DIR").is_none() {
            // (Before any program of this process runs: every test that runs one asks for the
            // shim first. Rust's own environment accesses take a lock, and this process's
            // threads read the environment only through them.)
            std::env::set_var("CUDA_SHIM_CACHE_DIR", jit_cache_dir());
        }
        if std::env::var_os("CUDA_SHIM_JIT").is_none() {
            std::env::set_var("CUDA_SHIM_JIT", "verify");
        }
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(repo())
            .args(["build", "--release", "-p", "libcuda-shim"])
            .status()
            .expect("cannot run cargo");
        assert!(
            status.success(),
            "cargo build --release -p libcuda-shim failed"
        );
        let release = target_dir().join("release");
        Shim {
            library: release.join("libcuda.so"),
            cli: release.join("cuda-shim"),
        }
    })
}

/// The test suite's cache of compiled code, `target/jit-cache`: kept between runs, shared by
/// the suite's processes (as a user's is).
pub fn jit_cache_dir() -> PathBuf {
    target_dir().join("jit-cache")
}

/// Where compiled test programs go.
pub fn build_dir() -> PathBuf {
    let dir = target_dir().join("cuda-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A directory holding `libcuda.so`, `libcuda.so.1` (links to the shim) and `libcudart.so`,
/// `libcudart.so.13` (links to the toolkit's shared cudart), for linking `-lcuda` / `-cudart shared` and for
/// running a program with the shim on its library path instead of preloaded.
pub fn lib_dir() -> PathBuf {
    let dir = build_dir().join("lib");
    std::fs::create_dir_all(&dir).unwrap();
    let links = [
        ("libcuda.so", shim().library.clone()),
        ("libcuda.so.1", shim().library.clone()),
        ("libcudart.so", toolkit().join("lib/libcudart.so.13")),
        ("libcudart.so.13", toolkit().join("lib/libcudart.so.13")),
    ];
    for (name, target) in links {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        // Parallel tests may race to create the same link; either winner is right.
        let _ = std::os::unix::fs::symlink(&target, &link);
    }
    dir
}

/// Compiles `tests/cuda/NAME.cu` with the pinned nvcc for a virtual architecture only, so the
/// fatbin holds PTX (plus `extra` arguments), into `target/cuda-tests/OUTPUT`.
pub fn nvcc(name: &str, output: &str, extra: &[&str]) -> PathBuf {
    nvcc_arch(name, output, "compute_80", extra)
}

/// [`nvcc`] for another virtual architecture (`compute_90` for clusters, which need it).
pub fn nvcc_arch(name: &str, output: &str, arch: &str, extra: &[&str]) -> PathBuf {
    let source = repo().join("tests/cuda").join(format!("{name}.cu"));
    let exe = build_dir().join(output);
    let mut args: Vec<std::ffi::OsString> = vec![
        "-gencode".into(),
        format!("arch={arch},code={arch}").into(),
        "-O2".into(),
        source.clone().into(),
    ];
    args.extend(extra.iter().map(Into::into));
    nvcc_into(&args, &exe, &source.display().to_string());
    exe
}

/// Runs nvcc with `args` writing `exe`, through a file of this process's own that is renamed
/// onto `exe` when complete: tests that build the same program in parallel (or run it while
/// another test rebuilds it) never see a half-written file, which the kernel refuses to
/// execute ("Permission denied") before the linker marks it executable.
fn nvcc_into(args: &[std::ffi::OsString], exe: &Path, what: &str) {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut partial = exe.as_os_str().to_owned();
    partial.push(format!(".partial-{}-{n}", std::process::id()));
    let partial = PathBuf::from(partial);
    let out = Command::new(toolkit().join("bin/nvcc"))
        .args(args)
        .arg("-o")
        .arg(&partial)
        .output()
        .expect("cannot run nvcc");
    if !out.status.success() {
        let _ = std::fs::remove_file(&partial);
    }
    assert!(
        out.status.success(),
        "nvcc failed for {what}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&partial, exe).unwrap();
}

/// [`nvcc`] that keeps the last build: it compiles again only when the source, a header in
/// `tests/cuda/`, nvcc itself or the arguments changed. For the programs whose build takes
/// minutes (thrust and CUB headers).
pub fn nvcc_cached(name: &str, output: &str, extra: &[&str]) -> PathBuf {
    nvcc_cached_arch(name, output, "compute_80", extra)
}

/// [`nvcc_cached`] for another virtual architecture (`compute_90a` for wgmma).
pub fn nvcc_cached_arch(name: &str, output: &str, arch: &str, extra: &[&str]) -> PathBuf {
    // Tests of one binary that build the same program wait for each other's build instead of
    // building it twice (the guard lets the next one in even if the build panics).
    static BUILDING: Mutex<Vec<String>> = Mutex::new(Vec::new());
    static DONE: Condvar = Condvar::new();
    struct Building<'a>(&'a str);
    impl Drop for Building<'_> {
        fn drop(&mut self) {
            let mut building = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
            building.retain(|o| o != self.0);
            DONE.notify_all();
        }
    }
    let mut building = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    while building.iter().any(|o| o == output) {
        building = DONE.wait(building).unwrap_or_else(|e| e.into_inner());
    }
    building.push(output.to_string());
    drop(building);
    let _building = Building(output);
    let exe = build_dir().join(output);
    let stamp = build_dir().join(format!("{output}.args"));
    let args = format!("{arch} -O2 {}", extra.join(" "));
    let cuda = repo().join("tests/cuda");
    let mut inputs = vec![cuda.join(format!("{name}.cu")), toolkit().join("bin/nvcc")];
    for entry in std::fs::read_dir(&cuda).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "h") {
            inputs.push(entry.path());
        }
    }
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let fresh = match modified(&exe) {
        Some(built) => {
            std::fs::read_to_string(&stamp).is_ok_and(|a| a == args)
                && inputs
                    .iter()
                    .all(|i| modified(i).is_some_and(|m| m <= built))
        }
        None => false,
    };
    if !fresh {
        let _ = std::fs::remove_file(&stamp);
        nvcc_arch(name, output, arch, extra);
        std::fs::write(&stamp, &args).unwrap();
    }
    exe
}

/// Runs `exe` with the shim preloaded (`LD_PRELOAD`), as `cuda-shim run` does.
pub fn run_preloaded(exe: &Path, envs: &[(&str, &str)]) -> Output {
    Command::new(exe)
        .env("LD_PRELOAD", &shim().library)
        .envs(envs.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()))
}

/// [`run_preloaded`] with command-line arguments.
pub fn run_preloaded_args<S: AsRef<std::ffi::OsStr>>(exe: &Path, args: &[S]) -> Output {
    Command::new(exe)
        .args(args)
        .env("LD_PRELOAD", &shim().library)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()))
}

/// The lines starting with `prefix` that a test program printed; its run must have succeeded.
pub fn output_lines(out: &Output, prefix: &str) -> Vec<String> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (stdout.lines().filter(|l| l.starts_with(prefix)))
        .map(str::to_owned)
        .collect()
}

/// The lines starting with `prefix` of the repository's file `path` (expected outputs).
pub fn file_lines(path: &str, prefix: &str) -> Vec<String> {
    let path = repo().join(path);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (text.lines().filter(|l| l.starts_with(prefix)))
        .map(str::to_owned)
        .collect()
}

/// Asserts that `got` has `want`'s lines of `NAME: WORD WORD ...`; a differing line is
/// reported by its name and first differing word, not as two lines of thousands of words.
pub fn assert_same_lines(got: &[String], want: &[String]) {
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(want) {
        if g == w {
            continue;
        }
        let (gn, gv) = g.split_once(": ").unwrap_or((g, ""));
        let (wn, wv) = w.split_once(": ").unwrap_or((w, ""));
        assert_eq!(gn, wn);
        let i = gv.split(' ').zip(wv.split(' ')).position(|(a, b)| a != b);
        panic!(
            "{gn}: word {i:?} differs: got {:?}, expected {:?}",
            i.and_then(|i| gv.split(' ').nth(i)),
            i.and_then(|i| wv.split(' ').nth(i))
        );
    }
}

/// Asserts that a test program exited 0 and printed its `PASS` line; shows its output if not.
pub fn assert_pass(what: &str, out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.starts_with("PASS"),
        "{what} failed ({}):\n--- stdout\n{stdout}--- stderr\n{stderr}",
        out.status
    );
    assert_tiers_agree(what, &stderr);
    stdout
}

/// Fails when a program run under `CUDA_SHIM_JIT=verify` (the suite's default, [`shim`])
/// reported a difference between the compiling tier and the interpreter.
pub fn assert_tiers_agree(what: &str, stderr: &str) {
    assert!(
        !stderr.contains("jit verify:"),
        "{what}: the compiling tier and the interpreter differ:\n{stderr}"
    );
}

/// What `tests/cuda/printf.cu` prints: device output lands at the synchronisation, not at the
/// launch; the four lanes of one warp print in lane order; the heap sum is
/// sum(i^2, i < 1000) = 999*1000*1999/6.
pub const PRINTF_STDOUT: &str = "before\nlaunched\n\
     thread 0: 10 0.000 even a ff\n\
     thread 1: 11 0.500 odd b 100\n\
     thread 2: 12 1.000 even c 101\n\
     thread 3: 13 1.500 odd d 102\n\
     between\nheap sum 332833500\nafter: cudaSuccess\n";

/// What `tests/cuda/sticky_reset.cu` prints (trimmed): a fault is sticky until
/// cudaDeviceReset, after which the device works again.
pub const STICKY_RESET_STDOUT: &str =
    "launch=cudaSuccess sync=cudaErrorIllegalAddress after=cudaErrorIllegalAddress \
     stream=cudaErrorIllegalAddress reset=cudaSuccess malloc=cudaSuccess sync2=cudaSuccess h=9";

/// The Python clients' virtual environment (`scripts/install-python-clients.sh`, run once per
/// test process): its `bin/python` has numba-cuda, CuPy, cuda-python and pytest.
pub fn clients_venv() -> &'static Path {
    static VENV: OnceLock<PathBuf> = OnceLock::new();
    VENV.get_or_init(|| {
        let out = Command::new("bash")
            .arg(repo().join("scripts/install-python-clients.sh"))
            .output()
            .expect("cannot run scripts/install-python-clients.sh");
        assert!(
            out.status.success(),
            "these tests need the pinned Python clients and scripts/install-python-clients.sh \
             failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    })
}

/// The `ok NAME` / `FAIL NAME: reason` lines of a check script: every check not in `pending`
/// passed, and the script reached its summary line.
pub fn assert_checks(what: &str, out: &Output, pending: &[(&str, &str)]) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let show = || format!("--- stdout\n{stdout}--- stderr\n{stderr}");
    assert!(
        stdout
            .lines()
            .any(|l| l.ends_with(" failed") && l.contains(" passed, ")),
        "{what} did not finish ({}):\n{}",
        out.status,
        show()
    );
    let mut failed = Vec::new();
    let mut passed = 0;
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("ok ") {
            passed += 1;
            let name = rest.split_whitespace().next().unwrap_or("");
            if let Some((_, why)) = pending.iter().find(|(n, _)| *n == name) {
                eprintln!("note: {what}: pending check {name} ({why}) passes now");
            }
        } else if let Some(rest) = line.strip_prefix("FAIL ") {
            let name = rest.split(':').next().unwrap_or("");
            if !pending.iter().any(|(n, _)| *n == name) {
                failed.push(line.to_string());
            }
        }
    }
    assert!(
        failed.is_empty() && passed > 0,
        "{what}: {} check(s) failed:\n{}\n{}",
        failed.len(),
        failed.join("\n"),
        show()
    );
}

/// Outcome per test id from a JUnit file: "passed", "failed", "error", "skipped".
pub fn junit_outcomes(path: &Path) -> HashMap<String, String> {
    let xml = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = HashMap::new();
    for case in xml.split("<testcase").skip(1) {
        let attr = |name: &str| {
            // ` name="` (with its space): `classname="` ends in `name="` too.
            let key = format!(" {name}=\"");
            case.find(&key).map(|i| {
                let rest = &case[i + key.len()..];
                rest[..rest.find('"').unwrap_or(0)].to_string()
            })
        };
        let (Some(class), Some(name)) = (attr("classname"), attr("name")) else {
            continue;
        };
        let head = &case[..case.find("</testcase>").unwrap_or(case.len())];
        let status = if head.contains("<failure") {
            "failed"
        } else if head.contains("<error") {
            "error"
        } else if head.contains("<skipped") {
            "skipped"
        } else {
            "passed"
        };
        out.insert(format!("{class}::{name}"), status.to_string());
    }
    out
}

/// Builds the ground-truth probe `scripts/ground-truth/SOURCE` with the pinned nvcc (`args`
/// before the source) into `target/cuda-tests/OUTPUT`.
pub fn build_probe(source: &str, output: &str, args: &[&str]) -> PathBuf {
    let exe = build_dir().join(output);
    let mut all: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    all.push(repo().join("scripts/ground-truth").join(source).into());
    nvcc_into(&all, &exe, source);
    exe
}

/// Asserts that `out`, a ground-truth probe's run on the shim, exited 0 and printed every line
/// the GPU printed (`scripts/ground-truth/results/RECORDED`, its `exit N` line left out), in
/// the same order. Lines a probe gained after the record (questions not asked of a GPU yet) may
/// come between them.
pub fn assert_prints_recorded(out: &Output, recorded: &str) {
    let got = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{recorded}: probe failed ({}):\n{got}\n{err}",
        out.status
    );
    assert_tiers_agree(recorded, &err);
    let path = repo().join("scripts/ground-truth/results").join(recorded);
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{recorded}: {e}"));
    let mut lines = got.lines();
    for w in want.lines().filter(|l| !l.starts_with("exit ")) {
        assert!(
            lines.any(|g| g == w),
            "the shim did not print {w:?} where the GPU did ({recorded}):\n{got}\n{err}"
        );
    }
}
