//! The recipes the README gives for installing and using the shim, run as written: `cargo install`
//! of the tool (a `cuda-shim` that carries the library), and the CMake/CTest
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

/// `cargo install` of the tool's crate, as the README gives it, outside the checkout's target
/// directory: the installed `cuda-shim` carries the library (nothing is beside it), writes it
/// once into the cache directory, and runs a program on it through `run` and through
/// `eval "$(cuda-shim env)"`.
#[test]
fn cargo_install_gives_a_self_contained_tool() {
    let root = build_dir().join("install-root");
    let cache = build_dir().join("install-cache");
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&cache);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    run(
        "cargo install",
        Command::new(cargo)
            .args(["install", "--locked", "--path"])
            .arg(repo().join("libcuda-shim"))
            .arg("--root")
            .arg(&root)
            // Kept between runs so that a rerun is incremental; not the checkout's `target/`,
            // where the tool would rightly leave the library out (build.rs).
            .arg("--target-dir")
            .arg(build_dir().join("install-target"))
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CUDA_SHIM_EMBED"),
    );
    let tool = root.join("bin/cuda-shim");
    let entries: Vec<_> = std::fs::read_dir(root.join("bin"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, ["cuda-shim"], "only the tool is installed");

    let with_cache = |cmd: &mut Command| {
        cmd.env("XDG_CACHE_HOME", &cache)
            .env_remove("CUDA_SHIM_LIBRARY")
            .env_remove("LD_PRELOAD");
    };
    let mut library = Command::new(&tool);
    library.arg("library");
    with_cache(&mut library);
    let path = run("cuda-shim library", &mut library);
    let path = std::path::PathBuf::from(path.trim());
    assert!(path.starts_with(cache.join("libcuda-shim/lib")), "{path:?}");
    assert!(path.ends_with("libcuda.so.1"), "{path:?}");

    let exe = nvcc_cached("vector_add", "vector_add_installed", &[]);
    let mut direct = Command::new(&tool);
    direct
        .arg("run")
        .arg("--")
        .arg(&exe)
        .env("CUDA_SHIM_TRACE", "1");
    with_cache(&mut direct);
    let out = run("cuda-shim run (installed)", &mut direct);
    assert!(out.contains("PASS vector_add"), "{out}");
    assert!(out.contains("libcuda-shim"), "{out}");

    let mut shell = Command::new("bash");
    shell
        .arg("-c")
        .arg(format!(
            "set -e; eval \"$('{}' env)\"; echo \"$LD_PRELOAD\"; '{}'",
            tool.display(),
            exe.display()
        ))
        .env("CUDA_SHIM_TRACE", "1");
    with_cache(&mut shell);
    let out = run("eval \"$(cuda-shim env)\"", &mut shell);
    assert!(out.starts_with(&format!("{}\n", path.display())), "{out}");
    assert!(
        out.contains("PASS vector_add") && out.contains("libcuda-shim"),
        "{out}"
    );
}
