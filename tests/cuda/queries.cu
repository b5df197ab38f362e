// The remaining driver queries, with the answers their documentation gives for one device:
// cuCtxGetExecAffinity, cuDeviceGetP2PAttribute, cuDeviceGetTexture1DLinearMaxWidth,
// cuFlushGPUDirectRDMAWrites, cuStreamGetCtx_v2 and the CUDA 13 location-based pool calls.
// Prints PASS.
#include <cstdio>
#include <cuda.h>
#include "check.h"

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));

  int sms = 0;
  CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  CUexecAffinityParam aff = {};
  CU(cuCtxGetExecAffinity(&aff, CU_EXEC_AFFINITY_TYPE_SM_COUNT));
  EXPECT(aff.type == CU_EXEC_AFFINITY_TYPE_SM_COUNT && (int)aff.param.smCount.val == sms);
  EXPECT(cuCtxGetExecAffinity(nullptr, CU_EXEC_AFFINITY_TYPE_SM_COUNT) == CUDA_ERROR_INVALID_VALUE);

  int v = -1;
  EXPECT(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, dev, dev) ==
         CUDA_ERROR_INVALID_DEVICE);
  EXPECT(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, dev, 1) ==
         CUDA_ERROR_INVALID_DEVICE);
  EXPECT(cuDeviceGetP2PAttribute(nullptr, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, dev, dev) ==
         CUDA_ERROR_INVALID_VALUE);

  size_t w = 0;
  int lin = 0;
  CU(cuDeviceGetAttribute(&lin, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, dev));
  CU(cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 4, dev));
  EXPECT(w == (size_t)lin);
  EXPECT(cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 3, dev) ==
         CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 1, 7) ==
         CUDA_ERROR_INVALID_DEVICE);

  CU(cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER));
  EXPECT(cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                    (CUflushGPUDirectRDMAWritesScope)7) ==
         CUDA_ERROR_INVALID_VALUE);

  CUstream s;
  CU(cuStreamCreate(&s, 0));
  CUcontext got = nullptr;
  CUgreenCtx green = (CUgreenCtx)1;
  CU(cuStreamGetCtx_v2(s, &got, &green));
  EXPECT(got == ctx && green == nullptr);
  CU(cuStreamDestroy(s));

  CUmemLocation loc = {};
  loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
  loc.id = dev;
  CUmemoryPool def = nullptr, cur = nullptr, old = nullptr;
  CU(cuMemGetDefaultMemPool(&def, &loc, CU_MEM_ALLOCATION_TYPE_PINNED));
  CU(cuDeviceGetDefaultMemPool(&old, dev));
  EXPECT(def == old && def != nullptr);
  CUmemPoolProps props = {};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location = loc;
  CUmemoryPool mine;
  CU(cuMemPoolCreate(&mine, &props));
  CU(cuMemSetMemPool(&loc, CU_MEM_ALLOCATION_TYPE_PINNED, mine));
  CU(cuMemGetMemPool(&cur, &loc, CU_MEM_ALLOCATION_TYPE_PINNED));
  EXPECT(cur == mine);
  CU(cuDeviceGetMemPool(&cur, dev));
  EXPECT(cur == mine);
  CU(cuMemSetMemPool(&loc, CU_MEM_ALLOCATION_TYPE_PINNED, def));
  CU(cuMemPoolDestroy(mine));
  CUmemLocation host = {};
  host.type = CU_MEM_LOCATION_TYPE_HOST;
  EXPECT(cuMemGetDefaultMemPool(&cur, &host, CU_MEM_ALLOCATION_TYPE_PINNED) ==
         CUDA_ERROR_NOT_SUPPORTED);
  EXPECT(cuMemGetDefaultMemPool(&cur, &loc, (CUmemAllocationType)0) == CUDA_ERROR_INVALID_VALUE);

  CU(cuDevicePrimaryCtxRelease(dev));
  if (expect_failures) {
    printf("FAIL %d\n", expect_failures);
    return 1;
  }
  printf("PASS queries\n");
  return 0;
}
