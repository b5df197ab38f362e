// cuTensorMapEncodeIm2colWide and the sm_100 modes of cp.async.bulk.tensor (PTX ISA 5.5.3.4,
// 5.5.5, 9.7.9.25.5.2), built for compute_100a and run on the B200 profile:
// 1. the encoder's argument checks, each expected answer from cuda.h's documentation of
//    cuTensorMapEncodeIm2colWide (the comment names the rule) or, where cuda.h says nothing,
//    the ISA ("the interleave layout is not supported for .im2col::w and .im2col::w::128");
// 2. .im2col::w and .im2col::w::128 loads through maps it encodes, against the CPU model below
//    (a reading of the ISA's text: the column along W from W + wOffset through the bounding
//    box lower + wOffset ..= dim - 1 + upper + wOffset, carrying into the next image past it;
//    wHalo halo pixels after the column, or after each 32 pixels with ::128), placed by the
//    128-byte swizzle of ISA 5.5.7;
// 3. a .tile::gather4 load and a .tile::scatter4 store through a tiled map.
// Prints PASS when every check holds. On a device below sm_100 (argument "sm90") it checks
// only that the encoder answers as an H200's driver did (results/tma-wide-h200.txt): it
// encodes, though cuda.h says "only supported on devices of compute capability 10.0", and
// refuses a rank of 2.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static PFN_cuTensorMapEncodeIm2colWide_v12080 encWide;
static PFN_cuTensorMapEncodeTiled_v12000 encTiled;
static int failures = 0;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  printf("FAIL %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

static void expect(const char* what, bool ok) {
  if (!ok) {
    printf("FAIL %s\n", what);
    failures++;
  }
}

// ---------------------------------------------------------------- 1. argument checks
struct Args {
  CUtensorMap* map;
  int dtype = CU_TENSOR_MAP_DATA_TYPE_UINT32;
  unsigned rank = 4;
  void* addr;
  cuuint64_t dims[5] = {4, 5, 3, 2, 1};
  cuuint64_t strides[4] = {16, 80, 240, 480};
  int lower = -1, upper = 0;
  unsigned cpp = 4, ppc = 8;
  cuuint32_t es[5] = {1, 1, 1, 1, 1};
  int interleave = 0, mode = 0, swizzle = CU_TENSOR_MAP_SWIZZLE_128B, l2 = 0, fill = 0;
  CUresult run() {
    return encWide(map, (CUtensorMapDataType)dtype, rank, addr, dims, strides, lower, upper, cpp,
                   ppc, es, (CUtensorMapInterleave)interleave, (CUtensorMapIm2ColWideMode)mode,
                   (CUtensorMapSwizzle)swizzle, (CUtensorMapL2promotion)l2,
                   (CUtensorMapFloatOOBfill)fill);
  }
};

static void check(const char* name, Args a, CUresult want) {
  CUresult got = a.run();
  if (got != want) {
    printf("FAIL encode %s: %d, want %d\n", name, (int)got, (int)want);
    failures++;
  }
}

static void part1(char* g, CUtensorMap* map) {
  const CUresult OK = CUDA_SUCCESS, BAD = CUDA_ERROR_INVALID_VALUE;
  Args base;
  base.map = map;
  base.addr = g;
  check("base", base, OK);
  { Args a = base; a.map = nullptr; check("map_null", a, BAD); }
  // "tensorRank ... must be 3, 4, or 5."
  { Args a = base; a.rank = 2; check("rank2", a, BAD); }
  { Args a = base; a.rank = 3; check("rank3", a, OK); }
  { Args a = base; a.rank = 5; check("rank5", a, OK); }
  { Args a = base; a.rank = 6; check("rank6", a, BAD); }
  // "globalAddress ... must be 16 byte aligned."
  { Args a = base; a.addr = g + 8; check("addr_off8", a, BAD); }
  // "globalDim ... must be non-zero"
  { Args a = base; a.dims[0] = 0; check("dim0_0", a, BAD); }
  // "globalStrides ... must be a multiple of 16 and less than 2^40."
  { Args a = base; a.strides[1] = 88; check("stride_88", a, BAD); }
  { Args a = base; a.strides[2] = 1ull << 40; check("stride_2p40", a, BAD); }
  // "elementStrides ... must be non-zero and less than or equal to 8."
  { Args a = base; a.es[1] = 0; check("es1_0", a, BAD); }
  { Args a = base; a.es[1] = 8; check("es1_8", a, OK); }
  { Args a = base; a.es[2] = 9; check("es2_9", a, BAD); }
  // "pixelBoxLowerCornerWidth ... within range [-32768, 32767]", the upper one too, and
  // "must have non-zero area".
  { Args a = base; a.lower = -32768; a.upper = 32767; check("corners_extreme", a, OK); }
  { Args a = base; a.lower = -32769; check("lower_m32769", a, BAD); }
  { Args a = base; a.upper = 32768; check("upper_32768", a, BAD); }
  { Args a = base; a.lower = 3; a.upper = -2; check("zero_area", a, BAD); }
  { Args a = base; a.lower = 2; a.upper = -2; check("one_pixel", a, OK); }
  // "channelsPerPixel ... must be less than or equal to 256", a row of whole 16 bytes, and
  // "the bounding box inner dimension ... must be less than or equal to the swizzle size".
  { Args a = base; a.cpp = 0; check("cpp0", a, BAD); }
  { Args a = base; a.cpp = 3; check("cpp3_12B", a, BAD); }
  { Args a = base; a.cpp = 32; check("cpp32_128B_sw128", a, OK); }
  { Args a = base; a.cpp = 36; check("cpp36_144B_sw128", a, BAD); }
  { Args a = base; a.cpp = 16; a.swizzle = CU_TENSOR_MAP_SWIZZLE_64B; check("cpp16_64B_sw64", a, OK); }
  { Args a = base; a.cpp = 20; a.swizzle = CU_TENSOR_MAP_SWIZZLE_64B; check("cpp20_80B_sw64", a, BAD); }
  // "pixelsPerColumn ... must be less than or equal to 1024. This field is ignored when mode
  // is CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128."
  { Args a = base; a.ppc = 0; check("ppc0", a, BAD); }
  { Args a = base; a.ppc = 1024; check("ppc1024", a, OK); }
  { Args a = base; a.ppc = 1025; check("ppc1025", a, BAD); }
  { Args a = base; a.ppc = 0; a.mode = 1; check("w128_ppc0", a, OK); }
  { Args a = base; a.ppc = 1025; a.mode = 1; check("w128_ppc1025", a, OK); }
  // "mode ... has to be one of" W, W128.
  { Args a = base; a.mode = 2; check("mode2", a, BAD); }
  // "swizzle ... must be one of" 64B, 128B, 128B_ATOM_32B ("other swizzle modes are not
  // supported").
  // No swizzle is taken all the same: an H200's driver encodes it (results/tma-wide-h200.txt).
  { Args a = base; a.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE; check("sw_none", a, OK); }
  { Args a = base; a.swizzle = CU_TENSOR_MAP_SWIZZLE_32B; check("sw_32B", a, BAD); }
  { Args a = base; a.swizzle = CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B; check("sw_128B_atom32", a, OK); }
  { Args a = base; a.swizzle = CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B; check("sw_flip8", a, BAD); }
  { Args a = base; a.swizzle = CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B; check("sw_atom64", a, BAD); }
  { Args a = base; a.swizzle = 7; check("sw7", a, BAD); }
  // The ISA: no interleave in these modes.
  { Args a = base; a.interleave = CU_TENSOR_MAP_INTERLEAVE_16B; check("il16", a, BAD); }
  // The enums' ranges.
  { Args a = base; a.dtype = 16; check("dtype16", a, BAD); }
  { Args a = base; a.l2 = 4; check("l2promo4", a, BAD); }
  // "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA can only be used when tensorDataType
  // represents a floating-point data type".
  { Args a = base; a.fill = 1; check("fill_nan_u32", a, BAD); }
  { Args a = base; a.fill = 1; a.dtype = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; check("fill_nan_f32", a, OK); }
}

// ---------------------------------------------------------------- 2. wide im2col loads
__device__ __forceinline__ uint32_t saddr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

// One load into a 4 KiB box prefilled with 0xee bytes, copied out whole; out[4096] = 1 when the
// mbarrier's phase completed right after (the copy's bytes were `tx`).
__global__ void wide_load(const __grid_constant__ CUtensorMap map, int mode, int c, int w, int h,
                          int n, unsigned short halo, unsigned short off, unsigned tx,
                          unsigned char* out) {
  __shared__ alignas(1024) unsigned char box[4096];
  __shared__ alignas(8) unsigned long long bar;
  for (int i = 0; i < 4096; i++) box[i] = 0xee;
  uint32_t b = saddr(&bar);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  uint64_t st;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;" : "=l"(st) : "r"(b), "r"(tx) : "memory");
  uint64_t m = reinterpret_cast<uint64_t>(&map);
  if (mode == 0)
    asm volatile("cp.async.bulk.tensor.4d.shared::cta.global.im2col::w.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};" ::"r"(saddr(box)), "l"(m),
                 "r"(c), "r"(w), "r"(h), "r"(n), "r"(b), "h"(halo), "h"(off) : "memory");
  else
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w::128.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5], {%6, %7};" ::"r"(saddr(box)), "l"(m),
                 "r"(c), "r"(w), "r"(n), "r"(b), "h"(halo), "h"(off) : "memory");
  uint32_t done;
  asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n"
               " selp.u32 %0, 1, 0, p;\n}\n" : "=r"(done) : "r"(b), "l"(st) : "memory");
  for (int i = 0; i < 4096; i++) out[i] = box[i];
  out[4096] = done;
}

// Element values: 1 + c + 10 w + 100 h + 1000 n (never 0, the out-of-bound fill).
static uint32_t value(long n, long h, long w, long c) { return (uint32_t)(1 + c + 10 * w + 100 * h + 1000 * n); }

struct Tensor {
  long N, H, W, C;
};

// The CPU model of one wide column: the pixels (n, h, w) in shared-memory order, each with an
// in-bounds flag.
struct Px {
  long n, h, w;
};
static std::vector<Px> model(long W, int lower, int upper, long es_w, long ppc, bool w128,
                             long w0, long h, long n0, long halo, long off) {
  std::vector<Px> v;
  long lo = lower + off, hi = W - 1 + upper + off, w = w0 + off, n = n0;
  long groups = w128 ? 4 : 1, per = w128 ? 32 : ppc;
  for (long g = 0; g < groups; g++) {
    Px last{};
    for (long k = 0; k < per; k++) {
      last = {n, h, w};
      v.push_back(last);
      if (w + es_w <= hi) w += es_w;
      else { w = lo; n++; }
    }
    for (long k = 1; k <= halo; k++) v.push_back({last.n, last.h, last.w + k * es_w});
  }
  return v;
}

// The box the model's pixels fill (C u32 channels each from channel 0), placed by the 128-byte
// swizzle: the 16-byte chunk of offset o moves to chunk (o / 16 % 8) ^ (o / 128 % 8).
static std::vector<unsigned char> expected_box(const Tensor& t, const std::vector<Px>& px) {
  std::vector<unsigned char> lin, box(4096, 0xee);
  for (const Px& p : px)
    for (long c = 0; c < t.C; c++) {
      bool in = p.n >= 0 && p.n < t.N && p.h >= 0 && p.h < t.H && p.w >= 0 && p.w < t.W;
      uint32_t x = in ? value(p.n, p.h, p.w, c) : 0;
      unsigned char b[4];
      memcpy(b, &x, 4);
      lin.insert(lin.end(), b, b + 4);
    }
  for (size_t o = 0; o < lin.size(); o++) {
    size_t s = (o & ~(size_t)0x70) | ((((o >> 4) & 7) ^ ((o >> 7) & 7)) << 4);
    box[s] = lin[o];
  }
  return box;
}

static int part2(CUtensorMap* map, unsigned char* dout) {
  struct Case {
    const char* name;
    Tensor t;
    int lower, upper;
    unsigned es_w, ppc;
    int mode;
    int w, h, n;
    unsigned short halo, off;
  };
  // 4-D NHWC N=2 H=3 W=5 C=4 (a pixel is 16 bytes) with W mode; 3-D NWC N=4 W=40 C=4 with
  // W128 mode (H is 1 there).
  Tensor a{2, 3, 5, 4}, b{4, 1, 40, 4};
  Case cases[] = {
      {"w_pad_halo2", a, -1, 0, 1, 8, 0, -1, 1, 0, 2, 0},
      {"w_off1", a, -1, 0, 1, 8, 0, -1, 1, 0, 2, 1},
      {"w_es2_past_last_image", a, -1, 0, 2, 8, 0, -1, 1, 0, 1, 0},
      {"w_left_of_box", a, 0, 0, 1, 8, 0, -2, 1, 0, 0, 0},
      {"w_row_outside", a, -1, 0, 1, 4, 0, 0, 3, 1, 1, 0},
      {"w128_halo3_off1", b, 0, 0, 1, 7, 1, 0, 0, 0, 3, 1},
      {"w128_es3_halo2", b, -2, 1, 3, 0, 1, -2, 0, 1, 2, 2},
  };
  for (const Case& k : cases) {
    std::vector<uint32_t> host;
    for (long n = 0; n < k.t.N; n++)
      for (long h = 0; h < k.t.H; h++)
        for (long w = 0; w < k.t.W; w++)
          for (long c = 0; c < k.t.C; c++) host.push_back(value(n, h, w, c));
    uint32_t* g;
    CK(cudaMalloc(&g, host.size() * 4));
    CK(cudaMemcpy(g, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
    bool rank3 = k.mode == 1;
    Args e;
    e.map = map;
    e.addr = g;
    e.rank = rank3 ? 3 : 4;
    cuuint64_t d4[5] = {(cuuint64_t)k.t.C, (cuuint64_t)k.t.W, (cuuint64_t)k.t.H, (cuuint64_t)k.t.N, 1};
    cuuint64_t d3[5] = {(cuuint64_t)k.t.C, (cuuint64_t)k.t.W, (cuuint64_t)k.t.N, 1, 1};
    memcpy(e.dims, rank3 ? d3 : d4, sizeof d4);
    cuuint64_t row = k.t.C * 4;
    cuuint64_t s4[4] = {row, row * k.t.W, row * k.t.W * k.t.H, 0};
    cuuint64_t s3[4] = {row, row * k.t.W, 0, 0};
    memcpy(e.strides, rank3 ? s3 : s4, sizeof s4);
    e.lower = k.lower;
    e.upper = k.upper;
    e.cpp = k.t.C;
    e.ppc = k.ppc;
    e.es[1] = k.es_w;
    e.mode = k.mode;
    CUresult r = e.run();
    if (r != CUDA_SUCCESS) {
      printf("FAIL %s: encode %d\n", k.name, (int)r);
      failures++;
      continue;
    }
    std::vector<Px> px = model(k.t.W, k.lower, k.upper, k.es_w, k.ppc, k.mode == 1, k.w, k.h,
                               k.n, k.halo, k.off);
    std::vector<unsigned char> want = expected_box(k.t, px);
    unsigned tx = (unsigned)(px.size() * k.t.C * 4);
    // Coordinates: C 0, W, (H,) N.
    int c2 = rank3 ? k.n : k.h;
    wide_load<<<1, 1>>>(*map, k.mode, 0, k.w, c2, k.n, k.halo, k.off, tx, dout);
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> got(4097);
    CK(cudaMemcpy(got.data(), dout, 4097, cudaMemcpyDeviceToHost));
    char what[128];
    snprintf(what, sizeof what, "%s: the mbarrier completed with %u bytes", k.name, tx);
    expect(what, got[4096] == 1);
    size_t bad = 0;
    while (bad < 4096 && got[bad] == want[bad]) bad++;
    if (bad < 4096) {
      printf("FAIL %s: box byte %zu is %#x, want %#x\n", k.name, bad, got[bad], want[bad]);
      failures++;
    }
    cudaFree(g);
  }
  return 0;
}

// ---------------------------------------------------------------- 3. gather4 and scatter4
__global__ void four_rows(const __grid_constant__ CUtensorMap map, int col, int r0, int r1, int r2,
                          int r3, unsigned* out) {
  __shared__ alignas(128) unsigned box[32];
  __shared__ alignas(8) unsigned long long bar;
  uint32_t b = saddr(&bar);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  uint64_t st;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], 128;" : "=l"(st) : "r"(b) : "memory");
  uint64_t m = reinterpret_cast<uint64_t>(&map);
  asm volatile("cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];" ::"r"(saddr(box)), "l"(m), "r"(col),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(b) : "memory");
  uint32_t done;
  asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n"
               " selp.u32 %0, 1, 0, p;\n}\n" : "=r"(done) : "r"(b), "l"(st) : "memory");
  for (int i = 0; i < 32; i++) out[i] = box[i];
  out[32] = done;
  // The same rows back, one to the right: each box element + 5000 to columns col + 1 ...
  for (int i = 0; i < 32; i++) box[i] += 5000;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"
               " [%0, {%1, %2, %3, %4, %5}], [%6];" ::"l"(m), "r"(col + 1), "r"(r0), "r"(r1),
               "r"(r2), "r"(r3), "r"(saddr(box)) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

static int part3(CUtensorMap* map, unsigned* dout) {
  // 10 rows of 12 u32 columns, element 1 + col + 100 row; a box of 8 columns by 1 row.
  const int R = 10, C = 12;
  std::vector<uint32_t> host(R * C);
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) host[r * C + c] = 1 + c + 100 * r;
  uint32_t* g;
  CK(cudaMalloc(&g, host.size() * 4));
  CK(cudaMemcpy(g, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
  cuuint64_t dims[2] = {C, R}, strides[1] = {C * 4};
  cuuint32_t boxd[2] = {8, 1}, es[2] = {1, 1};
  CUresult r = encTiled(map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, g, dims, strides, boxd, es,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  expect("encode tiled 2-D", r == CUDA_SUCCESS);
  // Columns 4..12 of rows 2, 9, 0 and 10 (past the last row: zeros).
  int col = 4, rows[4] = {2, 9, 0, 10};
  four_rows<<<1, 1>>>(*map, col, rows[0], rows[1], rows[2], rows[3], dout);
  CK(cudaDeviceSynchronize());
  std::vector<uint32_t> got(33), after(R * C);
  CK(cudaMemcpy(got.data(), dout, 33 * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(after.data(), g, after.size() * 4, cudaMemcpyDeviceToHost));
  expect("gather4: the mbarrier completed with 128 bytes", got[32] == 1);
  std::vector<uint32_t> want_after = host;
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 8; j++) {
      int c = col + j, rr = rows[k];
      uint32_t x = (c < C && rr < R) ? 1 + c + 100 * rr : 0;
      char what[96];
      snprintf(what, sizeof what, "gather4 row %d column %d: %u, want %u", k, j, got[k * 8 + j], x);
      expect(what, got[k * 8 + j] == x);
      // scatter4 writes box element (k, j) + 5000 at column col + 1 + j of row rows[k], where
      // both are inside the tensor.
      if (col + 1 + j < C && rr < R) want_after[rr * C + col + 1 + j] = x + 5000;
    }
  for (int i = 0; i < R * C; i++) {
    char what[96];
    snprintf(what, sizeof what, "scatter4 element %d: %u, want %u", i, after[i], want_after[i]);
    expect(what, after[i] == want_after[i]);
  }
  cudaFree(g);
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  cudaDriverEntryPointQueryResult q;
  CK(cudaFree(0));
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2colWide", (void**)&encWide, 12080, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void**)&encTiled, 12000, cudaEnableDefault, &q));
  if (!encWide || !encTiled) {
    printf("FAIL: driver entry point missing\n");
    return 2;
  }
  char* g;
  unsigned char* dout;
  CUtensorMap* map = (CUtensorMap*)aligned_alloc(64, sizeof(CUtensorMap));
  CK(cudaMalloc(&g, 1 << 20));
  CK(cudaMalloc(&dout, 8192));
  if (argc > 1 && !strcmp(argv[1], "sm90")) {
    Args a;
    a.map = map;
    a.addr = g;
    check("sm90 base", a, CUDA_SUCCESS);
    a.rank = 2;
    check("sm90 rank2", a, CUDA_ERROR_INVALID_VALUE);
  } else {
    part1(g, map);
    if (part2(map, dout)) return 1;
    if (part3(map, (unsigned*)dout)) return 1;
  }
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
