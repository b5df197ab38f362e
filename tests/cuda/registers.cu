// Registers per thread as ptxas allocates them, and the function attributes that describe a
// compiled kernel (cudaFuncGetAttributes / cuFuncGetAttribute), with the launches they allow.
//
// Expected values and where they come from:
// - registers: `ptxas -arch=sm_90 -v` 13.5 on this file's PTX (nvcc -gencode
//   arch=compute_80,code=compute_80 -O2): transpose 12 registers, block_sum 12, uses_const 10, heavy 167,
//   heavy_1024 64, heavy_256x4 64, heavy_maxnreg 40; on the hand-written PTX below, 206 with no
//   limit, exactly the limit under -maxrregcount 38 and 57, 24 for 10 ("adjusting per thread
//   register count of 10 to lower bound of 24"), 64 for .maxntid 1024. The shim estimates,
//   so small kernels are checked within a band; bounds and limits exactly (at most the limit).
//   A launch is refused for registers exactly when regs x threads (warps rounded up) exceed the
//   65536 registers of a block: so a 1024-thread block of `heavy` fails on an H100 too
//   (cudaErrorLaunchOutOfResources), and every kernel within its launch bounds runs.
// - constSizeBytes: 400 for every kernel of a module declaring `__constant__ int cdata[100]`,
//   whether it reads it or not; ptxVersion 80 for compute_80 PTX; binaryVersion 90 (measured on
//   an H100, driver 580, CUDA 13.0). ptxVersion is the `.target` architecture, whatever the
//   `.version`: CUB's PtxVersion() takes it times 10 as "the PTX virtual architecture".
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include "check.h"

// Registers within a band of ptxas's count: the estimate is within a third of it, or 8.
static void expect_near(const char* what, int regs, int ptxas) {
  int slack = ptxas / 3 > 8 ? ptxas / 3 : 8;
  if (regs < 1 || regs > 255 || regs < ptxas - slack || regs > ptxas + slack) {
    printf("FAIL %s: %d registers, ptxas %d\n", what, regs, ptxas);
    expect_failures++;
  }
}

__constant__ int cdata[100];

__global__ void uses_const(int* out) { out[threadIdx.x] = cdata[threadIdx.x % 100]; }

// numba-cuda's shared-memory transpose (its documentation's example): one 32x32 tile per block.
__global__ void transpose(const float* in, float* out, int n) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

// A CuPy-style reduction: a grid-stride loop, then the block's partial sums through shared
// memory and warp shuffles.
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float warp_sums[32];
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += in[i];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffff, s, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffff, s, o);
    if (threadIdx.x == 0) atomicAdd(out, s);
  }
}

// 160 values live at once: loaded (volatile, so none is folded), then combined in reverse.
#define HEAVY_BODY                                                     \
  float v[160];                                                        \
  _Pragma("unroll") for (int k = 0; k < 160; k++) v[k] = in[k * 32 + threadIdx.x % 32]; \
  float s = 0;                                                         \
  _Pragma("unroll") for (int k = 159; k >= 0; k--) s = s * v[k] + v[159 - k];            \
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;

__global__ void heavy(volatile const float* in, float* out) { HEAVY_BODY }
__global__ void __launch_bounds__(1024) heavy_1024(volatile const float* in, float* out) {
  HEAVY_BODY
}
__global__ void __launch_bounds__(256, 4) heavy_256x4(volatile const float* in, float* out) {
  HEAVY_BODY
}
__global__ void __maxnreg__(40) heavy_maxnreg(volatile const float* in, float* out) { HEAVY_BODY }

static float heavy_reference(const float* in, int lane) {
  float v[160];
  for (int k = 0; k < 160; k++) v[k] = in[k * 32 + lane];
  float s = 0;
  for (int k = 159; k >= 0; k--) s = s * v[k] + v[159 - k];
  return s;
}

// PTX with 200 live f32 values (ptxas: 206 registers); `bounds` is spliced after the entry's
// parameters, `version` and `target` into the header.
static std::string heavy_ptx(const char* version, const char* target, const char* bounds) {
  std::string s = std::string(".version ") + version + "\n.target " + target +
                  "\n.address_size 64\n.visible .entry heavy(.param .u64 p) " + bounds +
                  " {\n .reg .b64 %rd<4>;\n .reg .f32 %f<402>;\n"
                  " ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd2, %rd1;\n";
  char line[128];
  for (int i = 0; i < 200; i++) {
    snprintf(line, sizeof line, " ld.volatile.global.f32 %%f%d, [%%rd2+%d];\n", i, 4 * i);
    s += line;
  }
  s += " mov.f32 %f200, 0f00000000;\n";
  for (int i = 0; i < 200; i++) {
    snprintf(line, sizeof line, " fma.rn.f32 %%f%d, %%f%d, %%f%d, %%f%d;\n", 201 + i, 200 + i,
             200 + i, 199 - i);
    s += line;
  }
  s += " st.global.f32 [%rd2], %f400;\n ret;\n}\n";
  return s;
}

static int func_regs(CUfunction f) {
  int v = -1;
  CU(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
  return v;
}

// Loads `ptx` with CU_JIT_MAX_REGISTERS = max_regs (0: no option) and returns `heavy`.
static CUfunction load_heavy(const std::string& ptx, unsigned max_regs, CUmodule* mod) {
  CUjit_option opt[] = {CU_JIT_MAX_REGISTERS};
  void* val[] = {(void*)(size_t)max_regs};
  CU(cuModuleLoadDataEx(mod, ptx.c_str(), max_regs ? 1 : 0, max_regs ? opt : nullptr,
                        max_regs ? val : nullptr));
  CUfunction f;
  CU(cuModuleGetFunction(&f, *mod, "heavy"));
  return f;
}

static void runtime_attributes() {
  cudaFuncAttributes a = {};
  // Every kernel of the module is given the module's 400-byte user constant bank.
  for (const void* k : {(const void*)uses_const, (const void*)transpose, (const void*)heavy}) {
    EXPECT(cudaFuncGetAttributes(&a, k) == cudaSuccess);
    EXPECT_EQ(a.constSizeBytes, 400);
    EXPECT_EQ(a.ptxVersion, 80);
    EXPECT_EQ(a.binaryVersion, 90);
  }
  EXPECT(cudaFuncGetAttributes(&a, transpose) == cudaSuccess);
  expect_near("transpose", a.numRegs, 12);
  EXPECT(cudaFuncGetAttributes(&a, block_sum) == cudaSuccess);
  expect_near("block_sum", a.numRegs, 12);
  EXPECT(cudaFuncGetAttributes(&a, heavy) == cudaSuccess);
  expect_near("heavy", a.numRegs, 167);
  EXPECT(a.numRegs > 64);  // so 1024 threads cannot fit, as on the GPU
  // The launch check of cuda_occupancy.h: registers per warp in units of 256, a block's warps
  // rounded up to the 4 register file partitions.
  EXPECT_EQ(a.maxThreadsPerBlock, 65536 / (((a.numRegs * 32 + 255) / 256 * 256)) / 4 * 4 * 32);
  EXPECT(cudaFuncGetAttributes(&a, heavy_1024) == cudaSuccess);
  EXPECT(a.numRegs <= 64 && a.numRegs >= 48);
  EXPECT_EQ(a.maxThreadsPerBlock, 1024);
  EXPECT(cudaFuncGetAttributes(&a, heavy_256x4) == cudaSuccess);
  EXPECT(a.numRegs <= 64 && a.numRegs >= 48);
  EXPECT_EQ(a.maxThreadsPerBlock, 256);
  EXPECT(cudaFuncGetAttributes(&a, heavy_maxnreg) == cudaSuccess);
  EXPECT(a.numRegs <= 40 && a.numRegs >= 24);
  int blocks = 0;
  EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, heavy_256x4, 256, 0) ==
        cudaSuccess);
  EXPECT(blocks >= 4);
}

static void runtime_launches() {
  // The transpose with 32x32 = 1024 threads per block.
  const int n = 64;
  float *in, *out;
  EXPECT(cudaMallocManaged(&in, n * n * sizeof(float)) == cudaSuccess);
  EXPECT(cudaMallocManaged(&out, n * n * sizeof(float)) == cudaSuccess);
  for (int i = 0; i < n * n; i++) in[i] = (float)i;
  transpose<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(in, out, n);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int bad = 0;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++) bad += out[y * n + x] != in[x * n + y];
  EXPECT_EQ(bad, 0);
  // The reduction with 512 and 1024 threads per block.
  const int m = 100000;
  float* data;
  EXPECT(cudaMallocManaged(&data, m * sizeof(float)) == cudaSuccess);
  for (int i = 0; i < m; i++) data[i] = (float)(i % 7);
  double want = 0;
  for (int i = 0; i < m; i++) want += i % 7;
  for (int threads : {512, 1024}) {
    *out = 0;
    block_sum<<<16, threads>>>(data, out, m);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT(*out == (float)want);  // integers below 2^24: exact in any order
  }
  // Heavy kernels: without bounds a 1024-thread block needs more registers than a block has;
  // with bounds it runs, and gives the same results.
  float *hin, *hout;
  EXPECT(cudaMallocManaged(&hin, 160 * 32 * sizeof(float)) == cudaSuccess);
  EXPECT(cudaMallocManaged(&hout, 1024 * sizeof(float)) == cudaSuccess);
  for (int i = 0; i < 160 * 32; i++) hin[i] = (float)((i * 37) % 11) / 8.0f - 0.5f;
  heavy<<<1, 1024>>>(hin, hout);
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchOutOfResources);
  heavy<<<1, 256>>>(hin, hout);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  heavy_1024<<<1, 1024>>>(hin, hout);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  heavy_256x4<<<4, 256>>>(hin, hout);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  heavy_maxnreg<<<1, 1024>>>(hin, hout);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int wrong = 0;
  for (int t = 0; t < 1024; t++) wrong += hout[t] != heavy_reference(hin, t % 32);
  EXPECT_EQ(wrong, 0);
  cudaFree(in);
  cudaFree(out);
  cudaFree(data);
  cudaFree(hin);
  cudaFree(hout);
}

static void driver_jit_limits() {
  CUmodule mod;
  std::string ptx = heavy_ptx("8.0", "sm_80", "");
  CUfunction f = load_heavy(ptx, 0, &mod);
  expect_near("heavy PTX", func_regs(f), 206);
  int v = -1;
  CU(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
  EXPECT_EQ(v, 80);
  CU(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, f));
  EXPECT_EQ(v, 0);
  CUdeviceptr buf;
  CU(cuMemAlloc(&buf, 4096));
  void* args[] = {&buf};
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1024, 1, 1, 0, 0, args, nullptr),
            CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  CU(cuModuleUnload(mod));
  // CU_JIT_MAX_REGISTERS: at most the limit (numba-cuda's test_set_registers_38/57), raised to
  // ptxas's floor of 24.
  for (unsigned limit : {38u, 57u, 10u}) {
    f = load_heavy(ptx, limit, &mod);
    int regs = func_regs(f);
    unsigned want = limit < 24 ? 24 : limit;
    if ((unsigned)regs != want) {
      printf("FAIL CU_JIT_MAX_REGISTERS %u: %d registers, ptxas %u\n", limit, regs, want);
      expect_failures++;
    }
    if (limit == 57) CU(cuLaunchKernel(f, 1, 1, 1, 1024, 1, 1, 0, 0, args, nullptr));
    CU(cuModuleUnload(mod));
  }
  // The same through the JIT linker (the limit of cuLinkCreate) and a library.
  CUjit_option opt[] = {CU_JIT_MAX_REGISTERS};
  void* val[] = {(void*)(size_t)38};
  CUlinkState link;
  CU(cuLinkCreate(1, opt, val, &link));
  CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)ptx.c_str(), ptx.size() + 1, "heavy.ptx", 0,
                   nullptr, nullptr));
  void* image;
  size_t size;
  CU(cuLinkComplete(link, &image, &size));
  CU(cuModuleLoadData(&mod, image));
  CU(cuLinkDestroy(link));
  CU(cuModuleGetFunction(&f, mod, "heavy"));
  EXPECT_EQ(func_regs(f), 38);
  CU(cuModuleUnload(mod));
  CUlibrary lib;
  val[0] = (void*)(size_t)57;
  CU(cuLibraryLoadData(&lib, ptx.c_str(), opt, val, 1, nullptr, nullptr, 0));
  CUkernel k;
  CU(cuLibraryGetKernel(&k, lib, "heavy"));
  CU(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, k, 0));
  EXPECT_EQ(v, 57);
  CU(cuLibraryUnload(lib));
  // Launch bounds in the PTX: what they require, and the launch they allow.
  f = load_heavy(heavy_ptx("8.0", "sm_80", ".maxntid 1024"), 0, &mod);
  EXPECT_EQ(func_regs(f), 64);
  CU(cuLaunchKernel(f, 1, 1, 1, 1024, 1, 1, 0, 0, args, nullptr));
  CU(cuCtxSynchronize());
  CU(cuModuleUnload(mod));
  f = load_heavy(heavy_ptx("8.0", "sm_80", ".maxnreg 37"), 0, &mod);
  EXPECT_EQ(func_regs(f), 37);
  CU(cuModuleUnload(mod));
  // ptxVersion is the .target's architecture, not the ISA .version.
  f = load_heavy(heavy_ptx("8.5", "sm_75", ""), 0, &mod);
  CU(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
  EXPECT_EQ(v, 75);
  CU(cuModuleUnload(mod));
  f = load_heavy(heavy_ptx("8.0", "sm_90a", ""), 0, &mod);
  CU(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
  EXPECT_EQ(v, 90);
  CU(cuModuleUnload(mod));
  CU(cuMemFree(buf));
}

int main() {
  EXPECT(cudaFree(0) == cudaSuccess);
  runtime_attributes();
  runtime_launches();
  driver_jit_limits();
  if (expect_failures) {
    printf("%d expect_failures\n", expect_failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
