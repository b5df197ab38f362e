//! CUDA graphs end to end: stream capture (fork and join across streams, the errors of illegal
//! calls, capture modes) and the explicit node API, each built by the pinned nvcc with NVIDIA's
//! cudart and run on the shim. The programs check their results against the semantics the CUDA
//! documentation gives (see the comments at the top of each `.cu`) and print `PASS`.

use tests::*;

#[test]
fn stream_capture_instantiate_and_relaunch() {
    let exe = nvcc("graph_capture", "graph_capture", &[]);
    assert_pass("graph_capture", &run_preloaded(&exe, &[]));
}

#[test]
fn explicit_nodes_update_and_clone() {
    let exe = nvcc("graph_nodes", "graph_nodes", &[]);
    assert_pass("graph_nodes", &run_preloaded(&exe, &[]));
}
