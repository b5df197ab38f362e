// Kernel parameters addressed generically: a `const __grid_constant__` parameter whose address
// is taken compiles to `cvta.param` (PTX 7.7), and `__isGridConstant` to `isspacep.param`. The
// ISA places the `.param` window inside the `.global` one, so such a pointer is also a global
// address, readable through ordinary (generic) loads, from any thread and from a callee.
#include "check.h"

struct Big {
  int v[8];
  long long tag;
};

__device__ __noinline__ int pick(const int* q, int i) { return q[i]; }

__global__ void kernel(const __grid_constant__ Big b, int* out, int* space) {
  const Big* p = &b;
  int i = threadIdx.x;
  out[i] = pick(&p->v[0], i % 8) + (int)p->tag;
  if (i == 0) {
    space[0] = __isGridConstant(&b);
    space[1] = __isGridConstant(out);
    space[2] = __isGlobal(&b);
    space[3] = __isShared(&b) + __isLocal(&b);
  }
}

int main() {
  const int T = 64;
  Big b;
  for (int k = 0; k < 8; k++) b.v[k] = 100 * k + 7;
  b.tag = 1000000;
  int *out, *space;
  CHECK(cudaMalloc(&out, T * sizeof(int)));
  CHECK(cudaMalloc(&space, 4 * sizeof(int)));
  kernel<<<1, T>>>(b, out, space);
  CHECK(cudaGetLastError());
  int h[T], s[4];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(s, space, sizeof s, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < T; i++) {
    int want = b.v[i % 8] + 1000000;
    if (h[i] != want) {
      if (bad++ < 5) printf("out[%d] = %d, want %d\n", i, h[i], want);
    }
  }
  const int want_s[4] = {1, 0, 1, 0};
  for (int k = 0; k < 4; k++) {
    if (s[k] != want_s[k]) {
      bad++;
      printf("space[%d] = %d, want %d\n", k, s[k], want_s[k]);
    }
  }
  if (bad) {
    printf("FAIL isa_grid_constant: %d mismatches\n", bad);
    return 1;
  }
  printf("PASS isa_grid_constant: %d threads read a __grid_constant__ parameter through its address\n", T);
  return 0;
}
