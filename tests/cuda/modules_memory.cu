// Modules and libraries (JIT options and logs, loading from files, cubins refused with rebuild
// advice, enumeration, globals, kernel and function queries), memory accounting against the
// profile's memory size (device, pitched, managed, pooled allocations) and pointer attributes,
// through the driver API. Expected values follow the CUDA driver API documentation (cuda.h).
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include "check.h"

static const char* kPtx = R"PTX(
.version 8.0
.target sm_80
.address_size 64

.global .align 4 .u32 counter[4];
.global .align 8 .f64 table[10];

.visible .entry first(
    .param .u64 out,
    .param .u32 n
)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ret;
}

.visible .entry second(
    .param .u32 a,
    .param .u64 b,
    .param .align 16 .b8 c[32]
)
{
    ret;
}
)PTX";

static const char* kBadPtx = R"PTX(
.version 8.0
.target sm_80
.address_size 64
.visible .entry broken()
{
    frobnicate.u32 %r1;
    ret;
}
)PTX";

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuCtxCreate(&ctx, nullptr, 0, dev));

  // ---- JIT options: logs written back with their sizes, wall time, the rest accepted.
  char info[256], error[256];
  memset(info, 'x', sizeof info);
  memset(error, 'x', sizeof error);
  float wall = -1.0f;
  CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_WALL_TIME, CU_JIT_LOG_VERBOSE, CU_JIT_OPTIMIZATION_LEVEL,
                         CU_JIT_TARGET_FROM_CUCONTEXT};
  void* vals[] = {info, (void*)sizeof info, error, (void*)sizeof error, nullptr,
                  (void*)1, (void*)4, nullptr};
  CUmodule mod;
  CU(cuModuleLoadDataEx(&mod, kPtx, 8, opts, vals));
  memcpy(&wall, &vals[4], sizeof wall);
  EXPECT(wall >= 0.0f);
  EXPECT((size_t)vals[1] == strlen(info) && strlen(info) > 0);
  EXPECT((size_t)vals[3] == 0 && error[0] == 0);

  void* bad_vals[] = {info, (void*)sizeof info, error, (void*)sizeof error, nullptr,
                      (void*)1, (void*)4, nullptr};
  CUmodule broken;
  EXPECT(cuModuleLoadDataEx(&broken, kBadPtx, 8, opts, bad_vals) == CUDA_ERROR_INVALID_PTX);
  EXPECT((size_t)bad_vals[3] == strlen(error) && strstr(error, "frobnicate") != nullptr);
  CUjit_option unknown[] = {(CUjit_option)999};
  void* unknown_vals[] = {nullptr};
  EXPECT(cuModuleLoadDataEx(&broken, kPtx, 1, unknown, unknown_vals) == CUDA_ERROR_INVALID_VALUE);

  // A cubin (ELF) cannot run here: NO_BINARY_FOR_GPU, and the log says how to rebuild.
  static const unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  void* elf_vals[] = {info, (void*)sizeof info, error, (void*)sizeof error, nullptr,
                      (void*)1, (void*)4, nullptr};
  EXPECT(cuModuleLoadDataEx(&broken, elf, 8, opts, elf_vals) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT(strstr(error, "compute_80") != nullptr);

  // ---- Functions of a module.
  unsigned count = 0;
  CU(cuModuleGetFunctionCount(&count, mod));
  EXPECT(count == 2);
  CUfunction fns[2] = {}, first, second;
  CU(cuModuleEnumerateFunctions(fns, 2, mod));
  CU(cuModuleGetFunction(&first, mod, "first"));
  CU(cuModuleGetFunction(&second, mod, "second"));
  EXPECT(fns[0] == first && fns[1] == second);
  EXPECT(cuModuleEnumerateFunctions(fns, 0, mod) == CUDA_ERROR_INVALID_VALUE);
  size_t offset = 0, size = 0;
  CU(cuFuncGetParamInfo(second, 1, &offset, &size));
  EXPECT(offset == 8 && size == 8);
  CU(cuFuncGetParamInfo(second, 2, &offset, &size));
  EXPECT(offset == 16 && size == 32);
  EXPECT(cuFuncGetParamInfo(second, 3, &offset, &size) == CUDA_ERROR_INVALID_VALUE);
  CUmodule owner = nullptr;
  CU(cuFuncGetModule(&owner, first));
  EXPECT(owner == mod);
  CUfunctionLoadingState state;
  CU(cuFuncIsLoaded(&state, first));
  EXPECT(state == CU_FUNCTION_LOADING_STATE_LOADED);
  CU(cuFuncLoad(first));
  const char* name = nullptr;
  CU(cuFuncGetName(&name, second));
  EXPECT(strcmp(name, "second") == 0);
  CUdeviceptr gptr = 0;
  size_t gsize = 0;
  CU(cuModuleGetGlobal(&gptr, &gsize, mod, "counter"));
  EXPECT(gptr != 0 && gsize == 16);
  CU(cuModuleGetGlobal(nullptr, &gsize, mod, "table"));
  EXPECT(gsize == 80);
  EXPECT(cuModuleGetGlobal(&gptr, &gsize, mod, "nothing") == CUDA_ERROR_NOT_FOUND);

  // ---- Loading from files: a module and a library.
  char path[] = "/tmp/cuda-shim-modules-XXXXXX";
  int fd = mkstemp(path);
  EXPECT(fd >= 0);
  EXPECT(write(fd, kPtx, strlen(kPtx)) == (ssize_t)strlen(kPtx));
  close(fd);
  CUmodule from_file;
  CU(cuModuleLoad(&from_file, path));
  CU(cuModuleGetFunctionCount(&count, from_file));
  EXPECT(count == 2);
  CU(cuModuleUnload(from_file));
  EXPECT(cuModuleLoad(&from_file, "/nonexistent/kernel.ptx") == CUDA_ERROR_FILE_NOT_FOUND);
  CUlibrary lib;
  CU(cuLibraryLoadFromFile(&lib, path, nullptr, nullptr, 0, nullptr, nullptr, 0));
  unlink(path);

  // ---- Kernels of a library.
  CU(cuLibraryGetKernelCount(&count, lib));
  EXPECT(count == 2);
  CUkernel kernels[2] = {}, k_second;
  CU(cuLibraryEnumerateKernels(kernels, 2, lib));
  CU(cuLibraryGetKernel(&k_second, lib, "second"));
  EXPECT(kernels[1] == k_second);
  CUlibrary back = nullptr;
  CU(cuKernelGetLibrary(&back, k_second));
  EXPECT(back == lib);
  CU(cuKernelGetName(&name, kernels[0]));
  EXPECT(strcmp(name, "first") == 0);
  CU(cuKernelGetParamInfo(k_second, 0, &offset, &size));
  EXPECT(offset == 0 && size == 4);
  CU(cuLibraryGetGlobal(&gptr, &gsize, lib, "table"));
  EXPECT(gsize == 80);
  CUfunction kf;
  CU(cuKernelGetFunction(&kf, k_second));
  CUmodule lib_mod, kf_mod;
  CU(cuLibraryGetModule(&lib_mod, lib));
  CU(cuFuncGetModule(&kf_mod, kf));
  EXPECT(lib_mod == kf_mod);

  // ---- Memory accounting: free memory follows allocations of every kind.
  size_t free0 = 0, total = 0, free1 = 0;
  CU(cuMemGetInfo(&free0, &total));
  EXPECT(total == (80ull << 30));
  CUdeviceptr d1, pitched, managed, pooled;
  CU(cuMemAlloc(&d1, 1 << 20));
  CU(cuMemGetInfo(&free1, &total));
  EXPECT(free0 - free1 == (1 << 20));
  size_t pitch = 0;
  CU(cuMemAllocPitch(&pitched, &pitch, 1000, 10, 4));  // rows of 1024 bytes
  CU(cuMemGetInfo(&free1, &total));
  EXPECT(pitch == 1024 && free0 - free1 == (1 << 20) + 10240);
  CU(cuMemAllocManaged(&managed, 4096, CU_MEM_ATTACH_GLOBAL));
  CU(cuMemAllocAsync(&pooled, 8192, nullptr));
  CU(cuCtxSynchronize());
  CU(cuMemGetInfo(&free1, &total));
  EXPECT(free0 - free1 == (1 << 20) + 10240 + 4096 + 8192);

  // ---- Pointer attributes.
  CUcontext actx = nullptr;
  unsigned type = 0, is_managed = 9, mapped = 0, access = 0;
  int ordinal = -1;
  unsigned long long id1 = 0, id2 = 0;
  CUdeviceptr start = 0;
  size_t range = 0;
  CUmemoryPool pool = nullptr, default_pool = nullptr;
  void* hostp = nullptr;
  CU(cuPointerGetAttribute(&actx, CU_POINTER_ATTRIBUTE_CONTEXT, d1 + 5));
  CU(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d1 + 5));
  CU(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d1 + 5));
  CU(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d1 + 5));
  CU(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d1 + 5));
  CU(cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d1 + 5));
  CU(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, d1 + 5));
  CU(cuPointerGetAttribute(&access, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, d1 + 5));
  CU(cuPointerGetAttribute(&id1, CU_POINTER_ATTRIBUTE_BUFFER_ID, d1 + 5));
  CU(cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, d1 + 5));
  EXPECT(actx == ctx && type == CU_MEMORYTYPE_DEVICE && is_managed == 0 && ordinal == 0);
  EXPECT(start == d1 && range == (1 << 20) && mapped == 1);
  EXPECT(access == CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE && id1 != 0 && pool == nullptr);
  EXPECT(cuPointerGetAttribute(&hostp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d1) == CUDA_ERROR_INVALID_VALUE);
  CU(cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, pitched));
  EXPECT(id2 != id1);
  CU(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed));
  CU(cuPointerGetAttribute(&hostp, CU_POINTER_ATTRIBUTE_HOST_POINTER, managed));
  EXPECT(is_managed == 1 && hostp == (void*)managed);
  CU(cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, pooled));
  CU(cuDeviceGetDefaultMemPool(&default_pool, dev));
  EXPECT(pool == default_pool && pool != nullptr);
  void* pinned = nullptr;
  CU(cuMemHostAlloc(&pinned, 4096, 0));
  CU(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)pinned));
  EXPECT(type == CU_MEMORYTYPE_HOST);
  CU(cuMemFreeHost(pinned));
  // Memory no CUDA API knows: an error here, NULL values from cuPointerGetAttributes.
  int local = 0;
  EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)&local) ==
         CUDA_ERROR_INVALID_VALUE);
  CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR};
  type = 7;
  start = 7;
  void* data[2] = {&type, &start};
  CU(cuPointerGetAttributes(2, attrs, data, (CUdeviceptr)&local));
  EXPECT(type == 0 && start == 0);
  CUdeviceptr base = 0;
  EXPECT(cuMemGetAddressRange(&base, &range, (CUdeviceptr)&local) == CUDA_ERROR_NOT_FOUND);
  CU(cuMemGetAddressRange(&base, &range, pitched + 5000));
  EXPECT(base == pitched && range == 10240);

  // A buffer ID is never reused, even for a new allocation at the same address.
  CU(cuMemFree(d1));
  CUdeviceptr d2;
  CU(cuMemAlloc(&d2, 1 << 20));
  CU(cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, d2));
  EXPECT(id2 != id1);

  CU(cuMemFree(d2));
  CU(cuMemFree(pitched));
  CU(cuMemFree(managed));
  CU(cuMemFreeAsync(pooled, nullptr));
  CU(cuCtxSynchronize());
  CU(cuMemGetInfo(&free1, &total));
  EXPECT(free1 == free0);

  CU(cuLibraryUnload(lib));
  CU(cuModuleUnload(mod));
  if (expect_failures == 0) printf("PASS modules_memory\n");
  return expect_failures == 0 ? 0 : 1;
}
