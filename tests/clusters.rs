//! Thread-block clusters through NVIDIA's cudart (compute_90 PTX): cooperative groups'
//! `this_cluster()` with `cluster.sync()`, `block_rank()`, `num_blocks()`, `dim_blocks()`,
//! `block_index()`, `map_shared_rank()` and `query_shared_rank()` over `__cluster_dims__` and
//! `cudaLaunchKernelEx` cluster shapes (1D and 2D), a distributed-shared-memory histogram with
//! atomics on other CTAs' shared memory, and the launch checks (cluster sizes that do not
//! divide the grid or exceed the portable/non-portable limits). The program checks its results
//! against host arithmetic and prints `PASS`; it needs NVIDIA's pip toolkit
//! (`scripts/install-toolkit.sh`). `graph_clusters.cu` does the same for clusters in CUDA graphs
//! (captured and explicit kernel nodes with their cluster attribute) and `%is_explicit_cluster`.

use tests::*;

#[test]
fn clusters_dsm_sync_and_launch_checks() {
    let exe = nvcc_arch("clusters", "clusters", "compute_90", &[]);
    let out = run_preloaded(&exe, &[]);
    assert_pass("clusters", &out);
}

/// One host thread: the CTAs of a cluster take turns, and clusters queue behind each other.
#[test]
fn clusters_on_one_host_thread() {
    let exe = nvcc_arch("clusters", "clusters_1t", "compute_90", &[]);
    let out = run_preloaded(&exe, &[("CUDA_SHIM_THREADS", "1")]);
    assert_pass("clusters on 1 thread", &out);
}

/// Clusters in CUDA graphs (`graph_clusters.cu`): a captured `cudaLaunchKernelEx` cluster
/// launch replayed twice, an explicit kernel node with `cudaGraphKernelNodeSetAttribute`
/// (cluster dimension, priority, scheduling policy) read back, kept across set-params and
/// copied to another node, invalid shapes refused at instantiation and launch, and
/// `%is_explicit_cluster` for explicit 1x1x1 clusters and `__cluster_dims__`.
#[test]
fn clusters_in_graphs_and_explicit_cluster_register() {
    let exe = nvcc_arch("graph_clusters", "graph_clusters", "compute_90", &[]);
    let out = run_preloaded(&exe, &[]);
    assert_pass("graph_clusters", &out);
}

/// `st.async` and `red.async` between the two CTAs of a cluster (`st_async.cu`): stores of
/// 32 and 64 bits and every reduction of the relaxed form into the peer's shared memory, each
/// completing its bytes on the peer's mbarrier, which each CTA waits on; values as the ISA's
/// arithmetic gives them. Also on one host thread, where the CTAs take turns.
#[test]
fn st_async_and_red_async_between_ctas() {
    let exe = nvcc_arch("st_async", "st_async", "compute_90", &[]);
    assert_pass("st_async", &run_preloaded(&exe, &[]));
    assert_pass(
        "st_async on 1 thread",
        &run_preloaded(&exe, &[("CUDA_SHIM_THREADS", "1")]),
    );
}

/// Cluster launch control (`cluster_launch_control.cu`, compute_100a on the B200 profile):
/// kernels that process their own block and then the blocks of CTAs they cancel with
/// `clusterlaunchcontrol.try_cancel`, single CTAs and clusters of two with
/// `.multicast::cluster::all`, through `<cuda/ptx>`'s wrappers. Every block is processed once,
/// started CTAs plus cancellations are the grid, a canceled CTA never starts, and every
/// `query_cancel` form decodes the same ctaid. With two host threads most of the 96 CTAs have
/// not started when the first ones ask, so cancellations must happen (on a GPU, where all 96
/// fit at once, none would).
#[test]
fn cluster_launch_control_steals_unstarted_ctas() {
    let exe = nvcc_arch(
        "cluster_launch_control",
        "cluster_launch_control",
        "compute_100a",
        &["-std=c++17"],
    );
    let out = run_preloaded(
        &exe,
        &[("CUDA_SHIM_DEVICE", "b200"), ("CUDA_SHIM_THREADS", "2")],
    );
    let stdout = assert_pass("cluster_launch_control", &out);
    let counts: Vec<u32> = stdout
        .lines()
        .find_map(|l| l.strip_prefix("canceled: "))
        .expect("a canceled line")
        .split(", ")
        .map(|p| p.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(counts[0] > 0 && counts[1] > 0, "{stdout}");
}
