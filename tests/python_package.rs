//! The Python package as users get it: the wheel `scripts/build-wheel.sh` builds (the
//! `cuda-shim` tool carrying the driver library, and the module `cuda_shim`), installed by pip,
//! and the three clients' quick checks run through it in the clients' Python with no
//! LD_PRELOAD: CuPy's smoke checks under `python -m cuda_shim`, the cuda-python checks after
//! `cuda_shim.load()`, and some of numba-cuda's own tests under
//! `pytest -p cuda_shim.pytest_plugin`. Each run writes a trace (`CUDA_SHIM_TRACE`: only the
//! shim writes one), and the library comes from the wheel's tool, written out into a cache
//! folder of this test.
//!
//! The wheel is installed with `pip install --prefix` into a folder put on PYTHONPATH: the
//! clients' environment, which `tests/clients.rs` runs with LD_PRELOAD and other checkouts
//! share, is left as it is. Cargo builds the wheel in the checkout's `target/`, so that only the
//! library the tool carries is built anew (`target/shim-embed`, shared with `cargo install
//! --path cuda-shim`; several minutes the first time, incremental afterwards).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use tests::*;

/// The installed package: the site folder to put on PYTHONPATH, the prefix whose `bin/` holds
/// the `cuda-shim` tool, and the cache folder (`XDG_CACHE_HOME`) the tool writes the library to.
struct Package {
    site: PathBuf,
    prefix: PathBuf,
    cache: PathBuf,
}

fn root() -> PathBuf {
    build_dir().join("python-package")
}

/// Builds the wheel and installs it, once per test process.
fn package() -> &'static Package {
    static PACKAGE: OnceLock<Package> = OnceLock::new();
    PACKAGE.get_or_init(|| {
        let root = root();
        let wheels = root.join("wheels");
        let _ = std::fs::remove_dir_all(&wheels);
        let out = Command::new("bash")
            .arg(repo().join("scripts/build-wheel.sh"))
            .arg(&wheels)
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .expect("cannot run scripts/build-wheel.sh");
        assert!(
            out.status.success(),
            "scripts/build-wheel.sh failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let wheel = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
        assert!(wheel.is_file(), "no wheel at {}", wheel.display());

        let prefix = root.join("prefix");
        let _ = std::fs::remove_dir_all(&prefix);
        let out = Command::new(clients_venv().join("bin/python"))
            .args(["-m", "pip", "install", "--no-deps", "--no-index"])
            .args(["--disable-pip-version-check", "--quiet", "--prefix"])
            .arg(&prefix)
            .arg(&wheel)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pip install {} failed:\n{}",
            wheel.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let site = std::fs::read_dir(prefix.join("lib"))
            .unwrap()
            .flatten()
            .map(|e| e.path().join("site-packages"))
            .find(|p| p.join("cuda_shim/__init__.py").is_file())
            .expect("pip installed no cuda_shim package under the prefix");
        assert!(
            prefix.join("bin/cuda-shim").is_file(),
            "pip installed no cuda-shim tool"
        );
        // A fresh cache: the wheel's tool writes its library there on first use.
        let cache = root.join("cache");
        let _ = std::fs::remove_dir_all(&cache);
        Package {
            site,
            prefix,
            cache,
        }
    })
}

/// A scratch directory of this test.
fn scratch(name: &str) -> PathBuf {
    let dir = root().join("runs").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the clients' Python with `args` in `dir`, the package on PYTHONPATH (after `extra_path`)
/// and no LD_PRELOAD, tracing the driver to `dir/trace`, under a time limit.
fn python(
    dir: &Path,
    args: &[&str],
    extra_path: Option<&Path>,
    envs: &[(&str, &str)],
    limit_s: u32,
) -> Output {
    let package = package();
    let path = match extra_path {
        Some(p) => format!("{}:{}", package.site.display(), p.display()),
        None => package.site.display().to_string(),
    };
    let python = clients_venv().join("bin/python");
    Command::new("timeout")
        .args(["-k", "10", &limit_s.to_string()])
        .arg(&python)
        .args(args)
        .current_dir(dir)
        // What the package must do itself: load the library, set CuPy's variable. Cargo's
        // LD_LIBRARY_PATH for tests holds `target/debug/deps`, where `cargo test` leaves a debug
        // libcuda.so that numba-cuda's import would find first.
        .env_remove("LD_PRELOAD")
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("CUDA_SHIM_LIBRARY")
        .env_remove("CUPY_COMPILE_WITH_PTX")
        .env("PYTHONPATH", path)
        .env("XDG_CACHE_HOME", &package.cache)
        .env("CUDA_SHIM_TRACE", dir.join("trace"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .envs(envs.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()))
}

/// The library the wheel's tool wrote out, where the package loads it from.
fn library_dir() -> PathBuf {
    package().cache.join("libcuda-shim/lib")
}

/// The shim was the driver of the run in `dir`: it wrote the trace, which saw `cuInit`, and
/// its library is the one the wheel's tool wrote to the test's cache.
fn assert_ran_on_the_shim(what: &str, dir: &Path) -> String {
    let trace = std::fs::read_to_string(dir.join("trace"))
        .unwrap_or_else(|e| panic!("{what}: no trace from the shim ({e}): it did not load"));
    assert!(
        trace.contains("cuInit"),
        "{what}: the trace shows no cuInit"
    );
    let extracted = std::fs::read_dir(library_dir())
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.path().join("libcuda.so.1").is_file());
    assert!(
        extracted,
        "{what}: the tool wrote no library under {}",
        library_dir().display()
    );
    trace
}

fn clients_dir() -> PathBuf {
    repo().join("tests/clients")
}

#[test]
fn cupy_smoke_under_python_m_cuda_shim() {
    // As tests/clients.rs runs it (no CUB, a fresh kernel cache), but `python -m cuda_shim`
    // loads the shim and sets CUPY_COMPILE_WITH_PTX.
    let dir = scratch("cupy");
    let cache = dir.join("kernel-cache");
    let script = clients_dir().join("cupy_smoke.py");
    let out = python(
        &dir,
        &["-m", "cuda_shim", script.to_str().unwrap()],
        None,
        &[
            ("CUPY_ACCELERATORS", ""),
            ("CUPY_CACHE_DIR", cache.to_str().unwrap()),
        ],
        600,
    );
    assert_checks("cupy_smoke.py under python -m cuda_shim", &out, &[]);
    assert_ran_on_the_shim("cupy_smoke.py", &dir);
}

#[test]
fn cuda_python_checks_after_load() {
    let dir = scratch("cuda-python");
    let script = clients_dir().join("cuda_python_check.py");
    let code = format!(
        "import runpy, sys, cuda_shim\n\
         print('library', cuda_shim.load())\n\
         sys.argv = [{script:?}]\n\
         runpy.run_path({script:?}, run_name='__main__')\n",
        script = script.to_str().unwrap()
    );
    let out = python(&dir, &["-c", &code], None, &[], 600);
    assert_checks("cuda_python_check.py after cuda_shim.load()", &out, &[]);
    let library = format!("library {}", library_dir().display());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&library),
        "load() did not answer the wheel's library ('{library}')"
    );
    // Loaded by the package, not preloaded, the shim still comes before NVRTC and nvJitLink
    // for cuda-bindings' lookups, and hands back PTX for their cubins.
    let trace = assert_ran_on_the_shim("cuda_python_check.py", &dir);
    for what in [
        "nvrtcGetCUBIN: the program was compiled for a real architecture (SASS)",
        "nvJitLinkGetLinkedCubinSize: nvJitLink linked 2 input(s) to a SASS cubin",
    ] {
        assert!(trace.contains(what), "the trace lacks '{what}'");
    }
}

/// numba-cuda tests (pytest `--pyargs` ids) from `tests/clients/numba-quick.txt`, one or two per
/// area: atomics, warp shuffles, intrinsics, records, reductions, random numbers, exceptions,
/// and CUDA C++ linked through NVRTC and nvJitLink.
const NUMBA_TESTS: &[&str] = &[
    "numba.cuda.tests.cudapy.test_atomics::TestCudaAtomics::test_atomic_cas3_1dim",
    "numba.cuda.tests.cudapy.test_warp_ops::TestCudaWarpOperations::test_shfl_sync_xor",
    "numba.cuda.tests.cudapy.test_intrinsics::TestCudaIntrinsic::test_simple_threadidx",
    "numba.cuda.tests.cudapy.test_record_dtype::TestRecordDtypeWithStructArrays::test_rec_read_a",
    "numba.cuda.tests.cudapy.test_reduction::TestReduction::test_sum_reduce",
    "numba.cuda.tests.cudapy.test_random::TestCudaRandomXoroshiro128p::test_uniform_float64",
    "numba.cuda.tests.cudapy.test_exception::TestException::test_user_raise",
    "numba.cuda.tests.cudapy.test_device_func::TestDeclareDevice::test_link_cu_source",
    "numba.cuda.tests.cudapy.test_mandel::TestCudaMandel::test_mandel",
];

#[test]
fn numba_cuda_tests_under_the_pytest_plugin() {
    let dir = scratch("numba");
    // numba-cuda's fixtures its wheel lacks (tests/clients.rs).
    for f in ["numba_cuda_conftest.py", "pytest.ini"] {
        std::fs::copy(clients_dir().join(f), dir.join(f)).unwrap();
    }
    let junit = dir.join("junit.xml");
    let mut args = vec![
        "-m",
        "pytest",
        "-p",
        "cuda_shim.pytest_plugin",
        "-p",
        "numba_cuda_conftest",
        "-p",
        "no:cacheprovider",
        "-rfE",
        "--color=no",
        "--timeout=300",
        "--junitxml",
        junit.to_str().unwrap(),
        "--pyargs",
    ];
    args.extend_from_slice(NUMBA_TESTS);
    let out = python(&dir, &args, Some(&dir), &[], 600);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let outcomes = junit_outcomes(&junit);
    let not_passed: Vec<_> = NUMBA_TESTS
        .iter()
        .filter(|id| {
            // JUnit names the test `[module].Class::test` (with --pyargs, the module part can
            // be empty); the id is `module::Class::test`.
            let class_test = format!(".{}", id.split_once("::").unwrap().1);
            !outcomes
                .iter()
                .any(|(k, s)| k.ends_with(&class_test) && s == "passed")
        })
        .collect();
    assert!(
        out.status.success() && not_passed.is_empty(),
        "numba-cuda under the plugin ({}): not passed: {not_passed:?}\n--- pytest\n{stdout}\n\
         --- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // The plugin's header names the library: the wheel's, from the test's cache.
    let header = format!("cuda-shim: libcuda.so.1 is {}", library_dir().display());
    assert!(
        stdout.contains(&header),
        "pytest's header lacks '{header}':\n{stdout}"
    );
    assert_ran_on_the_shim("numba-cuda tests", &dir);
}

/// Runs `setup` (Python lines that import numba-cuda and load the shim in some order), then a
/// numba-cuda kernel adding 1 to 64 zeros, which must sum to 64 on the shim; returns its trace.
fn numba_kernel_after(what: &str, dir: &Path, setup: &str) -> String {
    let code = format!(
        "{setup}\n\
         import numpy as np\n\
         @cuda.jit\n\
         def inc(a):\n    a[cuda.grid(1)] += 1\n\
         a = cuda.to_device(np.zeros(64))\n\
         inc[2, 32](a)\n\
         print('sum', a.copy_to_host().sum())\n"
    );
    let out = python(dir, &["-c", &code], None, &[], 300);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("sum 64.0"),
        "{what}:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ran_on_the_shim(what, dir)
}

#[test]
fn numba_cuda_imported_before_load() {
    // numba-cuda looks for the driver when it is imported and keeps the failure; load() makes it
    // look again, so the order of the two lines does not matter.
    let dir = scratch("numba-import-first");
    numba_kernel_after(
        "numba-cuda imported first",
        &dir,
        "from numba import cuda\nimport cuda_shim\ncuda_shim.load()",
    );
}

#[test]
fn load_promotes_a_shim_opened_without_rtld_global() {
    // The shim opened first with ctypes' default RTLD_LOCAL, as numba-cuda opens a libcuda.so it
    // finds on the library path: load() keeps it and makes its symbols global, so that
    // cuda-bindings finds its nvJitLink functions and numba's link hands the shim PTX (with
    // NVIDIA's nvJitLink alone the kernel would come back as a SASS cubin it cannot run).
    let dir = scratch("shim-opened-locally");
    let trace = numba_kernel_after(
        "a shim opened without RTLD_GLOBAL",
        &dir,
        "import ctypes, cuda_shim\nctypes.CDLL(cuda_shim.library_path())\n\
         from numba import cuda\ncuda_shim.load()",
    );
    assert!(trace.contains("nvJitLinkGetLinkedCubinSize"), "{trace}");
}

#[test]
fn load_refuses_another_driver_and_accepts_a_preloaded_shim() {
    // Another libcuda.so.1 (a stub standing for NVIDIA's driver) loaded first: load() must say
    // that the shim cannot take over, and leave it.
    let dir = scratch("another-driver");
    let stub = dir.join("libcuda.so.1");
    let source = dir.join("stub.c");
    std::fs::write(&source, "int cuInit(unsigned flags) { return 0; }\n").unwrap();
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o"])
        .arg(&stub)
        .arg(&source)
        .output()
        .expect("this test needs a C compiler, cc");
    assert!(cc.status.success(), "cc failed: {cc:?}");
    let code = format!(
        "import ctypes, os, cuda_shim\n\
         ctypes.CDLL({stub:?}, mode=os.RTLD_GLOBAL)\n\
         try:\n    cuda_shim.load()\nexcept cuda_shim.ShimError as e:\n    print('refused:', e)\n\
         print('loaded:', cuda_shim.loaded())\n",
        stub = stub.to_str().unwrap()
    );
    let out = python(&dir, &["-c", &code], None, &[], 60);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && stdout.contains(&format!(
                "refused: a CUDA driver is loaded in this process already ({})",
                stub.display()
            ))
            && stdout.contains("loaded: None"),
        "load() did not refuse:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The pytest plugin stops pytest with the same message (the stub preloaded this time).
    let preload = stub.to_str().unwrap();
    let out = python(
        &dir,
        &[
            "-m",
            "pytest",
            "-p",
            "cuda_shim.pytest_plugin",
            "-p",
            "no:cacheprovider",
        ],
        None,
        &[("LD_PRELOAD", preload)],
        120,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(4)
            && stderr.contains("ERROR: cuda_shim: a CUDA driver is loaded in this process already"),
        "pytest -p cuda_shim.pytest_plugin did not stop ({}):\n{stderr}",
        out.status
    );

    // Under the wheel's `cuda-shim run` (the library preloaded), load() keeps that library.
    let tool = package().prefix.join("bin/cuda-shim");
    let python_exe = clients_venv().join("bin/python");
    let out = Command::new(&tool)
        .args(["run", "--"])
        .arg(&python_exe)
        .args(["-c", "import cuda_shim; print(cuda_shim.load())"])
        .env_remove("LD_PRELOAD")
        .env_remove("CUDA_SHIM_LIBRARY")
        .env("PYTHONPATH", &package().site)
        .env("XDG_CACHE_HOME", &package().cache)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim().starts_with(library_dir().to_str().unwrap()),
        "load() under cuda-shim run:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
