// half and bfloat16 scalar and vector math: arithmetic, fma, comparisons, conversions and the
// intrinsics of cuda_fp16.h / cuda_bf16.h.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void half_math(const __half *a, const __half2 *b, __half *c, __half2 *d, float *f) {
  int i = threadIdx.x;
  __half x = a[i], y = a[i + 1];
  __half r = __hadd(x, y) * __hsub(x, y) + __hfma(x, y, __float2half(1.5f));
  r = __hmax(r, hsqrt(__habs(x))) / y;
  r = __hlt(x, y) ? hexp(r) : hlog(r);
  __half2 v = __hfma2(b[i], b[i + 1], __half2half2(r));
  v = __hmul2(v, h2rcp(v));
  c[i] = r + hsin(x) + hcos(y);
  d[i] = __hmin2(v, __habs2(v));
  f[i] = __half2float(r) + __low2float(v) + __high2float(v) + __half2float(__ushort_as_half(7));
}

// bf16 arithmetic needs sm_80.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__global__ void bf16_math(const __nv_bfloat16 *a, const __nv_bfloat162 *b, __nv_bfloat16 *c,
                          __nv_bfloat162 *d, float *f) {
  int i = threadIdx.x;
  __nv_bfloat16 x = a[i], y = a[i + 1];
  __nv_bfloat16 r = __hfma(x, y, __float2bfloat16(0.25f)) + x * y - y / x;
  r = __hmax(r, hsqrt(__habs(x)));
  __nv_bfloat162 v = __hfma2(b[i], b[i + 1], __bfloat162bfloat162(r));
  c[i] = r + hexp(x);
  d[i] = __hmul2(v, v);
  f[i] = __bfloat162float(r) + __low2float(v) + __bfloat162float(__float2bfloat16_rn(f[i]));
}
#endif
