// Half precision (binary16) and bfloat16: conversions in the four rounding modes, arithmetic,
// fused multiply-add, division, comparisons, min/max with NaN and signed zeros, and half2 /
// bfloat162 lanes, checked against a host implementation of the formats written here from their
// definitions (IEEE 754 binary16; bfloat16 = the top 16 bits of binary32): exact integer
// arithmetic followed by one rounding. NaN results are checked as NaN (any payload).
#include "check.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <cstring>
#include <vector>

constexpr int N = 8192;
constexpr int R = 40;  // 16-bit results per input triple

__host__ __device__ unsigned hash32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}

__device__ unsigned short hb(__half h) { return __half_as_ushort(h); }
__device__ unsigned short bb(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }

__global__ void convert(const float* f, unsigned short* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = f[i];
  unsigned short* o = out + i * 8;
  o[0] = hb(__float2half_rn(x)); o[1] = hb(__float2half_rz(x));
  o[2] = hb(__float2half_rd(x)); o[3] = hb(__float2half_ru(x));
  o[4] = bb(__float2bfloat16_rn(x)); o[5] = bb(__float2bfloat16_rz(x));
  o[6] = bb(__float2bfloat16_rd(x)); o[7] = bb(__float2bfloat16_ru(x));
}

__global__ void widen(unsigned* hf, unsigned* bf) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  hf[i] = __float_as_uint(__half2float(__ushort_as_half((unsigned short)i)));
  bf[i] = __float_as_uint(__bfloat162float(__ushort_as_bfloat16((unsigned short)i)));
}

__global__ void arith(const unsigned short* in, unsigned short* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned short* v = in + i * 6;
  __half a = __ushort_as_half(v[0]), b = __ushort_as_half(v[1]), c = __ushort_as_half(v[2]);
  __nv_bfloat16 x = __ushort_as_bfloat16(v[3]), y = __ushort_as_bfloat16(v[4]), z = __ushort_as_bfloat16(v[5]);
  unsigned short* o = out + i * R;
  int k = 0;
  o[k++] = hb(__hadd(a, b)); o[k++] = hb(__hsub(a, b)); o[k++] = hb(__hmul(a, b));
  o[k++] = hb(__hfma(a, b, c)); o[k++] = hb(__hdiv(a, b)); o[k++] = hb(__hneg(a)); o[k++] = hb(__habs(a));
  o[k++] = __heq(a, b) | __hne(a, b) << 1 | __hlt(a, b) << 2 | __hle(a, b) << 3 | __hgt(a, b) << 4 |
           __hge(a, b) << 5 | __hequ(a, b) << 6 | __hneu(a, b) << 7 | __hltu(a, b) << 8 | __hisnan(a) << 9;
  o[k++] = hb(__hmax(a, b)); o[k++] = hb(__hmin(a, b)); o[k++] = hb(__hmax_nan(a, b)); o[k++] = hb(__hmin_nan(a, b));
  __half2 p = __halves2half2(a, c), q = __halves2half2(b, a), r = __halves2half2(c, b);
  __half2 s = __hadd2(p, q), m = __hmul2(p, q), f = __hfma2(p, q, r), mn = __hmin2(p, q);
  o[k++] = hb(__low2half(s)); o[k++] = hb(__high2half(s));
  o[k++] = hb(__low2half(m)); o[k++] = hb(__high2half(m));
  o[k++] = hb(__low2half(f)); o[k++] = hb(__high2half(f));
  o[k++] = hb(__low2half(mn)); o[k++] = hb(__high2half(mn));
  o[k++] = bb(__hadd(x, y)); o[k++] = bb(__hsub(x, y)); o[k++] = bb(__hmul(x, y));
  o[k++] = bb(__hfma(x, y, z)); o[k++] = bb(__hdiv(x, y)); o[k++] = bb(__hneg(x)); o[k++] = bb(__habs(x));
  o[k++] = __heq(x, y) | __hne(x, y) << 1 | __hlt(x, y) << 2 | __hle(x, y) << 3 | __hgt(x, y) << 4 |
           __hge(x, y) << 5 | __hequ(x, y) << 6 | __hneu(x, y) << 7 | __hltu(x, y) << 8 | __hisnan(x) << 9;
  o[k++] = bb(__hmax(x, y)); o[k++] = bb(__hmin(x, y)); o[k++] = bb(__hmax_nan(x, y)); o[k++] = bb(__hmin_nan(x, y));
  __nv_bfloat162 bp = __halves2bfloat162(x, z), bq = __halves2bfloat162(y, x), br = __halves2bfloat162(z, y);
  __nv_bfloat162 bs = __hadd2(bp, bq), bm = __hmul2(bp, bq), bf = __hfma2(bp, bq, br);
  o[k++] = bb(__low2bfloat16(bs)); o[k++] = bb(__high2bfloat16(bs));
  o[k++] = bb(__low2bfloat16(bm)); o[k++] = bb(__high2bfloat16(bm));
  o[k++] = bb(__low2bfloat16(bf)); o[k++] = bb(__high2bfloat16(bf));
  o[k++] = k;
}

// ---------------- host model of the formats ----------------
typedef unsigned __int128 u128;
typedef __int128 i128;
struct Fmt { int p, emin, emax, ebits; };
static const Fmt HALF = {11, -14, 15, 5}, BF16 = {8, -126, 127, 8}, F32 = {24, -126, 127, 8};
enum Mode { RN, RZ, RD, RU };
struct V { bool sign; int kind; u128 m; int e; };  // kind 0 finite, 1 inf, 2 nan; value m * 2^e

static V decode(uint32_t bits, Fmt f) {
  int w = f.p - 1 + f.ebits;  // sign bit position
  V v;
  v.sign = (bits >> w) & 1;
  uint32_t ex = (bits >> (f.p - 1)) & ((1u << f.ebits) - 1), fr = bits & ((1u << (f.p - 1)) - 1);
  if (ex == (1u << f.ebits) - 1) { v.kind = fr ? 2 : 1; v.m = 0; v.e = 0; return v; }
  v.kind = 0;
  if (ex == 0) { v.m = fr; v.e = f.emin - (f.p - 1); }
  else { v.m = fr | (1u << (f.p - 1)); v.e = (int)ex - f.emax - (f.p - 1); }
  return v;
}
static uint32_t inf_bits(bool s, Fmt f) { return (uint32_t)s << (f.p - 1 + f.ebits) | ((1u << f.ebits) - 1) << (f.p - 1); }
static const uint32_t NAN_MARK = 0xffffffffu;  // "any NaN"
static int bitlen(u128 x) { int n = 0; while (x) { n++; x >>= 1; } return n; }

// Rounds sign * (mag + sticky epsilon) * 2^exp to the format.
static uint32_t round_to(bool sign, u128 mag, int exp, bool sticky, Fmt f, Mode mode) {
  uint32_t sbit = (uint32_t)sign << (f.p - 1 + f.ebits);
  if (mag == 0) return sbit;
  int E = exp + bitlen(mag) - 1;
  int lsb = E - (f.p - 1);
  if (lsb < f.emin - (f.p - 1)) lsb = f.emin - (f.p - 1);
  int shift = lsb - exp;
  u128 m;
  bool half = false, rest = sticky;
  if (shift <= 0) {
    m = mag << -shift;
  } else if (shift > 120) {
    m = 0; rest = true;
  } else {
    m = mag >> shift;
    half = (mag >> (shift - 1)) & 1;
    rest = rest || (mag & (((u128)1 << (shift - 1)) - 1)) != 0;
  }
  bool up = false;
  switch (mode) {
    case RN: up = half && (rest || (m & 1)); break;
    case RZ: up = false; break;
    case RU: up = (half || rest) && !sign; break;
    case RD: up = (half || rest) && sign; break;
  }
  m += up;
  if (m == ((u128)1 << f.p)) { m >>= 1; lsb++; }
  if (m == 0) return sbit;
  if (m >= ((u128)1 << (f.p - 1))) {
    int Eo = lsb + f.p - 1;
    if (Eo > f.emax) {
      bool to_inf = mode == RN || (mode == RU && !sign) || (mode == RD && sign);
      if (to_inf) return inf_bits(sign, f);
      return sbit | (((1u << f.ebits) - 2) << (f.p - 1)) | ((1u << (f.p - 1)) - 1);
    }
    return sbit | (uint32_t)(Eo + f.emax) << (f.p - 1) | (uint32_t)(m - ((u128)1 << (f.p - 1)));
  }
  return sbit | (uint32_t)m;  // subnormal
}

// Exact a + b (b may be an unrounded product), rounded once.
static uint32_t add_exact(V a, V b, Fmt f) {
  if (a.kind == 2 || b.kind == 2) return NAN_MARK;
  if (a.kind == 1 || b.kind == 1) {
    if (a.kind == 1 && b.kind == 1 && a.sign != b.sign) return NAN_MARK;
    return inf_bits(a.kind == 1 ? a.sign : b.sign, f);
  }
  if (a.m == 0 && b.m == 0) return round_to(a.sign && b.sign, 0, 0, false, f, RN);
  if (a.m == 0) return round_to(b.sign, b.m, b.e, false, f, RN);
  if (b.m == 0) return round_to(a.sign, a.m, a.e, false, f, RN);
  int ha = a.e + bitlen(a.m), hb2 = b.e + bitlen(b.m);
  // An operand far below the other only acts as a sticky bit: replace it by a tiny value.
  if (ha - hb2 > 60) { b.m = 1; b.e = ha - 61; }
  if (hb2 - ha > 60) { a.m = 1; a.e = hb2 - 61; }
  int e = a.e < b.e ? a.e : b.e;
  i128 sa = (i128)(a.m << (a.e - e)), sb = (i128)(b.m << (b.e - e));
  i128 s = (a.sign ? -sa : sa) + (b.sign ? -sb : sb);
  if (s == 0) return round_to(false, 0, 0, false, f, RN);
  return round_to(s < 0, (u128)(s < 0 ? -s : s), e, false, f, RN);
}
static V product(V a, V b) {
  V p;
  p.sign = a.sign != b.sign;
  if (a.kind == 2 || b.kind == 2 || (a.kind == 1 && b.kind == 0 && b.m == 0) ||
      (b.kind == 1 && a.kind == 0 && a.m == 0)) { p.kind = 2; p.m = 0; p.e = 0; return p; }
  if (a.kind == 1 || b.kind == 1) { p.kind = 1; p.m = 0; p.e = 0; return p; }
  p.kind = 0; p.m = a.m * b.m; p.e = a.e + b.e;
  return p;
}
static uint32_t mul_rn(V a, V b, Fmt f) {
  V p = product(a, b);
  if (p.kind == 2) return NAN_MARK;
  if (p.kind == 1) return inf_bits(p.sign, f);
  return round_to(p.sign, p.m, p.e, false, f, RN);
}
static uint32_t fma_rn(V a, V b, V c, Fmt f) {
  V p = product(a, b);
  if (p.kind == 2) return NAN_MARK;
  return add_exact(p, c, f);
}
static uint32_t div_rn(V a, V b, Fmt f) {
  bool s = a.sign != b.sign;
  if (a.kind == 2 || b.kind == 2) return NAN_MARK;
  if (a.kind == 1) return b.kind == 1 ? NAN_MARK : inf_bits(s, f);
  if (b.kind == 1) return round_to(s, 0, 0, false, f, RN);
  if (b.m == 0) return a.m == 0 ? NAN_MARK : inf_bits(s, f);
  if (a.m == 0) return round_to(s, 0, 0, false, f, RN);
  u128 num = a.m << 64;
  return round_to(s, num / b.m, a.e - b.e - 64, num % b.m != 0, f, RN);
}
static bool isnan_v(V v) { return v.kind == 2; }
static double value(V v) { return v.kind == 2 ? NAN : v.kind == 1 ? (v.sign ? -INFINITY : INFINITY) : (v.sign ? -1.0 : 1.0) * ldexp((double)v.m, v.e); }
static unsigned compares(V a, V b) {
  double x = value(a), y = value(b);
  bool un = isnan_v(a) || isnan_v(b);
  return (x == y) | (!un && x != y) << 1 | (x < y) << 2 | (x <= y) << 3 | (x > y) << 4 | (x >= y) << 5 |
         (un || x == y) << 6 | (un || x != y) << 7 | (un || x < y) << 8 | (unsigned)isnan_v(a) << 9;
}
// __hmax / __hmin: a NaN operand yields the other; +0 > -0. The _nan forms propagate NaN.
static uint32_t maxmin(uint32_t ab, uint32_t bb2, Fmt f, bool is_max, bool nan_prop) {
  V a = decode(ab, f), b = decode(bb2, f);
  if (isnan_v(a) && isnan_v(b)) return NAN_MARK;
  if (isnan_v(a) || isnan_v(b)) return nan_prop ? NAN_MARK : (isnan_v(a) ? bb2 : ab);
  double x = value(a), y = value(b);
  if (x == y) {  // equal values: only zeros of different signs differ
    if (x == 0 && a.sign != b.sign) return is_max ? (a.sign ? bb2 : ab) : (a.sign ? ab : bb2);
    return ab;
  }
  return (is_max ? x > y : x < y) ? ab : bb2;
}
static uint32_t neg(uint32_t b, Fmt f) { return b ^ (1u << (f.p - 1 + f.ebits)); }
static uint32_t absb(uint32_t b, Fmt f) { return b & ~(1u << (f.p - 1 + f.ebits)); }

static std::vector<uint32_t> expected(const unsigned short* v) {
  std::vector<uint32_t> e;
  for (int which = 0; which < 2; which++) {
    Fmt f = which ? BF16 : HALF;
    uint32_t ab = v[3 * which], b2 = v[3 * which + 1], cb = v[3 * which + 2];
    V a = decode(ab, f), b = decode(b2, f), c = decode(cb, f);
    V nb = b; nb.sign = !nb.sign;
    e.push_back(add_exact(a, b, f)); e.push_back(add_exact(a, nb, f)); e.push_back(mul_rn(a, b, f));
    e.push_back(fma_rn(a, b, c, f)); e.push_back(div_rn(a, b, f) | 0x10000u /* within 1 ulp */);
    e.push_back(neg(ab, f)); e.push_back(absb(ab, f));
    e.push_back(compares(a, b) | 0x20000u /* exact, not a float */);
    e.push_back(maxmin(ab, b2, f, true, false)); e.push_back(maxmin(ab, b2, f, false, false));
    e.push_back(maxmin(ab, b2, f, true, true)); e.push_back(maxmin(ab, b2, f, false, true));
    // pairs: (a, c) op (b, a), fma with (c, b)
    e.push_back(add_exact(a, b, f)); e.push_back(add_exact(c, a, f));
    e.push_back(mul_rn(a, b, f)); e.push_back(mul_rn(c, a, f));
    e.push_back(fma_rn(a, b, c, f)); e.push_back(fma_rn(c, a, b, f));
    if (!which) { e.push_back(maxmin(ab, b2, f, false, false)); e.push_back(maxmin(cb, ab, f, false, false)); }
  }
  return e;
}

static float bits2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

int main() {
  int bad = 0;
  auto report = [&](const char* what, int i, uint32_t got, uint32_t want, const char* detail) {
    if (bad++ < 40) fprintf(stderr, "%s #%d: got %04x want %04x%s (%s)\n", what, i, got, want & 0xffff,
                            want == NAN_MARK ? " (NaN)" : "", detail);
  };
  // ---- conversions from float
  std::vector<float> fl(N);
  const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 65504.0f, 65519.99f, 65520.0f,
                           -65520.0f, 65536.0f, 1e10f, 0x1p-14f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-26f,
                           -0x1p-25f, 0x1.8p-24f, 0x1.004p0f, 0x1.006p0f, 0x1.002p0f, 0x1.0101p0f, 0x1.018p0f,
                           0x1.fffffep127f, -0x1.fffffep127f, 0x1p-126f, 0x1p-149f, -0x1p-149f, 0x1.ff8p15f,
                           0x1.ffcp15f, 0x1.fep127f, 0x1.ff8p127f, 3.0e-39f};
  const int NS = sizeof special / sizeof special[0];
  for (int i = 0; i < N; i++) {
    unsigned h = hash32(i);
    if (i < NS) fl[i] = special[i];
    else if (i % 3 == 0) fl[i] = bits2f(h);  // any bit pattern
    else if (i % 3 == 1) fl[i] = ldexpf((float)(h & 0xffffff) / 16777216.0f + 1.0f, (int)(h >> 24) % 48 - 30) * ((h & 1) ? -1.f : 1.f);
    else fl[i] = bits2f((h & 0x807fe000u) | ((uint32_t)(100 + (h >> 26) % 50) << 23) | ((h >> 4) & 0x1000));  // ties
  }
  float* dfl; unsigned short* dconv;
  CHECK(cudaMalloc(&dfl, N * 4)); CHECK(cudaMalloc(&dconv, N * 16));
  CHECK(cudaMemcpy(dfl, fl.data(), N * 4, cudaMemcpyHostToDevice));
  convert<<<N / 128, 128>>>(dfl, dconv);
  CHECK(cudaGetLastError());
  std::vector<unsigned short> conv(N * 8);
  CHECK(cudaMemcpy(conv.data(), dconv, N * 16, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) {
    V x = decode(f2bits(fl[i]), F32);
    for (int j = 0; j < 8; j++) {
      Fmt f = j < 4 ? HALF : BF16;
      uint32_t want = x.kind == 2 ? NAN_MARK : x.kind == 1 ? inf_bits(x.sign, f) : round_to(x.sign, x.m, x.e, false, f, (Mode)(j % 4));
      uint32_t got = conv[i * 8 + j];
      bool ok = want == NAN_MARK ? isnan_v(decode(got, f)) : got == want;
      if (!ok) {
        char d[64]; snprintf(d, sizeof d, "%s mode %d of %a", j < 4 ? "half" : "bf16", j % 4, fl[i]);
        report("conversion", i, got, want, d);
      }
    }
  }
  // ---- widening, exhaustive
  unsigned *dhf, *dbf;
  CHECK(cudaMalloc(&dhf, 65536 * 4)); CHECK(cudaMalloc(&dbf, 65536 * 4));
  widen<<<512, 128>>>(dhf, dbf);
  CHECK(cudaGetLastError());
  std::vector<unsigned> hf(65536), bf(65536);
  CHECK(cudaMemcpy(hf.data(), dhf, 65536 * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(bf.data(), dbf, 65536 * 4, cudaMemcpyDeviceToHost));
  for (unsigned i = 0; i < 65536; i++) {
    V h = decode(i, HALF);
    uint32_t wh = h.kind == 2 ? NAN_MARK : h.kind == 1 ? inf_bits(h.sign, F32) : round_to(h.sign, h.m, h.e, false, F32, RN);
    if (wh == NAN_MARK ? !std::isnan(bits2f(hf[i])) : hf[i] != wh) report("half2float", i, hf[i], wh, "exact");
    uint32_t wb = i << 16;  // bfloat16 is the top half of binary32
    if (((i >> 7) & 0xff) == 0xff && (i & 0x7f) ? !std::isnan(bits2f(bf[i])) : bf[i] != wb) report("bfloat162float", i, bf[i], wb, "exact");
  }
  // ---- arithmetic
  std::vector<unsigned short> in(N * 6);
  const unsigned short hs[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x3c00, 0xbc00, 0x7bff, 0x0001, 0x8001, 0x0400, 0x3555, 0x4000};
  const unsigned short bs[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x3f80, 0xbf80, 0x7f7f, 0x0001, 0x8001, 0x0080, 0x3eab, 0x4000};
  const int NH = sizeof hs / sizeof hs[0];
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < 6; j++) {
      unsigned h = hash32(i * 6 + j + 77);
      unsigned short v = (unsigned short)h;
      if (j % 3 == 2 && i % 4 == 0) v = (in[i * 6 + j - 2] ^ 0x8000) + (h >> 20) % 3;  // near-cancelling addend
      if (i % 4 == 1) {  // moderate exponents: results mostly normal
        unsigned e = j < 3 ? 10 + (h >> 16) % 12 : 120 + (h >> 16) % 16;
        v = j < 3 ? (unsigned short)((v & 0x83ff) | e << 10) : (unsigned short)((v & 0x807f) | e << 7);
      }
      in[i * 6 + j] = v;
    }
    if (i < NH * NH) {  // all pairs of special values
      in[i * 6] = hs[i / NH]; in[i * 6 + 1] = hs[i % NH];
      in[i * 6 + 3] = bs[i / NH]; in[i * 6 + 4] = bs[i % NH];
    }
  }
  unsigned short *din, *dout;
  CHECK(cudaMalloc(&din, N * 12)); CHECK(cudaMalloc(&dout, N * R * 2));
  CHECK(cudaMemcpy(din, in.data(), N * 12, cudaMemcpyHostToDevice));
  arith<<<N / 128, 128>>>(din, dout);
  CHECK(cudaGetLastError());
  std::vector<unsigned short> out(N * R);
  CHECK(cudaMemcpy(out.data(), dout, N * R * 2, cudaMemcpyDeviceToHost));
  const char* names[] = {"hadd", "hsub", "hmul", "hfma", "hdiv", "hneg", "habs", "compare", "hmax", "hmin",
                         "hmax_nan", "hmin_nan", "hadd2.x", "hadd2.y", "hmul2.x", "hmul2.y", "hfma2.x",
                         "hfma2.y", "hmin2.x", "hmin2.y"};
  size_t count = 0;
  for (int i = 0; i < N; i++) {
    std::vector<uint32_t> e = expected(&in[i * 6]);
    count = e.size();
    for (size_t j = 0; j < e.size(); j++) {
      uint32_t got = out[i * R + j], want = e[j];
      bool b16 = j >= 20;
      Fmt f = b16 ? BF16 : HALF;
      bool ok;
      if (want == NAN_MARK) ok = isnan_v(decode(got, f));
      else if (want & 0x20000u) ok = got == (want & 0xffff);
      else if (want & 0x10000u) {  // division: rcp.approx then multiply, within 1 ulp
        want &= 0xffff;
        if (want == NAN_MARK) ok = isnan_v(decode(got, f));
        else {
          V gw = decode(got, f), ww = decode(want, f);
          long dist = (long)((got & 0x7fff) - (want & 0x7fff));
          ok = got == want || (gw.sign == ww.sign && gw.kind != 2 && dist >= -1 && dist <= 1);
        }
      } else ok = got == want;
      if (!ok) {
        char d[96];
        snprintf(d, sizeof d, "%s %s of %04x %04x %04x", b16 ? "bf16" : "half", names[b16 ? (j - 20 < 18 ? j - 20 : 0) : j],
                 in[i * 6 + (b16 ? 3 : 0)], in[i * 6 + (b16 ? 4 : 1)], in[i * 6 + (b16 ? 5 : 2)]);
        report("arith", i, got, want, d);
      }
    }
  }
  if (bad) {
    printf("FAIL isa_half: %d results wrong\n", bad);
    return 1;
  }
  printf("PASS isa_half: %d conversions x 8 modes, 65536 x 2 widenings, %d x %zu operations\n", N, N, count);
  return 0;
}
