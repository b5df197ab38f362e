// Planted barrier misuse for the sanitizer's synccheck (`cuda-shim run --check synccheck`), one
// per mode, as scripts/ground-truth/sanitize_bugs.cu plants them. Under compute-sanitizer on an
// H100 (driver 580.159, results/sanitizer-h100.txt) they gave:
//   divergent_barrier  half of warp 0 skips __syncthreads: "Barrier error detected. Divergent
//                      thread(s) in warp." by thread (0,0,0), 16 errors, the launch fails with
//                      cudaErrorLaunchFailure (without the tool: cudaSuccess)
//   bad_syncwarp       __syncwarp(0x0000ffff) by all 32 lanes: "Barrier error detected. Invalid
//                      arguments." by thread (0,0,0), 32 errors, cudaErrorLaunchFailure
//                      (without the tool: cudaSuccess)
//   clean              barriers used correctly: "ERROR SUMMARY: 0 errors"
//   wait_then_sync     (built with -DWITH_CLUSTERS for compute_90) in a cluster of 2, thread 0
//                      waits on an mbarrier that warp 1 completes later, then the block meets
//                      at __syncthreads: correct code (the warp reconverges after the `if` on a
//                      GPU), so no error, though the other lanes of warp 0 run ahead to the
//                      barrier while thread 0 waits here
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void divergent_barrier(int* out) {
  if (threadIdx.x < 16) __syncthreads();  // planted: half of warp 0 skips the barrier
  out[threadIdx.x] = threadIdx.x;
}
__global__ void bad_syncwarp(int* out) {
  __syncwarp(0x0000ffffu);  // planted: lanes 16..31 name a mask without themselves
  out[threadIdx.x] = threadIdx.x;
}
__global__ void clean(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x < 32) __syncwarp();
  out[threadIdx.x] = s[63 - threadIdx.x];
}

#ifdef WITH_CLUSTERS
__device__ __noinline__ bool mbar_wait(unsigned b) {
  for (long i = 0; i < 100000000L; i++) {
    unsigned ok;
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 " selp.u32 %0, 1, 0, p;\n}\n" : "=r"(ok) : "r"(b), "r"(0u) : "memory");
    if (ok) return true;
  }
  return false;
}
__global__ void __cluster_dims__(2, 1, 1) wait_then_sync(int* out) {
  __shared__ alignas(8) unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" ::"r"(b) : "memory");
  __syncthreads();
  if (threadIdx.x == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory");
  if (threadIdx.x == 32) {
    volatile int x = 0;
    for (int i = 0; i < 200000; i++) x += i;
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(b) : "memory");
  }
  if (threadIdx.x == 0) out[blockIdx.x] = mbar_wait(b);
  __syncthreads();
}
#endif

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "clean";
  int* out;
  cudaMalloc(&out, 64 * sizeof(int));
  if (!strcmp(mode, "divergent_barrier")) {
    divergent_barrier<<<1, 64>>>(out);
#ifdef WITH_CLUSTERS
  } else if (!strcmp(mode, "wait_then_sync")) {
    wait_then_sync<<<2, 64>>>(out);
#endif
  } else if (!strcmp(mode, "bad_syncwarp")) {
    bad_syncwarp<<<1, 32>>>(out);
  } else {
    clean<<<1, 64>>>(out);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s: sync %s\n", mode, cudaGetErrorName(e));
  cudaFree(out);
  return 0;
}
