//! What programs built for a real driver find: every symbol NVIDIA's `libcuda.so.1` exports
//! (the unversioned legacy names among them, with their original ABI), the launch API before
//! `cuLaunchKernel`, `__managed__` variables of CUDA 13 programs, the profiler calls, the launch
//! configuration codes cudart reports, fork() children, and PTX newer than the emulated device.
//! Expected values come from the driver API documentation, an H100 (driver 580.159) or the
//! arithmetic of the programs (each `.cu` says which).

use std::collections::HashSet;
use std::process::Command;
use tests::*;

/// Symbols of the real libcuda.so.1 that are not driver API: the debugger's interface
/// (`cudbg*`: variables and hooks cuda-gdb reads and writes in the process). A CPU driver has
/// no GPU debugger to serve.
fn internal(name: &str) -> bool {
    name.starts_with("cudbg")
}

#[test]
fn every_symbol_of_the_real_driver_is_exported() {
    let text =
        std::fs::read_to_string(repo().join("libcuda-shim/testdata/libcuda-580.159-exports.txt"))
            .unwrap();
    let real: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    assert_eq!(real.len(), 707);
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&shim().library)
        .output()
        .expect("cannot run nm");
    assert!(out.status.success());
    let symbols = String::from_utf8_lossy(&out.stdout);
    let exported: HashSet<&str> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let missing: Vec<&str> = real
        .iter()
        .copied()
        .filter(|s| !exported.contains(s))
        .collect();
    let (internal, api): (Vec<&str>, Vec<&str>) = missing.into_iter().partition(|s| internal(s));
    println!(
        "not exported ({}), all internal: {}",
        internal.len(),
        internal.join(" ")
    );
    assert!(api.is_empty(), "driver functions not exported: {api:?}");
}

#[test]
fn legacy_names_dlsym_and_legacy_launch_api() {
    let lib = lib_dir();
    let exe = nvcc(
        "legacy_api",
        "legacy_api",
        &["-L", lib.to_str().unwrap(), "-lcuda", "-ldl"],
    );
    assert_pass("legacy_api", &run_preloaded(&exe, &[]));
}

#[test]
fn managed_variables_and_profiler_calls_of_a_cuda_13_program() {
    let exe = nvcc("managed_vars", "managed_vars", &[]);
    assert_pass("managed_vars", &run_preloaded(&exe, &[]));
}

#[test]
fn launch_configuration_errors_are_what_cudart_reports_on_a_gpu() {
    let exe = nvcc("launch_config", "launch_config", &[]);
    assert_pass("launch_config", &run_preloaded(&exe, &[]));
}

#[test]
fn a_forked_child_gets_not_initialized_and_never_hangs() {
    let lib = lib_dir();
    let exe = nvcc(
        "fork_child",
        "fork_child",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("fork_child", &run_preloaded(&exe, &[]));
}

#[test]
fn newer_ptx_runs_when_the_image_has_nothing_older_unless_strict() {
    // A fatbin with PTX for compute_100 only (nvcc accepts the virtual architecture alone), on
    // the default sm_90 profile.
    let exe = nvcc_arch("vector_add", "vector_add_compute100", "compute_100", &[]);
    let out = run_preloaded(&exe, &[("CUDA_SHIM_TRACE", "1")]);
    assert_pass("compute_100 vector_add", &out);
    let trace = String::from_utf8_lossy(&out.stderr);
    assert!(
        trace.contains("running its compute_100 PTX on the emulated sm_90 device"),
        "{trace}"
    );
    // A GPU driver refuses it: no kernel image for the device.
    let out = run_preloaded(&exe, &[("CUDA_SHIM_STRICT_ARCH", "1")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "strict mode ran it");
    assert!(
        stderr.contains("cudaErrorNoKernelImageForDevice")
            && stderr.contains("CUDA_SHIM_STRICT_ARCH=1"),
        "{stderr}"
    );
    let info = Command::new(&shim().cli).arg("info").output().unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(
        info.contains("only newer PTX") && info.contains("CUDA_SHIM_STRICT_ARCH=1"),
        "{info}"
    );
}
