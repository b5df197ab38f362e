// Recursion as deep as the default 1024-byte stack (cudaLimitStackSize) allows on a GPU runs,
// and deeper recursion fails. The frame sizes come from `ptxas -v` 13.5 (sm_80 and sm_90) on
// this file's PTX: `walk` 16 bytes, `fib` 32 bytes, the kernel 0; so a GPU runs 64 nested
// `walk` activations and 32 of `fib` within 1024 bytes.
//  1. walk down a chain of 59 links (944 bytes), just inside the default limit, and fib(24)
//     (23 nested, 736 bytes);
//  2. a chain of 200 links (3200 bytes) under a 4096-byte limit;
//  3. the same 200 links under the default limit again: a stack overflow, reported as
//     cudaErrorIllegalAddress at synchronisation, as an H100 reports one (the context is
//     unusable afterwards, so this comes last).
// Expected values: the same recursions on the host; the overflow's error as measured on an H100,
// driver 580.159, 2026-11-26 (scripts/ground-truth/results/sanitizer-h100.txt, the plain run of
// `stack_overflow`: "sync cudaErrorIllegalAddress").
#include "check.h"
#include <vector>

__host__ __device__ __noinline__ int walk(const int* next, int i) {
  if (i < 0) return 0;
  int r = walk(next, next[i]);
  return r * 31 + i;
}
__host__ __device__ __noinline__ long long fib(long long n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__global__ void walk_kernel(int* out, const int* next, int start) {
  out[threadIdx.x] = walk(next, start - (int)threadIdx.x);
}
__global__ void fib_kernel(long long* out, int n) { out[threadIdx.x] = fib(n - (int)threadIdx.x); }

int main() {
  const int links = 200;
  std::vector<int> next(links);
  for (int i = 0; i < links; ++i) next[i] = i - 1;  // i -> i-1 -> ... -> 0 -> -1: i+1 calls
  int* dnext;
  int* dout;
  long long* dfib;
  CHECK(cudaMalloc(&dnext, links * sizeof(int)));
  CHECK(cudaMalloc(&dout, 32 * sizeof(int)));
  CHECK(cudaMalloc(&dfib, 4 * sizeof(long long)));
  CHECK(cudaMemcpy(dnext, next.data(), links * sizeof(int), cudaMemcpyHostToDevice));
  size_t limit = 0;
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
  EXPECT_EQ(limit, 1024);

  // 1. Within the default stack: walk(58) .. walk(27) make 59 .. 28 walk activations below the
  // kernel (the deepest: 59 x 16 = 944 bytes), fib(24) .. fib(21) at most 23 (736 bytes).
  int got[32];
  walk_kernel<<<1, 32>>>(dout, dnext, 58);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 32; ++t) EXPECT_EQ(got[t], walk(next.data(), 58 - t));
  long long fibs[4];
  fib_kernel<<<1, 4>>>(dfib, 24);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(fibs, dfib, sizeof fibs, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 4; ++t) EXPECT_EQ(fibs[t], fib(24 - t));

  // 2. 200 activations (3200 bytes) under a 4096-byte limit.
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
  walk_kernel<<<1, 32>>>(dout, dnext, links - 1);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 32; ++t) EXPECT_EQ(got[t], walk(next.data(), links - 1 - t));

  // 3. The same under the default limit: 3200 bytes do not fit in 1024.
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 1024));
  walk_kernel<<<1, 32>>>(dout, dnext, links - 1);
  cudaError_t e = cudaDeviceSynchronize();
  EXPECT_MSG(e == cudaErrorIllegalAddress,
             "a 200-deep recursion in a 1024-byte stack gave %s, not cudaErrorIllegalAddress",
             cudaGetErrorName(e));
  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}
