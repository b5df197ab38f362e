// thrust::sort of 2^24 unsigned keys (CUB's radix sort underneath).
#include "bench.h"
#include <algorithm>
#include <parallel/algorithm>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <vector>

int main() {
  const int n = 1 << 24;
  std::vector<unsigned> keys(n), got(n), ref;
  unsigned s = 12345;
  for (auto &k : keys) k = s = s * 1664525u + 1013904223u;
  thrust::device_vector<unsigned> d(n);
  double dev = best_of(1, [&] {
    thrust::copy(keys.begin(), keys.end(), d.begin());
    thrust::sort(d.begin(), d.end());
    CK(cudaDeviceSynchronize());
  });
  thrust::copy(d.begin(), d.end(), got.begin());
  double nat = best_of(3, [&] {
    ref = keys;
    __gnu_parallel::sort(ref.begin(), ref.end());
  });
  expect(got == ref, "thrust sort");
  report("thrust::sort 2^24 u32", dev, nat);
}
