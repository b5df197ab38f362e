// NVRTC asked for a cubin: a kernel compiled at run time with `-arch=sm_90` (a real
// architecture, so NVRTC makes SASS) and fetched with nvrtcGetCUBINSize/nvrtcGetCUBIN, as
// NVIDIA's samples do, then loaded with cuModuleLoadData, cuLibraryLoadData and, as a
// CU_JIT_INPUT_CUBIN with a SASS CU_JIT_TARGET, through cuLinkCreate/cuLinkAddData/
// cuLinkComplete. With the shim preloaded, the "cubin" carries the program's PTX, so every
// path runs. Expected values: out[i] = 3*i + 5 - (i % 7) in integers, computed on the host.
// Also: after a `-arch=compute_90` compile NVRTC 13.5 itself answers nvrtcGetCUBINSize with
// NVRTC_SUCCESS and size 0 (measured with the pinned libnvrtc, no shim involved); the shim
// must keep that answer and not invent a cubin.
// And `--maxrregcount=32`, which NVRTC's SASS obeys: the image handed out carries the limit, so
// the kernel reports at most 32 registers (ptxas 13.5 -arch=sm_90 -v: 86 without the limit,
// "Used 32 registers" with -maxrregcount=32) and still computes the same values.
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
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

static const char* kSource = R"CU(
extern "C" __global__ void affine(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 5 - (i % 7);
}
)CU";

static const int N = 1000;

// Forty values live across a loop: far more registers than 32 unless limited.
static const char* kPressure = R"CU(
extern "C" __global__ void pressure(float* out, const float* in, int n) {
  float a[40];
#pragma unroll
  for (int j = 0; j < 40; j++) a[j] = in[j] + (float)threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 40; j++) a[j] = a[j] * 0.5f + in[40 + j];
  }
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 40; j++) s += a[j] * (float)(j + 1);
  out[threadIdx.x] = s;
}
)CU";

static nvrtcProgram compile(const char* arch, const char* source = kSource,
                            const char* extra = nullptr) {
  nvrtcProgram prog;
  NVRTC(nvrtcCreateProgram(&prog, source, "prog.cu", 0, nullptr, nullptr));
  const char* opts[] = {arch, extra};
  nvrtcResult r = nvrtcCompileProgram(prog, extra ? 2 : 1, opts);
  if (r != NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::vector<char> log(n + 1);
    nvrtcGetProgramLog(prog, log.data());
    fprintf(stderr, "nvrtcCompileProgram(%s): %s\n%s\n", arch, nvrtcGetErrorString(r), log.data());
    exit(1);
  }
  return prog;
}

// Runs `affine` from `mod` and checks every element.
static void run_and_check(CUfunction f, const char* what) {
  CUdeviceptr d;
  CU(cuMemAlloc(&d, N * sizeof(int)));
  CU(cuMemsetD32(d, 0xdeadbeef, N));
  int n = N;
  void* args[] = {&d, &n};
  CU(cuLaunchKernel(f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CU(cuCtxSynchronize());
  std::vector<int> out(N);
  CU(cuMemcpyDtoH(out.data(), d, N * sizeof(int)));
  CU(cuMemFree(d));
  for (int i = 0; i < N; i++) {
    int want = 3 * i + 5 - (i % 7);
    if (out[i] != want) {
      fprintf(stderr, "%s: out[%d] = %d, expected %d\n", what, i, out[i], want);
      exit(1);
    }
  }
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));

  // A real architecture: NVRTC builds SASS and hands out a cubin.
  nvrtcProgram prog = compile("-arch=sm_90");
  size_t size = 0;
  NVRTC(nvrtcGetCUBINSize(prog, &size));
  REQUIRE(size > 0);
  std::vector<char> cubin(size);
  NVRTC(nvrtcGetCUBIN(prog, cubin.data()));
  NVRTC(nvrtcDestroyProgram(&prog));

  CUmodule mod;
  CU(cuModuleLoadData(&mod, cubin.data()));
  CUfunction f;
  CU(cuModuleGetFunction(&f, mod, "affine"));
  run_and_check(f, "cuModuleLoadData");
  CU(cuModuleUnload(mod));

  CUlibrary lib;
  CU(cuLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel k;
  CU(cuLibraryGetKernel(&k, lib, "affine"));
  run_and_check((CUfunction)k, "cuLibraryLoadData");
  CU(cuLibraryUnload(lib));

  // The driver's linker asked for SASS (CU_JIT_TARGET sm_90) with the cubin as its input.
  CUjit_option opts[] = {CU_JIT_TARGET};
  void* vals[] = {(void*)(size_t)CU_TARGET_COMPUTE_90};
  CUlinkState link;
  CU(cuLinkCreate(1, opts, vals, &link));
  CU(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, cubin.data(), cubin.size(), "affine.cubin", 0,
                   nullptr, nullptr));
  void* image = nullptr;
  size_t image_size = 0;
  CU(cuLinkComplete(link, &image, &image_size));
  REQUIRE(image != nullptr && image_size > 0);
  CU(cuModuleLoadData(&mod, image));
  CU(cuLinkDestroy(link));
  CU(cuModuleGetFunction(&f, mod, "affine"));
  run_and_check(f, "cuLinkComplete");
  CU(cuModuleUnload(mod));

  // A virtual architecture: NVRTC has no cubin and says so with size 0; its PTX loads.
  prog = compile("-arch=compute_90");
  size = 1;
  NVRTC(nvrtcGetCUBINSize(prog, &size));
  REQUIRE(size == 0);
  NVRTC(nvrtcGetPTXSize(prog, &size));
  std::vector<char> ptx(size);
  NVRTC(nvrtcGetPTX(prog, ptx.data()));
  NVRTC(nvrtcDestroyProgram(&prog));
  CU(cuModuleLoadData(&mod, ptx.data()));
  CU(cuModuleGetFunction(&f, mod, "affine"));
  run_and_check(f, "PTX");
  CU(cuModuleUnload(mod));

  // A register limit given to NVRTC holds for the image it hands out.
  {
    std::vector<float> in(80), want(64);
    for (int j = 0; j < 80; j++) in[j] = 0.25f * (float)(j % 9) - 1.0f;
    const int iters = 5;
    for (int t = 0; t < 64; t++) {
      float a[40];
      for (int j = 0; j < 40; j++) a[j] = in[j] + (float)t;
      // NVRTC contracts a * 0.5f + b into one fma (its default, --fmad=true).
      for (int i = 0; i < iters; i++)
        for (int j = 0; j < 40; j++) a[j] = fmaf(a[j], 0.5f, in[40 + j]);
      float s = 0.0f;
      for (int j = 0; j < 40; j++) s = fmaf(a[j], (float)(j + 1), s);
      want[t] = s;
    }
    CUdeviceptr din, dout;
    CU(cuMemAlloc(&din, 80 * sizeof(float)));
    CU(cuMemAlloc(&dout, 64 * sizeof(float)));
    CU(cuMemcpyHtoD(din, in.data(), 80 * sizeof(float)));
    for (int limited = 0; limited < 2; limited++) {
      prog = compile("-arch=sm_90", kPressure, limited ? "--maxrregcount=32" : nullptr);
      NVRTC(nvrtcGetCUBINSize(prog, &size));
      std::vector<char> image(size);
      NVRTC(nvrtcGetCUBIN(prog, image.data()));
      NVRTC(nvrtcDestroyProgram(&prog));
      CU(cuModuleLoadData(&mod, image.data()));
      CU(cuModuleGetFunction(&f, mod, "pressure"));
      int regs = 0;
      CU(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
      if (limited ? regs > 32 : regs <= 32) {
        fprintf(stderr, "pressure (%s): %d registers\n", limited ? "limit 32" : "no limit", regs);
        exit(1);
      }
      int n = iters;
      void* args[] = {&dout, &din, &n};
      CU(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
      std::vector<float> out(64);
      CU(cuMemcpyDtoH(out.data(), dout, 64 * sizeof(float)));
      for (int t = 0; t < 64; t++) {
        if (memcmp(&out[t], &want[t], 4) != 0) {
          fprintf(stderr, "pressure: out[%d] = %a, expected %a\n", t, out[t], want[t]);
          exit(1);
        }
      }
      CU(cuModuleUnload(mod));
    }
    CU(cuMemFree(din));
    CU(cuMemFree(dout));
  }

  CU(cuDevicePrimaryCtxRelease(dev));
  printf("PASS\n");
  return 0;
}
