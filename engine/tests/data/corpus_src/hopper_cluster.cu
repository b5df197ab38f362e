// Thread block clusters (sm_90+): cluster sync, distributed shared memory, mbarrier-based
// cuda::barrier arrival with expected transaction counts, and cluster special registers.
#include <cooperative_groups.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) cluster_kernel(int *out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ int smem[64];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  smem[threadIdx.x] = rank * 100 + threadIdx.x;
  cluster.sync();
  int *peer = cluster.map_shared_rank(smem, rank ^ 1);
  int v = peer[threadIdx.x];
  cluster.sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + cluster.num_blocks() + cluster.dim_blocks().x;
#endif
}
