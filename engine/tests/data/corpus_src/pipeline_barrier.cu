// cuda::pipeline (memcpy_async into shared memory, double buffering) and cuda::barrier.
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void pipelined_sum(const float *in, float *out, int tiles) {
  constexpr int T = 256;
  __shared__ alignas(16) float buf[2][T];
  auto block = cg::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(block, &state);
  float acc = 0;
  for (int t = 0; t < tiles + 1; t++) {
    if (t < tiles) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buf[t % 2], in + t * T, sizeof(float) * T, pipe);
      pipe.producer_commit();
    }
    if (t > 0) {
      pipe.consumer_wait();
      acc += buf[(t - 1) % 2][threadIdx.x];
      pipe.consumer_release();
    }
  }
  out[threadIdx.x] = acc;
}

__global__ void barrier_kernel(const int *in, int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ alignas(16) int smem[128];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(smem + threadIdx.x, in + threadIdx.x, sizeof(int), bar);
  bar.arrive_and_wait();
  auto token = bar.arrive();
  bar.wait(std::move(token));
  out[threadIdx.x] = smem[(threadIdx.x + 1) % blockDim.x];
}
