// Module variables start zero-filled where their initializers end, and wholly without one (PTX
// ISA 5.4.4: "variables that are not explicitly initialized are initialized to zero by
// default"; a shorter initializer list fills the leading elements), even when the module is
// loaded into memory that an unloaded module left dirty. numba-cuda's constant arrays have this
// shape: `.const .align 16 .b8 _cudapy_cmem[32] = {...}` with 25 initializer bytes.
//
// Module "dirty" has variables of the same sizes and order as module "clean"; the program fills
// every byte of them with 0xA5 (cuMemsetD8 through cuModuleGetGlobal), unloads it and loads
// "clean" (the allocator then reuses the freed memory), several times over. Expected: the
// initializers' bytes, then zeros, read both by cuMemcpyDtoH and by a kernel.
#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "check.h"

static const char* kDirty = R"PTX(
.version 8.0
.target sm_80
.address_size 64
.const .align 16 .b8 cmem[32];
.global .align 4 .u32 garr[40];
.global .align 8 .u64 gnone[3];
.global .align 4 .f32 gscalar;
.visible .entry touch() { ret; }
)PTX";

static const char* kClean = R"PTX(
.version 8.0
.target sm_80
.address_size 64
.const .align 16 .b8 cmem[32] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 64, 4};
.global .align 4 .u32 garr[40] = {7, 8, 9};
.global .align 8 .u64 gnone[3];
.global .align 4 .f32 gscalar;

// out[0..32) = cmem bytes, out[32..192) = garr bytes, out[192..216) = gnone, out[216..220) =
// gscalar; one thread per byte.
.visible .entry dump(.param .u64 out)
{
    .reg .pred  %p<4>;
    .reg .b16   %h<2>;
    .reg .b32   %r<4>;
    .reg .b64   %rd<8>;
    ld.param.u64    %rd1, [out];
    mov.u32         %r1, %tid.x;
    cvt.u64.u32     %rd2, %r1;
    add.s64         %rd3, %rd1, %rd2;
    setp.lt.u32     %p1, %r1, 32;
    @!%p1 bra       G;
    mov.u64         %rd4, cmem;
    add.s64         %rd4, %rd4, %rd2;
    ld.const.u8     %h1, [%rd4];
    st.global.u8    [%rd3], %h1;
    ret;
G:
    setp.lt.u32     %p2, %r1, 192;
    @!%p2 bra       N;
    mov.u64         %rd4, garr;
    add.s64         %rd4, %rd4, %rd2;
    ld.global.u8    %h1, [%rd4+-32];
    st.global.u8    [%rd3], %h1;
    ret;
N:
    setp.lt.u32     %p3, %r1, 216;
    @!%p3 bra       S;
    mov.u64         %rd4, gnone;
    add.s64         %rd4, %rd4, %rd2;
    ld.global.u8    %h1, [%rd4+-192];
    st.global.u8    [%rd3], %h1;
    ret;
S:
    mov.u64         %rd4, gscalar;
    add.s64         %rd4, %rd4, %rd2;
    ld.global.u8    %h1, [%rd4+-216];
    st.global.u8    [%rd3], %h1;
    ret;
}
)PTX";

struct Var {
  const char* name;
  size_t size;
};
static const Var kVars[] = {{"cmem", 32}, {"garr", 160}, {"gnone", 24}, {"gscalar", 4}};

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuCtxCreate(&ctx, nullptr, 0, dev));

  // What the clean module must hold: its initializers, zeros elsewhere.
  std::vector<uint8_t> want(220, 0);
  const uint8_t cinit[25] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 64, 4};
  memcpy(want.data(), cinit, sizeof cinit);
  const uint32_t ginit[3] = {7, 8, 9};
  memcpy(want.data() + 32, ginit, sizeof ginit);

  CUdeviceptr out;
  CU(cuMemAlloc(&out, 256));
  for (int round = 0; round < 3; ++round) {
    CUmodule dirty;
    CU(cuModuleLoadData(&dirty, kDirty));
    for (const Var& v : kVars) {
      CUdeviceptr p;
      size_t bytes;
      CU(cuModuleGetGlobal(&p, &bytes, dirty, v.name));
      if (bytes != v.size) {
        fprintf(stderr, "dirty %s: %zu bytes, expected %zu\n", v.name, bytes, v.size);
        expect_failures++;
      }
      CU(cuMemsetD8(p, 0xA5, bytes));
    }
    CU(cuModuleUnload(dirty));

    CUmodule clean;
    CU(cuModuleLoadData(&clean, kClean));
    std::vector<uint8_t> host(220);
    size_t off = 0;
    for (const Var& v : kVars) {
      CUdeviceptr p;
      size_t bytes;
      CU(cuModuleGetGlobal(&p, &bytes, clean, v.name));
      CU(cuMemcpyDtoH(host.data() + off, p, bytes));
      off += bytes;
    }
    CUfunction f;
    CU(cuModuleGetFunction(&f, clean, "dump"));
    CU(cuMemsetD8(out, 0xEE, 256));
    void* args[] = {&out};
    CU(cuLaunchKernel(f, 1, 1, 1, 220, 1, 1, 0, nullptr, args, nullptr));
    std::vector<uint8_t> dev_read(220);
    CU(cuMemcpyDtoH(dev_read.data(), out, 220));
    for (int i = 0; i < 220; ++i) {
      if (host[i] != want[i] || dev_read[i] != want[i]) {
        if (expect_failures++ < 20)
          fprintf(stderr, "round %d byte %d: copied 0x%02x, kernel read 0x%02x, expected 0x%02x\n",
                  round, i, host[i], dev_read[i], want[i]);
      }
    }
    // Dirty the clean module's variables too: the next round's clean module reuses them.
    for (const Var& v : kVars) {
      CUdeviceptr p;
      size_t bytes;
      CU(cuModuleGetGlobal(&p, &bytes, clean, v.name));
      CU(cuMemsetD8(p, 0x5A, bytes));
    }
    CU(cuModuleUnload(clean));
  }
  CU(cuMemFree(out));
  CU(cuCtxDestroy(ctx));
  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}
