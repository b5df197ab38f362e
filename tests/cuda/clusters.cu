// Thread-block clusters (compute capability 9.0) through cooperative groups' this_cluster().
//
// (1) exchange: every CTA writes `block id * 1000 + tid` into its shared array; cluster.sync();
//     each thread reads the element of the next CTA rank through map_shared_rank() (distributed
//     shared memory) and writes it out; thread 0 records block_rank(), num_blocks(),
//     dim_blocks(), block_index() and query_shared_rank() of the mapped address. Run with
//     __cluster_dims__(2,1,1) and <<<>>>, and with cudaLaunchKernelEx +
//     cudaLaunchAttributeClusterDimension of 4x1x1 and 2x2x1 (a 2D grid).
// (2) histogram: each CTA of a cluster of 4 owns a quarter of 64 bins in its shared memory;
//     every thread adds to the owning CTA's bin with atomicAdd on the mapped address; after
//     cluster.sync() the CTAs add their bins into the global histogram. Split arrive/wait
//     (barrier_arrive / barrier_wait) starts it.
// (3) launch checks: a cluster that does not divide the grid and one above the portable size
//     are cudaErrorInvalidClusterSize; 16 runs once non-portable sizes are allowed, as
//     cudaOccupancyMaxPotentialClusterSize says; the compile-time cluster shape is the
//     function's required one.
// Every expected value is computed on the host; prints PASS or exits 1.
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

constexpr unsigned THREADS = 128;
constexpr unsigned BINS = 64;


__device__ void exchange_body(unsigned* out, unsigned* info) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ unsigned s[THREADS];
  unsigned rank = cluster.block_rank();
  unsigned n = cluster.num_blocks();
  unsigned bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  s[threadIdx.x] = bid * 1000 + threadIdx.x;
  cluster.sync();
  unsigned* peer = cluster.map_shared_rank(s, (rank + 1) % n);
  out[bid * THREADS + threadIdx.x] = peer[threadIdx.x];
  if (threadIdx.x == 0) {
    dim3 d = cluster.dim_blocks(), b = cluster.block_index();
    info[bid * 5 + 0] = rank;
    info[bid * 5 + 1] = n;
    info[bid * 5 + 2] = d.x | d.y << 8 | d.z << 16;
    info[bid * 5 + 3] = b.x | b.y << 8 | b.z << 16;
    info[bid * 5 + 4] = cluster.query_shared_rank(peer);
  }
  // Peers may still read this CTA's shared memory: it must outlive their reads.
  cluster.sync();
}

__global__ void __cluster_dims__(2, 1, 1) exchange_fixed(unsigned* out, unsigned* info) {
  exchange_body(out, info);
}

__global__ void exchange(unsigned* out, unsigned* info) { exchange_body(out, info); }

__global__ void histogram(const unsigned* in, unsigned n_in, unsigned* out) {
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ unsigned bins[];
  unsigned per = BINS / cluster.num_blocks();
  for (unsigned i = threadIdx.x; i < per; i += blockDim.x) bins[i] = 0;
  cluster.barrier_arrive();
  cluster.barrier_wait();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n_in; i += gridDim.x * blockDim.x) {
    unsigned b = in[i] % BINS;
    unsigned* dst = cluster.map_shared_rank(bins, b / per);
    atomicAdd(dst + b % per, 1u);
  }
  cluster.sync();
  for (unsigned i = threadIdx.x; i < per; i += blockDim.x)
    atomicAdd(&out[cluster.block_rank() * per + i], bins[i]);
}

__global__ void empty() {}

// Launches `exchange` (or the fixed-shape kernel when cl is 0) over `grid` and checks it.
static void run_exchange(dim3 grid, dim3 cl) {
  bool fixed = cl.x == 0;
  dim3 c = fixed ? dim3(2, 1, 1) : cl;
  unsigned nb = grid.x * grid.y * grid.z;
  unsigned *out, *info;
  CHECK(cudaMalloc(&out, nb * THREADS * 4));
  CHECK(cudaMalloc(&info, nb * 5 * 4));
  if (fixed) {
    exchange_fixed<<<grid, THREADS>>>(out, info);
  } else {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(THREADS);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cl.x;
    attr.val.clusterDim.y = cl.y;
    attr.val.clusterDim.z = cl.z;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, exchange, out, info));
  }
  CHECK(cudaGetLastError());
  std::vector<unsigned> o(nb * THREADS), in(nb * 5);
  CHECK(cudaMemcpy(o.data(), out, o.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(in.data(), info, in.size() * 4, cudaMemcpyDeviceToHost));
  unsigned n = c.x * c.y * c.z;
  for (unsigned z = 0; z < grid.z; z++)
    for (unsigned y = 0; y < grid.y; y++)
      for (unsigned x = 0; x < grid.x; x++) {
        unsigned bid = x + grid.x * (y + grid.y * z);
        // Ranks run x fastest inside the cluster (%cluster_ctarank).
        unsigned bx = x % c.x, by = y % c.y, bz = z % c.z;
        unsigned rank = bx + c.x * (by + c.y * bz);
        unsigned next = (rank + 1) % n;
        unsigned nx = x - bx + next % c.x, ny = y - by + next / c.x % c.y,
                 nz = z - bz + next / (c.x * c.y);
        unsigned nbid = nx + grid.x * (ny + grid.y * nz);
        for (unsigned t = 0; t < THREADS; t++) EXPECT_EQ(o[bid * THREADS + t], nbid * 1000 + t);
        EXPECT_EQ(in[bid * 5 + 0], rank);
        EXPECT_EQ(in[bid * 5 + 1], n);
        EXPECT_EQ(in[bid * 5 + 2], c.x | c.y << 8 | c.z << 16);
        EXPECT_EQ(in[bid * 5 + 3], bx | by << 8 | bz << 16);
        EXPECT_EQ(in[bid * 5 + 4], next);
      }
  CHECK(cudaFree(out));
  CHECK(cudaFree(info));
}

static void run_histogram() {
  const unsigned n_in = 5000, grid = 8, cl = 4;
  std::vector<unsigned> h(n_in), want(BINS, 0);
  for (unsigned i = 0; i < n_in; i++) {
    h[i] = i * 2654435761u ^ (i >> 3);
    want[h[i] % BINS]++;
  }
  unsigned *in, *out;
  CHECK(cudaMalloc(&in, n_in * 4));
  CHECK(cudaMalloc(&out, BINS * 4));
  CHECK(cudaMemcpy(in, h.data(), n_in * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, BINS * 4));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(THREADS);
  cfg.dynamicSmemBytes = BINS / cl * 4;
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cl;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, histogram, (const unsigned*)in, n_in, out));
  std::vector<unsigned> got(BINS);
  CHECK(cudaMemcpy(got.data(), out, BINS * 4, cudaMemcpyDeviceToHost));
  for (unsigned b = 0; b < BINS; b++) EXPECT_EQ(got[b], want[b]);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

static cudaError_t launch_empty(unsigned grid, unsigned cl) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(THREADS);
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cl;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, empty);
}

int main() {
  int dev = 0, cluster_launch = 0;
  CHECK(cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, dev));
  EXPECT_EQ(cluster_launch, 1);

  run_exchange(dim3(8), dim3(0, 0, 0));
  run_exchange(dim3(16), dim3(4, 1, 1));
  run_exchange(dim3(4, 4), dim3(2, 2, 1));
  run_histogram();

  // The compile-time shape is the function's required cluster shape.
  cudaFuncAttributes a = {};
  CHECK(cudaFuncGetAttributes(&a, exchange_fixed));
  EXPECT_EQ(a.requiredClusterWidth, 2);
  EXPECT_EQ(a.requiredClusterHeight, 1);
  EXPECT_EQ(a.requiredClusterDepth, 1);

  // Launch checks: not dividing the grid; above the portable 8 until non-portable sizes are
  // allowed, where the occupancy query agrees.
  EXPECT_EQ(launch_empty(9, 2), cudaErrorInvalidClusterSize);
  EXPECT_EQ(launch_empty(16, 16), cudaErrorInvalidClusterSize);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(16);
  cfg.blockDim = dim3(THREADS);
  int size = 0;
  CHECK(cudaOccupancyMaxPotentialClusterSize(&size, empty, &cfg));
  EXPECT_EQ(size, 8);
  EXPECT_EQ(launch_empty(16, 8), cudaSuccess);
  CHECK(cudaFuncSetAttribute(empty, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CHECK(cudaOccupancyMaxPotentialClusterSize(&size, empty, &cfg));
  EXPECT_EQ(size, 16);
  EXPECT_EQ(launch_empty(16, 16), cudaSuccess);
  EXPECT_EQ(launch_empty(32, 32), cudaErrorInvalidClusterSize);
  CHECK(cudaDeviceSynchronize());

  if (expect_failures == 0) printf("PASS clusters\n");
  return expect_failures == 0 ? 0 : 1;
}
