// CUDA arrays through cudart (cudaMallocArray, cudaMalloc3DArray, cudaMemcpy2DToArray/FromArray,
// cudaMemcpy2DArrayToArray, cudaMemcpy3D, cudaArrayGetInfo, mipmapped arrays) and the driver API
// (cuArrayCreate / cuArray3DCreate with every format and kind, descriptors, the 1D array copies,
// cuMemcpy2D/3D/3DPeer with array sides, memory requirements, mipmap levels, the documented
// errors). Every round trip goes through pitches and offsets and is checked element by element
// against the host copy it should reproduce (expected values: the semantics the CUDA
// documentation gives each call). Prints PASS.
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda.h>
#include <cuda_fp16.h>
#include "check.h"

__global__ void fill(float* p, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) ((float*)((char*)p + y * pitch))[x] = y * 1000.0f + x;
}

static void runtime_arrays() {
  // 2D float array, written through a host pitch wider than the rows, at an offset.
  const int W = 33, H = 17;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr, b = nullptr;
  CHECK(cudaMallocArray(&a, &fd, W, H));
  CHECK(cudaMallocArray(&b, &fd, W, H));
  const int SP = W + 5;  // host pitch in floats
  std::vector<float> src(SP * H), back(W * H, -1.0f);
  for (int i = 0; i < SP * H; i++) src[i] = i * 0.5f;
  CHECK(cudaMemcpy2DToArray(a, 0, 0, src.data(), SP * sizeof(float), W * sizeof(float), H,
                            cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DFromArray(back.data(), W * sizeof(float), a, 0, 0, W * sizeof(float), H,
                              cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) EXPECT(back[y * W + x] == src[y * SP + x]);

  // A sub-rectangle at (3, 2) in elements, read back at the same place.
  std::vector<float> patch(5 * 4);
  for (int i = 0; i < 20; i++) patch[i] = -1.0f - i;
  CHECK(cudaMemcpy2DToArray(a, 3 * sizeof(float), 2, patch.data(), 5 * sizeof(float),
                            5 * sizeof(float), 4, cudaMemcpyHostToDevice));
  std::vector<float> whole(W * H);
  CHECK(cudaMemcpy2DFromArray(whole.data(), W * sizeof(float), a, 0, 0, W * sizeof(float), H,
                              cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      bool in = x >= 3 && x < 8 && y >= 2 && y < 6;
      EXPECT(whole[y * W + x] == (in ? patch[(y - 2) * 5 + (x - 3)] : src[y * SP + x]));
    }

  // Array to array, then array to device and device (written by a kernel) to array.
  CHECK(cudaMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, W * sizeof(float), H));
  std::vector<float> viaB(W * H);
  CHECK(cudaMemcpy2DFromArray(viaB.data(), W * sizeof(float), b, 0, 0, W * sizeof(float), H,
                              cudaMemcpyDeviceToHost));
  EXPECT(viaB == whole);
  float* dp = nullptr;
  size_t pitch = 0;
  CHECK(cudaMallocPitch((void**)&dp, &pitch, W * sizeof(float), H));
  fill<<<dim3(1, H), 64>>>(dp, pitch, W, H);
  CHECK(cudaGetLastError());
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMemcpy2DToArrayAsync(b, 0, 0, dp, pitch, W * sizeof(float), H,
                                 cudaMemcpyDeviceToDevice, s));
  std::vector<float> k(W * H);
  CHECK(cudaMemcpy2DFromArrayAsync(k.data(), W * sizeof(float), b, 0, 0, W * sizeof(float), H,
                                   cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) EXPECT(k[y * W + x] == y * 1000.0f + x);

  // Out of range: one row too many, one byte too wide.
  EXPECT(cudaMemcpy2DToArray(a, 0, 1, src.data(), SP * sizeof(float), W * sizeof(float), H,
                             cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  EXPECT(cudaMemcpy2DToArray(a, 4, 0, src.data(), SP * sizeof(float), W * sizeof(float), 1,
                             cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  cudaGetLastError();

  // cudaArrayGetInfo.
  cudaChannelFormatDesc got;
  cudaExtent ext;
  unsigned flags = 99;
  CHECK(cudaArrayGetInfo(&got, &ext, &flags, a));
  EXPECT(got.x == 32 && got.y == 0 && got.f == cudaChannelFormatKindFloat);
  EXPECT(ext.width == (size_t)W && ext.height == (size_t)H && ext.depth == 0 && flags == 0);

  // 3D array of uchar4 (short4 would do as well) with cudaMemcpy3D in and out at offsets.
  const int X = 9, Y = 7, Z = 5;
  cudaChannelFormatDesc c4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t v = nullptr;
  CHECK(cudaMalloc3DArray(&v, &c4, make_cudaExtent(X, Y, Z)));
  std::vector<uchar4> vol(X * Y * Z);
  for (int i = 0; i < X * Y * Z; i++)
    vol[i] = make_uchar4(i & 255, (i >> 8) & 255, 7, 255 - (i & 255));
  cudaMemcpy3DParms in = {};
  in.srcPtr = make_cudaPitchedPtr(vol.data(), X * sizeof(uchar4), X, Y);
  in.dstArray = v;
  in.extent = make_cudaExtent(X, Y, Z);
  in.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&in));
  // Out: a 4x3x2 box at (2, 3, 1) into a pitched device allocation, then to the host.
  cudaPitchedPtr box;
  CHECK(cudaMalloc3D(&box, make_cudaExtent(4 * sizeof(uchar4), 3, 2)));
  cudaMemcpy3DParms out = {};
  out.srcArray = v;
  out.srcPos = make_cudaPos(2, 3, 1);
  out.dstPtr = box;
  out.extent = make_cudaExtent(4, 3, 2);
  out.kind = cudaMemcpyDeviceToDevice;
  CHECK(cudaMemcpy3D(&out));
  std::vector<uchar4> got3(4 * 3 * 2);
  cudaMemcpy3DParms down = {};
  down.srcPtr = box;
  down.dstPtr = make_cudaPitchedPtr(got3.data(), 4 * sizeof(uchar4), 4, 3);
  down.extent = make_cudaExtent(4 * sizeof(uchar4), 3, 2);
  down.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&down));
  for (int z = 0; z < 2; z++)
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 4; x++) {
        uchar4 g = got3[(z * 3 + y) * 4 + x];
        uchar4 e = vol[((z + 1) * Y + (y + 3)) * X + (x + 2)];
        EXPECT(g.x == e.x && g.y == e.y && g.z == e.z && g.w == e.w);
      }
  // A box reaching past the depth.
  out.srcPos = make_cudaPos(0, 0, 4);
  EXPECT(cudaMemcpy3D(&out) == cudaErrorInvalidValue);
  cudaGetLastError();

  // Layered (1D and 2D), cubemap, surface-load-store, half and 16-bit normalised formats.
  cudaArray_t l1, l2, cube, surf, half, mip0;
  cudaChannelFormatDesc hd = cudaCreateChannelDescHalf();
  CHECK(cudaMalloc3DArray(&l1, &fd, make_cudaExtent(64, 0, 3), cudaArrayLayered));
  CHECK(cudaMalloc3DArray(&l2, &hd, make_cudaExtent(16, 8, 4), cudaArrayLayered));
  CHECK(cudaMalloc3DArray(&cube, &fd, make_cudaExtent(8, 8, 6), cudaArrayCubemap));
  CHECK(cudaMalloc3DArray(&surf, &c4, make_cudaExtent(8, 8, 0), cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&half, &hd, 10, 1));
  EXPECT(cudaMalloc3DArray(&mip0, &fd, make_cudaExtent(8, 4, 6), cudaArrayCubemap) ==
         cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaArrayGetInfo(&got, &ext, &flags, l2));
  EXPECT(got.x == 16 && got.f == cudaChannelFormatKindFloat);
  EXPECT(ext.width == 16 && ext.height == 8 && ext.depth == 4 && flags == cudaArrayLayered);
  // Layer 2 of the half array: written then read back, nothing else touched.
  std::vector<__half> layer(16 * 8), lback(16 * 8 * 4);
  for (int i = 0; i < 16 * 8; i++) layer[i] = __float2half(i * 0.25f);
  cudaMemcpy3DParms lin = {};
  lin.srcPtr = make_cudaPitchedPtr(layer.data(), 16 * sizeof(__half), 16, 8);
  lin.dstArray = l2;
  lin.dstPos = make_cudaPos(0, 0, 2);
  lin.extent = make_cudaExtent(16, 8, 1);
  lin.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&lin));
  cudaMemcpy3DParms lout = {};
  lout.srcArray = l2;
  lout.dstPtr = make_cudaPitchedPtr(lback.data(), 16 * sizeof(__half), 16, 8);
  lout.extent = make_cudaExtent(16, 8, 4);
  lout.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&lout));
  for (int i = 0; i < 16 * 8; i++)
    EXPECT(__half2float(lback[2 * 16 * 8 + i]) == i * 0.25f);

  // Mipmapped: level 1 of a 16x8 float array is 8x4.
  cudaMipmappedArray_t mm;
  CHECK(cudaMallocMipmappedArray(&mm, &fd, make_cudaExtent(16, 8, 0), 3));
  cudaArray_t lvl;
  CHECK(cudaGetMipmappedArrayLevel(&lvl, mm, 1));
  CHECK(cudaArrayGetInfo(&got, &ext, &flags, lvl));
  EXPECT(ext.width == 8 && ext.height == 4 && ext.depth == 0);
  std::vector<float> m(8 * 4), mb(8 * 4);
  for (int i = 0; i < 32; i++) m[i] = 3.0f * i;
  CHECK(cudaMemcpy2DToArray(lvl, 0, 0, m.data(), 8 * sizeof(float), 8 * sizeof(float), 4,
                            cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DFromArray(mb.data(), 8 * sizeof(float), lvl, 0, 0, 8 * sizeof(float), 4,
                              cudaMemcpyDeviceToHost));
  EXPECT(m == mb);
  CHECK(cudaFreeMipmappedArray(mm));

  for (cudaArray_t x : {a, b, v, l1, l2, cube, surf, half}) CHECK(cudaFreeArray(x));
  CHECK(cudaFree(dp));
  CHECK(cudaFree(box.ptr));
  CHECK(cudaStreamDestroy(s));
}

static void driver_arrays() {
  // Every supported format with 1, 2 and 4 channels: created, described, destroyed.
  struct { CUarray_format f; unsigned bytes; int fixed; } formats[] = {
      {CU_AD_FORMAT_UNSIGNED_INT8, 1, 0},   {CU_AD_FORMAT_UNSIGNED_INT16, 2, 0},
      {CU_AD_FORMAT_UNSIGNED_INT32, 4, 0},  {CU_AD_FORMAT_SIGNED_INT8, 1, 0},
      {CU_AD_FORMAT_SIGNED_INT16, 2, 0},    {CU_AD_FORMAT_SIGNED_INT32, 4, 0},
      {CU_AD_FORMAT_HALF, 2, 0},            {CU_AD_FORMAT_FLOAT, 4, 0},
      {CU_AD_FORMAT_UNORM_INT8X1, 1, 1},    {CU_AD_FORMAT_UNORM_INT8X2, 1, 2},
      {CU_AD_FORMAT_UNORM_INT8X4, 1, 4},    {CU_AD_FORMAT_UNORM_INT16X1, 2, 1},
      {CU_AD_FORMAT_UNORM_INT16X2, 2, 2},   {CU_AD_FORMAT_UNORM_INT16X4, 2, 4},
      {CU_AD_FORMAT_SNORM_INT8X1, 1, 1},    {CU_AD_FORMAT_SNORM_INT8X2, 1, 2},
      {CU_AD_FORMAT_SNORM_INT8X4, 1, 4},    {CU_AD_FORMAT_SNORM_INT16X1, 2, 1},
      {CU_AD_FORMAT_SNORM_INT16X2, 2, 2},   {CU_AD_FORMAT_SNORM_INT16X4, 2, 4},
  };
  for (auto& f : formats)
    for (unsigned ch : {1u, 2u, 4u}) {
      CUDA_ARRAY_DESCRIPTOR d = {5, 3, f.f, ch};
      CUarray h = nullptr;
      CUresult r = cuArrayCreate(&h, &d);
      if (f.fixed && (int)ch != f.fixed) {
        EXPECT(r == CUDA_ERROR_INVALID_VALUE);
        continue;
      }
      EXPECT(r == CUDA_SUCCESS);
      CUDA_ARRAY_DESCRIPTOR g = {};
      CU(cuArrayGetDescriptor(&g, h));
      EXPECT(g.Width == 5 && g.Height == 3 && g.Format == f.f && g.NumChannels == ch);
      // The whole array as bytes: 5 * 3 elements of bytes * ch.
      size_t n = 15 * f.bytes * ch;
      std::vector<unsigned char> in(n), back(n);
      for (size_t i = 0; i < n; i++) in[i] = (unsigned char)(i * 31 + ch);
      CU(cuMemcpyHtoA(h, 0, in.data(), n));
      CU(cuMemcpyAtoH(back.data(), h, 0, n));
      EXPECT(in == back);
      EXPECT(cuMemcpyHtoA(h, 1, in.data(), n) == CUDA_ERROR_INVALID_VALUE);
      CU(cuArrayDestroy(h));
    }
  // Packed formats are accepted.
  CUarray packed;
  CUDA_ARRAY_DESCRIPTOR pd = {8, 2, CU_AD_FORMAT_UNORM_INT_101010_2, 4};
  CU(cuArrayCreate(&packed, &pd));
  CU(cuArrayDestroy(packed));
  // Invalid descriptors.
  CUarray bad;
  CUDA_ARRAY_DESCRIPTOR d3 = {5, 3, CU_AD_FORMAT_FLOAT, 3};
  EXPECT(cuArrayCreate(&bad, &d3) == CUDA_ERROR_INVALID_VALUE);
  CUDA_ARRAY_DESCRIPTOR d0 = {0, 3, CU_AD_FORMAT_FLOAT, 1};
  EXPECT(cuArrayCreate(&bad, &d0) == CUDA_ERROR_INVALID_VALUE);
  CUDA_ARRAY_DESCRIPTOR df = {4, 4, (CUarray_format)0x77, 1};
  EXPECT(cuArrayCreate(&bad, &df) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuArrayCreate(nullptr, &d0) == CUDA_ERROR_INVALID_VALUE);

  // 3D kinds and their descriptors.
  struct { size_t w, h, d; unsigned flags; bool ok; } kinds[] = {
      {64, 0, 0, 0, true},
      {64, 32, 0, CUDA_ARRAY3D_TEXTURE_GATHER, true},
      {16, 8, 4, CUDA_ARRAY3D_SURFACE_LDST, true},
      {64, 0, 5, CUDA_ARRAY3D_LAYERED, true},
      {16, 16, 6, CUDA_ARRAY3D_CUBEMAP, true},
      {16, 16, 12, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED, true},
      {16, 16, 12, CUDA_ARRAY3D_CUBEMAP, false},
      {16, 8, 6, CUDA_ARRAY3D_CUBEMAP, false},
      {16, 0, 4, 0, false},
      {16, 8, 4, CUDA_ARRAY3D_TEXTURE_GATHER, false},
  };
  for (auto& k : kinds) {
    CUDA_ARRAY3D_DESCRIPTOR d = {k.w, k.h, k.d, CU_AD_FORMAT_SIGNED_INT32, 2, k.flags};
    CUarray h = nullptr;
    CUresult r = cuArray3DCreate(&h, &d);
    EXPECT((r == CUDA_SUCCESS) == k.ok);
    if (r != CUDA_SUCCESS) {
      EXPECT(r == CUDA_ERROR_INVALID_VALUE);
      continue;
    }
    CUDA_ARRAY3D_DESCRIPTOR g = {};
    CU(cuArray3DGetDescriptor(&g, h));
    EXPECT(g.Width == k.w && g.Height == k.h && g.Depth == k.d && g.Flags == k.flags &&
           g.Format == CU_AD_FORMAT_SIGNED_INT32 && g.NumChannels == 2);
    CU(cuArrayDestroy(h));
  }
  CUDA_ARRAY3D_DESCRIPTOR nv12 = {16, 16, 0, CU_AD_FORMAT_NV12, 1, 0};
  EXPECT(cuArray3DCreate(&bad, &nv12) == CUDA_ERROR_NOT_SUPPORTED);

  // 1D copies between host, device and arrays, at offsets; asynchronous forms on a stream.
  const size_t N = 1000;
  CUDA_ARRAY_DESCRIPTOR ld = {N, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1};
  CUarray x, y;
  CU(cuArrayCreate(&x, &ld));
  CU(cuArrayCreate(&y, &ld));
  std::vector<uint32_t> h(N), r(N, 0);
  for (size_t i = 0; i < N; i++) h[i] = (uint32_t)(i * 2654435761u);
  CU(cuMemcpyHtoA(x, 0, h.data(), N * 4));
  CU(cuMemcpyAtoA(y, 40, x, 0, 100 * 4));  // y[10..110) = x[0..100)
  CUdeviceptr dev;
  CU(cuMemAlloc(&dev, N * 4));
  CU(cuMemsetD32(dev, 0xdeadbeef, N));
  CU(cuMemcpyAtoD(dev + 8, y, 40, 100 * 4));  // dev[2..102) = y[10..110)
  CU(cuMemcpyDtoA(x, 4 * 500, dev, 200 * 4));  // x[500..700) = dev[0..200)
  CUstream st;
  // A blocking stream: it waits for the legacy-stream copies above (device-to-device
  // copies return before they complete).
  CU(cuStreamCreate(&st, CU_STREAM_DEFAULT));
  std::vector<uint32_t> xb(N), db(N);
  CU(cuMemcpyAtoHAsync(xb.data(), x, 0, N * 4, st));
  CU(cuStreamSynchronize(st));
  CU(cuMemcpyDtoH(db.data(), dev, N * 4));
  for (size_t i = 0; i < N; i++) {
    uint32_t want_d = (i >= 2 && i < 102) ? h[i - 2] : 0xdeadbeefu;
    EXPECT(db[i] == want_d);
    uint32_t want_x = (i >= 500 && i < 700) ? db[i - 500] : h[i];
    EXPECT(xb[i] == want_x);
  }
  CU(cuMemcpyHtoAAsync(y, 0, h.data(), N * 4, st));
  CU(cuStreamSynchronize(st));
  CU(cuMemcpyAtoH(r.data(), y, 0, N * 4));
  EXPECT(r == h);
  EXPECT(cuMemcpyAtoH(r.data(), y, 4, N * 4) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemcpyAtoA(x, 0, y, N * 4, 4) == CUDA_ERROR_INVALID_VALUE);

  // cuMemcpy2D with an array on both sides, and its element-alignment rule.
  CUDA_ARRAY_DESCRIPTOR sq = {12, 6, CU_AD_FORMAT_UNSIGNED_INT16, 2};  // 4-byte elements
  CUarray p, q;
  CU(cuArrayCreate(&p, &sq));
  CU(cuArrayCreate(&q, &sq));
  std::vector<uint32_t> img(12 * 6), img2(12 * 6, 0);
  for (int i = 0; i < 72; i++) img[i] = 0x10000u * i + 7;
  CUDA_MEMCPY2D c = {};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = img.data();
  c.srcPitch = 48;
  c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  c.dstArray = p;
  c.WidthInBytes = 48;
  c.Height = 6;
  CU(cuMemcpy2D(&c));
  CUDA_MEMCPY2D aa = {};
  aa.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  aa.srcArray = p;
  aa.srcXInBytes = 8;
  aa.srcY = 1;
  aa.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  aa.dstArray = q;
  aa.WidthInBytes = 16;
  aa.Height = 3;
  CU(cuMemcpy2D(&aa));  // q[0..3][0..4) = p[1..4][2..6)
  CUDA_MEMCPY2D o = {};
  o.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  o.srcArray = q;
  o.dstMemoryType = CU_MEMORYTYPE_HOST;
  o.dstHost = img2.data();
  o.dstPitch = 48;
  o.WidthInBytes = 48;
  o.Height = 6;
  CU(cuMemcpy2D(&o));
  for (int yy = 0; yy < 3; yy++)
    for (int xx = 0; xx < 4; xx++) EXPECT(img2[yy * 12 + xx] == img[(yy + 1) * 12 + xx + 2]);
  aa.srcXInBytes = 6;  // not a multiple of the 4-byte element
  EXPECT(cuMemcpy2D(&aa) == CUDA_ERROR_INVALID_VALUE);
  aa.srcXInBytes = 8;
  aa.Height = 6;  // rows 1..7 of a 6-row array
  EXPECT(cuMemcpy2D(&aa) == CUDA_ERROR_INVALID_VALUE);

  // cuMemcpy3DPeer from a 3D array to the host.
  CUDA_ARRAY3D_DESCRIPTOR vd = {4, 3, 2, CU_AD_FORMAT_FLOAT, 1, 0};
  CUarray vol;
  CU(cuArray3DCreate(&vol, &vd));
  std::vector<float> vin(24), vout(24, 0);
  for (int i = 0; i < 24; i++) vin[i] = i + 0.5f;
  CU(cuMemcpyHtoA(vol, 0, vin.data(), 96));
  CUcontext ctx;
  CU(cuCtxGetCurrent(&ctx));
  CUDA_MEMCPY3D_PEER pp = {};
  pp.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  pp.srcArray = vol;
  pp.srcContext = ctx;
  pp.dstMemoryType = CU_MEMORYTYPE_HOST;
  pp.dstHost = vout.data();
  pp.dstPitch = 16;
  pp.dstHeight = 3;
  pp.dstContext = ctx;
  pp.WidthInBytes = 16;
  pp.Height = 3;
  pp.Depth = 2;
  CU(cuMemcpy3DPeer(&pp));
  EXPECT(vin == vout);

  // Memory requirements only for deferred-mapping arrays.
  CUDA_ARRAY_MEMORY_REQUIREMENTS req = {};
  EXPECT(cuArrayGetMemoryRequirements(&req, vol, 0) == CUDA_ERROR_INVALID_VALUE);
  CUDA_ARRAY3D_DESCRIPTOR dd = {100, 100, 0, CU_AD_FORMAT_FLOAT, 4, CUDA_ARRAY3D_DEFERRED_MAPPING};
  CUarray def;
  CU(cuArray3DCreate(&def, &dd));
  CU(cuArrayGetMemoryRequirements(&req, def, 0));
  EXPECT(req.alignment > 0 && req.size >= 100 * 100 * 16 && req.size % req.alignment == 0);
  CU(cuArrayDestroy(def));

  // Mipmapped arrays: the level count is clamped to 1 + floor(log2(16)) = 5.
  CUDA_ARRAY3D_DESCRIPTOR md = {16, 8, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0};
  CUmipmappedArray mm;
  CU(cuMipmappedArrayCreate(&mm, &md, 10));
  CUarray lv;
  CU(cuMipmappedArrayGetLevel(&lv, mm, 4));
  CUDA_ARRAY3D_DESCRIPTOR lvd = {};
  CU(cuArray3DGetDescriptor(&lvd, lv));
  EXPECT(lvd.Width == 1 && lvd.Height == 1 && lvd.NumChannels == 4);
  EXPECT(cuMipmappedArrayGetLevel(&lv, mm, 5) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuArrayDestroy(lv) != CUDA_SUCCESS);
  CU(cuMipmappedArrayDestroy(mm));

  for (CUarray z : {x, y, p, q, vol}) CU(cuArrayDestroy(z));
  // A destroyed array is no longer a handle.
  CUDA_ARRAY_DESCRIPTOR gone;
  EXPECT(cuArrayGetDescriptor(&gone, x) == CUDA_ERROR_INVALID_HANDLE);
  CU(cuMemFree(dev));
  CU(cuStreamDestroy(st));
}

int main() {
  CHECK(cudaFree(0));  // the primary context, current for the driver calls too
  runtime_arrays();
  driver_arrays();
  if (expect_failures) {
    printf("FAIL %d\n", expect_failures);
    return 1;
  }
  printf("PASS arrays\n");
  return 0;
}
