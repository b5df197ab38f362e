// CUTLASS as its users call it: device-level GEMMs on tensor cores (cutlass::gemm::device::Gemm
// with OpClassTensorOp for Sm80: multistage cp.async pipelines, ldmatrix and mma.sync chosen by
// CUTLASS's own defaults), headers from the pinned pip nvidia-cutlass. The inputs are small
// integers, so every product and partial sum is exact in each type and the expected values are
// the CPU's integer GEMM. Prints PASS when all held.
#include <cutlass/gemm/device/gemm.h>
#include <cstdio>
#include <vector>
#include "check.h"

static int val(int seed, int i) {
  unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(seed * 40503u);
  h ^= h >> 13;
  return (int)(h % 7) - 3;
}

// D = alpha * A(MxK, row) * B(KxN, column) + beta * C(MxN, row).
template <typename Elem, typename Acc, typename Out>
static void run(const char* name, int m, int n, int k) {
  using Gemm = cutlass::gemm::device::Gemm<Elem, cutlass::layout::RowMajor, Elem,
                                           cutlass::layout::ColumnMajor, Out,
                                           cutlass::layout::RowMajor, Acc,
                                           cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80>;
  std::vector<Elem> a(m * k), b(k * n);
  std::vector<Out> c(m * n), d(m * n);
  for (int i = 0; i < m * k; i++) a[i] = Elem(val(1, i));
  for (int i = 0; i < k * n; i++) b[i] = Elem(val(2, i));  // column j at j*k
  for (int i = 0; i < m * n; i++) c[i] = Out(val(3, i));
  Elem *da, *db;
  Out *dc, *dd;
  CHECK(cudaMalloc(&da, a.size() * sizeof(Elem)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(Elem)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(Out)));
  CHECK(cudaMalloc(&dd, d.size() * sizeof(Out)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(Elem), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(Elem), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(Out), cudaMemcpyHostToDevice));
  Gemm gemm;
  typename Gemm::Arguments args({m, n, k}, {da, k}, {db, k}, {dc, n}, {dd, n}, {Acc(2), Acc(-1)});
  cutlass::Status st = gemm(args);
  EXPECT_MSG(st == cutlass::Status::kSuccess, "%s: %s", name, cutlassGetStatusString(st));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(Out), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      long s = 0;
      for (int x = 0; x < k; x++) s += (long)val(1, i * k + x) * val(2, j * k + x);
      long want = 2 * s - val(3, i * n + j);
      double got = (double)d[i * n + j];
      if (got != (double)want && bad++ < 3)
        fprintf(stderr, "%s: d[%d][%d] = %g, expected %ld\n", name, i, j, got, want);
    }
  EXPECT_MSG(bad == 0, "%s: %d wrong of %d", name, bad, m * n);
  fprintf(stderr, "%s: %s\n", name, bad ? "FAIL" : "ok");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dd);
}

int main() {
  run<cutlass::half_t, float, float>("cutlass f16 gemm 256x128x96", 256, 128, 96);
  run<cutlass::bfloat16_t, float, float>("cutlass bf16 gemm 128x256x64", 128, 256, 64);
  run<cutlass::half_t, cutlass::half_t, cutlass::half_t>("cutlass f16->f16 gemm 128x128x64", 128, 128, 64);
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures == 0 ? 0 : 1;
}
