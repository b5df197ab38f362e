// What `cuda-shim run --stats` and `--progress` report (tests/driver.rs): three launches of
// `scale` over 4 blocks of 64 threads, 4096 bytes copied each way and 4096 bytes set, then one
// launch of `spin` long enough (150M iterations: about three seconds on the interpreter, which
// the test asks for, as compiled code runs the loop far faster) for the progress line. `fast`
// runs approximate math for the fidelity line: 40 threads of each of its 2 blocks pass the
// guard and each runs one sin.approx.f32 and one div.approx.f32 (the PTX nvcc emits for __sinf
// and __fdividef), so each ran 80 times.
#include "check.h"

__global__ void scale(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f; }

__global__ void fast(float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 40) x[i] = __sinf(x[i]) + __fdividef(x[i], 3.0f);
}

__global__ void spin(unsigned *out, unsigned n) {
  unsigned v = threadIdx.x;
  for (unsigned i = 0; i < n; i++) v = v * 1664525u + 1013904223u;
  if (threadIdx.x == 0) *out = v;
}

int main(int argc, char **argv) {
  unsigned iterations = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
  float h[1024];
  for (int i = 0; i < 1024; i++) h[i] = (float)i;
  float *d;
  unsigned *r, got = 0;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMalloc(&r, sizeof(unsigned)));
  CHECK(cudaMemset(d, 0, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  for (int k = 0; k < 3; k++) scale<<<4, 64>>>(d);
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  REQUIRE(h[5] == 40.0f && h[300] == 300.0f);
  fast<<<2, 64>>>(d);
  CHECK(cudaDeviceSynchronize());
  if (iterations) {
    spin<<<1, 32>>>(r, iterations);
    CHECK(cudaMemcpy(&got, r, sizeof got, cudaMemcpyDeviceToHost));
  }
  CHECK(cudaFree(d));
  CHECK(cudaFree(r));
  printf("PASS\n");
  return 0;
}
