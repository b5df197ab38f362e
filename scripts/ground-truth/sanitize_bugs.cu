// Ground-truth probe: compute-sanitizer's reports for one planted bug per kind (issue: error
// handling, the CPU sanitizer). `sanitize_bugs MODE`; scripts/ground-truth/run.sh runs each
// mode under the tool that finds it and keeps the report, so the shim's report format and exit
// status can be modelled on it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__global__ void write_n(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) a[i] = i;  // planted: i == n is one past the end
}
__global__ void read_misaligned(const char* p, int* out) {
  if (threadIdx.x == 3) out[0] = *(const int*)(p + 2);  // planted: 4-byte load at 2 mod 4
}
__global__ void read_all(const int* a, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + 1;
}
__global__ void shared_race(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  // planted: no __syncthreads() between the write and a read of another warp's element
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}
__global__ void shared_oob(int* out) {
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = threadIdx.x;  // planted: 64 threads, 32 ints of dynamic shared memory
  __syncthreads();
  out[threadIdx.x] = dyn[threadIdx.x % 32];
}
__global__ void divergent_barrier(int* out) {
  if (threadIdx.x < 16) __syncthreads();  // planted: half the block skips the barrier
  out[threadIdx.x] = threadIdx.x;
}
__global__ void bad_syncwarp(int* out) {
  __syncwarp(0x0000ffffu);  // planted: lanes 16..31 name a mask without themselves
  out[threadIdx.x] = threadIdx.x;
}
__device__ __noinline__ int deep(volatile int* buf, int n) {
  volatile int local[64];
  for (int i = 0; i < 64; i++) local[i] = buf[i] + n;
  return n == 0 ? local[n % 64] : deep(buf, n - 1) + local[(n * 7) % 64];
}
__global__ void overflow(int* out, int n) {
  out[threadIdx.x] = deep(out, n);  // planted: ~100,000 frames of 256+ bytes
}
__global__ void atomic_n(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n + 3) atomicAdd(&a[i], 1);  // planted: 3 elements past the end
}
__global__ void read_before(const int* a, int* out) {
  if (threadIdx.x == 0) out[0] = a[-1];  // planted: 4 bytes before the allocation
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
  cudaMemset(out, 0, 1024 * sizeof(int));
  if (!strcmp(mode, "oob_global")) {
    cudaMemset(a, 0, n * sizeof(int));
    write_n<<<1, 128>>>(a, n);
  } else if (!strcmp(mode, "misaligned")) {
    read_misaligned<<<1, 32>>>((const char*)a, out);
  } else if (!strcmp(mode, "use_after_free")) {
    int* b;
    cudaMalloc(&b, n * sizeof(int));
    cudaMemset(b, 0, n * sizeof(int));
    cudaFree(b);
    read_all<<<1, 128>>>(b, out, n);
  } else if (!strcmp(mode, "leak")) {
    int* b;
    cudaMalloc(&b, 4096);  // planted: never freed
    clean<<<1, 128>>>(out, n);
  } else if (!strcmp(mode, "race")) {
    shared_race<<<1, 64>>>(out);
  } else if (!strcmp(mode, "shared_oob")) {
    shared_oob<<<1, 64, 32 * sizeof(int)>>>(out);
  } else if (!strcmp(mode, "uninit")) {
    read_all<<<1, 128>>>(a, out, n);  // planted: a was never written
  } else if (!strcmp(mode, "divergent_barrier")) {
    divergent_barrier<<<1, 64>>>(out);
  } else if (!strcmp(mode, "bad_syncwarp")) {
    bad_syncwarp<<<1, 32>>>(out);
  } else if (!strcmp(mode, "oob_atomic")) {
    cudaMemset(a, 0, n * sizeof(int));
    atomic_n<<<1, 128>>>(a, n);
  } else if (!strcmp(mode, "oob_before")) {
    cudaMemset(a, 0, n * sizeof(int));
    read_before<<<1, 32>>>(a, out);
  } else if (!strcmp(mode, "uninit_copy")) {
    int h[100];
    cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);  // planted: a was never written
  } else if (!strcmp(mode, "bad_free")) {
    cudaError_t e = cudaFree((void*)0x1234);  // planted
    printf("cudaFree(0x1234): %s\n", cudaGetErrorName(e));
  } else if (!strcmp(mode, "double_free")) {
    int* b;
    cudaMalloc(&b, 64);
    cudaFree(b);
    cudaError_t e = cudaFree(b);  // planted
    printf("second cudaFree: %s\n", cudaGetErrorName(e));
  } else if (!strcmp(mode, "leak_reset")) {
    int* b;
    cudaMalloc(&b, 4096);  // never freed, but the device is reset
    cudaDeviceReset();
    printf("leak_reset: reset\n");
    return 0;
  } else if (!strcmp(mode, "stack_overflow")) {
    overflow<<<1, 32>>>(out, 100000);
  } else if (!strcmp(mode, "bad_api")) {
    int h;
    cudaError_t e = cudaMemcpy(&h, (void*)0x10, 4, cudaMemcpyDeviceToHost);  // planted
    printf("cudaMemcpy from 0x10: %s\n", cudaGetErrorName(e));
  } else {
    cudaMemset(a, 0, n * sizeof(int));
    clean<<<1, 128>>>(out, n);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s: sync %s\n", mode, cudaGetErrorName(e));
  if (strcmp(mode, "leak") && strcmp(mode, "use_after_free")) {
    cudaFree(a);
    cudaFree(out);
  }
  return 0;
}
