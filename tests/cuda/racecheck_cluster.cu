// Distributed shared memory races for the sanitizer's racecheck (compute_90: clusters).
// `racecheck_cluster MODE`, a cluster of 2 CTAs of 32 threads:
//   cluster_race    after a cluster.sync(), each thread writes its word into the other CTA's
//                   shared memory (map_shared_rank), then, after only a __syncthreads() (which
//                   orders nothing across CTAs), reads its own CTA's word, which the other CTA
//                   writes: every read races with a write of the other CTA. By the arithmetic of
//                   racecheck.cu's measured case (one hazard per byte of each access in
//                   hazard), 2 CTAs x 32 threads x 4 bytes = [256 hazards], one error (one pair
//                   of instructions);
//   cluster_synced  the same with cluster.sync() in place of the __syncthreads(): none.
// Both end with a cluster.sync(), so that no CTA exits while the other may still access its
// shared memory.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) remote_write(int* out, bool sync) {
  __shared__ int s[32];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned int peer = cluster.block_rank() ^ 1;
  cluster.sync();
  int* ps = cluster.map_shared_rank(s, peer);
  ps[threadIdx.x] = threadIdx.x + 100 * peer;
  if (sync) cluster.sync();
  else __syncthreads();
  out[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x];
  cluster.sync();
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "cluster_synced";
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  remote_write<<<2, 32>>>(out, strcmp(mode, "cluster_race") != 0);
  int h[64];
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("%s: %s, out[1] = %d, out[33] = %d\n", mode, cudaGetErrorName(cudaGetLastError()), h[1],
         h[33]);
  cudaFree(out);
  return 0;
}
