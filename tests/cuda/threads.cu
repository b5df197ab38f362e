// Many host threads driving the device at once, each on its own stream: allocate, copy in,
// launch, record and wait on events, copy out, free, many times over, plus graph launches and
// synchronous calls on the shared legacy stream. Every result is checked against the CPU.
// The CUDA runtime and driver are thread safe (CUDA Programming Guide, "Multiple host
// threads"); any lost update, crash or wrong result here is a race in the driver.
//
// Usage: threads [THREADS] [ITERATIONS] [ELEMENTS]
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>
#include "check.h"

__global__ void affine(const int* in, int* out, int n, int a, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + b;
}
__global__ void count(int* counter) { atomicAdd(counter, 1); }

static std::atomic<int> failures{0};
static std::atomic<int> host_calls{0};
static void CUDART_CB on_host(void*) { host_calls++; }

static void worker(int id, int iterations, int n, int* counter) {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, id % 2 ? cudaStreamNonBlocking : cudaStreamDefault));
  cudaEvent_t ev;
  CHECK(cudaEventCreate(&ev));
  std::vector<int> in(n), out(n);
  for (int it = 0; it < iterations; it++) {
    int *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, n * sizeof(int)));
    for (int i = 0; i < n; i++) in[i] = i ^ (id * 131 + it);
    CHECK(cudaMemcpyAsync(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice, s));
    int a = id + 2, b = it - 7;
    affine<<<(n + 127) / 128, 128, 0, s>>>(din, dout, n, a, b);
    CHECK(cudaGetLastError());
    count<<<1, 32, 0, s>>>(counter);
    CHECK(cudaLaunchHostFunc(s, on_host, nullptr));
    CHECK(cudaEventRecord(ev, s));
    CHECK(cudaEventSynchronize(ev));
    CHECK(cudaMemcpyAsync(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++) {
      if (out[i] != a * in[i] + b) {
        fprintf(stderr, "thread %d iteration %d: out[%d] = %d, expected %d\n", id, it, i, out[i],
                a * in[i] + b);
        failures++;
        break;
      }
    }
    // A synchronous round trip on the legacy stream, shared by every thread.
    int probe = id * 1000 + it, back = -1;
    CHECK(cudaMemcpy(dout, &probe, sizeof probe, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(&back, dout, sizeof back, cudaMemcpyDeviceToHost));
    if (back != probe) failures++;
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
  }
  // A graph captured and launched by this thread: thread-local capture mode, so the other
  // threads' synchronous calls are not refused, on a non-blocking stream, so their work on the
  // legacy stream does not synchronise with it implicitly (which would invalidate it).
  // (A memset of device memory is asynchronous: it goes on the same stream as the graph.)
  int* d;
  CHECK(cudaMalloc(&d, sizeof(int)));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaMemsetAsync(d, 0, sizeof(int), s));
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  count<<<1, 64, 0, s>>>(d);
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  for (int i = 0; i < 3; i++) CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  int v = 0;
  CHECK(cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost));
  if (v != 3 * 64) {
    fprintf(stderr, "thread %d: graph count %d, expected %d\n", id, v, 3 * 64);
    failures++;
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(d));
  CHECK(cudaEventDestroy(ev));
  CHECK(cudaStreamDestroy(s));
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 8;
  int iterations = argc > 2 ? atoi(argv[2]) : 20;
  int n = argc > 3 ? atoi(argv[3]) : 4096;
  int* counter;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  // The memset is asynchronous on the legacy stream and the workers' non-blocking streams do
  // not wait for it: finish it before they start counting.
  CHECK(cudaDeviceSynchronize());
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; t++) pool.emplace_back(worker, t, iterations, n, counter);
  for (auto& t : pool) t.join();
  CHECK(cudaDeviceSynchronize());
  int total = 0;
  CHECK(cudaMemcpy(&total, counter, sizeof total, cudaMemcpyDeviceToHost));
  if (total != threads * iterations * 32) {
    fprintf(stderr, "counter %d, expected %d\n", total, threads * iterations * 32);
    failures++;
  }
  if (host_calls != threads * iterations) {
    fprintf(stderr, "host calls %d, expected %d\n", host_calls.load(), threads * iterations);
    failures++;
  }
  CHECK(cudaFree(counter));
  if (failures) {
    printf("FAIL (%d)\n", failures.load());
    return 1;
  }
  printf("PASS threads: %d threads x %d iterations\n", threads, iterations);
  return 0;
}
