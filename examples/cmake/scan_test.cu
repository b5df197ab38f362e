// A test as a CUDA project writes one: a block-wide inclusive scan in shared memory, checked
// against the same sum on the host; the exit status is the test's verdict for CTest.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void inclusive_scan(const int* in, int* out, int n) {
  extern __shared__ int s[];
  int i = threadIdx.x;
  s[i] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = i >= d ? s[i - d] : 0;
    __syncthreads();
    s[i] += v;
    __syncthreads();
  }
  if (i < n) out[i] = s[i];
}

int main() {
  const int n = 1000, threads = 1024;
  int h[n], got[n];
  for (int i = 0; i < n; i++) h[i] = (i * 7) % 13 - 6;
  int *in, *out;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof got);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  inclusive_scan<<<1, threads, threads * sizeof(int)>>>(in, out, n);
  cudaError_t err = cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  int sum = 0, wrong = 0;
  for (int i = 0; i < n; i++) {
    sum += h[i];
    wrong += got[i] != sum;
  }
  printf("scan of %d: %s, %d wrong\n", n, cudaGetErrorString(err), wrong);
  return err == cudaSuccess && wrong == 0 ? 0 : 1;
}
