// Texture objects over the three kinds of resource, each read with point sampling at texel
// centres, so the expected value is the texel itself (CUDA Programming Guide, texture fetching:
// point sampling returns T[floor(x)]; an 8-bit texel read as normalised float is v / 255), and
// the driver's answers to a missing descriptor.
#include "check.h"
#include <cstring>

__global__ void read2d(cudaTextureObject_t t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}
__global__ void fetch1d(cudaTextureObject_t t, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int>(t, i);
}
__global__ void read_rgba(cudaTextureObject_t t, float4 *out, int w) {
  int x = threadIdx.x;
  if (x < w) out[x] = tex1D<float4>(t, x + 0.5f);
}

int main() {
  // Pitched 2-D floats, 37 x 5.
  const int w = 37, h = 5;
  float host[h][w];
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) host[y][x] = y * 100.0f + x * 0.25f;
  float *pitched, *out2;
  size_t pitch;
  CHECK(cudaMallocPitch(&pitched, &pitch, w * sizeof(float), h));
  CHECK(cudaMemcpy2D(pitched, pitch, host, w * sizeof(float), w * sizeof(float), h,
                     cudaMemcpyHostToDevice));
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypePitch2D;
  rd.res.pitch2D.devPtr = pitched;
  rd.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  rd.res.pitch2D.width = w;
  rd.res.pitch2D.height = h;
  rd.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t2;
  CHECK(cudaCreateTextureObject(&t2, &rd, &td, nullptr));
  CHECK(cudaMalloc(&out2, sizeof host));
  read2d<<<dim3(1, h), 64>>>(t2, out2, w, h);
  float got2[h][w];
  CHECK(cudaMemcpy(got2, out2, sizeof got2, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) EXPECT_EQ(got2[y][x], host[y][x]);
  cudaResourceDesc back;
  CHECK(cudaGetTextureObjectResourceDesc(&back, t2));
  EXPECT(back.resType == cudaResourceTypePitch2D && back.res.pitch2D.devPtr == pitched &&
         back.res.pitch2D.pitchInBytes == pitch);
  CHECK(cudaDestroyTextureObject(t2));

  // Linear ints, fetched by index.
  const int n = 300;
  int hl[n], gl[n], *lin, *outl;
  for (int i = 0; i < n; i++) hl[i] = i * i - 7000;
  CHECK(cudaMalloc(&lin, sizeof hl));
  CHECK(cudaMalloc(&outl, sizeof hl));
  CHECK(cudaMemcpy(lin, hl, sizeof hl, cudaMemcpyHostToDevice));
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = lin;
  rd.res.linear.desc = cudaCreateChannelDesc<int>();
  rd.res.linear.sizeInBytes = sizeof hl;
  cudaTextureObject_t tl;
  CHECK(cudaCreateTextureObject(&tl, &rd, &td, nullptr));
  fetch1d<<<3, 128>>>(tl, outl, n);
  CHECK(cudaMemcpy(gl, outl, sizeof gl, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT_EQ(gl[i], hl[i]);
  CHECK(cudaDestroyTextureObject(tl));

  // A 1-D array of uchar4 read as normalised floats.
  const int m = 20;
  uchar4 hc[m];
  for (int i = 0; i < m; i++) hc[i] = make_uchar4(i * 13, 255 - i, i * 7 % 256, 128);
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<uchar4>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &cf, m, 0));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, hc, sizeof hc, sizeof hc, 1, cudaMemcpyHostToDevice));
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t ta;
  CHECK(cudaCreateTextureObject(&ta, &rd, &td, nullptr));
  float4 *outa, ga[m];
  CHECK(cudaMalloc(&outa, sizeof ga));
  read_rgba<<<1, 32>>>(ta, outa, m);
  CHECK(cudaMemcpy(ga, outa, sizeof ga, cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; i++) {
    EXPECT_EQ(ga[i].x, hc[i].x / 255.0f);
    EXPECT_EQ(ga[i].y, hc[i].y / 255.0f);
    EXPECT_EQ(ga[i].z, hc[i].z / 255.0f);
    EXPECT_EQ(ga[i].w, hc[i].w / 255.0f);
  }
  cudaTextureDesc tdback;
  CHECK(cudaGetTextureObjectTextureDesc(&tdback, ta));
  EXPECT(tdback.readMode == cudaReadModeNormalizedFloat && tdback.filterMode == cudaFilterModePoint);
  CHECK(cudaDestroyTextureObject(ta));

  // The driver API: every descriptor pointer is required (CUDA_ERROR_INVALID_VALUE).
  CUDA_RESOURCE_DESC crd;
  memset(&crd, 0, sizeof crd);
  crd.resType = CU_RESOURCE_TYPE_LINEAR;
  crd.res.linear.devPtr = (CUdeviceptr)lin;
  crd.res.linear.format = CU_AD_FORMAT_SIGNED_INT32;
  crd.res.linear.numChannels = 1;
  crd.res.linear.sizeInBytes = sizeof hl;
  CUDA_TEXTURE_DESC ctd;
  memset(&ctd, 0, sizeof ctd);
  CUtexObject ct;
  EXPECT(cuTexObjectCreate(&ct, nullptr, &ctd, nullptr) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuTexObjectCreate(&ct, &crd, nullptr, nullptr) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuTexObjectCreate(nullptr, &crd, &ctd, nullptr) == CUDA_ERROR_INVALID_VALUE);
  CU(cuTexObjectCreate(&ct, &crd, &ctd, nullptr));
  CU(cuTexObjectDestroy(ct));
  CHECK(cudaDeviceSynchronize());
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures == 0 ? 0 : 1;
}
