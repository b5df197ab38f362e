// Synchronisation that only some lanes of a path perform, and warp groups syncing apart at the
// same time (PTX ISA 9.7.13.1 barrier, 9.7.13.3 bar.warp.sync; independent thread scheduling):
// 1. One __syncwarp instruction executed by two groups of lanes with different member masks
//    (lanes 0-7 with 0x0000ffff, lanes 16-23 with 0xffff0000), each waiting for its partners
//    on the other side of a branch (lanes 8-15 and 24-31): both groups are pending at once,
//    and each must wait for its own partners before reading what they wrote.
// 2. A guarded `@p bar.warp.sync 0xffffffff` taken by lanes 0-15 only: lanes 16-31 go on, write
//    their value, and sync at a second `@!p bar.warp.sync`, which completes the first.
// 3. A guarded `@p barrier.sync 1, 32` (non-aligned barrier: per thread) taken by lanes 0-15:
//    lanes 16-31 go on and arrive through a second `@!p barrier.sync 1, 32`; the 32 arrivals
//    complete barrier 1 for both.
// Each case passes values through shared memory: the expected results are the partners' values,
// which the synchronisation guarantees are visible.
#include "check.h"

__host__ __device__ int value(int t, int k) { return t * 7 + k * 1000 + 3; }

__global__ void groups(int* out) {
  __shared__ volatile int sh[32];
  int t = threadIdx.x;
  // 1. Paths: lanes with bit 3 clear (0-7, 16-23) and set (8-15, 24-31). The member mask is
  //    the lane's half of the warp, so the first path's __syncwarp has two masks.
  unsigned m = t < 16 ? 0x0000ffffu : 0xffff0000u;
  int r;
  if ((t & 8) == 0) {
    sh[t] = value(t, 1);
    __syncwarp(m);
    r = sh[t ^ 8];
    __syncwarp(m);
  } else {
    sh[t] = value(t, 1);
    __syncwarp(m);
    r = sh[t ^ 8];
    __syncwarp(m);
  }
  out[t] = r;
  __syncwarp();

  // 2. A guarded bar.warp.sync: lanes 0-15 wait for the whole warp; lanes 16-31 skip it,
  //    publish, and arrive at the second one.
  unsigned low = t < 16;
  if (t < 16) sh[t] = value(t, 2);
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.u32 p, %0, 0;\n\t"
      "@p bar.warp.sync -1;\n\t"
      "}" ::"r"(low)
      : "memory");
  if (t >= 16) sh[t] = value(t, 2);
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.eq.u32 p, %0, 0;\n\t"
      "@p bar.warp.sync -1;\n\t"
      "}" ::"r"(low)
      : "memory");
  out[32 + t] = sh[t ^ 16];
  __syncwarp();

  // 3. The same with a non-aligned CTA barrier of 32 threads (the block is one warp).
  if (t < 16) sh[t] = value(t, 3);
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.u32 p, %0, 0;\n\t"
      "@p barrier.sync 1, 32;\n\t"
      "}" ::"r"(low)
      : "memory");
  if (t >= 16) sh[t] = value(t, 3);
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.eq.u32 p, %0, 0;\n\t"
      "@p barrier.sync 1, 32;\n\t"
      "}" ::"r"(low)
      : "memory");
  out[64 + t] = sh[t ^ 16];
}

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 96 * sizeof(int)));
  CHECK(cudaMemset(d, 0xff, 96 * sizeof(int)));
  groups<<<1, 32>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int h[96];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 32; t++) {
    // Case 1: the partner across bit 3 wrote value(partner, 1) before its __syncwarp; lanes
    // 8-15 / 24-31 read the first path's values the same way.
    EXPECT_EQ(h[t], value(t ^ 8, 1));
    // Case 2: lanes 0-15 read what lanes 16-31 wrote after skipping the first sync, and back.
    EXPECT_EQ(h[32 + t], value(t ^ 16, 2));
    EXPECT_EQ(h[64 + t], value(t ^ 16, 3));
  }
  CHECK(cudaFree(d));
  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}
