// A failing device assert: CUDA prints the failing thread's message on stderr and the next
// synchronisation returns cudaErrorAssert.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void check(const int* v) {
  assert(v[threadIdx.x] != 3);
}

int main() {
  int h[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int* d;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  check<<<1, 8>>>(d);
  cudaError_t err = cudaDeviceSynchronize();
  printf("sync: %s\n", cudaGetErrorName(err));
  return 0;
}
