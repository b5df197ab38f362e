// Tensor-core instructions as users write them: wmma GEMMs through <mma.h> for every wmma type
// (f16 with f32 and f16 accumulators in the three shapes, bf16, tf32, f64, u8/s8, s4, b1), and
// mma.sync through inline PTX with ldmatrix/stmatrix/movmatrix (f16, bf16, tf32, f64, s8, s4,
// b1 shapes). Inputs are small integers, so every product and sum is exact in every type and
// the expected values are the CPU's integer GEMM whatever the accumulation order: that checks
// the fragment layouts and the data movement. One case checks the tensor core's truncation
// (ISA: accumulation "unspecified"; value from the mmasim model, Hopper and Ampere alike):
// 1*1 + 15 * 2^-13 * 2^-13 is 1.0 exactly, where a chain of fp32 fmas gives 1 + 2^-22.
// Each case's line goes to stderr; stdout says PASS when all held.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>
#include "check.h"

using namespace nvcuda;

// Small integers in [-3, 3] (or [0, 3] for unsigned), the same on host and device.
static int val(int seed, int i, bool unsigned_) {
  unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(seed * 40503u);
  h ^= h >> 13;
  return unsigned_ ? (int)(h % 4) : (int)(h % 7) - 3;
}

// ---- wmma: one warp per 16x16 (or MxN) output tile, K looped; A row-major, B col-major or
// row-major as the template says, C/D row-major.
template <int M, int N, int K, typename TA, typename TAcc, typename LB, int KT>
__global__ void wmma_gemm(const TA* a, const TA* b, const TAcc* c, TAcc* d, int n_tiles) {
  int tile = blockIdx.x;
  int tm = tile / n_tiles, tn = tile % n_tiles;
  const int lda = KT, ldc = N * n_tiles;
  wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TAcc> fc;
  wmma::load_matrix_sync(fc, c + tm * M * ldc + tn * N, ldc, wmma::mem_row_major);
  for (int k = 0; k < KT; k += K) {
    wmma::load_matrix_sync(fa, a + tm * M * lda + k, lda);
    if (std::is_same<LB, wmma::col_major>::value)
      wmma::load_matrix_sync(fb, b + tn * N * KT + k, KT);  // B^T stored N x K
    else
      wmma::load_matrix_sync(fb, b + k * (N * n_tiles) + tn * N, N * n_tiles);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  // Scale the accumulator fragment element by element (layout-independent use of x[]).
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] = fc.x[i] * (TAcc)2;
  wmma::store_matrix_sync(d + tm * M * ldc + tn * N, fc, ldc, wmma::mem_row_major);
}

template <typename T>
static T from_int(int v) {
  return (T)v;
}
template <>
__half from_int<__half>(int v) {
  return __int2half_rn(v);
}
template <>
__nv_bfloat16 from_int<__nv_bfloat16>(int v) {
  return __float2bfloat16((float)v);
}
template <typename T>
static double to_d(T v) {
  return (double)v;
}
template <>
double to_d<__half>(__half v) {
  return (double)__half2float(v);
}

// GEMM with tiles (MT x NT) of an (M*MT) x (N*NT) result and inner dimension KT.
template <int M, int N, int K, typename TA, typename TAcc, typename LB>
static void run_wmma(const char* name, bool unsigned_ = false) {
  const int MT = 2, NT = 2, KT = 2 * K;
  const int rows = M * MT, cols = N * NT;
  std::vector<TA> a(rows * KT), b(KT * cols);
  std::vector<TAcc> c(rows * cols), d(rows * cols);
  std::vector<int> ia(rows * KT), ib(KT * cols);
  bool bcol = std::is_same<LB, wmma::col_major>::value;
  for (int i = 0; i < rows * KT; i++) a[i] = from_int<TA>(ia[i] = val(1, i, unsigned_));
  for (int kk = 0; kk < KT; kk++)
    for (int j = 0; j < cols; j++) {
      int v = ib[kk * cols + j] = val(2, kk * cols + j, unsigned_);
      b[bcol ? j * KT + kk : kk * cols + j] = from_int<TA>(v);
    }
  for (int i = 0; i < rows * cols; i++) c[i] = from_int<TAcc>(val(3, i, false));
  TA *da, *db;
  TAcc *dc, *dd;
  CHECK(cudaMalloc(&da, a.size() * sizeof(TA)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(TA)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(TAcc)));
  CHECK(cudaMalloc(&dd, d.size() * sizeof(TAcc)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(TA), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(TA), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(TAcc), cudaMemcpyHostToDevice));
  wmma_gemm<M, N, K, TA, TAcc, LB, KT><<<MT * NT, 32>>>(da, db, dc, dd, NT);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(TAcc), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) {
      long s = val(3, i * cols + j, false);
      for (int kk = 0; kk < KT; kk++) s += (long)ia[i * KT + kk] * ib[kk * cols + j];
      if (to_d(d[i * cols + j]) != 2.0 * s && bad++ < 3)
        fprintf(stderr, "%s: d[%d][%d] = %g, expected %ld\n", name, i, j, to_d(d[i * cols + j]),
                2 * s);
    }
  EXPECT_MSG(bad == 0, "%s: %d wrong elements", name, bad);
  fprintf(stderr, "%s: %s\n", name, bad ? "FAIL" : "ok");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dd);
}

// tf32 fragments hold floats converted with __float_to_tf32.
__global__ void wmma_tf32(const float* a, const float* b, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::fill_fragment(fc, 1.0f);
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 16);
  for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_col_major);
}

// s4 and b1 (sm_75 experimental API): A row-major, B col-major, 8x8 results.
__global__ void wmma_sub_byte(const unsigned* a4, const unsigned* b4, int* d4, const unsigned* a1,
                              const unsigned* b1, int* d1) {
  using namespace wmma::experimental;
  wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::s4, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::s4, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;
  wmma::fill_fragment(fc, 5);
  wmma::load_matrix_sync(fa, a4, 32);
  wmma::load_matrix_sync(fb, b4, 32);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d4, fc, 8, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> ga;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> gb;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> gc;
  wmma::fill_fragment(gc, 0);
  wmma::load_matrix_sync(ga, a1, 128);
  wmma::load_matrix_sync(gb, b1, 128);
  wmma::bmma_sync(gc, ga, gb, gc, bmmaBitOpXOR, bmmaAccumulateOpPOPC);
  wmma::store_matrix_sync(d1, gc, 8, wmma::mem_row_major);
}

// ---- mma.sync through inline PTX, operands from shared memory by ldmatrix.
// A: 16x16 f16 row-major, B: 16x8 stored as B^T (8x16, so ldmatrix without .trans gives the
// col-major fragment) and again as 16x8 row-major (ldmatrix .trans); D = A*B + C (f32).
__global__ void mma_f16(const __half* a, const __half* bt, const __half* b, const float* c,
                        float* d, float* d2, __half* a_back, __half* a_mov) {
  __shared__ __align__(16) __half sa[16 * 16], sbt[8 * 16], sb[16 * 8];
  int l = threadIdx.x;
  for (int i = l; i < 256; i += 32) sa[i] = a[i];
  for (int i = l; i < 128; i += 32) sbt[i] = bt[i], sb[i] = b[i];
  __syncwarp();
  unsigned ra[4], rb[2], rb2[2];
  // x4: matrices (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols 8-15), (8-15, 8-15)
  // in a0..a3 order: lane l gives row (l % 16), column block (l / 16) * 8.
  unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[(l % 16) * 16 + (l / 16) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
               : "r"(pa));
  unsigned pb = (unsigned)__cvta_generic_to_shared(&sbt[(l % 8) * 16 + ((l / 8) % 2) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
               : "=r"(rb[0]), "=r"(rb[1])
               : "r"(pb));
  unsigned pb2 = (unsigned)__cvta_generic_to_shared(&sb[(l % 16) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
               : "=r"(rb2[0]), "=r"(rb2[1])
               : "r"(pb2));
  int g = l / 4, t = l % 4;
  float cc[4], dd[4], dd2[4];
  for (int i = 0; i < 4; i++) cc[i] = c[(g + 8 * (i / 2)) * 8 + t * 2 + (i % 2)];
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%10,%11,%12,%13};"
      : "=f"(dd[0]), "=f"(dd[1]), "=f"(dd[2]), "=f"(dd[3])
      : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(cc[0]),
        "f"(cc[1]), "f"(cc[2]), "f"(cc[3]));
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%10,%11,%12,%13};"
      : "=f"(dd2[0]), "=f"(dd2[1]), "=f"(dd2[2]), "=f"(dd2[3])
      : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb2[0]), "r"(rb2[1]), "f"(cc[0]),
        "f"(cc[1]), "f"(cc[2]), "f"(cc[3]));
  for (int i = 0; i < 4; i++) {
    d[(g + 8 * (i / 2)) * 8 + t * 2 + (i % 2)] = dd[i];
    d2[(g + 8 * (i / 2)) * 8 + t * 2 + (i % 2)] = dd2[i];
  }
  // stmatrix writes A back from its fragments; movmatrix transposes the top-left 8x8 block.
  __shared__ __align__(16) __half back[16 * 16];
  unsigned pback = (unsigned)__cvta_generic_to_shared(&back[(l % 16) * 16 + (l / 16) * 8]);
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(pback),
               "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3])
               : "memory");
  __syncwarp();
  for (int i = l; i < 256; i += 32) a_back[i] = back[i];
  unsigned m;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(m) : "r"(ra[0]));
  memcpy(&a_mov[2 * l], &m, 4);  // lane l: row l/4, cols 2(l%4), 2(l%4)+1 of the transpose
}

// Other mma kinds with fragments filled from global memory by the ISA's formulas: tf32
// m16n8k8, bf16 m16n8k16, f64 m8n8k4 and m16n8k8, s8 m16n8k32 (.satfinite), s4 m16n8k64,
// b1 m16n8k256 (.and.popc). A is M x K row-major, B is K x N row-major (int elements), C 0.
struct Kinds {
  int a[16 * 256], b[256 * 8];
  double out_tf32[128], out_bf16[128], out_f64a[64], out_f64b[128];
  int out_s8[128], out_s4[128], out_b1[128];
  float trunc_result;
};

__device__ unsigned pack(const int* m, int ld, int r0, int c0, int dr, int dc, int n, int bits) {
  unsigned v = 0;
  for (int j = 0; j < n; j++)
    v |= ((unsigned)m[(r0 + j * dr) * ld + c0 + j * dc] & ((1u << bits) - 1)) << (j * bits);
  return v;
}

__global__ void mma_kinds(Kinds* k) {
  int l = threadIdx.x, g = l / 4, t = l % 4;
  const int* A = k->a;
  const int* B = k->b;
  // tf32 m16n8k8: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (t, g), b1 (t+4, g).
  {
    float a[4], b[2], d[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) a[i] = (float)A[(g + 8 * (i % 2)) * 8 + t + 4 * (i / 2)];
    for (int i = 0; i < 2; i++) b[i] = (float)B[(t + 4 * i) * 8 + g];
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
          "r"(__float_as_uint(a[3])), "r"(__float_as_uint(b[0])), "r"(__float_as_uint(b[1])));
    for (int i = 0; i < 4; i++) k->out_tf32[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
  }
  // bf16 m16n8k16: like f16 (pairs along k).
  {
    unsigned a[4], b[2];
    float d[4] = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++) {
      int row = g + 8 * (r & 1), col = t * 2 + (r >> 1) * 8;
      __nv_bfloat162 p = __floats2bfloat162_rn((float)A[row * 16 + col], (float)A[row * 16 + col + 1]);
      memcpy(&a[r], &p, 4);
    }
    for (int r = 0; r < 2; r++) {
      int row = t * 2 + r * 8;
      __nv_bfloat162 p = __floats2bfloat162_rn((float)B[row * 8 + g], (float)B[(row + 1) * 8 + g]);
      memcpy(&b[r], &p, 4);
    }
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; i++) k->out_bf16[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
  }
  // f64 m8n8k4: a0 (g, t), b0 (t, g), c (g, 2t + i).
  {
    double a = A[g * 4 + t], b = B[t * 8 + g], d0 = 0, d1 = 0;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a), "d"(b));
    k->out_f64a[g * 8 + 2 * t] = d0;
    k->out_f64a[g * 8 + 2 * t + 1] = d1;
  }
#if __CUDA_ARCH__ >= 900
  // f64 m16n8k8 (sm_90): like tf32 m16n8k8.
  {
    double a[4], b[2], d[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) a[i] = A[(g + 8 * (i % 2)) * 8 + t + 4 * (i / 2)];
    for (int i = 0; i < 2; i++) b[i] = B[(t + 4 * i) * 8 + g];
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    for (int i = 0; i < 4; i++) k->out_f64b[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
  }
#endif
  // s8 m16n8k32: a_r = 4 elements at (g + 8(r&1), 4t + 16(r>>1)); b_r = 4 at (4t + 16r, g).
  {
    unsigned a[4], b[2];
    int d[4] = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++) a[r] = pack(A, 32, g + 8 * (r & 1), 4 * t + 16 * (r >> 1), 0, 1, 4, 8);
    for (int r = 0; r < 2; r++) b[r] = pack(B, 8, 4 * t + 16 * r, g, 1, 0, 4, 8);
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; i++) k->out_s8[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
  }
  // s4 m16n8k64: 8 elements per register, a_r at (g + 8(r&1), 8t + 32(r>>1)), b_r (8t + 32r, g).
  {
    unsigned a[4], b[2];
    int d[4] = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++) a[r] = pack(A, 64, g + 8 * (r & 1), 8 * t + 32 * (r >> 1), 0, 1, 8, 4);
    for (int r = 0; r < 2; r++) b[r] = pack(B, 8, 8 * t + 32 * r, g, 1, 0, 8, 4);
    asm volatile(
        "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; i++) k->out_s4[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
  }
  // b1 m16n8k256 .and.popc: 32 bits per register, a_r at (g + 8(r&1), 32t + 128(r>>1)).
  {
    unsigned a[4], b[2];
    int d[4] = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++)
      a[r] = pack(A, 256, g + 8 * (r & 1), 32 * t + 128 * (r >> 1), 0, 1, 32, 1);
    for (int r = 0; r < 2; r++) b[r] = pack(B, 8, 32 * t + 128 * r, g, 1, 0, 32, 1);
    asm volatile(
        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; i++) k->out_b1[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
  }
  // Truncation: row 0 of A = (1, 2^-13 x 15), column 0 of B the same, C = 0; other rows 0.
  {
    unsigned a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
    float d[4] = {0, 0, 0, 0};
    __half one = __float2half(1.0f), tiny = __float2half(1.0f / 8192);
    auto at = [&](int col) { return col == 0 ? one : tiny; };
    if (g == 0) {
      for (int r = 0; r < 4; r += 2) {
        __half2 p = __halves2half2(at(t * 2 + (r >> 1) * 8), at(t * 2 + (r >> 1) * 8 + 1));
        memcpy(&a[r], &p, 4);
      }
      for (int r = 0; r < 2; r++) {
        __half2 p = __halves2half2(at(t * 2 + r * 8), at(t * 2 + r * 8 + 1));
        memcpy(&b[r], &p, 4);
      }
    }
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    if (l == 0) k->trunc_result = d[0];
  }
}

// mma.sync by a warp of 16 threads: undefined in the ISA (.aligned), a launch error here.
__global__ void mma_partial(float* d) {
  unsigned z = 0;
  float c = 0, e[4];
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, "
      "{%4,%4}, {%5,%5,%5,%5};"
      : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
      : "r"(z), "f"(c));
  d[threadIdx.x] = e[0];
}

template <typename T>
static void expect_gemm(const char* name, const T* got, const int* a, const int* b, int m, int n,
                        int kk, int lda, int ldb, bool and_popc = false) {
  int bad = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      long s = 0;
      for (int x = 0; x < kk; x++)
        s += and_popc ? (long)((a[i * lda + x] & b[x * ldb + j]) & 1)
                      : (long)a[i * lda + x] * b[x * ldb + j];
      if ((double)got[i * n + j] != (double)s && bad++ < 3)
        fprintf(stderr, "%s: d[%d][%d] = %g, expected %ld\n", name, i, j, (double)got[i * n + j], s);
    }
  EXPECT_MSG(bad == 0, "%s: %d wrong elements", name, bad);
  fprintf(stderr, "%s: %s\n", name, bad ? "FAIL" : "ok");
}

int main() {
  run_wmma<16, 16, 16, __half, float, wmma::col_major>("wmma m16n16k16 f16->f32 col");
  run_wmma<16, 16, 16, __half, float, wmma::row_major>("wmma m16n16k16 f16->f32 row");
  run_wmma<32, 8, 16, __half, float, wmma::col_major>("wmma m32n8k16 f16->f32");
  run_wmma<8, 32, 16, __half, float, wmma::row_major>("wmma m8n32k16 f16->f32");
  run_wmma<16, 16, 16, __half, __half, wmma::col_major>("wmma m16n16k16 f16->f16");
  run_wmma<16, 16, 16, __nv_bfloat16, float, wmma::col_major>("wmma m16n16k16 bf16");
  run_wmma<32, 8, 16, __nv_bfloat16, float, wmma::row_major>("wmma m32n8k16 bf16");
  run_wmma<8, 8, 4, double, double, wmma::col_major>("wmma m8n8k4 f64");
  run_wmma<16, 16, 16, signed char, int, wmma::col_major>("wmma m16n16k16 s8");
  run_wmma<8, 32, 16, unsigned char, int, wmma::row_major>("wmma m8n32k16 u8", true);

  // tf32: A 16x8 row-major, B 8x16 row-major, C = 1, D stored column-major.
  {
    std::vector<float> a(128), b(128), d(256);
    std::vector<int> ia(128), ib(128);
    for (int i = 0; i < 128; i++) a[i] = ia[i] = val(4, i, false), b[i] = ib[i] = val(5, i, false);
    float *da, *db, *dd;
    CHECK(cudaMalloc(&da, 512));
    CHECK(cudaMalloc(&db, 512));
    CHECK(cudaMalloc(&dd, 1024));
    CHECK(cudaMemcpy(da, a.data(), 512, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), 512, cudaMemcpyHostToDevice));
    wmma_tf32<<<1, 32>>>(da, db, dd);
    CHECK(cudaMemcpy(d.data(), dd, 1024, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 16; j++) {
        int s = 1;
        for (int x = 0; x < 8; x++) s += ia[i * 8 + x] * ib[x * 16 + j];
        bad += d[j * 16 + i] != (float)s;
      }
    EXPECT_MSG(bad == 0, "wmma m16n16k8 tf32: %d wrong", bad);
    fprintf(stderr, "wmma m16n16k8 tf32: %s\n", bad ? "FAIL" : "ok");
  }

  // s4 and b1: A 8x32 (s4) / 8x128 (b1) row-major, B stored column-major (N x K).
  {
    int a4[8 * 32], b4[32 * 8], a1[8 * 128], b1[128 * 8];
    unsigned pa4[32] = {}, pb4[32] = {}, pa1[32] = {}, pb1[32] = {};
    for (int i = 0; i < 8; i++)
      for (int x = 0; x < 32; x++) {
        a4[i * 32 + x] = val(6, i * 32 + x, false);
        pa4[(i * 32 + x) / 8] |= (unsigned)(a4[i * 32 + x] & 15) << (4 * (x % 8));
        b4[x * 8 + i] = val(7, x * 8 + i, false);
        pb4[(i * 32 + x) / 8] |= (unsigned)(b4[x * 8 + i] & 15) << (4 * (x % 8));
      }
    for (int i = 0; i < 8; i++)
      for (int x = 0; x < 128; x++) {
        a1[i * 128 + x] = val(8, i * 128 + x, true) & 1;
        pa1[(i * 128 + x) / 32] |= (unsigned)a1[i * 128 + x] << (x % 32);
        b1[x * 8 + i] = val(9, x * 8 + i, true) & 1;
        pb1[(i * 128 + x) / 32] |= (unsigned)b1[x * 8 + i] << (x % 32);
      }
    unsigned* dv;
    int* dout;
    CHECK(cudaMalloc(&dv, 4 * 128));
    CHECK(cudaMalloc(&dout, 4 * 128));
    CHECK(cudaMemcpy(dv, pa4, 128, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv + 32, pb4, 128, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv + 64, pa1, 128, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv + 96, pb1, 128, cudaMemcpyHostToDevice));
    wmma_sub_byte<<<1, 32>>>(dv, dv + 32, dout, dv + 64, dv + 96, dout + 64);
    int out[128];
    CHECK(cudaMemcpy(out, dout, 512, cudaMemcpyDeviceToHost));
    int bad4 = 0, bad1 = 0;
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 8; j++) {
        int s = 5, p = 0;
        for (int x = 0; x < 32; x++) s += a4[i * 32 + x] * b4[x * 8 + j];
        for (int x = 0; x < 128; x++) p += a1[i * 128 + x] ^ b1[x * 8 + j];
        bad4 += out[i * 8 + j] != s;
        bad1 += out[64 + i * 8 + j] != p;
      }
    EXPECT_MSG(bad4 == 0, "wmma m8n8k32 s4: %d wrong", bad4);
    EXPECT_MSG(bad1 == 0, "wmma m8n8k128 b1 xor.popc: %d wrong", bad1);
    fprintf(stderr, "wmma m8n8k32 s4: %s\nwmma m8n8k128 b1: %s\n", bad4 ? "FAIL" : "ok", bad1 ? "FAIL" : "ok");
  }

  // mma.sync f16 with ldmatrix / stmatrix / movmatrix.
  {
    std::vector<__half> a(256), bt(128), b(128);
    std::vector<int> ia(256), ib(128);
    std::vector<float> c(128);
    for (int i = 0; i < 256; i++) a[i] = __int2half_rn(ia[i] = val(10, i, false));
    for (int kk = 0; kk < 16; kk++)
      for (int j = 0; j < 8; j++) {
        int v = ib[kk * 8 + j] = val(11, kk * 8 + j, false);
        b[kk * 8 + j] = bt[j * 16 + kk] = __int2half_rn(v);
      }
    for (int i = 0; i < 128; i++) c[i] = (float)val(12, i, false);
    __half *da, *dbt, *db, *dback, *dmov;
    float *dc, *dd, *dd2;
    CHECK(cudaMalloc(&da, 512));
    CHECK(cudaMalloc(&dbt, 256));
    CHECK(cudaMalloc(&db, 256));
    CHECK(cudaMalloc(&dback, 512));
    CHECK(cudaMalloc(&dmov, 128));
    CHECK(cudaMalloc(&dc, 512));
    CHECK(cudaMalloc(&dd, 512));
    CHECK(cudaMalloc(&dd2, 512));
    CHECK(cudaMemcpy(da, a.data(), 512, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dbt, bt.data(), 256, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), 256, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), 512, cudaMemcpyHostToDevice));
    mma_f16<<<1, 32>>>(da, dbt, db, dc, dd, dd2, dback, dmov);
    CHECK(cudaGetLastError());
    std::vector<float> d(128), d2(128);
    std::vector<__half> back(256), mov(64);
    CHECK(cudaMemcpy(d.data(), dd, 512, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(d2.data(), dd2, 512, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(back.data(), dback, 512, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(mov.data(), dmov, 128, cudaMemcpyDeviceToHost));
    int bad = 0, bad2 = 0, badb = 0, badm = 0;
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 8; j++) {
        float s = c[i * 8 + j];
        for (int x = 0; x < 16; x++) s += (float)(ia[i * 16 + x] * ib[x * 8 + j]);
        bad += d[i * 8 + j] != s;
        bad2 += d2[i * 8 + j] != s;
      }
    for (int i = 0; i < 256; i++) badb += __half2float(back[i]) != (float)ia[i];
    // movmatrix of a0 (the top-left 8x8 block of A): lane l holds row l/4, columns 2(l%4),
    // 2(l%4)+1 of its transpose, so mov[r * 8 + c] = A[c][r].
    for (int r = 0; r < 8; r++)
      for (int cc = 0; cc < 8; cc++) badm += __half2float(mov[r * 8 + cc]) != (float)ia[cc * 16 + r];
    EXPECT_MSG(bad == 0, "mma m16n8k16 f16 (ldmatrix): %d wrong", bad);
    EXPECT_MSG(bad2 == 0, "mma m16n8k16 f16 (ldmatrix.trans): %d wrong", bad2);
    EXPECT_MSG(badb == 0, "stmatrix: %d wrong", badb);
    EXPECT_MSG(badm == 0, "movmatrix: %d wrong", badm);
    fprintf(stderr, "mma f16 + ldmatrix: %s\nmma f16 + ldmatrix.trans: %s\nstmatrix: %s\nmovmatrix: %s\n",
           bad ? "FAIL" : "ok", bad2 ? "FAIL" : "ok", badb ? "FAIL" : "ok", badm ? "FAIL" : "ok");
  }

  // The other mma kinds.
  {
    Kinds* k;
    CHECK(cudaMallocManaged(&k, sizeof(Kinds)));
    memset(k, 0, sizeof(Kinds));
    for (int i = 0; i < 16 * 256; i++) k->a[i] = val(13, i, false);
    for (int i = 0; i < 256 * 8; i++) k->b[i] = val(14, i, false);
    mma_kinds<<<1, 32>>>(k);
    CHECK(cudaDeviceSynchronize());
    int dev;
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    expect_gemm("mma m16n8k8 tf32", k->out_tf32, k->a, k->b, 16, 8, 8, 8, 8);
    expect_gemm("mma m16n8k16 bf16", k->out_bf16, k->a, k->b, 16, 8, 16, 16, 8);
    expect_gemm("mma m8n8k4 f64", k->out_f64a, k->a, k->b, 8, 8, 4, 4, 8);
    if (prop.major >= 9) expect_gemm("mma m16n8k8 f64", k->out_f64b, k->a, k->b, 16, 8, 8, 8, 8);
    expect_gemm("mma m16n8k32 s8", k->out_s8, k->a, k->b, 16, 8, 32, 32, 8);
    expect_gemm("mma m16n8k64 s4", k->out_s4, k->a, k->b, 16, 8, 64, 64, 8);
    expect_gemm("mma m16n8k256 b1 and.popc", k->out_b1, k->a, k->b, 16, 8, 256, 256, 8, true);
    EXPECT_MSG(k->trunc_result == 1.0f, "mma f16 truncation: %a, expected 0x1p+0",
               k->trunc_result);
    fprintf(stderr, "mma truncation: %a\n", k->trunc_result);
  }

  // Last: the error is sticky.
  {
    float* d;
    CHECK(cudaMalloc(&d, 64 * sizeof(float)));
    mma_partial<<<1, 16>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    EXPECT_MSG(e != cudaSuccess, "mma.sync by 16 threads ran");
    fprintf(stderr, "mma by a partial warp: %s\n", cudaGetErrorName(e));
  }
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures == 0 ? 0 : 1;
}
