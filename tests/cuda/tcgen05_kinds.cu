// tcgen05.mma's f8f6f4 kinds (ISA 9.7.16.10.9.1, built for compute_100a): `.kind::f8f6f4` with
// e4m3/e5m2/e3m2/e2m3/e2m1 multiplicands and f32 or f16 D, and the block-scaled
// `.kind::mxf8f6f4` (1X, ue8m0), `.kind::mxf4` (2X, ue8m0) and `.kind::mxf4nvf4` (2X ue8m0, 4X
// ue8m0 or ue4m3), each M = 128 and several N, A from shared memory or Tensor Memory, B from
// shared memory.
//
// One CTA of 128 threads per MMA. Shared memory holds A (128 rows) and B (N columns), 32 bytes
// a row, in the canonical K-major layout without swizzle (core matrices of 8 rows of 16 bytes,
// LBO 128 along K, SBO 256 between 8-row groups). Their formats (ISA 9.7.16.10.4): 8-bit
// elements as they are; the 6- and 4-bit elements of the f8f6f4 kinds packed 16 to 16 bytes,
// the first in the lowest bits, then 4 (fp6) or 8 (fp4) bytes of padding (9.7.16.10.4.4);
// mxf4's fp4 two to a byte, the first in the low nibble (9.7.16.10.4.6). A in Tensor Memory
// (columns 256-263, row r in lane r): the f8f6f4 kinds' elements in 8-bit containers, four to a
// word, fp6 in bits 5:0 and fp4 in bits 5:2 (9.7.16.10.4.3); mxf4's packed bytes
// (9.7.16.10.4.5). D (columns 0..N) starts as C (enable-input-d). Scale factors: 32 lanes of 4
// words (A, columns 264-267) and of 8 words (B, columns 272-279), the same in each lane
// partition of 32: row r of A in lane r % 32 of column r / 32, column n of B in lane n % 32 of
// column n / 32, factor q of a row or column in byte id + q of its word, id the instruction
// descriptor's scale factor A / B id (9.7.16.10.7, figures 231-233 and 240-242, CUTLASS 4.2's
// layout of its scale factor atoms).
//
// Inputs come from a fixed generator that scripts/oracles/tcgen05-kinds.py replays, so that
// expected outputs can be computed without a GPU: by mmasim 2.1.1's "Blackwell" models
// (scripts/oracles/tcgen05-kinds-mmasim.txt; tests/tcgen05.rs compares bit for bit). The
// containers' padding bits and the packed formats' padding bytes are random (from a second
// generator the script need not replay), so a model that reads them fails.
// Prints per configuration and trial `tc05 NAME trial T: D`, D's rows r with r % 32 in
// {0, 7, 13, 18, 25, 31} and (N > 64) only its columns n with n % 32 < 4, row by row, hex.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_fp16.h>

// Configurations: KIND.QUALIFIERS.TYPES.nN.(smem|tmem), the last A's place.
static const char* names[] = {
    "f8f6f4.f32.e4m3.e4m3.n16.smem",
    "f8f6f4.f32.e5m2.e2m1.n8.smem",
    "f8f6f4.f32.e3m2.e2m3.n24.tmem",
    "f8f6f4.f32.e2m1.e3m2.n8.tmem",
    "f8f6f4.f16.e4m3.e3m2.n8.smem",
    "f8f6f4.f16.e2m1.e5m2.n16.smem",
    "f8f6f4.f32.e2m1.e2m1.n136.smem",
    "f8f6f4.f32.e2m3.e4m3.n8.smem",
    "mxf8f6f4.block32.e4m3.e2m1.n16.smem",
    "mxf8f6f4.scale_vec::1X.e3m2.e5m2.n136.tmem",
    "mxf8f6f4.block32.e2m3.e4m3.n8.smem",
    "mxf8f6f4.block32.e2m1.e2m3.n8.tmem",
    "mxf4.block32.n16.smem",
    "mxf4.scale_vec::2X.n40.tmem",
    "mxf4nvf4.scale_vec::2X.ue8m0.n8.smem",
    "mxf4nvf4.block16.ue8m0.n16.smem",
    "mxf4nvf4.scale_vec::4X.ue4m3.n136.smem",
    "mxf4nvf4.block16.ue4m3.n24.tmem",
};

// The instruction's qualifiers after .cta_group::1 (each its own asm below).
static const char* quals[] = {
    "kind::f8f6f4",
    "kind::mxf8f6f4.block_scale.block32",
    "kind::mxf8f6f4.block_scale.scale_vec::1X",
    "kind::mxf4.block_scale.block32",
    "kind::mxf4.block_scale.scale_vec::2X",
    "kind::mxf4nvf4.block_scale.scale_vec::2X",
    "kind::mxf4nvf4.block_scale.block16",
    "kind::mxf4nvf4.block_scale.scale_vec::4X",
};

struct Args {
  const uint8_t* a;
  const uint8_t* b;
  const uint32_t* c;
  const uint32_t* sfa;
  const uint32_t* sfb;
  uint32_t* d;
  uint32_t idesc;
  int n, form, atmem;
};

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Byte c of row r, rows of 32 bytes, canonical K-major without swizzle.
__device__ __forceinline__ int canon(int r, int c) {
  return (r % 8) * 16 + (r / 8) * 256 + (c % 16) + (c / 16) * 128;
}

// Shared-memory descriptor (ISA table 42): start, LBO 128, SBO 256, the fixed 0b001 at bit 46,
// no swizzle.
__device__ __forceinline__ uint64_t desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3ffff) >> 4) | (uint64_t)(128 >> 4) << 16 |
         (uint64_t)(256 >> 4) << 32 | 1ull << 46;
}

__device__ __forceinline__ void st(uint32_t addr, uint32_t v) {
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(addr), "r"(v));
}

// enable-input-d true: D accumulates onto C.
#define MMA_P "{ .reg .pred p; setp.eq.u32 p, 1, 1;\n"

#define SCALED(I, Q)                                                                           \
  case I:                                                                                      \
    if (p.atmem)                                                                               \
      asm volatile(MMA_P "tcgen05.mma.cta_group::1." Q " [%0], [%1], %2, %3, [%4], [%5], p; }" ::"r"(t), \
                   "r"(t + 256), "l"(db), "r"(p.idesc), "r"(t + 264), "r"(t + 272));           \
    else                                                                                       \
      asm volatile(MMA_P "tcgen05.mma.cta_group::1." Q " [%0], %1, %2, %3, [%4], [%5], p; }" ::"r"(t),   \
                   "l"(da), "l"(db), "r"(p.idesc), "r"(t + 264), "r"(t + 272));                \
    break;

__global__ void __launch_bounds__(128) mma(Args p) {
  __shared__ alignas(1024) uint8_t sa[128 * 32];
  __shared__ alignas(1024) uint8_t sb[256 * 32];
  __shared__ alignas(8) uint64_t bar;
  __shared__ uint32_t taddr;
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 512;" ::"r"(
        smem(&taddr)));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  if (tid == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  uint32_t t = taddr;
  for (int i = tid; i < 128 * 32; i += 128) sa[canon(i / 32, i % 32)] = p.a[i];
  for (int i = tid; i < p.n * 32; i += 128) sb[canon(i / 32, i % 32)] = p.b[i];
  // Row tid of D (and of A) is lane tid; the scale factors' lane `lane` of each partition.
  uint32_t row = t + ((warp * 32) << 16);
  for (int j = 0; j < p.n; j++) st(row + j, p.c[tid * p.n + j]);
  if (p.atmem)
    for (int j = 0; j < 8; j++) {
      const uint8_t* w = p.a + tid * 32 + 4 * j;
      st(row + 256 + j, w[0] | w[1] << 8 | w[2] << 16 | (uint32_t)w[3] << 24);
    }
  for (int j = 0; j < 4; j++) st(row + 264 + j, p.sfa[lane * 4 + j]);
  for (int j = 0; j < 8; j++) st(row + 272 + j, p.sfb[lane * 8 + j]);
  asm volatile("tcgen05.wait::st.sync.aligned;");
  asm volatile("fence.proxy.async.shared::cta;");
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  if (tid == 0) {
    asm volatile("tcgen05.fence::after_thread_sync;");
    uint64_t da = desc(smem(sa)), db = desc(smem(sb));
    switch (p.form) {
      case 0:
        if (p.atmem)
          asm volatile(MMA_P "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], [%1], %2, %3, p; }" ::"r"(t),
                       "r"(t + 256), "l"(db), "r"(p.idesc));
        else
          asm volatile(MMA_P "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p; }" ::"r"(t),
                       "l"(da), "l"(db), "r"(p.idesc));
        break;
      SCALED(1, "kind::mxf8f6f4.block_scale.block32")
      SCALED(2, "kind::mxf8f6f4.block_scale.scale_vec::1X")
      SCALED(3, "kind::mxf4.block_scale.block32")
      SCALED(4, "kind::mxf4.block_scale.scale_vec::2X")
      SCALED(5, "kind::mxf4nvf4.block_scale.scale_vec::2X")
      SCALED(6, "kind::mxf4nvf4.block_scale.block16")
      SCALED(7, "kind::mxf4nvf4.block_scale.scale_vec::4X")
    }
    asm volatile(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"l"(
            (uint64_t)smem(&bar)));
  }
  asm volatile(
      "{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
      "@!p bra W; }" ::"r"(smem(&bar)));
  asm volatile("tcgen05.fence::after_thread_sync;");
  for (int j = 0; j < p.n; j++) {
    uint32_t v;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];\n"
                 "tcgen05.wait::ld.sync.aligned;"
                 : "=r"(v)
                 : "r"(row + j));
    p.d[tid * p.n + j] = v;
  }
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 512;" ::"r"(t));
}

// The generator the script replays: s = s * 1664525 + 1013904223 (mod 2^32), yielding s >> 8.
static uint32_t s_main = 105, s_pad = 7;
static uint32_t next(uint32_t& s) {
  s = s * 1664525u + 1013904223u;
  return s >> 8;
}
static uint32_t rnd() { return next(s_main); }

// An element's byte (the 6- and 4-bit types in their containers, padding bits random). Style 0:
// any byte (NaN and infinities of e4m3/e5m2 included); 1: e4m3/e5m2 of exponents near 1; 2: no
// NaN or infinity.
static uint32_t element(const std::string& ty, int style) {
  uint32_t v = rnd() & 0xff;
  bool e5 = ty == "e5m2";
  if (ty != "e4m3" && !e5) return v;
  if (style == 1) {
    uint32_t sign = v & 0x80, mant = rnd() & (e5 ? 3 : 7), mid = e5 ? 15 : 7;
    return sign | ((mid - 1 + rnd() % 3) << (e5 ? 2 : 3)) | mant;
  }
  if (style == 2)
    while (e5 ? (v & 0x7c) == 0x7c : (v & 0x7f) == 0x7f) v = rnd() & 0xff;
  return v;
}

static uint32_t scale_byte(bool ue4m3) {
  if (ue4m3) return rnd() % 8 == 0 ? rnd() & 0xff : 0x28 + rnd() % 0x20;
  uint32_t r = rnd() % 64;
  return r == 0 ? 0xff : (r == 1 ? rnd() & 0xff : 112 + rnd() % 32);
}

static int type_code(const std::string& t) {
  return t == "e4m3" ? 0 : t == "e5m2" ? 1 : t == "e2m3" ? 3 : t == "e3m2" ? 4 : 5;
}

// A row of 32 elements (containers) as shared memory holds it (see the top).
static void pack_row(const std::string& ty, const uint32_t* e, uint8_t* out) {
  int w = ty == "e2m1" ? 4 : (ty == "e3m2" || ty == "e2m3") ? 6 : 8;
  if (w == 8) {
    for (int i = 0; i < 32; i++) out[i] = e[i];
    return;
  }
  for (int ch = 0; ch < 2; ch++) {
    uint8_t* o = out + 16 * ch;
    for (int i = 0; i < 16; i++) o[i] = next(s_pad) & 0xff;
    memset(o, 0, 2 * w);
    for (int i = 0; i < 16; i++) {
      uint32_t v = w == 4 ? (e[16 * ch + i] >> 2) & 0xf : e[16 * ch + i] & 0x3f;
      int bit = i * w;
      o[bit / 8] |= v << (bit % 8);
      if (bit % 8 + w > 8) o[bit / 8 + 1] |= v >> (8 - bit % 8);
    }
  }
}

#define CHECK(x)                                                                               \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                 \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

int main() {
  uint8_t *da, *db;
  uint32_t *dc, *dsfa, *dsfb, *dd;
  CHECK(cudaMalloc(&da, 128 * 32));
  CHECK(cudaMalloc(&db, 256 * 32));
  CHECK(cudaMalloc(&dc, 128 * 256 * 4));
  CHECK(cudaMalloc(&dsfa, 128 * 4));
  CHECK(cudaMalloc(&dsfb, 256 * 4));
  CHECK(cudaMalloc(&dd, 128 * 256 * 4));
  for (const char* name : names) {
    std::vector<std::string> w;
    for (const char *p = name, *q; *p; p = *q ? q + 1 : q) {
      q = strchr(p, '.');
      if (!q) q = p + strlen(p);
      w.emplace_back(p, q - p);
    }
    std::string kind = w[0];
    bool f8 = kind == "f8f6f4", mx8 = kind == "mxf8f6f4", fp4 = !f8 && !mx8;
    bool atmem = w.back() == "tmem";
    int n = atoi(w[w.size() - 2].c_str() + 1);
    bool f16 = f8 && w[1] == "f16";
    std::string at = fp4 ? "e2m1" : w[2], bt = fp4 ? "e2m1" : w[3];
    bool ue4m3 = kind == "mxf4nvf4" && w[2] == "ue4m3";
    int vec = mx8 ? 1 : (w[1] == "block16" || w[1] == "scale_vec::4X") ? 4 : (f8 ? 0 : 2);
    std::string qual = "kind::" + kind + (f8 ? "" : ".block_scale." + w[1]);
    int form = -1;
    for (int i = 0; i < 8; i++)
      if (qual == quals[i]) form = i;
    if (form < 0) {
      fprintf(stderr, "no form for %s\n", name);
      return 1;
    }
    for (int trial = 0; trial < 3; trial++) {
      std::vector<uint8_t> a(128 * 32), b(256 * 32);
      std::vector<uint32_t> c(128 * n), sfa(128), sfb(256), d(128 * n);
      // A's 128 rows, then B's N columns, then C, as the script draws them.
      auto matrix = [&](std::vector<uint8_t>& m, int rows, const std::string& ty, bool tmem) {
        for (int r = 0; r < rows; r++) {
          if (fp4) {
            for (int i = 0; i < 32; i++) m[r * 32 + i] = rnd() & 0xff;
            continue;
          }
          uint32_t e[32];
          for (int i = 0; i < 32; i++) e[i] = element(ty, trial);
          if (tmem)
            for (int i = 0; i < 32; i++) m[r * 32 + i] = e[i];
          else
            pack_row(ty, e, &m[r * 32]);
        }
      };
      matrix(a, 128, at, atmem);
      matrix(b, n, bt, false);
      for (int i = 0; i < 128 * n; i++) {
        float v = 0.0f;
        if (trial > 0) {
          int m = (int)(rnd() % 20001) - 10000;
          v = (float)m / 100.0f * (float)(1 << (rnd() % 8));
        }
        uint32_t bits;
        if (f16) {
          __half h = __float2half_rn(v);
          uint16_t hb;
          memcpy(&hb, &h, 2);
          bits = hb;
        } else {
          memcpy(&bits, &v, 4);
        }
        c[i] = bits;
      }
      uint32_t ida = 0, idb = 0;
      if (!f8) {
        for (auto& x : sfa)
          for (int j = 0; j < 4; j++) x |= scale_byte(ue4m3) << (8 * j);
        for (auto& x : sfb)
          for (int j = 0; j < 4; j++) x |= scale_byte(ue4m3) << (8 * j);
        ida = vec == 1 ? rnd() % 4 : (vec == 2 ? 2 * (rnd() % 2) : 0);
        idb = vec == 1 ? rnd() % 4 : (vec == 2 ? 2 * (rnd() % 2) : 0);
      }
      // The instruction descriptor (ISA tables 44-46).
      uint32_t idesc = (uint32_t)(n >> 3) << 17;
      if (f8)
        idesc |= (f16 ? 0u : 1u) << 4 | type_code(at) << 7 | type_code(bt) << 10 | (128 >> 4) << 24;
      else if (mx8)
        idesc |= idb << 4 | type_code(at) << 7 | type_code(bt) << 10 | 1u << 23 | 1u << 27 |
                 ida << 29;
      else
        idesc |= idb << 4 | 1u << 7 | 1u << 10 | (ue4m3 ? 0u : 1u) << 23 | 1u << 27 | ida << 29;
      CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dsfa, sfa.data(), sfa.size() * 4, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(dsfb, sfb.data(), sfb.size() * 4, cudaMemcpyHostToDevice));
      Args args{da, db, dc, dsfa, dsfb, dd, idesc, n, form, atmem};
      mma<<<1, 128>>>(args);
      cudaError_t err = cudaDeviceSynchronize();
      if (err != cudaSuccess) {
        printf("tc05 %s trial %d: %s\n", name, trial, cudaGetErrorName(err));
        return 1;
      }
      CHECK(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost));
      printf("tc05 %s trial %d:", name, trial);
      for (int r = 0; r < 128; r++) {
        int rr = r % 32;
        if (rr != 0 && rr != 7 && rr != 13 && rr != 18 && rr != 25 && rr != 31) continue;
        for (int j = 0; j < n; j++)
          if (n <= 64 || j % 32 < 4) printf(f16 ? " %04x" : " %08x", d[r * n + j]);
      }
      printf("\n");
    }
  }
  printf("PASS tcgen05 kinds\n");
  return 0;
}
