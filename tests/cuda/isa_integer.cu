// Integer intrinsics checked against their definitions (CUDA Math API, PTX ISA) computed on the
// host: bit counts and scans, byte permutes, funnel shifts, high multiplies, 24-bit multiplies,
// sums of absolute differences, dot products, SIMD-within-a-word operations, halving adds,
// 128-bit carries and division by constants and variables. Division by zero and INT_MIN / -1
// are unspecified by the PTX ISA ("an unspecified, machine-specific value"): the program only
// requires them to run without a fault, and prints what they gave.
#include "check.h"
#include <climits>
#include <cstdint>
#include <vector>

#ifdef VIDEO_SIMD
constexpr int K = 75;  // results per thread: 72 plus the three SIMD video ones
#else
constexpr int K = 72;  // results per thread
#endif

__host__ __device__ unsigned hash32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}

__global__ void ints(const unsigned* A, const unsigned* B, const unsigned* C, unsigned long long* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned a = A[t], b = B[t], c = C[t];
  int sa = (int)a, sb = (int)b, sc = (int)c;
  unsigned long long la = ((unsigned long long)a << 32) | b, lb = ((unsigned long long)c << 32) | a;
  unsigned long long* o = out + (size_t)t * K;
  int k = 0;
  o[k++] = __popc(a); o[k++] = __popcll(la);
  o[k++] = __clz(sa); o[k++] = __clzll((long long)la);
  o[k++] = __ffs(sa); o[k++] = __ffsll((long long)la);
  o[k++] = __brev(a); o[k++] = __brevll(la);
  o[k++] = __byte_perm(a, b, c); o[k++] = __byte_perm(a, b, 0x3210); o[k++] = __byte_perm(a, b, 0x7531);
  o[k++] = __funnelshift_l(a, b, c); o[k++] = __funnelshift_r(a, b, c);
  o[k++] = __funnelshift_lc(a, b, c % 64); o[k++] = __funnelshift_rc(a, b, c % 64);
  o[k++] = (unsigned)__mulhi(sa, sb); o[k++] = __umulhi(a, b);
  o[k++] = (unsigned long long)__mul64hi((long long)la, (long long)lb); o[k++] = __umul64hi(la, lb);
  o[k++] = (unsigned)__mul24(sa, sb); o[k++] = __umul24(a, b);
  o[k++] = __sad(sa, sb, c); o[k++] = __usad(a, b, c);
  o[k++] = (unsigned)__dp4a(sa, sb, sc); o[k++] = __dp4a(a, b, c);
  o[k++] = (unsigned)__dp2a_lo(sa, sb, sc); o[k++] = (unsigned)__dp2a_hi(sa, sb, sc);
  o[k++] = __dp2a_lo(a, b, c); o[k++] = __dp2a_hi(a, b, c);
  o[k++] = __vadd2(a, b); o[k++] = __vadd4(a, b); o[k++] = __vsub2(a, b); o[k++] = __vsub4(a, b);
  o[k++] = __vaddss2(a, b); o[k++] = __vaddus4(a, b); o[k++] = __vsubus2(a, b);
#ifdef VIDEO_SIMD  // these two compile to the SIMD video instruction vabsdiff4
  o[k++] = __vabsdiffu4(a, b); o[k++] = __vsadu4(a, b); o[k++] = __vabsdiffs4(a, b);
#endif
  o[k++] = __vabsdiffu2(a, b);
  o[k++] = __vavgu4(a, b); o[k++] = __vhaddu2(a, b);
  o[k++] = __vcmpeq4(a, c); o[k++] = __vcmpgtu2(a, b); o[k++] = __vcmplts4(a, b);
  o[k++] = __vmaxs2(a, b); o[k++] = __vminu4(a, b); o[k++] = __vsads2(a, b);
  o[k++] = __vneg2(a); o[k++] = __vsetgeu4(a, b);
  o[k++] = (unsigned)__hadd(sa, sb); o[k++] = (unsigned)__rhadd(sa, sb);
  o[k++] = __uhadd(a, b); o[k++] = __urhadd(a, b);
  // 256-bit add from 64-bit limbs with carries, and a 128-bit multiply
  unsigned long long x[4] = {la, lb, ~la, (unsigned long long)c}, y[4] = {lb, ~0ull, la, ~lb}, z[4];
  unsigned long long carry = 0;
  for (int i = 0; i < 4; i++) {
    unsigned long long s = x[i] + y[i];
    unsigned long long c1 = s < x[i];
    z[i] = s + carry;
    carry = c1 | (z[i] < s);
  }
  o[k++] = z[0]; o[k++] = z[1]; o[k++] = z[2]; o[k++] = z[3] ^ (carry << 63);
  unsigned __int128 p = (unsigned __int128)la * lb + x[2];
  o[k++] = (unsigned long long)p; o[k++] = (unsigned long long)(p >> 64);
  __int128 q = (__int128)(long long)la * (long long)lb - (__int128)(long long)c;
  o[k++] = (unsigned long long)q; o[k++] = (unsigned long long)(q >> 64);
  // division by constants and by variables (b | 1 is never zero; sb | 1 may be -1)
  o[k++] = a / 7; o[k++] = (unsigned)(sa / -7); o[k++] = (unsigned)(sa % 10); o[k++] = la / 1000003ull;
  o[k++] = a / (b | 1); o[k++] = a % (b | 1);
  int d = sb | 1;
  bool overflow = sa == INT_MIN && d == -1;
  o[k++] = overflow ? 0 : (unsigned)(sa / d);
  o[k++] = overflow ? 0 : (unsigned)(sa % d);
  long long ld = (long long)lb | 1;
  bool overflow64 = (long long)la == LLONG_MIN && ld == -1;
  o[k++] = overflow64 ? 0 : (unsigned long long)((long long)la / ld);
  o[k++] = overflow64 ? 0 : (unsigned long long)((long long)la % ld);
  o[k++] = k;
}

// Division by zero and INT_MIN / -1: unspecified values, but the kernel must complete.
__global__ void unspecified(const int* in, int* out) {
  out[0] = in[0] / in[1];  // INT_MIN / -1
  out[1] = in[0] % in[1];
  out[2] = in[2] / in[3];  // 5 / 0
  out[3] = in[2] % in[3];
  out[4] = (unsigned)in[2] / (unsigned)in[3];
  long long a = LLONG_MIN, m = in[1];
  out[5] = (int)(a / m) ^ (int)((a / m) >> 32);
}

// ---------------- host definitions ----------------
static unsigned popc(unsigned long long x) { unsigned n = 0; while (x) { n += x & 1; x >>= 1; } return n; }
static unsigned clz(unsigned long long x, int bits) { int n = 0; for (int i = bits - 1; i >= 0 && !((x >> i) & 1); i--) n++; return n; }
static unsigned ffs(unsigned long long x, int bits) { for (int i = 0; i < bits; i++) if ((x >> i) & 1) return i + 1; return 0; }
static unsigned long long brev(unsigned long long x, int bits) {
  unsigned long long r = 0;
  for (int i = 0; i < bits; i++) if ((x >> i) & 1) r |= 1ull << (bits - 1 - i);
  return r;
}
static unsigned byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int n = 0; n < 4; n++) r |= (unsigned)((v >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
  return r;
}
static unsigned fsl(unsigned lo, unsigned hi, unsigned sh) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << sh) >> 32);
}
static unsigned fsr(unsigned lo, unsigned hi, unsigned sh) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> sh);
}
static long long sext24(unsigned x) { return (long long)((int)(x << 8) >> 8); }
static int sbyte(unsigned x, int i) { return (signed char)(x >> (8 * i)); }
static unsigned ubyte(unsigned x, int i) { return (x >> (8 * i)) & 0xff; }
static int shalf(unsigned x, int i) { return (short)(x >> (16 * i)); }
static unsigned uhalf(unsigned x, int i) { return (x >> (16 * i)) & 0xffff; }
template <class F> static unsigned per_byte(unsigned a, unsigned b, F f) {
  unsigned r = 0;
  for (int i = 0; i < 4; i++) r |= (f(i) & 0xffu) << (8 * i);
  (void)a; (void)b;
  return r;
}
template <class F> static unsigned per_half(F f) {
  unsigned r = 0;
  for (int i = 0; i < 2; i++) r |= (f(i) & 0xffffu) << (16 * i);
  return r;
}
static long long clampll(long long v, long long lo, long long hi) { return v < lo ? lo : v > hi ? hi : v; }

static std::vector<unsigned long long> expected(unsigned a, unsigned b, unsigned c) {
  int sa = (int)a, sb = (int)b, sc = (int)c;
  unsigned long long la = ((unsigned long long)a << 32) | b, lb = ((unsigned long long)c << 32) | a;
  std::vector<unsigned long long> e;
  e.push_back(popc(a)); e.push_back(popc(la));
  e.push_back(clz(a, 32)); e.push_back(clz(la, 64));
  e.push_back(ffs(a, 32)); e.push_back(ffs(la, 64));
  e.push_back(brev(a, 32)); e.push_back(brev(la, 64));
  e.push_back(byte_perm(a, b, c)); e.push_back(byte_perm(a, b, 0x3210)); e.push_back(byte_perm(a, b, 0x7531));
  e.push_back(fsl(a, b, c & 31)); e.push_back(fsr(a, b, c & 31));
  e.push_back(fsl(a, b, c % 64 < 32 ? c % 64 : 32)); e.push_back(fsr(a, b, c % 64 < 32 ? c % 64 : 32));
  e.push_back((unsigned)(((long long)sa * sb) >> 32)); e.push_back((unsigned)(((unsigned long long)a * b) >> 32));
  e.push_back((unsigned long long)(((__int128)(long long)la * (long long)lb) >> 64));
  e.push_back((unsigned long long)(((unsigned __int128)la * lb) >> 64));
  e.push_back((unsigned)(sext24(a) * sext24(b))); e.push_back((unsigned)((unsigned long long)(a & 0xffffff) * (b & 0xffffff)));
  e.push_back((unsigned)(c + (unsigned)(sa < sb ? (long long)sb - sa : (long long)sa - sb)));
  e.push_back(c + (a < b ? b - a : a - b));
  long long d4 = sc, u4 = c;
  for (int i = 0; i < 4; i++) { d4 += (long long)sbyte(a, i) * sbyte(b, i); u4 += (unsigned long long)ubyte(a, i) * ubyte(b, i); }
  e.push_back((unsigned)d4); e.push_back((unsigned)u4);
  long long lo = sc, hi = sc, ulo = c, uhi = c;
  for (int i = 0; i < 2; i++) {
    lo += (long long)shalf(a, i) * sbyte(b, i); hi += (long long)shalf(a, i) * sbyte(b, i + 2);
    ulo += (long long)uhalf(a, i) * ubyte(b, i); uhi += (long long)uhalf(a, i) * ubyte(b, i + 2);
  }
  e.push_back((unsigned)lo); e.push_back((unsigned)hi); e.push_back((unsigned)ulo); e.push_back((unsigned)uhi);
  e.push_back(per_half([&](int i) { return uhalf(a, i) + uhalf(b, i); }));
  e.push_back(per_byte(a, b, [&](int i) { return ubyte(a, i) + ubyte(b, i); }));
  e.push_back(per_half([&](int i) { return uhalf(a, i) - uhalf(b, i); }));
  e.push_back(per_byte(a, b, [&](int i) { return ubyte(a, i) - ubyte(b, i); }));
  e.push_back(per_half([&](int i) { return (unsigned)clampll((long long)shalf(a, i) + shalf(b, i), -32768, 32767); }));
  e.push_back(per_byte(a, b, [&](int i) { return (unsigned)clampll((long long)ubyte(a, i) + ubyte(b, i), 0, 255); }));
  e.push_back(per_half([&](int i) { return (unsigned)clampll((long long)uhalf(a, i) - uhalf(b, i), 0, 65535); }));
  unsigned sadu = 0, sads = 0;
  for (int i = 0; i < 4; i++) sadu += ubyte(a, i) > ubyte(b, i) ? ubyte(a, i) - ubyte(b, i) : ubyte(b, i) - ubyte(a, i);
  for (int i = 0; i < 2; i++) { int d = shalf(a, i) - shalf(b, i); sads += d < 0 ? -d : d; }
#ifdef VIDEO_SIMD
  e.push_back(per_byte(a, b, [&](int i) { return ubyte(a, i) > ubyte(b, i) ? ubyte(a, i) - ubyte(b, i) : ubyte(b, i) - ubyte(a, i); }));
  e.push_back(sadu);
  e.push_back(per_byte(a, b, [&](int i) { int d = sbyte(a, i) - sbyte(b, i); return (unsigned)(d < 0 ? -d : d); }));
#endif
  e.push_back(per_half([&](int i) { return uhalf(a, i) > uhalf(b, i) ? uhalf(a, i) - uhalf(b, i) : uhalf(b, i) - uhalf(a, i); }));
  e.push_back(per_byte(a, b, [&](int i) { return (ubyte(a, i) + ubyte(b, i) + 1) >> 1; }));
  e.push_back(per_half([&](int i) { return (uhalf(a, i) + uhalf(b, i)) >> 1; }));
  e.push_back(per_byte(a, c, [&](int i) { return ubyte(a, i) == ubyte(c, i) ? 0xffu : 0u; }));
  e.push_back(per_half([&](int i) { return uhalf(a, i) > uhalf(b, i) ? 0xffffu : 0u; }));
  e.push_back(per_byte(a, b, [&](int i) { return sbyte(a, i) < sbyte(b, i) ? 0xffu : 0u; }));
  e.push_back(per_half([&](int i) { return (unsigned)(shalf(a, i) > shalf(b, i) ? shalf(a, i) : shalf(b, i)); }));
  e.push_back(per_byte(a, b, [&](int i) { return ubyte(a, i) < ubyte(b, i) ? ubyte(a, i) : ubyte(b, i); }));
  e.push_back(sads);
  e.push_back(per_half([&](int i) { return (unsigned)(-shalf(a, i)); }));
  e.push_back(per_byte(a, b, [&](int i) { return ubyte(a, i) >= ubyte(b, i) ? 1u : 0u; }));
  e.push_back((unsigned)(int)(((long long)sa + sb) >> 1)); e.push_back((unsigned)(int)(((long long)sa + sb + 1) >> 1));
  e.push_back((unsigned)(((unsigned long long)a + b) >> 1)); e.push_back((unsigned)(((unsigned long long)a + b + 1) >> 1));
  unsigned __int128 X = 0, Y = 0;  // the 256-bit add as two 128-bit halves
  unsigned long long x[4] = {la, lb, ~la, (unsigned long long)c}, y[4] = {lb, ~0ull, la, ~lb};
  X = ((unsigned __int128)x[1] << 64) | x[0]; Y = ((unsigned __int128)y[1] << 64) | y[0];
  unsigned __int128 low = X + Y;
  unsigned carry_mid = low < X;
  unsigned __int128 X2 = ((unsigned __int128)x[3] << 64) | x[2], Y2 = ((unsigned __int128)y[3] << 64) | y[2];
  unsigned __int128 high = X2 + Y2 + carry_mid;
  bool carry_out = high < X2 || (high == X2 && (Y2 | carry_mid) != 0);
  e.push_back((unsigned long long)low); e.push_back((unsigned long long)(low >> 64));
  e.push_back((unsigned long long)high); e.push_back((unsigned long long)(high >> 64) ^ ((unsigned long long)carry_out << 63));
  unsigned __int128 p = (unsigned __int128)la * lb + ~la;
  e.push_back((unsigned long long)p); e.push_back((unsigned long long)(p >> 64));
  __int128 q = (__int128)(long long)la * (long long)lb - (__int128)(long long)c;
  e.push_back((unsigned long long)q); e.push_back((unsigned long long)(q >> 64));
  e.push_back(a / 7); e.push_back((unsigned)(sa / -7)); e.push_back((unsigned)(sa % 10)); e.push_back(la / 1000003ull);
  e.push_back(a / (b | 1)); e.push_back(a % (b | 1));
  int d = sb | 1;
  bool ov = sa == INT_MIN && d == -1;
  e.push_back(ov ? 0 : (unsigned)(sa / d)); e.push_back(ov ? 0 : (unsigned)(sa % d));
  long long ld = (long long)lb | 1;
  bool ov64 = (long long)la == LLONG_MIN && ld == -1;
  e.push_back(ov64 ? 0 : (unsigned long long)((long long)la / ld));
  e.push_back(ov64 ? 0 : (unsigned long long)((long long)la % ld));
  e.push_back(e.size());
  return e;
}

int main() {
  const unsigned special[] = {0u, 1u, 2u, 3u, 7u, 31u, 32u, 33u, 63u, 64u, 0x7fu, 0x80u, 0xffu, 0x100u, 0x7fffu,
                              0x8000u, 0xffffu, 0x7fffffu, 0x800000u, 0xffffffu, 0x7fffffffu, 0x80000000u,
                              0x80000001u, 0xfffffffeu, 0xffffffffu, 0x01010101u, 0x80808080u, 0x7f7f7f7fu};
  const int NS = sizeof special / sizeof special[0];
  const int N = 4096;
  std::vector<unsigned> A(N), B(N), C(N);
  for (int i = 0; i < N; i++) {
    if (i < NS * NS) {  // every pair of special values, with a varying third operand
      A[i] = special[i / NS]; B[i] = special[i % NS]; C[i] = special[(i * 7) % NS];
    } else {
      A[i] = hash32(i); B[i] = hash32(i + N); C[i] = hash32(i + 2 * N);
      if (i % 5 == 0) B[i] = A[i] ^ (1u << (i % 32));
      if (i % 7 == 0) C[i] = A[i] & 0xff00ffu;
    }
  }
  A[N - 1] = 0x80000000u; B[N - 1] = 0xffffffffu;  // INT_MIN / -1 guarded in the kernel
  unsigned *dA, *dB, *dC; unsigned long long* dout;
  CHECK(cudaMalloc(&dA, N * 4)); CHECK(cudaMalloc(&dB, N * 4)); CHECK(cudaMalloc(&dC, N * 4));
  CHECK(cudaMalloc(&dout, (size_t)N * K * 8));
  CHECK(cudaMemcpy(dA, A.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C.data(), N * 4, cudaMemcpyHostToDevice));
  ints<<<N / 128, 128>>>(dA, dB, dC, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned long long> out((size_t)N * K);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * 8, cudaMemcpyDeviceToHost));
  int bad = 0;
  size_t nres = 0;
  for (int t = 0; t < N; t++) {
    std::vector<unsigned long long> e = expected(A[t], B[t], C[t]);
    nres = e.size();
    for (size_t j = 0; j < e.size(); j++)
      if (out[(size_t)t * K + j] != e[j] && bad++ < 40)
        fprintf(stderr, "a=%08x b=%08x c=%08x result %zu: got %llx want %llx\n", A[t], B[t], C[t], j,
                out[(size_t)t * K + j], e[j]);
  }
  int in[4] = {INT_MIN, -1, 5, 0}, *din, *dres, res[6];
  CHECK(cudaMalloc(&din, sizeof in)); CHECK(cudaMalloc(&dres, sizeof res));
  CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
  unspecified<<<1, 1>>>(din, dres);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(res, dres, sizeof res, cudaMemcpyDeviceToHost));
  if (bad) {
    printf("FAIL isa_integer: %d results wrong\n", bad);
    return 1;
  }
  printf("PASS isa_integer: %d inputs x %zu results; unspecified: INT_MIN/-1=%d rem=%d 5/0=%d 5%%0=%d 5u/0=%u\n", N,
         nres, res[0], res[1], res[2], res[3], (unsigned)res[4]);
  return 0;
}
