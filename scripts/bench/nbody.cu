// One n-body step for 4096 bodies: every body's acceleration from all others (softened), with
// rsqrtf, 256 threads per block reading positions through shared-memory tiles.
#include "bench.h"
#include <cmath>
#include <vector>

__global__ void accel(const float4 *p, float3 *acc, int n) {
  __shared__ float4 tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = p[i];
  float3 a = {0, 0, 0};
  for (int t = 0; t < n; t += blockDim.x) {
    tile[threadIdx.x] = p[t + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < blockDim.x; j++) {
      float4 o = tile[j];
      float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
      float r2 = dx * dx + dy * dy + dz * dz + 1e-3f;
      float inv = rsqrtf(r2);
      float s = o.w * inv * inv * inv;
      a.x += dx * s, a.y += dy * s, a.z += dz * s;
    }
    __syncthreads();
  }
  acc[i] = a;
}

int main() {
  const int n = 4096;
  std::vector<float4> p(n);
  std::vector<float3> got(n), ref(n);
  for (int i = 0; i < n; i++)
    p[i] = make_float4(sinf(i * 0.1f) * 10, cosf(i * 0.37f) * 10, (i % 97) * 0.2f, 1.0f + i % 3);
  float4 *dp;
  float3 *da;
  CK(cudaMalloc(&dp, n * sizeof(float4)));
  CK(cudaMalloc(&da, n * sizeof(float3)));
  CK(cudaMemcpy(dp, p.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  double dev = best_of(2, [&] {
    accel<<<n / 256, 256>>>(dp, da, n);
    CK(cudaDeviceSynchronize());
  });
  CK(cudaMemcpy(got.data(), da, n * sizeof(float3), cudaMemcpyDeviceToHost));
  double nat = best_of(3, [&] {
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
      float ax = 0, ay = 0, az = 0;
      for (int j = 0; j < n; j++) {
        float dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, dz = p[j].z - p[i].z;
        float r2 = dx * dx + dy * dy + dz * dz + 1e-3f;
        float inv = 1.0f / sqrtf(r2);
        float s = p[j].w * inv * inv * inv;
        ax += dx * s, ay += dy * s, az += dz * s;
      }
      ref[i] = make_float3(ax, ay, az);
    }
  });
  // rsqrtf is an approximation (2 ulp) and the sums' contraction differs: compare loosely.
  for (int i = 0; i < n; i++) {
    float e = fabsf(got[i].x - ref[i].x) + fabsf(got[i].y - ref[i].y) + fabsf(got[i].z - ref[i].z);
    float m = fabsf(ref[i].x) + fabsf(ref[i].y) + fabsf(ref[i].z);
    expect(e <= 1e-3f * m + 1e-3f, "nbody");
  }
  report("n-body 4096 (rsqrtf)", dev, nat);
}
