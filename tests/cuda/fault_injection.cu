// Fault injection (CUDA_SHIM_INJECT), seen from the CUDA runtime as a program sees it. One mode
// per run, each with the rules the test harness sets (tests/driver.rs):
//   alloc   cuMemAlloc:nth=2:error=OUT_OF_MEMORY      the second cudaMalloc fails, the others
//                                                     do not (cudart maps the driver's
//                                                     CUDA_ERROR_OUT_OF_MEMORY to
//                                                     cudaErrorMemoryAllocation)
//   kernel  kernel=scale:nth=2:fault=FAULT:block=1:thread=3
//           the first launch runs; the second launches fine and its fault surfaces at the next
//           synchronisation as the error argv[2] names, sticky: every later call returns it
//   budget  alloc-budget=64M                          cudaMemGetInfo's total is 64 MiB; 40 MiB
//                                                     then 30 MiB: the second fails
//   rate    cuEventQuery:rate=0.25:seed=3:error=NOT_READY
//           prints which of 400 queries of a completed event said cudaErrorNotReady (the
//           harness runs it twice and compares: a seeded rate repeats exactly)
//   watchdog (CUDA_SHIM_KERNEL_TIMEOUT=0.5, no rules) an endless kernel ends with
//           cudaErrorLaunchTimeout at the synchronisation, sticky, and the device reports
//           kernelExecTimeoutEnabled = 1
// Expected codes: cudart's documented mapping of each driver error (cuda_runtime_api.h).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include "check.h"

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

// Spins until *flag is set, which nothing does.
__global__ void spin(volatile int* flag, int* out) {
  int n = 0;
  while (*flag == 0) n++;
  out[threadIdx.x] = n;
}

static int watchdog_mode() {
  int enabled = -1;
  CHECK(cudaDeviceGetAttribute(&enabled, cudaDevAttrKernelExecTimeout, 0));
  EXPECT_EQ(enabled, 1);
  int *flag = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  spin<<<2, 64>>>(flag, out);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
  EXPECT_EQ(cudaMemset(flag, 1, sizeof(int)), cudaErrorLaunchTimeout);
  return expect_failures;
}

static int alloc_mode() {
  void *a = nullptr, *b = nullptr, *c = nullptr;
  EXPECT_EQ(cudaMalloc(&a, 1024), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&b, 1024), cudaErrorMemoryAllocation);
  // Not sticky: the next allocation succeeds.
  EXPECT_EQ(cudaMalloc(&c, 1024), cudaSuccess);
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaFree(c), cudaSuccess);
  return expect_failures;
}

static int kernel_mode(const char* fault) {
  cudaError_t want = cudaErrorIllegalAddress;
  if (!strcmp(fault, "misaligned")) want = cudaErrorMisalignedAddress;
  if (!strcmp(fault, "trap")) want = cudaErrorLaunchFailure;
  if (!strcmp(fault, "assert")) want = cudaErrorAssert;
  // A stack overflow is cudaErrorIllegalAddress on an H100 (driver 580.159, 2026-11-26:
  // scripts/ground-truth/results/sanitizer-h100.txt, the plain run of `stack_overflow`).
  if (!strcmp(fault, "stack-overflow")) want = cudaErrorIllegalAddress;
  if (!strcmp(fault, "hardware-stack")) want = cudaErrorHardwareStackError;
  if (!strcmp(fault, "illegal-instruction")) want = cudaErrorIllegalInstruction;
  if (!strcmp(fault, "timeout")) want = cudaErrorLaunchTimeout;
  const int n = 256;
  float* x = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  scale<<<2, 128>>>(x, n);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  scale<<<2, 128>>>(x, n);
  // The launch itself succeeds: the fault happens on the device.
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), want);
  // Sticky, as these faults are on a GPU: later calls fail with it too.
  void* y = nullptr;
  EXPECT_EQ(cudaMalloc(&y, 16), want);
  EXPECT_EQ(cudaDeviceSynchronize(), want);
  return expect_failures;
}

static int budget_mode() {
  size_t free_bytes = 0, total = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total));
  EXPECT_EQ(total, 64ull << 20);
  EXPECT_MSG(free_bytes <= total, "free %zu > total %zu", free_bytes, total);
  void *a = nullptr, *b = nullptr;
  EXPECT_EQ(cudaMalloc(&a, 40ull << 20), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&b, 30ull << 20), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&b, 30ull << 20), cudaSuccess);
  EXPECT_EQ(cudaFree(b), cudaSuccess);
  return expect_failures;
}

static int rate_mode() {
  cudaEvent_t e;
  CHECK(cudaEventCreate(&e));
  CHECK(cudaEventRecord(e));
  CHECK(cudaEventSynchronize(e));
  int hits = 0;
  char pattern[401];
  for (int i = 0; i < 400; i++) {
    cudaError_t r = cudaEventQuery(e);
    EXPECT_MSG(r == cudaSuccess || r == cudaErrorNotReady, "query %d: %d", i, (int)r);
    pattern[i] = r == cudaErrorNotReady ? '1' : '0';
    hits += r == cudaErrorNotReady;
  }
  pattern[400] = 0;
  // About a quarter: 100 expected, 5 standard deviations either side.
  EXPECT_MSG(hits > 57 && hits < 143, "%d of 400 queries failed", hits);
  printf("PASS pattern %s\n", pattern);
  return expect_failures;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int failed;
  if (!strcmp(mode, "alloc")) {
    failed = alloc_mode();
  } else if (!strcmp(mode, "kernel") && argc > 2) {
    failed = kernel_mode(argv[2]);
  } else if (!strcmp(mode, "budget")) {
    failed = budget_mode();
  } else if (!strcmp(mode, "watchdog")) {
    failed = watchdog_mode();
  } else if (!strcmp(mode, "rate")) {
    return rate_mode() ? 1 : 0;
  } else {
    fprintf(stderr, "usage: fault_injection alloc|kernel FAULT|budget|rate|watchdog\n");
    return 2;
  }
  if (failed) return 1;
  printf("PASS %s\n", mode);
  return 0;
}
