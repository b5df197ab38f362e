// saxpy over 2^24 floats, grid-stride (1024 blocks of 256 threads).
#include "bench.h"
#include <vector>

__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 24;
  const float a = 2.5f;
  std::vector<float> x(n), y(n), out(n), ref(n);
  for (int i = 0; i < n; i++) x[i] = (i % 1000) * 0.001f, y[i] = (i % 77) - 38.0f;
  float *dx, *dy;
  CK(cudaMalloc(&dx, n * 4));
  CK(cudaMalloc(&dy, n * 4));
  CK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  double dev = best_of(3, [&] {
    saxpy<<<1024, 256>>>(n, a, dx, dy);
    CK(cudaDeviceSynchronize());
  });
  CK(cudaMemcpy(dy, y.data(), n * 4, cudaMemcpyHostToDevice));
  saxpy<<<1024, 256>>>(n, a, dx, dy);
  CK(cudaMemcpy(out.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  double nat = best_of(3, [&] {
    float *r = ref.data();
    const float *xs = x.data(), *ys = y.data();
#pragma omp parallel for
    for (int i = 0; i < n; i++) r[i] = __builtin_fmaf(a, xs[i], ys[i]);
  });
  // nvcc contracts a * x[i] + y[i] into one fma: the native twin computes the same fma.
  for (int i = 0; i < n; i++) expect(out[i] == ref[i], "saxpy");
  report("saxpy 2^24", dev, nat);
}
