//! The recipes the README gives for using the shim in a project, run as written: the CMake/CTest
//! project in `examples/cmake` configures with the pinned nvcc (a virtual architecture, so its
//! fatbins hold PTX), builds, and its `ctest` runs both tests on the shim (`LD_PRELOAD` set by the
//! project for each test). The CMake comes from `scripts/install-cmake.sh` (pinned, from PyPI).

use std::process::Command;
use tests::*;

fn run(what: &str, cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what} failed:\n{text}");
    text
}

#[test]
fn cmake_project_runs_its_ctest_tests_on_the_shim() {
    let bin = run(
        "scripts/install-cmake.sh",
        Command::new("bash").arg(repo().join("scripts/install-cmake.sh")),
    );
    let bin = std::path::PathBuf::from(bin.lines().last().unwrap_or_default().trim());
    let build = build_dir().join("cmake-example");
    let _ = std::fs::remove_dir_all(&build);
    run(
        "cmake (configure)",
        Command::new(bin.join("cmake"))
            .arg("-S")
            .arg(repo().join("examples/cmake"))
            .arg("-B")
            .arg(&build)
            .arg(format!(
                "-DCMAKE_CUDA_COMPILER={}",
                toolkit().join("bin/nvcc").display()
            ))
            .arg(format!("-DCUDA_SHIM_LIBRARY={}", shim().library.display())),
    );
    run(
        "cmake --build",
        Command::new(bin.join("cmake")).arg("--build").arg(&build),
    );
    let out = run(
        "ctest",
        Command::new(bin.join("ctest"))
            .arg("--test-dir")
            .arg(&build)
            .arg("--output-on-failure")
            .arg("-V")
            .env("CUDA_SHIM_TRACE", "1"),
    );
    assert!(out.contains("100% tests passed"), "{out}");
    // The tests ran on the shim (its trace names the launches), not on some other driver.
    assert!(out.contains("libcuda-shim"), "{out}");
    assert!(out.contains("scan of 1000: no error, 0 wrong"), "{out}");
}
