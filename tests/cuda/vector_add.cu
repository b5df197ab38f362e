// Vector add through the CUDA runtime; the result is checked against the same sum on the CPU.
#include "check.h"
#include <vector>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 100000;  // not a multiple of the block size: the guard matters
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; i++) {
    a[i] = 0.5f * i;
    b[i] = 1.0f / (i + 1);
  }
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dc, 0xff, n * sizeof(float)));
  vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; i++) {
    float want = a[i] + b[i];  // one IEEE single-precision add, rounded to nearest, on both sides
    if (c[i] != want) {
      if (bad++ < 5) fprintf(stderr, "c[%d] = %.9g, want %.9g\n", i, c[i], want);
    }
  }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  if (bad) {
    printf("FAIL vector_add: %d of %d wrong\n", bad, n);
    return 1;
  }
  printf("PASS vector_add: %d elements, c[%d] = %.6f\n", n, n - 1, c[n - 1]);
  return 0;
}
