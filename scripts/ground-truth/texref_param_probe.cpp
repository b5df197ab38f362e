// Ground-truth probe (issue 15): what the driver does with `.texref`, `.samplerref` and `.surfref`
// kernel parameters, with indirect access (a register holding a `.texref`/`.surfref` variable's
// address), and what `clamp_ogl` addressing answers. Each case runs in its own process
// (`texref_param_probe CASE`), so a failed launch cannot spoil the next; every line is
// `case: result`. Build: nvcc -o texref_param_probe texref_param_probe.cpp -lcuda.
// Cases: texparam texparam-bound samplerparam surfparam indirect clamp_ogl clamp_ogl_norm
// independent.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

static const char* nm(CUresult r) {
  const char* s = "?";
  cuGetErrorName(r, &s);
  return s;
}
#define SAY(what, call)                                                   \
  do {                                                                    \
    CUresult r_ = (call);                                                 \
    printf("%s: %s: %d %s\n", cs, what, (int)r_, nm(r_));                 \
  } while (0)
static const char* cs = "";

static CUmodule load(const char* ptx) {
  char log[4096] = {0};
  CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* v[] = {log, (void*)(size_t)sizeof(log)};
  CUmodule m = nullptr;
  CUresult r = cuModuleLoadDataEx(&m, ptx, 2, o, v);
  char* nl = strchr(log, '\n');
  if (nl) *nl = 0;
  printf("%s: load: %d %s | %s\n", cs, (int)r, nm(r), log);
  // The driver crashes on some calls with the null module or function a failed load leaves.
  if (r != CUDA_SUCCESS) exit(0);
  return m;
}

static const char* K1 = R"(.version 7.0
.target sm_80
.address_size 64
.entry k1(.param .u64 out, .param .texref t, .param .u32 n)
{
  .reg .u64 %rd<4>; .reg .f32 %f<8>; .reg .s32 %r<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  tex.1d.v4.f32.s32 {%f2,%f3,%f4,%f5}, [t, {%r1}];
  st.global.f32 [%rd1], %f2;
  st.global.u32 [%rd1+4], %r1;
  txq.width.b32 %r2, [t];
  st.global.u32 [%rd1+8], %r2;
  ret;
}
)";

static const char* K2 = R"(.version 7.0
.target sm_80, texmode_independent
.address_size 64
.entry k2(.param .u64 out, .param .texref t, .param .samplerref s, .param .u32 n)
{
  .reg .u64 %rd<4>; .reg .f32 %f<8>; .reg .s32 %r<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  tex.1d.v4.f32.f32 {%f2,%f3,%f4,%f5}, [t, s, {1.0}];
  st.global.f32 [%rd1], %f2;
  tex.1d.v4.f32.f32 {%f2,%f3,%f4,%f5}, [t, s, {-1.0}];
  st.global.f32 [%rd1+4], %f2;
  txq.filter_mode.b32 %r2, [s];
  st.global.u32 [%rd1+8], %r2;
  txq.addr_mode_0.b32 %r3, [s];
  st.global.u32 [%rd1+12], %r3;
  st.global.u32 [%rd1+16], %r1;
  txq.width.b32 %r4, [t];
  st.global.u32 [%rd1+20], %r4;
  ret;
}
)";

static const char* K3 = R"(.version 7.0
.target sm_80
.address_size 64
.entry k3(.param .u64 out, .param .surfref s, .param .u32 n)
{
  .reg .u64 %rd<4>; .reg .s32 %r<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  shl.b32 %r2, %r1, 2;
  suld.b.1d.b32.trap {%r3}, [s, {%r2}];
  st.global.u32 [%rd1], %r3;
  st.global.u32 [%rd1+4], %r1;
  suq.width.b32 %r4, [s];
  st.global.u32 [%rd1+8], %r4;
  ret;
}
)";

static const char* K4 = R"(.version 7.0
.target sm_80
.address_size 64
.global .texref gt;
.global .surfref gs;
.entry k4(.param .u64 out, .param .u32 n)
{
  .reg .u64 %rd<6>; .reg .f32 %f<8>; .reg .s32 %r<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u64 %rd2, gt;
  tex.1d.v4.f32.s32 {%f2,%f3,%f4,%f5}, [%rd2, {%r1}];
  st.global.f32 [%rd1], %f2;
  txq.width.b32 %r3, [%rd2];
  st.global.u32 [%rd1+4], %r3;
  st.global.u64 [%rd1+8], %rd2;
  mov.u64 %rd3, gs;
  shl.b32 %r2, %r1, 2;
  suld.b.1d.b32.trap {%r4}, [%rd3, {%r2}];
  st.global.u32 [%rd1+16], %r4;
  suq.width.b32 %r5, [%rd3];
  st.global.u32 [%rd1+20], %r5;
  st.global.u64 [%rd1+24], %rd3;
  ret;
}
)";

// clamp_ogl against clamp_to_edge and clamp_to_border, linear and nearest, texel coordinates.
static const char* K5 = R"(.version 7.0
.target sm_80, texmode_independent
.address_size 64
.global .texref gt;
.global .samplerref ol = { addr_mode_0 = clamp_ogl, filter_mode = linear };
.global .samplerref on = { addr_mode_0 = clamp_ogl, filter_mode = nearest };
.global .samplerref el = { addr_mode_0 = clamp_to_edge, filter_mode = linear };
.global .samplerref bl = { addr_mode_0 = clamp_to_border, filter_mode = linear };
.global .samplerref onl = { addr_mode_0 = clamp_ogl, filter_mode = linear, force_unnormalized_coords = 1 };
.entry k5(.param .u64 out, .param .u64 xs)
{
  .reg .u64 %rd<8>; .reg .f32 %f<8>; .reg .u32 %r<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [xs];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  mul.wide.u32 %rd5, %r1, 20;
  add.u64 %rd6, %rd1, %rd5;
  tex.1d.v4.f32.f32 {%f2,%f3,%f4,%f5}, [gt, ol, {%f1}];
  st.global.f32 [%rd6], %f2;
  tex.1d.v4.f32.f32 {%f2,%f3,%f4,%f5}, [gt, on, {%f1}];
  st.global.f32 [%rd6+4], %f2;
  tex.1d.v4.f32.f32 {%f2,%f3,%f4,%f5}, [gt, el, {%f1}];
  st.global.f32 [%rd6+8], %f2;
  tex.1d.v4.f32.f32 {%f2,%f3,%f4,%f5}, [gt, bl, {%f1}];
  st.global.f32 [%rd6+12], %f2;
  tex.1d.v4.f32.f32 {%f2,%f3,%f4,%f5}, [gt, onl, {%f1}];
  st.global.f32 [%rd6+16], %f2;
  ret;
}
)";

static CUarray farray(const float* v, int n, bool surface, CUarray_format f = CU_AD_FORMAT_FLOAT) {
  CUDA_ARRAY3D_DESCRIPTOR d = {};
  d.Width = n;
  d.Format = f;
  d.NumChannels = 1;
  d.Flags = surface ? CUDA_ARRAY3D_SURFACE_LDST : 0;
  CUarray a = nullptr;
  SAY("array", cuArray3DCreate(&a, &d));
  SAY("array copy", cuMemcpyHtoA(a, 0, v, 4 * n));
  return a;
}

static CUtexObject texobj_linear(CUdeviceptr p, int n) {
  CUDA_RESOURCE_DESC r = {};
  r.resType = CU_RESOURCE_TYPE_LINEAR;
  r.res.linear.devPtr = p;
  r.res.linear.format = CU_AD_FORMAT_FLOAT;
  r.res.linear.numChannels = 1;
  r.res.linear.sizeInBytes = 4 * n;
  CUDA_TEXTURE_DESC t = {};
  CUtexObject o = 0;
  SAY("texobj", cuTexObjectCreate(&o, &r, &t, nullptr));
  return o;
}

static CUdeviceptr fbuf(float base, int n) {
  CUdeviceptr p;
  cuMemAlloc(&p, 4 * n);
  float h[64];
  for (int i = 0; i < n; i++) h[i] = base + i;
  cuMemcpyHtoD(p, h, 4 * n);
  return p;
}

static void show(CUdeviceptr out, int words, const char* what) {
  unsigned h[32];
  cuMemcpyDtoH(h, out, 4 * words);
  printf("%s: %s:", cs, what);
  for (int i = 0; i < words; i++) printf(" %08x(%g)", h[i], *(float*)&h[i]);
  printf("\n");
}

// Launches `f` with kernelParams `kp` (or the buffer `buf` of `bytes` bytes), then shows
// `words` words of `out`.
static void launch(CUfunction f, void** kp, void* buf, size_t bytes, CUdeviceptr out, int words,
                   const char* what, unsigned threads = 1) {
  cuMemsetD32(out, 0xdeadbeef, words);
  std::string w = std::string("launch ") + what;
  if (buf) {
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes,
                     CU_LAUNCH_PARAM_END};
    SAY(w.c_str(), cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, 0, nullptr, extra));
  } else {
    SAY(w.c_str(), cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, 0, kp, nullptr));
  }
  SAY("sync", cuCtxSynchronize());
  show(out, words, what);
}

static void params(CUfunction f, int n) {
  for (int i = 0; i < n; i++) {
    size_t off = 0, size = 0;
    CUresult r = cuFuncGetParamInfo(f, i, &off, &size);
    printf("%s: param %d: %d %s offset %zu size %zu\n", cs, i, (int)r, nm(r), off, size);
  }
}

// Whether the driver loads independent-mode modules at all: a `.texref` fetched with and
// without a module-scope `.samplerref` of each addressing mode and filter.
static int independent_loads() {
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  const char* modes[] = {"clamp_to_edge", "clamp_ogl", "wrap", "clamp_to_border", "mirror"};
  const char* filters[] = {"linear", "nearest"};
  for (int k = -2; k < 10; k++) {
    std::string p = ".version 7.0\n.target sm_80";
    std::string what, sampler, decl;
    if (k == -2) {
      what = "unified";
    } else {
      p += ", texmode_independent";
      if (k == -1) {
        what = "independent, no sampler";
      } else {
        what = std::string(modes[k / 2]) + " " + filters[k % 2];
        decl = std::string(".global .samplerref sm = { addr_mode_0 = ") + modes[k / 2] +
               ", filter_mode = " + filters[k % 2] + " };\n";
        sampler = ",sm";
      }
    }
    p += "\n.address_size 64\n.global .texref gt;\n" + decl +
         ".entry k(.param .u64 o){ .reg .u64 %rd<3>; "
         ".reg .f32 %f<6>; ld.param.u64 %rd1,[o]; tex.1d.v4.f32.f32 {%f1,%f2,%f3,%f4},[gt" +
         sampler + ",{0f3F000000}]; st.global.f32 [%rd1],%f1; ret;}\n";
    CUmodule m = nullptr;
    CUresult r = cuModuleLoadData(&m, p.c_str());
    printf("independent: load %s: %d %s\n", what.c_str(), (int)r, nm(r));
    if (m) cuModuleUnload(m);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  cs = argv[1];
  setvbuf(stdout, nullptr, _IONBF, 0);
  if (!strcmp(cs, "independent")) return independent_loads();
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  CUdeviceptr out;
  cuMemAlloc(&out, 4096);
  unsigned n = 3;
  CUdeviceptr a1 = fbuf(100, 16), a2 = fbuf(200, 8);
  CUtexObject obj = texobj_linear(a2, 8);
  std::string c = cs;
  if (c == "texparam" || c == "texparam-bound") {
    CUmodule m = load(K1);
    CUfunction f;
    SAY("function", cuModuleGetFunction(&f, m, "k1"));
    params(f, 4);
    CUtexref tr = nullptr;
    SAY("getTexRef t", cuModuleGetTexRef(&tr, m, "t"));
    SAY("getTexRef k1.t", cuModuleGetTexRef(&tr, m, "k1.t"));
    if (c == "texparam-bound" && tr) {
      size_t off = 0;
      SAY("setFormat", cuTexRefSetFormat(tr, CU_AD_FORMAT_FLOAT, 1));
      SAY("setAddress", cuTexRefSetAddress(&off, tr, a1, 64));
      SAY("paramSetTexRef", cuParamSetTexRef(f, CU_PARAM_TR_DEFAULT, tr));
    }
    void* kp3[] = {&out, &obj, &n};
    launch(f, kp3, nullptr, 0, out, 3, "params {out,texobj,n}");
    void* kp2[] = {&out, &n};
    launch(f, kp2, nullptr, 0, out, 3, "params {out,n}");
    char b12[12];
    memcpy(b12, &out, 8);
    memcpy(b12 + 8, &n, 4);
    launch(f, nullptr, b12, 12, out, 3, "buffer {out@0,n@8}");
    char b20[20];
    memcpy(b20, &out, 8);
    memcpy(b20 + 8, &obj, 8);
    memcpy(b20 + 16, &n, 4);
    launch(f, nullptr, b20, 20, out, 3, "buffer {out@0,texobj@8,n@16}");
  } else if (c == "samplerparam") {
    CUmodule m = load(K2);
    CUfunction f;
    SAY("function", cuModuleGetFunction(&f, m, "k2"));
    params(f, 5);
    CUtexref tr = nullptr, sr = nullptr;
    SAY("getTexRef t", cuModuleGetTexRef(&tr, m, "t"));
    SAY("getTexRef s", cuModuleGetTexRef(&sr, m, "s"));
    float v[4] = {100, 101, 102, 103};
    CUarray a = farray(v, 4, false);
    if (tr) {
      SAY("setArray", cuTexRefSetArray(tr, a, CU_TRSA_OVERRIDE_FORMAT));
      SAY("setFilter", cuTexRefSetFilterMode(tr, CU_TR_FILTER_MODE_LINEAR));
      SAY("setAddressMode", cuTexRefSetAddressMode(tr, 0, CU_TR_ADDRESS_MODE_BORDER));
    }
    void* kp4[] = {&out, &obj, &obj, &n};
    launch(f, kp4, nullptr, 0, out, 6, "params {out,texobj,texobj,n}");
    char b12[12];
    memcpy(b12, &out, 8);
    memcpy(b12 + 8, &n, 4);
    launch(f, nullptr, b12, 12, out, 6, "buffer {out@0,n@8}");
  } else if (c == "surfparam") {
    CUmodule m = load(K3);
    CUfunction f;
    SAY("function", cuModuleGetFunction(&f, m, "k3"));
    params(f, 4);
    CUsurfref sr = nullptr;
    SAY("getSurfRef s", cuModuleGetSurfRef(&sr, m, "s"));
    float v[8] = {300, 301, 302, 303, 304, 305, 306, 307};
    CUarray a = farray(v, 8, true);
    if (sr) SAY("surfSetArray", cuSurfRefSetArray(sr, a, 0));
    float w[8] = {400, 401, 402, 403, 404, 405, 406, 407};
    CUarray b = farray(w, 6, true);
    CUDA_RESOURCE_DESC r = {};
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = b;
    CUsurfObject so = 0;
    SAY("surfobj", cuSurfObjectCreate(&so, &r));
    void* kp3[] = {&out, &so, &n};
    launch(f, kp3, nullptr, 0, out, 3, "params {out,surfobj,n}");
    char b12[12];
    memcpy(b12, &out, 8);
    memcpy(b12 + 8, &n, 4);
    launch(f, nullptr, b12, 12, out, 3, "buffer {out@0,n@8}");
  } else if (c == "indirect") {
    CUmodule m = load(K4);
    CUfunction f;
    SAY("function", cuModuleGetFunction(&f, m, "k4"));
    CUtexref tr = nullptr;
    SAY("getTexRef gt", cuModuleGetTexRef(&tr, m, "gt"));
    size_t off = 0;
    SAY("setFormat", cuTexRefSetFormat(tr, CU_AD_FORMAT_FLOAT, 1));
    SAY("setAddress", cuTexRefSetAddress(&off, tr, a1, 64));
    CUsurfref sr = nullptr;
    SAY("getSurfRef gs", cuModuleGetSurfRef(&sr, m, "gs"));
    float v[8] = {300, 301, 302, 303, 304, 305, 306, 307};
    CUarray a = farray(v, 8, true);
    SAY("surfSetArray", cuSurfRefSetArray(sr, a, 0));
    CUdeviceptr gaddr = 0;
    size_t gsize = 0;
    SAY("getGlobal gt", cuModuleGetGlobal(&gaddr, &gsize, m, "gt"));
    printf("%s: texobj %llx surfref %p texref %p global %llx size %zu\n", cs,
           (unsigned long long)obj, (void*)sr, (void*)tr, (unsigned long long)gaddr, gsize);
    void* kp[] = {&out, &n};
    launch(f, kp, nullptr, 0, out, 8, "params {out,n}");
  } else if (c == "clamp_ogl" || c == "clamp_ogl_norm") {
    CUmodule m = load(K5);
    CUfunction f;
    SAY("function", cuModuleGetFunction(&f, m, "k5"));
    CUtexref tr = nullptr;
    SAY("getTexRef gt", cuModuleGetTexRef(&tr, m, "gt"));
    float v[4] = {1, 2, 4, 8};
    CUarray a = farray(v, 4, false);
    SAY("setArray", cuTexRefSetArray(tr, a, CU_TRSA_OVERRIDE_FORMAT));
    float border[4] = {32, 32, 32, 32};
    SAY("setBorder", cuTexRefSetBorderColor(tr, border));
    bool norm = c == "clamp_ogl_norm";
    if (norm) SAY("setFlags", cuTexRefSetFlags(tr, CU_TRSF_NORMALIZED_COORDINATES));
    const float xs_t[] = {-1, -0.5, -0.25, 0, 0.125, 0.25, 0.5, 0.75, 1, 1.5, 2.5,
                          3.25, 3.5, 3.75, 4, 4.25, 4.5, 5, 0.0625, 3.9375};
    const int k = sizeof(xs_t) / sizeof(xs_t[0]);
    float xs[32];
    for (int i = 0; i < k; i++) xs[i] = norm ? xs_t[i] / 4 : xs_t[i];
    CUdeviceptr dxs;
    cuMemAlloc(&dxs, sizeof(xs));
    cuMemcpyHtoD(dxs, xs, sizeof(xs));
    void* kp[] = {&out, &dxs};
    cuMemsetD32(out, 0xdeadbeef, 5 * k);
    SAY("launch", cuLaunchKernel(f, 1, 1, 1, k, 1, 1, 0, 0, kp, nullptr));
    SAY("sync", cuCtxSynchronize());
    float h[5 * 32];
    cuMemcpyDtoH(h, out, 4 * 5 * k);
    for (int i = 0; i < k; i++)
      printf("%s: x %a (texels %g): ogl-linear %a ogl-nearest %a edge-linear %a border-linear %a ogl-linear-forced-unnorm %a\n",
             cs, xs[i], xs_t[i], h[5 * i], h[5 * i + 1], h[5 * i + 2], h[5 * i + 3], h[5 * i + 4]);
  }
  fflush(stdout);
  return 0;
}
