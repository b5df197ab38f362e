// Grid-stride saxpy over 16M floats with many blocks (fewer threads than elements, so every
// thread loops); checked against the CPU with the same fused multiply-add.
#include "check.h"
#include <cmath>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 16 * 1024 * 1024;
  const float a = 2.5f;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; i++) {
    x[i] = (float)(i % 1000) * 0.001f;
    y[i] = (float)(i % 77) - 38.0f;
  }
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  saxpy<<<1024, 256>>>(n, a, dx, dy);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> out(n);
  CHECK(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    // nvcc contracts a*x+y into fma.rn.f32 (one rounding); fmaf computes exactly that.
    float want = fmaf(a, x[i], y[i]);
    if (out[i] != want && bad++ < 5)
      fprintf(stderr, "y[%d] = %.9g, want %.9g\n", i, out[i], want);
  }
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  if (bad) {
    printf("FAIL saxpy: %d of %d wrong\n", bad, n);
    return 1;
  }
  printf("PASS saxpy: %d elements\n", n);
  return 0;
}
