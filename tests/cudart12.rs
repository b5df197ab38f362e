//! The project's end-to-end programs built against NVIDIA's cudart 12.9 (static and shared)
//! and run on the shim, with the same pass criteria as their CUDA 13 tests.
//!
//! The CUDA 12 pip packages ship cudart 12.9 and its headers but no `nvcc` binary, so the
//! programs are compiled by the pinned CUDA 13 nvcc with cudart 12.9's headers first on the
//! include path (the host code is compiled against the 12.9 runtime API; the device code and
//! the registration stubs nvcc emits are the same across these versions) and `-cudart none`
//! plus an explicit link against cudart 12.9's `libcudart_static.a` or `libcudart.so.12`.
//! Each program is compiled once and linked twice (static and shared), and each run uses
//! `LD_BIND_NOW=1`, so every symbol the program takes from cudart (the `__cudaRegister*` stubs
//! included) must resolve at start-up.
//!
//! Every program in `tests/cuda/` that the CUDA 13 tests build with cudart has one test here,
//! except those that cannot be built or checked with the 12.9 headers:
//! - `driver_api`, `modules_memory`, `vmm` call `cuCtxCreate(&ctx, nullptr, 0, dev)`, CUDA 13's
//!   signature; under 12.9's `cuda.h` that name is the three-argument `cuCtxCreate_v2`, so they
//!   do not compile (and they are driver-API programs: the runtime does not matter to them);
//! - `isa_warp` (both builds), `coop_grid_sync`, `clusters` and `graph_clusters` include
//!   `cooperative_groups.h`: 12.9's includes
//!   `<cuda/std/type_traits>`, which the cudart 12.9 package does not ship, so CUDA 13's CCCL is
//!   found and stops with "CUDA compiler and CUDA toolkit headers are incompatible";
//! - `occupancy` expects `cuFuncGetAttribute(.., CU_FUNC_ATTRIBUTE_MAX, ..)` to be invalid, but
//!   12.9's `CU_FUNC_ATTRIBUTE_MAX` (20) is a valid attribute of the CUDA 13 driver API the shim
//!   implements; its other checks would pass.
//!
//! cudart 12.9 takes a different path through the driver than 13.x (see
//! `shared/reference/cudart-contract.md`): 419 lookups, and kernels through
//! `cuCtxPushCurrent_v2`, `cuLibraryGetModule`, `cuCtxPopCurrent_v2`, `cuModuleGetFunction`
//! instead of `cuLibraryGetKernel`; a trace checks that the 12.9 path is the one taken.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use tests::*;

/// cudart 12.9's root (include/, lib/), installed by `scripts/install-toolkit.sh --cudart12`.
fn cudart12() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| install_toolkit(&["--cudart12"]))
}

/// How a program is linked against cudart 12.9.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Link {
    Static,
    Shared,
}

const LINKS: [Link; 2] = [Link::Static, Link::Shared];

fn checked(cmd: &mut Command, what: &str) {
    let out = cmd.output().expect("cannot run nvcc");
    assert!(
        out.status.success(),
        "{what} against cudart 12.9 failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles `tests/cuda/NAME.cu` against cudart 12.9's headers into an object (`flags`: extra
/// compiler flags), once for both links.
fn compile(name: &str, output: &str, flags: &[&str]) -> PathBuf {
    let obj = build_dir().join(format!("{output}_cudart12.o"));
    checked(
        Command::new(toolkit().join("bin/nvcc"))
            .args(["-c", "-gencode", "arch=compute_80,code=compute_80", "-O2"])
            .arg("-I")
            .arg(cudart12().join("include"))
            .args(flags)
            .arg("-o")
            .arg(&obj)
            .arg(repo().join("tests/cuda").join(format!("{name}.cu"))),
        &format!("compiling {name}"),
    );
    obj
}

/// Links an object against cudart 12.9 (and the shim as `libcuda.so` when `driver_api`).
fn link(obj: &Path, output: &str, link: Link, driver_api: bool) -> PathBuf {
    let rt = cudart12();
    let suffix = if link == Link::Static {
        "static"
    } else {
        "shared"
    };
    let exe = build_dir().join(format!("{output}_cudart12_{suffix}"));
    let mut cmd = Command::new(toolkit().join("bin/nvcc"));
    cmd.args(["-cudart", "none", "-o"]).arg(&exe).arg(obj);
    match link {
        Link::Static => {
            cmd.arg(rt.join("lib/libcudart_static.a"))
                .args(["-ldl", "-lpthread", "-lrt"])
        }
        Link::Shared => cmd.arg("-L").arg(rt.join("lib")).arg("-l:libcudart.so.12"),
    };
    if driver_api {
        cmd.arg("-L").arg(lib_dir()).arg("-lcuda");
    }
    checked(&mut cmd, &format!("linking {output} ({suffix})"));
    exe
}

/// Builds `tests/cuda/NAME.cu` against cudart 12.9 with no extra flags, as `NAME_OUTPUT` (apart
/// from the suite's build of the same program, which may run at the same time).
fn build(name: &str, suffix: &str, link_as: Link) -> PathBuf {
    let output = format!("{name}_{suffix}");
    link(&compile(name, &output, &[]), &output, link_as, false)
}

fn run(exe: &Path, args: &[&str], envs: &[(&str, &str)]) -> Output {
    Command::new(exe)
        .args(args)
        .env("LD_PRELOAD", &shim().library)
        .env("LD_LIBRARY_PATH", cudart12().join("lib"))
        .env("LD_BIND_NOW", "1")
        .envs(envs.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()))
}

/// One program of the suite: how to build and run it, and what passing means.
struct Program<'a> {
    /// `tests/cuda/NAME.cu`.
    name: &'a str,
    /// Output name (a program may be built several ways).
    output: &'a str,
    flags: &'a [&'a str],
    /// Links `-lcuda` (calls the driver API itself).
    driver_api: bool,
    args: &'a [&'a str],
    /// The pass criterion, given a description and the run's output.
    check: fn(&str, &Output),
}

impl Program<'_> {
    fn new(name: &str) -> Program<'_> {
        Program {
            name,
            output: name,
            flags: &[],
            driver_api: false,
            args: &[],
            check: |what, out| {
                assert_pass(what, out);
            },
        }
    }

    /// Builds once, links static and shared, runs both and applies the criterion to each.
    fn run_both(&self) {
        let obj = compile(self.name, self.output, self.flags);
        for l in LINKS {
            let exe = link(&obj, self.output, l, self.driver_api);
            let out = run(&exe, self.args, &[]);
            (self.check)(&format!("{} with cudart 12.9 ({l:?})", self.output), &out);
        }
    }
}

fn stdout_is(what: &str, out: &Output, want: &str) {
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        want,
        "{what}: stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---- tests/programs.rs

#[test]
fn vector_add() {
    Program::new("vector_add").run_both();
}

#[test]
fn saxpy() {
    Program::new("saxpy").run_both();
}

#[test]
fn reduction() {
    Program::new("reduction").run_both();
}

#[test]
fn illegal_address() {
    Program {
        check: |what, out| {
            assert!(out.status.success(), "{what} crashed");
            stdout_is(
                what,
                out,
                "launch=cudaSuccess sync=cudaErrorIllegalAddress after=cudaErrorIllegalAddress\n",
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            for needle in ["_Z4pokePi", "thread (5,0,0)", "0x1014", "line"] {
                assert!(stderr.contains(needle), "{what}: no {needle:?}:\n{stderr}");
            }
        },
        ..Program::new("illegal_address")
    }
    .run_both();
}

#[test]
fn printf() {
    Program {
        check: |what, out| {
            assert!(out.status.success(), "{what} failed");
            stdout_is(what, out, PRINTF_STDOUT);
        },
        ..Program::new("printf")
    }
    .run_both();
}

#[test]
fn assert() {
    Program {
        check: |what, out| {
            stdout_is(what, out, "sync: cudaErrorAssert\n");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("assert.cu:8: void check(const int *): block: [0,0,0], thread: [3,0,0] Assertion `v[threadIdx.x] != 3` failed."),
                "{what}: {stderr}"
            );
        },
        ..Program::new("assert")
    }
    .run_both();
}

// ---- tests/driver.rs

#[test]
fn streams_legacy() {
    Program {
        args: &["legacy"],
        ..Program::new("streams")
    }
    .run_both();
}

#[test]
fn streams_per_thread() {
    Program {
        output: "streams_ptds",
        flags: &["--default-stream", "per-thread"],
        args: &["ptds"],
        ..Program::new("streams")
    }
    .run_both();
}

#[test]
fn sticky_reset() {
    Program {
        check: |what, out| {
            assert!(out.status.success(), "{what} crashed");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout).trim(),
                STICKY_RESET_STDOUT,
                "{what}: stderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        },
        ..Program::new("sticky_reset")
    }
    .run_both();
}

#[test]
fn memory2d() {
    Program::new("memory2d").run_both();
}

#[test]
fn arrays() {
    Program {
        driver_api: true,
        ..Program::new("arrays")
    }
    .run_both();
}

// ---- tests/graphs.rs, tests/concurrency.rs

#[test]
fn graph_capture() {
    Program::new("graph_capture").run_both();
}

#[test]
fn graph_nodes() {
    Program::new("graph_nodes").run_both();
}

#[test]
fn threads() {
    Program::new("threads").run_both();
}

// ---- tests/isa_programs.rs (the variants its ignored tests name stay out, as there; isa_warp:
// see the top of this file)

#[test]
fn isa_atomics() {
    Program::new("isa_atomics").run_both();
}

#[test]
fn isa_recursion() {
    Program::new("isa_recursion").run_both();
}

#[test]
fn isa_local() {
    Program::new("isa_local").run_both();
}

#[test]
fn isa_math() {
    Program::new("isa_math").run_both();
}

#[test]
fn isa_math_fast() {
    Program {
        output: "isa_math_fast",
        flags: &["-use_fast_math", "-DFAST"],
        ..Program::new("isa_math")
    }
    .run_both();
}

#[test]
fn isa_integer() {
    Program {
        check: |what, out| {
            let stdout = assert_pass(what, out);
            assert!(stdout.contains("unspecified:"), "{what}: {stdout}");
        },
        ..Program::new("isa_integer")
    }
    .run_both();
}

#[test]
fn isa_half() {
    Program::new("isa_half").run_both();
}

#[test]
fn big_alloc() {
    Program::new("big_alloc").run_both();
}

#[test]
fn isa_frames() {
    Program::new("isa_frames").run_both();
}

#[test]
fn isa_call_barriers() {
    Program::new("isa_call_barriers").run_both();
}

#[test]
fn isa_sync_groups() {
    Program::new("isa_sync_groups").run_both();
}

#[test]
fn isa_grid_constant() {
    Program::new("isa_grid_constant").run_both();
}

// ---- tests/driver_compat.rs

#[test]
fn launch_config() {
    Program::new("launch_config").run_both();
}

#[test]
fn managed_vars() {
    Program::new("managed_vars").run_both();
}

#[test]
fn fork_child() {
    Program {
        driver_api: true,
        ..Program::new("fork_child")
    }
    .run_both();
}

#[test]
fn cudart12_takes_the_module_path() {
    let exe = build("vector_add", "traced", Link::Static);
    let trace = build_dir().join("vector_add_cudart12.trace");
    let _ = std::fs::remove_file(&trace);
    let out = run(&exe, &[], &[("CUDA_SHIM_TRACE", trace.to_str().unwrap())]);
    assert_pass("vector_add with cudart 12.9, traced", &out);
    let log = std::fs::read_to_string(&trace).unwrap();
    for call in [
        "cuCtxPushCurrent_v2(",
        "cuLibraryGetModule(",
        "cuCtxPopCurrent_v2(",
        "cuModuleGetFunction(",
    ] {
        assert!(log.contains(call), "cudart 12.9 trace lacks {call}");
    }
    assert!(
        !log.contains("cuLibraryGetKernel("),
        "a cudart 13 path was taken"
    );
    // cudart 12.9 asks for 419 symbols (cudart 13.5: 481).
    let lookups = log
        .lines()
        .filter(|l| l.contains("cuGetProcAddress_v2("))
        .count();
    assert_eq!(lookups, 419);
}
