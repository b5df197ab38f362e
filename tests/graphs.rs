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

#[test]
fn user_objects_destroyed_with_their_last_reference() {
    let exe = nvcc("graph_user_objects", "graph_user_objects", &[]);
    assert_pass("graph_user_objects", &run_preloaded(&exe, &[]));
}

#[test]
fn memory_nodes_and_captured_stream_ordered_allocation() {
    let exe = nvcc("graph_memory", "graph_memory", &[]);
    assert_pass("graph_memory", &run_preloaded(&exe, &[]));
}

#[test]
fn conditional_nodes_set_from_device_code() {
    let exe = nvcc("graph_conditional", "graph_conditional", &[]);
    assert_pass("graph_conditional", &run_preloaded(&exe, &[]));
}

#[test]
fn node_enable_params_capture_to_graph_and_dot() {
    let exe = nvcc("graph_node_params", "graph_node_params", &[]);
    // The program writes its DOT file to the current directory.
    let dir = build_dir().join("graph_node_params.d");
    std::fs::create_dir_all(&dir).unwrap();
    let out = std::process::Command::new(&exe)
        .current_dir(&dir)
        .env("LD_PRELOAD", &shim().library)
        .output()
        .unwrap();
    assert_pass("graph_node_params", &out);
}
