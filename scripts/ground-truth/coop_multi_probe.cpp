// What the driver answers for cuLaunchCooperativeKernelMultiDevice (deprecated since CUDA 11.3)
// on one device: the attribute COOPERATIVE_MULTI_DEVICE_LAUNCH, a launch on one device, and the
// argument checks (no list, zero devices, bad flags, a grid larger than co-residency allows,
// the same device twice, a NULL function). Prints "CALL: CODE NAME" lines.
// Build: nvcc -o coop_multi_probe coop_multi_probe.cpp -lcuda
#include <cuda.h>
#include <cstdio>
#include <cstring>

static void show(const char* call, CUresult r) {
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  printf("%s: %d %s\n", call, (int)r, name ? name : "?");
  fflush(stdout);
}

static const char* ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r1, %r1, %r2, %r3;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

int main() {
  show("cuInit", cuInit(0));
  CUdevice dev;
  show("cuDeviceGet", cuDeviceGet(&dev, 0));
  int v = -1;
  show("attr COOPERATIVE_LAUNCH", cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev));
  printf("  = %d\n", v);
  v = -1;
  show("attr COOPERATIVE_MULTI_DEVICE_LAUNCH",
       cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, dev));
  printf("  = %d\n", v);
  CUcontext ctx;
  show("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  show("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  CUmodule mod;
  show("cuModuleLoadData", cuModuleLoadData(&mod, ptx));
  CUfunction f;
  show("cuModuleGetFunction", cuModuleGetFunction(&f, mod, "k"));
  CUdeviceptr out;
  show("cuMemAlloc", cuMemAlloc(&out, 1 << 24));
  CUstream s;
  show("cuStreamCreate", cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  void* args[] = {&out};
  CUDA_LAUNCH_PARAMS p = {};
  p.function = f;
  p.gridDimX = 4;
  p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = 64;
  p.blockDimY = p.blockDimZ = 1;
  p.hStream = s;
  p.kernelParams = args;
  show("multi one device", cuLaunchCooperativeKernelMultiDevice(&p, 1, 0));
  show("  sync", cuCtxSynchronize());
  unsigned got[256] = {};
  show("  copy", cuMemcpyDtoH(got, out, sizeof got));
  int ok = 0;
  for (int i = 0; i < 256; i++) ok += got[i] == (unsigned)i;
  printf("  %d of 256 written\n", ok);
  show("multi flags 3", cuLaunchCooperativeKernelMultiDevice(&p, 1, 3));
  show("  sync", cuCtxSynchronize());
  show("multi flags 4", cuLaunchCooperativeKernelMultiDevice(&p, 1, 4));
  show("multi NULL list", cuLaunchCooperativeKernelMultiDevice(nullptr, 1, 0));
  show("multi zero devices", cuLaunchCooperativeKernelMultiDevice(&p, 0, 0));
  CUDA_LAUNCH_PARAMS two[2] = {p, p};
  show("multi same device twice", cuLaunchCooperativeKernelMultiDevice(two, 2, 0));
  CUDA_LAUNCH_PARAMS q = p;
  q.hStream = nullptr;
  show("multi NULL stream", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
  show("  sync", cuCtxSynchronize());
  q = p;
  q.function = nullptr;
  show("multi NULL function", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
  q = p;
  q.blockDimX = 2048;
  show("multi block too large", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
  q = p;
  q.gridDimX = 1 << 20;
  show("multi grid too large", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
  show("final sync", cuCtxSynchronize());
  return 0;
}
