// A kernel fault is a sticky error of the context: the launch succeeds, the next synchronising
// call reports it, every later call fails with it, and cudaDeviceReset (the primary context's
// reset) clears it so that the program can go on, as on a GPU.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void poke(int* p) {
  if (threadIdx.x == 5) p[threadIdx.x] = 42;
}
__global__ void fill(int* p, int v) { p[threadIdx.x] = v; }

int main() {
  poke<<<1, 32>>>(reinterpret_cast<int*>(0x1000));
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  int* d = nullptr;
  cudaError_t after = cudaMalloc(&d, 16);
  cudaStream_t s;
  cudaError_t stream = cudaStreamCreate(&s);
  cudaError_t reset = cudaDeviceReset();
  cudaError_t malloc2 = cudaMalloc(&d, 32 * sizeof(int));
  int h[32] = {0};
  if (malloc2 == cudaSuccess) {
    fill<<<1, 32>>>(d, 9);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  }
  cudaError_t sync2 = cudaDeviceSynchronize();
  printf("launch=%s sync=%s after=%s stream=%s reset=%s malloc=%s sync2=%s h=%d\n",
         cudaGetErrorName(launch), cudaGetErrorName(sync), cudaGetErrorName(after),
         cudaGetErrorName(stream), cudaGetErrorName(reset), cudaGetErrorName(malloc2),
         cudaGetErrorName(sync2), h[31]);
  return 0;
}
