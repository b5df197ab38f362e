//! Tensor-core instructions in nvcc-built programs (tests/cuda/tensor_cores.cu): wmma GEMMs for
//! every wmma type, mma.sync of each kind through inline PTX with ldmatrix, stmatrix and
//! movmatrix. The expected values are the CPU's integer GEMM (the inputs are small integers,
//! exact in every type), and one truncation case whose value comes from the mmasim model.
//! The dot products themselves are checked bit for bit against mmasim's vectors in
//! `engine::sem::mma`'s tests, and end to end here against what an H200 answered to the same
//! programs (scripts/ground-truth/results/, recorded by scripts/ground-truth/run.sh).
//! wgmma's f8, .b1 and sparse forms are checked element by element against an H200's answers
//! to scripts/ground-truth/wgmma_probe.cu.
//! The CPU references of tensor_cores.cu, tma.cu, mma_sparse.cu and the CUTLASS programs
//! were confirmed on that H200: every case held there but the partial-warp one, which a GPU
//! leaves undefined (it ran) and the shim reports.

use std::io::Write;
use std::process::{Command, Stdio};
use tests::*;

/// The lines of a recorded GPU answer file that start with `prefix`.
fn recorded(file: &str, prefix: &str) -> Vec<String> {
    let path = repo().join("scripts/ground-truth/results").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// Single mma.sync dot products (tests/cuda/mma_dots.cu, the program that asked the GPU) of
/// every Hopper shape and type, the f8 kinds (e4m3/e5m2, k16/k32, f16 and f32 accumulators)
/// and the quad-pair m8n8k4 .f16: the inputs of results/mma-dots-h200.txt, each answer bit for
/// bit the H200's.
#[test]
fn mma_dot_products_match_an_h200() {
    let exe = nvcc_arch("mma_dots", "mma_dots", "compute_90", &["-std=c++17"]);
    let want = recorded("mma-dots-h200.txt", "gpu ");
    assert!(want.len() > 5000);
    let mut child = Command::new(&exe)
        .env("LD_PRELOAD", &shim().library)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mma_dots");
    let input = want.join("\n") + "\n";
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<&str> = stdout.lines().collect();
    assert_eq!(got.len(), want.len());
    let bad: Vec<String> = (got.iter().zip(&want))
        .filter(|(g, w)| *g != w)
        .map(|(g, w)| format!("shim {g}\n h200 {w}"))
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {} differ:\n{}",
        bad.len(),
        want.len(),
        bad[..bad.len().min(5)].join("\n")
    );
}

/// The wmma fragment layouts the ISA leaves unspecified (f16 A, B and f32 C of m16n16k16, A of
/// m32n8k16 and m8n32k16, s8 A: each lane's elements) and mma.sync on edge inputs (truncated
/// sums, NaN bits, -0, overflow, subnormals): tests/cuda/mma_probe.cu prints exactly what the
/// H200 printed (results/mma-probe-h200.txt).
#[test]
fn wmma_layouts_and_mma_edges_match_an_h200() {
    let exe = nvcc_arch("mma_probe", "mma_probe", "compute_90", &[]);
    let out = run_preloaded(&exe, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let got: Vec<&str> = stdout.lines().collect();
    let want = recorded("mma-probe-h200.txt", "");
    let want: Vec<&String> = want.iter().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(got, want);
}

/// Sparse mma (tests/cuda/mma_sparse.cu): where the metadata puts A's packed elements for
/// f16, bf16, tf32, s8 and s4 at every shape and selector (the program's CPU reference of the
/// ISA's figures, which held on the H200), and the values of random f16 products, k16 and k32,
/// bit for bit the H200's (results/mma-sparse-h200.txt: a k32 mma.sp is not the dense k32 of
/// its unpacked A, in 1639 of 2560 elements there and here).
#[test]
fn sparse_mma_matches_an_h200() {
    let exe = nvcc_arch("mma_sparse", "mma_sparse", "compute_90", &["-std=c++17"]);
    let out = run_preloaded(&exe, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("PASS"),
        "{stdout}{stderr}"
    );
    assert_eq!(stderr.matches(": ok").count(), 28, "{stderr}");
    let want = recorded("mma-sparse-h200.txt", "sparse");
    let got: Vec<&str> = stdout.lines().filter(|l| l.starts_with("sparse")).collect();
    assert_eq!(got, want);
}

/// Sparse mma with f8 elements (tests/cuda/mma_sparse_f8.cu: m16n8k64, every pairing of
/// e4m3 and e5m2, `mma.sp` and `::ordered_metadata`, random metadata, NaN, infinities,
/// cancellation and a random C): every element of D bit for bit what an H200 computed
/// (results/mma-sparse-f8-h200.txt, whose header has the SASS that explains it: ptxas converts
/// to f16 and issues two sparse f16 k32 mmas and an FADD, as for the dense f8 kinds).
#[test]
fn sparse_f8_mma_matches_an_h200() {
    let exe = nvcc_arch(
        "mma_sparse_f8",
        "mma_sparse_f8",
        "compute_90a",
        &["-std=c++17"],
    );
    let out = run_preloaded(&exe, &[]);
    let want = recorded("mma-sparse-f8-h200.txt", "spf8");
    assert_eq!(want.len(), 72);
    assert_same_lines(&output_lines(&out, "spf8"), &want);
}

/// The sm_120a `mma.sync` kinds (tests/cuda/mma_kinds.cu, built for compute_120a and run on
/// the default profile): `.kind::f8f6f4` in all 25 pairings of e4m3/e5m2/e3m2/e2m3/e2m1 with
/// f32 and f16 accumulators, `.kind::mxf8f6f4` (1X, ue8m0) in all 25, `.kind::mxf4` (2X) and
/// `.kind::mxf4nvf4` (2X ue8m0, 4X ue4m3, 4X ue8m0), and `mma.sp::ordered_metadata` of each
/// kind: m16n8k64 `.kind::f8f6f4` (25 pairings with f32, 5 with f16) and `.kind::mxf8f6f4`
/// (25 pairings, and one with the default scale_vec), m16n8k128 `.kind::mxf4` (default and 2X)
/// and `.kind::mxf4nvf4` (2X ue8m0, 4X ue4m3, 4X ue8m0), their expected D the dense model of
/// half the K on the packed products and the B elements the metadata picks, with each chunk's
/// scale factors (as an H200 sums the sparse f16 and f8 forms), three trials each:
/// random bytes (NaN,
/// infinities and random container padding included), narrow exponents, random C, random
/// scale factors (NaN among them) and random selectors. No GPU here has these instructions:
/// every element of D is bit for bit what mmasim 2.1.1's "RTX Blackwell" model computes for
/// the same inputs (scripts/oracles/mma-kinds-mmasim.txt, written by mma-kinds.py, which
/// replays the program's generator).
#[test]
fn sm120_mma_kinds_match_mmasim() {
    let exe = nvcc_arch("mma_kinds", "mma_kinds", "compute_120a", &["-std=c++17"]);
    let out = run_preloaded(&exe, &[]);
    let want = file_lines("scripts/oracles/mma-kinds-mmasim.txt", "kinds ");
    assert_eq!(want.len(), 140 * 3);
    assert_same_lines(&output_lines(&out, "kinds "), &want);
}

/// The 8-bit ldmatrix/stmatrix shapes of sm_100a (tests/cuda/ldmatrix_b8.cu):
/// `ldmatrix.m16n16.trans.b8` plain and decompressing 6- and 4-bit rows, `ldmatrix.m8n16`
/// decompressing, `stmatrix.m16n8.trans.b8`, every `.num`, rows at scattered addresses. The
/// program checks each register and stored byte against the ISA's figures 105, 106 and 108
/// and its decompression rule, written out in its host code.
#[test]
fn ldmatrix_and_stmatrix_b8_shapes_follow_the_isa_figures() {
    let exe = nvcc_arch(
        "ldmatrix_b8",
        "ldmatrix_b8",
        "compute_100a",
        &["-std=c++17"],
    );
    let out = run_preloaded(&exe, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.matches(": ok").count(), 11, "{stdout}");
}

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

/// Tile-mode TMA loads at the edges (tests/cuda/tma_oob_probe.cu, one load per process): the
/// out-of-bound fill of every type with zero and NaN fill (an H200 writes 0x7ff7 in every 16
/// bits), and the loads an H200 stops with an illegal instruction (an innermost coordinate
/// not at a multiple of 16 bytes): each line as results/tma-oob-h200.txt has it.
#[test]
fn tma_out_of_bound_loads_match_an_h200() {
    let exe = nvcc_arch(
        "tma_oob_probe",
        "tma_oob_probe",
        "compute_90a",
        &["-std=c++17", "-diag-suppress", "1444"],
    );
    let want = recorded("tma-oob-h200.txt", "oob ");
    let mut cases: Vec<Vec<String>> = Vec::new();
    for line in &want {
        // "oob TYPE FILL at=(X,Y): ..."
        let w: Vec<&str> = line.split_whitespace().collect();
        let (x, y) = w[3]
            .trim_start_matches("at=(")
            .trim_end_matches("):")
            .split_once(',')
            .unwrap();
        let case = vec![
            w[1].to_string(),
            w[2].to_string(),
            x.to_string(),
            y.to_string(),
        ];
        if cases.last() != Some(&case) {
            cases.push(case);
        }
    }
    let mut got = Vec::new();
    for c in &cases {
        let out = run_preloaded_args(&exe, c);
        got.extend(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_owned),
        );
    }
    assert_eq!(got, want);
}

/// cp.reduce.async.bulk and cp.reduce.async.bulk.tensor (tests/cuda/bulk_reduce.cu): 64 CTAs
/// reducing into one global array with every operation and type of the ISA's table, tile-mode
/// f32 add and s32 max into overlapping boxes, and a reduction into a peer CTA's shared memory
/// with mbarrier completion. The program's CPU reference (the ISA's arithmetic) held on an H200
/// (results/bulk-reduce-h200.txt): the same 17 cases pass here.
#[test]
fn bulk_reductions_compute_as_on_an_h200() {
    let lib = lib_dir();
    let exe = nvcc_arch(
        "bulk_reduce",
        "bulk_reduce",
        "compute_90a",
        &["-std=c++17", "-L", lib.to_str().unwrap(), "-lcuda"],
    );
    let out = run_preloaded(&exe, &[]);
    assert_pass("bulk_reduce", &out);
    let got: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.ends_with(": ok"))
        .map(str::to_owned)
        .collect();
    let want: Vec<String> = recorded("bulk-reduce-h200.txt", "")
        .into_iter()
        .filter(|l| l.ends_with(": ok"))
        .collect();
    assert_eq!(want.len(), 17);
    assert_eq!(got, want);
}

/// fma.rn.oob{.relu} of f16, bf16, f16x2 and bf16x2 (tests/cuda/fma_oob.cu): +0 where a or b
/// is the OOB-NaN 0x7ff7 (either sign), a NaN like another in c; each answer an H200's
/// (results/fma-oob-h200.txt).
#[test]
fn fma_oob_matches_an_h200() {
    let exe = nvcc_arch("fma_oob", "fma_oob", "compute_90", &["-std=c++17"]);
    let out = run_preloaded(&exe, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let got: Vec<&str> = stdout.lines().collect();
    let want = recorded("fma-oob-h200.txt", "");
    let want: Vec<&String> = want.iter().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(got, want);
}

/// wgmma's forms beyond f16/bf16/tf32/s8 (scripts/ground-truth/wgmma_probe.cu): the f8 kinds
/// (every .e4m3/.e5m2 pairing, f32 and f16 D, imm-scale-a), .b1 .and.popc and the sparse forms
/// (f16, bf16 and tf32 with both selectors, e4m3, e5m2 x e4m3, s8 x u8), A from a descriptor
/// and from registers, on random inputs with the f8 corners (NaN, infinities, subnormals,
/// cancellation, wide exponent spreads): each element bit for bit what an H200 answered
/// (results/wgmma-h200.txt).
#[test]
fn wgmma_forms_match_an_h200() {
    let exe = build_probe(
        "wgmma_probe.cu",
        "wgmma_probe",
        &["-std=c++17", "-arch=sm_90a"],
    );
    let out = run_preloaded(&exe, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = recorded("wgmma-h200.txt", "");
    let want: Vec<&String> = want.iter().filter(|l| !l.starts_with("exit ")).collect();
    let got: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("exit ")).collect();
    assert_eq!(got.len(), want.len(), "{stdout}");
    // The differing elements, by case: (row, column, shim, H200).
    let mut bad = Vec::new();
    for (g, w) in got.iter().zip(&want) {
        if g == w {
            continue;
        }
        let (gw, ww): (Vec<&str>, Vec<&str>) = (g.split(' ').collect(), w.split(' ').collect());
        let cols: Vec<String> = (gw.iter().zip(&ww).enumerate())
            .filter(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| format!("col {} shim {a} h200 {b}", i as i64 - 2))
            .collect();
        bad.push(format!(
            "{}: {}",
            &w[..w.find(':').unwrap_or(w.len())],
            cols.join(", ")
        ));
    }
    assert!(
        bad.is_empty(),
        "{} lines differ:\n{}",
        bad.len(),
        bad[..bad.len().min(20)].join("\n")
    );
}
