// cuLaunchCooperativeKernelMultiDevice on two devices (run with CUDA_SHIM_DEVICES=2): one
// cooperative grid per device, each in a stream of its own device, both running.
//
// Expected values: the kernels' arithmetic (each grid writes i + tag into its device's buffer,
// synchronises the grid, then sums the buffer: a grid.sync() outside a cooperative launch
// would fail), and cuda.h's documentation of the call:
// - without CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC a kernel waits for the
//   earlier work of every listed stream, with it only for its own stream's;
// - without CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_POST_LAUNCH_SYNC later work of a listed
//   stream waits for the kernels of every device, with it only for its own device's kernel;
// - grids, blocks and shared memory must match between the entries (CUDA_ERROR_INVALID_VALUE
//   here: not measured, one GPU has no second entry);
// and an H200 on one device (scripts/ground-truth/results/coop-multi-h200.txt): the attribute
// COOPERATIVE_MULTI_DEVICE_LAUNCH is 1, two entries on one device are CUDA_ERROR_INVALID_VALUE.
// The stream of device 0 is held by a host function until the program opens a gate, so "waits"
// is seen as a stream that is still busy 100 ms later.
#include <cooperative_groups.h>
#include <atomic>
// The call is deprecated (since CUDA 11.3), not removed: this program uses it on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <unistd.h>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void fill_sync_sum(int* data, int n, long long* out, int tag) {
  cg::grid_group g = cg::this_grid();
  int i = (int)g.thread_rank();
  if (i < n) data[i] = i + tag;
  g.sync();
  if (i == 0) {
    long long s = 0;
    for (int k = 0; k < n; k++) s += data[k];
    out[0] = s;
  }
}

static const int BLOCKS = 4, THREADS = 64, N = BLOCKS * THREADS;

static std::atomic<int> gate{1};
static void CUDA_CB wait_for_gate(void*) {
  while (!gate.load()) usleep(1000);
}

struct Device {
  CUfunction f;
  cudaStream_t s;
  int* data;
  long long* out;
  int tag;
  void* args[4];
  int n = N;
};

static Device dev[2];

static CUDA_LAUNCH_PARAMS params(int d) {
  CUDA_LAUNCH_PARAMS p = {};
  p.function = dev[d].f;
  p.gridDimX = BLOCKS;
  p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = THREADS;
  p.blockDimY = p.blockDimZ = 1;
  p.hStream = (CUstream)dev[d].s;
  p.kernelParams = dev[d].args;
  return p;
}

// The sum each grid writes: sum(i + tag, i < N).
static long long expected(int d) { return (long long)N * (N - 1) / 2 + (long long)N * dev[d].tag; }

static void clear() {
  for (int d = 0; d < 2; d++) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaMemset(dev[d].out, 0, sizeof(long long)));
    CHECK(cudaDeviceSynchronize());
  }
}

static void check_sums(const char* what) {
  for (int d = 0; d < 2; d++) {
    long long got = -1;
    CHECK(cudaSetDevice(d));
    CHECK(cudaMemcpy(&got, dev[d].out, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_MSG(got == expected(d), "%s: device %d summed %lld, expected %lld", what, d, got, expected(d));
  }
}

// Launches on both devices with `flags` while device 0's stream is held; answers whether
// device 1's stream was still busy 100 ms later, then opens the gate and waits for both.
static bool second_stream_waited(unsigned flags) {
  clear();
  gate = 0;
  CU(cuLaunchHostFunc((CUstream)dev[0].s, wait_for_gate, nullptr));
  CUDA_LAUNCH_PARAMS list[2] = {params(0), params(1)};
  CU(cuLaunchCooperativeKernelMultiDevice(list, 2, flags));
  usleep(100000);
  CUresult q = cuStreamQuery((CUstream)dev[1].s);
  EXPECT_MSG(q == CUDA_SUCCESS || q == CUDA_ERROR_NOT_READY, "flags %u: query %d", flags, q);
  gate = 1;
  for (int d = 0; d < 2; d++) CHECK(cudaStreamSynchronize(dev[d].s));
  return q == CUDA_ERROR_NOT_READY;
}

int main() {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  REQUIRE(count == 2);
  for (int d = 0; d < 2; d++) {
    int v = -1;
    CU(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, d));
    EXPECT_EQ(v, 1);
    CHECK(cudaSetDevice(d));
    cudaFunction_t f;
    CHECK(cudaGetFuncBySymbol(&f, (const void*)fill_sync_sum));
    dev[d].f = (CUfunction)f;
    CHECK(cudaStreamCreateWithFlags(&dev[d].s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&dev[d].data, N * sizeof(int)));
    CHECK(cudaMalloc(&dev[d].out, sizeof(long long)));
    dev[d].tag = 1000 * (d + 1);
    dev[d].args[0] = &dev[d].data;
    dev[d].args[1] = &dev[d].n;
    dev[d].args[2] = &dev[d].out;
    dev[d].args[3] = &dev[d].tag;
  }

  // Both grids run, each on its device, with every flag combination.
  for (unsigned flags = 0; flags < 4; flags++) {
    clear();
    CUDA_LAUNCH_PARAMS list[2] = {params(0), params(1)};
    CUresult r = cuLaunchCooperativeKernelMultiDevice(list, 2, flags);
    EXPECT_MSG(r == CUDA_SUCCESS, "flags %u: %d", flags, r);
    for (int d = 0; d < 2; d++) CHECK(cudaStreamSynchronize(dev[d].s));
    char what[32];
    snprintf(what, sizeof what, "flags %u", flags);
    check_sums(what);
  }

  // The synchronisation: device 1's stream waits for device 0's held stream unless both syncs
  // are dropped (before the kernels with flags 0 and 2, after them with flags 1).
  EXPECT_MSG(second_stream_waited(0), "flags 0: device 1 did not wait for device 0's earlier work");
  check_sums("held, flags 0");
  EXPECT_MSG(second_stream_waited(1), "flags 1: device 1's later work did not wait for device 0's kernel");
  check_sums("held, flags 1");
  EXPECT_MSG(second_stream_waited(2), "flags 2: device 1 did not wait for device 0's earlier work");
  check_sums("held, flags 2");
  EXPECT_MSG(!second_stream_waited(3), "flags 3: device 1 waited for device 0");
  check_sums("held, flags 3");

  // Entries that do not match, or two on one device.
  CUDA_LAUNCH_PARAMS list[2] = {params(0), params(1)};
  list[1].gridDimX = BLOCKS / 2;
  EXPECT_EQ(cuLaunchCooperativeKernelMultiDevice(list, 2, 0), CUDA_ERROR_INVALID_VALUE);
  list[1] = params(1);
  list[1].blockDimX = THREADS / 2;
  EXPECT_EQ(cuLaunchCooperativeKernelMultiDevice(list, 2, 0), CUDA_ERROR_INVALID_VALUE);
  list[1] = params(1);
  list[1].sharedMemBytes = 128;
  EXPECT_EQ(cuLaunchCooperativeKernelMultiDevice(list, 2, 0), CUDA_ERROR_INVALID_VALUE);
  cudaStream_t other;
  CHECK(cudaSetDevice(0));
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  list[1] = params(0);
  list[1].hStream = (CUstream)other;
  EXPECT_EQ(cuLaunchCooperativeKernelMultiDevice(list, 2, 0), CUDA_ERROR_INVALID_VALUE);
  // More entries than devices.
  CUDA_LAUNCH_PARAMS three[3] = {params(0), params(1), params(0)};
  EXPECT_EQ(cuLaunchCooperativeKernelMultiDevice(three, 3, 0), CUDA_ERROR_INVALID_VALUE);

  for (int d = 0; d < 2; d++) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaDeviceSynchronize());
  }
  if (expect_failures) return 1;
  printf("PASS cooperative multi-device launch\n");
  return 0;
}
