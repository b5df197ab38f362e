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
