// cooperative_groups and cuda::std through NVRTC with the toolkit include path.
// nvrtc-toolkit-include
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/std/atomic>
#include <cuda/std/limits>
namespace cg = cooperative_groups;

extern "C" __global__ void tile_reduce(const int* in, int* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int i = block.group_index().x * block.size() + block.thread_rank();
  int v = i < n ? in[i] : 0;
  int s = cg::reduce(warp, v, cg::plus<int>());
  int m = cg::reduce(warp, v, cg::greater<int>());
  if (warp.thread_rank() == 0) {
    cuda::std::atomic_ref<int> total(out[0]);
    total.fetch_add(s, cuda::std::memory_order_relaxed);
    cuda::atomic_ref<int, cuda::thread_scope_device> mx(out[1]);
    mx.fetch_max(m);
  }
  auto t4 = cg::tiled_partition<4>(warp);
  out[2 + (i & 7)] = t4.shfl_down(v, 1) + (int)(cuda::std::numeric_limits<short>::max() & t4.meta_group_rank());
}
