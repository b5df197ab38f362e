// Block-compressed resource views: a 32-bit unsigned array of 2 (BC1, BC4) or 4 (the other
// formats) channels, one element per 4 x 4 block, read through a texture object whose
// resource view names a block-compressed format and gives the extent in texels (four times
// the array's, as cudaCreateTextureObject / cuTexObjectCreate document). Every texel, point
// sampled (the runtime refuses linear filtering and normalised reads of the views, judging
// them by their arrays' integers), must equal that of a block-compressed array holding the
// same blocks (whose decoding tests/textures.rs compares with an H200); and off the texel
// centres too. A view of the wrong extent or over an array of the wrong channel count is
// refused (cudaErrorInvalidValue).
#include "check.h"
#include <cstring>

__global__ void read(cudaTextureObject_t t, const float2 *at, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, at[i].x, at[i].y);
}

static unsigned long long rng = 0x2545f4914f6cdd1dull;
static unsigned char next_byte() {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned char)(rng >> 56);
}

// Block-compressed arrays read as normalised floats but BC6H, whose halves read as they are;
// the views as elements (the runtime refuses the other read mode of each, judging a view by
// its array's 32-bit integers: cudaErrorInvalidNormSetting).
static cudaTextureObject_t texture(cudaArray_t a, const cudaResourceViewDesc *view,
                                   bool linear, bool half, cudaError_t *err) {
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.readMode = half ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
  cudaTextureObject_t t = 0;
  *err = cudaCreateTextureObject(&t, &rd, &td, view);
  return t;
}

int main() {
  struct F {
    const char *name;
    cudaChannelFormatKind kind;
    cudaResourceViewFormat view;
    int block, channels, bits;
  } fs[] = {
      {"bc1", cudaChannelFormatKindUnsignedBlockCompressed1,
       cudaResViewFormatUnsignedBlockCompressed1, 8, 4, 8},
      {"bc4s", cudaChannelFormatKindSignedBlockCompressed4,
       cudaResViewFormatSignedBlockCompressed4, 8, 1, 8},
      {"bc5", cudaChannelFormatKindUnsignedBlockCompressed5,
       cudaResViewFormatUnsignedBlockCompressed5, 16, 2, 8},
      {"bc6h", cudaChannelFormatKindUnsignedBlockCompressed6H,
       cudaResViewFormatUnsignedBlockCompressed6H, 16, 3, 16},
      {"bc7", cudaChannelFormatKindUnsignedBlockCompressed7,
       cudaResViewFormatUnsignedBlockCompressed7, 16, 4, 8},
  };
  const int W = 16, B = W / 4, NP = W * W + 16;
  static float2 at[NP];
  for (int y = 0; y < W; y++)
    for (int x = 0; x < W; x++) at[y * W + x] = make_float2(x + 0.5f, y + 0.5f);
  for (int i = 0; i < 16; i++) at[W * W + i] = make_float2(3.3f + 0.6f * i, 7.9f - 0.3f * i);
  float2 *dat;
  float4 *dout;
  CHECK(cudaMalloc(&dat, sizeof at));
  CHECK(cudaMalloc(&dout, NP * sizeof(float4)));
  CHECK(cudaMemcpy(dat, at, sizeof at, cudaMemcpyHostToDevice));
  static float4 want[NP], got[NP];
  for (auto &f : fs) {
    unsigned char blocks[B * B * 16];
    for (int i = 0; i < B * B * f.block; i++) blocks[i] = next_byte();
    int c = f.channels, b = f.bits;
    cudaChannelFormatDesc cf =
        cudaCreateChannelDesc(b, c > 1 ? b : 0, c > 2 ? b : 0, c > 3 ? b : 0, f.kind);
    cudaArray_t bc, words, wrong;
    CHECK(cudaMallocArray(&bc, &cf, W, W));
    CHECK(cudaMemcpy2DToArray(bc, 0, 0, blocks, B * f.block, B * f.block, B,
                              cudaMemcpyHostToDevice));
    int n = f.block / 4;  // 32-bit channels per block
    cudaChannelFormatDesc uf = cudaCreateChannelDesc(32, 32, n > 2 ? 32 : 0, n > 2 ? 32 : 0,
                                                     cudaChannelFormatKindUnsigned);
    cudaChannelFormatDesc other = cudaCreateChannelDesc(32, 32, n > 2 ? 0 : 32, n > 2 ? 0 : 32,
                                                        cudaChannelFormatKindUnsigned);
    CHECK(cudaMallocArray(&words, &uf, B, B));
    CHECK(cudaMallocArray(&wrong, &other, B, B));
    CHECK(cudaMemcpy2DToArray(words, 0, 0, blocks, B * f.block, B * f.block, B,
                              cudaMemcpyHostToDevice));
    cudaResourceViewDesc view = {};
    view.format = f.view;
    view.width = W;
    view.height = W;
    {
      cudaError_t e;
      cudaTextureObject_t ta = texture(bc, nullptr, false, f.bits == 16, &e);
      CHECK(e);
      cudaTextureObject_t tv = texture(words, &view, false, true, &e);
      CHECK(e);
      read<<<(NP + 127) / 128, 128>>>(ta, dat, dout, NP);
      CHECK(cudaMemcpy(want, dout, sizeof want, cudaMemcpyDeviceToHost));
      read<<<(NP + 127) / 128, 128>>>(tv, dat, dout, NP);
      CHECK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
      for (int i = 0; i < NP; i++)
        EXPECT_MSG(!memcmp(&want[i], &got[i], sizeof(float4)),
                   "%s (%g, %g): view (%a %a %a %a), array (%a %a %a %a)", f.name, at[i].x,
                   at[i].y, got[i].x, got[i].y, got[i].z, got[i].w, want[i].x, want[i].y,
                   want[i].z, want[i].w);
      CHECK(cudaDestroyTextureObject(ta));
      CHECK(cudaDestroyTextureObject(tv));
    }
    // The array's extent instead of four times it, and the other channel count.
    cudaError_t e;
    cudaResourceViewDesc small = view;
    small.width = B;
    small.height = B;
    texture(words, &small, false, true, &e);
    EXPECT_MSG(e == cudaErrorInvalidValue, "%s view of the array's extent: %s", f.name,
               cudaGetErrorName(e));
    texture(wrong, &view, false, true, &e);
    EXPECT_MSG(e == cudaErrorInvalidValue, "%s view of %d channels: %s", f.name, 6 - n,
               cudaGetErrorName(e));
    cudaGetLastError();
    CHECK(cudaFreeArray(bc));
    CHECK(cudaFreeArray(words));
    CHECK(cudaFreeArray(wrong));
  }
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures == 0 ? 0 : 1;
}
