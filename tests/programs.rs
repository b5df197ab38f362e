//! CUDA C++ programs built by the pinned nvcc (virtual architecture only) and run unmodified on
//! the shim. Each program checks its own results against a CPU computation and prints `PASS`.

use std::process::Command;
use tests::*;

#[test]
fn vector_add_static_cudart() {
    let exe = nvcc("vector_add", "vector_add", &[]);
    assert_pass("vector_add", &run_preloaded(&exe, &[]));
}

#[test]
fn vector_add_shared_cudart() {
    let lib = lib_dir();
    let exe = nvcc(
        "vector_add",
        "vector_add_shared",
        &["-cudart", "shared", "-L", lib.to_str().unwrap()],
    );
    let out = Command::new(&exe)
        .env("LD_PRELOAD", &shim().library)
        .env("LD_LIBRARY_PATH", &lib)
        .output()
        .unwrap();
    assert_pass("vector_add with the shared cudart", &out);
}

#[test]
fn vector_add_via_library_path() {
    // No preload: the shim is found as libcuda.so.1 first on the library path.
    let exe = nvcc("vector_add", "vector_add_libpath", &[]);
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", lib_dir())
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert_pass("vector_add via LD_LIBRARY_PATH", &out);
}

#[test]
fn vector_add_via_cli() {
    let exe = nvcc("vector_add", "vector_add_cli", &[]);
    let out = Command::new(&shim().cli)
        .args(["run", "--"])
        .arg(&exe)
        .env_remove("LD_PRELOAD")
        .output()
        .unwrap();
    assert_pass("cuda-shim run -- vector_add", &out);
}

#[test]
fn saxpy_grid_stride_16m() {
    let exe = nvcc("saxpy", "saxpy", &[]);
    assert_pass("saxpy", &run_preloaded(&exe, &[]));
}

#[test]
fn shared_memory_reduction() {
    let exe = nvcc("reduction", "reduction", &[]);
    assert_pass("reduction", &run_preloaded(&exe, &[]));
}

#[test]
fn driver_api_with_embedded_ptx() {
    let lib = lib_dir();
    let exe = nvcc(
        "driver_api",
        "driver_api",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    assert_pass("driver_api", &run_preloaded(&exe, &[]));
}

#[test]
fn wild_store_is_a_sticky_illegal_address() {
    let exe = nvcc("illegal_address", "illegal_address", &[]);
    let out = run_preloaded(&exe, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "illegal_address crashed: {stderr}");
    // The real driver: the launch is accepted, the fault is reported at synchronisation and
    // every later call fails with it until the context is reset.
    assert_eq!(
        stdout.trim(),
        "launch=cudaSuccess sync=cudaErrorIllegalAddress after=cudaErrorIllegalAddress",
        "stderr:\n{stderr}"
    );
    // The report names the kernel, the faulting thread, the PTX line and the address.
    for needle in ["_Z4pokePi", "thread (5,0,0)", "0x1014", "line"] {
        assert!(
            stderr.contains(needle),
            "report lacks {needle:?}:\n{stderr}"
        );
    }
}

#[test]
fn sass_only_fatbin_asks_for_a_ptx_rebuild() {
    // code=sm_80 puts only SASS in the fatbin: nothing the emulator can run.
    let source = repo().join("tests/cuda/vector_add.cu");
    let exe = build_dir().join("vector_add_sass_only");
    let status = Command::new(toolkit().join("bin/nvcc"))
        .args(["-gencode", "arch=compute_80,code=sm_80", "-o"])
        .arg(&exe)
        .arg(&source)
        .status()
        .unwrap();
    assert!(status.success());
    let out = run_preloaded(&exe, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("cudaErrorNoKernelImageForDevice")
            || stderr.contains("no kernel image")
            || stderr.contains("NO_BINARY_FOR_GPU"),
        "{stderr}"
    );
    assert!(
        stderr.contains("-gencode arch=compute_"),
        "no rebuild advice:\n{stderr}"
    );
}

#[test]
fn trace_logs_every_driver_call() {
    let exe = nvcc("vector_add", "vector_add_trace", &[]);
    let trace = build_dir().join("vector_add.trace");
    let _ = std::fs::remove_file(&trace);
    let out = run_preloaded(&exe, &[("CUDA_SHIM_TRACE", trace.to_str().unwrap())]);
    assert_pass("vector_add traced", &out);
    let log = std::fs::read_to_string(&trace).expect("no trace file written");
    for call in [
        "cuInit",
        "cuGetProcAddress",
        "cuGetExportTable",
        "cuLibraryLoadData",
        "cuLaunchKernel",
        "cuMemcpy",
    ] {
        assert!(log.contains(call), "trace lacks {call}");
    }
}

#[test]
fn cli_info_describes_the_device() {
    let out = Command::new(&shim().cli).arg("info").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.to_lowercase().contains("compute capability"), "{text}");
}

#[test]
fn cli_check_reports_file_line_column() {
    let dir = build_dir().join("check");
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.ptx");
    std::fs::write(
        &good,
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n",
    )
    .unwrap();
    let bad = dir.join("bad.ptx");
    // Line 6 has an opcode no PTX version defines.
    std::fs::write(
        &bad,
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tfrobnicate.b32 %r1;\n\tret;\n}\n",
    )
    .unwrap();
    let ok = Command::new(&shim().cli)
        .arg("check")
        .arg(&good)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let fail = Command::new(&shim().cli)
        .arg("check")
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!fail.status.success());
    let stderr = String::from_utf8_lossy(&fail.stderr);
    let want = format!("{}:6:2: error:", bad.display());
    assert!(stderr.contains(&want), "want {want:?} in:\n{stderr}");
}

#[test]
fn device_printf_and_malloc() {
    let exe = nvcc("printf", "printf", &[]);
    let out = run_preloaded(&exe, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Device output lands at the synchronisation, not at the launch; the four lanes of one warp
    // print in lane order. The heap sum is sum(i^2, i < 1000) = 999*1000*1999/6.
    assert_eq!(
        stdout,
        "before\nlaunched\n\
         thread 0: 10 0.000 even a ff\n\
         thread 1: 11 0.500 odd b 100\n\
         thread 2: 12 1.000 even c 101\n\
         thread 3: 13 1.500 odd d 102\n\
         between\nheap sum 332833500\nafter: cudaSuccess\n"
    );
}

#[test]
fn device_assert_reports_and_fails_the_context() {
    let exe = nvcc("assert", "assert", &[]);
    let out = run_preloaded(&exe, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout, "sync: cudaErrorAssert\n", "stderr:\n{stderr}");
    // CUDA's message: FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z] Assertion `EXPR` failed.
    assert!(
        stderr.contains("assert.cu:8: void check(const int *): block: [0,0,0], thread: [3,0,0] Assertion `v[threadIdx.x] != 3` failed."),
        "{stderr}"
    );
}

#[test]
fn thread_count_setting_is_honoured_and_checked() {
    let exe = nvcc("reduction", "reduction_threads", &[]);
    let one = run_preloaded(&exe, &[("CUDA_SHIM_THREADS", "1")]);
    let all = run_preloaded(&exe, &[]);
    // Race-free programs compute the same whatever the number of host threads.
    assert_eq!(
        assert_pass("one thread", &one),
        assert_pass("all cores", &all)
    );
    let bad = run_preloaded(&exe, &[("CUDA_SHIM_THREADS", "many")]);
    assert_pass("bad thread count", &bad);
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("CUDA_SHIM_THREADS=\"many\""), "{stderr}");
}

/// 60 + 19 GiB allocated on a machine with far less memory (untouched device memory costs
/// nothing), and an allocation past the profile's 80 GiB fails with cudaErrorMemoryAllocation.
#[test]
fn allocations_as_large_as_the_emulated_device() {
    let exe = nvcc("big_alloc", "big_alloc", &[]);
    assert_pass("big_alloc", &run_preloaded(&exe, &[]));
}
