// Sum of 2^24 ints: each block reduces with warp shuffles and shared memory, then one atomicAdd
// per block (grid-stride over 512 blocks of 256 threads).
#include "bench.h"
#include <vector>

__global__ void sum(const int *x, int n, unsigned long long *out) {
  __shared__ long long warps[8];
  long long v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    v += x[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? warps[threadIdx.x] : 0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) atomicAdd(out, (unsigned long long)v);
  }
}

int main() {
  const int n = 1 << 24;
  std::vector<int> x(n);
  for (int i = 0; i < n; i++) x[i] = int((i * 7919u) % 1001u) - 500;
  int *dx;
  unsigned long long *dout, got = 0;
  CK(cudaMalloc(&dx, n * 4));
  CK(cudaMalloc(&dout, 8));
  CK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  double dev = best_of(3, [&] {
    CK(cudaMemset(dout, 0, 8));
    sum<<<512, 256>>>(dx, n, dout);
    CK(cudaMemcpy(&got, dout, 8, cudaMemcpyDeviceToHost));
  });
  long long ref = 0;
  double nat = best_of(3, [&] {
    long long s = 0;
    const int *xs = x.data();
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++) s += xs[i];
    ref = s;
  });
  expect((long long)got == ref, "sum");
  report("reduction (shuffles) 2^24", dev, nat);
}
