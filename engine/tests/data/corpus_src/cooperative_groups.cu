// Cooperative groups: grid sync, tiled partitions, shuffles, reductions, coalesced groups.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void grid_reduce(const float *in, float *partial, float *out, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  float v = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
  v = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) atomicAdd(&partial[blockIdx.x], v);
  grid.sync();
  if (grid.thread_rank() == 0) {
    float s = 0;
    for (int b = 0; b < gridDim.x; b++) s += partial[b];
    *out = s;
  }
}

__global__ void tiles(int *data) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<8>(block);
  int v = data[block.thread_rank()];
  v += tile.shfl_down(v, 4);
  v += tile.shfl_xor(v, 2);
  unsigned any = tile.any(v > 3);
  unsigned ballot = tile.ballot(v & 1);
  if (v & 1) {
    cg::coalesced_group active = cg::coalesced_threads();
    v += active.shfl(v, 0) + active.size();
  }
  block.sync();
  data[block.thread_rank()] = v + any + ballot + cg::exclusive_scan(tile, v);
}
