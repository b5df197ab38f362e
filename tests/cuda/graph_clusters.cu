// Thread-block clusters in CUDA graphs (compute capability 9.0), and %is_explicit_cluster.
//
// (1) capture: a cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension 4x1x1 captured
//     from a stream becomes a kernel node carrying that attribute (read back with
//     cudaGraphKernelNodeGetAttribute); the executable graph, launched twice, runs clusters of
//     4 both times (ranks, distributed shared memory between the CTAs of a cluster, one run
//     counted per launch).
// (2) explicit node: cudaGraphAddKernelNode plus cudaGraphKernelNodeSetAttribute of a 2x1x1
//     cluster, priority and cluster scheduling policy, read back; cudaGraphKernelNodeSetParams
//     keeps the attributes; cudaGraphKernelNodeCopyAttributes copies them to another node;
//     cudaGraphExecKernelNodeSetParams to a grid the shape still divides runs with it, one the
//     shape does not divide is refused; cudaGraphExecUpdate takes a new shape, and refuses
//     one the node's grid cannot run with.
// (3) invalid shapes: a cluster that does not divide the grid, or one above the portable size,
//     fails cudaGraphInstantiate with cudaErrorInvalidClusterSize (as cudaLaunchKernelEx does);
//     a 16-CTA shape instantiated while non-portable sizes are allowed fails cudaGraphLaunch
//     once they no longer are.
// (4) %is_explicit_cluster is 1 for an explicit 1x1x1 cluster (launched directly, captured, or
//     set on a node) and for a __cluster_dims__ kernel, 0 for a launch naming no cluster.
// Every expected value is computed on the host; prints PASS or exits 1.
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

constexpr unsigned THREADS = 64;
constexpr unsigned WORDS = 5;


// %is_explicit_cluster is a .pred register (ISA 10.11): read it as one and select 0/1.
__device__ unsigned is_explicit_cluster() {
  unsigned v;
  asm volatile(
      "{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\tselp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(v));
  return v;
}

// Per CTA: rank, CTAs per cluster, %is_explicit_cluster, the next rank's shared value (its
// block id, through distributed shared memory) and a count of the runs.
__device__ void record_body(unsigned* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ unsigned s;
  unsigned rank = cluster.block_rank();
  unsigned n = cluster.num_blocks();
  if (threadIdx.x == 0) s = blockIdx.x;
  cluster.sync();
  if (threadIdx.x == 0) {
    unsigned* peer = cluster.map_shared_rank(&s, (rank + 1) % n);
    unsigned* o = out + blockIdx.x * WORDS;
    o[0] = rank;
    o[1] = n;
    o[2] = is_explicit_cluster();
    o[3] = *peer;
    o[4] += 1;
  }
  // Peers may still read this CTA's shared value.
  cluster.sync();
}

__global__ void record(unsigned* out) { record_body(out); }
__global__ void __cluster_dims__(2, 1, 1) record_fixed(unsigned* out) { record_body(out); }

// Only %is_explicit_cluster, for launches without cluster work (one word per CTA).
__global__ void explicit_only(unsigned* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = is_explicit_cluster();
}

__global__ void empty() {}

static cudaLaunchAttribute cluster_attr(unsigned x, unsigned y = 1, unsigned z = 1) {
  cudaLaunchAttribute a = {};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = x;
  a.val.clusterDim.y = y;
  a.val.clusterDim.z = z;
  return a;
}

// Checks `grid` CTAs of `record` output for clusters of `cl` (1D) after `runs` runs.
static void check_record(unsigned* dev, unsigned grid, unsigned cl, unsigned explicit_, unsigned runs,
                         int line) {
  std::vector<unsigned> o(grid * WORDS);
  CHECK(cudaMemcpy(o.data(), dev, o.size() * 4, cudaMemcpyDeviceToHost));
  int before = expect_failures;
  for (unsigned b = 0; b < grid; b++) {
    unsigned rank = b % cl;
    EXPECT_EQ(o[b * WORDS + 0], rank);
    EXPECT_EQ(o[b * WORDS + 1], cl);
    EXPECT_EQ(o[b * WORDS + 2], explicit_);
    EXPECT_EQ(o[b * WORDS + 3], b - rank + (rank + 1) % cl);
    EXPECT_EQ(o[b * WORDS + 4], runs);
  }
  if (expect_failures != before) fprintf(stderr, "  (checked from line %d)\n", line);
}

static cudaGraphNode_t only_node(cudaGraph_t g) {
  size_t n = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &n));
  EXPECT_EQ(n, 1);
  cudaGraphNode_t node = nullptr;
  n = 1;
  CHECK(cudaGraphGetNodes(g, &node, &n));
  return node;
}

static void expect_cluster_attr(cudaGraphNode_t node, unsigned x, unsigned y, unsigned z) {
  cudaLaunchAttributeValue v = {};
  CHECK(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeClusterDimension, &v));
  EXPECT_EQ(v.clusterDim.x, x);
  EXPECT_EQ(v.clusterDim.y, y);
  EXPECT_EQ(v.clusterDim.z, z);
}

// (1) A captured cluster launch, replayed twice.
static void captured(cudaStream_t st) {
  const unsigned grid = 16, cl = 4;
  unsigned* out;
  CHECK(cudaMalloc(&out, grid * WORDS * 4));
  CHECK(cudaMemset(out, 0, grid * WORDS * 4));
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(THREADS);
  cfg.stream = st;
  cudaLaunchAttribute attr = cluster_attr(cl);
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, record, out));
  CHECK(cudaStreamEndCapture(st, &g));
  expect_cluster_attr(only_node(g), cl, 1, 1);
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, st));
  CHECK(cudaGraphLaunch(e, st));
  CHECK(cudaStreamSynchronize(st));
  check_record(out, grid, cl, 1, 2, __LINE__);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(out));
}

static cudaKernelNodeParams node_params(void* func, unsigned grid, void** args) {
  cudaKernelNodeParams p = {};
  p.func = func;
  p.gridDim = dim3(grid);
  p.blockDim = dim3(THREADS);
  p.kernelParams = args;
  return p;
}

// (2) An explicit kernel node with a cluster attribute.
static void explicit_node(cudaStream_t st) {
  const unsigned grid = 8, cl = 2;
  unsigned* out;
  CHECK(cudaMalloc(&out, grid * WORDS * 4));
  CHECK(cudaMemset(out, 0, grid * WORDS * 4));
  void* args[] = {&out};
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t node, other;
  cudaKernelNodeParams p = node_params((void*)record, grid, args);
  CHECK(cudaGraphAddKernelNode(&node, g, nullptr, 0, &p));
  cudaLaunchAttributeValue v = {};
  v.clusterDim.x = cl;
  v.clusterDim.y = 1;
  v.clusterDim.z = 1;
  CHECK(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeClusterDimension, &v));
  v = {};
  v.priority = 3;
  CHECK(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributePriority, &v));
  v = {};
  v.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicySpread;
  CHECK(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeClusterSchedulingPolicyPreference,
                                        &v));
  // Setting the parameters again keeps the attributes.
  CHECK(cudaGraphKernelNodeSetParams(node, &p));
  expect_cluster_attr(node, cl, 1, 1);
  v = {};
  CHECK(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributePriority, &v));
  EXPECT_EQ(v.priority, 3);
  v = {};
  CHECK(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeClusterSchedulingPolicyPreference,
                                        &v));
  EXPECT_EQ(v.clusterSchedulingPolicyPreference, cudaClusterSchedulingPolicySpread);
  // A second node, depending on the first, takes a copy of its attributes.
  CHECK(cudaGraphAddKernelNode(&other, g, &node, 1, &p));
  CHECK(cudaGraphKernelNodeCopyAttributes(other, node));
  expect_cluster_attr(other, cl, 1, 1);
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, st));
  CHECK(cudaStreamSynchronize(st));
  check_record(out, grid, cl, 1, 2, __LINE__);
  // New launch parameters for both nodes in the executable graph: half the grid, which the
  // shape still divides; the CTAs past it keep their counts.
  CHECK(cudaMemset(out, 0, grid * WORDS * 4));
  cudaKernelNodeParams half = node_params((void*)record, grid / 2, args);
  CHECK(cudaGraphExecKernelNodeSetParams(e, node, &half));
  CHECK(cudaGraphExecKernelNodeSetParams(e, other, &half));
  CHECK(cudaGraphLaunch(e, st));
  CHECK(cudaStreamSynchronize(st));
  check_record(out, grid / 2, cl, 1, 2, __LINE__);
  // A grid the shape does not divide is refused.
  cudaKernelNodeParams odd = node_params((void*)record, 3, args);
  EXPECT_EQ(cudaGraphExecKernelNodeSetParams(e, node, &odd), cudaErrorInvalidClusterSize);
  cudaGetLastError();
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(out));
}

// A graph of one `empty` node of `grid` CTAs in clusters of `cl`.
static cudaGraph_t empty_graph(unsigned grid, unsigned cl) {
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t node;
  cudaKernelNodeParams p = node_params((void*)empty, grid, nullptr);
  CHECK(cudaGraphAddKernelNode(&node, g, nullptr, 0, &p));
  cudaLaunchAttributeValue v = {};
  v.clusterDim.x = cl;
  v.clusterDim.y = 1;
  v.clusterDim.z = 1;
  CHECK(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeClusterDimension, &v));
  return g;
}

// cudaGraphExecUpdate takes a node's new cluster shape with its parameters, and refuses one
// the node's grid cannot run with (nothing changes, the node is named).
static void exec_update(cudaStream_t st) {
  const unsigned grid = 8;
  unsigned* out;
  CHECK(cudaMalloc(&out, grid * WORDS * 4));
  CHECK(cudaMemset(out, 0, grid * WORDS * 4));
  void* args[] = {&out};
  cudaGraph_t g[3];
  cudaGraphNode_t node[3];
  const unsigned grids[3] = {grid, grid, 6}, shapes[3] = {2, 4, 4};
  for (int i = 0; i < 3; i++) {
    CHECK(cudaGraphCreate(&g[i], 0));
    cudaKernelNodeParams p = node_params((void*)record, grids[i], args);
    CHECK(cudaGraphAddKernelNode(&node[i], g[i], nullptr, 0, &p));
    cudaLaunchAttributeValue v = {};
    v.clusterDim.x = shapes[i];
    v.clusterDim.y = v.clusterDim.z = 1;
    CHECK(cudaGraphKernelNodeSetAttribute(node[i], cudaLaunchAttributeClusterDimension, &v));
  }
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g[0], 0));
  cudaGraphExecUpdateResultInfo info = {};
  CHECK(cudaGraphExecUpdate(e, g[1], &info));
  EXPECT_EQ(info.result, cudaGraphExecUpdateSuccess);
  info = {};
  EXPECT_EQ(cudaGraphExecUpdate(e, g[2], &info), cudaErrorGraphExecUpdateFailure);
  cudaGetLastError();
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorParametersChanged);
  EXPECT_EQ(info.errorNode == node[2], 1);
  CHECK(cudaGraphLaunch(e, st));
  CHECK(cudaStreamSynchronize(st));
  check_record(out, grid, 4, 1, 1, __LINE__);
  CHECK(cudaGraphExecDestroy(e));
  for (int i = 0; i < 3; i++) CHECK(cudaGraphDestroy(g[i]));
  CHECK(cudaFree(out));
}

// (3) Invalid shapes at instantiation and at launch.
static void invalid(cudaStream_t st) {
  cudaGraphExec_t e = nullptr;
  cudaGraph_t g = empty_graph(6, 4);
  EXPECT_EQ(cudaGraphInstantiate(&e, g, 0), cudaErrorInvalidClusterSize);
  cudaGetLastError();
  CHECK(cudaGraphDestroy(g));
  g = empty_graph(16, 16);
  EXPECT_EQ(cudaGraphInstantiate(&e, g, 0), cudaErrorInvalidClusterSize);
  cudaGetLastError();
  CHECK(cudaFuncSetAttribute(empty, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, st));
  CHECK(cudaStreamSynchronize(st));
  CHECK(cudaFuncSetAttribute(empty, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
  EXPECT_EQ(cudaGraphLaunch(e, st), cudaErrorInvalidClusterSize);
  cudaGetLastError();
  CHECK(cudaStreamSynchronize(st));
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
}

// Runs `explicit_only` over 4 CTAs with an explicit 1x1x1 cluster (or none when `cl` is 0),
// directly or captured and replayed, and returns what every CTA read (all equal, else ~0).
static unsigned read_explicit(cudaStream_t st, unsigned cl, bool capture) {
  unsigned* out;
  CHECK(cudaMalloc(&out, 4 * 4));
  CHECK(cudaMemset(out, 0xff, 4 * 4));
  cudaGraph_t g = nullptr;
  if (capture) CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(4);
  cfg.blockDim = dim3(32);
  cfg.stream = st;
  cudaLaunchAttribute attr = cluster_attr(cl);
  cfg.attrs = &attr;
  cfg.numAttrs = cl ? 1 : 0;
  CHECK(cudaLaunchKernelEx(&cfg, explicit_only, out));
  if (capture) {
    CHECK(cudaStreamEndCapture(st, &g));
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphLaunch(e, st));
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
  }
  CHECK(cudaStreamSynchronize(st));
  unsigned h[4];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(out));
  for (unsigned i = 1; i < 4; i++)
    if (h[i] != h[0]) return ~0u;
  return h[0];
}

// (4) %is_explicit_cluster.
static void explicit_register(cudaStream_t st) {
  EXPECT_EQ(read_explicit(st, 0, false), 0);
  EXPECT_EQ(read_explicit(st, 1, false), 1);
  EXPECT_EQ(read_explicit(st, 0, true), 0);
  EXPECT_EQ(read_explicit(st, 1, true), 1);
  unsigned* out;
  CHECK(cudaMalloc(&out, 4 * 4));
  CHECK(cudaMemset(out, 0xff, 4 * 4));
  explicit_only<<<4, 32, 0, st>>>(out);
  CHECK(cudaGetLastError());
  // A node with an explicit 1x1x1 cluster.
  void* args[] = {&out};
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t node;
  cudaKernelNodeParams p = {};
  p.func = (void*)explicit_only;
  p.gridDim = dim3(4);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&node, g, nullptr, 0, &p));
  cudaLaunchAttributeValue v = {};
  v.clusterDim.x = v.clusterDim.y = v.clusterDim.z = 1;
  CHECK(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeClusterDimension, &v));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaStreamSynchronize(st));
  unsigned h[4];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (unsigned i = 0; i < 4; i++) EXPECT_EQ(h[i], 0);
  CHECK(cudaGraphLaunch(e, st));
  CHECK(cudaStreamSynchronize(st));
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (unsigned i = 0; i < 4; i++) EXPECT_EQ(h[i], 1);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(out));
  // A __cluster_dims__ kernel's shape is explicit too.
  const unsigned grid = 4;
  CHECK(cudaMalloc(&out, grid * WORDS * 4));
  CHECK(cudaMemset(out, 0, grid * WORDS * 4));
  record_fixed<<<grid, THREADS, 0, st>>>(out);
  CHECK(cudaStreamSynchronize(st));
  check_record(out, grid, 2, 1, 1, __LINE__);
  CHECK(cudaFree(out));
}

int main() {
  // A blocking stream: the plain cudaMemset/cudaMemcpy calls (legacy default stream) are
  // ordered with the work launched into it.
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st));
  captured(st);
  explicit_node(st);
  exec_update(st);
  invalid(st);
  explicit_register(st);
  CHECK(cudaStreamDestroy(st));
  CHECK(cudaDeviceSynchronize());
  if (expect_failures == 0) printf("PASS graph_clusters\n");
  return expect_failures == 0 ? 0 : 1;
}
