// CUDA math library calls as runtime-compiled code uses them; NVRTC links libdevice in, so the
// PTX holds the inlined implementations (single and double precision, intrinsics, integer).
// nvrtc-options: -default-device
extern "C" __global__ void math_f32(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], s, c;
  sincospif(v, &s, &c);
  y[i] = sinf(v) + cosf(v) * expf(v) - logf(fabsf(v) + 1.f) + powf(fabsf(v), 1.7f) + erfcinvf(0.3f + 0.01f * s)
       + lgammaf(v) + tgammaf(c) + rsqrtf(fabsf(v) + 1.f) + cbrtf(v) + atan2f(v, c) + normcdfinvf(0.25f)
       + norm3df(v, s, c) + fmaf(v, s, c) + j0f(v) + cyl_bessel_i0f(v) + remainderf(v, 0.7f) + hypotf(s, c)
       + __expf(v) + __logf(fabsf(v) + 1.f) + __sinf(v) + __fdividef(s, c + 2.f) + __saturatef(v)
       + __fmul_rn(v, v) + __fadd_rz(v, s) + __frcp_rd(c + 3.f) + __fsqrt_ru(fabsf(v)) + truncf(v) + rintf(v);
}

extern "C" __global__ void math_f64(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i], s, c;
  sincos(v, &s, &c);
  y[i] = exp(v) + log1p(fabs(v)) + pow(v, 3.0) + erf(v) + erfc(v) + tgamma(v) + asinh(v) + acosh(fabs(v) + 1.0)
       + fmod(v, 1.3) + ldexp(v, 3) + scalbn(v, -2) + nextafter(v, 0.0) + rhypot(s, c) + cospi(v) + y1(v)
       + __dadd_rn(v, s) + __dmul_rz(v, c) + __drcp_rn(c + 2.0) + __dsqrt_rd(fabs(v)) + __fma_ru(v, s, c);
}

// Integer intrinsics; no __device__ needed under -default-device.
unsigned mix(unsigned a, unsigned b) {
  return __byte_perm(a, b, 0x5140) ^ __funnelshift_l(a, b, 7) ^ __brev(a) ^ __popc(b) ^ __clz(a) ^ __ffs(b)
         ^ __sad(a, b, 3u) ^ __usad(a, b, 1u) ^ __umulhi(a, b) ^ __vabsdiffu4(a, b) ^ __vadd2(a, b) ^ __dp4a(a, b, 1u);
}
extern "C" __global__ void int_intrinsics(const unsigned* a, unsigned long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long w = (unsigned long long)a[i] << 32 | a[(i + 1) % n];
  out[i] = mix(a[i], a[(i + 1) % n]) + __umul64hi(w, 0x9E3779B97F4A7C15ull) + __popcll(w) + __clzll(w)
         + __brevll(w) + (unsigned long long)__mul24(a[i], 3) + __double_as_longlong(__longlong_as_double(w))
         + __float_as_uint(__uint_as_float(a[i])) + __float2int_rn(__int2float_rz(a[i]));
}
