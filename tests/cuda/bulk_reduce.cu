// cp.reduce.async.bulk (ISA 9.7.9.25.4.2) and cp.reduce.async.bulk.tensor: 64 CTAs at once
// reduce their shared-memory arrays into one global array (each element atomically), for every
// operation and type the ISA's table gives a global destination; a tile-mode tensor reduction
// of f32 boxes (add) and s32 boxes (max); and in a cluster of two, CTA 0 reducing into CTA 1's
// shared memory with mbarrier completion. Expected values: the ISA's arithmetic on the host
// (f32 add flushes subnormal inputs and results to zero; f16/bf16 add rounds to nearest even;
// inc/dec wrap at the source's value). Inputs are exact where the order of the CTAs would
// otherwise show. Prints PASS when all held; one line per case on stderr.
#include <cuda.h>
#include <cuda/barrier>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include "check.h"

#define CTAS 64
#define N 64  // 32-bit elements per array (256 bytes)

// Each CTA fills its 256-byte shared array with src(cta, i) and reduces it into `dst`.
#define REDUCE_KERNEL(NAME, INS)                                                               \
  __global__ void NAME(void* dst, const uint32_t* src) {                                        \
    __shared__ alignas(16) uint32_t s[N];                                                       \
    for (int i = threadIdx.x; i < N; i += blockDim.x) s[i] = src[blockIdx.x * N + i];           \
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                               \
    __syncthreads();                                                                            \
    if (threadIdx.x == 0) {                                                                     \
      asm volatile(INS " [%0], [%1], 256;" ::"l"(dst), "r"((uint32_t)__cvta_generic_to_shared(s)) \
                   : "memory");                                                                 \
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");                                 \
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");                                 \
    }                                                                                           \
  }
#define G "cp.reduce.async.bulk.global.shared::cta.bulk_group."
REDUCE_KERNEL(add_u32, G "add.u32")
REDUCE_KERNEL(add_s32, G "add.s32")
REDUCE_KERNEL(min_s32, G "min.s32")
REDUCE_KERNEL(max_u32, G "max.u32")
REDUCE_KERNEL(inc_u32, G "inc.u32")
REDUCE_KERNEL(dec_u32, G "dec.u32")
REDUCE_KERNEL(xor_b32, G "xor.b32")
REDUCE_KERNEL(or_b64, G "or.b64")
REDUCE_KERNEL(add_u64, G "add.u64")
REDUCE_KERNEL(min_s64, G "min.s64")
REDUCE_KERNEL(add_f32, G "add.f32")
REDUCE_KERNEL(add_f64, G "add.f64")
REDUCE_KERNEL(add_f16, G "add.noftz.f16")
REDUCE_KERNEL(max_bf16, G "max.bf16")

typedef void (*Kernel)(void*, const uint32_t*);

static uint32_t hash(uint32_t x) {
  x ^= x >> 16, x *= 0x7feb352d, x ^= x >> 15, x *= 0x846ca68b, x ^= x >> 16;
  return x;
}
static float f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static uint32_t ftz(uint32_t b) { return (b & 0x7f800000) ? b : (b & 0x80000000); }

// Runs `k` with 64 CTAs on `init` (the destination's first value), returns the result.
static std::vector<uint32_t> run(Kernel k, const std::vector<uint32_t>& init, const std::vector<uint32_t>& src) {
  void* dst;
  uint32_t* dsrc;
  CHECK(cudaMalloc(&dst, N * 4));
  CHECK(cudaMalloc(&dsrc, src.size() * 4));
  CHECK(cudaMemcpy(dst, init.data(), N * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dsrc, src.data(), src.size() * 4, cudaMemcpyHostToDevice));
  k<<<CTAS, 32>>>(dst, dsrc);
  CHECK(cudaDeviceSynchronize());
  std::vector<uint32_t> out(N);
  CHECK(cudaMemcpy(out.data(), dst, N * 4, cudaMemcpyDeviceToHost));
  cudaFree(dst);
  cudaFree(dsrc);
  return out;
}

template <typename F>
static void check32(const char* name, Kernel k, uint32_t (*gen)(int, int), F op) {
  std::vector<uint32_t> init(N), src(CTAS * N);
  for (int i = 0; i < N; i++) init[i] = gen(-1, i);
  for (int c = 0; c < CTAS; c++)
    for (int i = 0; i < N; i++) src[c * N + i] = gen(c, i);
  std::vector<uint32_t> want = init;
  for (int c = 0; c < CTAS; c++)
    for (int i = 0; i < N; i++) want[i] = op(want[i], src[c * N + i]);
  std::vector<uint32_t> got = run(k, init, src);
  int bad = 0;
  for (int i = 0; i < N; i++)
    if (got[i] != want[i] && bad++ < 3)
      fprintf(stderr, "%s: element %d = %#x, expected %#x\n", name, i, got[i], want[i]);
  EXPECT_MSG(bad == 0, "%s: %d elements differ", name, bad);
  if (!bad) fprintf(stderr, "%s: ok\n", name);
}

// 64-bit elements: N/2 of them.
template <typename F>
static void check64(const char* name, Kernel k, uint64_t (*gen)(int, int), F op) {
  std::vector<uint32_t> init(N), src(CTAS * N);
  auto put = [](std::vector<uint32_t>& v, int at, uint64_t x) { v[at] = (uint32_t)x, v[at + 1] = (uint32_t)(x >> 32); };
  for (int i = 0; i < N / 2; i++) put(init, 2 * i, gen(-1, i));
  for (int c = 0; c < CTAS; c++)
    for (int i = 0; i < N / 2; i++) put(src, c * N + 2 * i, gen(c, i));
  std::vector<uint64_t> want(N / 2);
  for (int i = 0; i < N / 2; i++) want[i] = gen(-1, i);
  for (int c = 0; c < CTAS; c++)
    for (int i = 0; i < N / 2; i++) want[i] = op(want[i], gen(c, i));
  std::vector<uint32_t> got = run(k, init, src);
  int bad = 0;
  for (int i = 0; i < N / 2; i++) {
    uint64_t g = got[2 * i] | (uint64_t)got[2 * i + 1] << 32;
    if (g != want[i] && bad++ < 3)
      fprintf(stderr, "%s: element %d = %#llx, expected %#llx\n", name, i, (unsigned long long)g,
              (unsigned long long)want[i]);
  }
  EXPECT_MSG(bad == 0, "%s: %d elements differ", name, bad);
  if (!bad) fprintf(stderr, "%s: ok\n", name);
}

// Tile-mode tensor reduction: each of 8 CTAs reduces a 16x16 box of its own into a 32x32 f32
// (add) or s32 (max) tensor at (8 * (cta % 4), 8 * (cta / 4)): overlapping boxes.
__global__ void tensor_reduce(const __grid_constant__ CUtensorMap map, int max_s32) {
  __shared__ alignas(128) uint32_t s[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    s[i] = max_s32 ? (uint32_t)(int)(blockIdx.x * 37 + i * 11) % 501 - 250 : __float_as_uint((float)(blockIdx.x + i % 7));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    int x = 8 * (blockIdx.x % 4), y = 8 * (blockIdx.x / 4);
    uint64_t m = reinterpret_cast<uint64_t>(&map);
    uint32_t sa = (uint32_t)__cvta_generic_to_shared(s);
    if (max_s32)
      asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%0, {%1, %2}], [%3];"
                   ::"l"(m), "r"(x), "r"(y), "r"(sa) : "memory");
    else
      asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                   ::"l"(m), "r"(x), "r"(y), "r"(sa) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// In a cluster of 2: CTA 0 reduces (add.u32) its array into CTA 1's, which waits on its own
// mbarrier for the 256 bytes.
__global__ void __cluster_dims__(2, 1, 1) cluster_reduce(uint32_t* out) {
  __shared__ alignas(16) uint32_t s[N];
  __shared__ alignas(8) uint64_t bar;
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  for (int i = threadIdx.x; i < N; i += blockDim.x) s[i] = rank == 0 ? 1000 + i : 7 * i;
  uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    if (rank == 1) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(b));
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("barrier.cluster.arrive.release;\n barrier.cluster.wait.acquire;" ::: "memory");
  if (rank == 0 && threadIdx.x == 0) {
    uint32_t dst, mb, src = (uint32_t)__cvta_generic_to_shared(s);
    asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(dst) : "r"(src));
    asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(mb) : "r"(b));
    asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%0], [%1], 256, [%2];"
                 ::"r"(dst), "r"(src), "r"(mb) : "memory");
  }
  if (rank == 1 && threadIdx.x == 0) {
    uint32_t done = 0;
    while (!done)
      asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n selp.u32 %0, 1, 0, p;\n}"
                   : "=r"(done) : "r"(b) : "memory");
  }
  asm volatile("barrier.cluster.arrive.release;\n barrier.cluster.wait.acquire;" ::: "memory");
  if (rank == 1)
    for (int i = threadIdx.x; i < N; i += blockDim.x) out[i] = s[i];
}

int main() {
  // 32-bit cases. Generators: (cta, i) -> value; cta -1 is the destination's first value.
  check32("add.u32", (Kernel)add_u32, [](int c, int i) { return hash(c * 977 + i); },
          [](uint32_t a, uint32_t b) { return a + b; });
  check32("add.s32", (Kernel)add_s32, [](int c, int i) { return hash(c * 31 + i) % 2001 - 1000u; },
          [](uint32_t a, uint32_t b) { return a + b; });
  check32("min.s32", (Kernel)min_s32, [](int c, int i) { return hash(c * 7 + i * 3); },
          [](uint32_t a, uint32_t b) { return (uint32_t)((int)a < (int)b ? (int)a : (int)b); });
  check32("max.u32", (Kernel)max_u32, [](int c, int i) { return hash(c * 5 + i * 9); },
          [](uint32_t a, uint32_t b) { return a > b ? a : b; });
  // inc/dec with the same source value x in every CTA: the result stays in [0..x].
  check32("inc.u32", (Kernel)inc_u32, [](int c, int i) { return c < 0 ? (uint32_t)i : 40u; },
          [](uint32_t a, uint32_t b) { return a >= b ? 0 : a + 1; });
  check32("dec.u32", (Kernel)dec_u32, [](int c, int i) { return c < 0 ? (uint32_t)i : 50u; },
          [](uint32_t a, uint32_t b) { return (a == 0 || a > b) ? b : a - 1; });
  check32("xor.b32", (Kernel)xor_b32, [](int c, int i) { return hash(c * 13 + i); },
          [](uint32_t a, uint32_t b) { return a ^ b; });
  // f32 add: integers (exact in any order), with subnormal inputs that flush to zero.
  check32("add.f32", (Kernel)add_f32,
          [](int c, int i) { return c == 3 && i % 4 == 0 ? 0x00012345u : bits((float)((c * 3 + i) % 17 - 8)); },
          [](uint32_t a, uint32_t b) { return ftz(bits(f32(ftz(a)) + f32(ftz(b)))); });
  // f16 add (.noftz): small integers, exact; bf16 max.
  check32("add.noftz.f16", (Kernel)add_f16,
          [](int c, int i) {
            __half lo = __int2half_rn((c + i) % 9 - 4), hi = __int2half_rn((c * i) % 5 - 2);
            uint16_t a, b;
            memcpy(&a, &lo, 2), memcpy(&b, &hi, 2);
            return (uint32_t)a | (uint32_t)b << 16;
          },
          [](uint32_t a, uint32_t b) {
            auto h = [](uint32_t x) { __half v; uint16_t s = x; memcpy(&v, &s, 2); return __half2float(v); };
            auto p = [](float f) { __half v = __float2half(f); uint16_t s; memcpy(&s, &v, 2); return (uint32_t)s; };
            return p(h(a) + h(b)) | p(h(a >> 16) + h(b >> 16)) << 16;
          });
  check32("max.bf16", (Kernel)max_bf16, [](int c, int i) { return hash(c * 3 + i) & 0x7f7f7f7f; },
          [](uint32_t a, uint32_t b) {
            auto f = [](uint32_t x) { return f32((x & 0xffff) << 16); };
            uint32_t lo = f(a) >= f(b) ? a & 0xffff : b & 0xffff;
            uint32_t hi = f(a >> 16) >= f(b >> 16) ? a >> 16 : b >> 16;
            return lo | hi << 16;
          });
  // 64-bit cases.
  check64("add.u64", (Kernel)add_u64, [](int c, int i) { return (uint64_t)hash(c + i) << 20 | hash(i * c); },
          [](uint64_t a, uint64_t b) { return a + b; });
  check64("min.s64", (Kernel)min_s64, [](int c, int i) { return (uint64_t)hash(c * 3 + i) << 32 | hash(c); },
          [](uint64_t a, uint64_t b) { return (int64_t)a < (int64_t)b ? a : b; });
  check64("or.b64", (Kernel)or_b64, [](int c, int i) { return (uint64_t)1 << ((c + i) % 64); },
          [](uint64_t a, uint64_t b) { return a | b; });
  check64("add.f64", (Kernel)add_f64,
          [](int c, int i) { double d = (c * 5 + i) % 11 - 5; uint64_t u; memcpy(&u, &d, 8); return u; },
          [](uint64_t a, uint64_t b) {
            double x, y;
            memcpy(&x, &a, 8), memcpy(&y, &b, 8);
            x += y;
            memcpy(&a, &x, 8);
            return a;
          });

  // Tensor reductions.
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void**)&encode, 12000, cudaEnableDefault, &q));
  for (int max_s32 = 0; max_s32 < 2; max_s32++) {
    std::vector<uint32_t> host(32 * 32), want(32 * 32);
    for (int i = 0; i < 32 * 32; i++) host[i] = max_s32 ? (uint32_t)-1000 : bits(0.5f);
    want = host;
    for (int c = 0; c < 8; c++)
      for (int i = 0; i < 256; i++) {
        int x = 8 * (c % 4) + i % 16, y = 8 * (c / 4) + i / 16;
        if (x >= 32 || y >= 32) continue;
        uint32_t& w = want[y * 32 + x];
        if (max_s32) {
          int v = (int)((uint32_t)(c * 37 + i * 11) % 501) - 250;
          if (v > (int)w) w = (uint32_t)v;
        } else {
          w = bits(f32(w) + (float)(c + i % 7));
        }
      }
    uint32_t* dev;
    CHECK(cudaMalloc(&dev, host.size() * 4));
    CHECK(cudaMemcpy(dev, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
    CUtensorMap map;
    cuuint64_t dims[2] = {32, 32}, strides[1] = {128};
    cuuint32_t box[2] = {16, 16}, es[2] = {1, 1};
    CUresult r = encode(&map, max_s32 ? CU_TENSOR_MAP_DATA_TYPE_INT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dev,
                        dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    EXPECT_EQ(r, CUDA_SUCCESS);
    tensor_reduce<<<8, 32>>>(map, max_s32);
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> got(host.size());
    CHECK(cudaMemcpy(got.data(), dev, got.size() * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 32 * 32; i++)
      if (got[i] != want[i] && bad++ < 3)
        fprintf(stderr, "tensor %s: element %d = %#x, expected %#x\n", max_s32 ? "max.s32" : "add.f32", i, got[i], want[i]);
    EXPECT_MSG(bad == 0, "tensor reduction: %d elements differ", bad);
    if (!bad) fprintf(stderr, "tensor %s: ok\n", max_s32 ? "max.s32" : "add.f32");
    cudaFree(dev);
  }

  // Into a peer CTA's shared memory.
  {
    uint32_t* out;
    CHECK(cudaMalloc(&out, N * 4));
    cluster_reduce<<<2, 32>>>(out);
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> got(N);
    CHECK(cudaMemcpy(got.data(), out, N * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += got[i] != 7u * i + 1000 + i;
    EXPECT_MSG(bad == 0, "cluster reduction: %d elements differ (element 0 = %u)", bad, got[0]);
    if (!bad) fprintf(stderr, "shared::cluster add.u32: ok\n");
  }
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures != 0;
}
