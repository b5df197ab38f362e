// Ground-truth probe: texture sampling as the hardware does it (issue: textures). Prints each
// fetch as a hex float so tests can quote the values: 1-D linear filtering (the fixed-point
// weights), 2-D normalized-coordinate fetches in each address mode, point and linear, 8-bit
// read-as-normalized-float, and tex2Dgather.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fetch1(cudaTextureObject_t t, const float* xs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, xs[i]);
}
__global__ void fetch2(cudaTextureObject_t t, const float2* xs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, xs[i].x, xs[i].y);
}
__global__ void gather2(cudaTextureObject_t t, const float2* xs, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2Dgather<float4>(t, xs[i].x, xs[i].y, 0);
}

static cudaTextureObject_t make(cudaArray_t arr, cudaTextureAddressMode am, cudaTextureFilterMode fm,
                                cudaTextureReadMode rm, int norm) {
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = am;
  td.filterMode = fm;
  td.readMode = rm;
  td.normalizedCoords = norm;
  td.borderColor[0] = 0.25f;
  cudaTextureObject_t t = 0;
  cudaError_t e = cudaCreateTextureObject(&t, &rd, &td, nullptr);
  if (e) printf("create: %s\n", cudaGetErrorName(e));
  return t;
}

int main() {
  // 1-D float [0, 1, 10, 100], unnormalized, linear, clamp.
  float v1[4] = {0.f, 1.f, 10.f, 100.f};
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t a1;
  cudaMallocArray(&a1, &cf, 4, 0);
  cudaMemcpy2DToArray(a1, 0, 0, v1, sizeof v1, sizeof v1, 1, cudaMemcpyHostToDevice);
  const int N1 = 64;
  float xs[N1];
  for (int i = 0; i < N1; i++) xs[i] = -0.75f + i * (5.5f / (N1 - 1));
  xs[0] = 1.5f + 1.0f / 512;  // below one weight step
  xs[1] = 1.5f + 1.0f / 256;  // one step
  xs[2] = 1.5f + 3.0f / 512;  // a step and a half
  xs[3] = 1.5f + 0.999f;
  float *dx, *dout;
  cudaMalloc(&dx, sizeof xs);
  cudaMalloc(&dout, 4096 * sizeof(float));
  cudaMemcpy(dx, xs, sizeof xs, cudaMemcpyHostToDevice);
  float res[4096];
  const char* amn[] = {"wrap", "clamp", "mirror", "border"};
  for (int fm = 0; fm < 2; fm++) {
    cudaTextureObject_t t = make(a1, cudaAddressModeClamp, (cudaTextureFilterMode)fm, cudaReadModeElementType, 0);
    fetch1<<<1, N1>>>(t, dx, dout, N1);
    cudaMemcpy(res, dout, N1 * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < N1; i++) printf("tex1D %s clamp unnorm [0,1,10,100] x=%a -> %a\n", fm ? "linear" : "point", xs[i], res[i]);
    cudaDestroyTextureObject(t);
  }
  // 2-D 4x4 unsigned char, values 16*y + 3*x + 7, read as normalized float.
  unsigned char v2[16];
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++) v2[y * 4 + x] = (unsigned char)(16 * 3 * y + 5 * x + 7);
  cudaChannelFormatDesc cu8 = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t a2;
  cudaMallocArray(&a2, &cu8, 4, 4);
  cudaMemcpy2DToArray(a2, 0, 0, v2, 4, 4, 4, cudaMemcpyHostToDevice);
  const int N2 = 40;
  float2 ps[N2];
  for (int i = 0; i < N2; i++) {
    ps[i].x = -1.3f + i * 0.0911f;
    ps[i].y = 1.7f - i * 0.0737f;
  }
  float2* dp;
  cudaMalloc(&dp, sizeof ps);
  cudaMemcpy(dp, ps, sizeof ps, cudaMemcpyHostToDevice);
  for (int am = 0; am < 4; am++)
    for (int fm = 0; fm < 2; fm++) {
      cudaTextureObject_t t = make(a2, (cudaTextureAddressMode)am, (cudaTextureFilterMode)fm, cudaReadModeNormalizedFloat, 1);
      fetch2<<<1, N2>>>(t, dp, dout, N2);
      cudaMemcpy(res, dout, N2 * sizeof(float), cudaMemcpyDeviceToHost);
      for (int i = 0; i < N2; i++)
        printf("tex2D u8-normalized %s %s norm (%a,%a) -> %a\n", amn[am], fm ? "linear" : "point", ps[i].x, ps[i].y, res[i]);
      cudaDestroyTextureObject(t);
    }
  {
    cudaTextureObject_t t = make(a2, cudaAddressModeClamp, cudaFilterModePoint, cudaReadModeNormalizedFloat, 1);
    float4* dg;
    cudaMalloc(&dg, N2 * sizeof(float4));
    gather2<<<1, N2>>>(t, dp, dg, N2);
    float4 g[N2];
    cudaMemcpy(g, dg, sizeof g, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N2; i++)
      printf("tex2Dgather u8-normalized clamp norm (%a,%a) -> %a %a %a %a\n", ps[i].x, ps[i].y, g[i].x, g[i].y, g[i].z, g[i].w);
  }
  printf("last error: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
