//! Tensor-core instructions in nvcc-built programs (tests/cuda/tensor_cores.cu): wmma GEMMs for
//! every wmma type, mma.sync of each kind through inline PTX with ldmatrix, stmatrix and
//! movmatrix. The expected values are the CPU's integer GEMM (the inputs are small integers,
//! exact in every type), and one truncation case whose value comes from the mmasim model.
//! The dot products themselves are checked bit for bit against mmasim's vectors in
//! `engine::sem::mma`'s tests.

use tests::*;

#[test]
fn wmma_and_mma_programs_compute_their_gemms() {
    let lib = lib_dir();
    // compute_90: the f64 m16n8k8 shape is sm_90's.
    let exe = nvcc_arch(
        "tensor_cores",
        "tensor_cores",
        "compute_90",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    let out = run_preloaded(&exe, &[]);
    assert_pass("tensor_cores", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches(": ok").count(), 24, "{err}");
    // A warp of 16 threads running mma.sync: a launch error naming the instruction.
    assert!(
        err.contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 executed by a warp of 16 threads: every thread of a whole warp must execute it"),
        "{err}"
    );
}

/// The Tensor Memory Accelerator as the Programming Guide uses it (tests/cuda/tma.cu): tensor
/// maps from cuTensorMapEncodeTiled, linear cp.async.bulk copies both ways, 2-D boxes in every swizzle mode and a 3-D box with a
/// traversal stride copied by cp.async.bulk.tensor into shared memory (mbarrier completion)
/// and back out (bulk async-group), boxes crossing the tensor's edge, and the encoder's
/// argument checks (cuda.h's requirements). Expected values from the ISA's swizzle tables and
/// tile-mode rules, computed on the host.
#[test]
fn tma_copies_boxes_in_every_swizzle_mode() {
    let lib = lib_dir();
    let exe = nvcc_arch(
        "tma",
        "tma",
        "compute_90",
        &[
            "-std=c++17",
            "-diag-suppress",
            "1444",
            "-L",
            lib.to_str().unwrap(),
            "-lcuda",
        ],
    );
    let out = run_preloaded(&exe, &[]);
    assert_pass("tma", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches(": ok").count(), 8, "{err}");
}
