// The driver API used directly: a PTX string embedded in the program, loaded with
// cuModuleLoadData and launched with cuLaunchKernel. The PTX is hand-written (ptxas accepts it);
// the expected values are the integer arithmetic out[i] = in[i] * 3 + i. Copies with wild host
// pointers must fail with CUDA_ERROR_INVALID_VALUE (issue: never a crash) rather than fault.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <sys/mman.h>
#include "check.h"

static const char* kPtx = R"PTX(
.version 8.0
.target sm_80
.address_size 64

.visible .entry scale_add(
    .param .u64 out,
    .param .u64 in,
    .param .u32 n
)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<8>;
    .reg .b64   %rd<8>;

    ld.param.u64    %rd1, [out];
    ld.param.u64    %rd2, [in];
    ld.param.u32    %r1, [n];
    mov.u32         %r2, %ctaid.x;
    mov.u32         %r3, %ntid.x;
    mov.u32         %r4, %tid.x;
    mad.lo.s32      %r5, %r2, %r3, %r4;
    setp.ge.u32     %p1, %r5, %r1;
    @%p1 bra        DONE;
    cvta.to.global.u64  %rd3, %rd2;
    cvta.to.global.u64  %rd4, %rd1;
    mul.wide.u32    %rd5, %r5, 4;
    add.s64         %rd6, %rd3, %rd5;
    ld.global.u32   %r6, [%rd6];
    mad.lo.s32      %r7, %r6, 3, %r5;
    add.s64         %rd7, %rd4, %rd5;
    st.global.u32   [%rd7], %r7;
DONE:
    ret;
}
)PTX";

int main() {
  CU(cuInit(0));
  int count = 0;
  CU(cuDeviceGetCount(&count));
  if (count < 1) {
    printf("FAIL driver_api: no device\n");
    return 1;
  }
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  char name[256];
  CU(cuDeviceGetName(name, sizeof name, dev));
  CUcontext ctx;
  CU(cuCtxCreate(&ctx, nullptr, 0, dev));
  CUmodule mod;
  CU(cuModuleLoadData(&mod, kPtx));
  CUfunction fn;
  CU(cuModuleGetFunction(&fn, mod, "scale_add"));

  const unsigned n = 5000;
  std::vector<int> in(n), out(n, -1);
  for (unsigned i = 0; i < n; i++) in[i] = (int)(i * 37 % 1000) - 500;
  CUdeviceptr din, dout;
  CU(cuMemAlloc(&din, n * sizeof(int)));
  CU(cuMemAlloc(&dout, n * sizeof(int)));
  CU(cuMemcpyHtoD(din, in.data(), n * sizeof(int)));
  CU(cuMemsetD32(dout, 0xdeadbeef, n));
  unsigned nn = n;
  void* params[] = {&dout, &din, &nn};
  CU(cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(out.data(), dout, n * sizeof(int)));
  int bad = 0;
  for (unsigned i = 0; i < n; i++) {
    int want = in[i] * 3 + (int)i;
    if (out[i] != want && bad++ < 5) fprintf(stderr, "out[%u] = %d, want %d\n", i, out[i], want);
  }
  // Bad host pointers are CUDA_ERROR_INVALID_VALUE, never a crash: an unmapped page (0x10,
  // and a high address nothing maps), synchronous and asynchronous, either direction; and a
  // freed device pointer that cuMemcpy (unified addressing) would otherwise take for host
  // memory.
  void* wild[] = {(void*)0x10, (void*)0x7fff00000000ull};
  for (void* w : wild) {
    EXPECT_EQ(cuMemcpyHtoD(din, w, 64), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpyDtoH(w, din, 64), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpyHtoDAsync(din, w, 64, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpyDtoHAsync(w, din, 64, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuMemcpy(din, (CUdeviceptr)w, 64), CUDA_ERROR_INVALID_VALUE);
  }
  CUdeviceptr gone;
  CU(cuMemAlloc(&gone, 4096));
  CU(cuMemFree(gone));
  EXPECT_EQ(cuMemcpy((CUdeviceptr)out.data(), gone, 64), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpy(gone, (CUdeviceptr)in.data(), 64), CUDA_ERROR_INVALID_VALUE);
  // A host range whose last page is unmapped fails whole; the mapped part alone copies.
  char* page = (char*)mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
  REQUIRE(page != MAP_FAILED && munmap(page + 4096, 4096) == 0);
  EXPECT_EQ(cuMemcpyHtoD(din, page + 4096 - 16, 64), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyHtoD(din, page + 4096 - 64, 64), CUDA_SUCCESS);
  munmap(page, 4096);
  // What the driver's JIT refuses does not load: a non-ASCII byte in a comment is
  // CUDA_ERROR_INVALID_PTX (measured on an H100, driver 580.159, 2026-11-26:
  // scripts/ground-truth/results/driver-h100.txt; ptxas 13.5 itself takes it); a kernel with
  // 48 KiB + 1 of static shared memory is CUDA_ERROR_INVALID_PTX (ptxas 13.5 -arch=sm_90);
  // variables that do not fit in the device's memory (100 GiB on an 80 GiB device; ptxas
  // takes them) are CUDA_ERROR_OUT_OF_MEMORY (measured as above).
  {
    CUmodule m2;
    const char* latin1 =
        ".version 8.0\n.target sm_80\n.address_size 64\n// caf\xe9 au lait\n"
        ".visible .entry k(.param .u64 p) { ret; }\n";
    EXPECT_EQ(cuModuleLoadData(&m2, latin1), CUDA_ERROR_INVALID_PTX);
    const char* shared =
        ".version 8.0\n.target sm_80\n.address_size 64\n.shared .align 4 .b8 s[49153];\n"
        ".visible .entry k(.param .u64 p) { .reg .b64 %r<3>; mov.u64 %r1, s; "
        "ld.param.u64 %r2, [p]; st.global.u64 [%r2], %r1; ret; }\n";
    EXPECT_EQ(cuModuleLoadData(&m2, shared), CUDA_ERROR_INVALID_PTX);
    const char* huge =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".global .align 8 .b8 g[107374182400];\n"
        ".visible .entry k(.param .u64 p) { .reg .b64 %r<3>; mov.u64 %r1, g; "
        "ld.param.u64 %r2, [p]; st.global.u64 [%r2], %r1; ret; }\n";
    EXPECT_EQ(cuModuleLoadData(&m2, huge), CUDA_ERROR_OUT_OF_MEMORY);
  }
  // An unknown name, with a status to report it: CUDA_SUCCESS, a NULL function and
  // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND (measured on an H100, driver 580.159).
  void* fn_ptr = (void*)1;
  CUdriverProcAddressQueryResult q = CU_GET_PROC_ADDRESS_SUCCESS;
  EXPECT_EQ(cuGetProcAddress("cuNoSuchFunction", &fn_ptr, 13000, 0, &q), CUDA_SUCCESS);
  EXPECT(fn_ptr == nullptr);
  EXPECT_EQ(q, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  CU(cuCtxSynchronize());
  if (expect_failures) bad++;
  CU(cuMemFree(din));
  CU(cuMemFree(dout));
  CU(cuModuleUnload(mod));
  CU(cuCtxDestroy(ctx));
  if (bad) {
    printf("FAIL driver_api: %d of %u wrong\n", bad, n);
    return 1;
  }
  printf("PASS driver_api: %u elements on %s\n", n, name);
  return 0;
}
