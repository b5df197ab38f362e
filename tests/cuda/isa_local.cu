// Big per-thread arrays (4, 8 and 16 KiB) indexed dynamically, so they live in local memory,
// with the stack limit raised. Each thread fills its array, walks it by data-dependent indices,
// sorts it (insertion sort on a prefix) and reduces it; the host repeats the same steps.
#include "check.h"
#include <vector>

__host__ __device__ unsigned hash32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}

template <int N>
__host__ __device__ unsigned long long work(unsigned t) {
  unsigned a[N];  // N * 4 bytes per thread
  for (int i = 0; i < N; i++) a[i] = hash32(t * 65537u + i);
  // a data-dependent walk: reads and writes at indices the compiler cannot know
  unsigned idx = t % N, acc = 0;
  for (int s = 0; s < 4 * N; s++) {
    unsigned v = a[idx];
    acc += v ^ (unsigned)s;
    a[idx] = v * 2654435761u + acc;
    idx = (v >> 7) % N;
  }
  // insertion sort of the first 64 elements
  for (int i = 1; i < 64; i++) {
    unsigned k = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > k) { a[j + 1] = a[j]; j--; }
    a[j + 1] = k;
  }
  unsigned long long r = acc;
  for (int i = 0; i < N; i++) r = r * 31 + a[(i * 17) % N];
  for (int i = 0; i < 63; i++) if (a[i] > a[i + 1]) r ^= 0xdeadbeefull;  // must stay sorted
  return r;
}

template <int N>
__global__ void kernel(unsigned long long* out) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = work<N>(t);
}

int main() {
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 32 * 1024));
  const int T = 128;
  unsigned long long* d;
  CHECK(cudaMalloc(&d, T * 8));
  std::vector<unsigned long long> out(T);
  int bad = 0;
  auto check = [&](int kib, unsigned long long (*host)(unsigned)) {
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d, T * 8, cudaMemcpyDeviceToHost));
    for (int t = 0; t < T; t++) {
      unsigned long long want = host(t);
      if (out[t] != want && bad++ < 20)
        fprintf(stderr, "%d KiB thread %d: %llx want %llx\n", kib, t, out[t], want);
    }
  };
  kernel<1024><<<2, T / 2>>>(d);
  check(4, work<1024>);
  kernel<2048><<<2, T / 2>>>(d);
  check(8, work<2048>);
  kernel<4096><<<4, T / 4>>>(d);
  check(16, work<4096>);
  if (bad) {
    printf("FAIL isa_local: %d threads wrong\n", bad);
    return 1;
  }
  printf("PASS isa_local: %d threads with 4, 8 and 16 KiB local arrays\n", T);
  return 0;
}
