// Ground-truth probe, part 4 of the texture unit (issue: textures): the arithmetic of 3-D linear
// filtering and of linear filtering between two mipmap levels, which tex_probe2 showed the shim
// does not reproduce bit for bit. Each section uses textures whose texels isolate one part of the
// sum: a single texel of 1.0 (the weight the hardware gives that texel), a constant texture (how
// the weights add up), two constant levels (how the two levels are mixed), then random texels at
// random coordinates. Every texel value and coordinate is printed as a hex float, so a model can
// be fitted and tested from this file alone.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_) printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_));      \
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

static unsigned rng_state = 12345;
static float rnd() {  // uniform in [0, 1), 24 bits
  rng_state = rng_state * 1664525u + 1013904223u;
  return (rng_state >> 8) * (1.0f / 16777216.0f);
}

static P4* dp;
static float* dout;
static float res[256];
static void run(const char* what, int k3, cudaTextureObject_t t, P4* ps, int n) {
  CK(cudaMemcpy(dp, ps, n * sizeof(P4), cudaMemcpyHostToDevice));
  if (k3)
    k3d<<<1, n>>>(t, dp, dout, n);
  else
    klod<<<1, n>>>(t, dp, dout, n);
  CK(cudaMemcpy(res, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) printf("%s (%a,%a,%a) -> %a\n", what, ps[i].x, ps[i].y, ps[i].z, res[i]);
}

static cudaTextureObject_t tex(cudaResourceDesc rd, int linear, int miplinear, int norm) {
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.mipmapFilterMode = miplinear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = norm;
  td.maxMipmapLevelClamp = 100;
  cudaTextureObject_t t = 0;
  CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static void texels(const char* name, const float* v, int n) {
  printf("texels %s", name);
  for (int i = 0; i < n; i++) printf(" %a", v[i]);
  printf("\n");
}

// 3-D: a 4x4x4 float array, unnormalized coordinates, linear filtering.
static void three_d(const char* name, const float* v, P4* ps, int n) {
  texels(name, v, 64);
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(4, 4, 4)));
  cudaMemcpy3DParms m = {};
  m.srcPtr = make_cudaPitchedPtr((void*)v, 16, 4, 4);
  m.dstArray = a;
  m.extent = make_cudaExtent(4, 4, 4);
  m.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&m));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureObject_t t = tex(rd, 1, 0, 0);
  char what[64];
  snprintf(what, sizeof what, "tex3D %s", name);
  run(what, 1, t, ps, n);
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeArray(a));
}

// Mipmapped 2-D: 8x8, 4x4, 2x2, 1x1 levels (85 floats in level order), normalized coordinates.
static void mip(const char* name, const float* v, int linear, P4* ps, int n) {
  texels(name, v, 85);
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t mm;
  CK(cudaMallocMipmappedArray(&mm, &cf, make_cudaExtent(8, 8, 0), 4));
  const float* p = v;
  for (int L = 0; L < 4; L++) {
    cudaArray_t lv;
    CK(cudaGetMipmappedArrayLevel(&lv, mm, L));
    int w = 8 >> L;
    CK(cudaMemcpy2DToArray(lv, 0, 0, p, w * 4, w * 4, w, cudaMemcpyHostToDevice));
    p += w * w;
  }
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = mm;
  cudaTextureObject_t t = tex(rd, linear, 1, 1);
  char what[64];
  snprintf(what, sizeof what, "tex2DLod %s filter=%s", name, linear ? "linear" : "point");
  run(what, 0, t, ps, n);
  CK(cudaDestroyTextureObject(t));
  CK(cudaFreeMipmappedArray(mm));
}

int main() {
  CK(cudaMalloc(&dp, 256 * sizeof(P4)));
  CK(cudaMalloc(&dout, 256 * sizeof(float)));
  P4 ps[256];
  float v[128];
  int n;

  // --- 3-D ---
  // Random coordinates around texel (1,1,1): each of its eight corner roles appears.
  n = 0;
  for (int i = 0; i < 128; i++) ps[n++] = {0.5f + 2 * rnd(), 0.5f + 2 * rnd(), 0.5f + 2 * rnd(), 0};
  // One axis at a time, fractions on and between the 1/256 steps.
  for (int i = 0; i < 40; i++) {
    float f = i / 40.0f + 0.3f / 256;
    ps[n++] = {1.5f + f, 1.5f, 1.5f, 0};
    ps[n++] = {1.5f, 1.5f + f, 1.5f, 0};
    ps[n++] = {1.5f, 1.5f, 1.5f + f, 0};
  }
  int n3 = n;  // 248
  for (int i = 0; i < 64; i++) v[i] = 0;
  v[(1 * 4 + 1) * 4 + 1] = 1.0f;
  three_d("delta111", v, ps, n3);
  for (int i = 0; i < 64; i++) v[i] = 1.0f;
  three_d("ones", v, ps, 128);
  for (int i = 0; i < 64; i++) v[i] = 0;
  v[(2 * 4 + 2) * 4 + 2] = 1.0f;
  three_d("delta222", v, ps, 128);
  for (int i = 0; i < 64; i++) v[i] = (float)(int)(rnd() * 2000) - 1000 + rnd();
  three_d("random", v, ps, n3);
  for (int i = 0; i < 64; i++) v[i] = 1.0f + rnd() * 0x1p-10f;  // values that differ in low bits
  three_d("lowbits", v, ps, 128);

  // --- mipmap levels ---
  // Level-of-detail sweep at one point: lods in 1/512 steps from 0 to 1 with offsets.
  n = 0;
  for (int i = 0; i <= 100; i++) ps[n++] = {0.37f, 0.61f, i / 100.0f, 0};
  for (int i = 0; i < 27; i++) ps[n++] = {0.37f, 0.61f, (i * 19 % 256) / 256.0f + 1.0f / 1024, 0};
  int nl = n;  // 128
  float* l1 = v + 64;
  for (int i = 0; i < 85; i++) v[i] = 0;
  for (int i = 0; i < 64; i++) v[i] = 1.0f;
  mip("level0=1", v, 0, ps, nl);
  for (int i = 0; i < 85; i++) v[i] = 0;
  for (int i = 0; i < 16; i++) l1[i] = 1.0f;
  mip("level1=1", v, 0, ps, nl);
  float A = 0, B = 0;
  for (int k = 0; k < 3; k++) {
    A = (float)(int)(rnd() * 2000) - 1000 + rnd();
    B = (float)(int)(rnd() * 2000) - 1000 + rnd();
    for (int i = 0; i < 85; i++) v[i] = 0;
    for (int i = 0; i < 64; i++) v[i] = A;
    for (int i = 0; i < 16; i++) l1[i] = B;
    char name[32];
    snprintf(name, sizeof name, "two-levels%d", k);
    mip(name, v, 0, ps, nl);
  }
  // Random coordinates and lods in [0, 1.25): both levels filtered linearly.
  n = 0;
  for (int i = 0; i < 160; i++) ps[n++] = {rnd(), rnd(), rnd() * 1.25f, 0};
  for (int i = 0; i < 85; i++) v[i] = 0;
  v[3 * 8 + 4] = 1.0f;
  mip("delta0", v, 1, ps, n);
  for (int i = 0; i < 85; i++) v[i] = 0;
  l1[1 * 4 + 2] = 1.0f;
  mip("delta1", v, 1, ps, n);
  for (int i = 0; i < 85; i++) v[i] = 1.0f;
  mip("ones", v, 1, ps, n);
  for (int i = 0; i < 85; i++) v[i] = (float)(int)(rnd() * 2000) - 1000 + rnd();
  mip("random", v, 1, ps, n);
  mip("random", v, 0, ps, n);
  return 0;
}
