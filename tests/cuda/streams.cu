// Streams and events with the semantics of the CUDA documentation ("Stream synchronization
// behavior", cudaStreamQuery, cudaEventQuery, cudaEventElapsedTime). Work is held back
// deterministically by a host function that spins until the test opens its gate, so "still
// pending" is observable without relying on kernel speed.
//
// Usage: streams legacy   (built normally: the NULL stream is the legacy default stream)
//        streams ptds     (built with --default-stream per-thread)
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>
#include "check.h"

#define EXPECT_ERR(call, want)                                                        \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != (want)) {                                                               \
      fprintf(stderr, "%s:%d: %s gave %s, expected %s\n", __FILE__, __LINE__, #call,  \
              cudaGetErrorName(e_), cudaGetErrorName(want));                          \
      expect_failures++;                                                                     \
    }                                                                                 \
  } while (0)

__global__ void set(int* p, int v) { *p = v; }
__global__ void add(int* p, int v) { *p += v; }

// A gate: work queued behind `close_gate` does not run until `open()`.
struct Gate {
  std::atomic<int> open_{0};
  static void CUDART_CB wait(void* g) {
    auto* self = static_cast<Gate*>(g);
    while (!self->open_.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  void close_on(cudaStream_t s) {
    open_ = 0;
    CHECK(cudaLaunchHostFunc(s, wait, this));
  }
  void open() { open_ = 1; }
};

static std::vector<int> order;
static void CUDART_CB push_host(void* v) { order.push_back((int)(size_t)v); }
static void CUDART_CB push_callback(cudaStream_t, cudaError_t status, void* v) {
  if (status == cudaSuccess) order.push_back((int)(size_t)v);
}
static void CUDART_CB sleep_50ms(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }

static int read(int* d) {
  int h = 0;
  CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

int main(int argc, char** argv) {
  bool ptds = argc > 1 && strcmp(argv[1], "ptds") == 0;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, 4 * sizeof(int)));
  CHECK(cudaMemset(d, 0, 4 * sizeof(int)));
  // cudaMemset of device memory is asynchronous and the non-blocking stream below does not
  // wait for the legacy stream: finish the memset first, or it may land after s2's store.
  CHECK(cudaDeviceSynchronize());
  Gate gate;

  // 1. Queries and events see pending work; synchronisation waits for it.
  cudaStream_t s1, s2, s3;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaStreamCreate(&s3));
  cudaEvent_t e1, e2;
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventCreate(&e2));
  EXPECT_ERR(cudaEventQuery(e1), cudaSuccess);  // never recorded: no work captured
  gate.close_on(s1);
  set<<<1, 1, 0, s1>>>(d, 7);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(e1, s1));
  EXPECT_ERR(cudaStreamQuery(s1), cudaErrorNotReady);
  EXPECT_ERR(cudaEventQuery(e1), cudaErrorNotReady);
  EXPECT_ERR(cudaEventElapsedTime(nullptr, e1, e1), cudaErrorInvalidValue);
  float ms = 0;
  CHECK(cudaEventRecord(e2, s2));
  CHECK(cudaEventSynchronize(e2));
  EXPECT_ERR(cudaEventElapsedTime(&ms, e2, e1), cudaErrorNotReady);

  // 2. A non-blocking stream does not wait for the gated one; a stream waiting on its event does.
  set<<<1, 1, 0, s2>>>(d + 1, 5);
  CHECK(cudaStreamSynchronize(s2));
  EXPECT_ERR(cudaStreamQuery(s2), cudaSuccess);
  CHECK(cudaStreamWaitEvent(s3, e1, 0));
  add<<<1, 1, 0, s3>>>(d, 100);
  EXPECT_ERR(cudaStreamQuery(s3), cudaErrorNotReady);
  gate.open();
  CHECK(cudaEventSynchronize(e1));
  EXPECT_ERR(cudaEventQuery(e1), cudaSuccess);
  CHECK(cudaStreamSynchronize(s3));
  EXPECT(read(d) == 107);
  EXPECT(read(d + 1) == 5);

  // 3. The default stream (legacy here, or in ptds mode only if named) waits for blocking
  //    streams, blocking streams wait for it, non-blocking streams do not.
  gate.close_on(s1);
  set<<<1, 1, 0, s1>>>(d + 2, 1);
  add<<<1, 1, 0, cudaStreamLegacy>>>(d + 2, 10);  // must run after s1's set
  EXPECT_ERR(cudaStreamQuery(cudaStreamLegacy), cudaErrorNotReady);
  set<<<1, 1, 0, s3>>>(d + 3, 3);  // blocking: waits for the legacy stream
  EXPECT_ERR(cudaStreamQuery(s3), cudaErrorNotReady);
  add<<<1, 1, 0, s2>>>(d + 1, 1);  // non-blocking: runs now
  CHECK(cudaStreamSynchronize(s2));
  gate.open();
  CHECK(cudaDeviceSynchronize());
  EXPECT(read(d + 2) == 11);
  EXPECT(read(d + 3) == 3);
  EXPECT(read(d + 1) == 6);

  // 4. The per-thread default stream of another thread is independent of this thread's
  //    per-thread stream but (being blocking) waits for the legacy stream. In ptds mode the
  //    NULL stream is the per-thread stream, so a gate on this thread's NULL stream does not
  //    hold back another thread's NULL stream; in legacy mode it does.
  gate.close_on(0);
  std::atomic<int> other_done{0};
  cudaError_t other_query = cudaSuccess;
  std::thread t([&] {
    set<<<1, 1>>>(d + 3, 42);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    other_query = cudaStreamQuery(0);
    other_done = 1;
  });
  t.join();
  EXPECT_ERR(other_query, ptds ? cudaSuccess : cudaErrorNotReady);
  gate.open();
  CHECK(cudaDeviceSynchronize());
  EXPECT(read(d + 3) == 42);

  // 5. Callbacks and host functions run in stream order, after earlier work.
  order.clear();
  gate.close_on(s1);
  CHECK(cudaLaunchHostFunc(s1, push_host, (void*)1));
  CHECK(cudaStreamAddCallback(s1, push_callback, (void*)2, 0));
  CHECK(cudaLaunchHostFunc(s1, push_host, (void*)3));
  EXPECT(order.empty());
  gate.open();
  CHECK(cudaStreamSynchronize(s1));
  EXPECT(order.size() == 3 && order[0] == 1 && order[1] == 2 && order[2] == 3);

  // 6. Elapsed time is the real time between completions; timing can be disabled.
  cudaEvent_t start, stop, untimed, fresh;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
  CHECK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
  CHECK(cudaEventCreate(&fresh));
  CHECK(cudaEventRecord(start, s1));
  CHECK(cudaLaunchHostFunc(s1, sleep_50ms, nullptr));
  CHECK(cudaEventRecord(stop, s1));
  CHECK(cudaEventRecord(untimed, s1));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 45.0f && ms < 5000.0f);
  EXPECT_ERR(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
  EXPECT_ERR(cudaEventElapsedTime(&ms, start, fresh), cudaErrorInvalidResourceHandle);
  cudaEvent_t ipc;
  CHECK(cudaEventCreateWithFlags(&ipc, cudaEventInterprocess | cudaEventDisableTiming));

  // 7. Priorities are accepted and clamped to the reported range.
  int least = 1, greatest = 1, prio = 1;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  EXPECT(least == 0 && greatest < 0);
  cudaStream_t sp;
  CHECK(cudaStreamCreateWithPriority(&sp, cudaStreamNonBlocking, greatest - 100));
  CHECK(cudaStreamGetPriority(sp, &prio));
  EXPECT(prio == greatest);

  // 8. Asynchronous copies with pinned memory are ordered in their stream.
  int* pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, 4 * sizeof(int)));
  for (int i = 0; i < 4; i++) pinned[i] = 1000 + i;
  gate.close_on(sp);
  CHECK(cudaMemcpyAsync(d, pinned, 4 * sizeof(int), cudaMemcpyHostToDevice, sp));
  add<<<1, 1, 0, sp>>>(d + 2, 5);
  CHECK(cudaMemcpyAsync(pinned, d, 4 * sizeof(int), cudaMemcpyDeviceToHost, sp));
  EXPECT(pinned[2] == 1002);  // nothing has run yet
  gate.open();
  CHECK(cudaStreamSynchronize(sp));
  EXPECT(pinned[0] == 1000 && pinned[2] == 1007 && pinned[3] == 1003);

  // 9. A staged pageable source may change right after the asynchronous call returns.
  int pageable[4] = {1, 2, 3, 4};
  gate.close_on(sp);
  CHECK(cudaMemcpyAsync(d, pageable, sizeof pageable, cudaMemcpyHostToDevice, sp));
  pageable[0] = -1;
  gate.open();
  CHECK(cudaStreamSynchronize(sp));
  EXPECT(read(d) == 1);

  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaStreamDestroy(s3));
  CHECK(cudaStreamDestroy(sp));
  for (cudaEvent_t e : {e1, e2, start, stop, untimed, fresh, ipc}) CHECK(cudaEventDestroy(e));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(d));
  if (expect_failures) {
    printf("FAIL streams: %d expect_failures\n", expect_failures);
    return 1;
  }
  printf("PASS streams (%s)\n", ptds ? "per-thread default stream" : "legacy default stream");
  return 0;
}
