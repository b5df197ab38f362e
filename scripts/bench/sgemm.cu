// C = A B for 512 x 512 floats, 16 x 16 shared-memory tiles.
#include "bench.h"
#include <vector>

#define TILE 16
__global__ void sgemm(const float *a, const float *b, float *c, int n) {
  __shared__ float ta[TILE][TILE], tb[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += TILE) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

int main() {
  const int n = 512;
  std::vector<float> a(n * n), b(n * n), c(n * n), ref(n * n);
  // Small integers: every product and partial sum is exact, so any order gives the same bits.
  for (int i = 0; i < n * n; i++) a[i] = (i * 7) % 5 - 2.0f, b[i] = (i * 3) % 7 - 3.0f;
  float *da, *db, *dc;
  CK(cudaMalloc(&da, n * n * 4));
  CK(cudaMalloc(&db, n * n * 4));
  CK(cudaMalloc(&dc, n * n * 4));
  CK(cudaMemcpy(da, a.data(), n * n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, b.data(), n * n * 4, cudaMemcpyHostToDevice));
  double dev = best_of(2, [&] {
    sgemm<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(da, db, dc, n);
    CK(cudaDeviceSynchronize());
  });
  CK(cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost));
  double nat = best_of(3, [&] { native_sgemm(n, a.data(), b.data(), ref.data()); });
  for (int i = 0; i < n * n; i++) expect(c[i] == ref[i], "sgemm");
  report("sgemm 512^3 (tiled)", dev, nat);
}
