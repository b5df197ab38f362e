// A racy program, on purpose, for the seeded schedules (CUDA_SHIM_SCHEDULE=seed:N): lane 0 of
// each of 8 warps writes its warp number into one shared word without synchronising, and each
// of 16 blocks appends its block number to a global list through an atomic counter. Which warp
// writes last, and the order of the blocks, is the interleaving; the program prints both. Any
// answer is a valid execution (the memory model allows each); it must not crash or lose a
// block.
#include <cstdio>
#include "check.h"

__global__ void race(unsigned* winner, unsigned* order) {
  __shared__ unsigned s;
  if (threadIdx.x % 32 == 0) s = threadIdx.x / 32;
  __syncthreads();
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) *winner = s;
    unsigned slot = atomicAdd(&order[0], 1u);
    order[1 + slot] = blockIdx.x;
  }
}

int main() {
  unsigned *winner, *order;
  CHECK(cudaMalloc(&winner, sizeof(unsigned)));
  CHECK(cudaMalloc(&order, 17 * sizeof(unsigned)));
  CHECK(cudaMemset(order, 0, 17 * sizeof(unsigned)));
  race<<<16, 256>>>(winner, order);
  CHECK(cudaDeviceSynchronize());
  unsigned w, o[17];
  CHECK(cudaMemcpy(&w, winner, sizeof w, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(o, order, sizeof o, cudaMemcpyDeviceToHost));
  REQUIRE(o[0] == 16);
  unsigned seen = 0;
  for (int k = 1; k <= 16; k++) seen |= 1u << o[k];
  REQUIRE(seen == 0xffff);
  printf("PASS winner %u order", w);
  for (int k = 1; k <= 16; k++) printf(" %u", o[k]);
  printf("\n");
  return 0;
}
