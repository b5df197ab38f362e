// Sparse mma (mma.sp and mma.sp::ordered_metadata, ISA 9.7.14.6): A is structured sparse, its
// non-zero half packed in A's registers (laid out as a dense A of half the K) and placed back by
// 2-bit indices in the metadata register of the threads the sparsity selector names.
// Part 1 (layout): each packed element of A is an integer that names its packed column, B
// selects one column of the dense A per column of D (B[k][n] = 1 where k = n + 8*pass), so D
// shows where every packed element landed; random metadata in every lane (so a wrong lane's
// metadata shows), every valid selector. Expected: the ISA's figures (metadata nibble j of a
// row sits in thread 4*group + selector*threads + j/4, bits 4*(j%4) for rows 0-7 and 16 above
// that for rows 8-15; nibble j covers 4 elements, or 2 for tf32, whose 2-bit indices are in
// 16-bit units), computed on the host.
// Part 2 (numerics): random f16/bf16/tf32/e4m3 values, the sparse product compared bit for bit
// with the dense mma of the unpacked A on the same device (printed as "same as dense N/M"; the
// shim's answers are checked against the counts a GPU printed, in tests/tensor_cores.rs).
// Prints PASS when part 1 held everywhere.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

enum Kind { F16, BF16, TF32, S8, E4M3, S4 };
struct Config {
  const char* name;
  Kind kind;
  int k;       // dense K
  int nsel;    // valid selectors: 0..nsel-1
  bool ordered;
};

static const Config configs[] = {
    {"m16n8k16.f32.f16.f16.f32", F16, 16, 4, false},
    {"m16n8k16.f32.f16.f16.f32 ordered", F16, 16, 4, true},
    {"m16n8k32.f32.f16.f16.f32", F16, 32, 2, false},
    {"m16n8k32.f32.bf16.bf16.f32 ordered", BF16, 32, 2, true},
    {"m16n8k16.f32.bf16.bf16.f32", BF16, 16, 4, false},
    {"m16n8k8.f32.tf32.tf32.f32", TF32, 8, 4, false},
    {"m16n8k16.f32.tf32.tf32.f32 ordered", TF32, 16, 2, true},
    {"m16n8k32.s32.s8.s8.s32", S8, 32, 2, false},
    {"m16n8k64.s32.s8.s8.s32 ordered", S8, 64, 1, true},
    {"m16n8k64.f32.e4m3.e4m3.f32 ordered", E4M3, 64, 1, true},
    {"m16n8k64.s32.s4.s4.s32", S4, 64, 2, false},
    {"m16n8k128.s32.s4.s4.s32 ordered", S4, 128, 1, true},
};

static int bits_of(Kind k) { return k == TF32 ? 32 : (k == S8 || k == E4M3) ? 8 : k == S4 ? 4 : 16; }

// Registers of a dense m16n8kK operand from element bits (ISA 9.7.14.5: A's register r holds
// rows (r%2)*8 + group, columns (r/2)*4*per + t*per..; B's register r rows r*4*per + t*per..).
__device__ void pack_a(const unsigned* a, int kk, int bits, int lane, unsigned* reg, int n) {
  int g = lane / 4, t = lane % 4, per = 32 / bits;
  for (int r = 0; r < n; r++) {
    unsigned v = 0;
    for (int j = 0; j < per; j++) {
      int row = (r % 2) * 8 + g, col = (r / 2) * 4 * per + t * per + j;
      v |= (bits == 32 ? a[row * kk + col] : (a[row * kk + col] & ((1u << bits) - 1))) << (j * bits);
    }
    reg[r] = v;
  }
}
__device__ void pack_b(const unsigned* b, int bits, int lane, unsigned* reg, int n) {
  int g = lane / 4, t = lane % 4, per = 32 / bits;
  for (int r = 0; r < n; r++) {
    unsigned v = 0;
    for (int j = 0; j < per; j++) {
      int row = r * 4 * per + t * per + j;  // b is stored column-major: b[col * K + row]
      v |= (bits == 32 ? b[g * (n * 4 * per) + row] : (b[g * (n * 4 * per) + row] & ((1u << bits) - 1))) << (j * bits);
    }
    reg[r] = v;
  }
}

#define SP4(INS, NA, NB)                                                                         \
  asm volatile(INS " {%0,%1,%2,%3}, {" NA "}, {" NB "}, {%4,%5,%6,%7}, %8, " SEL ";"               \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                  \
               : "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(e), "r"(a[0]), "r"(a[1]), "r"(a[2]), \
                 "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "n"(SELV))
#define SEL "%17"
#define A2 "%9,%10"
#define A4 "%9,%10,%11,%12"
#define B1 "%13"
#define B2 "%13,%14"
#define B4 "%13,%14,%15,%16"

// One sparse mma: packed A (16 x K/2, row-major), B (K x 8, column-major), C = 0, metadata per
// lane; D (16 x 8, row-major) out. `sel` must be a constant: one instantiation per selector.
template <int SELV>
__global__ void sparse(int cfg, const unsigned* pa, const unsigned* pb, const unsigned* meta, unsigned* out) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned a[4] = {}, b[4] = {}, c[4] = {}, d[4] = {}, e = meta[lane];
  int kinds[] = {F16, F16, F16, BF16, BF16, TF32, TF32, S8, S8, E4M3, S4, S4};
  int ks[] = {16, 16, 32, 32, 16, 8, 16, 32, 64, 64, 64, 128};
  int bits = kinds[cfg] == TF32 ? 32 : (kinds[cfg] == S8 || kinds[cfg] == E4M3) ? 8 : kinds[cfg] == S4 ? 4 : 16;
  int k = ks[cfg];
  int na = 16 * (k / 2) * bits / 1024, nb = 8 * k * bits / 1024;
  pack_a(pa, k / 2, bits, lane, a, na);
  pack_b(pb, bits, lane, b, nb);
  switch (cfg) {
    case 0: if constexpr (SELV < 4) SP4("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", A2, B2); break;
    case 1: if constexpr (SELV < 4) SP4("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", A2, B2); break;
    case 2: if constexpr (SELV < 2) SP4("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", A4, B4); break;
    case 3: if constexpr (SELV < 2) SP4("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32", A4, B4); break;
    case 4: if constexpr (SELV < 4) SP4("mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", A2, B2); break;
    case 5: if constexpr (SELV < 4) SP4("mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", A2, B2); break;
    case 6: if constexpr (SELV < 2) SP4("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32", A4, B4); break;
    case 7: if constexpr (SELV < 2) SP4("mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", A2, B2); break;
    case 8: if constexpr (SELV < 1) SP4("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32", A4, B4); break;
#ifndef NO_F8
    case 9: if constexpr (SELV < 1) SP4("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32", A4, B4); break;
#endif
    case 10: if constexpr (SELV < 2) SP4("mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", A2, B2); break;
    case 11: if constexpr (SELV < 1) SP4("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32", A4, B4); break;
  }
  for (int i = 0; i < 4; i++) out[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
}

// The dense mma of the same shape on an unpacked A, for part 2.
__global__ void dense(int cfg, const unsigned* pa, const unsigned* pb, unsigned* out) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned a[8] = {}, b[4] = {}, c[4] = {}, d[4] = {};
  int kinds[] = {F16, F16, F16, BF16, BF16, TF32, TF32, S8, S8, E4M3};
  int ks[] = {16, 16, 32, 32, 16, 8, 16, 32, 64, 64};
  int bits = kinds[cfg] == TF32 ? 32 : (kinds[cfg] == S8 || kinds[cfg] == E4M3) ? 8 : 16;
  int k = ks[cfg];
  pack_a(pa, k, bits, lane, a, 16 * k * bits / 1024);
  pack_b(pb, bits, lane, b, 8 * k * bits / 1024);
#define D4(INS, NA, NB) \
  asm volatile(INS " {%0,%1,%2,%3}, {" NA "}, {" NB "}, {%4,%5,%6,%7};" \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) \
               : "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(a[0]), "r"(a[1]), "r"(a[2]), \
                 "r"(a[3]), "r"(a[4]), "r"(a[5]), "r"(a[6]), "r"(a[7]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]))
  switch (cfg) {
    case 0: case 1: D4("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "%8,%9,%10,%11", "%16,%17"); break;
    case 2: {  // k32 f16 as two k16 steps
      unsigned a2[4] = {a[4], a[5], a[6], a[7]};
      D4("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "%8,%9,%10,%11", "%16,%17");
      for (int i = 0; i < 4; i++) c[i] = d[i];
      for (int i = 0; i < 4; i++) a[i] = a2[i];
      b[0] = b[2], b[1] = b[3];
      D4("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "%8,%9,%10,%11", "%16,%17");
      break;
    }
    default: break;  // numerics compared only where a single dense instruction exists
  }
  for (int i = 0; i < 4; i++) out[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
}

// A 4-bit packed element's value: 1..7, varying along the row and between rows.
static int val4(int r, int p) { return (p + r) % 7 + 1; }

static unsigned rng = 12345;
static unsigned next() { return rng = rng * 1664525u + 1013904223u, rng >> 8; }
static const unsigned meaningful[6] = {0x4, 0x8, 0x9, 0xC, 0xD, 0xE};

static unsigned f16_int(int v) { __half h = __int2half_rn(v); unsigned short s; memcpy(&s, &h, 2); return s; }
static unsigned bf16_int(int v) { __nv_bfloat16 h = __int2bfloat16_rn(v); unsigned short s; memcpy(&s, &h, 2); return s; }
static unsigned f32_int(int v) { float f = v; unsigned u; memcpy(&u, &f, 4); return u; }
static unsigned elem_int(Kind k, int v) {
  switch (k) {
    case F16: return f16_int(v);
    case BF16: return bf16_int(v);
    case TF32: return f32_int(v);
    case S8: return (unsigned)(v & 0xff);
    case S4: return (unsigned)(v & 0xf);
    default: return 0;
  }
}
static long long d_int(Kind k, unsigned bits) {
  if (k == S8 || k == S4) return (int)bits;
  float f; memcpy(&f, &bits, 4); return (long long)f;
}

int main() {
  unsigned *pa, *pb, *meta, *out, *out2, *dense_a;
  cudaMallocManaged(&pa, 16 * 128 * 4);
  cudaMallocManaged(&dense_a, 16 * 128 * 4);
  cudaMallocManaged(&pb, 128 * 8 * 4);
  cudaMallocManaged(&meta, 32 * 4);
  cudaMallocManaged(&out, 16 * 8 * 4);
  cudaMallocManaged(&out2, 16 * 8 * 4);
  int failures = 0;
  for (int ci = 0; ci < (int)(sizeof configs / sizeof *configs); ci++) {
    const Config& cf = configs[ci];
    int K = cf.k, KP = K / 2, bits = bits_of(cf.kind);
    bool tf = cf.kind == TF32;
    // Nibbles per row (chunks of 4 elements, 2 for tf32, 8 for 4-bit types); threads per group.
    int nib = tf ? K / 2 : bits == 4 ? K / 8 : K / 4, per_thread = nib / 4;
    for (int sel = 0; sel < cf.nsel; sel++) {
      if (cf.kind == E4M3) break;  // layout part: integers do not name 32 columns in e4m3
      for (int l = 0; l < 32; l++) {
        unsigned m = 0;
        for (int j = 0; j < 8; j++) m |= (tf ? (next() % 2 ? 0xEu : 0x4u) : meaningful[next() % 6]) << (4 * j);
        meta[l] = m;
      }
      for (int r = 0; r < 16; r++)
        for (int j = 0; j < KP; j++)
          pa[r * KP + j] = elem_int(cf.kind, bits == 4 ? val4(r, j) : j + 1 + (r % 2) * 64);
      // Expected dense A: packed element p of row r (values j+1) placed by the metadata.
      int expect[16][128];
      memset(expect, 0, sizeof expect);
      for (int r = 0; r < 16; r++)
        for (int j = 0; j < nib; j++) {
          // 16/32-bit types: a thread holds four nibbles of rows r and r+8 (bits 0-15, 16-31);
          // 8/4-bit types: eight nibbles of one row, rows >= 8 in the odd threads (figure 129).
          int lane = bits >= 16 ? 4 * (r % 8) + sel * per_thread + j / 4
                                : 4 * (r % 8) + sel * per_thread + 2 * (j / 8) + r / 8;
          int at = bits >= 16 ? (r >= 8 ? 16 : 0) + 4 * (j % 4) : 4 * (j % 8);
          unsigned n = (meta[lane] >> at) & 0xf;
          int i0 = n & 3, i1 = n >> 2;
          if (tf) {
            expect[r][2 * j + i0 / 2] = j + 1 + (r % 2) * 64;
          } else if (bits == 4) {  // pairs: packed 4j..4j+3 to 8j + 2*i0 (+1), 8j + 2*i1 (+1)
            for (int q = 0; q < 4; q++)
              expect[r][8 * j + 2 * (q < 2 ? i0 : i1) + q % 2] = val4(r, 4 * j + q);
          } else {
            expect[r][4 * j + i0] = 2 * j + 1 + (r % 2) * 64;
            expect[r][4 * j + i1] = 2 * j + 2 + (r % 2) * 64;
          }
        }
      bool ok = true;
      for (int pass = 0; pass < K / 8; pass++) {
        for (int n = 0; n < 8; n++)
          for (int kk = 0; kk < K; kk++) pb[n * K + kk] = elem_int(cf.kind, kk == n + 8 * pass);
        switch (sel) {
          case 0: sparse<0><<<1, 32>>>(ci, pa, pb, meta, out); break;
          case 1: sparse<1><<<1, 32>>>(ci, pa, pb, meta, out); break;
          case 2: sparse<2><<<1, 32>>>(ci, pa, pb, meta, out); break;
          default: sparse<3><<<1, 32>>>(ci, pa, pb, meta, out); break;
        }
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess) {
          printf("sparse %s sel %d: %s\n", cf.name, sel, cudaGetErrorString(err));
          return 1;
        }
        for (int r = 0; r < 16; r++)
          for (int n = 0; n < 8; n++) {
            long long got = d_int(cf.kind, out[r * 8 + n]), want = expect[r][n + 8 * pass];
            if (got != want) {
              if (ok) fprintf(stderr, "sparse %s sel %d: D[%d][%d] (dense A column %d) = %lld, expected %lld\n",
                              cf.name, sel, r, n, n + 8 * pass, got, want);
              ok = false;
            }
          }
        // On a mismatch, the recovered dense A rows (packed index or 0) help find the rule.
        if (!ok)
          for (int r = 0; r < 16; r++) {
            fprintf(stderr, "  pass %d row %2d:", pass, r);
            for (int n = 0; n < 8; n++) fprintf(stderr, " %3lld", d_int(cf.kind, out[r * 8 + n]));
            fprintf(stderr, "\n");
          }
      }
      if (!ok) {
        for (int l = 0; l < 32; l++) fprintf(stderr, "  meta lane %d = %08x\n", l, meta[l]);
        failures++;
      }
      fprintf(stderr, "sparse layout %s sel %d: %s\n", cf.name, sel, ok ? "ok" : "FAILED");
    }
  }
  // Part 2: random values, sparse against dense (f16 k16 and k32), counting identical bits.
  for (int ci = 0; ci < 3; ci++) {
    const Config& cf = configs[ci];
    int K = cf.k, KP = K / 2, same = 0, total = 0;
    for (int trial = 0; trial < 20; trial++) {
      for (int l = 0; l < 32; l++) {
        unsigned m = 0;
        for (int j = 0; j < 8; j++) m |= meaningful[next() % 6] << (4 * j);
        meta[l] = m;
      }
      for (int i = 0; i < 16 * KP; i++) {
        float v = ((int)(next() % 20001) - 10000) / 1000.0f * (float)(1 << (next() % 12));
        __half h = __float2half(trial % 2 ? v : v / 4096);
        unsigned short s; memcpy(&s, &h, 2); pa[i] = s;
      }
      for (int i = 0; i < K * 8; i++) {
        __half h = __float2half(((int)(next() % 2001) - 1000) / 97.0f);
        unsigned short s; memcpy(&s, &h, 2); pb[i] = s;
      }
      memset(dense_a, 0, 16 * K * 4);
      for (int r = 0; r < 16; r++)
        for (int j = 0; j < K / 4; j++) {
          int lane = 4 * (r % 8) + j / 4;  // selector 0
          unsigned n = (meta[lane] >> ((r >= 8 ? 16 : 0) + 4 * (j % 4))) & 0xf;
          dense_a[r * K + 4 * j + (n & 3)] = pa[r * KP + 2 * j];
          dense_a[r * K + 4 * j + (n >> 2)] = pa[r * KP + 2 * j + 1];
        }
      sparse<0><<<1, 32>>>(ci, pa, pb, meta, out);
      dense<<<1, 32>>>(ci, dense_a, pb, out2);
      cudaDeviceSynchronize();
      for (int i = 0; i < 128; i++) same += out[i] == out2[i], total++;
      printf("sparse-d %s trial %d:", cf.name, trial);
      for (int i = 0; i < 128; i++) printf(" %08x", out[i]);
      printf("\n");
    }
    printf("sparse %s: same as dense %d/%d\n", cf.name, same, total);
  }
  if (failures == 0) printf("PASS\n");
  return failures != 0;
}
