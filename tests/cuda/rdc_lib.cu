// The second translation unit of rdc_main.cu (see there).
#include "check.h"

__device__ int scale = 3;

// Private to this unit; rdc_main.cu has its own `helper`.
static __device__ __noinline__ int helper(int x) { return x + 1000; }

__device__ int twice_plus(int x) { return 2 * x + helper(1) - 1000; }

void set_scale(int s) { CHECK(cudaMemcpyToSymbol(scale, &s, sizeof s)); }
