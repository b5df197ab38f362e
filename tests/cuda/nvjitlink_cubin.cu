// nvJitLink asked for a cubin from a C++ program: two translation units compiled by NVRTC to
// LTO-IR (`-dlto -rdc=true`), linked by nvJitLink with `-arch=sm_90 -lto`, and two PTX units
// linked with `-arch=sm_90`; the linked "cubin" is loaded with cuModuleLoadData and run. The
// program calls nvJitLink's versioned symbols (`__nvJitLinkCreate_13_5`, through the header's
// inline functions); with the shim preloaded, the image carries PTX, so it runs. Expected
// values: out[i] = i*i - 3*i + 7 (LTO-IR link, and PTX calling LTO-IR) and 2*i + 1 (PTX link),
// computed on the host.
#include <cuda.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "check.h"

#define NVRTC(call)                                                                  \
  do {                                                                               \
    nvrtcResult r_ = (call);                                                         \
    if (r_ != NVRTC_SUCCESS) {                                                       \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,           \
              nvrtcGetErrorString(r_));                                              \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

#define JIT(h, call)                                                                 \
  do {                                                                               \
    nvJitLinkResult r_ = (call);                                                     \
    if (r_ != NVJITLINK_SUCCESS) {                                                   \
      size_t n_ = 0;                                                                 \
      nvJitLinkGetErrorLogSize(h, &n_);                                              \
      std::vector<char> log_(n_ + 1);                                                \
      nvJitLinkGetErrorLog(h, log_.data());                                          \
      fprintf(stderr, "%s:%d: %s failed: %d\n%s\n", __FILE__, __LINE__, #call, r_,   \
              log_.data());                                                          \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

static const char* kPoly = "extern \"C\" __device__ int poly(int x) { return x * x - 3 * x + 7; }";
static const char* kApply =
    "extern \"C\" __device__ int poly(int);\n"
    "extern \"C\" __global__ void apply(int* o, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = poly(i); }\n";
static const char* kTwice = "extern \"C\" __device__ int twice(int x) { return 2 * x; }";
static const char* kUse =
    "extern \"C\" __device__ int twice(int);\n"
    "extern \"C\" __global__ void apply(int* o, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = twice(i) + 1; }\n";

// NVRTC output of `src`: LTO-IR when `lto`, else PTX.
static std::vector<char> compile(const char* src, bool lto) {
  nvrtcProgram p;
  NVRTC(nvrtcCreateProgram(&p, src, "unit.cu", 0, nullptr, nullptr));
  const char* opts_lto[] = {"-arch=sm_90", "-rdc=true", "-dlto"};
  const char* opts_ptx[] = {"-arch=sm_90", "-rdc=true"};
  NVRTC(nvrtcCompileProgram(p, lto ? 3 : 2, lto ? opts_lto : opts_ptx));
  size_t n = 0;
  std::vector<char> out;
  if (lto) {
    NVRTC(nvrtcGetLTOIRSize(p, &n));
    out.resize(n);
    NVRTC(nvrtcGetLTOIR(p, out.data()));
  } else {
    NVRTC(nvrtcGetPTXSize(p, &n));
    out.resize(n);
    NVRTC(nvrtcGetPTX(p, out.data()));
  }
  NVRTC(nvrtcDestroyProgram(&p));
  return out;
}

// Links `a` and `b` (each LTO-IR or PTX) with nvJitLink, `-lto` when any input is LTO-IR.
static void link_and_run(const char* what, const char* src_a, bool a_lto, const char* src_b,
                         bool b_lto, int (*want)(int)) {
  std::vector<char> a = compile(src_a, a_lto);
  std::vector<char> b = compile(src_b, b_lto);
  bool lto = a_lto || b_lto;
  nvJitLinkHandle h;
  const char* opts_lto[] = {"-arch=sm_90", "-lto"};
  const char* opts_ptx[] = {"-arch=sm_90"};
  if (nvJitLinkCreate(&h, lto ? 2 : 1, lto ? opts_lto : opts_ptx) != NVJITLINK_SUCCESS) {
    fprintf(stderr, "nvJitLinkCreate failed\n");
    exit(1);
  }
  JIT(h, nvJitLinkAddData(h, a_lto ? NVJITLINK_INPUT_LTOIR : NVJITLINK_INPUT_PTX, a.data(),
                          a.size(), "a"));
  JIT(h, nvJitLinkAddData(h, b_lto ? NVJITLINK_INPUT_LTOIR : NVJITLINK_INPUT_PTX, b.data(),
                          b.size(), "b"));
  JIT(h, nvJitLinkComplete(h));
  size_t n = 0;
  JIT(h, nvJitLinkGetLinkedCubinSize(h, &n));
  std::vector<char> cubin(n);
  JIT(h, nvJitLinkGetLinkedCubin(h, cubin.data()));
  JIT(h, nvJitLinkDestroy(&h));

  CUmodule mod;
  CU(cuModuleLoadData(&mod, cubin.data()));
  CUfunction f;
  CU(cuModuleGetFunction(&f, mod, "apply"));
  const int N = 300;
  CUdeviceptr d;
  CU(cuMemAlloc(&d, N * sizeof(int)));
  int count = N;
  void* args[] = {&d, &count};
  CU(cuLaunchKernel(f, 3, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  std::vector<int> out(N);
  CU(cuMemcpyDtoH(out.data(), d, N * sizeof(int)));
  for (int i = 0; i < N; i++) {
    if (out[i] != want(i)) {
      fprintf(stderr, "%s link: out[%d] = %d, expected %d\n", what, i, out[i], want(i));
      exit(1);
    }
  }
  CU(cuMemFree(d));
  CU(cuModuleUnload(mod));
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  link_and_run("LTO-IR", kPoly, true, kApply, true, [](int i) { return i * i - 3 * i + 7; });
  link_and_run("PTX", kTwice, false, kUse, false, [](int i) { return 2 * i + 1; });
  // PTX calling a function that only LTO-IR defines (numba-cuda's NRT linking does this):
  // relinking the LTO-IR alone to PTX would drop `poly`, which no LTO-IR input uses.
  link_and_run("mixed", kPoly, true, kApply, false, [](int i) { return i * i - 3 * i + 7; });
  CU(cuDevicePrimaryCtxRelease(dev));
  printf("PASS\n");
  return 0;
}
