// A child forked after the driver is initialised cannot use it: as measured on an H100 (driver
// 580.159, cudart 13.0), the child's cuMemAlloc and cuInit return CUDA_ERROR_NOT_INITIALIZED
// (3) and cudaMalloc returns cudaErrorInitializationError (3); every call returns at once (a
// copy that waited for the parent's work queues would hang: the parent's threads do not exist
// in the child). The parent goes on working.
#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

int main() {
  int* d;
  CHECK(cudaMalloc(&d, 4096));
  int h[16] = {1, 2, 3};
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(20);  // a hang fails the test instead of stalling it
    CUdeviceptr p = 0;
    CUresult a = cuMemAlloc(&p, 16);
    CUresult b = cuInit(0);
    CUresult c = cuMemcpyHtoD((CUdeviceptr)d, h, sizeof h);
    CUresult s = cuCtxSynchronize();
    cudaError_t r = cudaMalloc((void**)&p, 16);
    cudaError_t m = cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    int ok = a == CUDA_ERROR_NOT_INITIALIZED && b == CUDA_ERROR_NOT_INITIALIZED &&
             c == CUDA_ERROR_NOT_INITIALIZED && s == CUDA_ERROR_NOT_INITIALIZED &&
             r == cudaErrorInitializationError && m == cudaErrorInitializationError;
    if (!ok)
      fprintf(stderr, "child: cuMemAlloc %d cuInit %d cuMemcpyHtoD %d cuCtxSynchronize %d "
              "cudaMalloc %d cudaMemcpy %d\n", a, b, c, s, r, m);
    fflush(stderr);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
  int back[16];
  CHECK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
  EXPECT_EQ(back[2], 3);
  CHECK(cudaFree(d));
  if (expect_failures) return 1;
  printf("PASS fork_child\n");
  return 0;
}
