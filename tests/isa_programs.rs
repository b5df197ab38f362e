//! CUDA C++ programs built by the pinned nvcc (virtual architecture only) that exercise the PTX
//! ISA families, run unmodified on the shim. Each program checks its results against a host
//! computation written from the definitions (CUDA Programming Guide, Math API, PTX ISA, IEEE 754)
//! and prints `PASS`. They need NVIDIA's pip toolkit (installed by `scripts/install-toolkit.sh`).
//!
//! Parts that some builds compile into less common instructions sit behind a macro (e.g.
//! `-DVIDEO_SIMD`, `-DATOMICS_16BIT`) and run as their own test, so a failure names the family.

use tests::*;

fn run(name: &str, output: &str, extra: &[&str]) -> String {
    let exe = nvcc(name, output, extra);
    assert_pass(output, &run_preloaded(&exe, &[]))
}

/// atomicAdd/Sub/Exch/Min/Max/Inc/Dec/And/Or/Xor/CAS in 32 and 64 bits, float and double adds,
/// `_block` / `_system` scopes, global and shared memory, a CAS-loop float max, and a 256-bin
/// histogram with shared-memory privatisation.
#[test]
fn atomics_of_every_kind_and_a_histogram() {
    run("isa_atomics", "isa_atomics", &[]);
}

/// atomicAdd on __half2, __nv_bfloat162, __half and __nv_bfloat16. On compute_80 nvcc emits a
/// `atom.global.cas.b16` loop for the scalar bfloat16 add.
#[test]
fn atomics_on_16_bit_floats() {
    run("isa_atomics", "isa_atomics_16bit", &["-DATOMICS_16BIT"]);
}

/// __shfl*_sync with widths 32/16/8 and out-of-range lanes, reductions and scans, ballot / all /
/// any, __activemask under divergence, match, __reduce_*_sync, cooperative-groups tiles, and a
/// partial last warp.
#[test]
fn warp_shuffles_and_votes() {
    run("isa_warp", "isa_warp", &[]);
}

/// Converged lanes passing disjoint member masks (what `thread_block_tile<N>::ballot` and
/// `cg::reduce` on tiles compile to): each group must see only the lanes in its own mask.
#[test]
fn warp_collectives_with_disjoint_member_masks() {
    run("isa_warp", "isa_warp_masked", &["-DMASKED_COLLECTIVES"]);
}

/// Recursive fib / Ackermann / tree walks, a 2000-deep recursion under a raised
/// cudaLimitStackSize, a table of __device__ function pointers, and virtual calls on objects
/// built with placement new in another kernel.
#[test]
fn recursion_function_pointers_and_virtual_calls() {
    run("isa_recursion", "isa_recursion", &[]);
}

/// Recursion as deep as a GPU runs it in the default 1024-byte stack (frames as `ptxas -v`
/// sizes them: 16 bytes for `walk`, 32 for `fib`), deeper under a raised limit, and a stack
/// overflow past it.
#[test]
fn recursion_within_the_default_stack() {
    run("recursion_stack", "recursion_stack", &[]);
}

/// Tiled matrix products staged through cp.async pipelines (cuda::pipeline with thread and
/// block scope, 4 stages; the __pipeline_* primitives, 3 stages), checked exactly; the program
/// prints each kernel's time beside a plain shared-memory version.
#[test]
fn cp_async_multi_stage_pipelines() {
    run("pipeline_copy", "pipeline_copy", &[]);
}

/// Pointers to a caller's local array passed into recursive calls (direct and mutual
/// recursion, and two levels down through another function) reach the caller's own frame.
#[test]
fn pointers_into_callers_frames_across_recursion() {
    run("isa_frames", "isa_frames", &[]);
}

/// __syncthreads and __syncwarp inside non-inlined functions that threads reach from both
/// sides of an if/else (different call sites, different call depths): legal with independent
/// thread scheduling, as every thread arrives at the same barrier.
#[test]
fn barriers_in_functions_called_from_divergent_code() {
    run("isa_call_barriers", "isa_call_barriers", &[]);
}

/// Two warp groups with different member masks syncing apart at once on diverged paths, and a
/// guarded `bar.warp.sync` / non-aligned `barrier.sync` that only some lanes of a path take.
#[test]
fn sync_taken_by_some_lanes_and_groups_syncing_apart() {
    run("isa_sync_groups", "isa_sync_groups", &[]);
}

/// Per-thread arrays of 4, 8 and 16 KiB in local memory, indexed by data.
#[test]
fn big_local_arrays() {
    run("isa_local", "isa_local", &[]);
}

/// Float and double math library within the Programming Guide's ulp bounds, C99 special values,
/// intrinsics within their documented bounds, IEEE division and square root.
#[test]
fn math_library_within_documented_ulp_bounds() {
    run("isa_math", "isa_math", &[]);
}

/// The same program under -use_fast_math: the float library maps to the intrinsics and float
/// arithmetic flushes subnormal operands and results to zero.
#[test]
fn math_library_with_fast_math() {
    run("isa_math", "isa_math_fast", &["-use_fast_math", "-DFAST"]);
}

/// popc, clz, ffs, brev, byte_perm, funnel shifts, high and 24-bit multiplies, sad, dp4a/dp2a,
/// SIMD-in-a-word intrinsics, halving adds, 128/256-bit carries, division by constants and
/// variables; division by zero and INT_MIN / -1 must run (their values are unspecified).
#[test]
fn integer_intrinsics() {
    let out = run("isa_integer", "isa_integer", &[]);
    assert!(out.contains("unspecified:"), "{out}");
}

/// __vabsdiffu4, __vsadu4 and __vabsdiffs4, which the headers implement with the SIMD video
/// instruction `vabsdiff4`.
#[test]
fn integer_simd_video_intrinsics() {
    run("isa_integer", "isa_integer_video", &["-DVIDEO_SIMD"]);
}

/// binary16 and bfloat16 conversions in four rounding modes, exhaustive widening, arithmetic,
/// fma, division, comparisons, min/max with NaN and signed zeros, half2 / bfloat162 lanes.
#[test]
fn half_and_bfloat16() {
    run("isa_half", "isa_half", &[]);
}

/// A `__grid_constant__` parameter read through its address (`cvta.param`), from a callee too,
/// and `__isGridConstant` (`isspacep.param`).
#[test]
fn grid_constant_parameters_through_generic_addresses() {
    run("isa_grid_constant", "isa_grid_constant", &[]);
}

/// The carry flag of add.cc/addc/sub.cc/subc in 32 and 64 bits against values measured on an
/// H100 (after sub.cc, CC.CF = 1 means no borrow); cvt.rni/.rzi/.rmi/.rpi to the same bf16 or
/// f16 type (the bf16 intrinsics htrunc/hrint/hfloor/hceil compile to them on sm_90); vector
/// movs whose destinations are also sources; mov between a vector register and a scalar of the
/// same width; a register plus an immediate as a source operand; `.global` and `.const`
/// variables declared inside a function. Built for compute_90 (cvt.bf16.bf16 needs sm_90).
#[test]
fn ptx_forms_carry_rounding_moves_and_scoped_variables() {
    let exe = nvcc_arch("isa_ptx_forms", "isa_ptx_forms", "compute_90", &[]);
    assert_pass("isa_ptx_forms", &run_preloaded(&exe, &[]));
}

/// Aligned 8- and 16-byte vector stores to global memory (`st.relaxed.gpu.v2.u64`,
/// `st.volatile.v4.u32`, `st.relaxed.gpu.v2.u32`) are seen whole by a block reading them
/// meanwhile on another host thread, as a GPU makes each thread's aligned vector access one
/// access. CUB's decoupled look-back depends on it (scan by key, reduce by key and run-length
/// encoding read a stale tile prefix otherwise, now and then).
#[test]
fn vector_accesses_are_seen_whole_by_other_threads() {
    let exe = nvcc("isa_vector_atomicity", "isa_vector_atomicity", &[]);
    assert_pass(
        "isa_vector_atomicity",
        &run_preloaded(&exe, &[("CUDA_SHIM_THREADS", "2")]),
    );
}
