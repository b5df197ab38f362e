// Planted barrier misuse for the sanitizer's synccheck (`cuda-shim run --check synccheck`), one
// per mode, as scripts/ground-truth/sanitize_bugs.cu plants them. Under compute-sanitizer on an
// H100 (driver 580.159, results/sanitizer-h100.txt) they gave:
//   divergent_barrier  half of warp 0 skips __syncthreads: "Barrier error detected. Divergent
//                      thread(s) in warp." by thread (0,0,0), 16 errors, the launch fails with
//                      cudaErrorLaunchFailure (without the tool: cudaSuccess)
//   bad_syncwarp       __syncwarp(0x0000ffff) by all 32 lanes: "Barrier error detected. Invalid
//                      arguments." by thread (0,0,0), 32 errors, cudaErrorLaunchFailure
//                      (without the tool: cudaSuccess)
//   clean              barriers used correctly: "ERROR SUMMARY: 0 errors"
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void divergent_barrier(int* out) {
  if (threadIdx.x < 16) __syncthreads();  // planted: half of warp 0 skips the barrier
  out[threadIdx.x] = threadIdx.x;
}
__global__ void bad_syncwarp(int* out) {
  __syncwarp(0x0000ffffu);  // planted: lanes 16..31 name a mask without themselves
  out[threadIdx.x] = threadIdx.x;
}
__global__ void clean(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x < 32) __syncwarp();
  out[threadIdx.x] = s[63 - threadIdx.x];
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "clean";
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  if (!strcmp(mode, "divergent_barrier")) {
    divergent_barrier<<<1, 64>>>(out);
  } else if (!strcmp(mode, "bad_syncwarp")) {
    bad_syncwarp<<<1, 32>>>(out);
  } else {
    clean<<<1, 64>>>(out);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s: sync %s\n", mode, cudaGetErrorName(e));
  cudaFree(out);
  return 0;
}
