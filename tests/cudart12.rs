//! The project's end-to-end programs built against NVIDIA's cudart 12.9 (static and shared)
//! and run on the shim.
//!
//! The CUDA 12 pip packages ship cudart 12.9 and its headers but no `nvcc` binary, so the
//! programs are compiled by the pinned CUDA 13 nvcc with cudart 12.9's headers first on the
//! include path (the host code is compiled against the 12.9 runtime API; the device code and
//! the registration stubs nvcc emits are the same across these versions) and `-cudart none`
//! plus an explicit link against cudart 12.9's `libcudart_static.a` or `libcudart.so.12`.
//! Each run uses `LD_BIND_NOW=1`, so every symbol the program takes from cudart (the
//! `__cudaRegister*` stubs included) must resolve at start-up.
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
    ROOT.get_or_init(|| {
        let out = Command::new("bash")
            .arg(repo().join("scripts/install-toolkit.sh"))
            .arg("--cudart12")
            .output()
            .expect("cannot run scripts/install-toolkit.sh");
        assert!(
            out.status.success(),
            "these tests need NVIDIA's pip cudart 12.9 and scripts/install-toolkit.sh --cudart12 failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Link {
    Static,
    Shared,
}

/// Builds `tests/cuda/NAME.cu` against cudart 12.9.
fn build(name: &str, link: Link) -> PathBuf {
    let rt = cudart12();
    let suffix = if link == Link::Static {
        "static"
    } else {
        "shared"
    };
    let exe = build_dir().join(format!("{name}_cudart12_{suffix}"));
    let mut cmd = Command::new(toolkit().join("bin/nvcc"));
    cmd.args(["-gencode", "arch=compute_80,code=compute_80", "-O2"])
        .arg("-I")
        .arg(rt.join("include"))
        .args(["-cudart", "none", "-o"])
        .arg(&exe)
        .arg(repo().join("tests/cuda").join(format!("{name}.cu")));
    match link {
        Link::Static => {
            cmd.arg(rt.join("lib/libcudart_static.a"))
                .args(["-ldl", "-lpthread", "-lrt"])
        }
        Link::Shared => cmd.arg("-L").arg(rt.join("lib")).arg("-l:libcudart.so.12"),
    };
    let out = cmd.output().expect("cannot run nvcc");
    assert!(
        out.status.success(),
        "nvcc failed for {name} against cudart 12.9:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
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

fn program(name: &str, args: &[&str], link: Link) {
    let exe = build(name, link);
    assert_pass(&format!("{name} with cudart 12.9"), &run(&exe, args, &[]));
}

#[test]
fn vector_add_static_and_shared() {
    program("vector_add", &[], Link::Static);
    program("vector_add", &[], Link::Shared);
}

#[test]
fn saxpy_static_and_shared() {
    program("saxpy", &[], Link::Static);
    program("saxpy", &[], Link::Shared);
}

#[test]
fn reduction_static_and_shared() {
    program("reduction", &[], Link::Static);
    program("reduction", &[], Link::Shared);
}

#[test]
fn streams_static_and_shared() {
    program("streams", &["legacy"], Link::Static);
    program("streams", &["legacy"], Link::Shared);
}

#[test]
fn graphs_static() {
    program("graph_capture", &[], Link::Static);
    program("graph_nodes", &[], Link::Static);
}

#[test]
fn printf_static_and_shared() {
    for link in [Link::Static, Link::Shared] {
        let exe = build("printf", link);
        let out = run(&exe, &[], &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The same output as with cudart 13 (tests/programs.rs).
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "before\nlaunched\n\
             thread 0: 10 0.000 even a ff\n\
             thread 1: 11 0.500 odd b 100\n\
             thread 2: 12 1.000 even c 101\n\
             thread 3: 13 1.500 odd d 102\n\
             between\nheap sum 332833500\nafter: cudaSuccess\n"
        );
    }
}

#[test]
fn cudart12_takes_the_module_path() {
    let exe = build("vector_add", Link::Static);
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
