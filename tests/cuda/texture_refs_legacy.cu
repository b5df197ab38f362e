// Texture and surface references in the corners the ISA allows and old programs use (issue 15):
//  - indirect access: `mov.u64 r, ref` of a module-scope `.texref`/`.surfref`, then `tex`,
//    `txq`, `suld` and `suq` through the register, rebinding between launches (an H200 read
//    texel 3, the width 16, surface element 3 and the width 8 with the same bindings:
//    scripts/ground-truth/results/texref-param-h200.txt);
//  - `clamp_ogl` addressing of an independent-mode `.samplerref`, against a small model of
//    OpenGL's GL_CLAMP written here from its specification (the CUDA driver loads no module
//    with a `.samplerref`, so no GPU answer exists);
//  - `.texref`, `.samplerref` and `.surfref` kernel parameters: CUDA_ERROR_INVALID_IMAGE at
//    load, as the H200's driver answered;
//  - the pre-3.2 names cuTexRefSetAddress, cuTexRefGetAddress and cuTexRefSetAddress2D (32-bit
//    sizes and pointers; a 32-bit pointer names no device memory here) and
//    cuTexRefSetAddress2D_v2 (the parameters of _v3), called through dlsym as an old program
//    linked against them would.
// Expected values: the texels themselves and the model's arithmetic.
#include "check.h"
#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <vector>

static const char *kIndirectPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.global .texref gt;
.global .surfref gs;

// out = { tex1Dfetch(*p, n), txq.width *p, surface element n (32-bit), suq.width *q }, where
// p and q are registers holding gt's and gs's addresses.
.visible .entry indirect(.param .u64 out, .param .u32 n)
{
  .reg .b64 %rd<6>;
  .reg .b32 %r<8>;
  .reg .f32 %f<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u64 %rd2, gt;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd2, {%r1}];
  st.global.f32 [%rd1], %f1;
  txq.width.b32 %r2, [%rd2];
  st.global.u32 [%rd1+4], %r2;
  mov.u64 %rd3, gs;
  shl.b32 %r3, %r1, 2;
  suld.b.1d.b32.trap {%r4}, [%rd3, {%r3}];
  st.global.u32 [%rd1+8], %r4;
  suq.width.b32 %r5, [%rd3];
  st.global.u32 [%rd1+12], %r5;
  ret;
}
)";

static const char *kClampOglPtx = R"(
.version 8.0
.target sm_80, texmode_independent
.address_size 64
.global .texref t;
.global .samplerref lin = { addr_mode_0 = clamp_ogl, filter_mode = linear };
.global .samplerref near = { addr_mode_0 = clamp_ogl, filter_mode = nearest };

// out[2i], out[2i + 1] = the linear and nearest fetches at xs[i].
.visible .entry ogl(.param .u64 out, .param .u64 xs)
{
  .reg .b64 %rd<8>;
  .reg .b32 %r<2>;
  .reg .f32 %f<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [xs];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f5, [%rd4];
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd5, %rd1, %rd3;
  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, lin, {%f5}];
  st.global.f32 [%rd5], %f1;
  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, near, {%f5}];
  st.global.f32 [%rd5+4], %f1;
  ret;
}
)";

static const char *kPitchPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.global .texref p;

// out[y * 4 + x] = tex2D(p, x + 0.5, y + 0.5) for a 4 x 3 texture (12 threads).
.visible .entry read2d(.param .u64 out)
{
  .reg .b64 %rd<4>;
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  shr.u32 %r3, %r1, 2;
  cvt.rn.f32.u32 %f1, %r2;
  add.f32 %f1, %f1, 0f3F000000;
  cvt.rn.f32.u32 %f2, %r3;
  add.f32 %f2, %f2, 0f3F000000;
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [p, {%f1, %f2}];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f3;
  ret;
}
)";

// OpenGL's GL_CLAMP along one axis (OpenGL 4.6 compatibility profile, section 8.14.2 and
// Table 8.20): the texel coordinate u is clamped to [0, size]; NEAREST reads texel
// clamp(floor(u), 0, size - 1); LINEAR weighs i0 = floor(u - 1/2) and i0 + 1 by 1 - a and a,
// a = frac(u - 1/2), the indices -1 and size reading the border colour.
static float gl_clamp(const std::vector<float> &t, float border, double u, bool linear) {
  const long n = (long)t.size();
  u = u < 0 ? 0 : (u > n ? n : u);
  auto at = [&](long i) { return i >= 0 && i < n ? (double)t[i] : (double)border; };
  if (!linear) {
    long i = (long)std::floor(u);
    return t[i < 0 ? 0 : (i > n - 1 ? n - 1 : i)];
  }
  double i0 = std::floor(u - 0.5), a = u - 0.5 - i0;
  return (float)((1 - a) * at((long)i0) + a * at((long)i0 + 1));
}

static void indirect_access() {
  CUmodule mod;
  CU(cuModuleLoadData(&mod, kIndirectPtx));
  CUfunction f;
  CU(cuModuleGetFunction(&f, mod, "indirect"));
  CUtexref t;
  CU(cuModuleGetTexRef(&t, mod, "gt"));
  CUsurfref s;
  CU(cuModuleGetSurfRef(&s, mod, "gs"));
  // Linear memory of 16 floats 100 + i, then of 8 floats 200 + i.
  std::vector<float> a(16), b(8);
  for (int i = 0; i < 16; i++) a[i] = 100.0f + i;
  for (int i = 0; i < 8; i++) b[i] = 200.0f + i;
  CUdeviceptr da, db;
  CU(cuMemAlloc(&da, a.size() * 4));
  CU(cuMemAlloc(&db, b.size() * 4));
  CU(cuMemcpyHtoD(da, a.data(), a.size() * 4));
  CU(cuMemcpyHtoD(db, b.data(), b.size() * 4));
  CU(cuTexRefSetFormat(t, CU_AD_FORMAT_FLOAT, 1));
  size_t off = 1;
  CU(cuTexRefSetAddress(&off, t, da, a.size() * 4));
  EXPECT_EQ(off, (size_t)0);
  // A surface-capable 1-D array of 8 32-bit elements 300 + i.
  CUDA_ARRAY3D_DESCRIPTOR ad;
  memset(&ad, 0, sizeof ad);
  ad.Width = 8;
  ad.Format = CU_AD_FORMAT_UNSIGNED_INT32;
  ad.NumChannels = 1;
  ad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  CUarray arr;
  CU(cuArray3DCreate(&arr, &ad));
  unsigned words[8];
  for (int i = 0; i < 8; i++) words[i] = 300 + i;
  CU(cuMemcpyHtoA(arr, 0, words, sizeof words));
  CU(cuSurfRefSetArray(s, arr, 0));
  CUdeviceptr out;
  CU(cuMemAlloc(&out, 16));
  auto run = [&](unsigned n, unsigned got[4]) {
    void *args[] = {&out, &n};
    CU(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
    CU(cuMemcpyDtoH(got, out, 16));
  };
  unsigned got[4];
  run(3, got);
  float v;
  memcpy(&v, &got[0], 4);
  EXPECT_EQ(v, 103.0f);
  EXPECT_EQ(got[1], 16u);
  EXPECT_EQ(got[2], 303u);
  EXPECT_EQ(got[3], 8u);
  // Rebound between launches: the same variable address now reads the other memory.
  CU(cuTexRefSetAddress(&off, t, db, b.size() * 4));
  run(5, got);
  memcpy(&v, &got[0], 4);
  EXPECT_EQ(v, 205.0f);
  EXPECT_EQ(got[1], 8u);
  EXPECT_EQ(got[2], 305u);
  CU(cuMemFree(out));
  CU(cuMemFree(da));
  CU(cuMemFree(db));
  CU(cuModuleUnload(mod));
  CU(cuArrayDestroy(arr));
}

static void clamp_ogl(bool normalized) {
  CUmodule mod;
  CU(cuModuleLoadData(&mod, kClampOglPtx));
  CUfunction f;
  CU(cuModuleGetFunction(&f, mod, "ogl"));
  CUtexref t;
  CU(cuModuleGetTexRef(&t, mod, "t"));
  const std::vector<float> texels = {1, 2, 4, 8};
  const float border = 32;
  CUDA_ARRAY_DESCRIPTOR ad;
  memset(&ad, 0, sizeof ad);
  ad.Width = texels.size();
  ad.Format = CU_AD_FORMAT_FLOAT;
  ad.NumChannels = 1;
  CUarray arr;
  CU(cuArrayCreate(&arr, &ad));
  CU(cuMemcpyHtoA(arr, 0, texels.data(), texels.size() * 4));
  CU(cuTexRefSetArray(t, arr, CU_TRSA_OVERRIDE_FORMAT));
  float bc[4] = {border, border, border, border};
  CU(cuTexRefSetBorderColor(t, bc));
  CU(cuTexRefSetFlags(t, normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0));
  // Texel coordinates whose linear weights are quarters (exact in the 1/256 steps of the
  // texture unit), inside, at and beyond both edges.
  const double xs[] = {-2, -0.25, 0, 0.25, 0.5, 0.75, 1.5, 2.25, 3.25, 3.5, 3.75, 4, 4.75, 7};
  const int n = sizeof xs / sizeof xs[0];
  std::vector<float> coords(n);
  for (int i = 0; i < n; i++) coords[i] = (float)(normalized ? xs[i] / texels.size() : xs[i]);
  CUdeviceptr dxs, out;
  CU(cuMemAlloc(&dxs, n * 4));
  CU(cuMemAlloc(&out, n * 8));
  CU(cuMemcpyHtoD(dxs, coords.data(), n * 4));
  void *args[] = {&out, &dxs};
  CU(cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, nullptr, args, nullptr));
  std::vector<float> got(2 * n);
  CU(cuMemcpyDtoH(got.data(), out, n * 8));
  for (int i = 0; i < n; i++) {
    float lin = gl_clamp(texels, border, xs[i], true), near = gl_clamp(texels, border, xs[i], false);
    EXPECT_MSG(got[2 * i] == lin, "linear at %g texels (normalized %d): %g, want %g", xs[i],
               normalized, got[2 * i], lin);
    EXPECT_MSG(got[2 * i + 1] == near, "nearest at %g texels (normalized %d): %g, want %g",
               xs[i], normalized, got[2 * i + 1], near);
  }
  // By hand: at the left edge half border, half texel 0; at the right edge half texel 3.
  EXPECT_EQ(gl_clamp(texels, border, 0, true), 16.5f);
  EXPECT_EQ(gl_clamp(texels, border, 4, true), 20.0f);
  CU(cuMemFree(dxs));
  CU(cuMemFree(out));
  CU(cuModuleUnload(mod));
  CU(cuArrayDestroy(arr));
}

static void opaque_parameters_are_refused() {
  const char *ptx[] = {
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".visible .entry k(.param .u64 out, .param .texref t)\n"
      "{ .reg .b32 %r<2>; txq.width.b32 %r1, [t]; ret; }\n",
      ".version 8.0\n.target sm_80, texmode_independent\n.address_size 64\n"
      ".global .texref gt;\n"
      ".visible .entry k(.param .samplerref s)\n"
      "{ .reg .f32 %f<6>; tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [gt, s, {%f5}]; ret; }\n",
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".visible .entry k(.param .surfref s, .param .u32 n)\n"
      "{ .reg .b32 %r<2>; suq.width.b32 %r1, [s]; ret; }\n",
  };
  for (const char *p : ptx) {
    CUmodule m = nullptr;
    EXPECT_EQ(cuModuleLoadData(&m, p), CUDA_ERROR_INVALID_IMAGE);
  }
}

// The pre-3.2 declarations (cuda.h, under __CUDA_API_VERSION_INTERNAL).
typedef unsigned int DevPtr32;
struct ArrayDescriptorV1 {
  unsigned int Width, Height;
  CUarray_format Format;
  unsigned int NumChannels;
};
typedef CUresult (*SetAddressV1)(unsigned int *, CUtexref, DevPtr32, unsigned int);
typedef CUresult (*GetAddressV1)(DevPtr32 *, CUtexref);
typedef CUresult (*SetAddress2DV1)(CUtexref, const ArrayDescriptorV1 *, DevPtr32, unsigned int);
typedef CUresult (*SetAddress2DV2)(CUtexref, const CUDA_ARRAY_DESCRIPTOR *, CUdeviceptr, size_t);

static void pre_3_2_names() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(lib);
  auto set1 = (SetAddressV1)dlsym(lib, "cuTexRefSetAddress");
  auto get1 = (GetAddressV1)dlsym(lib, "cuTexRefGetAddress");
  auto set2d1 = (SetAddress2DV1)dlsym(lib, "cuTexRefSetAddress2D");
  auto set2d2 = (SetAddress2DV2)dlsym(lib, "cuTexRefSetAddress2D_v2");
  REQUIRE(set1 && get1 && set2d1 && set2d2);
  CUmodule mod;
  CU(cuModuleLoadData(&mod, kPitchPtx));
  CUfunction f;
  CU(cuModuleGetFunction(&f, mod, "read2d"));
  CUtexref t;
  CU(cuModuleGetTexRef(&t, mod, "p"));
  // Unbound: no address to report.
  DevPtr32 p32 = 7;
  EXPECT_EQ(get1(&p32, t), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(get1(nullptr, t), CUDA_ERROR_INVALID_VALUE);
  // A 32-bit pointer names no device memory here (device memory lies above 4 GiB).
  unsigned int off = 9;
  EXPECT_EQ(set1(&off, t, 0x1000, 64), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(off, 9u);
  ArrayDescriptorV1 d1 = {4, 3, CU_AD_FORMAT_FLOAT, 1};
  EXPECT_EQ(set2d1(t, &d1, 0x1000, 64), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(set2d1(t, nullptr, 0x1000, 64), CUDA_ERROR_INVALID_VALUE);
  // _v2 takes the 64-bit arguments: a pitched 4 x 3 float image, value 10 y + x.
  CUdeviceptr img;
  size_t pitch;
  CU(cuMemAllocPitch(&img, &pitch, 4 * 4, 3, 4));
  float host[12];
  for (int i = 0; i < 12; i++) host[i] = 10.0f * (i / 4) + (i % 4);
  CUDA_MEMCPY2D cp;
  memset(&cp, 0, sizeof cp);
  cp.srcMemoryType = CU_MEMORYTYPE_HOST;
  cp.srcHost = host;
  cp.srcPitch = 16;
  cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.dstDevice = img;
  cp.dstPitch = pitch;
  cp.WidthInBytes = 16;
  cp.Height = 3;
  CU(cuMemcpy2D(&cp));
  CUDA_ARRAY_DESCRIPTOR d = {4, 3, CU_AD_FORMAT_FLOAT, 1};
  CU(set2d2(t, &d, img, pitch));
  CUdeviceptr out;
  CU(cuMemAlloc(&out, 48));
  void *args[] = {&out};
  CU(cuLaunchKernel(f, 1, 1, 1, 12, 1, 1, 0, nullptr, args, nullptr));
  float got[12];
  CU(cuMemcpyDtoH(got, out, 48));
  for (int i = 0; i < 12; i++) EXPECT_EQ(got[i], host[i]);
  // The bound address does not fit the old 32-bit answer.
  CUdeviceptr p64 = 0;
  CU(cuTexRefGetAddress(&p64, t));
  EXPECT_EQ(p64, img);
  EXPECT_EQ(get1(&p32, t), CUDA_ERROR_INVALID_VALUE);
  CU(cuMemFree(out));
  CU(cuMemFree(img));
  CU(cuModuleUnload(mod));
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  indirect_access();
  clamp_ogl(false);
  clamp_ogl(true);
  opaque_parameters_are_refused();
  pre_3_2_names();
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures == 0 ? 0 : 1;
}
