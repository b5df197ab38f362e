// A kernel that stores through a wild pointer: the launch itself succeeds, the fault surfaces
// at the next synchronisation as cudaErrorIllegalAddress and stays (a sticky error), as on a GPU.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void poke(int* p) {
  if (threadIdx.x == 5) p[threadIdx.x] = 42;
}

int main() {
  poke<<<1, 32>>>(reinterpret_cast<int*>(0x1000));
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  int* d = nullptr;
  cudaError_t after = cudaMalloc(&d, 16);
  printf("launch=%s sync=%s after=%s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
         cudaGetErrorName(after));
  return 0;
}
