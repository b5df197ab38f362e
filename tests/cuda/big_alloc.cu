// Device memory costs host memory only where it is touched: a program may allocate what the
// emulated 80 GB GPU (the default h100 profile) holds, on a machine with far less RAM, and runs
// out of memory where that GPU would. Expected values follow from the profile's 80 GiB.
#include "check.h"

__global__ void touch(char* p, size_t n) {
  p[0] = 3;
  p[n - 1] = 7;
}

int main() {
  size_t free0 = 0, total = 0;
  CHECK(cudaMemGetInfo(&free0, &total));
  int bad = 0;
  if (total != (80ull << 30) || free0 != total) {
    printf("memory info: total %zu free %zu, want 80 GiB both\n", total, free0);
    bad++;
  }
  const size_t big = 60ull << 30;
  char* a = nullptr;
  CHECK(cudaMalloc(&a, big));
  touch<<<1, 1>>>(a, big);
  CHECK(cudaDeviceSynchronize());
  char first = 0, last = 0;
  CHECK(cudaMemcpy(&first, a, 1, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&last, a + big - 1, 1, cudaMemcpyDeviceToHost));
  if (first != 3 || last != 7) {
    printf("ends of the 60 GiB allocation: %d %d, want 3 7\n", first, last);
    bad++;
  }
  // 60 GiB in use: another 30 GiB does not fit in 80, 19 GiB does.
  char* b = nullptr;
  if (cudaMalloc(&b, 30ull << 30) != cudaErrorMemoryAllocation) {
    printf("a 30 GiB allocation past the device's memory did not fail\n");
    bad++;
  }
  cudaGetLastError();
  CHECK(cudaMalloc(&b, 19ull << 30));
  size_t free1 = 0;
  CHECK(cudaMemGetInfo(&free1, &total));
  if (free1 != free0 - big - (19ull << 30)) {
    printf("free after 79 GiB: %zu, want %zu\n", free1, free0 - big - (19ull << 30));
    bad++;
  }
  CHECK(cudaFree(b));
  CHECK(cudaFree(a));
  if (bad) {
    printf("FAIL big_alloc: %d mismatches\n", bad);
    return 1;
  }
  printf("PASS big_alloc: 79 GiB of the emulated 80 GiB allocated, the 60 GiB buffer touched at both ends\n");
  return 0;
}
