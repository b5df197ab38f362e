//! Cooperative launches through NVIDIA's cudart: `cudaLaunchCooperativeKernel` and
//! `cudaLaunchKernelEx` with `cudaLaunchAttributeCooperative`, cooperative groups'
//! `grid.sync()` in a multi-phase kernel (grid-wide reduction, broadcast, a second phase over
//! other blocks' results), the co-residency limit (occupancy x SM count; one block more is
//! cudaErrorCooperativeLaunchTooLarge) and the device attribute. The program checks its results
//! against host arithmetic and prints `PASS`; it needs NVIDIA's pip toolkit
//! (`scripts/install-toolkit.sh`).

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
