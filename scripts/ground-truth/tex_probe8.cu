// Ground-truth probe, part 8 of the texture unit: data for the level-of-detail rule of gradients
// that are neither axis-aligned nor perpendicular (tex_probe5 showed that the isotropic level is
// not log2 of the longer gradient's Euclidean length). A 64 x 64 float texture of 7 levels
// whose level L holds L, point filtering within a level and linear filtering between levels,
// so a fetch returns the level of detail (its fraction in 1/256) between 0 and 6:
// - `one`: dx of length 2^(i/4) texels (i = 0..20) at angles 0 to 90 degrees in steps of 3, dy
//   zero;
// - `pair`: 1,000 random pairs (lengths 2^u texels, u uniform in [-1, 4], any angles), isotropic;
// - `pair aniso=16`: the same pairs under maxAnisotropy 16.
// Every line: the inputs and the result as hex floats.
// Build: nvcc -arch=sm_90 -o tex_probe8 tex_probe8.cu
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

static unsigned rng = 88172645u;
static float uniform() {
  rng ^= rng << 13, rng ^= rng >> 17, rng ^= rng << 5;
  return (rng >> 8) / 16777216.0f;
}

int main() {
  CK(cudaMalloc(&dq, 4096 * sizeof(Q)));
  CK(cudaMalloc(&dout, 4096 * sizeof(float)));
  static Q q[4096];
  const float c = 32.5f / N, t1 = 1.0f / N;
  cudaMipmappedArray_t lv = make(level);
  cudaTextureObject_t iso = tex(lv, 0, 0), an16 = tex(lv, 0, 16);
  int n = 0;
  for (int i = 0; i <= 20; i++)
    for (int a = 0; a <= 30; a++) {
      float L = powf(2.0f, i / 4.0f) * t1, th = a * 3 * 3.14159265f / 180;
      q[n++] = {c, c, L * cosf(th), L * sinf(th), 0, 0};
    }
  run("one", iso, q, n);
  n = 0;
  for (int k = 0; k < 1000; k++) {
    float l1 = powf(2.0f, uniform() * 5 - 1) * t1, a1 = uniform() * 6.2831853f;
    float l2 = powf(2.0f, uniform() * 5 - 1) * t1, a2 = uniform() * 6.2831853f;
    q[n++] = {c, c, l1 * cosf(a1), l1 * sinf(a1), l2 * cosf(a2), l2 * sinf(a2)};
  }
  run("pair", iso, q, n);
  run("pair aniso=16", an16, q, n);
  printf("done\n");
  return 0;
}
