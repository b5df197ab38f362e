// Several emulated devices (CUDA_SHIM_DEVICES, set by tests/devices.rs). One mode per run:
//   query N     N devices: distinct UUIDs and PCI bus ids (cudaDeviceGetByPCIBusId finds each),
//               the canAccessPeer matrix (1 between distinct devices, 0 for a device and itself,
//               as a real H200 answers for (0, 0)), P2P attributes, the enable/disable codes
//               (cudaErrorPeerAccessAlreadyEnabled, cudaErrorPeerAccessNotEnabled; the driver's
//               CUDA_ERROR_PEER_ACCESS_UNSUPPORTED for the own context, measured on an H200;
//               CUDA_ERROR_INVALID_VALUE for nonzero flags), per-device memory budgets
//               (cudaMemGetInfo, out of memory on one device only), pointer attributes naming
//               the allocating device and its primary context, cuCtxCreate on device 1, primary
//               contexts per device, and threads current on different devices
//   peer        a kernel on device 0 reads device 1's memory through the peer pointer after
//               cudaDeviceEnablePeerAccess, and one on device 1 adds atomically into device 0's
//   nopeer      without peer access, a kernel on device 0 reads device 1's managed memory but
//               faults (cudaErrorIllegalAddress) on device 1's device memory
//   uuids       prints each device's UUID and PCI bus id, one line each (for `visible`)
//   visible N L N devices are visible, whose UUID/PCI lines are L (`;`-separated), in order
//   nodevice    cudaGetDeviceCount fails with cudaErrorNoDevice
// Expected values: the CUDA documentation of each call and variable, or a CPU computation.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>
#include "check.h"

static std::string uuid_of(int d) {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, d));
  char s[64];
  const unsigned char* u = (const unsigned char*)p.uuid.bytes;
  snprintf(s, sizeof s, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
           u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
           u[14], u[15]);
  return s;
}

static std::string pci_of(int d) {
  char bus[32];
  CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, d));
  return bus;
}

static void query(int n) {
  int count = -1;
  CHECK(cudaGetDeviceCount(&count));
  EXPECT_EQ(count, n);
  CUdevice dev;
  EXPECT_EQ(cuDeviceGet(&dev, n), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cudaSetDevice(n), cudaErrorInvalidDevice);

  std::set<std::string> uuids, buses;
  for (int d = 0; d < n; d++) {
    uuids.insert(uuid_of(d));
    std::string bus = pci_of(d);
    buses.insert(bus);
    int found = -1;
    CHECK(cudaDeviceGetByPCIBusId(&found, bus.c_str()));
    EXPECT_EQ(found, d);
    int pci_bus = -1, multi = -1;
    CHECK(cudaDeviceGetAttribute(&pci_bus, cudaDevAttrPciBusId, d));
    EXPECT_EQ(pci_bus, strtol(bus.substr(5, 2).c_str(), nullptr, 16));
    CHECK(cudaDeviceGetAttribute(&multi, cudaDevAttrIsMultiGpuBoard, d));
    EXPECT_EQ(multi, 0);
  }
  EXPECT_EQ(uuids.size(), (size_t)n);
  EXPECT_EQ(buses.size(), (size_t)n);

  for (int d = 0; d < n; d++)
    for (int p = 0; p < n; p++) {
      int can = -1;
      CHECK(cudaDeviceCanAccessPeer(&can, d, p));
      EXPECT_EQ(can, d != p ? 1 : 0);
      int v = -1;
      if (d == p) {
        // The same device twice: CUDA_ERROR_INVALID_DEVICE (cuDeviceGetP2PAttribute's docs).
        EXPECT_EQ(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, d, p),
                  CUDA_ERROR_INVALID_DEVICE);
      } else {
        CU(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, d, p));
        EXPECT_EQ(v, 1);
      }
    }
  int can = -1;
  EXPECT_EQ(cudaDeviceCanAccessPeer(&can, 0, n), cudaErrorInvalidDevice);

  // Enabling and disabling, from device 0 to device 1.
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(0));
  EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaSuccess);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
  CUcontext c0, c1;
  CU(cuDevicePrimaryCtxRetain(&c0, 0));
  CU(cuDevicePrimaryCtxRetain(&c1, 1));
  EXPECT(c0 != c1);
  CU(cuCtxPushCurrent(c0));
  EXPECT_EQ(cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
  EXPECT_EQ(cuCtxEnablePeerAccess(c1, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  EXPECT_EQ(cuCtxDisablePeerAccess(c1), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  CU(cuCtxPopCurrent(nullptr));

  // Each device has its own memory: three quarters of one device's fit on each device, but
  // not twice on the same one. Nothing is touched, so nothing is committed.
  size_t free0, total0, free1, total1;
  CHECK(cudaSetDevice(0));
  CHECK(cudaMemGetInfo(&free0, &total0));
  CHECK(cudaSetDevice(1));
  CHECK(cudaFree(0));
  CHECK(cudaMemGetInfo(&free1, &total1));
  EXPECT_EQ(total0, total1);
  size_t big = total1 / 4 * 3;
  void *b1 = nullptr, *b0 = nullptr, *again = nullptr;
  CHECK(cudaMalloc(&b1, big));
  size_t f1, f0, t;
  CHECK(cudaMemGetInfo(&f1, &t));
  EXPECT_MSG(f1 <= free1 - big, "device 1 free %zu after %zu of %zu", f1, big, free1);
  EXPECT_EQ(cudaMalloc(&again, big), cudaErrorMemoryAllocation);
  cudaGetLastError();
  CHECK(cudaSetDevice(0));
  CHECK(cudaMemGetInfo(&f0, &t));
  EXPECT_EQ(f0, free0);
  CHECK(cudaMalloc(&b0, big));

  // Pointer attributes name the device that allocated and its primary context.
  cudaPointerAttributes a;
  CHECK(cudaPointerGetAttributes(&a, b1));
  EXPECT_EQ(a.device, 1);
  EXPECT_EQ(a.type, cudaMemoryTypeDevice);
  CHECK(cudaPointerGetAttributes(&a, b0));
  EXPECT_EQ(a.device, 0);
  int ordinal = -1;
  CU(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)b1));
  EXPECT_EQ(ordinal, 1);
  CUcontext owner = nullptr;
  CU(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)b1));
  EXPECT(owner == c1);
  CU(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)b0));
  EXPECT(owner == c0);
  CHECK(cudaFree(b0));
  CHECK(cudaSetDevice(1));
  CHECK(cudaFree(b1));
  CHECK(cudaMemGetInfo(&f1, &t));
  EXPECT_EQ(f1, free1);

  // A context created on device 1 is on device 1, with its own memory budget.
  CUcontext mine;
  CU(cuCtxCreate(&mine, nullptr, 0, 1));
  CUdevice cd = -1;
  CU(cuCtxGetDevice(&cd));
  EXPECT_EQ(cd, 1);
  CUdeviceptr p1;
  CU(cuMemAlloc(&p1, 1 << 20));
  CU(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p1));
  EXPECT_EQ(ordinal, 1);
  CU(cuCtxDestroy(mine));

  // Primary contexts are per device: releasing device 1's leaves device 0's active.
  unsigned flags;
  int active0 = -1, active1 = -1;
  CU(cuDevicePrimaryCtxRelease(1));
  CU(cuDevicePrimaryCtxGetState(0, &flags, &active0));
  EXPECT_EQ(active0, 1);
  CU(cuDevicePrimaryCtxSetFlags(1, CU_CTX_SCHED_BLOCKING_SYNC));
  CU(cuDevicePrimaryCtxGetState(1, &flags, &active1));
  EXPECT_EQ(flags, CU_CTX_SCHED_BLOCKING_SYNC);
  CU(cuDevicePrimaryCtxGetState(0, &flags, &active0));
  EXPECT_EQ(flags & CU_CTX_SCHED_BLOCKING_SYNC, 0u);
  CU(cuDevicePrimaryCtxRelease(0));

  // Threads current on different devices each see their own.
  std::vector<std::thread> threads;
  std::vector<int> seen(n, -1);
  for (int d = 0; d < n; d++)
    threads.emplace_back([d, &seen] {
      CHECK(cudaSetDevice(d));
      CHECK(cudaFree(0));
      CUdevice cur = -1;
      CU(cuCtxGetDevice(&cur));
      int rt = -1;
      CHECK(cudaGetDevice(&rt));
      seen[d] = cur == rt ? cur : -2;
    });
  for (auto& t : threads) t.join();
  for (int d = 0; d < n; d++) EXPECT_EQ(seen[d], d);
}

__global__ void read_peer(const int* peer, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = peer[i] * 2 + 1;
}

__global__ void add_into(int* target, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&target[i % 16], i);
}

static void peer() {
  const int n = 4096;
  std::vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = i * 7 - 100;
  int *on1, *on0, *sums;
  CHECK(cudaSetDevice(1));
  CHECK(cudaMalloc(&on1, n * sizeof(int)));
  CHECK(cudaMemcpy(on1, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaSetDevice(0));
  CHECK(cudaMalloc(&on0, n * sizeof(int)));
  CHECK(cudaMalloc(&sums, 16 * sizeof(int)));
  CHECK(cudaMemset(sums, 0, 16 * sizeof(int)));
  CHECK(cudaDeviceEnablePeerAccess(1, 0));
  read_peer<<<n / 256, 256>>>(on1, on0, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), on0, n * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; i++) wrong += out[i] != h[i] * 2 + 1;
  EXPECT_EQ(wrong, 0);

  // Device 1 writes device 0's memory (atomics over the peer link).
  CHECK(cudaSetDevice(1));
  CHECK(cudaDeviceEnablePeerAccess(0, 0));
  add_into<<<n / 256, 256>>>(sums, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int got[16];
  CHECK(cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost));
  for (int k = 0; k < 16; k++) {
    long long want = 0;
    for (int i = k; i < n; i += 16) want += i;
    EXPECT_EQ(got[k], want);
  }

  // A synchronous peer copy between the devices' memory.
  std::vector<int> back(n);
  CHECK(cudaMemcpyPeer(on1, 1, on0, 0, n * sizeof(int)));
  CHECK(cudaMemcpy(back.data(), on1, n * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(back == out);
}

// Without peer access a kernel on device 0 may read managed memory allocated on device 1 (it
// is accessible from every device) but not device 1's memory: a GPU faults with an illegal
// address (the Programming Guide's peer access must be enabled first), sticky in device 0's
// context only.
static void nopeer() {
  const int n = 256;
  int *managed, *on1, *out;
  CHECK(cudaSetDevice(1));
  CHECK(cudaMallocManaged(&managed, n * sizeof(int)));
  CHECK(cudaMalloc(&on1, n * sizeof(int)));
  for (int i = 0; i < n; i++) managed[i] = i;
  CHECK(cudaSetDevice(0));
  CHECK(cudaMallocManaged(&out, n * sizeof(int)));
  read_peer<<<1, n>>>(managed, out, n);
  CHECK(cudaDeviceSynchronize());
  int wrong = 0;
  for (int i = 0; i < n; i++) wrong += out[i] != 2 * i + 1;
  EXPECT_EQ(wrong, 0);
  read_peer<<<1, n>>>(on1, out, n);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  // Device 1 is untouched by device 0's fault.
  CHECK(cudaSetDevice(1));
  CHECK(cudaMemset(on1, 0, n * sizeof(int)));
  CHECK(cudaDeviceSynchronize());
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "query") && argc > 2) {
    query(atoi(argv[2]));
  } else if (!strcmp(mode, "peer")) {
    peer();
  } else if (!strcmp(mode, "nopeer")) {
    nopeer();
  } else if (!strcmp(mode, "uuids")) {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    for (int d = 0; d < count; d++) printf("%s %s\n", uuid_of(d).c_str(), pci_of(d).c_str());
    return 0;
  } else if (!strcmp(mode, "visible") && argc > 3) {
    int n = atoi(argv[2]), count = -1;
    CHECK(cudaGetDeviceCount(&count));
    EXPECT_EQ(count, n);
    std::string want = argv[3], got;
    for (int d = 0; d < count; d++) got += (d ? ";" : "") + uuid_of(d) + " " + pci_of(d);
    EXPECT_MSG(got == want, "devices %s, expected %s", got.c_str(), want.c_str());
    // Work runs on every visible device.
    for (int d = 0; d < count; d++) {
      CHECK(cudaSetDevice(d));
      int* p;
      CHECK(cudaMalloc(&p, 4));
      CHECK(cudaMemset(p, 0, 4));
      CHECK(cudaFree(p));
    }
  } else if (!strcmp(mode, "nodevice")) {
    int n = -1;
    EXPECT_EQ(cudaGetDeviceCount(&n), cudaErrorNoDevice);
  } else {
    fprintf(stderr, "usage: devices query N|peer|nopeer|uuids|visible N LIST|nodevice\n");
    return 2;
  }
  if (expect_failures) return 1;
  printf("PASS %s\n", mode);
  return 0;
}
