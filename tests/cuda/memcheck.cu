// Planted bugs for the sanitizer (`cuda-shim run --check memcheck`), one per mode: the program
// itself reports nothing; the sanitizer must. The same bugs, run under compute-sanitizer 2025
// on an H100 (driver 580.159, 2026-11-26), gave the reports the test compares with
// (scripts/ground-truth/sanitize_bugs.cu and results/sanitizer-h100.txt):
//   oob_global   write one int past a 400-byte allocation: "1 bytes after the nearest allocation
//                at ... of size 400 bytes", thread (100,0,0)
//   oob_before   read 4 bytes before it: "4 bytes before the nearest allocation"
//   oob_atomic   atomicAdd 3 ints past the end: "Invalid __global__ atomic of size 4 bytes",
//                "13 bytes after", thread (103,0,0)
//   misaligned   4-byte load at offset 2: "is misaligned", "inside the nearest allocation"
//   shared_oob   64 threads store into 32 ints of dynamic shared memory: "Invalid __shared__
//                write of size 4 bytes", thread (32,0,0)
//   leak         three cudaMalloc'd buffers never freed (400 + 4096 + 4096 bytes):
//                "LEAK SUMMARY: 8592 bytes leaked in 3 allocations"
//   use_after_free  read a freed allocation (compute-sanitizer names whatever allocation is
//                nearest; the shim quarantines freed memory and says it was freed)
//   bad_api      cudaMemcpy from device address 0x10: "Program hit cudaErrorInvalidValue (error 1)
//                due to "invalid argument" on CUDA API call to cudaMemcpy."
//   bad_free     cudaFree((void*)0x1234): the same error, on cudaFree
//   clean        none: "ERROR SUMMARY: 0 errors"
//   oob_all      256 threads (2 blocks of 128) each write the element 256 past their own in a
//                256-int allocation: every thread's write is out of bounds. compute-sanitizer
//                reports one "Invalid __global__ write" per faulting thread (the log above
//                repeats the report per thread: 32 errors for the warp of shared_oob, 100 for
//                the 100 threads of use_after_free), so 256 errors and the 3 API calls failing after
//                the launch, the
//                first 100 printed (its default --print-limit: "1 errors were not printed" for
//                use_after_free's 101), and the launch fails: cudaErrorLaunchFailure. Without
//                the tool the first fault stops the launch: cudaErrorIllegalAddress.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void write_n(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) a[i] = i;
}
__global__ void read_before(const int* a, int* out) {
  if (threadIdx.x == 0) out[0] = a[-1];
}
__global__ void atomic_n(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n + 3) atomicAdd(&a[i], 1);
}
__global__ void read_misaligned(const char* p, int* out) {
  if (threadIdx.x == 3) out[0] = *(const int*)(p + 2);
}
__global__ void shared_oob(int* out) {
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = dyn[threadIdx.x % 32];
}
__global__ void read_all(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 1;
}
__global__ void write_past(int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[n + i] = i;
}
__global__ void clean(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * i;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "clean";
  const int n = 100;
  int *a, *out;
  cudaMalloc(&a, n * sizeof(int));
  cudaMalloc(&out, 1024 * sizeof(int));
  cudaMemset(a, 0, n * sizeof(int));
  cudaMemset(out, 0, 1024 * sizeof(int));
  if (!strcmp(mode, "oob_global")) {
    write_n<<<1, 128>>>(a, n);
  } else if (!strcmp(mode, "oob_before")) {
    read_before<<<1, 32>>>(a, out);
  } else if (!strcmp(mode, "oob_atomic")) {
    atomic_n<<<1, 128>>>(a, n);
  } else if (!strcmp(mode, "misaligned")) {
    read_misaligned<<<1, 32>>>((const char*)a, out);
  } else if (!strcmp(mode, "shared_oob")) {
    shared_oob<<<1, 64, 32 * sizeof(int)>>>(out);
  } else if (!strcmp(mode, "use_after_free")) {
    int* b;
    cudaMalloc(&b, n * sizeof(int));
    cudaMemset(b, 0, n * sizeof(int));
    cudaFree(b);
    read_all<<<1, 128>>>(b, out, n);
  } else if (!strcmp(mode, "oob_all")) {
    // Allocated last, so that nothing lies past it.
    int* c;
    cudaMalloc(&c, 256 * sizeof(int));
    write_past<<<2, 128>>>(c, 256);
  } else if (!strcmp(mode, "bad_api")) {
    int h;
    cudaError_t e = cudaMemcpy(&h, (void*)0x10, 4, cudaMemcpyDeviceToHost);  // planted
    printf("cudaMemcpy from 0x10: %s\n", cudaGetErrorName(e));
  } else if (!strcmp(mode, "bad_free")) {
    cudaError_t e = cudaFree((void*)0x1234);  // planted
    printf("cudaFree(0x1234): %s\n", cudaGetErrorName(e));
  } else if (!strcmp(mode, "leak")) {
    int* b;
    cudaMalloc(&b, 4096);
    clean<<<1, 128>>>(out, n);
  } else {
    clean<<<1, 128>>>(out, n);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s: %s\n", mode, cudaGetErrorName(e));
  // (Not after a use after free, as in scripts/ground-truth/sanitize_bugs.cu, whose counts the
  // test quotes.)
  if (strcmp(mode, "leak") && strcmp(mode, "use_after_free")) {
    cudaFree(a);
    cudaFree(out);
  }
  return 0;
}
