// Half and bfloat16 arithmetic through the toolkit's cuda_fp16.h / cuda_bf16.h (include path to
// the toolkit, as most NVRTC users pass).
// nvrtc-toolkit-include
// nvrtc-name-expression: axpy_h2<__half2>
// nvrtc-name-expression: axpy_h2<__nv_bfloat162>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <class H2> __device__ H2 fma2(H2 a, H2 b, H2 c) { return __hfma2(a, b, c); }
#if __CUDA_ARCH__ < 800
// bfloat16 arithmetic needs sm_80; before it, through float.
template <> __device__ __nv_bfloat162 fma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  float2 fa = __bfloat1622float2(a), fb = __bfloat1622float2(b), fc = __bfloat1622float2(c);
  return __floats2bfloat162_rn(fmaf(fa.x, fb.x, fc.x), fmaf(fa.y, fb.y, fc.y));
}
#endif

template <class H2>
__global__ void axpy_h2(H2 a, const H2* x, H2* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fma2(a, x[i], y[i]);
}

extern "C" __global__ void half_math(const __half* x, __half* y, float* f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half h = x[i];
  __half2 h2 = __halves2half2(h, __float2half_rn(1.5f));
  h2 = h2exp(h2) + h2sqrt(__habs2(h2)) * __float2half2_rn(0.5f);
  h = __hadd(__low2half(h2), __high2half(h2));
  h = __hgt(h, __float2half(2.f)) ? hrcp(h) : hsin(h) + hlog(__habs(h) + __ushort_as_half(0x3c00));
  y[i] = __hmax(h, __hneg(h));
  f[i] = __half2float(h) + __low2float(h2) + (float)__half2int_rn(h);
  atomicAdd(reinterpret_cast<__half2*>(y) + (i / 2) % 4, h2);
}

extern "C" __global__ void bf16_math(const __nv_bfloat16* x, __nv_bfloat16* y, float* f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 b = x[i];
#if __CUDA_ARCH__ >= 800
  __nv_bfloat162 b2 = __floats2bfloat162_rn(__bfloat162float(b), 2.f);
  b2 = __hmul2(b2, b2) + h2exp2(b2);
  b = __hfma(b, __low2bfloat16(b2), __high2bfloat16(b2));
  y[i] = __hmin(b, __float2bfloat16(100.f));
  f[i] = __bfloat162float(b) + __high2float(b2);
  atomicAdd(&y[(i + 1) % n], __float2bfloat16(1.f));
#else
  y[i] = __float2bfloat16(__bfloat162float(b) * 2.f);
  f[i] = __bfloat162float(b);
#endif
}
