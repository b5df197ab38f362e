// The bundled example: add two vectors on the "GPU" and print a few results.
// Build and run it on the emulator with `scripts/run-example.sh`.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 16;
  static float a[n], b[n], c[n];
  for (int i = 0; i < n; i++) {
    a[i] = i;
    b[i] = 2.0f * i;
  }
  float *da, *db, *dc;
  cudaMalloc(&da, sizeof a);
  cudaMalloc(&db, sizeof b);
  cudaMalloc(&dc, sizeof c);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) {
    printf("kernel failed: %s\n", cudaGetErrorString(err));
    return 1;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int wrong = 0;
  for (int i = 0; i < n; i++) wrong += c[i] != 3.0f * i;
  printf("device: %s (compute capability %d.%d)\n", prop.name, prop.major, prop.minor);
  printf("c[1] = %g, c[1000] = %g, c[%d] = %g\n", c[1], c[1000], n - 1, c[n - 1]);
  printf("%s: %d of %d elements correct\n", wrong ? "FAIL" : "OK", n - wrong, n);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return wrong != 0;
}
