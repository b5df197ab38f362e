// Single mma.sync dot products on real tensor cores, for the shim's matrix arithmetic
// (engine/src/sem/mma.rs): reads lines "ARCH SHAPE_AND_TYPE A B C [D]" on stdin in the format of
// scripts/oracles/mma-mmasim.txt (A, B: one row of A and one column of B as hex bit patterns
// joined by ','; C: the accumulator element) and prints each as "gpu SHAPE_AND_TYPE A B C D" with
// D the hardware's answer, in the input's order. Eight cases run per instruction: case i is row i
// of A, column i of B and C[i][i]; every other element is zero, so D[i][i] is case i's result.
// Shapes: m16n8k16/k8 f16 and bf16 (f32 or f16 accumulators), m16n8k8/k4 tf32, m16n8k32/k16
// e4m3/e5m2 (f32 or f16 accumulators), m8n8k4/m16n8k4/k8/k16 f64, and m8n8k4 f16 (the quad-pair
// shape: only its first computation, lanes 0-3 and 16-19, gets the cases).
// Build: nvcc -std=c++17 -O2 -arch=sm_90 -o mma_dots mma_dots.cu (-DNO_F8 -DNO_M8N8K4_F16 leave
// out the shapes an emulator may not run yet).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

typedef unsigned long long u64;

enum Op {
  F16_K16_F32, F16_K16_F16, F16_K8_F32, F16_K8_F16, BF16_K16, BF16_K8, TF32_K8, TF32_K4,
  E4E4_K32_F32, E4E5_K32_F32, E5E4_K32_F32, E5E5_K32_F32,
  E4E4_K32_F16, E4E5_K32_F16, E5E4_K32_F16, E5E5_K32_F16,
  E4E4_K16_F32, E4E5_K16_F32, E5E4_K16_F32, E5E5_K16_F32,
  E4E4_K16_F16, E4E5_K16_F16, E5E4_K16_F16, E5E5_K16_F16,
  F64_M8K4, F64_K4, F64_K8, F64_K16, V_F32_F32, V_F32_F16, V_F16_F16,
};

struct Combo {
  const char* name;
  Op op;
  int m, k, abits, cbits, dbits;
};

static const Combo combos[] = {
    {"m16n8k16.f32.f16.f16.f32", F16_K16_F32, 16, 16, 16, 32, 32},
    {"m16n8k16.f16.f16.f16.f16", F16_K16_F16, 16, 16, 16, 16, 16},
    {"m16n8k8.f32.f16.f16.f32", F16_K8_F32, 16, 8, 16, 32, 32},
    {"m16n8k8.f16.f16.f16.f16", F16_K8_F16, 16, 8, 16, 16, 16},
    {"m16n8k16.f32.bf16.bf16.f32", BF16_K16, 16, 16, 16, 32, 32},
    {"m16n8k8.f32.bf16.bf16.f32", BF16_K8, 16, 8, 16, 32, 32},
    {"m16n8k8.f32.tf32.tf32.f32", TF32_K8, 16, 8, 32, 32, 32},
    {"m16n8k4.f32.tf32.tf32.f32", TF32_K4, 16, 4, 32, 32, 32},
    {"m16n8k32.f32.e4m3.e4m3.f32", E4E4_K32_F32, 16, 32, 8, 32, 32},
    {"m16n8k32.f32.e4m3.e5m2.f32", E4E5_K32_F32, 16, 32, 8, 32, 32},
    {"m16n8k32.f32.e5m2.e4m3.f32", E5E4_K32_F32, 16, 32, 8, 32, 32},
    {"m16n8k32.f32.e5m2.e5m2.f32", E5E5_K32_F32, 16, 32, 8, 32, 32},
    {"m16n8k32.f16.e4m3.e4m3.f16", E4E4_K32_F16, 16, 32, 8, 16, 16},
    {"m16n8k32.f16.e4m3.e5m2.f16", E4E5_K32_F16, 16, 32, 8, 16, 16},
    {"m16n8k32.f16.e5m2.e4m3.f16", E5E4_K32_F16, 16, 32, 8, 16, 16},
    {"m16n8k32.f16.e5m2.e5m2.f16", E5E5_K32_F16, 16, 32, 8, 16, 16},
    {"m16n8k16.f32.e4m3.e4m3.f32", E4E4_K16_F32, 16, 16, 8, 32, 32},
    {"m16n8k16.f32.e4m3.e5m2.f32", E4E5_K16_F32, 16, 16, 8, 32, 32},
    {"m16n8k16.f32.e5m2.e4m3.f32", E5E4_K16_F32, 16, 16, 8, 32, 32},
    {"m16n8k16.f32.e5m2.e5m2.f32", E5E5_K16_F32, 16, 16, 8, 32, 32},
    {"m16n8k16.f16.e4m3.e4m3.f16", E4E4_K16_F16, 16, 16, 8, 16, 16},
    {"m16n8k16.f16.e4m3.e5m2.f16", E4E5_K16_F16, 16, 16, 8, 16, 16},
    {"m16n8k16.f16.e5m2.e4m3.f16", E5E4_K16_F16, 16, 16, 8, 16, 16},
    {"m16n8k16.f16.e5m2.e5m2.f16", E5E5_K16_F16, 16, 16, 8, 16, 16},
    {"m8n8k4.f64.f64.f64.f64", F64_M8K4, 8, 4, 64, 64, 64},
    {"m16n8k4.f64.f64.f64.f64", F64_K4, 16, 4, 64, 64, 64},
    {"m16n8k8.f64.f64.f64.f64", F64_K8, 16, 8, 64, 64, 64},
    {"m16n8k16.f64.f64.f64.f64", F64_K16, 16, 16, 64, 64, 64},
    {"m8n8k4.f32.f16.f16.f32", V_F32_F32, 8, 4, 16, 32, 32},
    {"m8n8k4.f32.f16.f16.f16", V_F32_F16, 8, 4, 16, 16, 32},
    {"m8n8k4.f16.f16.f16.f16", V_F16_F16, 8, 4, 16, 16, 16},
};

// Inputs of 8 cases: a[i][k], b[i][k] (case i's row and column), c[i]; out d[i].
struct Batch {
  u64 a[8][32], b[8][32], c[8], d[8];
};

__device__ u64 aval(const Batch& s, int row, int col) { return row < 8 ? s.a[row][col] : 0; }
__device__ u64 cval(const Batch& s, int row, int col) { return row == col ? s.c[row] : 0; }

#define F32ACC4x2(INS)                                                                        \
  asm volatile(INS " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"               \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), \
                 "r"(c[1]), "r"(c[2]), "r"(c[3]))
#define F32ACC2x1(INS)                                                                \
  asm volatile(INS " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                   \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                       \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))
#define F16ACC4x2(INS)                                                                     \
  asm volatile(INS " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"                            \
               : "=r"(d[0]), "=r"(d[1])                                                    \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), \
                 "r"(c[1]))
#define F16ACC2x1(INS)                                                                 \
  asm volatile(INS " {%0,%1}, {%2,%3}, {%4}, {%5,%6};"                                 \
               : "=r"(d[0]), "=r"(d[1])                                                \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]))
#define MMA(S) "mma.sync.aligned." S

// The m16n8kK layouts of ISA 9.7.14.5: registers of A hold 8x(4*per) tiles, row tile r%2,
// column tile r/2, lane (g, t) at row g, columns t*per..; B's register r holds rows
// r*4*per + t*per.., column g; C element i is at row g + 8*(i/2), column 2t + i%2.
template <int BITS>
__device__ void pack_m16(const Batch& s, int k, int lane, unsigned* a, int na, unsigned* b, int nb) {
  int g = lane / 4, t = lane % 4, per = 32 / BITS;
  for (int r = 0; r < na; r++) {
    unsigned v = 0;
    for (int j = 0; j < per; j++) {
      int row = (r % 2) * 8 + g, col = (r / 2) * 4 * per + t * per + j;
      v |= (unsigned)(aval(s, row, col) & ((1ull << BITS) - 1)) << (j * BITS);
    }
    a[r] = v;
  }
  for (int r = 0; r < nb; r++) {
    unsigned v = 0;
    for (int j = 0; j < per; j++) {
      int row = r * 4 * per + t * per + j;
      v |= (unsigned)(s.b[g][row] & ((1ull << BITS) - 1)) << (j * BITS);
    }
    b[r] = v;
  }
}

__global__ void run(Batch* batches, int n, Op op) {
  Batch& s = batches[blockIdx.x];
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned a[8] = {}, b[4] = {}, c[8] = {}, d[8] = {};
  bool f16acc = false;
  switch (op) {
    case F16_K16_F16: case F16_K8_F16:
    case E4E4_K32_F16: case E4E5_K32_F16: case E5E4_K32_F16: case E5E5_K32_F16:
    case E4E4_K16_F16: case E4E5_K16_F16: case E5E4_K16_F16: case E5E5_K16_F16:
      f16acc = true;
    default:;
  }
  if (op >= F64_M8K4) {
    // f64 and the m8n8k4 f16 shape have their own code below.
  } else {
    int bits = (op <= BF16_K8) ? 16 : (op <= TF32_K4) ? 32 : 8;
    int k = (op == F16_K16_F32 || op == F16_K16_F16 || op == BF16_K16) ? 16
            : (op == TF32_K4) ? 4
            : (op >= E4E4_K32_F32 && op <= E5E5_K32_F16) ? 32
            : (op >= E4E4_K16_F32) ? 16 : 8;
    int na = 16 * k * bits / 32 / 32, nb = 8 * k * bits / 32 / 32;
    if (bits == 16) pack_m16<16>(s, k, lane, a, na, b, nb);
    if (bits == 32) pack_m16<32>(s, k, lane, a, na, b, nb);
    if (bits == 8) pack_m16<8>(s, k, lane, a, na, b, nb);
    if (f16acc) {
      for (int i = 0; i < 2; i++) {
        int row = g + 8 * i;
        c[i] = (unsigned)(cval(s, row, 2 * t) & 0xffff) | (unsigned)(cval(s, row, 2 * t + 1) & 0xffff) << 16;
      }
    } else {
      for (int i = 0; i < 4; i++) c[i] = (unsigned)cval(s, g + 8 * (i / 2), 2 * t + i % 2);
    }
    switch (op) {
      case F16_K16_F32: F32ACC4x2(MMA("m16n8k16.row.col.f32.f16.f16.f32")); break;
      case F16_K16_F16: F16ACC4x2(MMA("m16n8k16.row.col.f16.f16.f16.f16")); break;
      case F16_K8_F32: F32ACC2x1(MMA("m16n8k8.row.col.f32.f16.f16.f32")); break;
      case F16_K8_F16: F16ACC2x1(MMA("m16n8k8.row.col.f16.f16.f16.f16")); break;
      case BF16_K16: F32ACC4x2(MMA("m16n8k16.row.col.f32.bf16.bf16.f32")); break;
      case BF16_K8: F32ACC2x1(MMA("m16n8k8.row.col.f32.bf16.bf16.f32")); break;
      case TF32_K8: F32ACC4x2(MMA("m16n8k8.row.col.f32.tf32.tf32.f32")); break;
      case TF32_K4: F32ACC2x1(MMA("m16n8k4.row.col.f32.tf32.tf32.f32")); break;
#ifndef NO_F8
      case E4E4_K32_F32: F32ACC4x2(MMA("m16n8k32.row.col.f32.e4m3.e4m3.f32")); break;
      case E4E5_K32_F32: F32ACC4x2(MMA("m16n8k32.row.col.f32.e4m3.e5m2.f32")); break;
      case E5E4_K32_F32: F32ACC4x2(MMA("m16n8k32.row.col.f32.e5m2.e4m3.f32")); break;
      case E5E5_K32_F32: F32ACC4x2(MMA("m16n8k32.row.col.f32.e5m2.e5m2.f32")); break;
      case E4E4_K32_F16: F16ACC4x2(MMA("m16n8k32.row.col.f16.e4m3.e4m3.f16")); break;
      case E4E5_K32_F16: F16ACC4x2(MMA("m16n8k32.row.col.f16.e4m3.e5m2.f16")); break;
      case E5E4_K32_F16: F16ACC4x2(MMA("m16n8k32.row.col.f16.e5m2.e4m3.f16")); break;
      case E5E5_K32_F16: F16ACC4x2(MMA("m16n8k32.row.col.f16.e5m2.e5m2.f16")); break;
      case E4E4_K16_F32: F32ACC2x1(MMA("m16n8k16.row.col.f32.e4m3.e4m3.f32")); break;
      case E4E5_K16_F32: F32ACC2x1(MMA("m16n8k16.row.col.f32.e4m3.e5m2.f32")); break;
      case E5E4_K16_F32: F32ACC2x1(MMA("m16n8k16.row.col.f32.e5m2.e4m3.f32")); break;
      case E5E5_K16_F32: F32ACC2x1(MMA("m16n8k16.row.col.f32.e5m2.e5m2.f32")); break;
      case E4E4_K16_F16: F16ACC2x1(MMA("m16n8k16.row.col.f16.e4m3.e4m3.f16")); break;
      case E4E5_K16_F16: F16ACC2x1(MMA("m16n8k16.row.col.f16.e4m3.e5m2.f16")); break;
      case E5E4_K16_F16: F16ACC2x1(MMA("m16n8k16.row.col.f16.e5m2.e4m3.f16")); break;
      case E5E5_K16_F16: F16ACC2x1(MMA("m16n8k16.row.col.f16.e5m2.e5m2.f16")); break;
#endif
      default:;
    }
    // Case i is D[i][i]: lane 4i + i/2, element i%2 (row i < 8).
    for (int i = 0; i < 8; i++) {
      if (g == i && t == i / 2) {
        if (f16acc) s.d[i] = (d[0] >> (16 * (i % 2))) & 0xffff;
        else s.d[i] = d[i % 2];
      }
    }
    return;
  }
  if (op <= F64_K16) {
    double fa[8] = {}, fb[4] = {}, fc[4] = {}, fd[4] = {};
    int k = op == F64_K16 ? 16 : op == F64_K8 ? 8 : 4;
    int m = op == F64_M8K4 ? 8 : 16, mt = m / 8;
    int na = m * k / 32, nb = 8 * k / 32;
    for (int r = 0; r < na; r++) {
      u64 v = aval(s, (r % mt) * 8 + g, (r / mt) * 4 + t);
      memcpy(&fa[r], &v, 8);
    }
    for (int r = 0; r < nb; r++) {
      u64 v = s.b[g][r * 4 + t];
      memcpy(&fb[r], &v, 8);
    }
    int nc = m * 8 / 32;
    for (int i = 0; i < nc; i++) {
      u64 v = cval(s, g + 8 * (i / 2), 2 * t + i % 2);
      memcpy(&fc[i], &v, 8);
    }
    switch (op) {
      case F64_M8K4:
        asm volatile(MMA("m8n8k4.row.col.f64.f64.f64.f64") " {%0,%1}, {%2}, {%3}, {%4,%5};"
                     : "=d"(fd[0]), "=d"(fd[1]) : "d"(fa[0]), "d"(fb[0]), "d"(fc[0]), "d"(fc[1]));
        break;
      case F64_K4:
        asm volatile(MMA("m16n8k4.row.col.f64.f64.f64.f64") " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                     : "=d"(fd[0]), "=d"(fd[1]), "=d"(fd[2]), "=d"(fd[3])
                     : "d"(fa[0]), "d"(fa[1]), "d"(fb[0]), "d"(fc[0]), "d"(fc[1]), "d"(fc[2]), "d"(fc[3]));
        break;
      case F64_K8:
        asm volatile(MMA("m16n8k8.row.col.f64.f64.f64.f64") " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=d"(fd[0]), "=d"(fd[1]), "=d"(fd[2]), "=d"(fd[3])
                     : "d"(fa[0]), "d"(fa[1]), "d"(fa[2]), "d"(fa[3]), "d"(fb[0]), "d"(fb[1]),
                       "d"(fc[0]), "d"(fc[1]), "d"(fc[2]), "d"(fc[3]));
        break;
      default:
        asm volatile(MMA("m16n8k16.row.col.f64.f64.f64.f64") " {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19};"
                     : "=d"(fd[0]), "=d"(fd[1]), "=d"(fd[2]), "=d"(fd[3])
                     : "d"(fa[0]), "d"(fa[1]), "d"(fa[2]), "d"(fa[3]), "d"(fa[4]), "d"(fa[5]),
                       "d"(fa[6]), "d"(fa[7]), "d"(fb[0]), "d"(fb[1]), "d"(fb[2]), "d"(fb[3]),
                       "d"(fc[0]), "d"(fc[1]), "d"(fc[2]), "d"(fc[3]));
    }
    for (int i = 0; i < 8; i++)
      if (g == i && t == i / 2) memcpy(&s.d[i], &fd[i % 2], 8);
    return;
  }
#ifndef NO_M8N8K4_F16
  // m8n8k4 f16 (ISA 9.7.14.5.1): computation 1 is lanes 0-3 and 16-19; A row-major: lane's row
  // = lane%4 (+4 from lane 16), columns 0..3; B column-major: lane's column likewise, rows 0..3.
  bool first = (lane / 4) % 4 == 0;
  int hi = lane >= 16 ? 4 : 0, rc = lane % 4 + hi;
  for (int r = 0; r < 2; r++) {
    a[r] = first ? (unsigned)(s.a[rc][2 * r] & 0xffff) | (unsigned)(s.a[rc][2 * r + 1] & 0xffff) << 16 : 0;
    b[r] = first ? (unsigned)(s.b[rc][2 * r] & 0xffff) | (unsigned)(s.b[rc][2 * r + 1] & 0xffff) << 16 : 0;
  }
  if (op == V_F32_F32) {
    // f32 C: row = (lane & 1) + (i & 2) (+4), column = (i & 4) + (lane & 2) + (i & 1).
    for (int i = 0; i < 8; i++) {
      int row = (lane & 1) + (i & 2) + hi, col = (i & 4) + (lane & 2) + (i & 1);
      c[i] = first ? (unsigned)cval(s, row, col) : 0;
    }
    asm volatile(MMA("m8n8k4.row.col.f32.f16.f16.f32") " {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]),
                   "r"(c[4]), "r"(c[5]), "r"(c[6]), "r"(c[7]));
    for (int i = 0; i < 8; i++) {
      int row = (lane & 1) + (i & 2) + hi, col = (i & 4) + (lane & 2) + (i & 1);
      if (first && row == col) s.d[row] = d[i];
    }
    return;
  }
  // f16 C: lane's row rc, columns 0..7 packed in pairs.
  for (int i = 0; i < 4; i++)
    c[i] = first ? (unsigned)(cval(s, rc, 2 * i) & 0xffff) | (unsigned)(cval(s, rc, 2 * i + 1) & 0xffff) << 16 : 0;
  if (op == V_F32_F16) {
    asm volatile(MMA("m8n8k4.row.col.f32.f16.f16.f16") " {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 8; i++) {
      int row = (lane & 1) + (i & 2) + hi, col = (i & 4) + (lane & 2) + (i & 1);
      if (first && row == col) s.d[row] = d[i];
    }
    return;
  }
  asm volatile(MMA("m8n8k4.row.col.f16.f16.f16.f16") " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};"
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
  if (first) s.d[rc] = (d[rc / 2] >> (16 * (rc % 2))) & 0xffff;
#endif
}

struct Line {
  std::string arch, shape, a, b, c;
};

static std::vector<u64> hexes(const std::string& s) {
  std::vector<u64> v;
  size_t p = 0;
  while (p < s.size()) {
    size_t q = s.find(',', p);
    if (q == std::string::npos) q = s.size();
    v.push_back(strtoull(s.substr(p, q - p).c_str(), nullptr, 16));
    p = q + 1;
  }
  return v;
}

int main() {
  std::vector<Line> lines;
  char buf[4096];
  while (fgets(buf, sizeof buf, stdin)) {
    if (buf[0] == '#' || buf[0] == '\n') continue;
    char arch[64], shape[64], a[2048], b[2048], c[64];
    if (sscanf(buf, "%63s %63s %2047s %2047s %63s", arch, shape, a, b, c) != 5) continue;
    lines.push_back({arch, shape, a, b, c});
  }
  // Group by combination, 8 cases per batch, results back in input order.
  std::vector<std::string> out(lines.size());
  for (const Combo& cb : combos) {
    std::vector<size_t> idx;
    for (size_t i = 0; i < lines.size(); i++)
      if (lines[i].shape == cb.name) idx.push_back(i);
    if (idx.empty()) continue;
    int nb = (idx.size() + 7) / 8;
    Batch* dev;
    std::vector<Batch> host(nb);
    memset(host.data(), 0, nb * sizeof(Batch));
    for (size_t j = 0; j < idx.size(); j++) {
      Batch& bt = host[j / 8];
      int i = j % 8;
      auto av = hexes(lines[idx[j]].a), bv = hexes(lines[idx[j]].b), cv = hexes(lines[idx[j]].c);
      if ((int)av.size() != cb.k || (int)bv.size() != cb.k) {
        fprintf(stderr, "bad K in %s\n", lines[idx[j]].shape.c_str());
        return 2;
      }
      for (int k = 0; k < cb.k; k++) bt.a[i][k] = av[k], bt.b[i][k] = bv[k];
      bt.c[i] = cv[0];
    }
    cudaMalloc(&dev, nb * sizeof(Batch));
    cudaMemcpy(dev, host.data(), nb * sizeof(Batch), cudaMemcpyHostToDevice);
    run<<<nb, 32>>>(dev, nb, cb.op);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      fprintf(stderr, "%s: %s\n", cb.name, cudaGetErrorString(e));
      return 1;
    }
    cudaMemcpy(host.data(), dev, nb * sizeof(Batch), cudaMemcpyDeviceToHost);
    cudaFree(dev);
    for (size_t j = 0; j < idx.size(); j++) {
      const Line& l = lines[idx[j]];
      char d[32];
      snprintf(d, sizeof d, "%0*llx", cb.dbits / 4, host[j / 8].d[j % 8]);
      out[idx[j]] = "gpu " + l.shape + " " + l.a + " " + l.b + " " + l.c + " " + d;
    }
  }
  for (size_t i = 0; i < lines.size(); i++)
    if (out[i].empty()) fprintf(stderr, "no combination for %s\n", lines[i].shape.c_str());
    else printf("%s\n", out[i].c_str());
  return 0;
}
