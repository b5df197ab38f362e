// Barriers inside device functions that are not inlined, reached from divergent code. On
// sm_70 and later (independent thread scheduling) a barrier waits for threads, not for warps
// converged at one instruction: threads that took either side of an if/else and call the
// function from different call sites all arrive at the same bar.sync (or bar.warp.sync) inside
// it, and the barrier completes. Also the converged case, and a function with __syncwarp called
// by a whole warp inside `if (threadIdx.x < 32)` or by both halves of a warp from two call sites.
// Expected values are computed on the host from what each barrier guarantees.
#include "check.h"
#include <vector>

// Publishes v in shared memory, waits for the block, reads the neighbour's value, waits again
// (so the next round may overwrite), and returns it.
__device__ __noinline__ int exchange(int* sh, int v) {
  int t = threadIdx.x;
  sh[t] = v;
  __syncthreads();
  int r = sh[(t + 1) % blockDim.x];
  __syncthreads();
  return r;
}
// A second way in: another function that calls exchange (a different call site and depth).
__device__ __noinline__ int exchange_twice(int* sh, int v) { return exchange(sh, v) * 2 + 1; }

// Warp-level, among the lanes of `mask` (aligned groups of `width` lanes): publish,
// __syncwarp, read the group's lane 5 places on.
__device__ __noinline__ int warp_exchange(volatile int* sh, int v, unsigned mask, int width) {
  int t = threadIdx.x;
  sh[t] = v;
  __syncwarp(mask);
  int r = sh[(t & ~(width - 1)) + ((t + 5) & (width - 1))];
  __syncwarp(mask);
  return r;
}

__global__ void barriers(int* out, int rounds) {
  __shared__ int sh[256];
  int t = threadIdx.x;
  int acc = 0;
  // 1. Converged: every thread calls from the same site.
  acc += exchange(sh, t * 3 + 1);
  // 2. Divergent within warps: odd and even threads call from different sites.
  for (int k = 0; k < rounds; k++) {
    int v;
    if ((t + k) & 1)
      v = exchange(sh, t + 100 * k);
    else
      v = exchange_twice(sh, t * 5 + k);
    acc = acc * 3 + v;
  }
  // 3. Divergent by warp and within a warp, calls at different depths (through
  //    exchange_twice) and guarded by data.
  if (t % 3 == 0)
    acc += exchange_twice(sh, acc & 1023);
  else
    acc -= exchange(sh, t ^ 77);
  out[t] = acc;
  // 4. A warp-synchronous function called by the whole first warp only; by each half of the
  //    second warp from its own call site, synchronising that half; and by both halves of the
  //    third warp from their own call sites, synchronising the whole warp (each __syncwarp
  //    waits for the lanes on the other side of the branch).
  int w = 0;
  if (t < 32)
    w = warp_exchange(sh, t * 7, 0xffffffffu, 32);
  else if (t < 64) {
    if (t & 16)
      w = warp_exchange(sh, t + 1000, 0xffff0000u, 16) + 1;
    else
      w = warp_exchange(sh, t - 1000, 0x0000ffffu, 16) - 1;
  } else {
    if (t & 16)
      w = warp_exchange(sh, t + 3000, 0xffffffffu, 32) + 1;
    else
      w = warp_exchange(sh, t - 3000, 0xffffffffu, 32) - 1;
  }
  out[blockDim.x + t] = w;
}


int main() {
  const int B = 96, ROUNDS = 5;
  int* dout;
  CHECK(cudaMalloc(&dout, 2 * B * sizeof(int)));
  barriers<<<2, B>>>(dout, ROUNDS);
  CHECK(cudaGetLastError());
  std::vector<int> out(2 * B);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  // Host model: each exchange round, every thread t publishes its value and gets thread
  // (t + 1) % B's.
  std::vector<int> acc(B), pub(B);
  auto round = [&](auto value, auto use) {
    for (int t = 0; t < B; t++) pub[t] = value(t);
    for (int t = 0; t < B; t++) use(t, pub[(t + 1) % B]);
  };
  round([](int t) { return t * 3 + 1; }, [&](int t, int r) { acc[t] = r; });
  for (int k = 0; k < ROUNDS; k++) {
    round([&](int t) { return ((t + k) & 1) ? t + 100 * k : t * 5 + k; },
          [&](int t, int r) { acc[t] = acc[t] * 3 + (((t + k) & 1) ? r : r * 2 + 1); });
  }
  round([&](int t) { return t % 3 == 0 ? acc[t] & 1023 : t ^ 77; },
        [&](int t, int r) { acc[t] += t % 3 == 0 ? r * 2 + 1 : -r; });
  for (int t = 0; t < B; t++) {
    EXPECT_MSG(out[t] == acc[t], "block barriers: thread %d = %d want %d", t, out[t], acc[t]);
    int w = 0;
    if (t < 32)
      w = ((t + 5) & 31) * 7;
    else if (t < 64) {
      int src = (t & ~15) + ((t + 5) & 15);
      int v = (src & 16) ? src + 1000 : src - 1000;
      w = (t & 16) ? v + 1 : v - 1;
    } else {
      int src = (t & ~31) + ((t + 5) & 31);
      int v = (src & 16) ? src + 3000 : src - 3000;
      w = (t & 16) ? v + 1 : v - 1;
    }
    EXPECT_MSG(out[B + t] == w, "warp barriers: thread %d = %d want %d", t, out[B + t], w);
  }
  CHECK(cudaFree(dout));
  if (expect_failures) {
    printf("FAIL isa_call_barriers: %d checks failed\n", expect_failures);
    return 1;
  }
  printf("PASS isa_call_barriers: __syncthreads and __syncwarp in functions called from divergent code\n");
  return 0;
}
