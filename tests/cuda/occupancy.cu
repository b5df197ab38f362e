// Function attributes, the dynamic shared memory opt-in and occupancy, through the runtime
// (cudaFuncGetAttributes, cudaFuncSetAttribute, cudaOccupancy*) and the driver
// (cuOccupancyMaxPotentialBlockSize with a block-size-to-shared-memory callback, clusters).
// Expected values are worked out by hand with the documented occupancy formula for the default
// H100 profile (2048 threads, 64 Ki registers, 32 blocks, 228 KiB shared memory per SM; 1 KiB
// reserved per block; 48 KiB default and 227 KiB opt-in shared memory per block; registers
// allocated per warp in units of 256 over 4 sub-partitions; shared memory in units of 128
// bytes; 8 GPCs of 16 SMs for clusters). The kernels here use at most 32 registers per thread,
// so registers never bind for the block sizes used (checked first).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include "check.h"

__global__ void plain(float* out) { out[threadIdx.x] = threadIdx.x; }

__global__ void static_smem(float* out) {
  __shared__ float buf[4096];  // 16 KiB
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}

__global__ void dynamic_smem(float* out) {
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}

__global__ void dynamic_smem_default(float* out) {
  extern __shared__ float dyn2[];
  dyn2[threadIdx.x] = 2 * threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = dyn2[threadIdx.x];
}

static size_t per_thread_64(int block) { return (size_t)block * 64; }

int main() {
  float* out = nullptr;
  EXPECT_EQ(cudaMalloc(&out, 4096 * sizeof(float)), cudaSuccess);

  // Attributes.
  cudaFuncAttributes a = {};
  EXPECT_EQ(cudaFuncGetAttributes(&a, static_smem), cudaSuccess);
  if (a.numRegs > 32 || a.numRegs < 1) {
    printf("FAIL precondition: static_smem uses %d registers\n", a.numRegs);
    return 1;
  }
  EXPECT_EQ(a.sharedSizeBytes, 16384);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 48 * 1024 - 16384);
  EXPECT_EQ(a.maxThreadsPerBlock, 1024);
  EXPECT_EQ(a.ptxVersion, 80);
  EXPECT_EQ(a.binaryVersion, 90);
  EXPECT_EQ(a.localSizeBytes, 0);
  for (auto f : {(const void*)plain, (const void*)dynamic_smem, (const void*)dynamic_smem_default}) {
    cudaFuncAttributes b = {};
    EXPECT_EQ(cudaFuncGetAttributes(&b, f), cudaSuccess);
    if (b.numRegs > 32) {
      printf("FAIL precondition: a kernel uses %d registers\n", b.numRegs);
      return 1;
    }
  }

  int n = -1;
  // 256 threads: 8 warps, 64/8 = 8 blocks by warps; 1 KiB reserved: 228 by shared memory.
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, plain, 256, 0), cudaSuccess);
  EXPECT_EQ(n, 8);
  // 32 threads: 64 by warps, the 32-block limit binds.
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, plain, 32, 0), cudaSuccess);
  EXPECT_EQ(n, 32);
  // 16 KiB static + 16 KiB dynamic + 1 KiB = 33 KiB: 228/33 = 6.
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, static_smem, 128, 16384), cudaSuccess);
  EXPECT_EQ(n, 6);
  // 40 KiB + 1 KiB: 228/41 = 5.
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, dynamic_smem, 128, 40 * 1024), cudaSuccess);
  EXPECT_EQ(n, 5);
  // Above the 48 KiB default maximum: nothing fits.
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, dynamic_smem, 128, 64 * 1024), cudaSuccess);
  EXPECT_EQ(n, 0);

  // Launches above 48 KiB of dynamic shared memory need the opt-in, up to 227 KiB.
  dynamic_smem<<<1, 128, 64 * 1024>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetAttribute(dynamic_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 228 * 1024),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetAttribute(dynamic_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024),
            cudaSuccess);
  dynamic_smem<<<1, 128, 64 * 1024>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaFuncGetAttributes(&a, dynamic_smem), cudaSuccess);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 227 * 1024);
  // 100 KiB + 1 KiB: 228/101 = 2.
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, dynamic_smem, 128, 100 * 1024), cudaSuccess);
  EXPECT_EQ(n, 2);

  // Available dynamic shared memory for 2 blocks: 228 KiB / 2 - 1 KiB = 115712 once opted in,
  // capped at the 48 KiB default maximum otherwise; 3 blocks: 233472/3 - 1 KiB = 76800.
  size_t avail = 0;
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, dynamic_smem, 2, 128), cudaSuccess);
  EXPECT_EQ(avail, 115712);
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, dynamic_smem, 3, 128), cudaSuccess);
  EXPECT_EQ(avail, 76800);
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, dynamic_smem_default, 2, 128), cudaSuccess);
  EXPECT_EQ(avail, 48 * 1024);

  // Potential block size: 1024 threads x 2 blocks fill an SM; the grid fills 132 SMs.
  int grid = 0, block = 0;
  EXPECT_EQ(cudaOccupancyMaxPotentialBlockSize(&grid, &block, plain, 0, 0), cudaSuccess);
  EXPECT_EQ(block, 1024);
  EXPECT_EQ(grid, 2 * 132);
  // Limited to 200 threads: 200 (7 warps) -> 9 blocks = 1800 threads, 192 -> 10 = 1920,
  // 128 -> 16 = 2048 (full).
  EXPECT_EQ(cudaOccupancyMaxPotentialBlockSize(&grid, &block, plain, 0, 200), cudaSuccess);
  EXPECT_EQ(block, 128);
  EXPECT_EQ(grid, 16 * 132);
  // 64 bytes of dynamic shared memory per thread (dynamic_smem_default keeps the 48 KiB
  // maximum): above 768 threads nothing fits; 768 -> 2 blocks by warps (1536 threads); 672 ->
  // 3 (2016); 512 -> 4 blocks of 33 KiB by warps = 2048: full.
  EXPECT_EQ(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&grid, &block, dynamic_smem_default, per_thread_64),
            cudaSuccess);
  EXPECT_EQ(block, 512);
  EXPECT_EQ(grid, 4 * 132);
  // The same through the driver, with a C callback.
  CUfunction fn = nullptr;
  EXPECT_EQ(cudaGetFuncBySymbol(&fn, (const void*)dynamic_smem_default), cudaSuccess);
  EXPECT_EQ(cuOccupancyMaxPotentialBlockSize(&grid, &block, fn, per_thread_64, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(block, 512);
  EXPECT_EQ(grid, 4 * 132);
  EXPECT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, fn, 256, 0, CU_OCCUPANCY_DEFAULT),
            CUDA_SUCCESS);
  EXPECT_EQ(n, 8);
  EXPECT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, fn, 256, 0, 7), CUDA_ERROR_INVALID_VALUE);

  // A 25% carveout: 57 KiB rounds up to the 64 KiB configuration; one 33 KiB block fits.
  EXPECT_EQ(cudaFuncSetAttribute(static_smem, cudaFuncAttributePreferredSharedMemoryCarveout, 25), cudaSuccess);
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, static_smem, 128, 16384), cudaSuccess);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(cudaFuncGetAttributes(&a, static_smem), cudaSuccess);
  EXPECT_EQ(a.preferredShmemCarveout, 25);
  EXPECT_EQ(cudaFuncSetAttribute(static_smem, cudaFuncAttributePreferredSharedMemoryCarveout, 101),
            cudaErrorInvalidValue);

  // Clusters: 256-thread blocks, 8 per SM, 16 SMs per GPC = 128 blocks per GPC.
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(64);
  cfg.blockDim = dim3(256);
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 8;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  int size = 0, clusters = 0;
  EXPECT_EQ(cudaOccupancyMaxPotentialClusterSize(&size, plain, &cfg), cudaSuccess);
  EXPECT_EQ(size, 8);
  EXPECT_EQ(cudaFuncSetAttribute(plain, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), cudaSuccess);
  EXPECT_EQ(cudaOccupancyMaxPotentialClusterSize(&size, plain, &cfg), cudaSuccess);
  EXPECT_EQ(size, 16);
  // Clusters of 8: 128/8 = 16 per GPC, 128 on the device.
  EXPECT_EQ(cudaOccupancyMaxActiveClusters(&clusters, plain, &cfg), cudaSuccess);
  EXPECT_EQ(clusters, 128);
  // The function's required cluster size when the config names none: 4 -> 32 per GPC.
  EXPECT_EQ(cudaFuncSetAttribute(plain, cudaFuncAttributeRequiredClusterWidth, 4), cudaSuccess);
  EXPECT_EQ(cudaFuncSetAttribute(plain, cudaFuncAttributeRequiredClusterHeight, 1), cudaSuccess);
  EXPECT_EQ(cudaFuncSetAttribute(plain, cudaFuncAttributeRequiredClusterDepth, 1), cudaSuccess);
  cfg.numAttrs = 0;
  EXPECT_EQ(cudaOccupancyMaxActiveClusters(&clusters, plain, &cfg), cudaSuccess);
  EXPECT_EQ(clusters, 256);
  int width = 0;
  EXPECT_EQ(cuFuncGetAttribute(&width, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, fn), CUDA_SUCCESS);
  EXPECT_EQ(width, 0);  // another function
  CUfunction plain_fn = nullptr;
  EXPECT_EQ(cudaGetFuncBySymbol(&plain_fn, (const void*)plain), cudaSuccess);
  EXPECT_EQ(cuFuncGetAttribute(&width, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, plain_fn), CUDA_SUCCESS);
  EXPECT_EQ(width, 4);
  // Read-only attributes cannot be set; unknown ones are invalid.
  EXPECT_EQ(cuFuncSetAttribute(plain_fn, CU_FUNC_ATTRIBUTE_NUM_REGS, 8), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncGetAttribute(&width, CU_FUNC_ATTRIBUTE_MAX, plain_fn), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncSetCacheConfig(plain_fn, CU_FUNC_CACHE_PREFER_SHARED), CUDA_SUCCESS);
  EXPECT_EQ(cuFuncSetSharedMemConfig(plain_fn, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE), CUDA_SUCCESS);

  if (expect_failures == 0) printf("PASS occupancy\n");
  return expect_failures == 0 ? 0 : 1;
}
