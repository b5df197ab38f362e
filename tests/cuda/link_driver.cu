// The JIT linker through the driver API: two hand-written PTX modules, one of which calls an
// `.extern .func` and reads an `.extern .global` defined in the other, linked with
// cuLinkCreate/cuLinkAddData/cuLinkComplete and loaded with cuModuleLoadData and
// cuLibraryLoadData. Expected values: out[i] = poly(i) + bias = i*i + 7 + 100 (then 1000 after
// the program writes `bias` through cuModuleGetGlobal: the user's extern is the same variable).
// Also: the error log of an undefined reference, NVIDIA's device runtime left out with a note
// (argv[1] = path of libcudadevrt.a), and the errors for inputs without PTX.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "check.h"

static const char* kUser = R"PTX(
.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 r) poly (.param .b32 x);
.extern .global .align 4 .u32 bias;

.visible .entry apply(.param .u64 out, .param .u32 n)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<10>;
    .reg .b64   %rd<4>;

    ld.param.u64    %rd1, [out];
    ld.param.u32    %r1, [n];
    mov.u32         %r2, %ctaid.x;
    mov.u32         %r3, %ntid.x;
    mov.u32         %r4, %tid.x;
    mad.lo.s32      %r5, %r2, %r3, %r4;
    setp.ge.u32     %p1, %r5, %r1;
    @%p1 bra        DONE;
    {
    .param .b32 x0;
    .param .b32 r0;
    st.param.b32    [x0], %r5;
    call.uni (r0), poly, (x0);
    ld.param.b32    %r6, [r0];
    }
    ld.global.u32   %r7, [bias];
    add.s32         %r8, %r6, %r7;
    mul.wide.u32    %rd2, %r5, 4;
    add.s64         %rd3, %rd1, %rd2;
    st.global.u32   [%rd3], %r8;
DONE:
    ret;
}
)PTX";

static const char* kLib = R"PTX(
.version 8.0
.target sm_80
.address_size 64

.visible .global .align 4 .u32 bias = 100;

// Private helper: the user module cannot see it.
.func (.param .b32 r) square (.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32    %r1, [x];
    mul.lo.s32      %r2, %r1, %r1;
    st.param.b32    [r], %r2;
    ret;
}

.visible .func (.param .b32 r) poly (.param .b32 x)
{
    .reg .b32 %r<4>;
    ld.param.b32    %r1, [x];
    {
    .param .b32 a;
    .param .b32 b;
    st.param.b32    [a], %r1;
    call.uni (b), square, (a);
    ld.param.b32    %r2, [b];
    }
    add.s32         %r3, %r2, 7;
    st.param.b32    [r], %r3;
    ret;
}
)PTX";

static const int N = 100;

static void run(CUfunction f, unsigned b) {
  CUdeviceptr d;
  CU(cuMemAlloc(&d, N * sizeof(unsigned)));
  int n = N;
  void* args[] = {&d, &n};
  CU(cuLaunchKernel(f, 4, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  std::vector<unsigned> h(N);
  CU(cuMemcpyDtoH(h.data(), d, N * sizeof(unsigned)));
  for (int i = 0; i < N; ++i) {
    unsigned want = (unsigned)(i * i + 7) + b;
    if (h[i] != want) {
      fprintf(stderr, "out[%d] = %u, want %u\n", i, h[i], want);
      exit(1);
    }
  }
  CU(cuMemFree(d));
}

int main(int argc, char** argv) {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));

  // A successful link, with logs.
  char info[1024] = {0}, error[1024] = {0};
  CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_LOG_VERBOSE};
  void* vals[] = {info, (void*)sizeof info, error, (void*)sizeof error, (void*)1};
  CUlinkState link;
  CU(cuLinkCreate(5, opts, vals, &link));
  CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)kUser, strlen(kUser) + 1, "user.ptx", 0,
                   nullptr, nullptr));
  CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)kLib, strlen(kLib), "lib.ptx", 0, nullptr,
                   nullptr));
  if (argc > 1) {
    // NVIDIA's device runtime: nothing references it, so it is left out (with a note).
    CU(cuLinkAddFile(link, CU_JIT_INPUT_LIBRARY, argv[1], 0, nullptr, nullptr));
  }
  void* image = nullptr;
  size_t size = 0;
  CU(cuLinkComplete(link, &image, &size));
  REQUIRE(image != nullptr && size > 0);
  REQUIRE((size_t)vals[3] == 0 && error[0] == 0);
  REQUIRE((size_t)vals[1] == strlen(info) && strlen(info) > 0);
  if (argc > 1) REQUIRE(strstr(info, "device runtime") != nullptr);

  CUmodule mod;
  CU(cuModuleLoadData(&mod, image));
  CUfunction f;
  CU(cuModuleGetFunction(&f, mod, "apply"));
  run(f, 100);
  // The extern `bias` of the user module is the library's variable.
  CUdeviceptr bias;
  size_t bytes = 0;
  CU(cuModuleGetGlobal(&bias, &bytes, mod, "bias"));
  REQUIRE(bytes == 4);
  unsigned thousand = 1000;
  CU(cuMemcpyHtoD(bias, &thousand, 4));
  run(f, 1000);
  // The private helper of lib.ptx is not a kernel of the module.
  CUfunction g;
  REQUIRE(cuModuleGetFunction(&g, mod, "square") == CUDA_ERROR_NOT_FOUND);
  CU(cuModuleUnload(mod));

  // The same image through the library API (what cudart uses).
  CUlibrary lib;
  CU(cuLibraryLoadData(&lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel k;
  CU(cuLibraryGetKernel(&k, lib, "apply"));
  CU(cuKernelGetFunction(&f, k));
  run(f, 100);
  CU(cuLibraryUnload(lib));
  CU(cuLinkDestroy(link));
  REQUIRE(cuLinkDestroy(link) == CUDA_ERROR_INVALID_HANDLE);

  // An undefined reference: the error log names the symbol and where it is used.
  memset(error, 0, sizeof error);
  vals[1] = (void*)sizeof info;
  vals[3] = (void*)sizeof error;
  CU(cuLinkCreate(5, opts, vals, &link));
  CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)kUser, strlen(kUser), "user.ptx", 0, nullptr,
                   nullptr));
  REQUIRE(cuLinkComplete(link, &image, &size) == CUDA_ERROR_INVALID_IMAGE);
  REQUIRE(strstr(error, "user.ptx:27:") != nullptr);
  REQUIRE(strstr(error, "Undefined reference to 'poly'") != nullptr);
  REQUIRE((size_t)vals[3] == strlen(error));
  // Inputs without PTX are refused precisely; the link stays usable.
  const char elf[] = "\x7f" "ELF";
  REQUIRE(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, (void*)elf, sizeof elf, "k.cubin", 0, nullptr,
                       nullptr) == CUDA_ERROR_NO_BINARY_FOR_GPU);
  REQUIRE(cuLinkAddData(link, CU_JIT_INPUT_NVVM, (void*)elf, sizeof elf, "k.ltoir", 0, nullptr,
                       nullptr) == CUDA_ERROR_NOT_SUPPORTED);
  REQUIRE(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)"garbage", 8, "bad.ptx", 0, nullptr,
                       nullptr) == CUDA_ERROR_INVALID_PTX);
  CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)kLib, strlen(kLib), "lib.ptx", 0, nullptr,
                   nullptr));
  CU(cuLinkComplete(link, &image, &size));
  CU(cuModuleLoadData(&mod, image));
  CU(cuModuleGetFunction(&f, mod, "apply"));
  run(f, 100);
  CU(cuModuleUnload(mod));
  CU(cuLinkDestroy(link));
  printf("PASS link_driver\n");
  return 0;
}
