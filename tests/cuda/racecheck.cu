// A planted shared-memory race for the sanitizer's racecheck (`cuda-shim run --check racecheck`),
// and race-free shared-memory code it must not report. `racecheck MODE`:
//   race       each of 64 threads writes its word, then reads the word of the thread 32 away
//              (the other warp) with no __syncthreads() between: compute-sanitizer 2025's
//              racecheck on an H100 (driver 580.159, 2026-11-26) reports one race between the
//              write and the read, "[256 hazards]", and "RACECHECK SUMMARY: 1 hazard displayed
//              (1 error, 0 warnings)" (scripts/ground-truth/results/sanitizer-h100.txt);
//   synced     the same with __syncthreads() between: no hazard;
//   reduction  a block-wide tree reduction in shared memory with a barrier per level: none.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void exchange(int* out, bool sync) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  if (sync) __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

__global__ void reduce(const int* in, int* out) {
  __shared__ int s[256];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  for (int k = 128; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = s[0];
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "synced";
  int *in, *out;
  cudaMalloc(&in, 256 * sizeof(int));
  cudaMalloc(&out, 256 * sizeof(int));
  int h[256];
  for (int i = 0; i < 256; i++) h[i] = i;
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  if (!strcmp(mode, "reduction")) {
    reduce<<<1, 256>>>(in, out);
  } else {
    exchange<<<1, 64>>>(out, strcmp(mode, "race") != 0);
  }
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("%s: %s, out[0] = %d\n", mode, cudaGetErrorName(cudaGetLastError()), h[0]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
