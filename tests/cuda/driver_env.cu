// The real driver's environment variables, as the shim reads them (README: environment
// variables). One mode per run; the harness sets the variable (tests/driver.rs).
//   blocking  CUDA_LAUNCH_BLOCKING=1: a kernel that writes through a wild pointer fails its own
//             launch (cudaGetLastError right after it), not only the next synchronisation
//   async     the same kernel without it: the launch succeeds, the synchronisation fails
//   hidden    CUDA_VISIBLE_DEVICES=-1: no device (cudaErrorNoDevice)
//   visible   CUDA_VISIBLE_DEVICES=0: one device
//   nojit     CUDA_DISABLE_PTX_JIT=1: the kernel's PTX may not be compiled, so its launch fails
//             with cudaErrorJitCompilationDisabled (the shim has nothing else to run)
// Expected codes: the CUDA documentation of each variable and cudart's mapping of each
// driver error.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include "check.h"

__global__ void poke(int* p) { *p = 1; }

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int* wild = (int*)0x10;
  if (!strcmp(mode, "blocking")) {
    poke<<<1, 1>>>(wild);
    EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  } else if (!strcmp(mode, "async")) {
    poke<<<1, 1>>>(wild);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  } else if (!strcmp(mode, "hidden")) {
    int n = -1;
    EXPECT_EQ(cudaGetDeviceCount(&n), cudaErrorNoDevice);
  } else if (!strcmp(mode, "visible")) {
    int n = -1;
    EXPECT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
    EXPECT_EQ(n, 1);
  } else if (!strcmp(mode, "nojit")) {
    int* p = nullptr;
    CHECK(cudaMalloc(&p, sizeof(int)));
    poke<<<1, 1>>>(p);
    EXPECT_EQ(cudaGetLastError(), cudaErrorJitCompilationDisabled);
  } else {
    fprintf(stderr, "usage: driver_env blocking|async|hidden|visible|nojit\n");
    return 2;
  }
  if (expect_failures) return 1;
  printf("PASS %s\n", mode);
  return 0;
}
