// `__managed__` variables, which cudart 13 binds with cuLibraryGetManaged: written by the host,
// updated by a kernel, read back by the host (after a synchronisation, as the programming
// guide requires without concurrent managed access); and cudaProfilerStart/Stop, which succeed
// with no profiler attached. Expected values: the arithmetic below.
#include "check.h"

// cuda_profiler_api.h is not in the pip toolkit; cudart exports these.
extern "C" cudaError_t cudaProfilerStart(void);
extern "C" cudaError_t cudaProfilerStop(void);

__managed__ int counter = 5;
__managed__ int hits;
__managed__ float values[256];

__global__ void update(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] = values[i] * 2.0f + (float)counter;
  atomicAdd(&hits, 1);
}

int main() {
  CHECK(cudaProfilerStart());
  EXPECT_EQ(counter, 5);  // the initializer, seen by the host
  for (int i = 0; i < 256; i++) values[i] = (float)i;
  counter = 3;
  update<<<2, 128>>>(256);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(hits, 256);
  int ok = 1;
  for (int i = 0; i < 256; i++) ok &= values[i] == 2.0f * (float)i + 3.0f;
  EXPECT_EQ(ok, 1);
  // The host's address of a managed variable is its device address.
  void* dp = nullptr;
  CHECK(cudaGetSymbolAddress(&dp, hits));
  EXPECT_EQ(dp == (void*)&hits, 1);
  CHECK(cudaProfilerStop());
  if (expect_failures) return 1;
  printf("PASS managed_vars: hits %d, values[255] %.1f\n", hits, values[255]);
  return 0;
}
