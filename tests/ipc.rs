//! Interprocess memory and events between two processes running the shim
//! (`tests/cuda/ipc.cu`: a parent and a child it starts with fork() + exec()), VMM allocations
//! exported as POSIX file descriptors, and fork() while a stream is busy. Expected values come
//! from the programs' arithmetic, the driver API documentation and an H100/H200
//! (`scripts/ground-truth/results/fork-h200.txt`, `ipc-h200.txt`); each `.cu` says which. The
//! ground-truth probe `scripts/ground-truth/ipc_probe.cpp` prints on the shim what it printed on
//! an H200.

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
    // device memory there, and neither process leaks. What memcheck reports is only the failed
    // API calls the program makes on purpose (its checks of the IPC calls' refusals).
    let exe = build("ipc_memcheck");
    let out = run_preloaded(&exe, &[("CUDA_SHIM_CHECK", "memcheck,leaks")]);
    assert_pass("ipc under memcheck", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("Invalid __") && !stderr.contains("Leaked"),
        "{stderr}"
    );
    let summaries: Vec<u64> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("========= ERROR SUMMARY: "))
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(summaries.len(), 2, "{stderr}");
    assert_eq!(
        summaries.iter().sum::<u64>(),
        stderr.matches("========= Program hit ").count() as u64,
        "{stderr}"
    );
}

/// scripts/ground-truth/ipc_probe.cpp (a parent and the child it execs) on the shim prints
/// every line an H200 printed (scripts/ground-truth/results/ipc-h200.txt), in order. Among
/// them: cuMemPoolExportPointer of an exportable pool's allocation before the pool itself was
/// exported is CUDA_ERROR_INVALID_VALUE (so the child's cuMemPoolImportPointer of that data is
/// too), cuIpcGetMemHandle of pool memory CUDA_ERROR_INVALID_VALUE, cuMemPoolCreate with
/// CU_MEM_HANDLE_TYPE_WIN32 CUDA_ERROR_INVALID_VALUE, cuIpcOpenMemHandle without
/// CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS CUDA_ERROR_INVALID_VALUE, an event handle of 64 zero
/// bytes CUDA_ERROR_MAP_FAILED, and one with flipped bytes too; cuMemPoolExportPointer once
/// the pool has been exported CUDA_SUCCESS.
#[test]
fn the_ipc_probe_answers_what_an_h200_answered() {
    let lib = lib_dir();
    let exe = build_probe(
        "ipc_probe.cpp",
        "ipc_probe",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    let out = run_preloaded(&exe, &[]);
    assert_prints_recorded(&out, "ipc-h200.txt");
}
