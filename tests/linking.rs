//! Linking relocatable device code: the driver API's JIT linker (`cuLink*`) on hand-written
//! PTX, and programs built with `nvcc -rdc=true` whose translation units are linked at load.
//! Expected values are the arithmetic written in each program's header comment.

use tests::*;

#[test]
fn driver_api_links_two_ptx_modules() {
    let lib = lib_dir();
    let exe = nvcc(
        "link_driver",
        "link_driver",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    let devrt = toolkit().join("lib/libcudadevrt.a");
    let out = std::process::Command::new(&exe)
        .arg(&devrt)
        .env("LD_PRELOAD", &shim().library)
        .output()
        .unwrap();
    assert_pass("link_driver", &out);
}

#[test]
fn rdc_program_with_two_translation_units() {
    // A kernel in rdc_main.cu calls a __device__ function and reads an extern __device__
    // variable of rdc_lib.cu; cudart hands over a version-2 fatbin wrapper whose prelinked
    // list holds both units' PTX and NVIDIA's device runtime.
    let other = repo().join("tests/cuda/rdc_lib.cu");
    let exe = nvcc("rdc_main", "rdc", &["-rdc=true", other.to_str().unwrap()]);
    assert_pass("rdc", &run_preloaded(&exe, &[]));
}

#[test]
fn rdc_program_with_shared_cudart() {
    let other = repo().join("tests/cuda/rdc_lib.cu");
    let lib = lib_dir();
    let exe = nvcc(
        "rdc_main",
        "rdc_shared",
        &[
            "-rdc=true",
            "-cudart",
            "shared",
            "-L",
            lib.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    let out = std::process::Command::new(&exe)
        .env("LD_PRELOAD", &shim().library)
        .env("LD_LIBRARY_PATH", &lib)
        .output()
        .unwrap();
    assert_pass("rdc shared", &out);
}

/// PTX as NVVM writes it, every function declared before its definition (libdevice's
/// `__internal_trig_reduction_slowpathd` and `__internal_accurate_pow` behind sin and pow),
/// linked by cuLink* alone (as numba-cuda links its kernels), with a hand-written module
/// (`.extern` calls into it, private and `.weak` forward declarations of its own), and with a
/// mismatched `.extern` prototype, which the linker rejects.
#[test]
fn driver_api_links_forward_declared_functions() {
    let src = repo().join("tests/cuda/link_forward.cu");
    let ptx = build_dir().join("link_forward_device.ptx");
    let out = std::process::Command::new(toolkit().join("bin/nvcc"))
        .args([
            "-gencode",
            "arch=compute_80,code=compute_80",
            "-O2",
            "-rdc=true",
            "-ptx",
        ])
        .arg("-DDEVICE_PTX")
        .arg("-o")
        .arg(&ptx)
        .arg(&src)
        .output()
        .expect("cannot run nvcc");
    assert!(
        out.status.success(),
        "nvcc -ptx failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = lib_dir();
    let exe = nvcc(
        "link_forward",
        "link_forward",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    let out = std::process::Command::new(&exe)
        .arg(&ptx)
        .env("LD_PRELOAD", &shim().library)
        .output()
        .unwrap();
    assert_pass("link_forward", &out);
}

#[test]
fn nvrtc_cubin_for_a_real_architecture_runs() {
    // NVRTC compiles with -arch=sm_90 and hands out a cubin (SASS); with the shim preloaded,
    // nvrtcGetCUBINSize/nvrtcGetCUBIN return a fatbin with the program's PTX instead, which
    // cuModuleLoadData, cuLibraryLoadData and cuLinkAddData(CU_JIT_INPUT_CUBIN) load.
    let nvrtc = nvrtc_root();
    let lib = lib_dir();
    let include = format!("-I{}", nvrtc.join("include").display());
    let nvrtc_lib = nvrtc.join("lib");
    let rpath = format!("-Xlinker=-rpath={}", nvrtc_lib.display());
    let exe = nvcc(
        "nvrtc_cubin",
        "nvrtc_cubin",
        &[
            &include,
            "-L",
            nvrtc_lib.to_str().unwrap(),
            "-l:libnvrtc.so.13",
            &rpath,
            "-L",
            lib.to_str().unwrap(),
            "-lcuda",
        ],
    );
    let trace = build_dir().join("nvrtc_cubin.trace");
    let out = run_preloaded(&exe, &[("CUDA_SHIM_TRACE", trace.to_str().unwrap())]);
    assert_pass("nvrtc_cubin", &out);
    let trace = std::fs::read_to_string(&trace).unwrap();
    assert!(
        trace.contains("nvrtcGetCUBIN: the program was compiled for a real architecture (SASS)"),
        "the trace does not say the cubin was replaced:\n{trace}"
    );
}

/// NVIDIA's NVRTC of the toolkit's version (`scripts/install-toolkit.sh --nvrtc`).
fn nvrtc_root() -> std::path::PathBuf {
    install_toolkit(&["--nvrtc"])
}
