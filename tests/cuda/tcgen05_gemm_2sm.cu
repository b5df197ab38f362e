// A GEMM on the 5th-generation tensor core with CTA-pair MMAs (PTX ISA 9.7.16,
// .cta_group::2), built for compute_100a and run on the B200 profile: C (M x N, f32) = A (M x K,
// f16, row-major) * B (K x N, f16, given as N x K: K-major). Clusters of 2 CTAs of 128 threads
// (__cluster_dims__): each pair computes a PM x 128 tile, CTA v (its %cluster_ctarank) staging
// rows v PM/2.. of A's tile and columns v 64.. of B's in its own shared memory (K-major, the
// 128-byte swizzle), as CUTLASS's SM100_MMA_F16BF16_2x1SM_SS splits them. Warp 0 of each CTA
// allocates the pair's Tensor Memory (tcgen05.alloc.cta_group::2); per K chunk both CTAs stage,
// meet at a cluster barrier, and thread 0 of CTA 0 alone issues four
// tcgen05.mma.cta_group::2.kind::f16 and a tcgen05.commit.cta_group::2 multicast to the
// mbarriers of both CTAs, which each waits on. Each CTA then reads its part of D with
// tcgen05.ld.32x32b: PM = 256 (layout A), its 128 rows in lanes 0-127; PM = 128 (layout B),
// its 64 rows with columns 0-63 in lanes 0-63 and columns 64-127 in lanes 64-127.
// Expected values: the CPU's GEMM of small integers (exact in f16 and in the f32 sums).
#include "check.h"
#include <cstdint>
#include <vector>
#include <cuda_fp16.h>

constexpr int M = 256, N = 256, K = 128, PN = 128, TK = 64;

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Shared-memory descriptor (ISA table 42): start, LBO 16 (unused with swizzle), SBO 1024 (the
// next 8 rows), the fixed 0b001 at bit 46, 128-byte swizzle (2 at bit 61).
__device__ __forceinline__ uint64_t desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3ffff) >> 4) | (uint64_t)(16 >> 4) << 16 |
         (uint64_t)(1024 >> 4) << 32 | 1ull << 46 | 2ull << 61;
}

// Byte offset of element (r, k) of a 64-wide K-major tile of f16 with the 128-byte swizzle.
__device__ __forceinline__ int swz(int r, int k) {
  int c = k * 2;
  return (r / 8) * 1024 + (r % 8) * 128 + (((c / 16) ^ (r % 8)) * 16) + c % 16;
}

__device__ __forceinline__ void cluster_sync() {
  asm volatile(
      "tcgen05.fence::before_thread_sync;\n"
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;\n"
      "tcgen05.fence::after_thread_sync;" ::
          : "memory");
}

template <int PM>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128)
    gemm2(const __half* a, const __half* b, float* c) {
  constexpr int CM = PM / 2, CN = PN / 2;
  // D's columns in each CTA: all N (layout A) or half of them (layout B).
  constexpr int COLS = PM == 256 ? PN : PN / 2;
  __shared__ alignas(1024) uint8_t sa[CM * TK * 2];
  __shared__ alignas(1024) uint8_t sb[CN * TK * 2];
  __shared__ alignas(8) uint64_t bar;
  __shared__ uint32_t taddr;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  int tid = threadIdx.x, warp = tid / 32;
  int p = blockIdx.x / 2;
  int pm = p / (N / PN), pn = p % (N / PN);
  int m0 = pm * PM + rank * CM, n0 = pn * PN + rank * CN;
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(
                     smem(&taddr)),
                 "n"(COLS));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;");
  }
  if (tid == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
  asm volatile("fence.mbarrier_init.release.cluster;");
  cluster_sync();
  uint32_t d = taddr;
  // The f32 accumulator, f16 A and B, K-major, the pair's N and M (ISA table 44).
  uint32_t idesc = 1u << 4 | (PN >> 3) << 17 | (PM >> 4) << 24;
  for (int kc = 0; kc < K / TK; kc++) {
    for (int i = tid; i < CM * TK; i += 128) {
      int r = i / TK, k = i % TK;
      *(__half*)(sa + swz(r, k)) = a[(m0 + r) * K + kc * TK + k];
    }
    for (int i = tid; i < CN * TK; i += 128) {
      int r = i / TK, k = i % TK;
      *(__half*)(sb + swz(r, k)) = b[(n0 + r) * K + kc * TK + k];
    }
    asm volatile("fence.proxy.async.shared::cta;");
    // Both CTAs' chunks are staged before the MMAs read them.
    cluster_sync();
    if (rank == 0 && tid == 0) {
      for (int s = 0; s < TK / 16; s++) {
        uint64_t da = desc(smem(sa) + 32 * s), db = desc(smem(sb) + 32 * s);
        uint32_t acc = kc > 0 || s > 0;
        asm volatile(
            "{ .reg .pred p; setp.ne.u32 p, %4, 0;\n"
            "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p; }" ::"r"(d),
            "l"(da), "l"(db), "r"(idesc), "r"(acc));
      }
      asm volatile(
          "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster."
          "b64 [%0], %1;" ::"r"(smem(&bar)),
          "h"((uint16_t)3));
    }
    // Wait for this chunk's MMAs (phase kc) before the next chunk overwrites shared memory.
    asm volatile(
        "{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        "@!p bra W; }" ::"r"(smem(&bar)),
        "r"(kc & 1));
    asm volatile("tcgen05.fence::after_thread_sync;");
  }
  // Layout A: row tid in lane tid, all columns; layout B: row tid % 64, columns 64 (tid / 64)..
  int row = PM == 256 ? tid : tid % 64;
  int col0 = PM == 256 ? 0 : (tid / 64) * CN;
  for (int j = 0; j < COLS; j += 8) {
    uint32_t v[8];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];\n"
        "tcgen05.wait::ld.sync.aligned;"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]),
          "=r"(v[7])
        : "r"(d + ((warp * 32) << 16) + j));
    for (int q = 0; q < 8; q++)
      c[(pm * PM + rank * CM + row) * N + pn * PN + col0 + j + q] = __uint_as_float(v[q]);
  }
  cluster_sync();
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(d), "n"(COLS));
}

int main() {
  std::vector<__half> a(M * K), b(N * K);
  std::vector<int> ai(M * K), bi(N * K);
  uint32_t s = 2024;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return (int)((s >> 16) % 7) - 3;
  };
  for (int i = 0; i < M * K; i++) a[i] = __int2half_rn(ai[i] = next());
  for (int i = 0; i < N * K; i++) b[i] = __int2half_rn(bi[i] = next());
  std::vector<int> want(M * N);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int w = 0;
      for (int k = 0; k < K; k++) w += ai[i * K + k] * bi[j * K + k];
      want[i * N + j] = w;
    }
  __half *da, *db;
  float* dc;
  CHECK(cudaMalloc(&da, a.size() * 2));
  CHECK(cudaMalloc(&db, b.size() * 2));
  CHECK(cudaMalloc(&dc, M * N * 4));
  CHECK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  for (int pm : {256, 128}) {
    CHECK(cudaMemset(dc, 0xff, M * N * 4));
    int pairs = (M / pm) * (N / PN);
    if (pm == 256)
      gemm2<256><<<2 * pairs, 128>>>(da, db, dc);
    else
      gemm2<128><<<2 * pairs, 128>>>(da, db, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> c(M * N);
    CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < M * N; i++)
      if (c[i] != (float)want[i] && bad++ < 5)
        fprintf(stderr, "M %d: C[%d][%d] = %g, want %d\n", pm, i / N, i % N, c[i], want[i]);
    if (bad) {
      fprintf(stderr, "pair M %d: %d elements wrong\n", pm, bad);
      return 1;
    }
    fprintf(stderr, "pair M %d ok\n", pm);
  }
  printf("PASS tcgen05 cta_group::2 f16 GEMM %dx%dx%d\n", M, N, K);
  return 0;
}
