// Copy and memset throughput of the driver against plain memcpy/memset in the same process.
// Every buffer is touched before it is timed (a first-touch page fault is the kernel's cost,
// not the copy's), and each figure is the best of REPS runs. The last column is the shim's
// time over the native call's for the same bytes: 1.00 is memory speed. (Device-to-device
// copies and memsets return before they complete, as the driver documents, so their rows
// include the synchronisation.)
//
//   scripts/bench-programs.sh copies       (builds with the pinned nvcc, runs on the shim)
#include "bench.h"
#include <cstring>

static const size_t N = size_t(256) << 20;
static const int REPS = 5;

static double best(const std::function<void()> &f) { return best_of(REPS, f); }

static void row(const char *name, double s, double native) {
  printf("%-40s %8.2f GB/s %8.2fx\n", name, N / s / 1e9, s / native);
}

int main() {
  char *ha = (char *)malloc(N), *hb = (char *)malloc(N);
  char *pa, *pb, *da, *db;
  CK(cudaMallocHost(&pa, N));
  CK(cudaMallocHost(&pb, N));
  CK(cudaMalloc(&da, N));
  CK(cudaMalloc(&db, N));
  for (char *p : {ha, hb, pa, pb}) memset(p, 1, N);
  CK(cudaMemset(da, 2, N));
  CK(cudaMemset(db, 3, N));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  double cpy = best([&] { memcpy(ha, hb, N); });
  double set = best([&] { memset(ha, 7, N); });
  printf("%-40s %8.2f GB/s\n", "native memcpy (pageable)", N / cpy / 1e9);
  printf("%-40s %8.2f GB/s\n", "native memset (pageable)", N / set / 1e9);
  printf("%-40s %13s %9s\n", "form", "throughput", "vs native");

  row("cudaMemcpy HtoD pageable", best([&] { CK(cudaMemcpy(da, ha, N, cudaMemcpyHostToDevice)); }), cpy);
  row("cudaMemcpy HtoD pinned", best([&] { CK(cudaMemcpy(da, pa, N, cudaMemcpyHostToDevice)); }), cpy);
  row("cudaMemcpy DtoH pageable", best([&] { CK(cudaMemcpy(ha, da, N, cudaMemcpyDeviceToHost)); }), cpy);
  row("cudaMemcpy DtoH pinned", best([&] { CK(cudaMemcpy(pa, da, N, cudaMemcpyDeviceToHost)); }), cpy);
  row("cudaMemcpy DtoD + sync", best([&] { CK(cudaMemcpy(db, da, N, cudaMemcpyDeviceToDevice)); CK(cudaDeviceSynchronize()); }), cpy);
  row("cudaMemcpy default (HtoD pageable)", best([&] { CK(cudaMemcpy(da, ha, N, cudaMemcpyDefault)); }), cpy);
  row("cudaMemcpyAsync HtoD pinned + sync", best([&] {
        CK(cudaMemcpyAsync(da, pa, N, cudaMemcpyHostToDevice, s));
        CK(cudaStreamSynchronize(s));
      }), cpy);
  row("cudaMemcpyAsync DtoH pinned + sync", best([&] {
        CK(cudaMemcpyAsync(pa, da, N, cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
      }), cpy);
  row("cudaMemcpyAsync HtoD pageable + sync", best([&] {
        CK(cudaMemcpyAsync(da, ha, N, cudaMemcpyHostToDevice, s));
        CK(cudaStreamSynchronize(s));
      }), cpy);
  row("cudaMemcpyAsync DtoD + sync", best([&] {
        CK(cudaMemcpyAsync(db, da, N, cudaMemcpyDeviceToDevice, s));
        CK(cudaStreamSynchronize(s));
      }), cpy);
  // 2-D: rows of 64 KiB with pitch 64 KiB + 256 on both sides.
  const size_t w = 65536, pitch = w + 256, h = N / pitch;
  double cpy2 = best([&] {
    for (size_t r = 0; r < h; r++) memcpy(ha + r * pitch, hb + r * pitch, w);
  });
  auto row2 = [&](const char *name, double t) {
    printf("%-40s %8.2f GB/s %8.2fx\n", name, w * h / t / 1e9, t / cpy2);
  };
  row2("cudaMemcpy2D DtoD + sync (64 KiB rows)", best([&] {
         CK(cudaMemcpy2D(db, pitch, da, pitch, w, h, cudaMemcpyDeviceToDevice));
         CK(cudaDeviceSynchronize());
       }));
  row2("cudaMemcpy2D DtoH pageable (64 KiB rows)", best([&] {
         CK(cudaMemcpy2D(ha, pitch, da, pitch, w, h, cudaMemcpyDeviceToHost));
       }));
  row("cudaMemset + sync", best([&] {
        CK(cudaMemset(da, 9, N));
        CK(cudaDeviceSynchronize());
      }), set);
  row("cudaMemsetAsync + sync", best([&] {
        CK(cudaMemsetAsync(da, 9, N, s));
        CK(cudaStreamSynchronize(s));
      }), set);
  double set2 = best([&] {
    CK(cudaMemset2D(da, pitch, 9, w, h));
    CK(cudaDeviceSynchronize());
  });
  double nset2 = best([&] {
    for (size_t r = 0; r < h; r++) memset(ha + r * pitch, 9, w);
  });
  printf("%-40s %8.2f GB/s %8.2fx\n", "cudaMemset2D + sync (64 KiB rows)", w * h / set2 / 1e9,
         set2 / nset2);

  // Latency of small synchronous calls, as a test suite makes them by the thousand.
  auto lat = [&](const char *name, const std::function<void()> &f) {
    const int k = 2000;
    double t = best([&] {
      for (int i = 0; i < k; i++) f();
    });
    printf("%-40s %8.2f us per call\n", name, t / k * 1e6);
  };
  lat("cudaMemcpy DtoH 4 bytes", [&] { CK(cudaMemcpy(ha, da, 4, cudaMemcpyDeviceToHost)); });
  lat("cudaMemcpy HtoD 4 bytes", [&] { CK(cudaMemcpy(da, ha, 4, cudaMemcpyHostToDevice)); });
  lat("cudaMemset 4 bytes + sync", [&] {
    CK(cudaMemset(da, 1, 4));
    CK(cudaDeviceSynchronize());
  });

  CK(cudaStreamDestroy(s));
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFreeHost(pa));
  CK(cudaFreeHost(pb));
  free(ha);
  free(hb);
  return 0;
}
