// Jitify-style embedded header: functors and a block reduction the generated kernels plug in.
#pragma once
#include "jit_traits.cuh"
namespace jit {
struct Sum {
  template <class T> __device__ T operator()(T a, T b) const { return a + b; }
  template <class T> static __device__ constexpr T identity() { return T(0); }
};
struct Max {
  template <class T> __device__ T operator()(T a, T b) const { return a > b ? a : b; }
  template <class T> static __device__ constexpr T identity() { return numeric_limits<T>::lowest(); }
};
template <class T, class Op>
__device__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
template <class T, int BLOCK, class Op>
__device__ T block_reduce(T v, Op op) {
  static_assert(BLOCK % 32 == 0, "whole warps");
  __shared__ T warps[BLOCK / 32];
  v = warp_reduce(v, op);
  if ((threadIdx.x & 31) == 0) warps[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < BLOCK / 32 ? warps[threadIdx.x] : Op::template identity<T>();
  if (threadIdx.x < 32) v = warp_reduce(v, op);
  return v;
}
}  // namespace jit
