// Cluster launch control (ISA 9.7.13.17-18, sm_100): kernels that steal the work of CTAs not
// yet started, as CUTLASS's sm100 tile scheduler and CUB's sm100 scan do, written with the
// <cuda/ptx> wrappers that CUB uses.
//
// 1. Single CTAs: each CTA processes its own block of `out`, then asks to cancel another CTA
//    and processes that one's block instead, until a request fails. Every block must be
//    processed exactly once (each element incremented once), and the CTAs that started plus
//    the successful cancellations must be the grid (ISA: "no other successful response from
//    other try_cancel operations from the same grid will contain that id").
// 2. Clusters of 2 (`__cluster_dims__`), `.multicast::cluster::all`: rank 0 asks, both CTAs
//    receive the response in their own shared memory and mbarrier, and each processes its
//    rank's CTA of the canceled cluster (first ctaid + rank).
// 3. The response decodes through every query form (`get_first_ctaid` as .v4 and ::x/::y/::z)
//    with the same values, on a 3-D grid.
// Prints PASS and how many CTAs each case canceled, or what went wrong.
#include <cstdio>
#include <cuda/ptx>
#include <cooperative_groups.h>

namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

constexpr int PER = 64;

// Waits for phase `phase` of the mbarrier.
__device__ void wait(uint64_t* bar, uint32_t phase) {
  while (!ptx::mbarrier_try_wait_parity(bar, phase)) {
  }
}

__global__ void steal(int* out, int* started, int* stolen) {
  __shared__ alignas(16) uint4 resp;
  __shared__ alignas(8) uint64_t bar;
  int bx = blockIdx.x;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    atomicAdd(started, 1);
  }
  __syncthreads();
  for (uint32_t phase = 0;; phase ^= 1) {
    for (int i = threadIdx.x; i < PER; i += blockDim.x) out[bx * PER + i] += bx + 1;
    if (threadIdx.x == 0) {
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 16);
      ptx::clusterlaunchcontrol_try_cancel(&resp, &bar);
    }
    wait(&bar, phase);
    bool canceled = ptx::clusterlaunchcontrol_query_cancel_is_canceled(resp);
    if (!canceled) break;
    bx = ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<int>(resp);
    if (threadIdx.x == 0) atomicAdd(stolen, 1);
    __syncthreads();  // everyone read `resp` before the next request overwrites it
  }
}

__global__ void __cluster_dims__(2, 1, 1) steal_clusters(int* out, int* started, int* stolen) {
  __shared__ alignas(16) uint4 resp;
  __shared__ alignas(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  int bx = blockIdx.x;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    atomicAdd(started, 1);
  }
  cluster.sync();
  for (uint32_t phase = 0;; phase ^= 1) {
    for (int i = threadIdx.x; i < PER; i += blockDim.x) out[bx * PER + i] += bx + 1;
    if (threadIdx.x == 0)
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 16);
    // Every CTA expects the bytes before rank 0 asks.
    cluster.sync();
    if (threadIdx.x == 0 && rank == 0) ptx::clusterlaunchcontrol_try_cancel_multicast(&resp, &bar);
    wait(&bar, phase);
    bool canceled = ptx::clusterlaunchcontrol_query_cancel_is_canceled(resp);
    if (!canceled) break;
    bx = ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<int>(resp) + rank;
    if (threadIdx.x == 0) atomicAdd(stolen, 1);
    cluster.sync();
  }
}

// One CTA of a 3-D grid that starts cancels once and prints what each query form says.
__global__ void queries(int* out) {
  __shared__ alignas(16) uint4 resp;
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  ptx::mbarrier_init(&bar, 1);
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 16);
  ptx::clusterlaunchcontrol_try_cancel(&resp, &bar);
  wait(&bar, 0);
  int linear = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int* o = out + 8 * linear;
  o[0] = 1;  // this CTA started
  if (!ptx::clusterlaunchcontrol_query_cancel_is_canceled(resp)) return;
  uint32_t v[4];
  ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid(v, resp);
  o[1] = 1;
  o[2] = v[0], o[3] = v[1], o[4] = v[2];
  o[5] = ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<int>(resp);
  o[6] = ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_y<int>(resp);
  o[7] = ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_z<int>(resp);
}

static bool check_blocks(const char* name, int* out, int blocks) {
  for (int b = 0; b < blocks; b++)
    for (int i = 0; i < PER; i++)
      if (out[b * PER + i] != b + 1) {
        printf("clc %s: element %d of block %d is %d, not %d\n", name, i, b, out[b * PER + i], b + 1);
        return false;
      }
  return true;
}

// Runs `kernel` on `blocks` CTAs; true when every block was processed once and the CTAs that
// started plus the cancellations are the grid. `canceled` receives the cancellations.
template <typename K>
static bool stealing(const char* name, K kernel, int* out, int* counts, int blocks, int* canceled) {
  cudaMemset(out, 0, blocks * PER * sizeof(int));
  cudaMemset(counts, 0, 2 * sizeof(int));
  kernel<<<blocks, 32>>>(out, counts, counts + 1);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("clc %s: %s\n", name, cudaGetErrorString(e));
    return false;
  }
  if (!check_blocks(name, out, blocks)) return false;
  *canceled = counts[1];
  if (counts[0] + counts[1] != blocks) {
    printf("clc %s: %d started + %d canceled != %d\n", name, counts[0], counts[1], blocks);
    return false;
  }
  return true;
}

int main() {
  int *out, *counts;
  const int blocks = 96;
  cudaMallocManaged(&out, blocks * PER * sizeof(int));
  cudaMallocManaged(&counts, 2 * sizeof(int));
  int single = 0, clusters = 0;
  bool ok = stealing("single", steal, out, counts, blocks, &single);
  ok &= stealing("clusters", steal_clusters, out, counts, blocks, &clusters);

  // 3.
  dim3 grid(3, 2, 2);
  int n = 12;
  cudaMemset(out, 0, 8 * n * sizeof(int));
  queries<<<grid, 32>>>(out);
  cudaError_t e = cudaDeviceSynchronize();
  int started = 0, canceled = 0;
  bool seen[12] = {}, agree = e == cudaSuccess;
  for (int c = 0; agree && c < n; c++) {
    int* o = out + 8 * c;
    started += o[0];
    if (!o[1]) continue;
    canceled++;
    int x = o[2], y = o[3], z = o[4];
    agree &= x == o[5] && y == o[6] && z == o[7] && x < 3 && y < 2 && z < 2;
    int linear = x + 3 * (y + 2 * z);
    agree &= !seen[linear] && out[8 * linear] == 0;  // a canceled CTA never started
    seen[linear] = true;
  }
  if (!agree || started + canceled != n) {
    printf("clc queries: %s, %d started, %d canceled, forms agree: %d\n", cudaGetErrorString(e),
           started, canceled, agree);
    ok = false;
  }
  if (ok) printf("PASS\ncanceled: single %d, clusters %d, queries %d\n", single, clusters, canceled);
  return 0;
}
