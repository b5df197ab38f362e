// Tiled matrix multiply C = A * B whose tiles are staged into shared memory by cp.async through
// multi-stage pipelines, in the shapes of NVIDIA's globalToShmemAsyncCopy sample:
// - `multi_stage_chunk`: cuda::pipeline<thread_scope_thread>, 4 stages, a quarter of the
//   threads copying 16 bytes each (cp.async.cg ... 16), consumer_wait + __syncthreads;
// - `multi_stage`: the same with one 4-byte copy per thread and matrix (cp.async.ca ... 4);
// - `shared_state`: cuda::pipeline<thread_scope_block> over a pipeline_shared_state with 4
//   stages, the last warp producing (copies) and 8 rows of threads consuming (multiply):
//   the roles wait on each other through the pipeline's barriers, never __syncthreads;
// - `prims`: __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior, 3 stages;
// - `naive`: plain loads into shared memory, for the time comparison.
// A and B hold small integers, so every product and sum is exact in float: C must equal the
// host's integer matrix product exactly. argv[1] = n (a multiple of 16, default 64); the
// program prints each kernel's time per launch and its ratio to `naive`, so a pipeline whose
// cost grows faster than its work shows up.
#include "check.h"
#include <chrono>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;
constexpr int BS = 16;
constexpr int STAGES = 4;

__global__ void multi_stage_chunk(float* C, const float* A, const float* B, int n) {
  __shared__ alignas(16) float As[STAGES][BS][BS];
  __shared__ alignas(16) float Bs[STAGES][BS][BS];
  const int row = blockIdx.y * BS + threadIdx.y, col = blockIdx.x * BS + threadIdx.x;
  const int t4x = threadIdx.x * 4;
  const auto shape4 = cuda::aligned_size_t<16>(16);
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const int tiles = n / BS;
  float acc = 0;
  for (int t = 0, ts = 0; t < tiles; ++t) {
    for (; ts <= t + STAGES - 1; ++ts) {  // keep STAGES tiles in flight
      pipe.producer_acquire();
      if (ts < tiles && t4x < BS) {
        const int j = ts % STAGES;
        cuda::memcpy_async(&As[j][threadIdx.y][t4x],
                           &A[(blockIdx.y * BS + threadIdx.y) * n + ts * BS + t4x], shape4, pipe);
        cuda::memcpy_async(&Bs[j][threadIdx.y][t4x],
                           &B[(ts * BS + threadIdx.y) * n + blockIdx.x * BS + t4x], shape4, pipe);
      }
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    __syncthreads();
    const int j = t % STAGES;
    for (int k = 0; k < BS; ++k) acc += As[j][threadIdx.y][k] * Bs[j][k][threadIdx.x];
    pipe.consumer_release();
    __syncthreads();  // the stage is refilled next iteration by other threads
  }
  C[row * n + col] = acc;
}

__global__ void multi_stage(float* C, const float* A, const float* B, int n) {
  __shared__ float As[STAGES][BS][BS];
  __shared__ float Bs[STAGES][BS][BS];
  const int row = blockIdx.y * BS + threadIdx.y, col = blockIdx.x * BS + threadIdx.x;
  const auto shape1 = cuda::aligned_size_t<4>(4);
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const int tiles = n / BS;
  float acc = 0;
  for (int t = 0, ts = 0; t < tiles; ++t) {
    for (; ts <= t + STAGES - 1; ++ts) {
      if (ts < tiles) {
        const int j = ts % STAGES;
        pipe.producer_acquire();
        cuda::memcpy_async(&As[j][threadIdx.y][threadIdx.x], &A[row * n + ts * BS + threadIdx.x],
                           shape1, pipe);
        cuda::memcpy_async(&Bs[j][threadIdx.y][threadIdx.x], &B[(ts * BS + threadIdx.y) * n + col],
                           shape1, pipe);
        pipe.producer_commit();
      }
    }
    pipe.consumer_wait();
    __syncthreads();
    const int j = t % STAGES;
    for (int k = 0; k < BS; ++k) acc += As[j][threadIdx.y][k] * Bs[j][k][threadIdx.x];
    pipe.consumer_release();
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// Block of TS x (TS + 4) threads: rows 0..TS-1 consume, the rest (one warp for TS = 8)
// produce. (Tiles of 8: the block stays small enough for any register budget.)
template <int TS>
__global__ void shared_state(float* C, const float* A, const float* B, int n) {
  __shared__ float As[STAGES][TS][TS];
  __shared__ float Bs[STAGES][TS][TS];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto cta = cg::this_thread_block();
  const bool consumer = threadIdx.y < TS;
  auto pipe = cuda::make_pipeline(cta, &state,
                                  consumer ? cuda::pipeline_role::consumer
                                           : cuda::pipeline_role::producer);
  const auto shape1 = cuda::aligned_size_t<4>(4);
  const int tiles = n / TS;
  float acc = 0;
  for (int t = 0, ts = 0; t < tiles; ++t) {
    if (!consumer) {
      for (; ts <= t + STAGES - 1; ++ts) {
        if (ts < tiles) {
          const int j = ts % STAGES;
          pipe.producer_acquire();
          for (int r = threadIdx.y - TS; r < TS; r += blockDim.y - TS) {
            cuda::memcpy_async(&As[j][r][threadIdx.x],
                               &A[(blockIdx.y * TS + r) * n + ts * TS + threadIdx.x], shape1, pipe);
            cuda::memcpy_async(&Bs[j][r][threadIdx.x],
                               &B[(ts * TS + r) * n + blockIdx.x * TS + threadIdx.x], shape1, pipe);
          }
          pipe.producer_commit();
        }
      }
    } else {
      const int j = t % STAGES;
      pipe.consumer_wait();
      for (int k = 0; k < TS; ++k) acc += As[j][threadIdx.y][k] * Bs[j][k][threadIdx.x];
      pipe.consumer_release();
    }
  }
  if (consumer) C[(blockIdx.y * TS + threadIdx.y) * n + blockIdx.x * TS + threadIdx.x] = acc;
}

// The primitives interface (cuda_pipeline.h): 3 stages of 4-byte copies, each thread waits for
// its own copies and __syncthreads publishes them.
__global__ void prims(float* C, const float* A, const float* B, int n) {
  constexpr int S = 3;
  __shared__ float As[S][BS][BS];
  __shared__ float Bs[S][BS][BS];
  const int row = blockIdx.y * BS + threadIdx.y, col = blockIdx.x * BS + threadIdx.x;
  const int tiles = n / BS;
  float acc = 0;
  for (int ts = 0; ts < S - 1; ++ts) {
    if (ts < tiles) {
      __pipeline_memcpy_async(&As[ts][threadIdx.y][threadIdx.x], &A[row * n + ts * BS + threadIdx.x], 4);
      __pipeline_memcpy_async(&Bs[ts][threadIdx.y][threadIdx.x], &B[(ts * BS + threadIdx.y) * n + col], 4);
    }
    __pipeline_commit();
  }
  for (int t = 0; t < tiles; ++t) {
    const int ts = t + S - 1;
    if (ts < tiles) {
      __pipeline_memcpy_async(&As[ts % S][threadIdx.y][threadIdx.x], &A[row * n + ts * BS + threadIdx.x], 4);
      __pipeline_memcpy_async(&Bs[ts % S][threadIdx.y][threadIdx.x], &B[(ts * BS + threadIdx.y) * n + col], 4);
    }
    __pipeline_commit();
    __pipeline_wait_prior(S - 1);  // tile t has landed
    __syncthreads();
    for (int k = 0; k < BS; ++k) acc += As[t % S][threadIdx.y][k] * Bs[t % S][k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

__global__ void naive(float* C, const float* A, const float* B, int n) {
  __shared__ float As[BS][BS];
  __shared__ float Bs[BS][BS];
  const int row = blockIdx.y * BS + threadIdx.y, col = blockIdx.x * BS + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n / BS; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * BS + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * BS + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < BS; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 64;
  if (n <= 0 || n % BS) {
    fprintf(stderr, "n must be a positive multiple of %d\n", BS);
    return 2;
  }
  std::vector<float> a(n * n), b(n * n), want(n * n), got(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = float(i % 7 - 3);
    b[i] = float((i * 5) % 11 - 5);
  }
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      long long s = 0;
      for (int k = 0; k < n; ++k) s += (long long)a[r * n + k] * (long long)b[k * n + c];
      want[r * n + c] = float(s);  // |s| <= 15 n: exact in float
    }
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, n * n * 4));
  CHECK(cudaMalloc(&dB, n * n * 4));
  CHECK(cudaMalloc(&dC, n * n * 4));
  CHECK(cudaMemcpy(dA, a.data(), n * n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, b.data(), n * n * 4, cudaMemcpyHostToDevice));
  struct K {
    const char* name;
    void (*f)(float*, const float*, const float*, int);
    dim3 block, grid;
  } ks[] = {
      {"naive", naive, dim3(BS, BS), dim3(n / BS, n / BS)},
      {"multi_stage_chunk", multi_stage_chunk, dim3(BS, BS), dim3(n / BS, n / BS)},
      {"multi_stage", multi_stage, dim3(BS, BS), dim3(n / BS, n / BS)},
      {"shared_state", shared_state<8>, dim3(8, 12), dim3(n / 8, n / 8)},
      {"prims", prims, dim3(BS, BS), dim3(n / BS, n / BS)},
  };
  double naive_s = 0;
  for (const K& k : ks) {
    if (argc > 2 && strcmp(argv[2], k.name) != 0 && strcmp(k.name, "naive") != 0) continue;
    CHECK(cudaMemset(dC, 0xff, n * n * 4));
    auto t0 = std::chrono::steady_clock::now();
    k.f<<<k.grid, k.block>>>(dC, dA, dB, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (k.f == naive) naive_s = s;
    CHECK(cudaMemcpy(got.data(), dC, n * n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n * n; ++i)
      if (got[i] != want[i]) {
        if (bad++ < 3) EXPECT_MSG(false, "%s: C[%d] = %g, expected %g", k.name, i, got[i], want[i]);
      }
    EXPECT_MSG(bad == 0, "%s: %d of %d elements wrong", k.name, bad, n * n);
    fprintf(stderr, "%-18s n=%d %.3f s (%.2f x naive)\n", k.name, n, s, naive_s > 0 ? s / naive_s : 1.0);
  }
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}
