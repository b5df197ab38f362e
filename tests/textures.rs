//! Texture objects against real hardware: scripts/ground-truth/tex_probe.cu (1-D float point
//! and linear fetches, 2-D 8-bit normalised fetches in every address mode, point and linear,
//! and tex2Dgather), built by the pinned nvcc and run on the shim, prints what an H100 printed
//! (scripts/ground-truth/results/tex-h100.txt, driver 580.159), line for line.

use std::process::Command;
use tests::*;

#[test]
fn the_texture_probe_prints_what_an_h100_printed() {
    let exe = build_dir().join("tex_probe");
    let out = Command::new(toolkit().join("bin/nvcc"))
        .args(["-gencode", "arch=compute_80,code=compute_80", "-o"])
        .arg(&exe)
        .arg(repo().join("scripts/ground-truth/tex_probe.cu"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = run_preloaded(&exe, &[]);
    let got = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{got}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let want =
        std::fs::read_to_string(repo().join("scripts/ground-truth/results/tex-h100.txt")).unwrap();
    let want: Vec<&str> = want.lines().filter(|l| !l.starts_with("exit ")).collect();
    let got: Vec<&str> = got.lines().collect();
    assert_eq!(got.len(), want.len(), "{got:#?}");
    // Linear filtering over a footprint that mixes border and texels differs from the H100 in
    // the low bits (engine/src/tex.rs says what is known): those six lines only.
    let differ: Vec<_> = got
        .iter()
        .zip(&want)
        .filter(|(g, w)| g != w)
        .map(|(g, w)| format!("shim: {g}\nH100: {w}"))
        .collect();
    assert!(
        differ.len() == 6 && differ.iter().all(|d| d.contains("border linear")),
        "{}",
        differ.join("\n")
    );
}

/// Texture objects over pitched 2-D memory, linear memory and an array of uchar4 read as
/// normalised floats, with their descriptor queries and the driver's answer to a missing
/// descriptor (tests/cuda/texture_objects.cu; expected values from the Programming Guide's
/// point-sampling rule).
#[test]
fn texture_objects_over_each_kind_of_resource() {
    let lib = lib_dir();
    let exe = nvcc(
        "texture_objects",
        "texture_objects",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("texture_objects", &run_preloaded(&exe, &[]));
}
