// Stream capture into a graph, then instantiate and launch it several times. Expected values
// follow the CUDA documentation: captured work does not run at capture time; a graph launch
// runs every node after its dependencies, in stream order; host memory read by a captured
// copy is read when the graph runs (so changing the input between launches changes the
// output); illegal calls during capture fail with cudaErrorStreamCaptureUnsupported and
// invalidate the capture (cudaStreamEndCapture then gives cudaErrorStreamCaptureInvalidated).
#include <cstring>
#include "check.h"

#define EXPECT_ERR(call, want)                                                       \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != (want)) {                                                              \
      fprintf(stderr, "%s:%d: %s gave %s, expected %s\n", __FILE__, __LINE__, #call, \
              cudaGetErrorName(e_), cudaGetErrorName(want));                         \
      expect_failures++;                                                                    \
    }                                                                                \
    (void)cudaGetLastError(); /* the expected error must not look like a later one */ \
  } while (0)

const int N = 1000;

__global__ void scale(int* x, int n) {  // x = 2x + 1
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 2 * x[i] + 1;
}
__global__ void bump(int* y, int n, int by) {  // y += by
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += by;
}
__global__ void combine(int* z, const int* x, const int* y, int n) {  // z = x + y
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}

static int host_calls = 0;
static void CUDART_CB count_call(void*) { host_calls++; }

int main() {
  int *in, *out;
  CHECK(cudaMallocHost(&in, N * sizeof(int)));
  CHECK(cudaMallocHost(&out, N * sizeof(int)));
  int *x, *y, *z;
  CHECK(cudaMalloc(&x, N * sizeof(int)));
  CHECK(cudaMalloc(&y, N * sizeof(int)));
  CHECK(cudaMalloc(&z, N * sizeof(int)));
  CHECK(cudaMemset(y, 0, N * sizeof(int)));
  // cudaMemset is asynchronous on the legacy stream, which the non-blocking streams below do
  // not wait for: finish it before the graph reads y.
  CHECK(cudaDeviceSynchronize());
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

  // The legacy stream cannot capture.
  EXPECT_ERR(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
             cudaErrorStreamCaptureUnsupported);

  // ---- Capture: H2D copy, x = 2x+1, fork to s2 (y += 3), join, z = x + y, D2H, host call.
  for (int i = 0; i < N; i++) in[i] = i;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  EXPECT_ERR(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusActive);
  CHECK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone);
  unsigned long long id = 0;
  CHECK(cudaStreamGetCaptureInfo(s1, &st, &id));
  EXPECT(st == cudaStreamCaptureStatusActive && id != 0);
  CHECK(cudaMemcpyAsync(x, in, N * sizeof(int), cudaMemcpyHostToDevice, s1));
  scale<<<(N + 255) / 256, 256, 0, s1>>>(x, N);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  CHECK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusActive);  // s2 joined the capture
  bump<<<(N + 127) / 128, 128, 0, s2>>>(y, N, 3);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  combine<<<(N + 255) / 256, 256, 0, s1>>>(z, x, y, N);
  CHECK(cudaMemcpyAsync(out, z, N * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaLaunchHostFunc(s1, count_call, nullptr));
  // Nothing ran yet.
  EXPECT(host_calls == 0);
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(s1, &graph));
  CHECK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone);  // the joined stream stopped capturing too

  size_t nodes = 0, roots = 0, edges = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(cudaGraphGetRootNodes(graph, nullptr, &roots));
#if CUDART_VERSION >= 13000  // CUDA 13 added the edge data argument
  CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
#else
  CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, &edges));
#endif
  EXPECT(nodes == 6);
  EXPECT(roots == 1);
  EXPECT(edges == 6);  // copy->scale, scale->bump, scale->combine, bump->combine, ->D2H, ->host
  cudaGraphNode_t list[6];
  size_t n6 = 6;
  CHECK(cudaGraphGetNodes(graph, list, &n6));
  int kernels = 0, copies = 0, hosts = 0;
  for (size_t i = 0; i < n6; i++) {
    cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType(list[i], &t));
    kernels += t == cudaGraphNodeTypeKernel;
    copies += t == cudaGraphNodeTypeMemcpy;
    hosts += t == cudaGraphNodeTypeHost;
  }
  EXPECT(kernels == 3 && copies == 2 && hosts == 1);

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int run = 1; run <= 5; run++) {
    for (int i = 0; i < N; i++) in[i] = i * run;
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    // y accumulates 3 per launch (it is not reset by the graph).
    bool ok = true;
    for (int i = 0; i < N; i++) ok &= out[i] == 2 * (i * run) + 1 + 3 * run;
    if (!ok) fprintf(stderr, "run %d: out[7] = %d, expected %d\n", run, out[7], 2 * 7 * run + 1 + 3 * run);
    EXPECT(ok);
    EXPECT(host_calls == run);
  }
  // Two launches back to back without a sync in between, then one sync.
  CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaGraphLaunch(exec, s2));
  CHECK(cudaDeviceSynchronize());
  EXPECT(host_calls == 7);
  EXPECT(out[1] == 2 * 5 + 1 + 3 * 7);

  // ---- Illegal calls under global mode invalidate the capture.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  scale<<<1, 32, 0, s1>>>(x, 32);
  int* extra = nullptr;
  EXPECT_ERR(cudaMalloc(&extra, 64), cudaErrorStreamCaptureUnsupported);
  CHECK(cudaStreamIsCapturing(s1, &st));
  EXPECT(st == cudaStreamCaptureStatusInvalidated);
  cudaGraph_t bad = (cudaGraph_t)0x1;
  EXPECT_ERR(cudaStreamEndCapture(s1, &bad), cudaErrorStreamCaptureInvalidated);
  EXPECT(bad == nullptr);
  // A synchronous copy is illegal too; so is synchronising the capturing stream.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  EXPECT_ERR(cudaMemcpy(out, z, 4, cudaMemcpyDeviceToHost), cudaErrorStreamCaptureUnsupported);
  EXPECT_ERR(cudaStreamEndCapture(s1, &bad), cudaErrorStreamCaptureInvalidated);
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  EXPECT_ERR(cudaStreamSynchronize(s1), cudaErrorStreamCaptureUnsupported);
  EXPECT_ERR(cudaStreamEndCapture(s1, &bad), cudaErrorStreamCaptureInvalidated);
  // A fork that is never joined back.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  bump<<<1, 32, 0, s2>>>(y, 32, 1);
  EXPECT_ERR(cudaStreamEndCapture(s1, &bad), cudaErrorStreamCaptureUnjoined);
  // Ending on a stream that is not capturing.
  EXPECT_ERR(cudaStreamEndCapture(s2, &bad), cudaErrorIllegalState);

  // ---- Relaxed mode allows the unsafe call, and the capture stays valid.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
  CHECK(cudaMalloc(&extra, 64));
  bump<<<1, 1, 0, s1>>>(extra, 1, 5);
  cudaGraph_t relaxed;
  CHECK(cudaStreamEndCapture(s1, &relaxed));
  // On s1: a memset on the legacy stream is not ordered before work on a non-blocking stream.
  CHECK(cudaMemsetAsync(extra, 0, 4, s1));
  cudaGraphExec_t rexec;
  CHECK(cudaGraphInstantiate(&rexec, relaxed, 0));
  CHECK(cudaGraphLaunch(rexec, s1));
  CHECK(cudaGraphLaunch(rexec, s1));
  CHECK(cudaStreamSynchronize(s1));
  int v = 0;
  CHECK(cudaMemcpy(&v, extra, 4, cudaMemcpyDeviceToHost));
  EXPECT(v == 10);

  // ---- Thread-local mode: this thread's unsafe calls are refused while it captures.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  EXPECT(mode == cudaStreamCaptureModeGlobal);  // the default
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));  // back to global

  CHECK(cudaGraphExecDestroy(rexec));
  CHECK(cudaGraphDestroy(relaxed));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(extra));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(z));
  CHECK(cudaFreeHost(in));
  CHECK(cudaFreeHost(out));
  if (expect_failures) {
    printf("FAIL (%d)\n", expect_failures);
    return 1;
  }
  printf("PASS graph capture\n");
  return 0;
}
