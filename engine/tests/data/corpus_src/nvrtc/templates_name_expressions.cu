// Runtime-generated templates instantiated by name: the host adds each instantiation with
// nvrtcAddNameExpression and launches the mangled name nvrtcGetLoweredName returns.
// nvrtc-name-expression: reduce<float, 256, jit::Sum>
// nvrtc-name-expression: reduce<double, 128, jit::Max>
// nvrtc-name-expression: reduce<int, 512, jit::Sum>
// nvrtc-name-expression: &transform<float, Scale>
// nvrtc-name-expression: &transform<double, Affine<3>>
// nvrtc-name-expression: &table<float>
// nvrtc-name-expression: &table<int>
// nvrtc-name-expression: ns::inner::fill<unsigned long long, 4>
#include "jit_ops.cuh"

template <class T, int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK) reduce(const T* __restrict__ in, T* out, jit::uint64 n) {
  Op op;
  T acc = Op::template identity<T>();
  for (jit::uint64 i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += (jit::uint64)gridDim.x * BLOCK)
    acc = op(acc, in[i]);
  acc = jit::block_reduce<T, BLOCK>(acc, op);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

struct Scale {
  float s;
  template <class T> __device__ T operator()(T x) const { return x * T(s); }
};
template <int K> struct Affine {
  double a[K];
  __device__ double operator()(double x) const {
    double r = 0;
    for (int k = K - 1; k >= 0; --k) r = r * x + a[k];
    return r;
  }
};

template <class T, class F>
__global__ void transform(const T* in, T* out, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(in[i]);
}

template <class T> __device__ T table[16];

namespace ns { namespace inner {
template <class T, int V>
__global__ void fill(T* out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = T(V) * T(i) + table<int>[i & 15];
}
}}  // namespace ns::inner
