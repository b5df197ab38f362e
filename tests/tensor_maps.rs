//! The driver's tensor-map encoders (`cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col`,
//! `cuTensorMapReplaceAddress`) against an H200: tests/cuda/tma_probe.cu, the program that asked
//! the GPU (scripts/ground-truth/run.sh), runs on the shim, and each answer must be the one
//! recorded in scripts/ground-truth/results/tma-h200.txt.

use tests::*;

/// The lines of the probe's argument checks and bisections (its parts 1, 2 and 6).
fn answers(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            ["encode ", "replace ", "bisect "]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(str::to_owned)
        .collect()
}

/// Every argument case of the probe (about 300: tiled, im2col, replace address) and every
/// bisection of the encoders' bounds (the largest box, the largest and smallest im2col
/// dimension for given corners) answers what the H200 answered, but one: a NULL map crashed the
/// real cuTensorMapReplaceAddress (SIGSEGV), where the shim answers CUDA_ERROR_INVALID_VALUE.
#[test]
fn tensor_map_encoders_answer_as_an_h200() {
    let exe = nvcc_arch("tma_probe", "tma_probe", "compute_90a", &["-std=c++17"]);
    let path = repo().join("scripts/ground-truth/results/tma-h200.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let crash = "replace map_null: CRASH signal 11";
    let want: Vec<String> = answers(&text)
        .into_iter()
        .map(|l| {
            if l == crash {
                "replace map_null: 1 CUDA_ERROR_INVALID_VALUE".to_owned()
            } else {
                l
            }
        })
        .collect();
    assert!(want.len() > 300, "{} answers recorded", want.len());
    let out = run_preloaded_args(&exe, &["126"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.ends_with("end\n"),
        "tma_probe 126 failed ({}):\n{stdout}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let got = answers(&stdout);
    let bad: Vec<String> = (got.iter().zip(&want))
        .filter(|(g, w)| g != w)
        .map(|(g, w)| format!("shim {g}\nh200 {w}"))
        .collect();
    assert!(
        bad.is_empty() && got.len() == want.len(),
        "{} of {} answers differ ({} lines from the shim):\n{}",
        bad.len(),
        want.len(),
        got.len(),
        bad.join("\n")
    );
}

/// Tensor copies the H200 made for the probe: a tile load multicast to both CTAs of a cluster
/// of 2 and to one of them (part 5: data and mbarrier completion in each destination CTA), and
/// im2col loads of an NHWC tensor with padding corners, traversal strides, channel windows,
/// offsets and columns running into the next image or past the last (part 4, ending with the
/// column that starts outside the bounding box, an illegal instruction there and here). Every
/// line as recorded, the mbarrier's raw word aside (its encoding is the hardware's own).
#[test]
fn im2col_and_multicast_copies_match_an_h200() {
    // Its own executable: the other test of this file builds and runs `tma_probe` at the same
    // time (a build replacing the file another test runs fails with EACCES/ETXTBSY).
    let exe = nvcc_arch(
        "tma_probe",
        "tma_probe_copies",
        "compute_90a",
        &["-std=c++17"],
    );
    let path = repo().join("scripts/ground-truth/results/tma-h200.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let copies = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                [
                    "im2col ",
                    "multicast ",
                    "launch im2col",
                    "launch multicast",
                    "sticky error after im2col",
                ]
                .iter()
                .any(|p| l.starts_with(p))
            })
            .map(|l| {
                l.split_whitespace()
                    .filter(|w| !w.starts_with("mbar="))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    let want = copies(&text);
    assert!(want.len() > 90, "{} lines recorded", want.len());
    let mut got = Vec::new();
    for part in ["5", "4"] {
        let out = run_preloaded_args(&exe, &[part]);
        got.extend(copies(&String::from_utf8_lossy(&out.stdout)));
    }
    assert_eq!(got, want);
}

/// cuTensorMapEncodeIm2colWide and the sm_100 modes of cp.async.bulk.tensor in an nvcc-built
/// program (tests/cuda/tma_wide.cu, compute_100a, the B200 profile): the encoder's argument
/// checks as cuda.h documents them, `.im2col::w` and `.im2col::w::128` loads through the maps it
/// encodes against the program's CPU model of the ISA's text (with the 128-byte swizzle and the
/// mbarrier's byte count), and a `.tile::gather4` load and `.tile::scatter4` store through a
/// tiled map. No sm_100 GPU has answered for these: the expected values are cuda.h's and the
/// ISA's, worked in the program. On the default (H100) profile the encoder answers as an
/// H200's driver did (results/tma-wide-h200.txt: it encodes, though cuda.h says "only
/// supported on devices of compute capability 10.0 or higher", and refuses a rank of 2).
#[test]
fn im2col_wide_and_four_row_copies_on_sm_100() {
    let exe = nvcc_cached_arch("tma_wide", "tma_wide", "compute_100a", &["-std=c++17"]);
    let out = run_preloaded(&exe, &[("CUDA_SHIM_DEVICE", "b200")]);
    assert_pass("tma_wide", &out);
    let out = run_preloaded_args(&exe, &["sm90"]);
    assert_pass("tma_wide sm90", &out);
}
