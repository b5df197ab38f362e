// bench-needs: cutlass compute_90a
// CuTe's Hopper GEMM (examples/cute/tutorial/hopper/wgmma_tma_sm90.cu of the pinned
// nvidia-cutlass, included unmodified: TMA loads into an mbarrier pipeline, clusters of 2,
// wgmma.mma_async), C = A B in f16 for 256x256x256 (NT), against a native f32 GEMM of the same
// size (OpenMP). Small integers: exact in f16 (|C| <= 1024), so both agree.
#define main cute_tutorial_main
#include "examples/cute/tutorial/hopper/wgmma_tma_sm90.cu"
#undef main
#include "bench.h"
#include <vector>

static int val(int seed, int i) { return (int)((unsigned)(i * 2654435761u ^ seed * 40503u) % 5) - 2; }

int main() {
  const int n = 256;
  using T = cute::half_t;
  thrust::host_vector<T> A(n * n), B(n * n), C(n * n);
  std::vector<float> af(n * n), bf(n * n), ref(n * n);
  // NT: A is M x K with M contiguous, B is N x K with N contiguous.
  for (int i = 0; i < n * n; i++) A[i] = T(af[i] = val(1, i)), B[i] = T(bf[i] = val(2, i));
  thrust::device_vector<T> dA = A, dB = B, dC = C;
  double dev = best_of(2, [&] {
    gemm('N', 'T', n, n, n, T(1.0f), dA.data().get(), n, dB.data().get(), n, T(0.0f),
         dC.data().get(), n);
    CK(cudaDeviceSynchronize());
  });
  thrust::host_vector<T> got = dC;
  double nat = best_of(3, [&] {
    // C(m, j) = sum_k A(m, k) B(j, k), A(m, k) at m + k n, B(j, k) at j + k n; C column-major.
#pragma omp parallel for
    for (int j = 0; j < n; j++) {
      float *cj = ref.data() + j * n;
      for (int m = 0; m < n; m++) cj[m] = 0;
      for (int k = 0; k < n; k++) {
        float bjk = bf[j + k * n];
        const float *ak = af.data() + k * n;
        for (int m = 0; m < n; m++) cj[m] += ak[m] * bjk;
      }
    }
  });
  for (int i = 0; i < n * n; i++) expect(float(got[i]) == ref[i], "cute hopper gemm");
  report("cute wgmma+tma gemm 256^3 (f16)", dev, nat);
}
