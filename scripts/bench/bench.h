// Shared by the benchmark programs of scripts/bench: error checks, timing, and the result line
// scripts/bench-programs.sh collects. Each program runs its CUDA kernels (on whatever driver
// is loaded: the shim under `cuda-shim run`) and the same algorithm natively (OpenMP over all
// cores, built with -O3 -march=native), checks that both agree, and reports both times.
#pragma once
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <functional>

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

// Seconds `f` takes, best of `reps` runs.
inline double best_of(int reps, const std::function<void()> &f) {
  double b = 1e30;
  for (int r = 0; r < reps; r++) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < b) b = s;
  }
  return b;
}

// The line scripts/bench-programs.sh reads: the workload, the device time (launches and
// synchronisation, no setup copies), the native time, both in milliseconds.
inline void report(const char *name, double device_s, double native_s) {
  printf("RESULT %-28s %10.2f ms %10.2f ms %8.1fx\n", name, device_s * 1e3, native_s * 1e3,
         device_s / native_s);
}

inline void expect(bool ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "MISMATCH: %s\n", what);
    exit(2);
  }
}

// The native baseline of the GEMM programs: C = A B for n x n row-major floats, OpenMP over rows.
inline void native_sgemm(int n, const float *a, const float *b, float *c) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float *ci = c + i * n;
    for (int j = 0; j < n; j++) ci[j] = 0;
    for (int k = 0; k < n; k++) {
      float aik = a[i * n + k];
      const float *bk = b + k * n;
      for (int j = 0; j < n; j++) ci[j] += aik * bk[j];
    }
  }
}
