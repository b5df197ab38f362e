// cub::DeviceScan::InclusiveSum over 2^24 ints.
#include "bench.h"
#include <cub/device/device_scan.cuh>
#include <omp.h>
#include <vector>

int main() {
  const int n = 1 << 24;
  std::vector<int> x(n), got(n), ref(n);
  for (int i = 0; i < n; i++) x[i] = (i * 31) % 7 - 3;
  int *din, *dout;
  CK(cudaMalloc(&din, n * 4));
  CK(cudaMalloc(&dout, n * 4));
  CK(cudaMemcpy(din, x.data(), n * 4, cudaMemcpyHostToDevice));
  size_t temp = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, temp, din, dout, n));
  void *dtemp;
  CK(cudaMalloc(&dtemp, temp));
  double dev = best_of(2, [&] {
    CK(cub::DeviceScan::InclusiveSum(dtemp, temp, din, dout, n));
    CK(cudaDeviceSynchronize());
  });
  CK(cudaMemcpy(got.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  // Native: each thread scans its chunk, then adds the sum of the chunks before it.
  double nat = best_of(3, [&] {
    int parts = omp_get_max_threads();
    std::vector<long long> sums(parts + 1, 0);
#pragma omp parallel num_threads(parts)
    {
      int t = omp_get_thread_num();
      long lo = (long)n * t / parts, hi = (long)n * (t + 1) / parts;
      int acc = 0;
      for (long i = lo; i < hi; i++) ref[i] = acc += x[i];
      sums[t + 1] = acc;
#pragma omp barrier
      int off = 0;
      for (int k = 1; k <= t; k++) off += (int)sums[k];
      for (long i = lo; i < hi; i++) ref[i] += off;
    }
  });
  expect(got == ref, "cub scan");
  report("cub::DeviceScan 2^24 i32", dev, nat);
}
