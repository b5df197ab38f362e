// Shared helpers for the test programs, one definition each:
//   CHECK(call)        a CUDA runtime call that must succeed (else exit 1 with its error);
//   CU(call)           a driver API call that must succeed (else exit 1 with its error);
//   REQUIRE(cond)      a condition the rest of the program relies on (else exit 1 at once);
//   EXPECT(cond), EXPECT_MSG(cond, fmt, ...), EXPECT_EQ(a, b)
//                      counted checks: a program reports every mismatch and ends with
//                      `expect_failures == 0 ? 0 : 1`.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
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

#define CU(call)                                                                          \
  do {                                                                                    \
    CUresult r_ = (call);                                                                 \
    if (r_ != CUDA_SUCCESS) {                                                             \
      const char* name_ = "?";                                                            \
      cuGetErrorName(r_, &name_);                                                         \
      fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__, #call, name_,   \
              (int)r_);                                                                   \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

#define REQUIRE(cond)                                                                     \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                 \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

// Checks that count instead of exiting, so one run reports every mismatch (the first 20 on
// stderr); the program ends with `expect_failures == 0 ? 0 : 1`. EXPECT_EQ prints both values,
// EXPECT_MSG a printf-style message.
static int expect_failures = 0;
#define EXPECT_MSG(cond, ...)                                                             \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      if (expect_failures < 20) {                                                         \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                   \
        fprintf(stderr, __VA_ARGS__);                                                     \
        fputc('\n', stderr);                                                              \
      }                                                                                   \
      expect_failures++;                                                                  \
    }                                                                                     \
  } while (0)
#define EXPECT_EQ(a, b)                                                                   \
  do {                                                                                    \
    long long a_ = (long long)(a), b_ = (long long)(b);                                   \
    if (a_ != b_) {                                                                       \
      if (expect_failures < 20)                                                           \
        fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, #a, a_,  \
                b_);                                                                      \
      expect_failures++;                                                                  \
    }                                                                                     \
  } while (0)
#define EXPECT(cond) EXPECT_MSG(cond, "expected %s", #cond)
