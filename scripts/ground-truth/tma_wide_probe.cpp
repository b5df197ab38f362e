// Ground-truth probe: what cuTensorMapEncodeIm2colWide answers on a device below compute
// capability 10.0 (cuda.h: "only supported on devices of compute capability 10.0 or higher"),
// for a well-formed call in each mode and for a few malformed ones, and what
// cuTensorMapEncodeIm2col answers for the same tensor (a control).
// Build: nvcc -o tma_wide_probe tma_wide_probe.cpp -lcuda
#include <cstdio>
#include <cuda.h>

int main() {
  CUdevice dev;
  CUcontext ctx;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&ctx, nullptr, 0, dev)) return 1;
  int major = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  printf("major %d\n", major);
  CUdeviceptr p;
  cuMemAlloc(&p, 1 << 20);
  alignas(64) CUtensorMap map;
  // NHWC: C 64, W 32, H 8, N 2 of f16.
  cuuint64_t dims[4] = {64, 32, 8, 2};
  cuuint64_t strides[3] = {128, 128 * 32, 128 * 32 * 8};
  cuuint32_t es[4] = {1, 1, 1, 1};
  auto wide = [&](const char* what, CUtensorMap* m, unsigned rank, int lo, int hi, unsigned cpp,
                  unsigned ppc, CUtensorMapIm2ColWideMode mode, CUtensorMapSwizzle sw) {
    CUresult r = cuTensorMapEncodeIm2colWide(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rank, (void*)p,
                                            dims, strides, lo, hi, cpp, ppc, es,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE, mode, sw,
                                            CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    const char* name = "?";
    cuGetErrorName(r, &name);
    printf("wide %s %d %s\n", what, (int)r, name);
  };
  wide("w-128B", &map, 4, 0, 0, 64, 32, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, CU_TENSOR_MAP_SWIZZLE_128B);
  wide("w128-128B", &map, 4, 0, 0, 64, 32, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128,
       CU_TENSOR_MAP_SWIZZLE_128B);
  wide("w-64B", &map, 4, -1, 1, 32, 16, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, CU_TENSOR_MAP_SWIZZLE_64B);
  wide("w-none", &map, 4, 0, 0, 64, 32, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, CU_TENSOR_MAP_SWIZZLE_NONE);
  wide("rank2", &map, 2, 0, 0, 64, 32, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W, CU_TENSOR_MAP_SWIZZLE_128B);
  wide("null-map", nullptr, 4, 0, 0, 64, 32, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W,
       CU_TENSOR_MAP_SWIZZLE_128B);
  wide("ppc-2048", &map, 4, 0, 0, 64, 2048, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W,
       CU_TENSOR_MAP_SWIZZLE_128B);
  wide("mode-7", &map, 4, 0, 0, 64, 32, (CUtensorMapIm2ColWideMode)7, CU_TENSOR_MAP_SWIZZLE_128B);
  int lo[2] = {0, 0}, hi[2] = {0, 0};
  CUresult r = cuTensorMapEncodeIm2col(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, (void*)p, dims,
                                       strides, lo, hi, 64, 32, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                       CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  printf("im2col control %d\n", (int)r);
  return 0;
}
