// Device printf with every argument kind and assert (calls vprintf and __assertfail).
#include <cstdio>
#include <cassert>

__global__ void hello(int n, float f, double d, const char *s, long long ll) {
  printf("block %d thread %d: n=%d f=%f d=%.3e s=%s ll=%lld c=%c p=%p\n", blockIdx.x,
         threadIdx.x, n, f, d, s, ll, 'x', (void *)s);
  assert(n >= 0 && "n must be non-negative");
  if (threadIdx.x == 0) printf("%s\n", "only thread 0");
}
