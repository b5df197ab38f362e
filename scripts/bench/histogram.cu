// A 256-bin histogram of 2^24 bytes: per-block counts in shared memory with shared atomics,
// merged with global atomics (256 blocks of 256 threads, grid-stride).
#include "bench.h"
#include <cstring>
#include <vector>

__global__ void histogram(const unsigned char *data, unsigned *bins, int n) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

int main() {
  const int n = 1 << 24;
  std::vector<unsigned char> x(n);
  for (int i = 0; i < n; i++) x[i] = (unsigned char)(((unsigned)i * 2654435761u) >> 13);
  unsigned char *dx;
  unsigned *dbins, got[256], ref[256];
  CK(cudaMalloc(&dx, n));
  CK(cudaMalloc(&dbins, 1024));
  CK(cudaMemcpy(dx, x.data(), n, cudaMemcpyHostToDevice));
  double dev = best_of(3, [&] {
    CK(cudaMemset(dbins, 0, 1024));
    histogram<<<256, 256>>>(dx, dbins, n);
    CK(cudaMemcpy(got, dbins, 1024, cudaMemcpyDeviceToHost));
  });
  double nat = best_of(3, [&] {
    memset(ref, 0, sizeof ref);
    const unsigned char *xs = x.data();
#pragma omp parallel
    {
      unsigned mine[256] = {};
#pragma omp for nowait
      for (int i = 0; i < n; i++) mine[xs[i]]++;
      for (int b = 0; b < 256; b++) {
#pragma omp atomic
        ref[b] += mine[b];
      }
    }
  });
  for (int b = 0; b < 256; b++) expect(got[b] == ref[b], "histogram");
  report("histogram 2^24 u8", dev, nat);
}
