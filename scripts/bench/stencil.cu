// Jacobi on a 1024 x 1024 grid: 20 sweeps, one short launch each (16 x 16 blocks), ping-pong.
#include "bench.h"
#include <vector>

__global__ void sweep(const float *in, float *out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x == 0 || y == 0 || x >= n - 1 || y >= n - 1) return;
  out[y * n + x] = (in[y * n + x - 1] + in[y * n + x + 1] + in[(y - 1) * n + x] +
                    in[(y + 1) * n + x]) * 0.25f;
}

int main() {
  const int n = 1024, steps = 20;
  std::vector<float> g(n * n), got(n * n), a(n * n), b(n * n);
  for (int i = 0; i < n * n; i++) g[i] = (i % n == 0) ? 100.0f : (i * 13 % 17) * 0.5f;
  float *d0, *d1;
  CK(cudaMalloc(&d0, n * n * 4));
  CK(cudaMalloc(&d1, n * n * 4));
  double dev = best_of(2, [&] {
    CK(cudaMemcpy(d0, g.data(), n * n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d1, g.data(), n * n * 4, cudaMemcpyHostToDevice));
    for (int s = 0; s < steps; s++) {
      sweep<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(s % 2 ? d1 : d0, s % 2 ? d0 : d1, n);
    }
    CK(cudaDeviceSynchronize());
  });
  CK(cudaMemcpy(got.data(), steps % 2 ? d1 : d0, n * n * 4, cudaMemcpyDeviceToHost));
  double nat = best_of(3, [&] {
    a = g, b = g;
    for (int s = 0; s < steps; s++) {
      const float *in = s % 2 ? b.data() : a.data();
      float *out = s % 2 ? a.data() : b.data();
#pragma omp parallel for
      for (int y = 1; y < n - 1; y++)
        for (int x = 1; x < n - 1; x++)
          out[y * n + x] = (in[y * n + x - 1] + in[y * n + x + 1] + in[(y - 1) * n + x] +
                            in[(y + 1) * n + x]) * 0.25f;
    }
  });
  const std::vector<float> &ref = steps % 2 ? b : a;
  for (int i = 0; i < n * n; i++) expect(got[i] == ref[i], "stencil");
  report("stencil 1024^2 x 20 launches", dev, nat);
}
