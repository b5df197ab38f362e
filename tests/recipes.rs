//! The recipes the README gives for installing and using the shim, run as written: the GitHub
//! Actions jobs of `examples/ci/` (which install the tool, package `cuda-shim`, carrying the
//! library, with `cargo install`), and the CMake/CTest
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

/// One step of a GitHub Actions job: an action it uses (with its `with:` inputs) or a script
/// it runs.
#[derive(Debug, Default)]
struct Step {
    uses: Option<String>,
    with: Vec<(String, String)>,
    run: Option<String>,
}

/// The steps of the one job of a workflow file, read as GitHub reads the subset of YAML the
/// recipes use: a `steps:` list whose items hold `uses:`, `with:` (a map of plain values),
/// `name:` and `run:` (one line, or a `|` block).
fn workflow_steps(yaml: &str) -> Vec<Step> {
    let lines: Vec<&str> = yaml.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let start = lines
        .iter()
        .position(|l| l.trim() == "steps:")
        .expect("the workflow has no steps");
    let mut steps: Vec<Step> = Vec::new();
    let mut k = start + 1;
    while k < lines.len() {
        let line = lines[k];
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            k += 1;
            continue;
        }
        let body = line.trim_start();
        let body = match body.strip_prefix("- ") {
            Some(item) => {
                steps.push(Step::default());
                item
            }
            None => body,
        };
        let key_indent = indent(line) + (line.trim_start().len() - body.len());
        let step = steps.last_mut().expect("a key before the first step");
        let (key, value) = body.split_once(':').expect("a `key: value` line");
        let value = value.trim().trim_matches('"');
        k += 1;
        let block = |k: &mut usize| {
            let mut out = Vec::new();
            while *k < lines.len()
                && (lines[*k].trim().is_empty() || indent(lines[*k]) > key_indent)
            {
                out.push(lines[*k]);
                *k += 1;
            }
            out
        };
        match key {
            "uses" => step.uses = Some(value.to_string()),
            "name" => {}
            "run" if value == "|" => {
                let body = block(&mut k);
                let cut = body.iter().map(|l| indent(l)).min().unwrap_or(0);
                let text: Vec<&str> = body.iter().map(|l| l.get(cut..).unwrap_or("")).collect();
                step.run = Some(text.join("\n") + "\n");
            }
            "run" => step.run = Some(format!("{value}\n")),
            "with" => {
                for l in block(&mut k) {
                    if let Some((a, b)) = l.trim().split_once(':') {
                        step.with
                            .push((a.trim().to_string(), b.trim().trim_matches('"').into()));
                    }
                }
            }
            other => panic!("the recipes' workflows use no step key {other:?}"),
        }
    }
    steps
}

/// Runs a workflow's job as a GitHub runner would, on this machine: `actions/checkout` of the
/// project copies it into the workspace (`project` does), of libcuda-shim copies this checkout's
/// files (kept between runs, unchanged files untouched, so that its `target/` rebuilds only
/// what changed), `actions/setup-python` puts `python` first on the PATH, the toolchain is the
/// machine's, and each `run:` script runs in bash with `$GITHUB_ENV` and `$GITHUB_PATH` honoured
/// and `~/.cargo/bin` standing in `install_root/bin`. Returns what the scripts printed.
fn run_workflow(
    file: &str,
    workspace: &std::path::Path,
    install_root: &std::path::Path,
    python: Option<&std::path::Path>,
    project: &dyn Fn(&std::path::Path),
    envs: &[(&str, &std::ffi::OsStr)],
) -> String {
    let yaml = std::fs::read_to_string(repo().join(file)).unwrap();
    let runner = workspace.with_extension("runner");
    std::fs::create_dir_all(&runner).unwrap();
    let mut path =
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect::<Vec<_>>();
    path.insert(0, install_root.join("bin"));
    let mut env: Vec<(String, std::ffi::OsString)> = Vec::new();
    let mut output = String::new();
    for (n, step) in workflow_steps(&yaml).into_iter().enumerate() {
        match (step.uses.as_deref(), &step.run) {
            (Some(u), None) if u.starts_with("actions/checkout@") => {
                match step.with.iter().find(|w| w.0 == "path") {
                    None => project(workspace),
                    Some((_, p)) => mirror_checkout(&workspace.join(p)),
                }
            }
            (Some(u), None) if u.starts_with("actions/setup-python@") => {
                path.insert(0, python.expect("a Python for setup-python").to_path_buf())
            }
            (None, Some(script)) => {
                let github_env = runner.join("github_env");
                let github_path = runner.join("github_path");
                std::fs::write(&github_env, "").unwrap();
                std::fs::write(&github_path, "").unwrap();
                let script_file = runner.join(format!("step{n}.sh"));
                std::fs::write(&script_file, script).unwrap();
                let mut cmd = Command::new("bash");
                cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
                    .arg(&script_file)
                    .current_dir(workspace)
                    .env("PATH", std::env::join_paths(&path).unwrap())
                    .env("CARGO_INSTALL_ROOT", install_root)
                    .env("GITHUB_ENV", &github_env)
                    .env("GITHUB_PATH", &github_path)
                    .env("RUNNER_TEMP", &runner)
                    .env_remove("LD_PRELOAD")
                    .env_remove("CUDA_SHIM_LIBRARY")
                    .env_remove("CARGO_TARGET_DIR")
                    .envs(env.iter().map(|(k, v)| (k, v)))
                    .envs(envs.iter().copied());
                output += &run(&format!("{file}: step {n}"), &mut cmd);
                for line in std::fs::read_to_string(&github_env).unwrap().lines() {
                    if let Some((k, v)) = line.split_once('=') {
                        env.push((k.to_string(), v.into()));
                    }
                }
                for line in std::fs::read_to_string(&github_path).unwrap().lines() {
                    path.insert(0, line.trim().into());
                }
            }
            _ => panic!("{file}: a step this runner does not know: {step:?}"),
        }
    }
    output
}

/// A checkout of this repository at `dest`: its files (tracked, and untracked ones git does not
/// ignore), each copied only where it differs, so that unchanged files keep their times and the
/// copy's `target/` rebuilds only what changed.
fn mirror_checkout(dest: &std::path::Path) {
    let out = Command::new("git")
        .current_dir(repo())
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .expect("git ls-files");
    assert!(out.status.success(), "git ls-files failed in the checkout");
    for name in out.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = std::str::from_utf8(name).unwrap();
        let (from, to) = (repo().join(name), dest.join(name));
        let Ok(bytes) = std::fs::read(&from) else {
            continue; // deleted in the working tree
        };
        if std::fs::read(&to).ok().as_ref() != Some(&bytes) {
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(&to, &bytes).unwrap();
            let mode = std::fs::metadata(&from).unwrap().permissions();
            std::fs::set_permissions(&to, mode).unwrap();
        }
    }
}

/// The GitHub Actions recipes of `examples/ci/` (shown in the README) run as written: the C++
/// one builds `examples/cmake` and its CTest tests pass on the shim, the Python one runs
/// `examples/python`'s pytest tests (numba-cuda) on it. Both install libcuda-shim from a checkout
/// with `cargo install`; the installed tool carries the library (only `cuda-shim` is installed),
/// writes it once to the cache directory, and `eval "$(cuda-shim env)"` runs a program on it.
#[test]
fn github_actions_recipes_run_as_written() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    for file in [
        "examples/ci/github-actions-cpp.yml",
        "examples/ci/github-actions-python.yml",
    ] {
        let text = std::fs::read_to_string(repo().join(file)).unwrap();
        assert!(
            readme.contains(&format!("```yaml\n{text}```")),
            "README.md does not show {file} as it is"
        );
    }
    let root = build_dir().join("ci");
    let install_root = root.join("cargo-home");
    let _ = std::fs::remove_dir_all(&install_root);
    let trace = root.join("trace.txt");

    // Both jobs run in one workspace (each job's project is copied in), so that their
    // checkouts of libcuda-shim are one and its build is shared; a runner builds it per job.
    // The C++ project: examples/cmake, whose CMakeLists.txt also builds ../vector_add.cu.
    let cpp = root.join("workspace");
    let _ = std::fs::remove_dir_all(cpp.join("build"));
    let _ = std::fs::remove_file(&trace);
    let out = run_workflow(
        "examples/ci/github-actions-cpp.yml",
        &cpp,
        &install_root,
        None,
        &|ws| {
            std::fs::create_dir_all(ws).unwrap();
            for f in ["CMakeLists.txt", "scan_test.cu"] {
                std::fs::copy(repo().join("examples/cmake").join(f), ws.join(f)).unwrap();
            }
            std::fs::copy(
                repo().join("examples/vector_add.cu"),
                ws.parent().unwrap().join("vector_add.cu"),
            )
            .unwrap();
        },
        &[("CUDA_SHIM_TRACE", trace.as_os_str())],
    );
    assert!(out.contains("100% tests passed"), "{out}");
    let traced = std::fs::read_to_string(&trace).unwrap_or_default();
    assert!(
        traced.contains("cuLaunchKernel"),
        "the tests did not run on the shim"
    );

    // Only the tool is installed: the library is inside it.
    let entries: Vec<_> = std::fs::read_dir(install_root.join("bin"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, ["cuda-shim"]);
    let tool = install_root.join("bin/cuda-shim");
    let mut library = Command::new(&tool);
    library.arg("library").env_remove("CUDA_SHIM_LIBRARY");
    let library = run("cuda-shim library", &mut library);
    assert!(
        library.trim().ends_with("libcuda.so.1") && library.contains("/libcuda-shim/lib/"),
        "{library}"
    );
    let mut shell = Command::new("bash");
    shell
        .arg("-c")
        .arg(format!(
            "set -e; eval \"$('{}' env)\"; echo \"$LD_PRELOAD\"; '{}'",
            tool.display(),
            cpp.join("build/vector_add").display()
        ))
        .env("CUDA_SHIM_TRACE", "1")
        .env_remove("LD_PRELOAD")
        .env_remove("CUDA_SHIM_LIBRARY");
    let out = run("eval \"$(cuda-shim env)\"", &mut shell);
    assert!(out.starts_with(library.trim()), "{out}");
    assert!(
        out.contains("OK: 65536 of 65536 elements correct") && out.contains("libcuda-shim"),
        "{out}"
    );

    // The Python project, on the clients' pinned Python (its requirements are among theirs).
    let venv = Command::new("bash")
        .arg(repo().join("scripts/install-python-clients.sh"))
        .output()
        .expect("scripts/install-python-clients.sh");
    assert!(
        venv.status.success(),
        "scripts/install-python-clients.sh failed"
    );
    let python_bin =
        std::path::PathBuf::from(String::from_utf8(venv.stdout).unwrap().trim()).join("bin");
    let py = cpp.clone();
    let _ = std::fs::remove_file(&trace);
    let out = run_workflow(
        "examples/ci/github-actions-python.yml",
        &py,
        &install_root,
        Some(&python_bin),
        &|ws| {
            std::fs::create_dir_all(ws).unwrap();
            for f in ["requirements.txt", "test_saxpy.py"] {
                std::fs::copy(repo().join("examples/python").join(f), ws.join(f)).unwrap();
            }
        },
        &[
            ("CUDA_SHIM_TRACE", trace.as_os_str()),
            ("PYTHONDONTWRITEBYTECODE", "1".as_ref()),
        ],
    );
    assert!(out.contains("2 passed"), "{out}");
    let traced = std::fs::read_to_string(&trace).unwrap_or_default();
    assert!(
        traced.contains("cuLaunchKernel"),
        "pytest did not run on the shim"
    );
}
