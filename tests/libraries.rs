//! NVIDIA's CUDA C++ libraries as programs use them: thrust and CUB (the CCCL headers of the
//! pinned toolkit) and CUTLASS (the pinned pip nvidia-cutlass), built by nvcc for compute_80 and
//! run unmodified on the shim. Each program
//! checks every result against the same algorithm computed on the host by the C++ standard
//! library (std::sort, std::stable_sort, std::inclusive_scan, ...) or a direct loop, and
//! prints `PASS`; stderr has the time each group of algorithms took.
//!
//! The sizes run are 0, 1, around a warp and a block, and up to 70,001 items; with
//! `CUDA_SHIM_LIB_LARGE=1` also 2^20 and 2^24 (minutes on a few cores). The builds take minutes
//! each (the thrust and CUB headers), so they are kept between runs ([`nvcc_cached`]).

use tests::*;

fn run(name: &str) {
    let exe = nvcc_cached(name, name, &["-std=c++17"]);
    let out = run_preloaded(&exe, &[]);
    assert_pass(name, &out);
    eprint!("{name}:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// thrust::sort on 8/16/32/64-bit integer keys (ascending and with greater<>), floats and
/// doubles; stable_sort_by_key and sort_by_key; sort of pairs; a device_vector of structs with
/// stable_sort by a comparator, transform and reduce with a user operator; reduce, inclusive and
/// exclusive scan, scan_by_key, reduce_by_key, transform; copy_if, remove_if, unique; the four
/// set operations; lower_bound, upper_bound and binary_search.
#[test]
fn thrust_algorithms() {
    run("lib_thrust");
}

/// cub::DeviceRadixSort (keys and pairs, descending, bit ranges, signed and floating keys through
/// a DoubleBuffer), DeviceSegmentedSort and DeviceSegmentedRadixSort, DeviceReduce with
/// ArgMin/ArgMax, DeviceScan, DeviceSelect, DevicePartition, DeviceHistogram and
/// DeviceRunLengthEncode.
#[test]
fn cub_device_algorithms() {
    run("lib_cub_device");
}

/// cub::BlockLoad/BlockStore in all five algorithms, BlockReduce and BlockScan in all their
/// algorithms, BlockRadixSort (ascending pairs, descending on a bit range), WarpReduce and
/// WarpScan on full and logical warps, partial tiles and partial warps.
#[test]
fn cub_block_and_warp_collectives() {
    run("lib_cub_block");
}

/// CUTLASS device-level GEMMs on tensor cores (`cutlass::gemm::device::Gemm`, OpClassTensorOp,
/// Sm80: CUTLASS's multistage cp.async pipelines, ldmatrix and mma.sync): f16 and bf16 with f32
/// accumulation and f16 throughout, checked against the host's integer GEMM.
#[test]
fn cutlass_tensor_core_gemms() {
    let inc = format!("-I{}", cutlass_include().display());
    let exe = nvcc_cached("lib_cutlass", "lib_cutlass", &["-std=c++17", &inc]);
    run_counted("lib_cutlass", &exe, 3);
}

/// CuTe's Hopper GEMM tutorial (examples/cute/tutorial/hopper/wgmma_tma_sm90.cu of the pinned
/// nvidia-cutlass, included unmodified, its main() replaced): clusters of 2 CTAs, TMA loads
/// with 128-byte swizzles into an mbarrier pipeline, wgmma.mma_async on shared-memory
/// descriptors, M/N-major (NT) and K-major (TN), built for compute_90a; every element checked
/// against the host's GEMM.
#[test]
fn cute_hopper_gemm_with_tma_and_wgmma() {
    let include = cutlass_include();
    let source = include.parent().unwrap();
    let flags = [
        format!("-I{}", include.display()),
        format!("-I{}", source.join("tools/util/include").display()),
        format!("-I{}", source.display()),
    ];
    let mut args = vec!["-std=c++17"];
    args.extend(flags.iter().map(String::as_str));
    let exe = nvcc_cached_arch("lib_cute_hopper", "lib_cute_hopper", "compute_90a", &args);
    run_counted("lib_cute_hopper", &exe, 2);
}

/// CuTe's Blackwell GEMM tutorials (examples/cute/tutorial/blackwell/01_mma_sm100.cu to
/// 05_mma_tma_epi_sm100.cu of the pinned nvidia-cutlass, included unmodified): tcgen05.alloc,
/// tcgen05.mma.kind::f16 on swizzled shared-memory descriptors, tcgen05.commit to an mbarrier,
/// tcgen05.ld of the accumulator, with plain loads (01), TMA (02) or, in clusters of 4 x 4,
/// multicast TMA and a multicast tcgen05.commit to the mbarriers of the CTAs sharing the tiles
/// (03) into shared memory; the 2-SM ones on CTA pairs (04): tcgen05 with `.cta_group::2` and
/// multicast TMA loads with `.cta_group::2` from both CTAs of a pair completing on the even
/// CTA's mbarrier (CUTLASS's peer-bit-cleared address), and (05) a TMA epilogue (TMA load of C,
/// TMA store of D). Built for compute_100a and run on the B200 profile, each compares every
/// element of its 512 x 1024 x 256 GEMM of small integers with its host reference.
#[test]
fn cute_blackwell_gemms_with_tcgen05() {
    let include = cutlass_include();
    let source = include.parent().unwrap();
    let flags = [
        format!("-I{}", include.display()),
        format!("-I{}", source.join("tools/util/include").display()),
        format!("-I{}", source.display()),
    ];
    let mut args = vec!["-std=c++17"];
    args.extend(flags.iter().map(String::as_str));
    for name in [
        "lib_cute_blackwell_01",
        "lib_cute_blackwell_02",
        "lib_cute_blackwell_03",
        "lib_cute_blackwell_04",
        "lib_cute_blackwell_05",
    ] {
        let exe = nvcc_cached_arch(name, name, "compute_100a", &args);
        let out = run_preloaded(&exe, &[("CUDA_SHIM_DEVICE", "b200")]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success()
                && stdout.contains("Relative error: 0.000000e+00")
                && stdout.contains("Execution is successful."),
            "{name}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// CUTLASS's sm_100 GEMMs as users build them (`lib_cutlass_sm100_gemm.cu`: the collective
/// builders' default schedules, compute_100a on the B200 profile): 2-SM tiles of 256 x 128 on
/// CTA pairs in clusters of 2 x 2 and 1-SM tiles of 128 x 128, with the cluster-launch-control
/// tile scheduler, 2-SM TMA multicast loads and the pair's accumulator pipeline released on the
/// even CTA's barrier through CUTLASS's peer-bit address (before, it deadlocked there). Every
/// element is compared with the host's integer GEMM.
#[test]
fn cutlass_sm100_gemms() {
    let include = cutlass_include();
    let source = include.parent().unwrap();
    let flags = [
        format!("-I{}", include.display()),
        format!("-I{}", source.join("tools/util/include").display()),
    ];
    let mut args = vec!["-std=c++17"];
    args.extend(flags.iter().map(String::as_str));
    let name = "lib_cutlass_sm100_gemm";
    let exe = nvcc_cached_arch(name, name, "compute_100a", &args);
    let out = run_preloaded(&exe, &[("CUDA_SHIM_DEVICE", "b200")]);
    assert_pass(name, &out);
}

/// cub::DeviceScan built for compute_100 and run on the B200 profile: CUB's sm_100 scan steals
/// tiles with `clusterlaunchcontrol.try_cancel` and moves them with `cp.async.bulk`'s
/// `.ignore_oob` loads and `.cp_mask` stores (unaligned inputs and outputs), each of which
/// stopped the module from loading before. Every element is compared with the host's running
/// sum.
#[test]
fn cub_scan_for_sm100() {
    let name = "lib_cub_scan_sm100";
    let exe = nvcc_cached_arch(name, name, "compute_100", &["-std=c++17"]);
    let out = run_preloaded(&exe, &[("CUDA_SHIM_DEVICE", "b200")]);
    assert_pass(name, &out);
}

/// Runs a program that prints PASS and, on stderr, one `NAME: ok` line per case: `cases` of
/// them.
fn run_counted(name: &str, exe: &std::path::Path, cases: usize) {
    let out = run_preloaded(exe, &[]);
    assert_pass(name, &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches(": ok").count(), cases, "{err}");
}

/// The pinned CUTLASS/CuTe headers (`scripts/install-toolkit.sh --cutlass`).
fn cutlass_include() -> std::path::PathBuf {
    install_toolkit(&["--cutlass"])
}
