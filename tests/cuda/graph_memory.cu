// Graph memory nodes (cudaGraphAddMemAllocNode/FreeNode, their parameters, stream-ordered
// allocation captured into a graph, cudaDeviceGetGraphMemAttribute/SetGraphMemAttribute,
// cudaDeviceGraphMemTrim). Expected behaviour from the CUDA documentation (cuda.h on
// cuGraphAddMemAllocNode, cuGraphLaunch, cuDeviceGetGraphMemAttribute; "Graph Memory Nodes" in
// the programming guide): the allocation's address is returned when the node is made and is
// the same in every launch; the memory is usable by the nodes ordered after the allocation;
// relaunching a graph whose allocation was not freed is cudaErrorInvalidValue unless it was
// instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch; USED_MEM counts allocated
// graph memory, RESERVED_MEM what the allocator holds until trimmed; high-water marks reset to
// zero only; a free node for an address no allocation node returned is cudaErrorInvalidValue;
// graphs with memory nodes cannot be cloned.
#include "check.h"

const int N = 1000;

__global__ void fill(int* a, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = v + i;
}
__global__ void copy(int* dst, const int* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

static unsigned long long attr(cudaGraphMemAttributeType a) {
  unsigned long long v = ~0ull;
  CHECK(cudaDeviceGetGraphMemAttribute(0, a, &v));
  return v;
}

static void check_out(const int* d, int v, int line) {
  static int h[N];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < N; i++) bad += h[i] != v + i;
  EXPECT_MSG(bad == 0, "line %d: %d wrong values (h[0] = %d, expected %d)", line, bad, h[0], v);
}

int main() {
  CHECK(cudaFree(0));
  int* out;
  CHECK(cudaMalloc(&out, N * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const size_t bytes = N * sizeof(int);

  // Explicit nodes: alloc -> fill -> copy to out -> free.
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = bytes;
  cudaGraphNode_t alloc, k1, k2, freen;
  CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  int* tmp = (int*)ap.dptr;
  EXPECT_MSG(tmp != nullptr, "no address from the allocation node");
  int n = N, v = 7;
  void* a1[] = {&tmp, &n, &v};
  cudaKernelNodeParams kp = {};
  kp.func = (void*)fill;
  kp.gridDim = dim3((N + 127) / 128);
  kp.blockDim = dim3(128);
  kp.kernelParams = a1;
  CHECK(cudaGraphAddKernelNode(&k1, g, &alloc, 1, &kp));
  void* a2[] = {&out, &tmp, &n};
  kp.func = (void*)copy;
  kp.kernelParams = a2;
  CHECK(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp));
  CHECK(cudaGraphAddMemFreeNode(&freen, g, &k2, 1, tmp));

  cudaMemAllocNodeParams back = {};
  CHECK(cudaGraphMemAllocNodeGetParams(alloc, &back));
  EXPECT_EQ((long long)back.dptr, (long long)tmp);
  EXPECT_EQ(back.bytesize, bytes);
  EXPECT_EQ(back.poolProps.location.type, cudaMemLocationTypeDevice);
  void* freed = nullptr;
  CHECK(cudaGraphMemFreeNodeGetParams(freen, &freed));
  EXPECT_EQ((long long)freed, (long long)tmp);

  // Refusals.
  cudaGraphNode_t bad;
  EXPECT_EQ(cudaGraphAddMemFreeNode(&bad, g, &freen, 1, tmp), cudaErrorInvalidValue);  // twice
  EXPECT_EQ(cudaGraphAddMemFreeNode(&bad, g, nullptr, 0, out), cudaErrorInvalidValue);  // not a graph allocation
  cudaMemAllocNodeParams zero = ap;
  zero.bytesize = 0;
  EXPECT_EQ(cudaGraphAddMemAllocNode(&bad, g, nullptr, 0, &zero), cudaErrorInvalidValue);
  cudaGraph_t clone;
  EXPECT_EQ(cudaGraphClone(&clone, g), cudaErrorInvalidValue);
  cudaGetLastError();

  unsigned long long zero64 = 0, one = 1;
  CHECK(cudaDeviceGraphMemTrim(0));
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero64));
  CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero64));
  EXPECT_EQ(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero64),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetGraphMemAttribute(1, cudaGraphMemAttrUsedMemCurrent, &one),
            cudaErrorInvalidDevice);
  cudaGetLastError();
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), 0);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), 0);

  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int i = 0; i < 3; i++) {
    CHECK(cudaMemset(out, 0, bytes));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    check_out(out, 7, __LINE__);
  }
  // Freed inside the graph: nothing in use; the allocator keeps the memory until trimmed.
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), 0);
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemHigh), bytes);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), bytes);
  CHECK(cudaDeviceGraphMemTrim(0));
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), 0);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemHigh), bytes);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));

  // Captured stream-ordered allocation that outlives the graph: the program frees it.
  int* kept = nullptr;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMallocAsync(&kept, bytes, s));
  fill<<<(N + 127) / 128, 128, 0, s>>>(kept, N, 100);
  CHECK(cudaStreamEndCapture(s, &g));
  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  EXPECT_EQ(count, 2);
  cudaGraphNode_t nodes[2];
  CHECK(cudaGraphGetNodes(g, nodes, &count));
  cudaGraphNodeType t;
  CHECK(cudaGraphNodeGetType(nodes[0], &t));
  EXPECT_EQ(t, cudaGraphNodeTypeMemAlloc);
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  check_out(kept, 100, __LINE__);
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), bytes);
  // Still allocated: a relaunch is refused.
  EXPECT_EQ(cudaGraphLaunch(e, s), cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaFreeAsync(kept, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), 0);
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFree(kept));
  CHECK(cudaGraphExecDestroy(e));

  // AutoFreeOnLaunch: each relaunch frees the previous launch's allocation.
  CHECK(cudaGraphInstantiate(&e, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  for (int i = 0; i < 3; i++) {
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    check_out(kept, 100, __LINE__);
    EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), bytes);
  }
  CHECK(cudaFree(kept));
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), 0);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));

  // Allocation and free both captured.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  int* t2;
  CHECK(cudaMallocAsync(&t2, bytes, s));
  fill<<<(N + 127) / 128, 128, 0, s>>>(t2, N, 5);
  copy<<<(N + 127) / 128, 128, 0, s>>>(out, t2, N);
  CHECK(cudaFreeAsync(t2, s));
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  check_out(out, 5, __LINE__);
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), 0);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));

  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}
