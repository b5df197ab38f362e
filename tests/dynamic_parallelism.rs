//! Dynamic parallelism (CUDA 12 semantics) and the device runtime, in programs built by nvcc
//! with `-rdc=true -lcudadevrt`: kernels launching kernels from device code, tail launches,
//! device streams, events, copies and allocations, the nesting limit, and cooperative groups
//! through the device runtime's entry points. Each program checks itself against a host
//! computation, what an H200 answered (scripts/ground-truth/results/cdp-h200.txt), the CUDA
//! documentation or the host cudart's answers, and prints `PASS`. The ground-truth probe
//! `scripts/ground-truth/cdp_probe.cu` prints on the shim what it printed on the H200.

use tests::*;

/// Builds `tests/cuda/NAME.cu` for dynamic parallelism into `output` (each test its own file:
/// tests run in parallel).
fn cdp(name: &str, output: &str, extra: &[&str]) -> std::path::PathBuf {
    let mut args = vec!["-rdc=true"];
    args.extend_from_slice(extra);
    args.push("-lcudadevrt");
    nvcc(name, output, &args)
}

/// A recursive quicksort whose partitions launch grids from device code, checked against
/// `std::sort`; its tail-launched check sees the whole tree finished.
#[test]
fn recursive_quicksort() {
    let exe = cdp("cdp_quicksort", "cdp_quicksort", &[]);
    assert_pass("cdp_quicksort", &run_preloaded(&exe, &[]));
}

/// Adaptive refinement (Mariani-Silver), blocks of three levels of grids launching fills,
/// subdivisions and per-pixel grids; equal pixel for pixel to the same algorithm on the host.
#[test]
fn adaptive_refinement() {
    let exe = cdp("cdp_refine", "cdp_refine", &["-fmad=false"]);
    assert_pass("cdp_refine", &run_preloaded(&exe, &[]));
}

/// The device runtime's other calls, the nesting limit (2049 levels, then
/// cudaErrorLaunchPendingCountExceeded, as on an H200: cdp-h200.txt), cooperative groups through
/// `cudaCGSynchronize`, and a faulting child failing the host's synchronisation with a report
/// that names the child kernel.
#[test]
fn device_runtime_calls() {
    let exe = cdp("cdp_runtime", "cdp_runtime", &[]);
    let out = run_preloaded(&exe, &[]);
    assert_pass("cdp_runtime", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("illegal address 0x10 in kernel '_Z12faulty_childPi'"),
        "{err}"
    );
}

/// With two devices, a grid launched on device 1 and its child both run there: device code's
/// `cudaGetDevice` answers 1, and the child writes device 1's memory.
#[test]
fn child_grids_run_on_their_parents_device() {
    let exe = cdp("cdp_runtime", "cdp_runtime_device1", &[]);
    let out = std::process::Command::new(&exe)
        .arg("device1")
        .env("LD_PRELOAD", &shim().library)
        .env("CUDA_SHIM_DEVICES", "2")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .output()
        .unwrap();
    assert_pass("cdp_runtime device1", &out);
}

/// The same programs on one host thread and in a seeded schedule: the order children run in
/// does not depend on the number of workers.
#[test]
fn quicksort_on_one_thread_and_seeded() {
    let exe = cdp("cdp_quicksort", "cdp_quicksort_schedules", &[]);
    assert_pass(
        "cdp_quicksort, 1 thread",
        &run_preloaded(&exe, &[("CUDA_SHIM_THREADS", "1")]),
    );
    assert_pass(
        "cdp_quicksort, seeded",
        &run_preloaded(&exe, &[("CUDA_SHIM_SCHEDULE", "seed:7")]),
    );
}

/// scripts/ground-truth/cdp_probe.cu on the shim prints every line an H200 printed
/// (scripts/ground-truth/results/cdp-h200.txt), in order: nesting to level 2049 and failing
/// there with cudaErrorLaunchPendingCountExceeded (69); device streams with flags 0 accepted;
/// events with flags 0 refused (1) and DisableTiming|BlockingSync accepted; launches of 2048
/// threads (9), into a host-created stream (1) and with 1 MiB of dynamic shared memory (9);
/// 5000 launches from one thread; the grid handle 0 outside a cooperative launch; the device's
/// limits (their codes ORed to 215; the printf FIFO 8650752, the sync depth ~0); error texts.
#[test]
fn the_device_runtime_probe_answers_what_an_h200_answered() {
    let exe = build_probe(
        "cdp_probe.cu",
        "cdp_probe",
        &["-arch=sm_90", "-rdc=true", "-lcudadevrt"],
    );
    let out = run_preloaded(&exe, &[]);
    assert_prints_recorded(&out, "cdp-h200.txt");
    // Questions added after the record: each limit's code (the sync depth the one refused),
    // and nesting under a pending-launch limit of 100: level 101 is the last.
    let got = String::from_utf8_lossy(&out.stdout);
    for line in [
        "device limit codes: stack 0 printf 0 heap 0 syncdepth 215 pending 0",
        "pending launch count 100 (set 0): sync 0, deepest 101, failed at level 101 with 69",
    ] {
        assert!(got.contains(line), "{line:?} not in\n{got}");
    }
}
