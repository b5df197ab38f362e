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
