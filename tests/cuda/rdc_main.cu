// `-rdc=true` (relocatable device code) with two translation units: this kernel calls a
// `__device__` function and reads an `extern __device__` variable, both defined in
// rdc_lib.cu. Each unit also has a private (static) `helper` of the same name: the linker must
// keep them apart. Expected: out[i] = twice_plus(i) * scale + helper(i)
//   = (2i + 1) * 3 + 10i, then with scale = 5 (set through rdc_lib.cu's cudaMemcpyToSymbol):
//   (2i + 1) * 5 + 10i.
#include "check.h"

extern __device__ int scale;
__device__ int twice_plus(int x);
void set_scale(int s);

static __device__ __noinline__ int helper(int x) { return x * 10; }

__global__ void apply(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = twice_plus(i) * scale + helper(i);
}

static void check(int* d, int n, int s) {
  apply<<<(n + 63) / 64, 64>>>(d, n);
  CHECK(cudaGetLastError());
  int h[200];
  CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    int want = (2 * i + 1) * s + 10 * i;
    if (h[i] != want) {
      printf("FAIL out[%d] = %d, want %d\n", i, h[i], want);
      exit(1);
    }
  }
}

int main() {
  const int n = 200;
  int* d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  check(d, n, 3);
  set_scale(5);
  check(d, n, 5);
  CHECK(cudaFree(d));
  printf("PASS rdc\n");
  return 0;
}
