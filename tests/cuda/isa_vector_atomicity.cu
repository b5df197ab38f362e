// Aligned 8- and 16-byte vector stores to global memory are seen whole by other threads, as a
// GPU makes them (one access per thread; NVIDIA's CUB relies on it: its decoupled look-back
// writes a tile's status and value as one `st.relaxed.gpu.v2.u64` and polls them with
// `ld.relaxed.gpu.v2.u64`). Block 0 rewrites 32 slots with versions 1, 2, 3, ... where every
// element of a slot derives from the same version; block 1 reads the slots meanwhile and counts
// reads that mix two versions (must be 0) and reads that saw a version in flight (at least
// some, when the two blocks ran at once: printed, not required).
#include <cstdio>
#include "check.h"

constexpr int ROUNDS = 20000;

__device__ void store16(unsigned long long* p, unsigned long long a, unsigned long long b) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b)
               : "memory");
}
__device__ void load16(const unsigned long long* p, unsigned long long& a,
                       unsigned long long& b) {
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
               : "=l"(a), "=l"(b)
               : "l"(p)
               : "memory");
}
__device__ void store16x4(unsigned* p, unsigned a, unsigned b, unsigned c, unsigned d) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(a), "r"(b),
               "r"(c), "r"(d)
               : "memory");
}
__device__ void load16x4(const unsigned* p, unsigned& a, unsigned& b, unsigned& c, unsigned& d) {
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "l"(p)
               : "memory");
}
__device__ void store8(unsigned* p, unsigned a, unsigned b) {
  asm volatile("st.relaxed.gpu.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(a), "r"(b)
               : "memory");
}
__device__ void load8(const unsigned* p, unsigned& a, unsigned& b) {
  asm volatile("ld.relaxed.gpu.global.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(p) : "memory");
}

// slots: 32 x 16 bytes (v2.u64), 32 x 16 bytes (v4.u32), 32 x 8 bytes (v2.u32).
__global__ void race(unsigned long long* w64, unsigned* w32x4, unsigned* w32x2,
                     unsigned long long* torn, unsigned long long* moving) {
  int lane = threadIdx.x;
  if (blockIdx.x == 0) {
    for (unsigned v = 1; v <= ROUNDS; v++) {
      store16(w64 + 2 * lane, v, ~(unsigned long long)v);
      store16x4(w32x4 + 4 * lane, v, v * 3, ~v, v * 7);
      store8(w32x2 + 2 * lane, v, ~v);
    }
    return;
  }
  unsigned long long bad = 0, seen = 0, first = 0;
  for (int i = 0; i < ROUNDS; i++) {
    unsigned long long a, b;
    load16(w64 + 2 * lane, a, b);
    bad += b != ~a;
    unsigned x, y, z, t;
    load16x4(w32x4 + 4 * lane, x, y, z, t);
    bad += y != x * 3 || z != ~x || t != x * 7;
    unsigned p, q;
    load8(w32x2 + 2 * lane, p, q);
    bad += q != ~p;
    if (i == 0) first = a;
    seen += a != first && a != ROUNDS;
  }
  atomicAdd(torn, bad);
  atomicAdd(moving, seen);
}

int main() {
  unsigned long long *w64, *counts;
  unsigned *w32x4, *w32x2;
  CHECK(cudaMalloc(&w64, 32 * 16));
  CHECK(cudaMalloc(&w32x4, 32 * 16));
  CHECK(cudaMalloc(&w32x2, 32 * 8));
  CHECK(cudaMalloc(&counts, 16));
  // Version 0 of every slot: all elements consistent with it.
  unsigned long long h64[64];
  unsigned h4[128], h2[64];
  for (int l = 0; l < 32; l++) {
    h64[2 * l] = 0, h64[2 * l + 1] = ~0ull;
    h4[4 * l] = 0, h4[4 * l + 1] = 0, h4[4 * l + 2] = ~0u, h4[4 * l + 3] = 0;
    h2[2 * l] = 0, h2[2 * l + 1] = ~0u;
  }
  CHECK(cudaMemcpy(w64, h64, sizeof h64, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(w32x4, h4, sizeof h4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(w32x2, h2, sizeof h2, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(counts, 0, 16));
  race<<<2, 32>>>(w64, w32x4, w32x2, counts, counts + 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned long long c[2];
  CHECK(cudaMemcpy(c, counts, 16, cudaMemcpyDeviceToHost));
  if (c[0] != 0) {
    printf("FAIL: %llu torn vector reads (%llu reads saw a store in flight)\n", c[0], c[1]);
    return 1;
  }
  printf("PASS (%llu reads saw a store in flight)\n", c[1]);
  return 0;
}
