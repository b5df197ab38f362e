// Launch configuration errors through cudart, as a GPU reports them. Measured on an H100 (driver
// 580.159), 2026-11-25, for a `<<<>>>` launch of a registered kernel and for a kernel the
// program loads itself (cudaLibraryLoadData + cudaLaunchKernel), with the shapes below (more
// than 1024 threads per block, a block dimension beyond 1024 x 1024 x 64, a grid dimension
// beyond 2^31-1 x 65535 x 65535, a zero dimension):
// - cudart 13.5 hands the driver's CUDA_ERROR_INVALID_VALUE through: cudaErrorInvalidValue on
//   both paths;
// - cudart 12.9 checks the shape itself before it calls the driver: cudaErrorInvalidConfiguration
//   on both paths.
// The launch error is not sticky: the next launch works.
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
#if CUDART_VERSION >= 13000
  const cudaError_t want = cudaErrorInvalidValue;
#else
  const cudaError_t want = cudaErrorInvalidConfiguration;
#endif
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
    EXPECT_MSG(e == want, "%s: %s", b.what, cudaGetErrorName(e));
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
