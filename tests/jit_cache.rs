//! The compiling tier's on-disk cache (`CUDA_SHIM_CACHE_DIR`) on an nvcc-built program: the
//! first run compiles and keeps the code, the second loads every kernel from the cache and
//! compiles nothing (`--stats` says so), both pass; processes racing into an empty directory
//! all pass and leave entries the next run uses; `off` keeps nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tests::*;

/// `saxpy` (checks its own results) under `cuda-shim run --stats` with the cache in `dir`.
/// Its kernel is compiled, or loaded from the cache, part way through its launch: once it has
/// run 1000 thread-instructions per op interpreted (`CUDA_SHIM_JIT_HOT`; a few of its 1024
/// blocks), or a sixteenth of that.
fn run(exe: &Path, dir: &str) -> Output {
    Command::new(&shim().cli)
        .args(["run", "--stats", "--"])
        .arg(exe)
        .env("CUDA_SHIM_JIT", "on")
        .env("CUDA_SHIM_JIT_HOT", "1000")
        .env("CUDA_SHIM_CACHE_DIR", dir)
        .output()
        .unwrap()
}

/// Kernels compiled and kernels loaded from the cache, as `--stats` reports them:
/// `compiling tier: N kernels compiled in X ms, M loaded from the cache in Y ms ...`.
fn counts(out: &Output) -> (u64, u64) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("compiling tier: "))
        .unwrap_or_else(|| panic!("no compiling-tier line:\n{stderr}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let after = |w: &str| -> u64 {
        let i = words.iter().position(|x| *x == w).unwrap();
        words[i - 1].parse().unwrap_or_else(|_| panic!("{line}"))
    };
    (after("kernels"), after("loaded"))
}

fn fresh(name: &str) -> PathBuf {
    let d = build_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "jit"))
            .count()
    })
}

#[test]
fn second_run_loads_every_kernel_from_the_cache() {
    let exe = nvcc("saxpy", "saxpy_jit_cache", &[]);
    let dir = fresh("jit-cache-e2e");
    let d = dir.to_str().unwrap();

    let first = run(&exe, d);
    assert_pass("saxpy, first run", &first);
    let (compiled, cached) = counts(&first);
    assert!(compiled >= 1 && cached == 0, "{compiled} {cached}");
    assert_eq!(
        entries(&dir),
        compiled as usize,
        "one entry per compiled kernel"
    );

    let second = run(&exe, d);
    assert_pass("saxpy, second run", &second);
    assert_eq!(
        counts(&second),
        (0, compiled),
        "nothing compiled the second time"
    );
    let stderr = String::from_utf8_lossy(&second.stderr);
    let row = stderr.lines().find(|l| l.contains("saxpy")).unwrap();
    assert!(row.ends_with("ops, cached"), "{row}");

    // Off: compiled, nothing kept, nothing read.
    for off in ["off", "0", ""] {
        let out = run(&exe, off);
        assert_pass("saxpy, cache off", &out);
        assert_eq!(counts(&out), (compiled, 0), "CUDA_SHIM_CACHE_DIR={off:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn processes_racing_into_an_empty_cache_all_pass() {
    let exe = nvcc("saxpy", "saxpy_jit_cache_race", &[]);
    let dir = fresh("jit-cache-race");
    let d = dir.to_str().unwrap();
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(&shim().cli)
                .args(["run", "--stats", "--"])
                .arg(&exe)
                .env("CUDA_SHIM_CACHE_DIR", d)
                .env("CUDA_SHIM_THREADS", "1")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut compiled = 0;
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_pass("saxpy, racing", &out);
        let (n, m) = counts(&out);
        compiled = compiled.max(n + m);
    }
    assert_eq!(entries(&dir), compiled as usize);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let after = run(&exe, d);
    assert_pass("saxpy, after the race", &after);
    assert_eq!(counts(&after), (0, compiled));
    let _ = std::fs::remove_dir_all(&dir);
}
