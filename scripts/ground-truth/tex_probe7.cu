// Ground-truth probe, part 7 of the texture unit: what the earlier probes left open.
// - Seamless cubemap filtering (cudaTextureDesc::seamlessCubemap): a 4 x 4 float cubemap whose
//   texel (face f, x, y) holds 16 f + 4 y + x + 1, read with linear filtering at directions
//   whose face coordinates (s, t) run over [0, 1] in quarter texels, seamless and not, and with
//   point filtering seamless; then impulse cubemaps (one texel of 1.0, the rest 0: each corner
//   texel of faces 0 and 2) read over the same directions, printing the non-zero results.
// - What an integer texture of one or two channels returns in the missing channels when read
//   as integers (tex2D<int4>/<uint4>) and as normalised floats.
// - Block-compressed formats BC1 to BC7: 16 x 16 texels of pseudo-random blocks, every texel
//   read with point filtering, then a few positions with linear filtering.
// Every line: the inputs and the result as hex floats (or integers). Errors are printed.
// Build: nvcc -arch=sm_90 -o tex_probe7 tex_probe7.cu; run: tex_probe7 cube|missing|bc
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_) printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_));      \
  } while (0)

static unsigned hexf(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}

// ---- seamless cubemaps ----
__global__ void cube(cudaTextureObject_t t, const float4* dir, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, dir[i].x, dir[i].y, dir[i].z);
}

static const int CN = 4;
// The direction of face f's point (s, t) in [0, 1]^2 (the Programming Guide's cubemap table
// read backwards).
static float4 direction(int f, float s, float t) {
  float a = 2 * s - 1, b = 2 * t - 1;
  switch (f) {
    case 0: return make_float4(1, -b, -a, 0);
    case 1: return make_float4(-1, -b, a, 0);
    case 2: return make_float4(a, 1, b, 0);
    case 3: return make_float4(a, -1, -b, 0);
    case 4: return make_float4(a, -b, 1, 0);
    default: return make_float4(-a, -b, -1, 0);
  }
}

static cudaTextureObject_t cubemap(const float* v, int linear, int seamless) {
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(CN, CN, 6), cudaArrayCubemap));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr((void*)v, CN * 4, CN, CN);
  p.dstArray = a;
  p.extent = make_cudaExtent(CN, CN, 6);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  td.seamlessCubemap = seamless;
  cudaTextureObject_t t = 0;
  CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static void seamless_part() {
  const int K = 17, n = 6 * K * K;
  static float4 dirs[n];
  static int face[n], ks[n], kt[n];
  int m = 0;
  for (int f = 0; f < 6; f++)
    for (int j = 0; j < K; j++)
      for (int i = 0; i < K; i++) {
        dirs[m] = direction(f, i / 16.0f, j / 16.0f);
        face[m] = f, ks[m] = i, kt[m] = j;
        m++;
      }
  float4* dd;
  float* dout;
  CK(cudaMalloc(&dd, n * sizeof(float4)));
  CK(cudaMalloc(&dout, n * 4));
  CK(cudaMemcpy(dd, dirs, n * sizeof(float4), cudaMemcpyHostToDevice));
  static float res[n];
  static float v[6 * CN * CN];
  for (int f = 0; f < 6; f++)
    for (int y = 0; y < CN; y++)
      for (int x = 0; x < CN; x++) v[(f * CN + y) * CN + x] = 16 * f + 4 * y + x + 1;
  const char* names[3] = {"linear-seamless", "linear-plain", "point-seamless"};
  int modes[3][2] = {{1, 1}, {1, 0}, {0, 1}};
  for (int c = 0; c < 3; c++) {
    cudaTextureObject_t t = cubemap(v, modes[c][0], modes[c][1]);
    if (!t) continue;
    cube<<<(n + 127) / 128, 128>>>(t, dd, dout, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(res, dout, n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
      printf("cube %s f%d s%d t%d %08x %08x %08x %08x\n", names[c], face[i], ks[i], kt[i],
             hexf(dirs[i].x), hexf(dirs[i].y), hexf(dirs[i].z), hexf(res[i]));
  }
  // Impulses at the corner texels of faces 0 and 2.
  for (int f = 0; f <= 2; f += 2)
    for (int corner = 0; corner < 4; corner++) {
      int x = (corner & 1) ? CN - 1 : 0, y = (corner & 2) ? CN - 1 : 0;
      memset(v, 0, sizeof v);
      v[(f * CN + y) * CN + x] = 1;
      cudaTextureObject_t t = cubemap(v, 1, 1);
      if (!t) continue;
      cube<<<(n + 127) / 128, 128>>>(t, dd, dout, n);
      CK(cudaGetLastError());
      CK(cudaMemcpy(res, dout, n * 4, cudaMemcpyDeviceToHost));
      for (int i = 0; i < n; i++)
        if (res[i] != 0)
          printf("impulse f%d x%d y%d at f%d s%d t%d %08x\n", f, x, y, face[i], ks[i], kt[i],
                 hexf(res[i]));
    }
}

// ---- missing channels of integer textures ----
template <typename T>
__global__ void fetch4(cudaTextureObject_t t, T* out) {
  out[0] = tex2D<T>(t, 0.5f, 0.5f);
}

static cudaTextureObject_t texture2d(cudaChannelFormatDesc cf, const void* data, int bytes,
                                     cudaTextureReadMode rm, int linear = 0, int w = 1,
                                     int h = 1) {
  cudaArray_t a;
  CK(cudaMallocArray(&a, &cf, w, h));
  CK(cudaMemcpy2DToArray(a, 0, 0, data, bytes * w, bytes * w, h, cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.readMode = rm;
  cudaTextureObject_t t = 0;
  CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static void missing_part() {
  int4* di;
  float4* df;
  CK(cudaMalloc(&di, 16));
  CK(cudaMalloc(&df, 16));
  unsigned char data[8] = {200, 100, 150, 50, 10, 20, 30, 40};  // little-endian
  struct K {
    const char* name;
    int bits;
    cudaChannelFormatKind kind;
  } kinds[] = {{"u8", 8, cudaChannelFormatKindUnsigned},  {"s8", 8, cudaChannelFormatKindSigned},
               {"u16", 16, cudaChannelFormatKindUnsigned}, {"s16", 16, cudaChannelFormatKindSigned},
               {"u32", 32, cudaChannelFormatKindUnsigned}, {"s32", 32, cudaChannelFormatKindSigned},
               {"f16", 16, cudaChannelFormatKindFloat}};
  for (auto& k : kinds)
    for (int ch = 1; ch <= 2; ch++) {
      cudaChannelFormatDesc cf =
          cudaCreateChannelDesc(k.bits, ch > 1 ? k.bits : 0, 0, 0, k.kind);
      int bytes = k.bits / 8 * ch;
      if (k.kind != cudaChannelFormatKindFloat) {
        cudaTextureObject_t t = texture2d(cf, data, bytes, cudaReadModeElementType);
        fetch4<int4><<<1, 1>>>(t, di);
        CK(cudaGetLastError());
        int4 r = {};
        CK(cudaMemcpy(&r, di, 16, cudaMemcpyDeviceToHost));
        printf("missing %s x%d int %08x %08x %08x %08x\n", k.name, ch, r.x, r.y, r.z, r.w);
      }
      if (k.bits < 32) {
        cudaTextureObject_t t = texture2d(
            cf, data, bytes,
            k.kind == cudaChannelFormatKindFloat ? cudaReadModeElementType
                                                 : cudaReadModeNormalizedFloat);
        fetch4<float4><<<1, 1>>>(t, df);
        CK(cudaGetLastError());
        float4 r = {};
        CK(cudaMemcpy(&r, df, 16, cudaMemcpyDeviceToHost));
        printf("missing %s x%d float %08x %08x %08x %08x\n", k.name, ch, hexf(r.x), hexf(r.y),
               hexf(r.z), hexf(r.w));
      }
    }
}

// ---- block-compressed formats ----
__global__ void bc_read(cudaTextureObject_t t, const float2* at, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, at[i].x, at[i].y);
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static unsigned char next_byte() {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned char)(rng >> 56);
}

static void bc_part() {
  struct F {
    const char* name;
    cudaChannelFormatKind kind;
    int block;
  } fs[] = {{"bc1", cudaChannelFormatKindUnsignedBlockCompressed1, 8},
            {"bc1srgb", cudaChannelFormatKindUnsignedBlockCompressed1SRGB, 8},
            {"bc2", cudaChannelFormatKindUnsignedBlockCompressed2, 16},
            {"bc2srgb", cudaChannelFormatKindUnsignedBlockCompressed2SRGB, 16},
            {"bc3", cudaChannelFormatKindUnsignedBlockCompressed3, 16},
            {"bc3srgb", cudaChannelFormatKindUnsignedBlockCompressed3SRGB, 16},
            {"bc4", cudaChannelFormatKindUnsignedBlockCompressed4, 8},
            {"bc4s", cudaChannelFormatKindSignedBlockCompressed4, 8},
            {"bc5", cudaChannelFormatKindUnsignedBlockCompressed5, 16},
            {"bc5s", cudaChannelFormatKindSignedBlockCompressed5, 16},
            {"bc6h", cudaChannelFormatKindUnsignedBlockCompressed6H, 16},
            {"bc6hs", cudaChannelFormatKindSignedBlockCompressed6H, 16},
            {"bc7", cudaChannelFormatKindUnsignedBlockCompressed7, 16},
            {"bc7srgb", cudaChannelFormatKindUnsignedBlockCompressed7SRGB, 16}};
  const int W = 16, B = W / 4, NP = W * W + 32;
  static float2 at[NP];
  for (int y = 0; y < W; y++)
    for (int x = 0; x < W; x++) at[y * W + x] = make_float2(x + 0.5f, y + 0.5f);
  for (int i = 0; i < 32; i++)  // linear filtering: quarter-texel offsets across block edges
    at[W * W + i] = make_float2(3.0f + 0.25f * (i % 8), 3.25f + 0.5f * (i / 8));
  float2* dat;
  float4* dout;
  CK(cudaMalloc(&dat, sizeof at));
  CK(cudaMalloc(&dout, NP * 16));
  CK(cudaMemcpy(dat, at, sizeof at, cudaMemcpyHostToDevice));
  static float4 res[NP];
  for (auto& f : fs) {
    unsigned char blocks[B * B * 16];
    for (int i = 0; i < B * B * f.block; i++) blocks[i] = next_byte();
    printf("bc %s blocks", f.name);
    for (int i = 0; i < B * B * f.block; i++) printf("%s%02x", i % f.block ? "" : " ", blocks[i]);
    printf("\n");
    // The channel sizes channel_descriptor.h gives each block-compressed kind.
    int c = strstr(f.name, "bc4") ? 1 : strstr(f.name, "bc5") ? 2 : 4;
    int bits = strstr(f.name, "bc6h") ? 16 : 8;
    if (bits == 16) c = 3;
    cudaChannelFormatDesc cf =
        cudaCreateChannelDesc(bits, c > 1 ? bits : 0, c > 2 ? bits : 0, c > 3 ? bits : 0, f.kind);
    cudaArray_t a;
    cudaError_t e = cudaMallocArray(&a, &cf, W, W);
    if (e) {
      printf("bc %s malloc %s\n", f.name, cudaGetErrorName(e));
      continue;
    }
    e = cudaMemcpy2DToArray(a, 0, 0, blocks, B * f.block, B * f.block, B,
                            cudaMemcpyHostToDevice);
    if (e) {
      printf("bc %s copy-in-blocks %s\n", f.name, cudaGetErrorName(e));
      continue;
    }
    for (int pass = 0; pass < 2; pass++) {
      cudaResourceDesc rd = {};
      rd.resType = cudaResourceTypeArray;
      rd.res.array.array = a;
      cudaTextureDesc td = {};
      td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
      td.filterMode = pass ? cudaFilterModeLinear : cudaFilterModePoint;
      td.readMode = cudaReadModeNormalizedFloat;
      td.sRGB = strstr(f.name, "srgb") != nullptr;
      cudaTextureObject_t t = 0;
      e = cudaCreateTextureObject(&t, &rd, &td, nullptr);
      if (e) {
        printf("bc %s texture(normalized) %s\n", f.name, cudaGetErrorName(e));
        td.readMode = cudaReadModeElementType;
        e = cudaCreateTextureObject(&t, &rd, &td, nullptr);
        if (e) {
          printf("bc %s texture(element) %s\n", f.name, cudaGetErrorName(e));
          break;
        }
      }
      int first = pass ? W * W : 0, count = pass ? 32 : W * W;
      bc_read<<<(NP + 127) / 128, 128>>>(t, dat, dout, NP);
      CK(cudaGetLastError());
      CK(cudaMemcpy(res, dout, NP * 16, cudaMemcpyDeviceToHost));
      for (int i = first; i < first + count; i++)
        printf("bc %s %s %08x %08x %08x %08x %08x %08x\n", f.name, pass ? "linear" : "point",
               hexf(at[i].x), hexf(at[i].y), hexf(res[i].x), hexf(res[i].y), hexf(res[i].z),
               hexf(res[i].w));
    }
  }
}

// One part per process (`tex_probe7 cube|missing|bc`): a sticky error ends that part only.
int main(int argc, char** argv) {
  const char* part = argc > 1 ? argv[1] : "";
  if (!strcmp(part, "cube")) seamless_part();
  if (!strcmp(part, "missing")) missing_part();
  if (!strcmp(part, "bc")) bc_part();
  CK(cudaDeviceSynchronize());
  return 0;
}
