// PTX forms that ptxas accepts and that compiled code and hand-written inline PTX use, each
// checked against the hardware or the ISA's arithmetic computed on the host:
// - the carry flag of add.cc/addc/sub.cc/subc as an H100 sets and reads it (values below);
// - cvt.rni/.rzi/.rmi/.rpi to the same bf16 or f16 type (round to an integral value in that
//   format, ISA 9.7.9.21), through the bf16/half intrinsics and through inline PTX;
// - a vector mov whose destinations are also its sources (every source read before a write);
// - mov.b64 / mov.b32 between a vector register and a scalar of the same total width;
// - a register plus an immediate as a source operand (`st.global.u64 [a], r + 1;`);
// - a `.global` variable declared inside a function body.
// Built for compute_90 (cvt.bf16.bf16 needs sm_90).
#include "check.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

// ---- carry flag --------------------------------------------------------------------------
// The same kernel as the hardware probe that measured the table below.
__global__ void carry(const unsigned *xs, unsigned *out, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  unsigned x = xs[2 * i], y = xs[2 * i + 1];
  unsigned d, c1, c2, c3, c4, c5, d5;
  asm volatile("sub.cc.u32 %0, %2, %3;\n\taddc.u32 %1, 0, 0;" : "=r"(d), "=r"(c1) : "r"(x), "r"(y));
  asm volatile("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, 0, 0;" : "=r"(d), "=r"(c2) : "r"(x), "r"(y));
  asm volatile("add.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, 0, 0;" : "=r"(d), "=r"(c3) : "r"(x), "r"(y));
  asm volatile("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, 0, 0;" : "=r"(d), "=r"(c4) : "r"(x), "r"(y));
  asm volatile("sub.cc.u32 %0, %3, %4;\n\tsubc.cc.u32 %0, %4, %3;\n\taddc.u32 %1, 0, 0;\n\tmov.u32 %2, %0;"
               : "=r"(d), "=r"(c5), "=r"(d5) : "r"(x), "r"(y));
  unsigned long long X = ((unsigned long long)x << 32) | y, Y = ((unsigned long long)y << 32) | x;
  unsigned long long D, C6, C7;
  asm volatile("sub.cc.u64 %0, %2, %3;\n\taddc.u64 %1, 0, 0;" : "=l"(D), "=l"(C6) : "l"(X), "l"(Y));
  asm volatile("sub.cc.u64 %0, %2, %3;\n\tsubc.u64 %1, 0, 0;" : "=l"(D), "=l"(C7) : "l"(X), "l"(Y));
  unsigned s1;
  asm volatile("sub.cc.s32 %0, %1, %2;" : "=r"(s1) : "r"(x), "r"(y));
  (void)d; (void)D;
  unsigned *o = out + 10 * i;
  o[0] = c1; o[1] = c2; o[2] = c3; o[3] = c4; o[4] = c5; o[5] = d5;
  o[6] = (unsigned)C6; o[7] = (unsigned)C7; o[8] = (unsigned)(C7 >> 32); o[9] = s1;
}

__global__ void issue_case(unsigned *out) {
  unsigned a, b, c;
  asm volatile("add.cc.u32 %2, 0xffffffff, 1;\n\tsub.cc.s32 %0, 0x627ADF75, 0x864CCEF5;\n\taddc.u32 %1, 0, 0;"
               : "=r"(a), "=r"(b), "=r"(c));
  out[0] = a; out[1] = b; out[2] = c;
}

// Measured on NVIDIA H100 (driver 580.159), 2026-11-25, with the two kernels above: x, y, then
// sub.cc->addc, sub.cc->subc(0,0), add.cc->subc(0,0), add.cc->addc(0,0), sub.cc;subc.cc(y,x)->addc,
// that subc.cc's d, the 64-bit sub.cc->addc (low word), sub.cc->subc (low, high), sub.cc.s32 d.
// After sub.cc, CC.CF is the carry-out of a + ~b + 1 (1 = no borrow); subc computes a + ~b + CF.
static const unsigned kCarry[][11] = {
    {0x00000005, 0x00000003, 1, 0x00000000, 0xffffffff, 0, 0, 0xfffffffe, 1, 0x00000000, 0x00000000},
    {0x00000003, 0x00000005, 0, 0xffffffff, 0xffffffff, 0, 1, 0x00000001, 0, 0xffffffff, 0xffffffff},
    {0x00000000, 0x00000000, 1, 0x00000000, 0xffffffff, 0, 1, 0x00000000, 1, 0x00000000, 0x00000000},
    {0x00000000, 0x00000001, 0, 0xffffffff, 0xffffffff, 0, 1, 0x00000000, 0, 0xffffffff, 0xffffffff},
    {0x00000001, 0x00000000, 1, 0x00000000, 0xffffffff, 0, 0, 0xffffffff, 1, 0x00000000, 0x00000000},
    {0xffffffff, 0x00000001, 1, 0x00000000, 0x00000000, 1, 0, 0x00000002, 1, 0x00000000, 0x00000000},
    {0x00000001, 0xffffffff, 0, 0xffffffff, 0x00000000, 1, 1, 0xfffffffd, 0, 0xffffffff, 0xffffffff},
    {0x627adf75, 0x864ccef5, 0, 0xffffffff, 0xffffffff, 0, 1, 0x23d1ef7f, 0, 0xffffffff, 0xffffffff},
    {0x864ccef5, 0x627adf75, 1, 0x00000000, 0xffffffff, 0, 0, 0xdc2e1080, 1, 0x00000000, 0x00000000},
    {0x80000000, 0x80000000, 1, 0x00000000, 0x00000000, 1, 1, 0x00000000, 1, 0x00000000, 0x00000000},
    {0x00000000, 0xffffffff, 0, 0xffffffff, 0xffffffff, 0, 1, 0xfffffffe, 0, 0xffffffff, 0xffffffff},
    {0x00000007, 0x00000007, 1, 0x00000000, 0xffffffff, 0, 1, 0x00000000, 1, 0x00000000, 0x00000000},
};
// The sub.cc.s32 differences of the same rows (x - y mod 2^32), also measured.
static const unsigned kCarryDiff[] = {0x00000002, 0xfffffffe, 0x00000000, 0xffffffff,
                                      0x00000001, 0xfffffffe, 0x00000002, 0xdc2e1080,
                                      0x23d1ef80, 0x00000000, 0x00000001, 0x00000000};

static void test_carry() {
  const int n = sizeof(kCarry) / sizeof(kCarry[0]);
  std::vector<unsigned> xs(2 * n), out(10 * n);
  for (int i = 0; i < n; i++) { xs[2 * i] = kCarry[i][0]; xs[2 * i + 1] = kCarry[i][1]; }
  unsigned *dx, *dout;
  CHECK(cudaMalloc(&dx, xs.size() * 4));
  CHECK(cudaMalloc(&dout, out.size() * 4));
  CHECK(cudaMemcpy(dx, xs.data(), xs.size() * 4, cudaMemcpyHostToDevice));
  carry<<<1, 32>>>(dx, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 9; k++)
      EXPECT_MSG(out[10 * i + k] == kCarry[i][2 + k], "carry x=%08x y=%08x column %d: %08x, an H100 gives %08x",
                 kCarry[i][0], kCarry[i][1], k, out[10 * i + k], kCarry[i][2 + k]);
    EXPECT_EQ(out[10 * i + 9], kCarryDiff[i]);
  }
  issue_case<<<1, 1>>>(dout);
  CHECK(cudaMemcpy(out.data(), dout, 12, cudaMemcpyDeviceToHost));
  // H100: a = 0xdc2e1080, b = 0 (0x627adf75 < 0x864ccef5 borrows: CF = 0), c = 0.
  EXPECT_EQ(out[0], 0xdc2e1080u);
  EXPECT_EQ(out[1], 0u);
  EXPECT_EQ(out[2], 0u);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
}

// ---- cvt to an integral value in bf16 / f16 -----------------------------------------------
constexpr int kRound = 12;  // results per input

__global__ void round16(const unsigned short *in, unsigned short *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned short x = in[i], r[kRound];
  // bf16 through the intrinsics (nvcc emits cvt.r?i.bf16.bf16 for them on sm_90) ...
  __nv_bfloat16 b = __ushort_as_bfloat16(x);
  r[0] = __bfloat16_as_ushort(htrunc(b));
  r[1] = __bfloat16_as_ushort(hrint(b));
  r[2] = __bfloat16_as_ushort(hfloor(b));
  r[3] = __bfloat16_as_ushort(hceil(b));
  // ... and written out.
  asm("cvt.rzi.bf16.bf16 %0, %1;" : "=h"(r[4]) : "h"(x));
  asm("cvt.rni.bf16.bf16 %0, %1;" : "=h"(r[5]) : "h"(x));
  asm("cvt.rmi.bf16.bf16 %0, %1;" : "=h"(r[6]) : "h"(x));
  asm("cvt.rpi.bf16.bf16 %0, %1;" : "=h"(r[7]) : "h"(x));
  // The same bits as f16.
  asm("cvt.rzi.f16.f16 %0, %1;" : "=h"(r[8]) : "h"(x));
  asm("cvt.rni.f16.f16 %0, %1;" : "=h"(r[9]) : "h"(x));
  asm("cvt.rmi.f16.f16 %0, %1;" : "=h"(r[10]) : "h"(x));
  asm("cvt.rpi.sat.f16.f16 %0, %1;" : "=h"(r[11]) : "h"(x));
  for (int k = 0; k < kRound; k++) out[i * kRound + k] = r[k];
}

static float bf16_to_float(unsigned short h) {
  unsigned u = (unsigned)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// Exact narrowing of a value known to be representable (or NaN) in bf16.
static unsigned short float_to_bf16_exact(float f) {
  if (std::isnan(f)) return 0x7fff;
  unsigned u;
  memcpy(&u, &f, 4);
  return (unsigned short)(u >> 16);
}

static float half_to_float(unsigned short h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? std::ldexp((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp((float)(m | 1024), e - 25);
  return s ? -v : v;
}

static unsigned short float_to_half_exact(float f) {
  if (std::isnan(f)) return 0x7fff;
  unsigned short s = std::signbit(f) ? 0x8000 : 0;
  f = std::fabs(f);
  if (std::isinf(f)) return s | 0x7c00;
  if (f == 0) return s;
  int e;
  float m = std::frexp(f, &e);  // f = m * 2^e, m in [0.5, 1)
  if (e - 1 < -14) return s | (unsigned short)std::ldexp(f, 24);  // subnormal
  return s | (unsigned short)((e - 1 + 15) << 10) | (unsigned short)(std::ldexp(m, 11) - 1024);
}

static void test_round16() {
  // Ties, negative ties, values just off integers, large (already integral) values, zeros,
  // subnormals, infinities; each input read as bf16 and as f16.
  std::vector<unsigned short> in = {0x3fc0, 0x4020, 0x4060, 0xbfc0, 0xc020, 0x3f00, 0xbf00, 0x3f80,
                                    0x3fe0, 0xbfe0, 0x4b00, 0x4b01, 0x0000, 0x8000, 0x0001, 0x8001,
                                    0x7f80, 0xff80, 0x3e00, 0xbe00, 0x3c00, 0x3800, 0xb800, 0x4100,
                                    0x4300, 0x4340, 0x4740, 0xc740, 0x6400, 0x6401, 0x7bff, 0xfbff,
                                    0x3bff, 0xbbff, 0x3c01, 0x43ff};
  const int n = in.size();
  unsigned short *din, *dout;
  CHECK(cudaMalloc(&din, n * 2));
  CHECK(cudaMalloc(&dout, n * kRound * 2));
  CHECK(cudaMemcpy(din, in.data(), n * 2, cudaMemcpyHostToDevice));
  round16<<<1, 64>>>(din, dout, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned short> out(n * kRound);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * 2, cudaMemcpyDeviceToHost));
  // NaN results are not compared: the ISA does not say which NaN they are. Nor is a .sat of
  // a result of -0 (whether saturation makes it +0 is not stated either).
  for (int i = 0; i < n; i++) {
    float b = bf16_to_float(in[i]), h = half_to_float(in[i]);
    unsigned short want[kRound] = {
        float_to_bf16_exact(std::trunc(b)), float_to_bf16_exact(std::nearbyint(b)),
        float_to_bf16_exact(std::floor(b)), float_to_bf16_exact(std::ceil(b)), 0, 0, 0, 0,
        float_to_half_exact(std::trunc(h)), float_to_half_exact(std::nearbyint(h)),
        float_to_half_exact(std::floor(h)), 0};
    for (int k = 0; k < 4; k++) want[4 + k] = want[k];
    // .sat clamps to [0, 1] (ISA 9.7.9.21: "limits the result to the range [0.0, 1.0]").
    float c = std::ceil(h);
    want[11] = float_to_half_exact(c < 0 || c != c ? 0.0f : c > 1 ? 1.0f : c);
    for (int k = 0; k < kRound; k++) {
      if (k < 8 ? std::isnan(b) : std::isnan(h) || (k == 11 && c == 0 && std::signbit(c))) continue;
      EXPECT_MSG(out[i * kRound + k] == want[k], "round16 input %04x result %d: %04x, expected %04x", in[i], k,
                 out[i * kRound + k], want[k]);
    }
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
}

// ---- register moves ----------------------------------------------------------------------
__global__ void moves(const unsigned *in, unsigned long long *out) {
  unsigned short a = in[0], b = in[1], c = in[2], d = in[3];
  // Every destination is also a source: {a,b,c,d} <- {d,a,b,c}.
  asm("mov.v4.u16 {%0, %1, %2, %3}, {%3, %0, %1, %2};" : "+h"(a), "+h"(b), "+h"(c), "+h"(d));
  out[0] = a; out[1] = b; out[2] = c; out[3] = d;
  // A swap through a vector mov of two.
  unsigned x = in[4], y = in[5];
  asm("mov.v2.u32 {%0, %1}, {%1, %0};" : "+r"(x), "+r"(y));
  out[4] = x; out[5] = y;
  // Vector register <-> scalar of its total width, element 0 lowest.
  unsigned long long w;
  asm("{\n\t.reg .v2 .u32 v;\n\tmov.v2.u32 v, {%1, %2};\n\tmov.b64 %0, v;\n\t}" : "=l"(w) : "r"(in[4]), "r"(in[5]));
  out[6] = w;
  unsigned lo, hi;
  asm("{\n\t.reg .v2 .u32 v;\n\tmov.b64 v, %2;\n\tmov.v2.u32 {%0, %1}, v;\n\t}" : "=r"(lo), "=r"(hi) : "l"(w + 1));
  out[7] = lo; out[8] = hi;
  unsigned packed;
  asm("{\n\t.reg .v2 .b16 v;\n\tmov.b32 v, %2;\n\tmov.v2.b16 {%0, %1}, v;\n\t}" : "=h"(a), "=h"(b) : "r"(in[6]));
  out[9] = a; out[10] = b;
  asm("{\n\t.reg .v2 .b16 v;\n\tmov.v2.b16 v, {%1, %2};\n\tmov.b32 %0, v;\n\t}" : "=r"(packed) : "h"(c), "h"(d));
  out[11] = packed;
  asm("{\n\t.reg .v4 .b16 v;\n\tmov.b64 v, %1;\n\tmov.b64 %0, v;\n\t}" : "=l"(w) : "l"(0x0123456789abcdefull));
  out[12] = w;
}

static void test_moves() {
  std::vector<unsigned> in = {1, 2, 3, 4, 0x11111111, 0x22222222, 0xaaaabbbb};
  unsigned *din;
  unsigned long long *dout;
  CHECK(cudaMalloc(&din, in.size() * 4));
  CHECK(cudaMalloc(&dout, 16 * 8));
  CHECK(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  moves<<<1, 1>>>(din, dout);
  CHECK(cudaGetLastError());
  unsigned long long o[16];
  CHECK(cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost));
  // {a,b,c,d} = {d,a,b,c} of (1,2,3,4)
  EXPECT_EQ(o[0], 4); EXPECT_EQ(o[1], 1); EXPECT_EQ(o[2], 2); EXPECT_EQ(o[3], 3);
  EXPECT_EQ(o[4], 0x22222222); EXPECT_EQ(o[5], 0x11111111);
  EXPECT_EQ(o[6], 0x2222222211111111ull);
  EXPECT_EQ(o[7], 0x11111112); EXPECT_EQ(o[8], 0x22222222);
  EXPECT_EQ(o[9], 0xbbbb); EXPECT_EQ(o[10], 0xaaaa);
  EXPECT_EQ(o[11], 0x00030002);  // c = 2 low, d = 3 high (after the rotation above)
  EXPECT_EQ(o[12], 0x0123456789abcdefull);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
}

// ---- reg + imm source operands, function-scope .global -----------------------------------
__global__ void reg_plus_imm(unsigned long long *out, unsigned long long r, unsigned s) {
  asm volatile("st.global.u64 [%0], %1 + 1;" ::"l"(out), "l"(r) : "memory");
  asm volatile("st.global.u64 [%0+8], %1+0x10;" ::"l"(out), "l"(r) : "memory");
  unsigned t, u, v;
  asm("add.u32 %0, %1+1, 3;" : "=r"(t) : "r"(s));
  asm("mov.u32 %0, %1 + -1;" : "=r"(u) : "r"(s));
  asm("cvt.u32.u64 %0, %1 + 5;" : "=r"(v) : "l"(r));
  out[2] = t; out[3] = u; out[4] = v;
  unsigned short h;
  asm("{\n\t.reg .b16 t;\n\tcvt.u16.u32 t, %1;\n\tmov.b16 %0, t + 0xffff;\n\t}" : "=h"(h) : "r"(s));
  out[5] = h;
}

__device__ unsigned scoped_counter() {
  unsigned v;
  // One variable for every thread and call, initialised once (ISA 5.1.2, 5.4.3).
  asm volatile(
      "{\n\t.global .align 4 .u32 counter[2] = {100, 7};\n\t.reg .u64 a;\n\t"
      "mov.u64 a, counter;\n\tatom.global.add.u32 %0, [a], 1;\n\t}"
      : "=r"(v)::"memory");
  return v;
}

__global__ void scoped_global(unsigned *out) {
  unsigned k;
  asm volatile("{\n\t.const .u32 tab[3] = {5, 6, 7};\n\tld.const.u32 %0, [tab+8];\n\t}" : "=r"(k));
  out[threadIdx.x] = scoped_counter() + 1000 * k;
}

static void test_operands_and_scoped_globals() {
  unsigned long long *d;
  CHECK(cudaMalloc(&d, 8 * 8));
  reg_plus_imm<<<1, 1>>>(d, 0xffffffffffffffffull, 0xffffffffu);
  CHECK(cudaGetLastError());
  unsigned long long o[8];
  CHECK(cudaMemcpy(o, d, sizeof o, cudaMemcpyDeviceToHost));
  EXPECT_EQ(o[0], 0);                   // 2^64 - 1 + 1 wraps in .u64
  EXPECT_EQ(o[1], 0xf);                 // + 0x10
  EXPECT_EQ(o[2], 3);                   // (2^32 - 1) + 1 wraps in .u32, + 3
  EXPECT_EQ(o[3], 0xfffffffe);          // + -1
  EXPECT_EQ(o[4], 4);                   // low word of (2^64 - 1) + 5
  EXPECT_EQ(o[5], 0xfffe);              // 0xffff + 0xffff in .b16
  unsigned *u;
  CHECK(cudaMalloc(&u, 64 * 4));
  scoped_global<<<1, 64>>>(u);
  CHECK(cudaGetLastError());
  scoped_global<<<1, 64>>>(u);  // the variable keeps its value across launches
  CHECK(cudaGetLastError());
  std::vector<unsigned> h(64);
  CHECK(cudaMemcpy(h.data(), u, 64 * 4, cudaMemcpyDeviceToHost));
  std::vector<bool> seen(64);
  for (unsigned v : h) {
    EXPECT_MSG(v >= 7000 + 164 && v < 7000 + 228, "scoped counter %u", v);
    if (v >= 7164 && v < 7228) seen[v - 7164] = true;
  }
  for (int k = 0; k < 64; k++) EXPECT_MSG(seen[k], "counter value %d missing", 164 + k);
  CHECK(cudaFree(d));
  CHECK(cudaFree(u));
}

int main() {
  test_carry();
  test_round16();
  test_moves();
  test_operands_and_scoped_globals();
  if (expect_failures) {
    printf("FAIL %d\n", expect_failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
