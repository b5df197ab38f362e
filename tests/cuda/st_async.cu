// st.async and red.async (PTX ISA 9.7.9.12 and 9.7.13.7) between the two CTAs of a cluster, as
// CUTLASS-style code writes them (inline PTX, addresses from mapa): each CTA stores four u32
// words and one u64 into its peer's shared memory and adds 1..32 (one per thread) to its peer's
// counter, each operation completing its bytes on the peer's mbarrier; each CTA waits on its
// own mbarrier, which expects 4*4 + 8 + 32*4 = 152 bytes. Expected values are the ISA's
// arithmetic: the stores land as written, the counter gets 1000*rank + (1+...+32) = +528,
// min/max/inc/and/or/xor reductions on a second word follow their definitions (9.7.13.7), and
// the mbarrier's phase completes only once all 152 bytes arrived.
#include <cstdint>
#include "check.h"

__device__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ unsigned peer_of(unsigned addr, unsigned rank) {
  unsigned out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(addr), "r"(rank));
  return out;
}

__global__ void __cluster_dims__(2, 1, 1) exchange(unsigned long long *out) {
  __shared__ alignas(8) unsigned long long bar;
  __shared__ unsigned words[4];
  __shared__ alignas(8) unsigned long long wide;
  __shared__ unsigned counter, bits, lo, hi, wrap;
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  unsigned t = threadIdx.x;
  if (t == 0) {
    counter = 1000 * rank;
    bits = 0xf0f0f0f0u;
    lo = 50;
    hi = 50;
    wrap = 0;
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(smem(&bar)));
    // Four words, one u64, 32 adds and the other reductions below: 16 + 8 + 128 + 6 * 4.
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(smem(&bar)),
                 "r"(176));
  }
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;");
  unsigned peer = rank ^ 1;
  unsigned rbar = peer_of(smem(&bar), peer);
  if (t < 4)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(
                     peer_of(smem(&words[t]), peer)),
                 "r"(100 * rank + t), "r"(rbar));
  if (t == 4)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" ::"r"(
                     peer_of(smem(&wide), peer)),
                 "l"((rank + 1) * 0x100000001ull), "r"(rbar));
  asm volatile(
      "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, "
      "[%2];" ::"r"(peer_of(smem(&counter), peer)),
      "r"(t + 1), "r"(rbar));
  if (t == 5) {
    unsigned b = peer_of(smem(&bits), peer);
    asm volatile(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.and.b32 [%0], %1, "
        "[%2];" ::"r"(b),
        "r"(0xff00ff00u), "r"(rbar));
    asm volatile(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.or.b32 [%0], %1, "
        "[%2];" ::"r"(b),
        "r"(0x0000000fu), "r"(rbar));
    asm volatile(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.xor.b32 [%0], %1, "
        "[%2];" ::"r"(b),
        "r"(0x80000000u), "r"(rbar));
    asm volatile(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32 [%0], %1, "
        "[%2];" ::"r"(peer_of(smem(&lo), peer)),
        "r"(-7), "r"(rbar));
    asm volatile(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.u32 [%0], %1, "
        "[%2];" ::"r"(peer_of(smem(&hi), peer)),
        "r"(77), "r"(rbar));
    asm volatile(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 [%0], %1, "
        "[%2];" ::"r"(peer_of(smem(&wrap), peer)),
        "r"(0), "r"(rbar));
  }
  if (t == 0) {
    unsigned done = 0;
    while (!done)
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(smem(&bar)));
    unsigned long long *o = out + 10 * rank;
    for (int k = 0; k < 4; k++) o[k] = words[k];
    o[4] = wide;
    o[5] = counter;
    o[6] = bits;
    o[7] = lo;
    o[8] = hi;
    o[9] = wrap;
  }
  // Neither CTA leaves while its peer may still write into its shared memory.
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;");
}

int main() {
  unsigned long long *d, h[20];
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemset(d, 0xff, sizeof h));
  exchange<<<2, 32>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (unsigned r = 0; r < 2; r++) {
    unsigned p = r ^ 1;
    const unsigned long long *o = h + 10 * r;
    for (unsigned k = 0; k < 4; k++) EXPECT_EQ(o[k], 100ull * p + k);
    EXPECT_EQ(o[4], (p + 1) * 0x100000001ull);
    EXPECT_EQ(o[5], 1000ull * r + 528);
    // ((0xf0f0f0f0 & 0xff00ff00) | 0xf) ^ 0x80000000
    EXPECT_EQ(o[6], 0x7000f00full);
    EXPECT_EQ(o[7], (unsigned long long)(unsigned)-7);  // min.s32(50, -7)
    EXPECT_EQ(o[8], 77ull);                              // max.u32(50, 77)
    EXPECT_EQ(o[9], 0ull);  // inc.u32 with b = 0: (old >= b) ? 0 : old + 1
  }
  CHECK(cudaFree(d));
  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}
