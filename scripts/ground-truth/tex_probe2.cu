// Ground-truth probe, part 2 of the texture unit (issue: textures): trilinear 3-D filtering,
// mipmap level selection (tex2DLod, tex2DGrad, bias and level clamps, point and linear mipmap
// filtering), layered and cubemap reads, sRGB, the 8-bit linear weights at fine steps, and
// surface writes read back and surface reads at the border (.clamp, .zero). Each fetch prints as
// hex floats so tests can quote it.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x)                                                               \
  do {                                                                      \
    cudaError_t e_ = (x);                                                   \
    if (e_) printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); \
  } while (0)

struct P4 {
  float x, y, z, w;
};

__global__ void k3d(cudaTextureObject_t t, const P4* p, float* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, p[i].x, p[i].y, p[i].z);
}
__global__ void klod(cudaTextureObject_t t, const P4* p, float* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex2DLod<float>(t, p[i].x, p[i].y, p[i].z);
}
__global__ void kgrad(cudaTextureObject_t t, const P4* p, float* out, int n) {
  int i = threadIdx.x;
  // Isotropic gradients of length p.z (texels per pixel, normalized by the width), and an
  // anisotropic pair: (p.z, 0) and (0, p.w).
  if (i < n) {
    float2 dx = make_float2(p[i].z, 0), dy = make_float2(0, p[i].w);
    out[i] = tex2DGrad<float>(t, p[i].x, p[i].y, dx, dy);
  }
}
__global__ void klayer(cudaTextureObject_t t, const P4* p, float* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex2DLayered<float>(t, p[i].x, p[i].y, (int)p[i].z);
}
__global__ void kcube(cudaTextureObject_t t, const P4* p, float* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, p[i].x, p[i].y, p[i].z);
}
__global__ void k1d(cudaTextureObject_t t, const P4* p, float4* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex1D<float4>(t, p[i].x);
}
__global__ void ksurfw(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) surf2Dwrite<float>(x * 0.5f + y * 100.0f, s, x * 4, y);
}
__global__ void ksurfr(cudaSurfaceObject_t s, const P4* p, float* out, int n, int mode) {
  int i = threadIdx.x;
  if (i < n) {
    float v = -1.0f;
    if (mode == 0)
      surf2Dread<float>(&v, s, (int)p[i].x, (int)p[i].y, cudaBoundaryModeClamp);
    else
      surf2Dread<float>(&v, s, (int)p[i].x, (int)p[i].y, cudaBoundaryModeZero);
    out[i] = v;
  }
}

static cudaTextureObject_t tex(cudaResourceDesc rd, cudaTextureFilterMode fm, cudaTextureFilterMode mfm, int norm,
                               cudaTextureReadMode rm = cudaReadModeElementType, float bias = 0, float minl = 0,
                               float maxl = 100, int srgb = 0, cudaTextureAddressMode am = cudaAddressModeClamp) {
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = am;
  td.filterMode = fm;
  td.mipmapFilterMode = mfm;
  td.readMode = rm;
  td.normalizedCoords = norm;
  td.mipmapLevelBias = bias;
  td.minMipmapLevelClamp = minl;
  td.maxMipmapLevelClamp = maxl;
  td.sRGB = srgb;
  cudaTextureObject_t t = 0;
  CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static P4* dp;
static float* dout;
static float res[256];
static void run(const char* what, void (*launch)(cudaTextureObject_t, int), cudaTextureObject_t t, P4* ps, int n) {
  CK(cudaMemcpy(dp, ps, n * sizeof(P4), cudaMemcpyHostToDevice));
  launch(t, n);
  CK(cudaMemcpy(res, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    printf("%s (%a,%a,%a,%a) -> %a\n", what, ps[i].x, ps[i].y, ps[i].z, ps[i].w, res[i]);
}

int main() {
  CK(cudaMalloc(&dp, 256 * sizeof(P4)));
  CK(cudaMalloc(&dout, 256 * sizeof(float4)));
  P4 ps[64];

  // 3-D: 4x4x4 floats x + 10y + 100z, unnormalized, linear (trilinear).
  {
    float v[64];
    for (int z = 0; z < 4; z++)
      for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) v[(z * 4 + y) * 4 + x] = x + 10 * y + 100 * z;
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(4, 4, 4)));
    cudaMemcpy3DParms m = {};
    m.srcPtr = make_cudaPitchedPtr(v, 16, 4, 4);
    m.dstArray = a;
    m.extent = make_cudaExtent(4, 4, 4);
    m.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&m));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureObject_t t = tex(rd, cudaFilterModeLinear, cudaFilterModePoint, 0);
    int n = 0;
    for (int i = 0; i < 24; i++) ps[n++] = {0.3f + i * 0.137f, 1.9f - i * 0.05f, 0.6f + i * 0.11f, 0};
    run("tex3D linear clamp unnorm", [](cudaTextureObject_t t, int n) { k3d<<<1, n>>>(t, dp, dout, n); }, t, ps, n);
  }

  // Mipmapped 2-D: 16x16 level 0; level L holds 1000*L + x + 16*y at texel (x, y).
  cudaMipmappedArray_t mm;
  {
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
    CK(cudaMallocMipmappedArray(&mm, &cf, make_cudaExtent(16, 16, 0), 5));
    for (int L = 0; L < 5; L++) {
      cudaArray_t lv;
      CK(cudaGetMipmappedArrayLevel(&lv, mm, L));
      int w = 16 >> L;
      float v[256];
      for (int y = 0; y < w; y++)
        for (int x = 0; x < w; x++) v[y * w + x] = 1000.0f * L + x + 16 * y;
      CK(cudaMemcpy2DToArray(lv, 0, 0, v, w * 4, w * 4, w, cudaMemcpyHostToDevice));
    }
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeMipmappedArray;
    rd.res.mipmap.mipmap = mm;
    int n = 0;
    float lods[] = {-1.0f, 0.0f, 0.25f, 0.5f, 0.999f, 1.0f, 1.3f, 2.0f, 2.7f, 3.5f, 4.0f, 6.0f};
    for (float l : lods) ps[n++] = {0.37f, 0.61f, l, 0};
    for (int lin = 0; lin < 2; lin++)
      for (int mlin = 0; mlin < 2; mlin++) {
        cudaTextureObject_t t = tex(rd, lin ? cudaFilterModeLinear : cudaFilterModePoint,
                                    mlin ? cudaFilterModeLinear : cudaFilterModePoint, 1);
        char what[96];
        snprintf(what, sizeof what, "tex2DLod filter=%s mipfilter=%s", lin ? "linear" : "point", mlin ? "linear" : "point");
        run(what, [](cudaTextureObject_t t, int n) { klod<<<1, n>>>(t, dp, dout, n); }, t, ps, n);
      }
    // Bias and level clamps (linear, linear mipmap filtering).
    cudaTextureObject_t t1 = tex(rd, cudaFilterModeLinear, cudaFilterModeLinear, 1, cudaReadModeElementType, 0.75f);
    run("tex2DLod bias=0.75", [](cudaTextureObject_t t, int n) { klod<<<1, n>>>(t, dp, dout, n); }, t1, ps, n);
    cudaTextureObject_t t2 =
        tex(rd, cudaFilterModeLinear, cudaFilterModeLinear, 1, cudaReadModeElementType, 0, 0.5f, 2.25f);
    run("tex2DLod minclamp=0.5 maxclamp=2.25", [](cudaTextureObject_t t, int n) { klod<<<1, n>>>(t, dp, dout, n); },
        t2, ps, n);
    // Gradients: isotropic lengths (in normalized units: 1/16 is one texel of level 0) and
    // anisotropic pairs.
    n = 0;
    float g[] = {0.0f, 1 / 32.0f, 1 / 16.0f, 1.5f / 16, 2 / 16.0f, 3 / 16.0f, 4 / 16.0f, 8 / 16.0f, 1.0f, 2.0f};
    for (float x : g) ps[n++] = {0.37f, 0.61f, x, x};
    for (float x : g) ps[n++] = {0.37f, 0.61f, x, x / 4};
    cudaTextureObject_t t3 = tex(rd, cudaFilterModeLinear, cudaFilterModeLinear, 1);
    run("tex2DGrad linear/linear", [](cudaTextureObject_t t, int n) { kgrad<<<1, n>>>(t, dp, dout, n); }, t3, ps, n);
    cudaTextureObject_t t4 = tex(rd, cudaFilterModePoint, cudaFilterModePoint, 1);
    run("tex2DGrad point/point", [](cudaTextureObject_t t, int n) { kgrad<<<1, n>>>(t, dp, dout, n); }, t4, ps, n);
  }

  // Layered 2-D: 4x4, 3 layers, 100*layer + x + 4y; unnormalized linear.
  {
    float v[48];
    for (int l = 0; l < 3; l++)
      for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) v[l * 16 + y * 4 + x] = 100 * l + x + 4 * y;
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(4, 4, 3), cudaArrayLayered));
    cudaMemcpy3DParms m = {};
    m.srcPtr = make_cudaPitchedPtr(v, 16, 4, 4);
    m.dstArray = a;
    m.extent = make_cudaExtent(4, 4, 3);
    m.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&m));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureObject_t t = tex(rd, cudaFilterModeLinear, cudaFilterModePoint, 0);
    int n = 0;
    for (int l = -1; l < 4; l++) ps[n++] = {1.3f, 2.2f, (float)l, 0};
    run("tex2DLayered linear unnorm", [](cudaTextureObject_t t, int n) { klayer<<<1, n>>>(t, dp, dout, n); }, t, ps, n);
  }

  // Cubemap: 2x2 faces, face f texel (x, y) = 10*f + x + 2y; point and linear.
  {
    float v[24];
    for (int f = 0; f < 6; f++)
      for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++) v[f * 4 + y * 2 + x] = 10 * f + x + 2 * y;
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(2, 2, 6), cudaArrayCubemap));
    cudaMemcpy3DParms m = {};
    m.srcPtr = make_cudaPitchedPtr(v, 8, 2, 2);
    m.dstArray = a;
    m.extent = make_cudaExtent(2, 2, 6);
    m.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&m));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    int n = 0;
    float d[][3] = {{1, 0.2f, -0.3f}, {-1, 0.5f, 0.5f}, {0.1f, 1, 0.7f}, {0.3f, -1, -0.2f}, {-0.6f, 0.4f, 1},
                    {0.2f, -0.9f, -1}, {1, 1, 1},        {-1, -1, 0.999f}, {0.5f, 0.25f, -0.75f}};
    for (auto& q : d) ps[n++] = {q[0], q[1], q[2], 0};
    for (int lin = 0; lin < 2; lin++) {
      cudaTextureObject_t t = tex(rd, lin ? cudaFilterModeLinear : cudaFilterModePoint, cudaFilterModePoint, 1);
      run(lin ? "texCubemap linear" : "texCubemap point",
          [](cudaTextureObject_t t, int n) { kcube<<<1, n>>>(t, dp, dout, n); }, t, ps, n);
    }
  }

  // 1-D uchar4 [ (0,64,128,255), (255,192,16,0) ], linear, normalized float, fine steps; and sRGB.
  {
    uchar4 v[2] = {make_uchar4(0, 64, 128, 255), make_uchar4(255, 192, 16, 0)};
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cf, 2, 0));
    CK(cudaMemcpy2DToArray(a, 0, 0, v, sizeof v, sizeof v, 1, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    int n = 0;
    for (int k = 0; k <= 36; k++) ps[n++] = {0.5f + k / 512.0f * 7, 0, 0, 0};
    for (int srgb = 0; srgb < 2; srgb++) {
      cudaTextureObject_t t = tex(rd, cudaFilterModeLinear, cudaFilterModePoint, 0, cudaReadModeNormalizedFloat, 0, 0,
                                  100, srgb);
      CK(cudaMemcpy(dp, ps, n * sizeof(P4), cudaMemcpyHostToDevice));
      k1d<<<1, n>>>(t, dp, (float4*)dout, n);
      float4 r[64];
      CK(cudaMemcpy(r, dout, n * sizeof(float4), cudaMemcpyDeviceToHost));
      for (int i = 0; i < n; i++)
        printf("tex1D uchar4 linear normalized%s x=%a -> %a %a %a %a\n", srgb ? " sRGB" : "", ps[i].x, r[i].x, r[i].y,
               r[i].z, r[i].w);
    }
  }

  // Surfaces: write a 8x4 float array through surf2Dwrite, read it back with clamp and zero
  // border modes at coordinates inside and outside.
  {
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cf, 8, 4, cudaArraySurfaceLoadStore));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s;
    CK(cudaCreateSurfaceObject(&s, &rd));
    ksurfw<<<4, 8>>>(s, 8, 4);
    float back[32];
    CK(cudaMemcpy2DFromArray(back, 32, a, 0, 0, 32, 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; i++) printf("surf2Dwrite readback [%d] -> %a\n", i, back[i]);
    int n = 0;
    // x is in bytes for surf2Dread.
    int c[][2] = {{0, 0}, {4, 1}, {28, 3}, {32, 0}, {-4, 0}, {36, 2}, {8, 4}, {8, -1}, {100, 100}};
    for (auto& q : c) ps[n++] = {(float)q[0], (float)q[1], 0, 0};
    for (int mode = 0; mode < 2; mode++) {
      CK(cudaMemcpy(dp, ps, n * sizeof(P4), cudaMemcpyHostToDevice));
      ksurfr<<<1, n>>>(s, dp, dout, n, mode);
      CK(cudaMemcpy(res, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
      for (int i = 0; i < n; i++)
        printf("surf2Dread %s (x bytes %d, y %d) -> %a\n", mode ? "zero" : "clamp", (int)ps[i].x, (int)ps[i].y, res[i]);
    }
  }
  printf("last error: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
