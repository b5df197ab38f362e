// A small GEMM on the 5th-generation tensor core (PTX ISA 9.7.16), built for compute_100a and
// run on the B200 profile: C (M x N, f32) = A (M x K, f16, row-major) * B (K x N, f16, given as
// N x K: K-major), 128 x 64 tiles, one CTA of 128 threads each. Per tile: warp 0 allocates 64
// Tensor Memory columns (tcgen05.alloc); the threads stage 128 x 64 and 64 x 64 chunks of A and
// B in shared memory in the canonical K-major layout with the 128-byte swizzle; thread 0 issues
// four tcgen05.mma.kind::f16 (K = 16 each, the descriptors 32 bytes further each time) and
// tcgen05.commit to an mbarrier; everyone waits on the mbarrier, and after the last chunk each
// warp reads its 32 rows with tcgen05.ld.32x32b; warp 0 deallocates.
// Expected values: the CPU's GEMM of small integers (exact in f16 and in the f32 sums), with
// one thread-count-independent check of every element.
#include "check.h"
#include <cstdint>
#include <vector>
#include <cuda_fp16.h>

constexpr int M = 256, N = 128, K = 256, TM = 128, TN = 64, TK = 64;

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

__global__ void __launch_bounds__(128) gemm(const __half* a, const __half* b, float* c) {
  __shared__ alignas(1024) uint8_t sa[TM * TK * 2];
  __shared__ alignas(1024) uint8_t sb[TN * TK * 2];
  __shared__ alignas(8) uint64_t bar;
  __shared__ uint32_t taddr;
  int tid = threadIdx.x, warp = tid / 32;
  int m0 = blockIdx.y * TM, n0 = blockIdx.x * TN;
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;" ::"r"(
        smem(&taddr)));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  if (tid == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  uint32_t d = taddr;
  // The f32 accumulator, f16 A and B, K-major, N and M (ISA table 44).
  uint32_t idesc = 1u << 4 | (TN >> 3) << 17 | (TM >> 4) << 24;
  for (int kc = 0; kc < K / TK; kc++) {
    for (int i = tid; i < TM * TK; i += 128) {
      int r = i / TK, k = i % TK;
      *(__half*)(sa + swz(r, k)) = a[(m0 + r) * K + kc * TK + k];
    }
    for (int i = tid; i < TN * TK; i += 128) {
      int r = i / TK, k = i % TK;
      *(__half*)(sb + swz(r, k)) = b[(n0 + r) * K + kc * TK + k];
    }
    asm volatile("fence.proxy.async.shared::cta;");
    __syncthreads();
    if (tid == 0) {
      asm volatile("tcgen05.fence::after_thread_sync;");
      for (int s = 0; s < TK / 16; s++) {
        uint64_t da = desc(smem(sa) + 32 * s), db = desc(smem(sb) + 32 * s);
        uint32_t acc = kc > 0 || s > 0;
        asm volatile(
            "{ .reg .pred p; setp.ne.u32 p, %4, 0;\n"
            "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p; }" ::"r"(d),
            "l"(da), "l"(db), "r"(idesc), "r"(acc));
      }
      asm volatile(
          "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"l"(
              (uint64_t)smem(&bar)));
    }
    // Wait for this chunk's MMAs (phase kc) before the next chunk overwrites shared memory.
    asm volatile(
        "{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        "@!p bra W; }" ::"r"(smem(&bar)),
        "r"(kc & 1));
    asm volatile("tcgen05.fence::after_thread_sync;");
  }
  // Row tid of the tile is Tensor Memory lane tid (layout D): 8 columns at a time.
  for (int j = 0; j < TN; j += 8) {
    uint32_t v[8];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];\n"
        "tcgen05.wait::ld.sync.aligned;"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]),
          "=r"(v[7])
        : "r"(d + ((warp * 32) << 16) + j));
    for (int q = 0; q < 8; q++)
      c[(m0 + tid) * N + n0 + j + q] = __uint_as_float(v[q]);
  }
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" ::"r"(d));
}

int main() {
  std::vector<__half> a(M * K), b(N * K);
  std::vector<int> ai(M * K), bi(N * K);
  uint32_t s = 12345;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return (int)((s >> 16) % 7) - 3;
  };
  for (int i = 0; i < M * K; i++) a[i] = __int2half_rn(ai[i] = next());
  for (int i = 0; i < N * K; i++) b[i] = __int2half_rn(bi[i] = next());
  __half *da, *db;
  float* dc;
  CHECK(cudaMalloc(&da, a.size() * 2));
  CHECK(cudaMalloc(&db, b.size() * 2));
  CHECK(cudaMalloc(&dc, M * N * 4));
  CHECK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  gemm<<<dim3(N / TN, M / TM), 128>>>(da, db, dc);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> c(M * N);
  CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int want = 0;
      for (int k = 0; k < K; k++) want += ai[i * K + k] * bi[j * K + k];
      if (c[i * N + j] != (float)want && bad++ < 5)
        fprintf(stderr, "C[%d][%d] = %g, want %d\n", i, j, c[i * N + j], want);
    }
  if (bad) {
    fprintf(stderr, "%d elements wrong\n", bad);
    return 1;
  }
  printf("PASS tcgen05 f16 GEMM %dx%dx%d\n", M, N, K);
  return 0;
}
