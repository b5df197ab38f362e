//! Many host threads calling the driver at once through NVIDIA's cudart: allocations, copies,
//! launches and host functions on their own streams, event waits, synchronous calls on the
//! shared legacy stream, frees, and per-thread graph capture and launch. The program checks
//! every result (see `tests/cuda/threads.cu`).

use tests::*;

#[test]
fn sixteen_threads_share_the_device() {
    let exe = nvcc("threads", "threads", &[]);
    for _ in 0..3 {
        assert_pass("threads", &run_preloaded(&exe, &[]).clone());
    }
    let out = std::process::Command::new(&exe)
        .args(["16", "30", "2048"])
        .env("LD_PRELOAD", &shim().library)
        .output()
        .unwrap();
    assert_pass("threads 16 30", &out);
}
