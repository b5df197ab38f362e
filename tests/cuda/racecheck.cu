// A planted shared-memory race for the sanitizer's racecheck (`cuda-shim run --check racecheck`),
// and race-free shared-memory code it must not report. `racecheck MODE`:
//   race       each of 64 threads writes its word, then reads the word of the thread 32 away
//              (the other warp) with no __syncthreads() between: compute-sanitizer 2025's
//              racecheck on an H100 (driver 580.159, 2026-11-26) reports one race between the
//              write and the read, "[256 hazards]", and "RACECHECK SUMMARY: 1 hazard displayed
//              (1 error, 0 warnings)" (scripts/ground-truth/results/sanitizer-h100.txt);
//   synced     the same with __syncthreads() between: no hazard;
//   reduction  a block-wide tree reduction in shared memory with a barrier per level: none.
// The counts below follow the arithmetic of that measured case (one hazard per byte of each
// access in hazard: 64 threads x 4 bytes = 256) and compute-sanitizer's documented grading:
// hazards between threads of one warp are warnings ("warp level programming" hazards of its
// severity levels), the others errors; the summary counts both.
//   warp_race    one warp: each lane writes its word, then reads its neighbour's (lane + 1)
//                with no __syncwarp() between. Under independent thread scheduling (sm_70 on)
//                that races: a warning, 32 lanes x 4 bytes = [128 hazards], "1 hazard
//                displayed (0 errors, 1 warning)";
//   warp_synced  the same with __syncwarp() between: none;
//   atomic_race  thread i of warp 0 atomically adds to counter i while thread i of warp 1
//                resets it with a plain store, no barrier between: an atomic and a plain write
//                race (32 counters x 4 bytes = [128 hazards], an error); two atomics never do,
//                nor an atomic and a plain read (a compare-and-swap loop's first load);
//   atomics_only 64 threads add to one counter, a barrier, then one thread reads it: none;
//   async_race   each of 64 threads copies its word into shared memory with cp.async
//                (__pipeline_memcpy_async), waits for its own copy, then reads the word of the
//                thread 32 away (the other warp) with no barrier: the copy is a write by its
//                thread, so as `race`, [256 hazards], an error;
//   async_synced the same with __syncthreads() after the wait: none;
//   coop_race    `race` in a cooperative launch (cudaLaunchCooperativeKernel) of 2 blocks:
//                2 x 64 threads x 4 bytes = [512 hazards];
//   coop_synced  a cooperative kernel with a barrier and a grid sync between the accesses:
//                none.
//   matrix_race  warp 1 stores an 8 x 8 tile of 16-bit elements (2 elements per thread),
//                warp 0 loads it with ldmatrix (.x1: lanes 0-7 give the 16-byte rows), no
//                barrier between: each of the two stores (32 threads x 2 bytes) races with
//                the rows, [64 hazards] each, two errors;
//   matrix_synced the same with __syncthreads() between: none.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void exchange(int* out, bool sync) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  if (sync) __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

__global__ void reduce(const int* in, int* out) {
  __shared__ int s[256];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  for (int k = 128; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = s[0];
}

__global__ void warp_exchange(int* out, bool sync) {
  __shared__ int s[32];
  s[threadIdx.x] = threadIdx.x;
  if (sync) __syncwarp();
  out[threadIdx.x] = s[(threadIdx.x + 1) % 32];
}

__global__ void atomic_counter(int* out, bool race) {
  __shared__ int count[32];
  if (threadIdx.x < 32) count[threadIdx.x] = 0;
  __syncthreads();
  if (race) {
    // Warp 0 adds (keeping the old value, so that this is atom, not red); warp 1 resets.
    if (threadIdx.x < 32) out[threadIdx.x] = atomicAdd(&count[threadIdx.x], 1);
    else count[threadIdx.x - 32] = 0;
  } else {
    out[threadIdx.x] = atomicAdd(&count[0], 1);
    __syncthreads();
    if (threadIdx.x == 0) out[64] = count[0];
  }
}

__global__ void async_exchange(const int* in, int* out, bool sync) {
  __shared__ int s[64];
  __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(int));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  if (sync) __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

__global__ void coop_exchange(int* out, bool sync) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x + blockIdx.x;
  if (sync) {
    __syncthreads();
    cg::this_grid().sync();
  }
  out[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

__global__ void matrix_exchange(int* out, bool sync) {
  __shared__ __align__(16) unsigned short tile[64];
  int t = threadIdx.x;
  if (t >= 32) tile[t - 32] = t, tile[t] = t + 32;
  if (sync) __syncthreads();
  if (t < 32) {
    unsigned row = (unsigned)__cvta_generic_to_shared(&tile[(t % 8) * 8]), r;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(row));
    out[t] = r;
  }
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "synced";
  int *in, *out;
  cudaMalloc(&in, 256 * sizeof(int));
  cudaMalloc(&out, 256 * sizeof(int));
  int h[256];
  for (int i = 0; i < 256; i++) h[i] = i;
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  if (!strcmp(mode, "reduction")) {
    reduce<<<1, 256>>>(in, out);
  } else if (!strncmp(mode, "warp_", 5)) {
    warp_exchange<<<1, 32>>>(out, strcmp(mode, "warp_race") != 0);
  } else if (!strcmp(mode, "atomic_race") || !strcmp(mode, "atomics_only")) {
    atomic_counter<<<1, 64>>>(out, strcmp(mode, "atomic_race") == 0);
  } else if (!strncmp(mode, "async_", 6)) {
    async_exchange<<<1, 64>>>(in, out, strcmp(mode, "async_race") != 0);
  } else if (!strncmp(mode, "matrix_", 7)) {
    matrix_exchange<<<1, 64>>>(out, strcmp(mode, "matrix_race") != 0);
  } else if (!strncmp(mode, "coop_", 5)) {
    bool sync = strcmp(mode, "coop_race") != 0;
    void* args[] = {&out, &sync};
    cudaLaunchCooperativeKernel((void*)coop_exchange, dim3(2), dim3(64), args, 0, 0);
  } else {
    exchange<<<1, 64>>>(out, strcmp(mode, "race") != 0);
  }
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("%s: %s, out[0] = %d\n", mode, cudaGetErrorName(cudaGetLastError()), h[0]);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
