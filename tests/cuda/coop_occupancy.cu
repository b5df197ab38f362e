// A cooperative launch of exactly the grid the occupancy calculator allows is accepted, as
// NVIDIA's conjugate-gradient sample (conjugateGradientMultiBlockCG) launches it:
// cudaOccupancyMaxActiveBlocksPerMultiprocessor with the dynamic shared memory the launch
// passes, times the SM count. One block more is cudaErrorCooperativeLaunchTooLarge.
// Hardware facts (H100, driver 580.159, cudart 13.0): a trivial 256-thread kernel with a grid
// sync gets 8 blocks per SM, so 8 x 132 = 1056 blocks are accepted and 1057 give
// cudaErrorCooperativeLaunchTooLarge (720). The conjugate-gradient-like kernel's own result is
// checked against the same iteration on the host.
#include <cooperative_groups.h>
#include <cmath>
#include <cstdio>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;
#define THREADS 512

// Block sum of `v` into *out (shared scratch of THREADS / 32 + 1 doubles, dynamic).
__device__ void block_sum(double* sh, double v, double* out) {
  cg::thread_block b = cg::this_thread_block();
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x / 32] = v;
  b.sync();
  if (threadIdx.x == 0) {
    double s = 0;
    for (int i = 0; i < THREADS / 32; i++) s += sh[i];
    atomicAdd(out, s);
  }
}

// Jacobi-preconditioned steepest descent on a diagonal system a[i] x[i] = b[i]: per
// iteration r = b - a x, alpha = (r.r) / (r.a.r), x += alpha r; grid syncs between phases.
__global__ void descent(int n, const double* a, const double* b, double* x, double* dots,
                        int iters) {
  extern __shared__ double sh[];
  cg::grid_group g = cg::this_grid();
  for (int it = 0; it < iters; it++) {
    double rr = 0, rar = 0;
    for (int i = g.thread_rank(); i < n; i += g.size()) {
      double r = b[i] - a[i] * x[i];
      rr += r * r;
      rar += r * a[i] * r;
    }
    block_sum(sh, rr, &dots[2 * it]);
    g.sync();
    block_sum(sh, rar, &dots[2 * it + 1]);
    g.sync();
    double alpha = dots[2 * it] / dots[2 * it + 1];
    for (int i = g.thread_rank(); i < n; i += g.size()) x[i] += alpha * (b[i] - a[i] * x[i]);
    g.sync();
  }
}

__global__ void trivial(int* p) {
  cg::this_grid().sync();
  if (p && cg::this_grid().thread_rank() == 0) *p = 1;
}

int main() {
  int sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  size_t smem = sizeof(double) * (THREADS / 32 + 1);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, descent, THREADS, smem));
  EXPECT_MSG(per_sm >= 1, "occupancy %d blocks per SM", per_sm);
  const int n = 1 << 14, iters = 3;
  std::vector<double> a(n), b(n), x(n, 0.0);
  for (int i = 0; i < n; i++) {
    a[i] = 1.0 + (i % 7);
    b[i] = 1.0 + (i % 5);
  }
  double *da, *db, *dx, *dd;
  CHECK(cudaMalloc(&da, n * sizeof(double)));
  CHECK(cudaMalloc(&db, n * sizeof(double)));
  CHECK(cudaMalloc(&dx, n * sizeof(double)));
  CHECK(cudaMalloc(&dd, 2 * iters * sizeof(double)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dx, 0, n * sizeof(double)));
  CHECK(cudaMemset(dd, 0, 2 * iters * sizeof(double)));
  int nn = n, it = iters;
  void* args[] = {&nn, &da, &db, &dx, &dd, &it};
  CHECK(cudaLaunchCooperativeKernel((void*)descent, dim3(sms * per_sm), dim3(THREADS), args,
                                    smem, 0));
  CHECK(cudaDeviceSynchronize());
  std::vector<double> got(n);
  CHECK(cudaMemcpy(got.data(), dx, n * sizeof(double), cudaMemcpyDeviceToHost));
  for (int k = 0; k < iters; k++) {
    double rr = 0, rar = 0;
    for (int i = 0; i < n; i++) {
      double r = b[i] - a[i] * x[i];
      rr += r * r;
      rar += r * a[i] * r;
    }
    for (int i = 0; i < n; i++) x[i] += rr / rar * (b[i] - a[i] * x[i]);
  }
  double worst = 0;
  for (int i = 0; i < n; i++) worst = fmax(worst, fabs(got[i] - x[i]));
  EXPECT_MSG(worst < 1e-9, "largest difference from the host iteration %g", worst);
  EXPECT_EQ(cudaLaunchCooperativeKernel((void*)descent, dim3(sms * per_sm + 1), dim3(THREADS),
                                        args, smem, 0),
            cudaErrorCooperativeLaunchTooLarge);

  int tb = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tb, trivial, 256, 0));
  EXPECT_EQ(tb, 8);
  int* flag;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  void* targs[] = {&flag};
  CHECK(cudaLaunchCooperativeKernel((void*)trivial, dim3(sms * tb), dim3(256), targs, 0, 0));
  CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(cudaLaunchCooperativeKernel((void*)trivial, dim3(sms * tb + 1), dim3(256), targs,
                                        0, 0),
            cudaErrorCooperativeLaunchTooLarge);
  if (expect_failures) return 1;
  printf("PASS coop_occupancy: %d x %d SMs blocks of %d threads\n", per_sm, sms, THREADS);
  return 0;
}
