// Resources come back with their context: what a context's memory is when the context goes.
// cuDevicePrimaryCtxReset "destroys all allocations and resets all state on the primary
// context", and destroying a context releases what was allocated in it (CUDA driver API
// reference), so a program that creates contexts in a loop does not run out of memory.
//  1. six cycles of: create a context, allocate 20 GiB of device memory and 1 MiB of pinned
//     host memory in it, destroy it (without freeing): on an 80 GiB device the fifth would fail
//     if nothing came back; free memory afterwards is what it was before;
//  2. 30 GiB allocated in the primary context, then cuDevicePrimaryCtxReset: free memory is
//     back; the pointer is no longer an allocation (CU_POINTER_ATTRIBUTE_... fails).
#include <cuda.h>
#include <cstdio>
#include "check.h"

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext primary;
  CU(cuDevicePrimaryCtxRetain(&primary, dev));
  CU(cuCtxSetCurrent(primary));
  size_t free0 = 0, total = 0;
  CU(cuMemGetInfo(&free0, &total));

  for (int i = 0; i < 6; i++) {
    CUcontext c;
    CU(cuCtxCreate(&c, nullptr, 0, dev));
    CUdeviceptr p;
    void* h = nullptr;
    CUresult r = cuMemAlloc(&p, 20ull << 30);
    EXPECT_MSG(r == CUDA_SUCCESS, "cycle %d: cuMemAlloc of 20 GiB gave %d", i, (int)r);
    CU(cuMemAllocHost(&h, 1 << 20));
    CU(cuCtxDestroy(c));
  }
  CU(cuCtxSetCurrent(primary));
  size_t free1 = 0;
  CU(cuMemGetInfo(&free1, &total));
  EXPECT_EQ(free1, free0);

  CUdeviceptr big;
  CU(cuMemAlloc(&big, 30ull << 30));
  size_t free2 = 0;
  CU(cuMemGetInfo(&free2, &total));
  EXPECT_MSG(free2 + (30ull << 30) <= free0, "30 GiB allocated but free is %zu of %zu", free2,
             free0);
  CU(cuDevicePrimaryCtxReset(dev));
  CU(cuDevicePrimaryCtxRetain(&primary, dev));
  CU(cuCtxSetCurrent(primary));
  size_t free3 = 0;
  CU(cuMemGetInfo(&free3, &total));
  EXPECT_EQ(free3, free0);
  size_t size = 0;
  EXPECT_MSG(cuMemGetAddressRange(nullptr, &size, big) != CUDA_SUCCESS,
             "the reset's allocation is still an allocation (%zu bytes)", size);
  CU(cuDevicePrimaryCtxRelease(dev));
  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}
