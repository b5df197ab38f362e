// Planted reads of uninitialised device memory for the sanitizer's initcheck (`cuda-shim run
// --check initcheck`). compute-sanitizer's initcheck reports each thread's read of global memory
// that no copy, set or kernel wrote since cudaMalloc ("Uninitialized __global__ memory read of
// size 4 bytes", NVIDIA's Compute Sanitizer documentation):
//   uninit_read   100 threads read 100 ints nothing wrote: 100 errors, first thread (0,0,0)
//   partial_init  the first 50 ints copied in, 100 read: 50 errors, first thread (50,0,0)
//   clean         memory written by cudaMemset, cudaMemcpy, a kernel and a stream-ordered
//                 allocation's kernel before it is read, and a __device__ variable (zero by
//                 definition): no error
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__device__ int zero_by_definition[100];

__global__ void sum(const int* in, int n, int* out) {
  int i = threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}
__global__ void fill(int* p, int n) {
  int i = threadIdx.x;
  if (i < n) p[i] = i;
}
__global__ void sum_var(int n, int* out) {
  int i = threadIdx.x;
  if (i < n) atomicAdd(out, zero_by_definition[i]);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "clean";
  const int n = 100;
  int *in, *out, host[n];
  for (int i = 0; i < n; i++) host[i] = i;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, sizeof(int));
  cudaMemset(out, 0, sizeof(int));
  if (!strcmp(mode, "uninit_read")) {
    sum<<<1, 128>>>(in, n, out);
  } else if (!strcmp(mode, "partial_init")) {
    cudaMemcpy(in, host, n / 2 * sizeof(int), cudaMemcpyHostToDevice);
    sum<<<1, 128>>>(in, n, out);
  } else {
    cudaMemset(in, 0, n * sizeof(int));
    sum<<<1, 128>>>(in, n, out);
    cudaMemcpy(in, host, n * sizeof(int), cudaMemcpyHostToDevice);
    sum<<<1, 128>>>(in, n, out);
    int* async;
    cudaMallocAsync(&async, n * sizeof(int), 0);
    fill<<<1, 128>>>(async, n);
    sum<<<1, 128>>>(async, n, out);
    cudaFreeAsync(async, 0);
    sum_var<<<1, 128>>>(n, out);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s: sync %s\n", mode, cudaGetErrorName(e));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
