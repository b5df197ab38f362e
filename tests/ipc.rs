//! Interprocess memory and events between two processes running the shim
//! (`tests/cuda/ipc.cu`: a parent and a child it starts with fork() + exec()), VMM allocations
//! exported as POSIX file descriptors, and fork() while a stream is busy. Expected values come
//! from the programs' arithmetic, the driver API documentation and an H100/H200
//! (`scripts/ground-truth/results/fork-h200.txt`); each `.cu` says which.

use std::path::PathBuf;
use tests::*;

/// `tests/cuda/ipc.cu`, linked against the shim's `libcuda.so` (it calls the driver API).
fn build(output: &str) -> PathBuf {
    let lib = lib_dir();
    nvcc("ipc", output, &["-L", lib.to_str().unwrap(), "-lcuda"])
}

#[test]
fn memory_events_and_vmm_descriptors_work_between_processes() {
    let exe = build("ipc");
    assert_pass("ipc", &run_preloaded(&exe, &[]));
}

#[test]
fn a_child_forked_while_a_stream_is_busy_never_hangs() {
    let exe = build("ipc_fork");
    let out = run_preloaded_args(&exe, &["fork"]);
    assert_pass("ipc fork", &out);
}

#[test]
fn imported_memory_passes_memcheck_in_both_processes() {
    // The sanitizer checks every access against the allocation map: the importer's mapping is
    // device memory there, and neither process leaks.
    let exe = build("ipc_memcheck");
    let out = run_preloaded(&exe, &[("CUDA_SHIM_CHECK", "memcheck,leaks")]);
    assert_pass("ipc under memcheck", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("ERROR SUMMARY: 0 errors").count(),
        2,
        "{stderr}"
    );
}
