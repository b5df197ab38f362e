// Cooperative launches and grid-wide synchronisation (cooperative_groups::this_grid().sync()).
//
// A multi-phase kernel: (1) every block reduces its grid-stride slice of `in` into partial[b];
// grid sync; (2) block 0 reduces the partials into *total; grid sync; (3) every thread writes
// out[i] = in[i] * 7 + *total (the broadcast); grid sync; (4) every thread writes
// nxt[i] = out[(i + 1) % n] - out[i], reading values other blocks wrote in phase 3.
// Expected values: the same arithmetic on the host (integers, exact).
//
// Also: CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 1; the largest co-resident grid (occupancy
// x SM count, as cudaLaunchCooperativeKernel documents) runs; one block more is
// cudaErrorCooperativeLaunchTooLarge; cudaLaunchKernelEx with cudaLaunchAttributeCooperative
// runs the kernel too; grid.is_valid() is true only in a cooperative launch.
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

template <int THREADS>
__global__ void phases(const unsigned* in, unsigned* partial, unsigned* total, unsigned* out,
                       unsigned* nxt, unsigned n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ unsigned s[THREADS];
  unsigned i0 = (unsigned)grid.thread_rank(), stride = (unsigned)grid.size();

  // (1) Block partial sums.
  unsigned acc = 0;
  for (unsigned i = i0; i < n; i += stride) acc += in[i];
  s[threadIdx.x] = acc;
  block.sync();
  for (unsigned w = THREADS / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    block.sync();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();

  // (2) Block 0 reduces the partials.
  if (blockIdx.x == 0) {
    unsigned a = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS) a += partial[b];
    s[threadIdx.x] = a;
    block.sync();
    for (unsigned w = THREADS / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
      block.sync();
    }
    if (threadIdx.x == 0) *total = s[0];
  }
  grid.sync();

  // (3) Broadcast.
  unsigned t = *total;
  for (unsigned i = i0; i < n; i += stride) out[i] = in[i] * 7u + t;
  grid.sync();

  // (4) A second phase over other blocks' results.
  for (unsigned i = i0; i < n; i += stride) nxt[i] = out[(i + 1) % n] - out[i];
}

__global__ void valid(int* r) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *r = cg::this_grid().is_valid() ? 1 : 0;
}

static int bad = 0;

static void check_run(const char* what, int blocks, unsigned THREADS, unsigned n, const std::vector<unsigned>& h,
                      unsigned* d_partial, unsigned* d_total, unsigned* d_out, unsigned* d_nxt) {
  std::vector<unsigned> out(n), nxt(n), partial(blocks);
  unsigned total = 0;
  CHECK(cudaMemcpy(out.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(nxt.data(), d_nxt, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(partial.data(), d_partial, blocks * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&total, d_total, 4, cudaMemcpyDeviceToHost));
  unsigned want_total = 0;
  for (unsigned v : h) want_total += v;
  unsigned stride = (unsigned)blocks * THREADS;
  for (int b = 0; b < blocks && bad < 10; b++) {
    unsigned p = 0;
    for (unsigned t = 0; t < THREADS; t++)
      for (unsigned i = b * THREADS + t; i < n; i += stride) p += h[i];
    if (partial[b] != p) {
      fprintf(stderr, "%s: partial[%d] = %u, want %u\n", what, b, partial[b], p);
      bad++;
    }
  }
  if (total != want_total) {
    fprintf(stderr, "%s: total = %u, want %u\n", what, total, want_total);
    bad++;
  }
  for (unsigned i = 0; i < n && bad < 10; i++) {
    unsigned o = h[i] * 7u + want_total, o1 = h[(i + 1) % n] * 7u + want_total;
    if (out[i] != o || nxt[i] != o1 - o) {
      fprintf(stderr, "%s: out[%u] = %u (want %u), nxt = %u (want %u)\n", what, i, out[i], o,
              nxt[i], o1 - o);
      bad++;
    }
  }
}

int main() {
  int dev = 0, coop = 0, sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  if (coop != 1) {
    fprintf(stderr, "cudaDevAttrCooperativeLaunch = %d, want 1\n", coop);
    bad++;
  }
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases<256>, 256, 0));
  int max_blocks = per_sm * sms;
  int per_sm32 = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm32, phases<32>, 32, 0));
  int max_blocks32 = per_sm32 * sms;
  fprintf(stderr, "co-resident limit for 32-thread blocks: %d\n", max_blocks32);
  fprintf(stderr, "co-resident limit: %d blocks per SM x %d SMs = %d\n", per_sm, sms, max_blocks);

  const unsigned n = 1u << 20;
  std::vector<unsigned> h(n);
  for (unsigned i = 0; i < n; i++) h[i] = (i * 2654435761u) >> 20;
  unsigned *d_in, *d_partial, *d_total, *d_out, *d_nxt;
  CHECK(cudaMalloc(&d_in, n * 4));
  CHECK(cudaMalloc(&d_partial, (max_blocks32 > max_blocks ? max_blocks32 : max_blocks) * 4 + 4));
  CHECK(cudaMalloc(&d_total, 4));
  CHECK(cudaMalloc(&d_out, n * 4));
  CHECK(cudaMalloc(&d_nxt, n * 4));
  CHECK(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
  unsigned nn = n;
  void* args[] = {&d_in, &d_partial, &d_total, &d_out, &d_nxt, &nn};

  // The largest co-resident grid.
  CHECK(cudaLaunchCooperativeKernel((void*)phases<256>, dim3(max_blocks), dim3(256), args, 0, 0));
  CHECK(cudaDeviceSynchronize());
  check_run("cudaLaunchCooperativeKernel", max_blocks, 256, n, h, d_partial, d_total, d_out, d_nxt);

  // One block more does not fit.
  cudaError_t e =
      cudaLaunchCooperativeKernel((void*)phases<256>, dim3(max_blocks + 1), dim3(256), args, 0, 0);
  if (e != cudaErrorCooperativeLaunchTooLarge) {
    fprintf(stderr, "too large grid: %s, want cudaErrorCooperativeLaunchTooLarge\n",
            cudaGetErrorName(e));
    bad++;
  }
  cudaGetLastError();  // not sticky: clear it

  // cudaLaunchKernelEx with the cooperative attribute, on a stream: the largest co-resident
  // grid of one-warp blocks (hundreds of CTAs waiting for each other).
  CHECK(cudaMemset(d_out, 0, n * 4));
  CHECK(cudaMemset(d_nxt, 0, n * 4));
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(max_blocks32);
  cfg.blockDim = dim3(32);
  cfg.stream = st;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, phases<32>, (const unsigned*)d_in, d_partial, d_total, d_out, d_nxt,
                           nn));
  CHECK(cudaStreamSynchronize(st));
  check_run("cudaLaunchKernelEx cooperative", max_blocks32, 32, n, h, d_partial, d_total, d_out, d_nxt);

  // grid.is_valid(): only with a cooperative launch.
  int* d_r;
  int r = -1;
  CHECK(cudaMalloc(&d_r, 4));
  valid<<<2, 32>>>(d_r);
  CHECK(cudaMemcpy(&r, d_r, 4, cudaMemcpyDeviceToHost));
  if (r != 0) {
    fprintf(stderr, "is_valid() in an ordinary launch = %d, want 0\n", r);
    bad++;
  }
  void* vargs[] = {&d_r};
  CHECK(cudaLaunchCooperativeKernel((void*)valid, dim3(2), dim3(32), vargs, 0, 0));
  CHECK(cudaMemcpy(&r, d_r, 4, cudaMemcpyDeviceToHost));
  if (r != 1) {
    fprintf(stderr, "is_valid() in a cooperative launch = %d, want 1\n", r);
    bad++;
  }

  CHECK(cudaStreamDestroy(st));
  CHECK(cudaFree(d_r));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_partial));
  CHECK(cudaFree(d_total));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_nxt));
  if (bad) {
    printf("FAIL (%d)\n", bad);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
