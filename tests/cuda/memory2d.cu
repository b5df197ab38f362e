// Pitched allocations, 2D/3D copies and memsets, peer copies, managed memory with advice and
// prefetching, host registration and stream-ordered allocation, checked against a CPU copy of
// the same data (expected values from the semantics the CUDA documentation gives each call).
#include <cstdint>
#include <vector>
#include "check.h"

__global__ void twice(int* p, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= 2;
}

int main() {
  const int W = 37, H = 11, D = 3;  // elements of 4 bytes
  std::vector<int> host(W * H), back(W * H, 0);
  for (int i = 0; i < W * H; i++) host[i] = i * 7 - 100;

  // 2D: pitched allocation, copy in, memset a sub-rectangle, copy out asynchronously.
  int* dp = nullptr;
  size_t pitch = 0;
  CHECK(cudaMallocPitch((void**)&dp, &pitch, W * sizeof(int), H));
  EXPECT(pitch >= W * sizeof(int) && pitch % 256 == 0);
  CHECK(cudaMemcpy2D(dp, pitch, host.data(), W * sizeof(int), W * sizeof(int), H,
                     cudaMemcpyHostToDevice));
  CHECK(cudaMemset2D((char*)dp + 4 * sizeof(int) + 2 * pitch, pitch, 0xff, 3 * sizeof(int), 5));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemcpy2DAsync(back.data(), W * sizeof(int), dp, pitch, W * sizeof(int), H,
                          cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      bool set = y >= 2 && y < 7 && x >= 4 && x < 7;
      EXPECT(back[y * W + x] == (set ? -1 : host[y * W + x]));
    }

  // 3D: host volume -> pitched device volume -> host, through cudaMemcpy3D.
  std::vector<int> vol(W * H * D), vol_back(W * H * D, 0);
  for (int i = 0; i < W * H * D; i++) vol[i] = i ^ 0x5a5a;
  cudaExtent ext = make_cudaExtent(W * sizeof(int), H, D);
  cudaPitchedPtr dvol;
  CHECK(cudaMalloc3D(&dvol, ext));
  cudaMemcpy3DParms in = {};
  in.srcPtr = make_cudaPitchedPtr(vol.data(), W * sizeof(int), W, H);
  in.dstPtr = dvol;
  in.extent = ext;
  in.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&in));
  cudaMemcpy3DParms out = {};
  out.srcPtr = dvol;
  out.dstPtr = make_cudaPitchedPtr(vol_back.data(), W * sizeof(int), W, H);
  out.extent = ext;
  out.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3DAsync(&out, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT(vol_back == vol);

  // Peer copy on the one device.
  int *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, 64 * sizeof(int)));
  CHECK(cudaMalloc(&b, 64 * sizeof(int)));
  CHECK(cudaMemcpy(a, host.data(), 64 * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyPeer(b, 0, a, 0, 64 * sizeof(int)));
  CHECK(cudaMemcpy(back.data(), b, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++) EXPECT(back[i] == host[i]);

  // Managed memory: advice and prefetching are accepted; host and device see the same data.
  int* m = nullptr;
  CHECK(cudaMallocManaged(&m, 256 * sizeof(int)));
  for (int i = 0; i < 256; i++) m[i] = i;
  cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0};
  CHECK(cudaMemAdvise(m, 256 * sizeof(int), cudaMemAdviseSetReadMostly, dev0));
  CHECK(cudaMemPrefetchAsync(m, 256 * sizeof(int), dev0, 0, s));
  twice<<<2, 128, 0, s>>>(m, 256);
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < 256; i++) EXPECT(m[i] == 2 * i);
  cudaPointerAttributes attr;
  CHECK(cudaPointerGetAttributes(&attr, m));
  EXPECT(attr.type == cudaMemoryTypeManaged);

  // Registered host memory: flags round-trip, the device pointer is the host address.
  std::vector<int> reg(1024, 3);
  CHECK(cudaHostRegister(reg.data(), reg.size() * sizeof(int), cudaHostRegisterMapped));
  unsigned flags = 0;
  CHECK(cudaHostGetFlags(&flags, reg.data()));
  EXPECT(flags & cudaHostRegisterMapped);
  CHECK(cudaPointerGetAttributes(&attr, reg.data()));
  EXPECT(attr.type == cudaMemoryTypeHost);
  CHECK(cudaHostUnregister(reg.data()));

  // Stream-ordered allocation from the default pool, with its accounting.
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  uint64_t threshold = 1 << 20, used = 0;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  int* q = nullptr;
  CHECK(cudaMallocAsync(&q, 1000 * sizeof(int), s));
  CHECK(cudaMemsetAsync(q, 0, 1000 * sizeof(int), s));
  twice<<<4, 256, 0, s>>>(q, 1000);
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  EXPECT(used >= 4000);
  CHECK(cudaFreeAsync(q, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  EXPECT(used == 0);
  CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  EXPECT(threshold == 1 << 20);

  // Out of memory when the device memory is exhausted.
  void* huge = nullptr;
  EXPECT(cudaMalloc(&huge, (size_t)1 << 50) == cudaErrorMemoryAllocation);
  cudaGetLastError();

  CHECK(cudaFree(dp));
  CHECK(cudaFree(dvol.ptr));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(m));
  CHECK(cudaStreamDestroy(s));
  if (expect_failures) {
    printf("FAIL memory2d: %d expect_failures\n", expect_failures);
    return 1;
  }
  printf("PASS memory2d\n");
  return 0;
}
