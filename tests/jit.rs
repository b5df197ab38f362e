//! The compiling tier (`CUDA_SHIM_JIT`, `engine::jit`) on nvcc-built programs: each program of
//! the ISA suite checks its own results against host computations and prints `PASS`; here it
//! runs with the tier on, and in verify mode, where every compiled segment is also interpreted
//! and any difference is reported on stderr. (`on` compiles a kernel once it is hot,
//! `CUDA_SHIM_JIT_HOT`, and these programs' kernels run briefly: they run with it 0, each
//! kernel compiled at its first launch, as verify mode compiles them.)

use std::process::Command;
use tests::*;

const PROGRAMS: [&str; 6] = [
    "isa_integer",
    "isa_math",
    "isa_atomics",
    "isa_warp",
    "reduction",
    "saxpy",
];

#[test]
fn isa_programs_pass_on_the_compiling_tier_and_verify_clean() {
    for name in PROGRAMS {
        let exe = nvcc(name, name, &[]);
        for mode in ["on", "verify"] {
            let out = run_preloaded(&exe, &[("CUDA_SHIM_JIT", mode), ("CUDA_SHIM_JIT_HOT", "0")]);
            assert_pass(&format!("{name} (CUDA_SHIM_JIT={mode})"), &out);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("jit verify"), "{name}:\n{stderr}");
        }
    }
}

/// `--stats` names the tier: the compiling tier with the share of the kernel's ops it took.
#[test]
fn stats_name_the_compiling_tier() {
    let exe = nvcc("saxpy", "saxpy", &[]);
    let out = Command::new(&shim().cli)
        .args(["run", "--stats", "--"])
        .arg(&exe)
        .env("CUDA_SHIM_JIT", "on")
        .env("CUDA_SHIM_JIT_HOT", "0")
        .output()
        .unwrap();
    assert_pass("saxpy", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let row = stderr
        .lines()
        .find(|l| l.contains("saxpy"))
        .unwrap_or_else(|| panic!("no row for saxpy:\n{stderr}"));
    // (", cached" when an earlier run of the suite compiled it: tests/jit_cache.rs.)
    assert!(
        row.contains(" jit ") && (row.ends_with("ops") || row.ends_with("ops, cached")),
        "{row}"
    );
}
