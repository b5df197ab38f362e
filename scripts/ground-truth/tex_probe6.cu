// Ground-truth probe, part 6 of the texture unit: what tex_probe5's answers left open.
// - Anisotropic footprints: the samples and weights of footprints of ratio 1 to 16 (a single
//   texel of 1.0 at (32, 32) of level 0, every other texel and level 0, read from positions
//   along x in quarter texels), under maxAnisotropy 2, 3, 8 and 16, point and linear filtering;
// - the level-of-detail fraction under maxAnisotropy 3 and 8 (a texture whose level L holds L,
//   isotropic footprints of 1 + j/16 texels);
// - what a one- and a two-channel float texture returns in the missing channels of a float4;
// - tex.grad.cube level selection on 8 x 8 and 16 x 16 cubemaps with every level allowed.
// Every line: the inputs and the result as hex floats. Launch errors are printed.
// Build: nvcc -arch=sm_90 -o tex_probe6 tex_probe6.cu
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_) printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_));      \
  } while (0)

struct Q {
  float x, y, dxx, dxy, dyx, dyy;
};

__global__ void grad(cudaTextureObject_t t, const Q* q, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2DGrad<float>(t, q[i].x, q[i].y, make_float2(q[i].dxx, q[i].dxy),
                              make_float2(q[i].dyx, q[i].dyy));
}
__global__ void four(cudaTextureObject_t t, float4* out) { out[0] = tex2D<float4>(t, 1.5f, 0.5f); }
__global__ void cube_grad(cudaTextureObject_t t, float g, float* out) {
  float a, b, c, d;
  asm("tex.grad.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}], {%8, %9, %9, %9}, "
      "{%9, %8, %9, %9};"
      : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
      : "l"(t), "f"(1.0f), "f"(0.2f), "f"(0.1f), "f"(g), "f"(0.0f));
  out[0] = a;
}

static const int N = 64, LEVELS = 7;

static cudaMipmappedArray_t make(float (*fill)(int, int, int)) {
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t mm;
  CK(cudaMallocMipmappedArray(&mm, &cf, make_cudaExtent(N, N, 0), LEVELS));
  static float v[N * N];
  for (int L = 0; L < LEVELS; L++) {
    int w = N >> L;
    for (int y = 0; y < w; y++)
      for (int x = 0; x < w; x++) v[y * w + x] = fill(L, x, y);
    cudaArray_t lv;
    CK(cudaGetMipmappedArrayLevel(&lv, mm, L));
    CK(cudaMemcpy2DToArray(lv, 0, 0, v, w * 4, w * 4, w, cudaMemcpyHostToDevice));
  }
  return mm;
}

static cudaTextureObject_t tex(cudaMipmappedArray_t mm, int linear, unsigned aniso) {
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = mm;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.mipmapFilterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  td.maxAnisotropy = aniso;
  td.maxMipmapLevelClamp = 100;
  cudaTextureObject_t t = 0;
  CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static Q* dq;
static float* dout;
static void run(const char* what, cudaTextureObject_t t, const Q* q, int n) {
  static float res[8192];
  CK(cudaMemcpy(dq, q, n * sizeof(Q), cudaMemcpyHostToDevice));
  grad<<<(n + 127) / 128, 128>>>(t, dq, dout, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(res, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    printf("%s at (%a,%a) dx (%a,%a) dy (%a,%a) -> %a\n", what, q[i].x, q[i].y, q[i].dxx,
           q[i].dxy, q[i].dyx, q[i].dyy, res[i]);
}

static float level(int L, int, int) { return (float)L; }
static float impulse(int L, int x, int y) { return L == 0 && x == 32 && y == 32 ? 1.0f : 0.0f; }

int main() {
  CK(cudaMalloc(&dq, 8192 * sizeof(Q)));
  CK(cudaMalloc(&dout, 8192 * sizeof(float)));
  static Q q[8192];
  const float c = 32.5f / N, t1 = 1.0f / N;

  // Footprints: major L texels along x, minor 1 (ratios 1 to 16), from positions d/4 texels
  // around the single texel, d = -40..40.
  cudaMipmappedArray_t im = make(impulse);
  int n = 0;
  const float majors[] = {1, 1.5f, 2, 3, 4, 7, 9, 16};
  for (float L : majors)
    for (int d = -40; d <= 40; d++) q[n++] = {(32.5f + d / 4.0f) / N, c, L * t1, 0, 0, t1};
  for (unsigned aniso : {2u, 3u, 8u, 16u})
    for (int linear = 0; linear < 2; linear++) {
      char what[64];
      snprintf(what, sizeof what, "taps aniso=%u filter=%s", aniso, linear ? "linear" : "point");
      cudaTextureObject_t t = tex(im, linear, aniso);
      run(what, t, q, n);
      CK(cudaDestroyTextureObject(t));
    }
  CK(cudaFreeMipmappedArray(im));

  // The level-of-detail fraction under maxAnisotropy 3 and 8.
  cudaMipmappedArray_t lv = make(level);
  n = 0;
  for (int j = 0; j <= 16; j++) {
    float sz = (1 + j / 16.0f) * t1;
    q[n++] = {c, c, sz, 0, 0, sz};
  }
  for (unsigned aniso : {3u, 8u}) {
    char what[64];
    snprintf(what, sizeof what, "fraction aniso=%u", aniso);
    cudaTextureObject_t t = tex(lv, 1, aniso);
    run(what, t, q, n);
    CK(cudaDestroyTextureObject(t));
  }
  CK(cudaFreeMipmappedArray(lv));

  // Missing channels of one- and two-channel float textures read as float4.
  for (int ch = 1; ch <= 2; ch++) {
    cudaChannelFormatDesc cf = ch == 1 ? cudaCreateChannelDesc<float>() : cudaCreateChannelDesc<float2>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cf, 4, 1));
    float v[8] = {3, 5, 7, 9, 11, 13, 15, 17};
    CK(cudaMemcpy2DToArray(a, 0, 0, v, 4 * ch * 4, 4 * ch * 4, 1, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    float4* o;
    CK(cudaMalloc(&o, sizeof(float4)));
    four<<<1, 1>>>(t, o);
    CK(cudaGetLastError());
    float4 r = {};
    CK(cudaMemcpy(&r, o, sizeof r, cudaMemcpyDeviceToHost));
    printf("float%d read as float4 at (1.5,0.5) -> %a %a %a %a\n", ch, r.x, r.y, r.z, r.w);
  }

  // tex.grad.cube on mipmapped cubemaps of 8 x 8 (4 levels) and 16 x 16 (5 levels), level k
  // holding 1000 k, every level allowed.
  for (int size : {8, 16}) {
    int levels = size == 8 ? 4 : 5;
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t mm;
    CK(cudaMallocMipmappedArray(&mm, &cf, make_cudaExtent(size, size, 6), levels, cudaArrayCubemap));
    for (int k = 0; k < levels; k++) {
      cudaArray_t l;
      CK(cudaGetMipmappedArrayLevel(&l, mm, k));
      int w = size >> k;
      static float buf[16 * 16 * 6];
      for (int i = 0; i < w * w * 6; i++) buf[i] = 1000.0f * k;
      cudaMemcpy3DParms p = {};
      p.srcPtr = make_cudaPitchedPtr(buf, w * 4, w, w);
      p.dstArray = l;
      p.extent = make_cudaExtent(w, w, 6);
      p.kind = cudaMemcpyHostToDevice;
      CK(cudaMemcpy3D(&p));
    }
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeMipmappedArray;
    rd.res.mipmap.mipmap = mm;
    cudaTextureDesc td = {};
    td.normalizedCoords = 1;
    td.maxMipmapLevelClamp = 100;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    for (float g : {0.125f, 0.25f, 0.375f, 0.5f, 0.75f, 1.0f, 1.5f, 2.0f, 4.0f, 8.0f}) {
      cube_grad<<<1, 1>>>(t, g, dout);
      CK(cudaGetLastError());
      float r = -1;
      CK(cudaMemcpy(&r, dout, sizeof r, cudaMemcpyDeviceToHost));
      printf("tex.grad.cube %dx%d at (1,0.2,0.1) gradient %a -> %a\n", size, size, g, r);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeMipmappedArray(mm));
  }
  printf("done\n");
  return 0;
}
