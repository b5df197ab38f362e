// cudaGraphNodeSetEnabled/GetEnabled, cudaGraphNodeGetParams/SetParams,
// cudaGraphExecNodeSetParams, cudaGraphExecChildGraphNodeSetParams,
// cudaStreamBeginCaptureToGraph into a graph with dependencies, and cudaGraphDebugDotPrint.
// Expected behaviour from the CUDA documentation (cuda.h): a disabled node runs as an empty
// node until enabled again, and only kernel, memset and memcpy nodes can be disabled
// (cudaErrorInvalidValue otherwise); parameters set on an executable graph change only its
// later launches, not the graph; a child graph update needs the same topology; captured work
// follows the given dependencies; the DOT file describes every node and edge.
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include "check.h"

const int N = 256;

__global__ void add(int* a, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += v;
}
__global__ void twice(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2;
}

static int first(const int* d) {
  int h[N];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 1; i < N; i++)
    if (h[i] != h[0]) return -1;
  return h[0];
}

static size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) n++;
  return n;
}

int main() {
  CHECK(cudaFree(0));
  int* d;
  CHECK(cudaMalloc(&d, N * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int n = N, three = 3;

  // memset(d, 0) -> add 3 -> twice; host node; child graph (add 3).
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t ms, k1, k2, child_node;
  cudaMemsetParams mp = {};
  mp.dst = d;
  mp.value = 0;
  mp.elementSize = 4;
  mp.width = N;
  mp.height = 1;
  CHECK(cudaGraphAddMemsetNode(&ms, g, nullptr, 0, &mp));
  void* a1[] = {&d, &n, &three};
  cudaGraphNodeParams kp = {};
  kp.type = cudaGraphNodeTypeKernel;
  kp.kernel.func = (void*)add;
  kp.kernel.gridDim = dim3(N / 64);
  kp.kernel.blockDim = dim3(64);
  kp.kernel.kernelParams = a1;
  CHECK(cudaGraphAddNode(&k1, g, &ms, nullptr, 1, &kp));
  void* a2[] = {&d, &n};
  cudaKernelNodeParams tp = {};
  tp.func = (void*)twice;
  tp.gridDim = dim3(N / 64);
  tp.blockDim = dim3(64);
  tp.kernelParams = a2;
  CHECK(cudaGraphAddKernelNode(&k2, g, &k1, 1, &tp));
  cudaGraph_t child;
  CHECK(cudaGraphCreate(&child, 0));
  cudaGraphNode_t ck;
  CHECK(cudaGraphAddNode(&ck, child, nullptr, nullptr, 0, &kp));
  CHECK(cudaGraphAddChildGraphNode(&child_node, g, &k2, 1, child));

  // Generic parameters read back.
  cudaGraphNodeParams back = {};
  CHECK(cudaGraphNodeGetParams(k1, &back));
  EXPECT_EQ(back.type, cudaGraphNodeTypeKernel);
  EXPECT_EQ(back.kernel.gridDim.x, N / 64);
  EXPECT_EQ(back.kernel.blockDim.x, 64);
  EXPECT_EQ(*(int*)back.kernel.kernelParams[2], 3);
  CHECK(cudaGraphNodeGetParams(ms, &back));
  EXPECT_EQ(back.type, cudaGraphNodeTypeMemset);
  EXPECT_EQ(back.memset.width, N);
  EXPECT_EQ(back.memset.elementSize, 4);

  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT_EQ(first(d), (0 + 3) * 2 + 3);

  // Disable the doubling kernel: (0 + 3) + 3.
  unsigned on = 7;
  CHECK(cudaGraphNodeGetEnabled(e, k2, &on));
  EXPECT_EQ(on, 1);
  CHECK(cudaGraphNodeSetEnabled(e, k2, 0));
  CHECK(cudaGraphNodeGetEnabled(e, k2, &on));
  EXPECT_EQ(on, 0);
  EXPECT_EQ(cudaGraphNodeSetEnabled(e, child_node, 0), cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT_EQ(first(d), 6);
  CHECK(cudaGraphNodeSetEnabled(e, k2, 1));

  // Executable-graph parameters: add 5 instead of 3 in k1; the graph keeps 3.
  int five = 5;
  void* a5[] = {&d, &n, &five};
  cudaGraphNodeParams kp5 = kp;
  kp5.kernel.kernelParams = a5;
  CHECK(cudaGraphExecNodeSetParams(e, k1, &kp5));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT_EQ(first(d), (0 + 5) * 2 + 3);
  CHECK(cudaGraphNodeGetParams(k1, &back));
  EXPECT_EQ(*(int*)back.kernel.kernelParams[2], 3);
  // Type mismatch.
  EXPECT_EQ(cudaGraphExecNodeSetParams(e, ms, &kp5), cudaErrorInvalidValue);
  cudaGetLastError();

  // Child graph update: the same topology, adding 10.
  int ten = 10;
  void* a10[] = {&d, &n, &ten};
  cudaGraph_t child2;
  CHECK(cudaGraphCreate(&child2, 0));
  cudaGraphNodeParams kp10 = kp;
  kp10.kernel.kernelParams = a10;
  cudaGraphNode_t ck2;
  CHECK(cudaGraphAddNode(&ck2, child2, nullptr, nullptr, 0, &kp10));
  CHECK(cudaGraphExecChildGraphNodeSetParams(e, child_node, child2));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT_EQ(first(d), (0 + 5) * 2 + 10);
  // Another topology is refused.
  cudaGraphNode_t extra;
  CHECK(cudaGraphAddNode(&extra, child2, &ck2, nullptr, 1, &kp10));
  EXPECT_EQ(cudaGraphExecChildGraphNodeSetParams(e, child_node, child2), cudaErrorInvalidValue);
  cudaGetLastError();

  // The graph's own parameters: memset to 1 through cudaGraphNodeSetParams.
  cudaGraphNodeParams mset = {};
  CHECK(cudaGraphNodeGetParams(ms, &mset));
  mset.memset.value = 1;
  CHECK(cudaGraphNodeSetParams(ms, &mset));
  EXPECT_EQ(cudaGraphNodeSetParams(k1, &mset), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaGraphExec_t e2;
  CHECK(cudaGraphInstantiate(&e2, g, 0));
  CHECK(cudaGraphLaunch(e2, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT_EQ(first(d), (1 + 3) * 2 + 3);
  CHECK(cudaGraphExecDestroy(e2));
  CHECK(cudaGraphExecDestroy(e));

  // Capture into an existing graph after its memset node: memset 0 -> add 4 -> twice gives 8
  // only in that order (the memory holds 0x7f7f7f7f before the launch).
  cudaGraph_t g2;
  CHECK(cudaGraphCreate(&g2, 0));
  cudaGraphNode_t m2;
  CHECK(cudaGraphAddMemsetNode(&m2, g2, nullptr, 0, &mp));
  CHECK(cudaStreamBeginCaptureToGraph(s, g2, &m2, nullptr, 1, cudaStreamCaptureModeGlobal));
  add<<<N / 64, 64, 0, s>>>(d, N, 4);
  twice<<<N / 64, 64, 0, s>>>(d, N);
  cudaGraph_t same;
  CHECK(cudaStreamEndCapture(s, &same));
  EXPECT_MSG(same == g2, "cudaStreamEndCapture returned another graph");
  size_t nodes = 0, edges = 0;
  CHECK(cudaGraphGetNodes(g2, nullptr, &nodes));
  CHECK(cudaGraphGetEdges(g2, nullptr, nullptr, nullptr, &edges));
  EXPECT_EQ(nodes, 3);
  EXPECT_EQ(edges, 2);
  CHECK(cudaGraphInstantiate(&e, g2, 0));
  CHECK(cudaMemset(d, 0x7f, N * sizeof(int)));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT_EQ(first(d), 8);
  CHECK(cudaGraphExecDestroy(e));
  // A dependency from another graph is refused.
  EXPECT_EQ(cudaStreamBeginCaptureToGraph(s, g2, &k1, nullptr, 1, cudaStreamCaptureModeGlobal),
            cudaErrorInvalidValue);
  cudaGetLastError();

  // DOT: g has 4 nodes and a child graph with 1, 3 edges; the file names the kernel.
  const char* path = "graph_node_params.dot";
  CHECK(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string dot = ss.str();
  EXPECT_MSG(dot.rfind("digraph", 0) == 0, "DOT output does not start with digraph");
  EXPECT_EQ(count_of(dot, "shape="), 5);
  EXPECT_EQ(count_of(dot, "->"), 3);
  EXPECT_MSG(dot.find("_Z3addPiii") != std::string::npos, "kernel name missing from DOT");
  EXPECT_MSG(dot.find("MEMSET") != std::string::npos || dot.find("Memset") != std::string::npos,
             "node type missing from DOT");
  remove(path);
  EXPECT_EQ(cudaGraphDebugDotPrint(g, "/nonexistent-dir/x.dot", 0), cudaErrorOperatingSystem);
  cudaGetLastError();

  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphDestroy(g2));
  CHECK(cudaGraphDestroy(child));
  CHECK(cudaGraphDestroy(child2));
  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}
