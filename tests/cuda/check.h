// Shared helpers for the test programs: abort with a message on any CUDA runtime error.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,           \
              cudaGetErrorName(err_), cudaGetErrorString(err_));                          \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)
