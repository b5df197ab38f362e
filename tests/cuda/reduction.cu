// Shared-memory tree reduction with __syncthreads: each block sums 256 integers-valued floats,
// so every partial sum is exact and the CPU sum must match bit for bit.
#include "check.h"
#include <vector>

constexpr int BLOCK = 256;

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float s[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

int main() {
  const int n = 1 << 20;
  const int blocks = (n + BLOCK - 1) / BLOCK;
  std::vector<float> in(n);
  for (int i = 0; i < n; i++) in[i] = (float)((i * 7919) % 1001) - 500.0f;
  float *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, blocks * sizeof(float)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  block_sum<<<blocks, BLOCK>>>(din, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> out(blocks);
  CHECK(cudaMemcpy(out.data(), dout, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  double total = 0;
  for (int b = 0; b < blocks; b++) {
    float want = 0;  // integers below 2^24: exact in any order
    for (int t = 0; t < BLOCK; t++) want += in[b * BLOCK + t];
    total += out[b];
    if (out[b] != want && bad++ < 5) fprintf(stderr, "out[%d] = %g, want %g\n", b, out[b], want);
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  if (bad) {
    printf("FAIL reduction: %d of %d blocks wrong\n", bad, blocks);
    return 1;
  }
  printf("PASS reduction: %d blocks, total %.0f\n", blocks, total);
  return 0;
}
