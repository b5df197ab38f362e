//! The 5th-generation tensor core (`tcgen05`, PTX ISA 9.7.16) in an nvcc-built program:
//! tests/cuda/tcgen05_gemm.cu, built for compute_100a and run on the B200 profile
//! (`CUDA_SHIM_DEVICE=b200`), a 256 x 128 x 256 f16 GEMM through Tensor Memory allocation,
//! `tcgen05.mma.kind::f16` with 128-byte-swizzled shared-memory descriptors, `tcgen05.commit`
//! to an mbarrier and `tcgen05.ld`. Expected values: the program's CPU GEMM of small integers
//! (exact in f16 inputs and f32 sums). tests/cuda/tcgen05_gemm_2sm.cu does the same with CTA
//! pairs (clusters of 2, `.cta_group::2`: the pair's allocation, MMAs of M 256 and 128 issued
//! by one CTA on both CTAs' shared and Tensor Memory, a multicast commit).
//! tests/cuda/tcgen05_kinds.cu runs the f8f6f4 kinds (`.kind::f8f6f4` and the block-scaled
//! mxf8f6f4, mxf4, mxf4nvf4) against mmasim. The engine's tests
//! (`engine/src/tests/tcgen05.rs`) cover the other kinds, shapes and the refused forms.

use tests::*;

#[test]
fn tcgen05_f16_gemm_matches_the_cpu() {
    let exe = nvcc_cached_arch("tcgen05_gemm", "tcgen05_gemm", "compute_100a", &[]);
    let out = run_preloaded(&exe, &[("CUDA_SHIM_DEVICE", "b200")]);
    assert_pass("tcgen05_gemm", &out);
}

#[test]
fn tcgen05_cta_pair_gemm_matches_the_cpu() {
    let exe = nvcc_cached_arch("tcgen05_gemm_2sm", "tcgen05_gemm_2sm", "compute_100a", &[]);
    let out = run_preloaded(&exe, &[("CUDA_SHIM_DEVICE", "b200")]);
    assert_pass("tcgen05_gemm_2sm", &out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("pair M 256 ok") && stderr.contains("pair M 128 ok"),
        "{stderr}"
    );
}

/// sm_100a PTX on a device without it (the default H100 profile) is refused as a GPU driver
/// refuses it, when `CUDA_SHIM_STRICT_ARCH=1` asks for that (as for any newer PTX; by default
/// the closest newer PTX runs, README's `CUDA_SHIM_STRICT_ARCH`).
#[test]
fn sm_100a_code_is_refused_on_an_h100_under_strict_arch() {
    let exe = nvcc_cached_arch("tcgen05_gemm", "tcgen05_gemm", "compute_100a", &[]);
    let out = run_preloaded(
        &exe,
        &[("CUDA_SHIM_DEVICE", "h100"), ("CUDA_SHIM_STRICT_ARCH", "1")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("cudaErrorNoKernelImageForDevice"),
        "{stderr}"
    );
}

/// `tcgen05.mma` of `.kind::f8f6f4` (every 8-, 6- and 4-bit type, f32 and f16 D) and the
/// block-scaled `.kind::mxf8f6f4`, `::mxf4` and `::mxf4nvf4` (ue8m0 and ue4m3 factors read from
/// Tensor Memory, every scale vector size and its `.blockN` alias, random scale factor ids), A
/// from shared memory (the packed fp6/fp4 formats with random padding) or Tensor Memory (8-bit
/// containers with random padding bits), several N, on random inputs with NaN and infinities:
/// tests/cuda/tcgen05_kinds.cu, bit for bit against mmasim 2.1.1's "Blackwell" models
/// (scripts/oracles/tcgen05-kinds.py replays the program's inputs; its output is
/// scripts/oracles/tcgen05-kinds-mmasim.txt).
#[test]
fn tcgen05_f8f6f4_kinds_match_mmasim() {
    let exe = nvcc_cached_arch(
        "tcgen05_kinds",
        "tcgen05_kinds",
        "compute_100a",
        &["-std=c++17"],
    );
    let out = run_preloaded(&exe, &[("CUDA_SHIM_DEVICE", "b200")]);
    let want = file_lines("scripts/oracles/tcgen05-kinds-mmasim.txt", "tc05 ");
    assert_eq!(want.len(), 18 * 3);
    assert_same_lines(&output_lines(&out, "tc05 "), &want);
}
