// Conditional graph nodes (CUDA 12.4+): cudaGraphConditionalHandleCreate, IF (with and
// without ELSE), WHILE and SWITCH nodes added with cudaGraphAddNode, bodies filled by the node
// API and by cudaStreamBeginCaptureToGraph, the condition set from device code with
// cudaGraphSetConditional, and cudaGraphCondAssignDefault. Shaped after NVIDIA's
// graphConditionalNodes sample; expected values from the semantics cuda.h documents for
// CUgraphConditionalNodeType (IF runs body 0 when the condition is non-zero, else body 1 if
// there is one; WHILE runs body 0 while it is non-zero; SWITCH runs body n for condition n,
// none past the last) and for cuGraphConditionalHandleCreate (with
// CU_GRAPH_COND_ASSIGN_DEFAULT the default value is applied at the start of each launch).
#include "check.h"

__global__ void set_from(cudaGraphConditionalHandle h, const int* v) {
  cudaGraphSetConditional(h, *v);
}
__global__ void add(int* p, int v) { atomicAdd(p, v); }
// WHILE body: count down *n and keep looping while it stays positive.
__global__ void loop_body(cudaGraphConditionalHandle h, int* n, int* iterations) {
  if (threadIdx.x == 0) {
    (*iterations)++;
    int left = --*n;
    cudaGraphSetConditional(h, left > 0 ? 1 : 0);
  }
}

static int get(const int* d) {
  int h;
  CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}
static void put(int* d, int v) { CHECK(cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice)); }

static cudaGraphNode_t add_kernel(cudaGraph_t g, const cudaGraphNode_t* dep, size_t ndep,
                                  void* func, void** args) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = func;
  p.kernel.gridDim = dim3(1);
  p.kernel.blockDim = dim3(1);
  p.kernel.kernelParams = args;
  cudaGraphNode_t n;
  CHECK(cudaGraphAddNode(&n, g, dep, nullptr, ndep, &p));
  return n;
}

static cudaGraphNode_t add_cond(cudaGraph_t g, const cudaGraphNode_t* dep, size_t ndep,
                                cudaGraphConditionalHandle h, cudaGraphConditionalNodeType t,
                                unsigned size, cudaGraph_t* bodies) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = t;
  p.conditional.size = size;
  cudaGraphNode_t n;
  CHECK(cudaGraphAddNode(&n, g, dep, nullptr, ndep, &p));
  for (unsigned i = 0; i < size; i++) bodies[i] = p.conditional.phGraph_out[i];
  return n;
}

int main() {
  CHECK(cudaFree(0));
  int *cond, *acc, *count, *iters;
  CHECK(cudaMalloc(&cond, sizeof(int)));
  CHECK(cudaMalloc(&acc, sizeof(int)));
  CHECK(cudaMalloc(&count, sizeof(int)));
  CHECK(cudaMalloc(&iters, sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));

  // IF / ELSE: a kernel sets the condition from *cond; body 0 adds 1, body 1 adds 100.
  {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    void* sa[] = {&h, &cond};
    cudaGraphNode_t setter = add_kernel(g, nullptr, 0, (void*)set_from, sa);
    cudaGraph_t body[2];
    add_cond(g, &setter, 1, h, cudaGraphCondTypeIf, 2, body);
    int one = 1, hundred = 100;
    void* a1[] = {&acc, &one};
    void* a2[] = {&acc, &hundred};
    add_kernel(body[0], nullptr, 0, (void*)add, a1);
    add_kernel(body[1], nullptr, 0, (void*)add, a2);
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    put(acc, 0);
    put(cond, 5);
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT_EQ(get(acc), 1);
    put(cond, 0);
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT_EQ(get(acc), 101);
    // A graph with a conditional node cannot be cloned.
    cudaGraph_t c;
    EXPECT_EQ(cudaGraphClone(&c, g), cudaErrorInvalidValue);
    cudaGetLastError();
    cudaGraphNodeParams back = {};
    size_t n = 2;
    cudaGraphNode_t nodes[2];
    CHECK(cudaGraphGetNodes(g, nodes, &n));
    CHECK(cudaGraphNodeGetParams(nodes[1], &back));
    EXPECT_EQ(back.type, cudaGraphNodeTypeConditional);
    EXPECT_EQ(back.conditional.type, cudaGraphCondTypeIf);
    EXPECT_EQ(back.conditional.size, 2);
    EXPECT_EQ(back.conditional.handle, h);
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
  }

  // WHILE: the default value 1 (assigned at every launch) enters the loop; the body counts
  // *count down to zero, so it runs *count times.
  {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    cudaGraph_t body;
    add_cond(g, nullptr, 0, h, cudaGraphCondTypeWhile, 1, &body);
    void* la[] = {&h, &count, &iters};
    add_kernel(body, nullptr, 0, (void*)loop_body, la);
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    for (int n : {10, 3, 1}) {
      put(count, n);
      put(iters, 0);
      CHECK(cudaGraphLaunch(e, s));
      CHECK(cudaStreamSynchronize(s));
      EXPECT_EQ(get(iters), n);
      EXPECT_EQ(get(count), 0);
    }
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
  }

  // WHILE without cudaGraphCondAssignDefault: the body leaves the condition 0, so the next
  // launch does not enter the loop.
  {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, 0));
    cudaGraph_t body;
    add_cond(g, nullptr, 0, h, cudaGraphCondTypeWhile, 1, &body);
    void* la[] = {&h, &count, &iters};
    add_kernel(body, nullptr, 0, (void*)loop_body, la);
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    put(count, 4);
    put(iters, 0);
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT_EQ(get(iters), 4);
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
  }

  // SWITCH with 3 bodies filled by capture into each body graph; condition 3 runs none.
  {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    void* sa[] = {&h, &cond};
    cudaGraphNode_t setter = add_kernel(g, nullptr, 0, (void*)set_from, sa);
    cudaGraph_t body[3];
    add_cond(g, &setter, 1, h, cudaGraphCondTypeSwitch, 3, body);
    for (int b = 0; b < 3; b++) {
      CHECK(cudaStreamBeginCaptureToGraph(s, body[b], nullptr, nullptr, 0,
                                          cudaStreamCaptureModeGlobal));
      add<<<1, 1, 0, s>>>(acc, 1 << (4 * b));
      add<<<1, 1, 0, s>>>(acc, 1 << (4 * b));
      cudaGraph_t same;
      CHECK(cudaStreamEndCapture(s, &same));
      EXPECT_MSG(same == body[b], "capture to graph returned another graph");
    }
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    put(acc, 0);
    for (int v : {0, 1, 2, 3, 2}) {
      put(cond, v);
      CHECK(cudaGraphLaunch(e, s));
    }
    CHECK(cudaStreamSynchronize(s));
    EXPECT_EQ(get(acc), 0x2 + 0x20 + 0x200 * 2);
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
  }

  // The sample's captured WHILE loop: a conditional node added to the graph a stream is
  // capturing (cudaStreamGetCaptureInfo, cudaStreamUpdateCaptureDependencies), its body
  // captured from another stream, work captured after it.
  {
    cudaStream_t body_stream;
    CHECK(cudaStreamCreate(&body_stream));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemsetAsync(iters, 0, sizeof(int), s));
    cudaStreamCaptureStatus status;
    cudaGraph_t g;
    const cudaGraphNode_t* deps;
    size_t ndeps;
    CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, &g, &deps, nullptr, &ndeps));
    EXPECT_EQ(status, cudaStreamCaptureStatusActive);
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    cudaGraph_t body;
    cudaGraphNode_t cnode = add_cond(g, deps, ndeps, h, cudaGraphCondTypeWhile, 1, &body);
    CHECK(cudaStreamUpdateCaptureDependencies(s, &cnode, nullptr, 1,
                                              cudaStreamSetCaptureDependencies));
    CHECK(cudaStreamBeginCaptureToGraph(body_stream, body, nullptr, nullptr, 0,
                                        cudaStreamCaptureModeRelaxed));
    loop_body<<<1, 32, 0, body_stream>>>(h, count, iters);
    cudaGraph_t same;
    CHECK(cudaStreamEndCapture(body_stream, &same));
    int thousand = 1000;
    add<<<1, 1, 0, s>>>(iters, thousand);
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    put(count, 6);
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT_EQ(get(iters), 1006);
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(body_stream));
  }

  // Argument checks: sizes per type, flags.
  {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    EXPECT_EQ(cudaGraphConditionalHandleCreate(&h, g, 0, 2), cudaErrorInvalidValue);
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 2;
    cudaGraphNode_t n;
    EXPECT_EQ(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &p), cudaErrorInvalidValue);
    p.conditional.type = cudaGraphCondTypeIf;
    p.conditional.size = 3;
    EXPECT_EQ(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &p), cudaErrorInvalidValue);
    p.conditional.type = cudaGraphCondTypeSwitch;
    p.conditional.size = 0;
    EXPECT_EQ(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &p), cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaGraphDestroy(g));
  }

  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}
