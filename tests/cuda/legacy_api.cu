// The driver's legacy surface, as old programs and dlsym() users reach it:
// - the unversioned names cuda.h redirects to _v2 with macros (cuCtxDestroy, cuMemAlloc,
//   cuMemcpyHtoD, ...), taken with dlsym() from libcuda.so.1 and called with their original
//   ABI (cuda.h's `#if defined(__CUDA_API_VERSION_INTERNAL)` declarations: 32-bit
//   CUdeviceptr_v1, unsigned int sizes);
// - the launch API before cuLaunchKernel (cuFuncSetBlockShape, cuParamSet*, cuLaunchGrid);
// - cuLibraryGetManaged / cuLibraryGetUnifiedFunction, cuProfilerStart/Stop/Initialize;
// - device attributes against what an H100 (driver 580.159) reports.
// Expected values: the arithmetic of the kernel below, the driver API documentation (quoted at
// each check) and the H100's answers.
// The legacy calls are deprecated; cuda.h's switch keeps them warning-free.
#define CUDA_ENABLE_DEPRECATED
#include <cuda.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "check.h"

// cuda.h's legacy types (declared there under __CUDA_API_VERSION_INTERNAL only).
typedef unsigned int CUdeviceptr_v1;
struct Memcpy2D_v1 {
  unsigned int srcXInBytes, srcY;
  CUmemorytype srcMemoryType;
  const void* srcHost;
  CUdeviceptr_v1 srcDevice;
  CUarray srcArray;
  unsigned int srcPitch;
  unsigned int dstXInBytes, dstY;
  CUmemorytype dstMemoryType;
  void* dstHost;
  CUdeviceptr_v1 dstDevice;
  CUarray dstArray;
  unsigned int dstPitch;
  unsigned int WidthInBytes, Height;
};

// out[ctaid * ntid + tid] = v + f * tid, for the legacy launch (parameters at offsets 0, 8,
// 12: a pointer, a u32, an f32, as cuParamSet* places them).
static const char* kPtx = R"PTX(
.version 8.0
.target sm_80
.address_size 64

.global .attribute(.managed) .align 4 .u32 managed_var = 7;
.global .align 4 .u32 plain_var;

.visible .entry fill(
    .param .u64 out,
    .param .u32 v,
    .param .f32 f
)
{
    .reg .b32   %r<8>;
    .reg .f32   %f<4>;
    .reg .b64   %rd<4>;
    ld.param.u64    %rd1, [out];
    ld.param.u32    %r1, [v];
    ld.param.f32    %f1, [f];
    mov.u32         %r2, %ctaid.x;
    mov.u32         %r3, %ntid.x;
    mov.u32         %r4, %tid.x;
    mad.lo.s32      %r5, %r2, %r3, %r4;
    cvt.rn.f32.u32  %f2, %r4;
    cvt.rn.f32.u32  %f3, %r1;
    fma.rn.f32      %f2, %f1, %f2, %f3;
    cvta.to.global.u64  %rd1, %rd1;
    mul.wide.u32    %rd2, %r5, 4;
    add.s64         %rd3, %rd1, %rd2;
    st.global.f32   [%rd3], %f2;
    ret;
}
)PTX";

template <typename F>
static F sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "dlsym(%s): %s\n", name, dlerror());
    exit(1);
  }
  return (F)p;
}

int main() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  auto init = sym<CUresult (*)(unsigned)>(lib, "cuInit");
  auto ctx_create = sym<CUresult (*)(CUcontext*, unsigned, CUdevice)>(lib, "cuCtxCreate");
  auto ctx_destroy = sym<CUresult (*)(CUcontext)>(lib, "cuCtxDestroy");
  auto ctx_push = sym<CUresult (*)(CUcontext)>(lib, "cuCtxPushCurrent");
  auto ctx_pop = sym<CUresult (*)(CUcontext*)>(lib, "cuCtxPopCurrent");
  auto stream_destroy = sym<CUresult (*)(CUstream)>(lib, "cuStreamDestroy");
  auto event_destroy = sym<CUresult (*)(CUevent)>(lib, "cuEventDestroy");
  auto mem_alloc = sym<CUresult (*)(CUdeviceptr_v1*, unsigned)>(lib, "cuMemAlloc");
  auto mem_free = sym<CUresult (*)(CUdeviceptr_v1)>(lib, "cuMemFree");
  auto host_register = sym<CUresult (*)(void*, size_t, unsigned)>(lib, "cuMemHostRegister");
  auto host_get_dptr =
      sym<CUresult (*)(CUdeviceptr_v1*, void*, unsigned)>(lib, "cuMemHostGetDevicePointer");
  auto htod = sym<CUresult (*)(CUdeviceptr_v1, const void*, unsigned)>(lib, "cuMemcpyHtoD");
  auto dtoh = sym<CUresult (*)(void*, CUdeviceptr_v1, unsigned)>(lib, "cuMemcpyDtoH");
  auto dtod = sym<CUresult (*)(CUdeviceptr_v1, CUdeviceptr_v1, unsigned)>(lib, "cuMemcpyDtoD");
  auto memset32 = sym<CUresult (*)(CUdeviceptr_v1, unsigned, unsigned)>(lib, "cuMemsetD32");
  auto memset8 = sym<CUresult (*)(CUdeviceptr_v1, unsigned char, unsigned)>(lib, "cuMemsetD8");
  auto copy2d = sym<CUresult (*)(const Memcpy2D_v1*)>(lib, "cuMemcpy2D");
  auto alloc_host = sym<CUresult (*)(void**, unsigned)>(lib, "cuMemAllocHost");

  CU(init(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx = nullptr, popped = nullptr;
  // cuCtxCreate's legacy ABI is cuCtxCreate_v2's.
  CU(ctx_create(&ctx, 0, dev));
  CU(ctx_pop(&popped));
  EXPECT_EQ(popped == ctx, 1);
  CU(ctx_push(ctx));

  // cuMemAlloc (32-bit CUdeviceptr_v1): an allocation the old ABI can address, or none.
  CUdeviceptr_v1 d32 = 0;
  CUresult r = mem_alloc(&d32, 1024);
  EXPECT_MSG(r == CUDA_SUCCESS || r == CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc -> %d", (int)r);
  if (r == CUDA_SUCCESS) CU(mem_free(d32));
  EXPECT_EQ(mem_free(0), CUDA_SUCCESS);  // freeing NULL is a no-op

  // Memory the 32-bit ABI can name: host memory below 2 GiB, registered and mapped. With
  // unified addressing (an H100 reports CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 1) its
  // device pointer is its host address.
  const unsigned n = 1024;
  void* low = mmap(nullptr, 4 * n * 4, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (low == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  CU(host_register(low, 4 * n * 4, CU_MEMHOSTREGISTER_DEVICEMAP));
  CUdeviceptr_v1 base = 0;
  CU(host_get_dptr(&base, low, 0));
  EXPECT_EQ(base, (uintptr_t)low);
  CUdeviceptr_v1 a = base, b = base + 4 * n;
  unsigned host[n], back[n];
  for (unsigned i = 0; i < n; i++) host[i] = i * 2654435761u;
  CU(htod(a, host, 4 * n));
  CU(dtod(b, a, 4 * n));
  memset(back, 0, sizeof back);
  CU(dtoh(back, b, 4 * n));
  int same = 1;
  for (unsigned i = 0; i < n; i++) same &= back[i] == host[i];
  EXPECT_EQ(same, 1);
  CU(memset32(a, 0xdeadbeef, n));
  CU(memset8(a, 0x5a, 2));
  CU(dtoh(back, a, 4 * n));
  EXPECT_EQ(back[0], 0xdead5a5au);
  EXPECT_EQ(back[n - 1], 0xdeadbeefu);
  // A 2D copy through the 32-bit descriptor: rows 1..3 of a 16-byte-pitch host matrix, 8 bytes
  // each, to device rows of 8 bytes.
  unsigned char mat[4][16], out2d[3][8];
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 16; x++) mat[y][x] = (unsigned char)(y * 16 + x);
  Memcpy2D_v1 c = {};
  c.srcXInBytes = 4;
  c.srcY = 1;
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = mat;
  c.srcPitch = 16;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = b;
  c.dstPitch = 8;
  c.WidthInBytes = 8;
  c.Height = 3;
  CU(copy2d(&c));
  CU(dtoh(out2d, b, sizeof out2d));
  EXPECT_EQ(out2d[0][0], 1 * 16 + 4);
  EXPECT_EQ(out2d[2][7], 3 * 16 + 11);

  void* pinned = nullptr;
  CU(alloc_host(&pinned, 4096));
  CU(cuMemFreeHost(pinned));
  CUstream s;
  CU(cuStreamCreate(&s, 0));
  CUevent e;
  CU(cuEventCreate(&e, 0));

  // The legacy launch API: block shape, parameters placed by offset, then cuLaunchGrid.
  CUmodule mod;
  CU(cuModuleLoadData(&mod, kPtx));
  CUfunction f;
  CU(cuModuleGetFunction(&f, mod, "fill"));
  CUdeviceptr out;
  CU(cuMemAlloc_v2(&out, 64 * 4));
  CU(cuFuncSetBlockShape(f, 32, 1, 1));
  CU(cuFuncSetSharedSize(f, 0));
  CU(cuParamSetv(f, 0, &out, sizeof out));
  CU(cuParamSeti(f, 8, 5));
  CU(cuParamSetf(f, 12, 1.5f));
  CU(cuParamSetSize(f, 16));
  CU(cuLaunchGrid(f, 2, 1));
  CU(cuCtxSynchronize());
  float res[64];
  CU(cuMemcpyDtoH_v2(res, out, sizeof res));
  int ok = 1;
  for (int i = 0; i < 64; i++) ok &= res[i] == 5.0f + 1.5f * (float)(i % 32);
  EXPECT_EQ(ok, 1);
  // cuLaunch is a 1x1 grid; cuLaunchGridAsync takes a stream.
  CU(cuParamSeti(f, 8, 100));
  CU(cuLaunch(f));
  CU(cuParamSeti(f, 8, 200));
  CU(cuLaunchGridAsync(f, 1, 1, s));
  CU(cuStreamSynchronize(s));
  CU(cuMemcpyDtoH_v2(res, out, sizeof res));
  EXPECT_MSG(res[1] == 201.5f && res[33] == 5.0f + 1.5f, "%f %f", res[1], res[33]);
  // A shape the device cannot run is CUDA_ERROR_INVALID_VALUE, as cuLaunchKernel answers.
  EXPECT_EQ(cuFuncSetBlockShape(f, 0, 1, 1), CUDA_ERROR_INVALID_VALUE);
  CU(cuFuncSetBlockShape(f, 2048, 1, 1));
  EXPECT_EQ(cuLaunchGrid(f, 1, 1), CUDA_ERROR_INVALID_VALUE);
  // Parameters shorter than the kernel's are refused.
  CU(cuFuncSetBlockShape(f, 32, 1, 1));
  CU(cuParamSetSize(f, 8));
  EXPECT_EQ(cuLaunchGrid(f, 1, 1), CUDA_ERROR_INVALID_VALUE);
  // No texture reference: CUDA_ERROR_INVALID_VALUE (references: tests/cuda/texture_refs.cu).
  EXPECT_EQ(cuParamSetTexRef(f, CU_PARAM_TR_DEFAULT, nullptr), CUDA_ERROR_INVALID_VALUE);

  // Libraries: a managed variable (`.attribute(.managed)`) has an address the host can use;
  // a plain one is not managed (CUDA_ERROR_NOT_FOUND); no unified function of that name.
  CUlibrary l;
  CU(cuLibraryLoadData(&l, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUdeviceptr m = 0;
  size_t msize = 0;
  CU(cuLibraryGetManaged(&m, &msize, l, "managed_var"));
  EXPECT_EQ(msize, 4);
  EXPECT_EQ(*(unsigned*)m, 7);
  EXPECT_EQ(cuLibraryGetManaged(&m, &msize, l, "plain_var"), CUDA_ERROR_NOT_FOUND);
  void* fp = nullptr;
  EXPECT_EQ(cuLibraryGetUnifiedFunction(&fp, l, "fill"), CUDA_ERROR_NOT_FOUND);
  CU(cuLibraryUnload(l));

  // "Starting with CUDA 12.0, [cuProfilerInitialize] always returns CUDA_ERROR_NOT_SUPPORTED";
  // start and stop succeed (no profiler attached).
  // (cudaProfiler.h, which declares them, is not in the pip toolkit: taken with dlsym.)
  auto prof_init = sym<CUresult (*)(const char*, const char*, int)>(lib, "cuProfilerInitialize");
  auto prof_start = sym<CUresult (*)()>(lib, "cuProfilerStart");
  auto prof_stop = sym<CUresult (*)()>(lib, "cuProfilerStop");
  EXPECT_EQ(prof_init(nullptr, nullptr, 1), CUDA_ERROR_NOT_SUPPORTED);
  CU(prof_start());
  CU(prof_stop());

  // Attributes: what the driver has, as an H100 (driver 580.159) reports it.
  struct {
    CUdevice_attribute a;
    int want;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1},
      {CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, 1},
      {CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1},
      {CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT, 65000},
      {CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, 134217728},
      {CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, 32768000},
  };
  for (auto& t : attrs) {
    int v = -1;
    CU(cuDeviceGetAttribute(&v, t.a, dev));
    EXPECT_MSG(v == t.want, "attribute %d = %d, expected %d", (int)t.a, v, t.want);
  }
  // What MEMORY_POOLS_SUPPORTED promises: stream-ordered allocation.
  CUdeviceptr pa;
  CU(cuMemAllocAsync(&pa, 4096, s));
  CU(cuMemFreeAsync(pa, s));
  CU(cuStreamSynchronize(s));

  CU(cuMemFree_v2(out));
  CU(cuModuleUnload(mod));
  CU(event_destroy(e));
  CU(stream_destroy(s));
  CU(ctx_destroy(ctx));
  if (expect_failures) return 1;
  printf("PASS legacy_api\n");
  return 0;
}
