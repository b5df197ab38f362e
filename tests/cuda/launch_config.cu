// Launch configuration errors through cudart, as a GPU reports them. A `<<<>>>` launch of a
// registered kernel with a shape the device cannot run (more than 1024 threads per block, a
// block dimension beyond 1024 x 1024 x 64, a grid dimension beyond 2^31-1 x 65535 x 65535, or a
// zero dimension) fails with cudaErrorInvalidConfiguration ("invalid configuration argument",
// widely reported from GPUs for each of these; the 2048-thread case per the issue). The same
// shapes for a kernel the program loads itself (cudaLibraryLoadData + cudaLaunchKernel) give
// cudaErrorInvalidValue with cudart 13: measured on an H100 (driver 580.159, cudart 13.0) for
// all four. cudart 12.9 checks the shape itself before it calls the driver (its trace shows no
// cuLaunchKernel for these launches) and answers cudaErrorInvalidConfiguration on both paths,
// whatever the driver. The launch error is not sticky: the next launch works.
#include "check.h"

__global__ void k(int* p) {
  if (p) p[threadIdx.x] = 1;
}

static const char* kPtx = R"PTX(
.version 8.0
.target sm_80
.address_size 64
.visible .entry big(.param .u64 p)
{
    ret;
}
)PTX";

int main() {
  struct {
    const char* what;
    dim3 grid, block;
  } bad[] = {
      {"<<<1,2048>>>", dim3(1), dim3(2048)},
      {"block z=65", dim3(1), dim3(1, 1, 65)},
      {"grid y=65536", dim3(1, 65536, 1), dim3(1)},
      {"grid x=0", dim3(0, 1, 1), dim3(1)},
      {"block x=0", dim3(1), dim3(0, 1, 1)},
  };
  CHECK(cudaFree(0));
  for (auto& b : bad) {
    k<<<b.grid, b.block>>>(nullptr);
    cudaError_t e = cudaGetLastError();
    EXPECT_MSG(e == cudaErrorInvalidConfiguration, "%s: %s", b.what, cudaGetErrorName(e));
  }
  int* d;
  CHECK(cudaMalloc(&d, 1024 * sizeof(int)));
  k<<<1, 1024>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  cudaLibrary_t lib;
  CHECK(cudaLibraryLoadData(&lib, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t big;
  CHECK(cudaLibraryGetKernel(&big, lib, "big"));
#if CUDART_VERSION >= 13000
  const cudaError_t want = cudaErrorInvalidValue;
#else
  const cudaError_t want = cudaErrorInvalidConfiguration;
#endif
  for (int i = 0; i < 4; i++) {
    int* np = nullptr;
    void* args[] = {&np};
    cudaError_t e = cudaLaunchKernel((const void*)big, bad[i].grid, bad[i].block, args, 0, 0);
    cudaGetLastError();
    EXPECT_MSG(e == want, "library kernel %s: %s", bad[i].what, cudaGetErrorName(e));
  }
  CHECK(cudaLibraryUnload(lib));
  CHECK(cudaFree(d));
  if (expect_failures) return 1;
  printf("PASS launch_config\n");
  return 0;
}
