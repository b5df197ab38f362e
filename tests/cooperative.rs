//! Cooperative launches through NVIDIA's cudart: `cudaLaunchCooperativeKernel` and
//! `cudaLaunchKernelEx` with `cudaLaunchAttributeCooperative`, cooperative groups'
//! `grid.sync()` in a multi-phase kernel (grid-wide reduction, broadcast, a second phase over
//! other blocks' results), the co-residency limit (occupancy x SM count; one block more is
//! cudaErrorCooperativeLaunchTooLarge) and the device attribute. The program checks its results
//! against host arithmetic and prints `PASS`; it needs NVIDIA's pip toolkit
//! (`scripts/install-toolkit.sh`). `cuLaunchCooperativeKernelMultiDevice`: what an H200
//! answered on one device (scripts/ground-truth/results/coop-multi-h200.txt), and two emulated
//! devices each running its grid.

use tests::*;

#[test]
fn grid_sync_multi_phase_and_limits() {
    let exe = nvcc("coop_grid_sync", "coop_grid_sync", &[]);
    let out = run_preloaded(&exe, &[]);
    assert_pass("coop_grid_sync", &out);
    // The limit the program printed is the default (H100) profile's SM count times the
    // occupancy the shim reports for the kernel.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("x 132 SMs"), "{err}");
}

/// The A100 profile on two host threads: grids of hundreds of co-resident CTAs must not
/// deadlock when only two of them run at a time.
#[test]
fn grid_sync_on_two_host_threads_a100() {
    let exe = nvcc("coop_grid_sync", "coop_grid_sync_a100", &[]);
    let out = run_preloaded(
        &exe,
        &[("CUDA_SHIM_THREADS", "2"), ("CUDA_SHIM_DEVICE", "a100")],
    );
    assert_pass("coop_grid_sync on 2 threads (a100)", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("x 108 SMs"), "{err}");
}

/// The grid the occupancy calculator allows, with the dynamic shared memory of the launch, is
/// accepted (NVIDIA's conjugate-gradient sample launches exactly that), and the H100's 8 blocks
/// per SM for a trivial 256-thread kernel. Both depend on the register count the occupancy
/// calculator uses: with virtual registers counted (up to 255) the occupancy is 0 and the
/// sample's grid of 0 blocks is cudaErrorInvalidValue; registers are estimated as ptxas
/// allocates them (`engine/src/regs.rs`).
#[test]
fn occupancy_sized_cooperative_grid_is_accepted() {
    let exe = nvcc("coop_occupancy", "coop_occupancy", &[]);
    assert_pass("coop_occupancy", &run_preloaded(&exe, &[]));
}

/// scripts/ground-truth/coop_multi_probe.cpp on the shim prints what an H200 printed
/// (scripts/ground-truth/results/coop-multi-h200.txt), line for line: the attribute
/// COOPERATIVE_MULTI_DEVICE_LAUNCH is 1, a launch on one device writes all 256 elements, flags
/// 0 and 3 run, flags 4, a NULL list, zero devices and the same device twice are
/// CUDA_ERROR_INVALID_VALUE, a NULL stream or function CUDA_ERROR_INVALID_HANDLE, a block of
/// 2,048 threads CUDA_ERROR_INVALID_VALUE, a grid of 2^20 blocks
/// CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE.
#[test]
fn the_multi_device_probe_answers_what_an_h200_answered() {
    let lib = lib_dir();
    let exe = build_probe(
        "coop_multi_probe.cpp",
        "coop_multi_probe",
        &[
            "-Xcompiler",
            "-Wno-deprecated-declarations",
            "-L",
            lib.to_str().unwrap(),
            "-lcuda",
        ],
    );
    assert_prints_recorded(&run_preloaded(&exe, &[]), "coop-multi-h200.txt");
}

/// Two emulated devices (`tests/cuda/coop_multi_device.cu`): one cooperative grid per device,
/// both run (each synchronises its grid and sums its device's buffer), under every flag; the
/// documented pre- and post-launch synchronisation between the streams, and mismatched
/// entries refused.
#[test]
fn multi_device_launch_runs_a_grid_on_each_device() {
    let lib = lib_dir();
    let exe = nvcc(
        "coop_multi_device",
        "coop_multi_device",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    let out = std::process::Command::new(&exe)
        .env("LD_PRELOAD", &shim().library)
        .env("CUDA_SHIM_DEVICES", "2")
        .env_remove("CUDA_VISIBLE_DEVICES")
        .output()
        .unwrap();
    assert_pass("coop_multi_device", &out);
}
