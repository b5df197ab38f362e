// A 1D Jacobi stencil split over N devices (argv[1], default 2), as a multi-GPU program splits
// it: each device holds its chunk plus one halo cell on each side, and before every step the
// halos are pulled from the neighbours' boundary cells with cudaMemcpyPeerAsync after
// cudaDeviceEnablePeerAccess. Steps are ordered across devices by events (a device's copies
// wait for its neighbours' previous step), as real multi-GPU code orders them. At the end each
// device writes its chunk into one managed array. Expected: the same stencil computed on the
// CPU in this program, bit for bit (the kernel rounds each operation as the CPU does:
// __fmul_rn/__fadd_rn, no contraction).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "check.h"

constexpr int CHUNK = 1000;
constexpr int STEPS = 50;
constexpr float LEFT = 1.0f, RIGHT = -0.5f;  // fixed boundary values outside the array

// cur/next hold CHUNK + 2 cells: [0] and [CHUNK + 1] are the halos.
__global__ void step(const float* cur, float* next) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  if (i <= CHUNK)
    next[i] = __fadd_rn(__fadd_rn(__fmul_rn(0.25f, cur[i - 1]), __fmul_rn(0.5f, cur[i])),
                        __fmul_rn(0.25f, cur[i + 1]));
}

__global__ void gather(const float* cur, float* all, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < CHUNK) all[offset + i] = cur[i + 1];
}

static float initial(int g) { return (float)((g * 37) % 101) / 50.0f - 1.0f; }

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2;
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  REQUIRE(count >= n && n >= 1);
  const int total = n * CHUNK;

  // Peer access between neighbours, which the copies below rely on.
  for (int d = 0; d < n; d++) {
    CHECK(cudaSetDevice(d));
    for (int p : {d - 1, d + 1}) {
      if (p < 0 || p >= n) continue;
      int can = -1;
      CHECK(cudaDeviceCanAccessPeer(&can, d, p));
      EXPECT_EQ(can, 1);
      CHECK(cudaDeviceEnablePeerAccess(p, 0));
    }
  }

  std::vector<float*> buf[2];
  std::vector<cudaStream_t> stream(n);
  std::vector<cudaEvent_t> done(n);
  std::vector<float> host(CHUNK + 2);
  for (int d = 0; d < n; d++) {
    CHECK(cudaSetDevice(d));
    float *a, *b;
    CHECK(cudaMalloc(&a, (CHUNK + 2) * sizeof(float)));
    CHECK(cudaMalloc(&b, (CHUNK + 2) * sizeof(float)));
    buf[0].push_back(a);
    buf[1].push_back(b);
    CHECK(cudaStreamCreate(&stream[d]));
    CHECK(cudaEventCreateWithFlags(&done[d], cudaEventDisableTiming));
    // Outer halos hold the fixed boundary values in both buffers; inner ones are copied.
    host[0] = d == 0 ? LEFT : 0.0f;
    host[CHUNK + 1] = d == n - 1 ? RIGHT : 0.0f;
    for (int i = 0; i < CHUNK; i++) host[i + 1] = initial(d * CHUNK + i);
    CHECK(cudaMemcpy(a, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }

  for (int t = 0; t < STEPS; t++) {
    int c = t % 2;
    for (int d = 0; d < n; d++) {
      CHECK(cudaSetDevice(d));
      if (t > 0) {
        // The neighbours' previous step wrote the cells this one copies.
        if (d > 0) CHECK(cudaStreamWaitEvent(stream[d], done[d - 1], 0));
        if (d < n - 1) CHECK(cudaStreamWaitEvent(stream[d], done[d + 1], 0));
      }
      if (d > 0)
        CHECK(cudaMemcpyPeerAsync(buf[c][d], d, buf[c][d - 1] + CHUNK, d - 1, sizeof(float),
                                  stream[d]));
      if (d < n - 1)
        CHECK(cudaMemcpyPeerAsync(buf[c][d] + CHUNK + 1, d, buf[c][d + 1] + 1, d + 1,
                                  sizeof(float), stream[d]));
      step<<<(CHUNK + 127) / 128, 128, 0, stream[d]>>>(buf[c][d], buf[1 - c][d]);
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(done[d], stream[d]));
    }
  }

  float* all = nullptr;
  CHECK(cudaMallocManaged(&all, total * sizeof(float)));
  for (int d = 0; d < n; d++) {
    CHECK(cudaSetDevice(d));
    gather<<<(CHUNK + 127) / 128, 128, 0, stream[d]>>>(buf[STEPS % 2][d], all, d * CHUNK);
    CHECK(cudaGetLastError());
  }
  for (int d = 0; d < n; d++) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaDeviceSynchronize());
  }

  // The CPU reference over the whole array.
  std::vector<float> cur(total + 2), next(total + 2);
  cur[0] = next[0] = LEFT;
  cur[total + 1] = next[total + 1] = RIGHT;
  for (int g = 0; g < total; g++) cur[g + 1] = initial(g);
  for (int t = 0; t < STEPS; t++) {
    for (int i = 1; i <= total; i++) {
      volatile float l = 0.25f * cur[i - 1], m = 0.5f * cur[i], r = 0.25f * cur[i + 1];
      volatile float lm = l + m;
      next[i] = lm + r;
    }
    std::swap(cur, next);
  }
  int wrong = 0;
  for (int g = 0; g < total; g++)
    if (all[g] != cur[g + 1] && wrong++ < 5)
      fprintf(stderr, "cell %d: %.9g, expected %.9g\n", g, all[g], cur[g + 1]);
  EXPECT_EQ(wrong, 0);

  for (int d = 0; d < n; d++) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaFree(buf[0][d]));
    CHECK(cudaFree(buf[1][d]));
  }
  CHECK(cudaFree(all));
  if (expect_failures) return 1;
  printf("PASS halo exchange over %d devices\n", n);
  return 0;
}
