// Latency of an empty kernel launch followed by cudaDeviceSynchronize (2000 pairs), and of
// launches queued back to back with one synchronisation at the end.
#include "bench.h"

__global__ void empty() {}

int main() {
  const int k = 2000;
  empty<<<1, 32>>>();
  CK(cudaDeviceSynchronize());
  double pair = best_of(3, [&] {
    for (int i = 0; i < k; i++) {
      empty<<<1, 32>>>();
      CK(cudaDeviceSynchronize());
    }
  });
  double queued = best_of(3, [&] {
    for (int i = 0; i < k; i++) empty<<<1, 32>>>();
    CK(cudaDeviceSynchronize());
  });
  printf("LATENCY %-36s %8.2f us\n", "empty launch + synchronize", pair / k * 1e6);
  printf("LATENCY %-36s %8.2f us\n", "empty launch, queued", queued / k * 1e6);
}
