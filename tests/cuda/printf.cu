// Device printf: output appears at the synchronisation point, in order with the host's own
// printf, formatted as C's printf formats it. Expected stdout is in tests/programs.rs.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void hello(int base, double scale) {
  int t = threadIdx.x;
  printf("thread %d: %d %.3f %s %c %x\n", t, base + t, scale * t, t % 2 ? "odd" : "even",
         'a' + t, 255 + t);
}

__global__ void heap(int n) {
  // Device malloc from the heap sized by cudaLimitMallocHeapSize.
  int* p = (int*)malloc(n * sizeof(int));
  if (p == nullptr) {
    printf("malloc failed\n");
    return;
  }
  long sum = 0;
  for (int i = 0; i < n; i++) p[i] = i * i;
  for (int i = 0; i < n; i++) sum += p[i];
  free(p);
  printf("heap sum %ld\n", sum);
}

int main() {
  printf("before\n");
  hello<<<1, 4>>>(10, 0.5);
  printf("launched\n");  // device output is only flushed at the synchronisation below
  cudaDeviceSynchronize();
  printf("between\n");
  cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
  heap<<<1, 1>>>(1000);
  cudaError_t err = cudaDeviceSynchronize();
  printf("after: %s\n", cudaGetErrorName(err));
  return 0;
}
