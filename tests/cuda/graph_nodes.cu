// The explicit graph API: memset, kernel, memcpy, host, empty, child-graph and event-record
// nodes with their dependencies; parameters read back; instantiate and launch several times;
// cudaGraphExecKernelNodeSetParams, cudaGraphExecUpdate (accepted for the same topology,
// refused with cudaGraphExecUpdateErrorTopologyChanged otherwise), cudaGraphClone and
// cudaGraphNodeFindInClone. Expected values follow the CUDA documentation: nodes run after
// their dependencies; node parameters (kernel arguments included) are copied when set; a
// child graph node holds a copy of the child graph; an executable graph is a snapshot that only
// the cudaGraphExec* calls change.
#include <cstring>
#include "check.h"

// CUDA 13 added an edge-data argument to these (the program also builds against cudart 12.9).
#if CUDART_VERSION >= 13000
#define EDGES nullptr,
#else
#define EDGES
#endif

const int N = 512;

__global__ void add(int* a, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += v;
}
__global__ void twice(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2;
}

static int host_calls = 0;
static void CUDART_CB count_call(void* p) { host_calls += *(int*)p; }

static cudaKernelNodeParams add_params(void** args, int** a, int* n, int* v) {
  args[0] = a;
  args[1] = n;
  args[2] = v;
  cudaKernelNodeParams p = {};
  p.func = (void*)add;
  p.gridDim = dim3((N + 127) / 128);
  p.blockDim = dim3(128);
  p.kernelParams = args;
  return p;
}

int main() {
  int* d;
  CHECK(cudaMalloc(&d, N * sizeof(int)));
  int* h;
  CHECK(cudaMallocHost(&h, N * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t done;
  CHECK(cudaEventCreate(&done));

  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  // memset d = 1 -> add 10 -> child graph (twice) -> empty -> D2H copy -> host call
  //                                                          \-> event record
  cudaMemsetParams ms = {};
  ms.dst = d;
  ms.value = 1;
  ms.elementSize = 4;
  ms.width = N;
  ms.height = 1;
  cudaGraphNode_t memset_node, add_node, child_node, empty_node, copy_node, host_node, record_node;
  CHECK(cudaGraphAddMemsetNode(&memset_node, g, nullptr, 0, &ms));
  int n = N, v = 10;
  void* args[3];
  cudaKernelNodeParams kp = add_params(args, &d, &n, &v);
  CHECK(cudaGraphAddKernelNode(&add_node, g, &memset_node, 1, &kp));
  v = 999;  // arguments were copied when the node was added
  cudaGraph_t child;
  CHECK(cudaGraphCreate(&child, 0));
  cudaGraphNode_t twice_node;
  void* targs[2] = {&d, &n};
  cudaKernelNodeParams tp = {};
  tp.func = (void*)twice;
  tp.gridDim = dim3((N + 255) / 256);
  tp.blockDim = dim3(256);
  tp.kernelParams = targs;
  CHECK(cudaGraphAddKernelNode(&twice_node, child, nullptr, 0, &tp));
  CHECK(cudaGraphAddChildGraphNode(&child_node, g, &add_node, 1, child));
  CHECK(cudaGraphAddEmptyNode(&empty_node, g, &child_node, 1));
  CHECK(cudaGraphAddMemcpyNode1D(&copy_node, g, &empty_node, 1, h, d, N * sizeof(int),
                                 cudaMemcpyDeviceToHost));
  int weight = 1;
  cudaHostNodeParams hp = {count_call, &weight};
  CHECK(cudaGraphAddHostNode(&host_node, g, &copy_node, 1, &hp));
  CHECK(cudaGraphAddEventRecordNode(&record_node, g, &empty_node, 1, done));

  // Structure.
  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT(count == 7);
  CHECK(cudaGraphGetRootNodes(g, nullptr, &count));
  EXPECT(count == 1);
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, EDGES &count));
  EXPECT(count == 6);
  cudaGraphNode_t deps[4];
  count = 4;
  CHECK(cudaGraphNodeGetDependentNodes(empty_node, deps, EDGES &count));
  EXPECT(count == 2);
  count = 4;
  CHECK(cudaGraphNodeGetDependencies(add_node, deps, EDGES &count));
  EXPECT(count == 1 && deps[0] == memset_node);
  cudaGraphNodeType t;
  CHECK(cudaGraphNodeGetType(child_node, &t));
  EXPECT(t == cudaGraphNodeTypeGraph);
  CHECK(cudaGraphNodeGetType(record_node, &t));
  EXPECT(t == cudaGraphNodeTypeEventRecord);

  // Parameters read back.
  cudaKernelNodeParams back = {};
  CHECK(cudaGraphKernelNodeGetParams(add_node, &back));
  EXPECT(back.gridDim.x == (N + 127) / 128 && back.blockDim.x == 128 && back.sharedMemBytes == 0);
  EXPECT(*(int*)back.kernelParams[2] == 10 && *(int*)back.kernelParams[1] == N);
  EXPECT(*(int**)back.kernelParams[0] == d);
  cudaMemsetParams ms_back = {};
  CHECK(cudaGraphMemsetNodeGetParams(memset_node, &ms_back));
  EXPECT(ms_back.value == 1 && ms_back.width == N && ms_back.elementSize == 4);
  cudaHostNodeParams hp_back = {};
  CHECK(cudaGraphHostNodeGetParams(host_node, &hp_back));
  EXPECT(hp_back.fn == count_call && hp_back.userData == &weight);
  cudaEvent_t ev_back;
  CHECK(cudaGraphEventRecordNodeGetEvent(record_node, &ev_back));
  EXPECT(ev_back == done);

  // Launch three times: h = (1 + 10) * 2 every time (the memset resets d).
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  for (int run = 0; run < 3; run++) {
    memset(h, 0, N * sizeof(int));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    bool ok = true;
    for (int i = 0; i < N; i++) ok &= h[i] == 22;
    EXPECT(ok);
  }
  EXPECT(host_calls == 3);
  EXPECT(cudaEventQuery(done) == cudaSuccess);

  // Changing the graph does not change the executable...
  v = 20;
  kp = add_params(args, &d, &n, &v);
  CHECK(cudaGraphKernelNodeSetParams(add_node, &kp));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(h[5] == 22);
  // ...cudaGraphExecKernelNodeSetParams does: (1 + 30) * 2.
  v = 30;
  kp = add_params(args, &d, &n, &v);
  CHECK(cudaGraphExecKernelNodeSetParams(exec, add_node, &kp));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(h[5] == 62);
  // ...and so does a whole-graph update from the changed graph: (1 + 20) * 2.
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(exec, g, &info));
  EXPECT(info.result == cudaGraphExecUpdateSuccess);
  weight = 5;  // the host node's user data is read when it runs
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(h[5] == 42);
  EXPECT(host_calls == 3 + 2 + 5);

  // Clone: the same nodes, found by their originals; a changed topology cannot update.
  cudaGraph_t clone;
  CHECK(cudaGraphClone(&clone, g));
  cudaGraphNode_t add_in_clone;
  CHECK(cudaGraphNodeFindInClone(&add_in_clone, add_node, clone));
  EXPECT(add_in_clone != add_node);
  CHECK(cudaGraphNodeGetType(add_in_clone, &t));
  EXPECT(t == cudaGraphNodeTypeKernel);
  cudaGraphNode_t extra;
  CHECK(cudaGraphAddEmptyNode(&extra, clone, &add_in_clone, 1));
  cudaError_t e = cudaGraphExecUpdate(exec, clone, &info);
  EXPECT(e == cudaErrorGraphExecUpdateFailure);
  EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged);
  (void)cudaGetLastError();
  // Removing the edge into the host node makes it a second root: still a valid graph.
  cudaGraphNode_t copy_in_clone, host_in_clone;
  CHECK(cudaGraphNodeFindInClone(&copy_in_clone, copy_node, clone));
  CHECK(cudaGraphNodeFindInClone(&host_in_clone, host_node, clone));
  CHECK(cudaGraphRemoveDependencies(clone, &copy_in_clone, &host_in_clone, EDGES 1));
  CHECK(cudaGraphGetRootNodes(clone, nullptr, &count));
  EXPECT(count == 2);
  cudaGraphExec_t exec2;
  CHECK(cudaGraphInstantiate(&exec2, clone, 0));
  CHECK(cudaGraphLaunch(exec2, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(h[0] == 42);

  CHECK(cudaGraphExecDestroy(exec2));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(clone));
  CHECK(cudaGraphDestroy(child));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(h));
  if (expect_failures) {
    printf("FAIL (%d)\n", expect_failures);
    return 1;
  }
  printf("PASS graph nodes\n");
  return 0;
}
