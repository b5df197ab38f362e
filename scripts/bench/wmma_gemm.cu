// C = A B on tensor cores through wmma (m16n16k16, f16 multiplicands, f32 accumulators), 256^3,
// one warp per 16x16 tile of C, against a native f32 GEMM of the same size (OpenMP). Small
// integers: exact in f16, so both agree bit for bit.
#include "bench.h"
#include <cuda_fp16.h>
#include <mma.h>
#include <vector>
using namespace nvcuda;

__global__ void gemm(const __half *a, const __half *b, float *c, int n) {
  int tm = blockIdx.y * 16, tn = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  for (int k = 0; k < n; k += 16) {
    wmma::load_matrix_sync(fa, a + tm * n + k, n);
    wmma::load_matrix_sync(fb, b + k * n + tn, n);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(c + tm * n + tn, fc, n, wmma::mem_row_major);
}

int main() {
  const int n = 256;
  std::vector<float> af(n * n), bf(n * n), c(n * n), ref(n * n);
  std::vector<__half> a(n * n), b(n * n);
  for (int i = 0; i < n * n; i++) {
    af[i] = (i * 7) % 5 - 2.0f, bf[i] = (i * 3) % 7 - 3.0f;
    a[i] = __float2half(af[i]), b[i] = __float2half(bf[i]);
  }
  __half *da, *db;
  float *dc;
  CK(cudaMalloc(&da, n * n * 2));
  CK(cudaMalloc(&db, n * n * 2));
  CK(cudaMalloc(&dc, n * n * 4));
  CK(cudaMemcpy(da, a.data(), n * n * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, b.data(), n * n * 2, cudaMemcpyHostToDevice));
  double dev = best_of(2, [&] {
    gemm<<<dim3(n / 16, n / 16), 32>>>(da, db, dc, n);
    CK(cudaDeviceSynchronize());
  });
  CK(cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost));
  double nat = best_of(3, [&] { native_sgemm(n, af.data(), bf.data(), ref.data()); });
  for (int i = 0; i < n * n; i++) expect(c[i] == ref[i], "wmma gemm");
  report("wmma gemm 256^3 (f16->f32)", dev, nat);
}
