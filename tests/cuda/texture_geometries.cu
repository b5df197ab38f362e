// Texture objects beyond plain 1-3-D arrays, each checked against a host model of the rule that
// defines it, written here from the documents (never from the emulator's output):
//   - layered 1-D and 2-D arrays (tex1DLayered, tex2DLayered): the layer index picks the slice;
//   - cubemaps and cubemap arrays (texCubemap, texCubemapLayered): the face and (s, t) from the
//     CUDA Programming Guide's cubemap table, inverted on the host to aim at given texels;
//   - mipmapped arrays (tex2DLod, tex2DGrad): level sizes halve (ISA 9.7.10.2); the level of
//     detail is the explicit one or log2 of the longer gradient in texels, plus the sampler's
//     bias, clamped to [minMipmapLevelClamp, maxMipmapLevelClamp]; point mipmap filtering takes
//     the nearest level, linear blends two by the fraction (inputs chosen off the .5 ties);
//   - bilinear image scaling, a separable convolution through textures and trilinear filtering
//     of a volume: the guide's linear-filtering formula with weights in 9-bit fixed point
//     (8 fractional bits), split among the texels as an H200 splits them (corner_weights);
//     texel values are small integers so every sum is exact in any order;
//   - sRGB decoding (the sRGB standard's curve in half precision, as an H100 returns it), the
//     residency predicate, txq, texel offsets,
//     half results and tld4 on a layered texture, through inline PTX where CUDA C++ has no
//     function (ISA 9.7.10.3-5);
//   - resource views: a view's format reinterprets texels of its size, its level and layer
//     ranges start the texture at their first (cuTexObjectCreate's documentation).
// Level selection, layered and cubemap reads and sRGB are also compared with what an H100
// returned, in tests/textures.rs (scripts/ground-truth/tex_probe2.cu); the cubemap table's
// ties, the truncated level fraction and the sRGB precision come from there.
#include "check.h"
#include <cmath>
#include <cstring>
#include <cuda_fp16.h>
#include <vector>

static cudaTextureObject_t make_tex(const cudaResourceDesc &rd, cudaTextureFilterMode filter,
                                    bool normalized, cudaTextureAddressMode addr,
                                    cudaTextureFilterMode mip = cudaFilterModePoint,
                                    float max_level = 0, float min_level = 0, float bias = 0,
                                    bool srgb = false) {
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = addr;
  td.filterMode = filter;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = normalized;
  td.mipmapFilterMode = mip;
  td.maxMipmapLevelClamp = max_level;
  td.minMipmapLevelClamp = min_level;
  td.mipmapLevelBias = bias;
  if (srgb) {
    td.sRGB = 1;
    td.readMode = cudaReadModeNormalizedFloat;
  }
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static cudaResourceDesc array_res(cudaArray_t a) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  return rd;
}

// Copies a dense host block of w x h x d floats into a 3-D (or layered) array.
static void upload3d(cudaArray_t a, const float *src, int w, int h, int d) {
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr((void *)src, w * sizeof(float), w, h);
  p.dstArray = a;
  p.extent = make_cudaExtent(w, h, d);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
}

// ---- Kernels: each thread fetches one point given by the host.

__global__ void k_layered2d(cudaTextureObject_t t, const float4 *p, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLayered<float>(t, p[i].x, p[i].y, (int)p[i].z);
}
__global__ void k_layered1d(cudaTextureObject_t t, const float4 *p, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1DLayered<float>(t, p[i].x, (int)p[i].z);
}
__global__ void k_cube(cudaTextureObject_t t, const float4 *p, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, p[i].x, p[i].y, p[i].z);
}
__global__ void k_cube_layered(cudaTextureObject_t t, const float4 *p, const int *layer,
                               float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemapLayered<float>(t, p[i].x, p[i].y, p[i].z, layer[i]);
}
__global__ void k_lod(cudaTextureObject_t t, const float4 *p, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLod<float>(t, p[i].x, p[i].y, p[i].z);
}
__global__ void k_grad(cudaTextureObject_t t, const float4 *p, const float4 *g, float *out,
                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2DGrad<float>(t, p[i].x, p[i].y, make_float2(g[i].x, g[i].y),
                              make_float2(g[i].z, g[i].w));
}
__global__ void k_scale(cudaTextureObject_t t, float *out, int ow, int oh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < ow) out[y * ow + x] = tex2D<float>(t, (x + 0.5f) / ow, (y + 0.5f) / oh);
}
// One pass of a separable 5-tap convolution (weights 1 4 6 4 1) along x (dx = 1) or y.
__global__ void k_conv(cudaTextureObject_t t, float *out, int w, int h, int dx, int dy) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  const float k[5] = {1, 4, 6, 4, 1};
  if (x >= w) return;
  float s = 0;
  for (int j = -2; j <= 2; j++)
    s += k[j + 2] * tex2D<float>(t, x + j * dx + 0.5f, y + j * dy + 0.5f);
  out[y * w + x] = s;
}
__global__ void k_3d(cudaTextureObject_t t, const float4 *p, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, p[i].x, p[i].y, p[i].z);
}
__global__ void k_rgba(cudaTextureObject_t t, float4 *out, int w, int *resident) {
  int x = threadIdx.x;
  bool r = false;
  if (x < w) out[x] = tex2D<float4>(t, x + 0.5f, 0.5f, &r);
  if (x < w) resident[x] = r;
}
// txq on a texture object: width, height, depth, levels, width of level 2, normalized.
__global__ void k_txq(cudaTextureObject_t t, int *out) {
  int v[11];
  asm("txq.width.b32 %0, [%1];" : "=r"(v[0]) : "l"(t));
  asm("txq.height.b32 %0, [%1];" : "=r"(v[1]) : "l"(t));
  asm("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(v[2]) : "l"(t));
  asm("txq.level.width.b32 %0, [%1], %2;" : "=r"(v[3]) : "l"(t), "r"(2));
  asm("txq.normalized_coords.b32 %0, [%1];" : "=r"(v[4]) : "l"(t));
  asm("txq.array_size.b32 %0, [%1];" : "=r"(v[5]) : "l"(t));
  asm("txq.filter_mode.b32 %0, [%1];" : "=r"(v[6]) : "l"(t));
  asm("txq.addr_mode_0.b32 %0, [%1];" : "=r"(v[7]) : "l"(t));
  asm("txq.addr_mode_1.b32 %0, [%1];" : "=r"(v[8]) : "l"(t));
  asm("txq.channel_data_type.b32 %0, [%1];" : "=r"(v[9]) : "l"(t));
  asm("txq.channel_order.b32 %0, [%1];" : "=r"(v[10]) : "l"(t));
  for (int k = 0; k < 11; k++) out[k] = v[k];
}
// tex.2d with a texel offset {ox, oy}, f16 results, and tld4.r on a layered texture.
__global__ void k_ptx_forms(cudaTextureObject_t plain, cudaTextureObject_t layered, float *out) {
  float a, b, c, d;
  int ox = 1, oy = -1;
  asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7, %8};"
      : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
      : "l"(plain), "f"(2.5f), "f"(2.5f), "r"(ox), "r"(oy));
  out[0] = a;
  unsigned short h0, h1, h2, h3;
  asm("tex.2d.v4.f16.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
      : "=h"(h0), "=h"(h1), "=h"(h2), "=h"(h3)
      : "l"(plain), "f"(3.5f), "f"(1.5f));
  out[1] = __half2float(__ushort_as_half(h0));
  out[2] = __half2float(__ushort_as_half(h3));
  int layer = 1;
  asm("tld4.r.a2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
      : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
      : "l"(layered), "r"(layer), "f"(2.0f), "f"(1.0f));
  out[3] = a;
  out[4] = b;
  out[5] = c;
  out[6] = d;
}

template <class K, class... A>
static std::vector<float> run_points(K kernel, int n, A... args) {
  float *out;
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  kernel<<<(n + 127) / 128, 128>>>(args..., out, n);
  CHECK(cudaGetLastError());
  std::vector<float> got(n);
  CHECK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(out));
  return got;
}

template <class T> static T *to_device(const std::vector<T> &v) {
  T *d;
  CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// Where linear filtering with clamp reads along one axis of n texels at texel coordinate x:
// the lower texel and the upper one's weight in 1/256 (the fraction in 9-bit fixed point with
// 8 fractional bits, rounded to nearest, as tests/textures.rs's H100 probe measured). The
// coordinate is clamped to the edge texels' centres first (measured on an H100 too,
// scripts/ground-truth/results/tex2-h100.txt).
static void linear_axis(float x, int n, int *base, int *w) {
  float xb = x - 0.5f;
  *base = (int)floorf(xb);
  *w = (int)floorf((xb - floorf(xb)) * 256.0f + 0.5f);
  if (*base < 0 || *base >= n - 1) *base = clampi(*base, 0, n - 1), *w = 0;
}

// The weights, in 1/256, of the 2^dims texels around a linear fetch (index: bit 0 upper in x,
// bit 1 in y, bit 2 in z) as an H200 gives them (scripts/ground-truth/results/tex4-h200.txt;
// engine/src/tex.rs's corner_weights says how it was fitted): not the products of the axes'
// weights w[] but the whole 256 split along z (3-D), then x, then y, each split rounding one
// side's share v * w / 256 to the nearest step (half up) and giving the other side the rest;
// the z and x splits round the upper side, the y split the side on the texel's x side.
static void corner_weights(const int w[3], int dims, int out[8]) {
  for (int k = 0; k < 8; k++) out[k] = 0;
  for (int z = 0; z < (dims == 3 ? 2 : 1); z++) {
    int z1 = dims == 3 ? (256 * w[2] + 128) >> 8 : 0;
    int vz = dims == 3 ? (z ? z1 : 256 - z1) : 256;
    int x1 = (vz * w[0] + 128) >> 8;
    for (int x = 0; x < 2; x++) {
      int vx = x ? x1 : vz - x1;
      int y1 = x ? (vx * w[1] + 128) >> 8 : vx - ((vx * (256 - w[1]) + 128) >> 8);
      out[z * 4 + x] += vx - y1;
      out[z * 4 + 2 + x] += y1;
    }
  }
}

static void layered() {
  // 2-D layered: 8 x 4 texels, 3 layers, value l*1000 + y*10 + x.
  const int w = 8, h = 4, L = 3;
  std::vector<float> v(w * h * L);
  for (int l = 0; l < L; l++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) v[(l * h + y) * w + x] = l * 1000 + y * 10 + x;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CHECK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(w, h, L), cudaArrayLayered));
  upload3d(a, v.data(), w, h, L);
  cudaTextureObject_t tp = make_tex(array_res(a), cudaFilterModePoint, false, cudaAddressModeClamp);
  cudaTextureObject_t tl = make_tex(array_res(a), cudaFilterModeLinear, false, cudaAddressModeClamp);
  std::vector<float4> pts;
  std::vector<float> want, want_lin;
  for (int l = 0; l < L; l++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        pts.push_back(make_float4(x + 0.5f, y + 0.5f, l, 0));
        want.push_back(v[(l * h + y) * w + x]);
        // Linear at x + 0.75: weight 1/4 towards x + 1 (clamped at the edge), same layer.
        int x1 = clampi(x + 1, 0, w - 1);
        want_lin.push_back(0.75f * v[(l * h + y) * w + x] + 0.25f * v[(l * h + y) * w + x1]);
      }
  float4 *dp = to_device(pts);
  std::vector<float> got = run_points(k_layered2d, pts.size(), tp, dp);
  for (size_t i = 0; i < got.size(); i++) EXPECT_EQ(got[i], want[i]);
  for (auto &p : pts) p.x += 0.25f;
  float4 *dq = to_device(pts);
  got = run_points(k_layered2d, pts.size(), tl, dq);
  for (size_t i = 0; i < got.size(); i++) EXPECT_EQ(got[i], want_lin[i]);
  CHECK(cudaDestroyTextureObject(tp));
  CHECK(cudaDestroyTextureObject(tl));
  CHECK(cudaFreeArray(a));

  // 1-D layered: 16 texels, 5 layers.
  const int n1 = 16, L1 = 5;
  std::vector<float> v1(n1 * L1);
  for (int l = 0; l < L1; l++)
    for (int x = 0; x < n1; x++) v1[l * n1 + x] = l * 100 + x * 3;
  CHECK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(n1, 0, L1), cudaArrayLayered));
  upload3d(a, v1.data(), n1, 1, L1);
  tp = make_tex(array_res(a), cudaFilterModePoint, true, cudaAddressModeWrap);
  std::vector<float4> p1;
  std::vector<float> w1;
  for (int l = 0; l < L1; l++)
    for (int x = -3; x < n1 + 3; x++) {
      // Normalised coordinates with wrap: x = -3 reads texel 13.
      p1.push_back(make_float4((x + 0.5f) / n1, 0, l, 0));
      w1.push_back(v1[l * n1 + ((x % n1) + n1) % n1]);
    }
  float4 *d1 = to_device(p1);
  got = run_points(k_layered1d, p1.size(), tp, d1);
  for (size_t i = 0; i < got.size(); i++) EXPECT_EQ(got[i], w1[i]);
  CHECK(cudaDestroyTextureObject(tp));
  CHECK(cudaFreeArray(a));
}

// The direction that reaches texel (i, j) of face f of a w x w cubemap: the guide's table
// (face f is +x, -x, +y, -y, +z, -z; s = (sc / |ma| + 1) / 2, t = (tc / |ma| + 1) / 2 with
// (sc, tc, ma) = (-z, -y, x), (z, -y, x), (x, z, y), (x, -z, y), (x, -y, z), (-x, -y, z))
// solved for the direction, scaled by 3 so the divide matters.
static float4 aim(int f, int i, int j, int w) {
  float sc = 2.0f * (i + 0.5f) / w - 1.0f, tc = 2.0f * (j + 0.5f) / w - 1.0f;
  float x, y, z;
  switch (f) {
  case 0: x = 1, y = -tc, z = -sc; break;
  case 1: x = -1, y = -tc, z = sc; break;
  case 2: x = sc, y = 1, z = tc; break;
  case 3: x = sc, y = -1, z = -tc; break;
  case 4: x = sc, y = -tc, z = 1; break;
  default: x = -sc, y = -tc, z = -1; break;
  }
  return make_float4(3 * x, 3 * y, 3 * z, 0);
}

static void cubemaps() {
  const int w = 4;
  for (int cubes = 0; cubes <= 2; cubes += 2) {
    int layers = cubes ? 6 * cubes : 6;
    std::vector<float> v(w * w * layers);
    for (int l = 0; l < layers; l++)
      for (int j = 0; j < w; j++)
        for (int i = 0; i < w; i++) v[(l * w + j) * w + i] = l * 100 + j * 10 + i;
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    unsigned flags = cudaArrayCubemap | (cubes ? cudaArrayLayered : 0);
    CHECK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(w, w, layers), flags));
    upload3d(a, v.data(), w, w, layers);
    cudaTextureObject_t t = make_tex(array_res(a), cudaFilterModePoint, true, cudaAddressModeClamp);
    std::vector<float4> pts;
    std::vector<int> cube;
    std::vector<float> want;
    for (int c = 0; c < (cubes ? cubes : 1); c++)
      for (int f = 0; f < 6; f++)
        for (int j = 0; j < w; j++)
          for (int i = 0; i < w; i++) {
            pts.push_back(aim(f, i, j, w));
            cube.push_back(c);
            want.push_back(v[((c * 6 + f) * w + j) * w + i]);
          }
    float4 *dp = to_device(pts);
    std::vector<float> got;
    if (cubes) {
      int *dc = to_device(cube);
      got = run_points(k_cube_layered, pts.size(), t, dp, dc);
    } else {
      got = run_points(k_cube, pts.size(), t, dp);
    }
    for (size_t i = 0; i < got.size(); i++)
      EXPECT_MSG(got[i] == want[i], "cube%s point %zu (%g %g %g): got %g want %g",
                 cubes ? " array" : "", i, pts[i].x, pts[i].y, pts[i].z, got[i], want[i]);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));
  }
}

static void mipmaps() {
  // 16 x 16 base, 5 levels; texel (x, y) of level k holds 1000 k + 16 y + x.
  const int base = 16, levels = 5;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m;
  CHECK(cudaMallocMipmappedArray(&m, &cf, make_cudaExtent(base, base, 0), levels));
  for (int k = 0; k < levels; k++) {
    int s = base >> k;
    std::vector<float> v(s * s);
    for (int y = 0; y < s; y++)
      for (int x = 0; x < s; x++) v[y * s + x] = 1000 * k + 16 * y + x;
    cudaArray_t lv;
    CHECK(cudaGetMipmappedArrayLevel(&lv, m, k));
    cudaExtent e;
    cudaChannelFormatDesc got_cf;
    unsigned fl;
    CHECK(cudaArrayGetInfo(&got_cf, &e, &fl, lv));
    EXPECT_EQ((int)e.width, s);
    CHECK(cudaMemcpy2DToArray(lv, 0, 0, v.data(), s * 4, s * 4, s, cudaMemcpyHostToDevice));
  }
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = m;
  auto texel = [&](int k, float u, float v) {
    int s = base >> k;
    int x = clampi((int)floorf(u * s), 0, s - 1), y = clampi((int)floorf(v * s), 0, s - 1);
    return 1000.0f * k + 16 * y + x;
  };
  const float u = 0.3f, v = 0.7f;
  // Point mipmap filtering: the nearest level, clamped to [min, max] after the bias.
  struct Case {
    float lod, max_level, min_level, bias;
    int level;
  } cases[] = {
      {0, 4, 0, 0, 0},   {1, 4, 0, 0, 1},   {2, 4, 0, 0, 2},  {3, 4, 0, 0, 3},
      {4, 4, 0, 0, 4},   {0.4f, 4, 0, 0, 0}, {1.6f, 4, 0, 0, 2}, {7, 4, 0, 0, 4},
      {-2, 4, 0, 0, 0},  {3, 2, 0, 0, 2},   {0, 4, 1, 0, 1},  {1, 4, 0, 1, 2},
      {2.3f, 4, 0, -1, 1}, {0, 0, 0, 0, 0},
  };
  for (auto &c : cases) {
    cudaTextureObject_t t = make_tex(rd, cudaFilterModePoint, true, cudaAddressModeClamp,
                                     cudaFilterModePoint, c.max_level, c.min_level, c.bias);
    std::vector<float4> p = {make_float4(u, v, c.lod, 0)};
    float4 *dp = to_device(p);
    float got = run_points(k_lod, 1, t, dp)[0];
    EXPECT_MSG(got == texel(c.level, u, v), "lod %g (clamp %g..%g, bias %g): got %g want %g",
               c.lod, c.min_level, c.max_level, c.bias, got, texel(c.level, u, v));
    CHECK(cudaDestroyTextureObject(t));
  }
  // Linear mipmap filtering: lod 1.25 is 3/4 of level 1 and 1/4 of level 2.
  cudaTextureObject_t t = make_tex(rd, cudaFilterModePoint, true, cudaAddressModeClamp,
                                   cudaFilterModeLinear, 4);
  std::vector<float4> p = {make_float4(u, v, 1.25f, 0), make_float4(u, v, 3.5f, 0)};
  float4 *dp = to_device(p);
  std::vector<float> got = run_points(k_lod, 2, t, dp);
  EXPECT_EQ(got[0], 0.75f * texel(1, u, v) + 0.25f * texel(2, u, v));
  EXPECT_EQ(got[1], 0.5f * texel(3, u, v) + 0.5f * texel(4, u, v));
  CHECK(cudaDestroyTextureObject(t));
  // Gradients: rho = 2^k texels of level 0 picks level k; the longer of the two vectors wins.
  t = make_tex(rd, cudaFilterModePoint, true, cudaAddressModeClamp, cudaFilterModePoint, 4);
  std::vector<float4> g, q;
  std::vector<float> want;
  for (int k = 0; k < levels; k++) {
    float d = (float)(1 << k) / base;
    q.push_back(make_float4(u, v, 0, 0));
    g.push_back(make_float4(d, 0, 0, d / 2));
    want.push_back(texel(k, u, v));
    // dP/dy longer: (3/5, 4/5) * d has length d.
    q.push_back(make_float4(v, u, 0, 0));
    g.push_back(make_float4(0, d / 4, 0.6f * d, 0.8f * d));
    want.push_back(texel(k, v, u));
  }
  float4 *dq = to_device(q), *dg = to_device(g);
  got = run_points(k_grad, q.size(), t, dq, dg);
  for (size_t i = 0; i < got.size(); i++)
    EXPECT_MSG(got[i] == want[i], "grad case %zu: got %g want %g", i, got[i], want[i]);
  // txq on the mipmapped texture.
  int *dq_out, qv[11];
  CHECK(cudaMalloc(&dq_out, sizeof qv));
  k_txq<<<1, 1>>>(t, dq_out);
  CHECK(cudaMemcpy(qv, dq_out, sizeof qv, cudaMemcpyDeviceToHost));
  // width, height, levels, width of level 2, normalized, array size, point (0), clamp (the
  // ISA's clamp_to_edge, 3) twice, and the channel data type and order in OpenCL's enumerations
  // (the only ones the ISA names, 5.3.3): CL_FLOAT, CL_R.
  int want_q[11] = {16, 16, 5, 4, 1, 0, 0, 3, 3, 0x10DE, 0x10B0};
  for (int k = 0; k < 11; k++) EXPECT_MSG(qv[k] == want_q[k], "txq %d: got %d want %d", k, qv[k], want_q[k]);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeMipmappedArray(m));
}

// Bilinear filtering of a w x h float image with clamp at normalised (u, v): the guide's
// formula with the hardware's weights (corner_weights; the texels are small integers, so the
// float sum is exact).
static float bilinear(const std::vector<float> &img, int w, int h, float u, float v) {
  int i, j, wt[3] = {0, 0, 0}, cw[8];
  linear_axis(u * w, w, &i, &wt[0]);
  linear_axis(v * h, h, &j, &wt[1]);
  corner_weights(wt, 2, cw);
  auto T = [&](int xi, int yi) { return img[clampi(yi, 0, h - 1) * w + clampi(xi, 0, w - 1)]; };
  float s = 0;
  for (int k = 0; k < 4; k++) s += cw[k] / 256.0f * T(i + (k & 1), j + (k >> 1 & 1));
  return s;
}

static void image_scaling() {
  const int w = 13, h = 9, ow = 20, oh = 14;
  std::vector<float> img(w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) img[y * w + x] = (x * 37 + y * 91) % 251;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CHECK(cudaMallocArray(&a, &cf, w, h));
  CHECK(cudaMemcpy2DToArray(a, 0, 0, img.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
  cudaTextureObject_t t = make_tex(array_res(a), cudaFilterModeLinear, true, cudaAddressModeClamp);
  float *out;
  CHECK(cudaMalloc(&out, ow * oh * 4));
  k_scale<<<dim3(1, oh), 32>>>(t, out, ow, oh);
  std::vector<float> got(ow * oh);
  CHECK(cudaMemcpy(got.data(), out, ow * oh * 4, cudaMemcpyDeviceToHost));
  for (int y = 0; y < oh; y++)
    for (int x = 0; x < ow; x++) {
      float want = bilinear(img, w, h, (x + 0.5f) / ow, (y + 0.5f) / oh);
      EXPECT_MSG(got[y * ow + x] == want, "scaled (%d, %d): got %g want %g", x, y,
                 got[y * ow + x], want);
    }
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));
  CHECK(cudaFree(out));
}

static void convolution() {
  // Rows through an array texture, columns through a pitched-memory texture.
  const int w = 29, h = 11;
  std::vector<float> img(w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) img[y * w + x] = (x * 7 + y * 13) % 17;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CHECK(cudaMallocArray(&a, &cf, w, h));
  CHECK(cudaMemcpy2DToArray(a, 0, 0, img.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
  cudaTextureObject_t t1 = make_tex(array_res(a), cudaFilterModePoint, false, cudaAddressModeClamp);
  float *mid, *out;
  size_t pitch;
  CHECK(cudaMallocPitch(&mid, &pitch, w * 4, h));
  CHECK(cudaMalloc(&out, w * h * 4));
  float *rows;
  CHECK(cudaMalloc(&rows, w * h * 4));
  k_conv<<<dim3(1, h), 32>>>(t1, rows, w, h, 1, 0);
  CHECK(cudaMemcpy2D(mid, pitch, rows, w * 4, w * 4, h, cudaMemcpyDeviceToDevice));
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypePitch2D;
  rd.res.pitch2D.devPtr = mid;
  rd.res.pitch2D.desc = cf;
  rd.res.pitch2D.width = w;
  rd.res.pitch2D.height = h;
  rd.res.pitch2D.pitchInBytes = pitch;
  cudaTextureObject_t t2 = make_tex(rd, cudaFilterModePoint, false, cudaAddressModeClamp);
  k_conv<<<dim3(1, h), 32>>>(t2, out, w, h, 0, 1);
  std::vector<float> got(w * h);
  CHECK(cudaMemcpy(got.data(), out, w * h * 4, cudaMemcpyDeviceToHost));
  const float k[5] = {1, 4, 6, 4, 1};
  std::vector<float> r(w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float s = 0;
      for (int j = -2; j <= 2; j++) s += k[j + 2] * img[y * w + clampi(x + j, 0, w - 1)];
      r[y * w + x] = s;
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float s = 0;
      for (int j = -2; j <= 2; j++) s += k[j + 2] * r[clampi(y + j, 0, h - 1) * w + x];
      EXPECT_MSG(got[y * w + x] == s, "conv (%d, %d): got %g want %g", x, y, got[y * w + x], s);
    }
  CHECK(cudaDestroyTextureObject(t1));
  CHECK(cudaDestroyTextureObject(t2));
  CHECK(cudaFreeArray(a));
}

static void volume() {
  const int n = 6;
  std::vector<float> vol(n * n * n);
  for (int z = 0; z < n; z++)
    for (int y = 0; y < n; y++)
      for (int x = 0; x < n; x++) vol[(z * n + y) * n + x] = (x * 5 + y * 11 + z * 3) % 23;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CHECK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(n, n, n)));
  upload3d(a, vol.data(), n, n, n);
  cudaTextureObject_t t = make_tex(array_res(a), cudaFilterModeLinear, false, cudaAddressModeClamp);
  std::vector<float4> pts;
  std::vector<float> want;
  for (int k = 0; k < 40; k++) {
    // Fractions in 1/32 steps, so the 8-bit axis weights are exact.
    float x = (k * 7 % (n * 32)) / 32.0f, y = (k * 13 % (n * 32)) / 32.0f,
          z = (k * 29 % (n * 32)) / 32.0f;
    pts.push_back(make_float4(x, y, z, 0));
    int i, j, l, wt[3], cw[8];
    linear_axis(x, n, &i, &wt[0]);
    linear_axis(y, n, &j, &wt[1]);
    linear_axis(z, n, &l, &wt[2]);
    corner_weights(wt, 3, cw);
    auto T = [&](int xi, int yi, int zi) {
      return vol[(clampi(zi, 0, n - 1) * n + clampi(yi, 0, n - 1)) * n + clampi(xi, 0, n - 1)];
    };
    float s = 0;
    for (int k = 0; k < 8; k++) s += cw[k] / 256.0f * T(i + (k & 1), j + (k >> 1 & 1), l + (k >> 2));
    want.push_back(s);
  }
  float4 *dp = to_device(pts);
  std::vector<float> got = run_points(k_3d, pts.size(), t, dp);
  for (size_t i = 0; i < got.size(); i++)
    EXPECT_MSG(got[i] == want[i], "trilinear %zu (%g %g %g): got %g want %g", i, pts[i].x,
               pts[i].y, pts[i].z, got[i], want[i]);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));
}

// The sRGB standard's decoding curve, rounded to half precision.
static float srgb(float c) {
  float l = c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
  return __half2float(__float2half_rn(l));
}

static void srgb_and_residency() {
  const int w = 32;
  std::vector<uchar4> px(w);
  for (int i = 0; i < w; i++) px[i] = make_uchar4(i * 8, 255 - i * 8, i * 3 + 5, i * 7);
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a;
  CHECK(cudaMallocArray(&a, &cf, w, 1));
  CHECK(cudaMemcpy2DToArray(a, 0, 0, px.data(), w * 4, w * 4, 1, cudaMemcpyHostToDevice));
  cudaTextureObject_t t = make_tex(array_res(a), cudaFilterModePoint, false, cudaAddressModeClamp,
                                   cudaFilterModePoint, 0, 0, 0, true);
  float4 *out;
  int *res;
  CHECK(cudaMalloc(&out, w * sizeof(float4)));
  CHECK(cudaMalloc(&res, w * sizeof(int)));
  k_rgba<<<1, w>>>(t, out, w, res);
  std::vector<float4> got(w);
  std::vector<int> resident(w);
  CHECK(cudaMemcpy(got.data(), out, w * sizeof(float4), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(resident.data(), res, w * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < w; i++) {
    // The curve's value in half precision (an H100 returns that for point fetches:
    // scripts/ground-truth/results/tex2-h100.txt).
    EXPECT_EQ(got[i].x, srgb(px[i].x / 255.0f));
    EXPECT_EQ(got[i].y, srgb(px[i].y / 255.0f));
    EXPECT_EQ(got[i].z, srgb(px[i].z / 255.0f));
    // Alpha is linear.
    EXPECT_EQ(got[i].w, px[i].w / 255.0f);
    EXPECT_EQ(resident[i], 1);
  }
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeArray(a));
}

static void ptx_forms() {
  // A 6 x 4 float image, value 10 y + x, and a 2-layer 4 x 4 layered one, 100 l + 10 y + x.
  std::vector<float> img(24), lay(32);
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 6; x++) img[y * 6 + x] = 10 * y + x;
  for (int l = 0; l < 2; l++)
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 4; x++) lay[(l * 4 + y) * 4 + x] = 100 * l + 10 * y + x;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t a, b;
  CHECK(cudaMallocArray(&a, &cf, 6, 4));
  CHECK(cudaMemcpy2DToArray(a, 0, 0, img.data(), 24, 24, 4, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc3DArray(&b, &cf, make_cudaExtent(4, 4, 2), cudaArrayLayered));
  upload3d(b, lay.data(), 4, 4, 2);
  cudaTextureObject_t ta = make_tex(array_res(a), cudaFilterModePoint, false, cudaAddressModeClamp);
  cudaTextureObject_t tb = make_tex(array_res(b), cudaFilterModePoint, false, cudaAddressModeClamp);
  float *out, got[7];
  CHECK(cudaMalloc(&out, sizeof got));
  k_ptx_forms<<<1, 1>>>(ta, tb, out);
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  // Offset {1, -1} from texel (2, 2): texel (3, 1).
  EXPECT_EQ(got[0], 13.0f);
  // f16 results of texel (3, 1): red 13, alpha 0 (a missing channel reads 0, alpha too, as an
  // H200 returned: scripts/ground-truth/results/tex3-h200.txt, "f16 float" lines).
  EXPECT_EQ(got[1], 13.0f);
  EXPECT_EQ(got[2], 0.0f);
  // tld4.r of layer 1 at (2, 1): texels (1, 0), (2, 0), (1, 1), (2, 1) in the order
  // (i, j+1), (i+1, j+1), (i+1, j), (i, j) with i = 1, j = 0.
  EXPECT_EQ(got[3], 111.0f);
  EXPECT_EQ(got[4], 112.0f);
  EXPECT_EQ(got[5], 102.0f);
  EXPECT_EQ(got[6], 101.0f);
  CHECK(cudaDestroyTextureObject(ta));
  CHECK(cudaDestroyTextureObject(tb));
}

// Resource views: a layered array of 32-bit unsigned texels read as floats (the view's format
// reinterprets texels of the same size) from layer 1 on, and a mipmapped array viewed from
// level 1 (its level 0 is the array's level 1). The view comes back from the query.
static void views() {
  const int w = 4, h = 2, L = 3;
  std::vector<unsigned> bits(w * h * L);
  for (int l = 0; l < L; l++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        float v = 100.0f * l + 10 * y + x;
        memcpy(&bits[(l * h + y) * w + x], &v, 4);
      }
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<unsigned>();
  cudaArray_t a;
  CHECK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(w, h, L), cudaArrayLayered));
  upload3d(a, (const float *)bits.data(), w, h, L);
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeElementType;
  cudaResourceViewDesc vd;
  memset(&vd, 0, sizeof vd);
  vd.format = cudaResViewFormatFloat1;
  vd.width = w;
  vd.height = h;
  vd.depth = L;
  vd.firstLayer = 1;
  vd.lastLayer = 2;
  cudaResourceDesc rd = array_res(a);
  cudaTextureObject_t t;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, &vd));
  std::vector<float4> pts;
  std::vector<float> want;
  for (int l = 0; l < 2; l++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        pts.push_back(make_float4(x + 0.5f, y + 0.5f, l, 0));
        want.push_back(100.0f * (l + 1) + 10 * y + x);
      }
  float4 *dp = to_device(pts);
  std::vector<float> got = run_points(k_layered2d, pts.size(), t, dp);
  for (size_t i = 0; i < got.size(); i++) EXPECT_EQ(got[i], want[i]);
  cudaResourceViewDesc back;
  CHECK(cudaGetTextureObjectResourceViewDesc(&back, t));
  EXPECT(back.format == cudaResViewFormatFloat1 && back.firstLayer == 1 && back.lastLayer == 2);
  CHECK(cudaDestroyTextureObject(t));
  // A view whose texels differ in size from the array's is refused.
  vd.format = cudaResViewFormatFloat2;
  EXPECT(cudaCreateTextureObject(&t, &rd, &td, &vd) == cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaFreeArray(a));

  // Mipmapped: 8 x 8 with 4 levels, level k holding 1000 k + 8 y + x; the view starts at 1.
  cudaChannelFormatDesc ff = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m;
  CHECK(cudaMallocMipmappedArray(&m, &ff, make_cudaExtent(8, 8, 0), 4));
  for (int k = 0; k < 4; k++) {
    int s = 8 >> k;
    std::vector<float> v(s * s);
    for (int y = 0; y < s; y++)
      for (int x = 0; x < s; x++) v[y * s + x] = 1000.0f * k + 8 * y + x;
    cudaArray_t lv;
    CHECK(cudaGetMipmappedArrayLevel(&lv, m, k));
    CHECK(cudaMemcpy2DToArray(lv, 0, 0, v.data(), s * 4, s * 4, s, cudaMemcpyHostToDevice));
  }
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = m;
  memset(&vd, 0, sizeof vd);
  vd.format = cudaResViewFormatNone;
  vd.width = 8;
  vd.height = 8;
  vd.firstMipmapLevel = 1;
  vd.lastMipmapLevel = 3;
  td.normalizedCoords = 1;
  td.maxMipmapLevelClamp = 2;
  CHECK(cudaCreateTextureObject(&t, &rd, &td, &vd));
  // Level 0 of the view is the 4 x 4 level; lod 2 of the view is the 1 x 1 level (3000).
  std::vector<float4> p = {make_float4(0.6f, 0.3f, 0, 0), make_float4(0.6f, 0.3f, 2, 0)};
  dp = to_device(p);
  got = run_points(k_lod, 2, t, dp);
  EXPECT_EQ(got[0], 1000.0f + 8 * 1 + 2);
  EXPECT_EQ(got[1], 3000.0f);
  CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFreeMipmappedArray(m));
}

int main() {
  layered();
  cubemaps();
  mipmaps();
  image_scaling();
  convolution();
  volume();
  srgb_and_residency();
  ptx_forms();
  views();
  CHECK(cudaDeviceSynchronize());
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures == 0 ? 0 : 1;
}
