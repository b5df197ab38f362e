// cub::DeviceScan built for compute_100 (PTX 9.5 from the pinned nvcc), where CUB's scan kernel
// takes the sm_100 path: work stealing with `clusterlaunchcontrol.try_cancel`, tiles loaded with
// `cp.async.bulk ... .ignore_oob` (the ends of an unaligned input) and stored with
// `cp.async.bulk ... .cp_mask` (the ends of an unaligned output). Inputs at element offsets 0,
// 1 and 3 and outputs at 0, 2 and 6; every result is compared with the host's running sum, and
// the guard elements around the output must be untouched. Prints PASS, or what differed.
#include <cub/device/device_scan.cuh>
#include <cstdio>
#include <vector>

template <typename T, bool Inclusive>
static bool check(int n, int off) {
  std::vector<T> h(n);
  for (int i = 0; i < n; i++) h[i] = T((i * 7 + 3) % 11) - T(5);
  T *in, *out;
  cudaMalloc(&in, (n + 8) * sizeof(T));
  cudaMalloc(&out, (n + 8) * sizeof(T));
  cudaMemset(out, 0x7f, (n + 8) * sizeof(T));
  cudaMemcpy(in + off, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  void* tmp = nullptr;
  size_t bytes = 0;
  auto scan = [&] {
    return Inclusive ? cub::DeviceScan::InclusiveSum(tmp, bytes, in + off, out + 2 * off, n)
                     : cub::DeviceScan::ExclusiveSum(tmp, bytes, in + off, out + 2 * off, n);
  };
  scan();
  cudaMalloc(&tmp, bytes);
  cudaError_t e = scan();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  std::vector<T> r(n + 8);
  cudaMemcpy(r.data(), out, (n + 8) * sizeof(T), cudaMemcpyDeviceToHost);
  T guard;
  memset(&guard, 0x7f, sizeof(T));
  int bad = 0;
  T sum = 0;
  for (int i = 0; i < n; i++) {
    T before = sum;
    sum += h[i];
    bad += r[2 * off + i] != (Inclusive ? sum : before);
  }
  for (int i = 0; i < n + 8; i++)
    if (i < 2 * off || i >= 2 * off + n) bad += memcmp(&r[i], &guard, sizeof(T)) != 0;
  cudaFree(in);
  cudaFree(out);
  cudaFree(tmp);
  if (e != cudaSuccess || bad)
    printf("%s sum of %d x %zu bytes at +%d: %s, %d wrong\n", Inclusive ? "inclusive" : "exclusive",
           n, sizeof(T), off, cudaGetErrorString(e), bad);
  return e == cudaSuccess && !bad;
}

int main() {
  bool ok = true;
  for (int off : {0, 1, 3})
    for (int n : {1, 1000, 70001}) {
      ok &= check<int, true>(n, off);
      ok &= check<long long, false>(n, off);
    }
  if (ok) printf("PASS\n");
  return 0;
}
