//! Surface objects (tests/cuda/surfaces.cu): surf1D/2D/3D, layered and cubemap writes and
//! reads in several element types, the boundary modes (a .trap access out of bounds fails the
//! launch with cudaErrorIllegalAddress and the process goes on), surface writes read back
//! through a texture, suq, sured and sust.p through inline PTX, and the driver's answers to bad
//! arguments. Expected values are computed in the program from the Programming Guide's surface
//! functions and PTX ISA 9.7.11.

use tests::*;

#[test]
fn surface_objects_in_every_geometry() {
    let lib = lib_dir();
    let exe = nvcc(
        "surfaces",
        "surfaces",
        &["-L", lib.to_str().unwrap(), "-lcuda"],
    );
    let run = run_preloaded(&exe, &[]);
    assert_pass("surfaces", &run);
    // The trapped access is reported with its coordinates and where it happened.
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("surface access out of bounds with .trap at (32)")
            && err.contains("kernel '_Z9trap_readyPi' at block (0,0,0) thread (0,0,0)"),
        "{err}"
    );
}
