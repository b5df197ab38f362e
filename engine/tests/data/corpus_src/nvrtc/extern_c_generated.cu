// The kind of source a program generates at run time: extern "C" kernels (no mangling, looked
// up by name), sizes baked in with -D, constant tables, dynamic shared memory, __launch_bounds__.
// nvrtc-options: -DTILE=32 -DN_TAPS=7 -DSCALE=0.125f --extra-device-vectorization -lineinfo
#include "jit_traits.cuh"

__constant__ float taps[N_TAPS] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};
__device__ unsigned int blocks_done;

extern "C" __global__ void __launch_bounds__(TILE * TILE, 2)
transpose(float* __restrict__ out, const float* __restrict__ in, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y] * SCALE;
}

extern "C" __global__ void conv1d(const float* in, float* out, int n) {
  extern __shared__ float halo[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r = N_TAPS / 2;
  halo[threadIdx.x + r] = i < n ? in[i] : 0.f;
  if (threadIdx.x < r) {
    halo[threadIdx.x] = i >= r ? in[i - r] : 0.f;
    int j = i + blockDim.x;
    halo[threadIdx.x + blockDim.x + r] = j < n ? in[j] : 0.f;
  }
  __syncthreads();
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < N_TAPS; ++k) acc += taps[k] * halo[threadIdx.x + k];
  if (i < n) out[i] = acc;
}

extern "C" __global__ void last_block_sum(const int* in, int* partial, int* total, int n) {
  __shared__ bool last;
  int s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += in[i];
#if __CUDA_ARCH__ >= 800
  s = __reduce_add_sync(0xffffffffu, s);
#else
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
#endif
  if ((threadIdx.x & 31) == 0) atomicAdd(&partial[blockIdx.x], s);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicInc(&blocks_done, gridDim.x) == gridDim.x - 1;
  __syncthreads();
  if (last && threadIdx.x == 0) {
    int t = 0;
    for (int b = 0; b < gridDim.x; ++b) t += atomicExch(&partial[b], 0);
    *total = t;
  }
}

extern "C" __device__ int helper_not_a_kernel(int x) { return __popc(x) + __clz(x); }
