// Texture references through the driver API, the way programs written before texture objects
// use them: PTX with module-scope `.texref` variables, cuModuleGetTexRef, the cuTexRefSet*
// calls binding a CUDA array and linear memory, txq on a reference, the cuTexRefGet* answers,
// and the independent mode's `.samplerref` overriding a reference's sampler. Expected values: the texels themselves at texel centres (point sampling returns
// T[floor(x)], CUDA Programming Guide), the guide's linear-filtering formula with its 8-bit
// weight where the weight is exact (a quarter), and what each getter was given.
#include "check.h"
#include <cstring>
#include <vector>

static const char *kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.global .texref img;
.global .texref lin;
.global .u64 plain;

// out[y * w + x] = tex2D(img, x + dx, y + 0.5), for x < w (threads) and y (blocks).
.visible .entry read2d(.param .u64 out, .param .u32 w, .param .f32 dx)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  ld.param.u32 %r3, [w];
  setp.ge.u32 %p, %r1, %r3;
  @%p bra done;
  ld.param.f32 %f7, [dx];
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f1, %f1, %f7;
  cvt.rn.f32.u32 %f2, %r2;
  add.f32 %f2, %f2, 0f3F000000;
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [img, {%f1, %f2}];
  mad.lo.u32 %r4, %r2, %r3, %r1;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f3;
done:
  ret;
}

// out[i] = tex1Dfetch(lin, i) for i < n; out[n], out[n + 1] = txq.width of img and lin.
.visible .entry fetch1d(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [n];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  setp.ne.u32 %p, %r1, 0;
  @%p bra fetch;
  txq.width.b32 %r8, [img];
  txq.width.b32 %r9, [lin];
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  st.global.u32 [%rd3+4], %r9;
fetch:
  setp.ge.u32 %p, %r1, %r2;
  @%p bra done;
  tex.1d.v4.s32.s32 {%r4, %r5, %r6, %r7}, [lin, {%r1}];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
done:
  ret;
}
)";

// The independent mode (PTX ISA 5.3.2): the sampler is a module-scope `.samplerref` with
// static fields, which override the bound texture's own (here point, clamp, normalised).
static const char *kIndependentPtx = R"(
.version 8.0
.target sm_80, texmode_independent
.address_size 64
.global .texref t;
.global .samplerref s = { addr_mode_0 = clamp_to_border, filter_mode = linear,
                          force_unnormalized_coords = 1 };

// out[0] = tex1D(t, s, x); out[1..3] = txq filter_mode, addr_mode_0, force_unnormalized_coords
// of s.
.entry sample(.param .u64 out, .param .f32 x)
{
  .reg .f32 %f<6>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.f32 %f1, [x];
  tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [t, s, {%f1}];
  txq.filter_mode.b32 %r1, [s];
  txq.addr_mode_0.b32 %r2, [s];
  txq.force_unnormalized_coords.b32 %r3, [s];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  st.global.f32 [%rd1], %f2;
  st.global.u32 [%rd1+4], %r1;
  st.global.u32 [%rd1+8], %r2;
  st.global.u32 [%rd1+12], %r3;
  ret;
}
)";

static void independent_mode() {
  CUmodule mod;
  CU(cuModuleLoadData(&mod, kIndependentPtx));
  CUfunction f;
  CU(cuModuleGetFunction(&f, mod, "sample"));
  CUtexref t;
  CU(cuModuleGetTexRef(&t, mod, "t"));
  // Four texels 0, 10, 20, 30 in a 1-D float array.
  float texels[4] = {0, 10, 20, 30};
  CUDA_ARRAY_DESCRIPTOR ad;
  memset(&ad, 0, sizeof ad);
  ad.Width = 4;
  ad.Height = 0;
  ad.Format = CU_AD_FORMAT_FLOAT;
  ad.NumChannels = 1;
  CUarray arr;
  CU(cuArrayCreate(&arr, &ad));
  CU(cuMemcpyHtoA(arr, 0, texels, sizeof texels));
  CU(cuTexRefSetArray(t, arr, CU_TRSA_OVERRIDE_FORMAT));
  CU(cuTexRefSetFilterMode(t, CU_TR_FILTER_MODE_POINT));
  CU(cuTexRefSetAddressMode(t, 0, CU_TR_ADDRESS_MODE_CLAMP));
  CU(cuTexRefSetFlags(t, CU_TRSF_NORMALIZED_COORDINATES));
  CUdeviceptr out;
  CU(cuMemAlloc(&out, 16));
  // Texel coordinates (forced), linear, border: at 4.25 the footprint is texel 3 and the border
  // beyond it, weighed 1/4 and 3/4 (0.25 * 30 + 0.75 * 0); at 0.75, texels 0 and 1 weighed 3/4
  // and 1/4.
  float xs[2] = {4.25f, 0.75f}, want[2] = {7.5f, 2.5f};
  for (int k = 0; k < 2; k++) {
    void *args[] = {&out, &xs[k]};
    CU(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
    unsigned got[4];
    CU(cuMemcpyDtoH(got, out, sizeof got));
    float v;
    memcpy(&v, got, 4);
    EXPECT_EQ(v, want[k]);
    // linear (1), clamp_to_border (4 in the ISA's enumeration), forced (1).
    EXPECT_EQ(got[1], 1u);
    EXPECT_EQ(got[2], 4u);
    EXPECT_EQ(got[3], 1u);
  }
  CU(cuMemFree(out));
  CU(cuModuleUnload(mod));
  CU(cuArrayDestroy(arr));
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CU(cuModuleLoadData(&mod, kPtx));
  CUfunction read2d, fetch1d;
  CU(cuModuleGetFunction(&read2d, mod, "read2d"));
  CU(cuModuleGetFunction(&fetch1d, mod, "fetch1d"));
  CUtexref img, lin, again;
  CU(cuModuleGetTexRef(&img, mod, "img"));
  CU(cuModuleGetTexRef(&lin, mod, "lin"));
  CU(cuModuleGetTexRef(&again, mod, "img"));
  EXPECT(again == img);
  EXPECT(cuModuleGetTexRef(&again, mod, "nothing") == CUDA_ERROR_NOT_FOUND);
  // A variable that is no .texref has no reference.
  EXPECT(cuModuleGetTexRef(&again, mod, "plain") == CUDA_ERROR_NOT_FOUND);

  // A 2-D float array, 13 x 4, value 100 y + x, bound to `img`.
  const int w = 13, h = 4;
  std::vector<float> host(w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) host[y * w + x] = 100.0f * y + x;
  CUDA_ARRAY_DESCRIPTOR ad;
  memset(&ad, 0, sizeof ad);
  ad.Width = w;
  ad.Height = h;
  ad.Format = CU_AD_FORMAT_FLOAT;
  ad.NumChannels = 1;
  CUarray arr;
  CU(cuArrayCreate(&arr, &ad));
  CUDA_MEMCPY2D cp;
  memset(&cp, 0, sizeof cp);
  cp.srcMemoryType = CU_MEMORYTYPE_HOST;
  cp.srcHost = host.data();
  cp.srcPitch = w * 4;
  cp.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  cp.dstArray = arr;
  cp.WidthInBytes = w * 4;
  cp.Height = h;
  CU(cuMemcpy2D(&cp));
  EXPECT(cuTexRefSetArray(img, arr, 0) == CUDA_ERROR_INVALID_VALUE);
  CU(cuTexRefSetArray(img, arr, CU_TRSA_OVERRIDE_FORMAT));
  CU(cuTexRefSetAddressMode(img, 0, CU_TR_ADDRESS_MODE_CLAMP));
  CU(cuTexRefSetAddressMode(img, 1, CU_TR_ADDRESS_MODE_CLAMP));
  CU(cuTexRefSetFilterMode(img, CU_TR_FILTER_MODE_POINT));
  CU(cuTexRefSetFlags(img, 0));
  CU(cuParamSetTexRef(read2d, CU_PARAM_TR_DEFAULT, img));
  EXPECT(cuParamSetTexRef(read2d, 0, img) == CUDA_ERROR_INVALID_VALUE);

  CUdeviceptr out;
  CU(cuMemAlloc(&out, w * h * 4));
  auto run2d = [&](float dx) {
    int wi = w;
    void *args[] = {&out, &wi, &dx};
    CU(cuLaunchKernel(read2d, h, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
    std::vector<float> got(w * h);
    CU(cuMemcpyDtoH(got.data(), out, w * h * 4));
    return got;
  };
  std::vector<float> got = run2d(0.5f);
  for (int i = 0; i < w * h; i++) EXPECT_EQ(got[i], host[i]);
  // Linear filtering at x + 0.75: a quarter of the next texel (clamped at the last one).
  CU(cuTexRefSetFilterMode(img, CU_TR_FILTER_MODE_LINEAR));
  got = run2d(0.75f);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int x1 = x + 1 < w ? x + 1 : w - 1;
      EXPECT_EQ(got[y * w + x], 0.75f * host[y * w + x] + 0.25f * host[y * w + x1]);
    }

  // Linear memory bound to `lin`, fetched by index.
  const int n = 100;
  std::vector<int> ints(n);
  for (int i = 0; i < n; i++) ints[i] = i * 31 - 1000;
  CUdeviceptr lmem, iout;
  CU(cuMemAlloc(&lmem, n * 4));
  CU(cuMemAlloc(&iout, (n + 2) * 4));
  CU(cuMemcpyHtoD(lmem, ints.data(), n * 4));
  CU(cuTexRefSetFormat(lin, CU_AD_FORMAT_SIGNED_INT32, 1));
  size_t offset = 1;
  CU(cuTexRefSetAddress(&offset, lin, lmem, n * 4));
  EXPECT_EQ((int)offset, 0);
  CU(cuTexRefSetFlags(lin, CU_TRSF_READ_AS_INTEGER));
  int ni = n;
  void *args[] = {&iout, &ni};
  CU(cuLaunchKernel(fetch1d, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  std::vector<int> igot(n + 2);
  CU(cuMemcpyDtoH(igot.data(), iout, (n + 2) * 4));
  for (int i = 0; i < n; i++) EXPECT_EQ(igot[i], ints[i]);
  EXPECT_EQ(igot[n], w);
  EXPECT_EQ(igot[n + 1], n);

  // The getters answer what was set.
  CUarray_format fmt;
  int ch = 0;
  CU(cuTexRefGetFormat(&fmt, &ch, img));
  EXPECT(fmt == CU_AD_FORMAT_FLOAT && ch == 1);
  CU(cuTexRefGetFormat(&fmt, &ch, lin));
  EXPECT(fmt == CU_AD_FORMAT_SIGNED_INT32 && ch == 1);
  CUaddress_mode am;
  CU(cuTexRefGetAddressMode(&am, img, 1));
  EXPECT(am == CU_TR_ADDRESS_MODE_CLAMP);
  CUfilter_mode fm;
  CU(cuTexRefGetFilterMode(&fm, img));
  EXPECT(fm == CU_TR_FILTER_MODE_LINEAR);
  unsigned flags;
  CU(cuTexRefGetFlags(&flags, lin));
  EXPECT_EQ(flags, (unsigned)CU_TRSF_READ_AS_INTEGER);
  CUarray back;
  CU(cuTexRefGetArray(&back, img));
  EXPECT(back == arr);
  CUdeviceptr dp;
  EXPECT(cuTexRefGetAddress(&dp, img) == CUDA_ERROR_INVALID_VALUE);
  CU(cuTexRefGetAddress(&dp, lin));
  EXPECT(dp == lmem);
  EXPECT(cuTexRefGetArray(&back, lin) == CUDA_ERROR_INVALID_VALUE);
  float border[4] = {1, 2, 3, 4}, bback[4];
  CU(cuTexRefSetBorderColor(img, border));
  CU(cuTexRefGetBorderColor(bback, img));
  EXPECT(memcmp(border, bback, sizeof border) == 0);
  CU(cuTexRefSetMipmapLevelClamp(img, 0.5f, 3.0f));
  float lo, hi;
  CU(cuTexRefGetMipmapLevelClamp(&lo, &hi, img));
  EXPECT(lo == 0.5f && hi == 3.0f);
  CU(cuTexRefSetMaxAnisotropy(img, 4));
  int aniso;
  CU(cuTexRefGetMaxAnisotropy(&aniso, img));
  EXPECT_EQ(aniso, 4);
  EXPECT(cuTexRefSetAddressMode(img, 3, CU_TR_ADDRESS_MODE_CLAMP) == CUDA_ERROR_INVALID_VALUE);

  // A standalone reference (cuTexRefCreate) can be configured and destroyed.
  CUtexref own;
  CU(cuTexRefCreate(&own));
  CU(cuTexRefSetFormat(own, CU_AD_FORMAT_FLOAT, 4));
  CU(cuTexRefDestroy(own));
  EXPECT(cuTexRefDestroy(own) == CUDA_ERROR_INVALID_VALUE);

  independent_mode();
  CU(cuModuleUnload(mod));
  // The module's references went with it.
  EXPECT(cuTexRefGetFormat(&fmt, &ch, img) == CUDA_ERROR_INVALID_VALUE);
  CU(cuArrayDestroy(arr));
  CU(cuMemFree(out));
  CU(cuMemFree(lmem));
  CU(cuMemFree(iout));
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures == 0 ? 0 : 1;
}
