// Ground-truth probe, part 5 of the texture unit: anisotropic filtering, which the CUDA
// documentation names (cudaTextureDesc::maxAnisotropy) but never specifies. Two questions:
// - the level of detail: a 64 x 64 mipmapped float texture whose level L holds the constant L,
//   read with tex2DGrad, linear filtering within and between levels, so that each result is the
//   level of detail the unit chose (as 8-bit fractions between two levels); for maxAnisotropy
//   0 (unset), 1, 2, 4, 8 and 16 and gradients of every ratio, axis-aligned and rotated;
// - the footprint: level 0 holds a single texel of 1.0 at (32, 32) (every other texel and
//   level 0), read with a gradient 16 texels long along x and 1 along y from positions along
//   the x axis around it, so that each result is the weight the footprint gives that texel;
// - (part 2) the level-of-detail fraction of footprints between 1 and 2 texels, the length of
//   rotated gradients, and the samples of footprints whose ratio is not a power of two.
// Every line: the inputs and the result as hex floats. Launch errors are printed.
// Build: nvcc -arch=sm_90 -o tex_probe5 tex_probe5.cu
#include <cmath>
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

static const int N = 64, LEVELS = 7;

// Level L of the mipmapped array: `fill(L, x, y)`.
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
  static float res[4096];
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
  CK(cudaMalloc(&dq, 4096 * sizeof(Q)));
  CK(cudaMalloc(&dout, 4096 * sizeof(float)));
  static Q q[4096];
  const float c = 32.5f / N, t1 = 1.0f / N;  // the texture's centre; one texel

  // The level of detail. Minor axis m texels (1/2 .. 8), ratio r; axis-aligned along x, along
  // y, and rotated by 45 degrees (x and y swapped for dy to keep the axes perpendicular), and
  // one non-perpendicular pair.
  cudaMipmappedArray_t lv = make(level);
  int n = 0;
  const float minors[] = {0.5f, 1, 1.5f, 2, 3, 4, 8};
  const float ratios[] = {1, 1.5f, 2, 3, 4, 6, 8, 12, 16, 24, 32};
  for (float m : minors)
    for (float r : ratios) {
      float a = m * r * t1, b = m * t1, s = 0.70710678f;
      q[n++] = {c, c, a, 0, 0, b};
      q[n++] = {c, c, b, 0, 0, a};
      q[n++] = {c, c, a * s, a * s, -b * s, b * s};
      q[n++] = {c, c, a, 0, b * s, b * s};
    }
  for (unsigned aniso : {0u, 1u, 2u, 4u, 8u, 16u}) {
    char what[64];
    snprintf(what, sizeof what, "lod aniso=%u", aniso);
    cudaTextureObject_t t = tex(lv, 1, aniso);
    run(what, t, q, n);
    CK(cudaDestroyTextureObject(t));
  }

  // The footprint: a gradient 16 texels along x (or y) and one across, from positions around
  // the single texel of 1.0, on both filter modes.
  cudaMipmappedArray_t im = make(impulse);
  n = 0;
  for (int d = -12; d <= 12; d++) {
    float p = (32.5f + d) / N;
    q[n++] = {p, c, 16 * t1, 0, 0, t1};
    q[n++] = {c, p, t1, 0, 0, 16 * t1};
    q[n++] = {p, c, 8 * t1, 0, 0, t1};
    q[n++] = {p + 0.25f * t1, c, 16 * t1, 0, 0, t1};
  }
  for (unsigned aniso : {1u, 4u, 16u})
    for (int linear = 0; linear < 2; linear++) {
      char what[64];
      snprintf(what, sizeof what, "footprint aniso=%u filter=%s", aniso, linear ? "linear" : "point");
      cudaTextureObject_t t = tex(im, linear, aniso);
      run(what, t, q, n);
      CK(cudaDestroyTextureObject(t));
    }
  // Part 2 (added after the first record). The level of detail's fraction: footprints of
  // s = 1 + j/16 texels (j = 0..16), isotropic (minor = major = s) and limited by the ratio
  // (minor s/8, major 4 s: the level from major / maxAnisotropy = s under 4).
  n = 0;
  for (int j = 0; j <= 16; j++) {
    float sz = (1 + j / 16.0f) * t1;
    q[n++] = {c, c, sz, 0, 0, sz};
    q[n++] = {c, c, 4 * sz, 0, 0, sz / 8};
  }
  // The length of a rotated gradient: 2 texels at angles 0 to 90 degrees in steps of 5 (the
  // other gradient 1/4 texel, perpendicular), and 1.5 and 3 texels at 45 degrees.
  for (int a = 0; a <= 18; a++) {
    float th = a * 5 * 3.14159265f / 180, co = cosf(th), si = sinf(th), L = 2 * t1, l = t1 / 4;
    q[n++] = {c, c, L * co, L * si, -l * si, l * co};
  }
  for (float L : {1.5f, 3.0f, 1.25f}) {
    float h = L * t1 * 0.70710678f;
    q[n++] = {c, c, h, h, -t1 / 16, t1 / 16};
  }
  for (unsigned aniso : {1u, 2u, 4u, 16u}) {
    char what[64];
    snprintf(what, sizeof what, "fraction aniso=%u", aniso);
    cudaTextureObject_t t = tex(lv, 1, aniso);
    run(what, t, q, n);
    CK(cudaDestroyTextureObject(t));
  }
  // The samples of footprints whose ratio is not a power of two: major L texels along x,
  // minor 1, point filtering, from positions around the single texel.
  CK(cudaFreeMipmappedArray(lv));
  n = 0;
  const float majors[] = {3, 5, 6, 12, 2.5f};
  for (float L : majors)
    for (int d = -9; d <= 9; d++) q[n++] = {(32.5f + d) / N, c, L * t1, 0, 0, t1};
  for (unsigned aniso : {4u, 16u}) {
    char what[64];
    snprintf(what, sizeof what, "samples aniso=%u filter=point", aniso);
    cudaTextureObject_t t = tex(im, 0, aniso);
    run(what, t, q, n);
    CK(cudaDestroyTextureObject(t));
  }
  CK(cudaFreeMipmappedArray(im));
  printf("done\n");
  return 0;
}
