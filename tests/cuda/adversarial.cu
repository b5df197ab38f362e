// An adversarial suite for the driver API: bad handles, pointers, sizes and flags; malformed and
// hostile PTX (hand-made and seeded random mutations of a valid module); kernel faults of every
// kind, each in a context of its own; and many host threads at once. Every case must return (the
// process never crashes) with the code the driver documents or was measured to give:
//   - measured on an H100 / H200, driver 580.159, 2026-11-26
//     (scripts/ground-truth/results/driver-h100.txt, limits-and-stale-h200.txt), marked [hw];
//   - else the CUDA driver API reference's list of return codes for the call, marked [doc];
//   - where the real driver crashes (a host pointer it cannot read, a destroyed context's stream:
//     measured, SIGSEGV), the shim's promise instead: CUDA_ERROR_INVALID_VALUE or
//     CUDA_ERROR_INVALID_HANDLE, marked [shim].
// A case that expects "any error" only requires that the call fail and return.
// Prints "PASS adversarial: N cases" and exits 0 when every case answered as expected.
#include <cuda.h>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include "check.h"

static int cases = 0;
static const CUresult ANY_ERROR = (CUresult)-1;

static void expect(const char* what, CUresult got, CUresult want) {
  cases++;
  bool ok = want == ANY_ERROR ? got != CUDA_SUCCESS : got == want;
  const char* g = "?";
  cuGetErrorName(got, &g);
  EXPECT_MSG(ok, "%s: got %s (%d), expected %d", what, g, (int)got, (int)want);
}
#define CASE(call, want) expect(#call, (call), (want))

static const char* HDR = ".version 8.0\n.target sm_80\n.address_size 64\n";

// A module with a kernel of each fault kind, each named for it.
static const char* FAULTS =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry wild(.param .u64 p) { .reg .u64 %a; mov.u64 %a, 0x10; st.global.u32 [%a], 1; ret; }\n"
    ".visible .entry misaligned(.param .u64 p) { .reg .u64 %a; ld.param.u64 %a, [p]; "
    "add.u64 %a, %a, 2; st.global.u32 [%a], 1; ret; }\n"
    ".visible .entry trapping() { trap; ret; }\n"
    ".visible .entry shared_oob() { .reg .u32 %a; mov.u32 %a, 0x100000; st.shared.u32 [%a], 1; ret; }\n"
    ".visible .entry local_oob() { .local .b32 x[4]; .reg .u64 %a; mov.u64 %a, x; "
    "add.u64 %a, %a, 0x100000; st.local.u32 [%a], 1; ret; }\n"
    ".func (.reg .u32 r) down(.reg .u32 n) { .local .b8 pad[512]; .reg .u32 %m; .reg .u64 %p; "
    "mov.u64 %p, pad; st.local.u32 [%p], n; sub.u32 %m, n, 1; { .reg .u32 t; "
    "call (t), down, (%m); mov.u32 r, t; } ret; }\n"
    ".visible .entry overflow() { .reg .u32 %r; mov.u32 %r, 100000; { .reg .u32 t; call (t), down, (%r); } "
    "ret; }\n"
    ".visible .entry ok(.param .u64 p) { .reg .u64 %a; ld.param.u64 %a, [p]; st.global.u32 [%a], 7; ret; }\n";

// Runs `kernel` of FAULTS in a fresh context: the launch succeeds, synchronisation reports
// `want` (sticky), and destroying the context gives everything back.
static void fault_case(CUdevice dev, const char* kernel, CUresult want) {
  CUcontext c;
  CU(cuCtxCreate(&c, nullptr, 0, dev));
  CUmodule m;
  CU(cuModuleLoadData(&m, FAULTS));
  CUfunction f;
  CU(cuModuleGetFunction(&f, m, kernel));
  CUdeviceptr d;
  CU(cuMemAlloc(&d, 64));
  void* args[] = {&d};
  std::string what = std::string("fault ") + kernel;
  expect((what + ": launch").c_str(), cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
         CUDA_SUCCESS);
  expect((what + ": synchronize").c_str(), cuCtxSynchronize(), want);
  expect((what + ": sticky").c_str(), cuMemAlloc(&d, 64), want);
  expect((what + ": destroy").c_str(), cuCtxDestroy(c), CUDA_SUCCESS);
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext primary;
  CU(cuDevicePrimaryCtxRetain(&primary, dev));
  CU(cuCtxSetCurrent(primary));

  // ---- bad handles [doc]: garbage and NULL where an object is expected ----
  CUstream bad_stream = (CUstream)(uintptr_t)0xdeadbeef00ull;
  CUevent bad_event = (CUevent)(uintptr_t)0xdeadbeef10ull;
  CUmodule bad_module = (CUmodule)(uintptr_t)0xdeadbeef20ull;
  CUfunction bad_func = (CUfunction)(uintptr_t)0xdeadbeef30ull;
  CUcontext bad_ctx = (CUcontext)(uintptr_t)0xdeadbeef40ull;
  CUgraph bad_graph = (CUgraph)(uintptr_t)0xdeadbeef50ull;
  CUgraphExec bad_exec = (CUgraphExec)(uintptr_t)0xdeadbeef60ull;
  CASE(cuStreamSynchronize(bad_stream), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuStreamQuery(bad_stream), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuStreamDestroy(bad_stream), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuEventRecord(bad_event, nullptr), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuEventSynchronize(bad_event), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuEventQuery(bad_event), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuEventDestroy(bad_event), CUDA_ERROR_INVALID_HANDLE);
  float ms;
  CASE(cuEventElapsedTime(&ms, bad_event, bad_event), CUDA_ERROR_INVALID_HANDLE);
  CUfunction f;
  CASE(cuModuleGetFunction(&f, bad_module, "k"), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuModuleUnload(bad_module), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuLaunchKernel(bad_func, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_HANDLE);
  int attr;
  CASE(cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_NUM_REGS, bad_func), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuCtxSetCurrent(bad_ctx), CUDA_ERROR_INVALID_CONTEXT);
  CASE(cuCtxPushCurrent(bad_ctx), CUDA_ERROR_INVALID_CONTEXT);
  CASE(cuCtxDestroy(bad_ctx), CUDA_ERROR_INVALID_CONTEXT);
  CASE(cuGraphDestroy(bad_graph), ANY_ERROR);
  CASE(cuGraphLaunch(bad_exec, nullptr), ANY_ERROR);
  CASE(cuGraphExecDestroy(bad_exec), ANY_ERROR);
  CASE(cuStreamWaitEvent(nullptr, bad_event, 0), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuStreamWaitEvent(bad_stream, nullptr, 0), ANY_ERROR);
  CASE(cuModuleGetFunction(nullptr, nullptr, nullptr), ANY_ERROR);
  CASE(cuDeviceGet(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  CUdevice d2;
  CASE(cuDeviceGet(&d2, 7), CUDA_ERROR_INVALID_DEVICE);
  CASE(cuDeviceGet(&d2, -1), CUDA_ERROR_INVALID_DEVICE);
  CASE(cuDeviceGetAttribute(&attr, (CUdevice_attribute)100000, dev), CUDA_ERROR_INVALID_VALUE);

  // ---- bad pointers and sizes ----
  CUdeviceptr d;
  CU(cuMemAlloc(&d, 4096));
  std::vector<char> host(8192);
  CASE(cuMemAlloc(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr tmp;
  CASE(cuMemAlloc(&tmp, 0), CUDA_ERROR_INVALID_VALUE);
  CASE(cuMemAlloc(&tmp, 1ull << 62), CUDA_ERROR_OUT_OF_MEMORY);
  CASE(cuMemAlloc(&tmp, ~0ull), CUDA_ERROR_OUT_OF_MEMORY);
  CASE(cuMemFree(d + 8), CUDA_ERROR_INVALID_VALUE);
  CASE(cuMemFree((CUdeviceptr)0x1234), CUDA_ERROR_INVALID_VALUE);
  CASE(cuMemcpyHtoD(d, nullptr, 4), CUDA_ERROR_INVALID_VALUE);  // [hw]
  CASE(cuMemcpyHtoD(d, (void*)0x10, 4), CUDA_ERROR_INVALID_VALUE);  // [shim]: SIGSEGV on a GPU
  CASE(cuMemcpyDtoH((void*)0x10, d, 4), CUDA_ERROR_INVALID_VALUE);  // [shim]
  CASE(cuMemcpyHtoD(d, host.data(), 8192), CUDA_ERROR_INVALID_VALUE);  // [hw] past the end
  CASE(cuMemsetD8(d, 0, 8192), CUDA_ERROR_INVALID_VALUE);  // [hw]
  CASE(cuMemsetD8(d + (1ull << 40), 0, 4), CUDA_ERROR_INVALID_VALUE);  // [hw]
  CASE(cuMemcpyDtoD(d, d + (1ull << 40), 4), CUDA_ERROR_INVALID_VALUE);  // [hw]
  CASE(cuMemcpy(d, (CUdeviceptr)0x7f0000001000ull, 4), CUDA_ERROR_INVALID_VALUE);  // [shim]
  CASE(cuMemcpyHtoD(d + 4090, host.data(), 16), CUDA_ERROR_INVALID_VALUE);
  CASE(cuMemcpyHtoD(~0ull - 4, host.data(), 16), CUDA_ERROR_INVALID_VALUE);  // wraps around
  CASE(cuMemsetD32(d + 2, 0, 4), CUDA_ERROR_INVALID_VALUE);  // misaligned for 32-bit words
  CASE(cuMemGetInfo(nullptr, nullptr), ANY_ERROR);
  CUdeviceptr base;
  size_t sz;
  CASE(cuMemGetAddressRange(&base, &sz, (CUdeviceptr)0x10), CUDA_ERROR_NOT_FOUND);
  void* hp;
  CASE(cuMemHostAlloc(&hp, 64, 0x80), CUDA_ERROR_INVALID_VALUE);  // unknown flag
  CASE(cuMemHostRegister(nullptr, 4096, 0), CUDA_ERROR_INVALID_VALUE);
  CASE(cuMemHostUnregister(host.data()), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);

  // ---- bad flags [doc] ----
  CUstream s;
  CASE(cuStreamCreate(&s, 0x40), CUDA_ERROR_INVALID_VALUE);
  CASE(cuStreamCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  CUevent e;
  CASE(cuEventCreate(&e, 0x80), CUDA_ERROR_INVALID_VALUE);
  CASE(cuEventCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  CASE(cuInit(1), CUDA_ERROR_INVALID_VALUE);
  CUcontext c;
  CASE(cuCtxCreate(&c, nullptr, 0x1000, dev), CUDA_ERROR_INVALID_VALUE);
  CASE(cuStreamAddCallback(nullptr, nullptr, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  CASE(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 523713), CUDA_ERROR_INVALID_VALUE);  // [hw]
  CASE(cuCtxSetLimit((CUlimit)1000, 1), CUDA_ERROR_UNSUPPORTED_LIMIT);

  // ---- launches out of range [doc] ----
  CUmodule m;
  CU(cuModuleLoadData(&m, FAULTS));
  CUfunction okf;
  CU(cuModuleGetFunction(&okf, m, "ok"));
  void* args[] = {&d};
  CASE(cuLaunchKernel(okf, 1, 1, 1, 1025, 1, 1, 0, nullptr, args, nullptr), CUDA_ERROR_INVALID_VALUE);
  CASE(cuLaunchKernel(okf, 0, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), CUDA_ERROR_INVALID_VALUE);
  CASE(cuLaunchKernel(okf, 1, 65536, 1, 32, 1, 1, 0, nullptr, args, nullptr), CUDA_ERROR_INVALID_VALUE);
  CASE(cuLaunchKernel(okf, 1, 1, 1, 32, 1, 65, 0, nullptr, args, nullptr), CUDA_ERROR_INVALID_VALUE);
  CASE(cuLaunchKernel(okf, 1, 1, 1, 32, 1, 1, 1u << 30, nullptr, args, nullptr), CUDA_ERROR_INVALID_VALUE);
  CASE(cuLaunchKernel(okf, 1, 1, 1, 32, 1, 1, 0, bad_stream, args, nullptr), CUDA_ERROR_INVALID_HANDLE);
  CASE(cuLaunchKernel(okf, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  CASE(cuCtxSynchronize(), CUDA_SUCCESS);  // none of the above ran or left an error

  // ---- malformed and hostile PTX: each load fails (or loads) and returns ----
  const std::string ok_body = ".visible .entry k() { ret; }\n";
  std::vector<std::pair<std::string, CUresult>> ptx = {
      {"", CUDA_ERROR_INVALID_PTX},
      {"garbage", CUDA_ERROR_INVALID_PTX},
      {std::string(HDR), CUDA_SUCCESS},  // a module with nothing in it
      {std::string(HDR) + ".visible .entry k() {", CUDA_ERROR_INVALID_PTX},  // truncated
      {std::string(HDR) + "/* never closed", CUDA_ERROR_INVALID_PTX},
      {".version 8.0\n.address_size 64\n" + ok_body, CUDA_ERROR_INVALID_PTX},  // [hw] no .target
      {".version 8.0\n.target sm_999\n.address_size 64\n" + ok_body, CUDA_ERROR_INVALID_PTX},  // [hw]
      {std::string(HDR) + ok_body + ok_body, CUDA_ERROR_INVALID_PTX},  // [hw] duplicate .entry
      {std::string(HDR) + "// caf\xe9\n" + ok_body, CUDA_ERROR_INVALID_PTX},  // [hw] non-ASCII
      {std::string(HDR) + ".shared .b8 s[1073741824];\n.visible .entry k() { .reg .u64 %a; mov.u64 %a, s; ret; }\n",
       CUDA_ERROR_INVALID_PTX},  // [hw]
      {std::string(HDR) + ".const .b8 c[1048576];\n" + ok_body, CUDA_ERROR_INVALID_PTX},  // [hw]
      {std::string(HDR) + ".visible .entry k(.param .align 8 .b8 p[81920]) { ret; }\n", CUDA_ERROR_INVALID_PTX},  // [hw]
      {std::string(HDR) + ".visible .entry k() .maxntid 0 { ret; }\n", CUDA_ERROR_INVALID_PTX},  // [hw]
      {std::string(HDR) + ".visible .entry k() { .reg .b32 %r<100000000>; mov.b32 %r5, 1; ret; }\n",
       CUDA_SUCCESS},  // [hw]
      {std::string(HDR) + ".global .b8 g[214748364800];\n" + ok_body, CUDA_ERROR_OUT_OF_MEMORY},  // [hw]
      {std::string(HDR) + ".visible .entry k() { bra NOWHERE; ret; }\n", CUDA_ERROR_INVALID_PTX},
      {std::string(HDR) + ".visible .entry k() { frobnicate.b32 %r1; ret; }\n", CUDA_ERROR_INVALID_PTX},
      {std::string(HDR) + ".visible .entry k() { .reg .b32 %r; add.f32 %r, %r, 1; ret; }\n", CUDA_ERROR_INVALID_PTX},
      {std::string(HDR) + std::string(1 << 20, 'x'), CUDA_ERROR_INVALID_PTX},  // a 1 MiB identifier
      {std::string(HDR) + ".visible .entry k() { .reg .b32 %r; mov.b32 %r, 99999999999999999999999; ret; }\n",
       CUDA_ERROR_INVALID_PTX},
  };
  {
    std::string nested = std::string(HDR) + ".visible .entry k() {\n";
    for (int i = 0; i < 1000; i++) nested += "{\n";
    nested += "ret;\n";
    for (int i = 0; i < 1000; i++) nested += "}\n";
    ptx.push_back({nested + "}\n", CUDA_SUCCESS});  // [hw] 1,000 nested blocks
    std::string deep = std::string(HDR) + ".visible .entry k() {\n";
    for (int i = 0; i < 200000; i++) deep += "{\n";
    ptx.push_back({deep, CUDA_ERROR_INVALID_PTX});  // 200,000 open blocks, never closed
  }
  for (size_t i = 0; i < ptx.size(); i++) {
    CUmodule pm;
    CUresult r = cuModuleLoadData(&pm, ptx[i].first.c_str());
    char what[64];
    snprintf(what, sizeof what, "hostile PTX #%zu", i);
    expect(what, r, ptx[i].second);
    if (r == CUDA_SUCCESS) cuModuleUnload(pm);
  }
  // Seeded mutations of a valid module: bytes replaced, deleted, duplicated. Any answer will
  // do as long as the call returns; a module that loads is launched once.
  {
    std::string base = std::string(HDR) +
                       ".visible .entry k(.param .u64 p) {\n .reg .u64 %a<4>; .reg .u32 %r<4>; .reg .pred %q;\n"
                       " ld.param.u64 %a1, [p];\n cvta.to.global.u64 %a1, %a1;\n mov.u32 %r1, %tid.x;\n"
                       " setp.lt.u32 %q, %r1, 16;\n @%q bra DONE;\n mul.wide.u32 %a2, %r1, 4;\n"
                       " add.u64 %a3, %a1, %a2;\n st.global.u32 [%a3], %r1;\nDONE:\n ret;\n}\n";
    uint64_t x = 0x9e3779b97f4a7c15ull;
    auto rnd = [&]() {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      return x;
    };
    const char alphabet[] = "{}[]();,.%@!-+0123456789abcdefxyz \n\t\"/*";
    int loaded = 0;
    for (int k = 0; k < 300; k++) {
      std::string t = base;
      int edits = 1 + rnd() % 4;
      for (int j = 0; j < edits; j++) {
        size_t at = std::strlen(HDR) + rnd() % (t.size() - std::strlen(HDR));
        switch (rnd() % 3) {
          case 0: t[at] = alphabet[rnd() % (sizeof alphabet - 1)]; break;
          case 1: t.erase(at, 1 + rnd() % 8); break;
          default: t.insert(at, t.substr(at, 1 + rnd() % 16)); break;
        }
      }
      CUmodule pm;
      CUresult r = cuModuleLoadData(&pm, t.c_str());
      cases++;
      if (r == CUDA_SUCCESS) {
        loaded++;
        CUfunction pf;
        if (cuModuleGetFunction(&pf, pm, "k") == CUDA_SUCCESS) {
          void* pa[] = {&d};
          cuLaunchKernel(pf, 1, 1, 1, 32, 1, 1, 0, nullptr, pa, nullptr);
          cuCtxSynchronize();
        }
        cuModuleUnload(pm);
      }
    }
    // A mutation can make a kernel fault: start over with a clean primary context.
    CU(cuDevicePrimaryCtxReset(dev));
    CU(cuDevicePrimaryCtxRetain(&primary, dev));
    CU(cuCtxSetCurrent(primary));
    // The reset unloaded the module and freed the memory: load and allocate again.
    CU(cuModuleLoadData(&m, FAULTS));
    CU(cuModuleGetFunction(&okf, m, "ok"));
    CU(cuMemAlloc(&d, 4096));
    fprintf(stderr, "mutated modules: %d of 300 loaded\n", loaded);
  }

  // ---- kernel faults of every kind, each in its own context [hw: stack overflow is 700] ----
  fault_case(dev, "wild", CUDA_ERROR_ILLEGAL_ADDRESS);
  fault_case(dev, "misaligned", CUDA_ERROR_MISALIGNED_ADDRESS);
  fault_case(dev, "trapping", CUDA_ERROR_LAUNCH_FAILED);
  fault_case(dev, "shared_oob", CUDA_ERROR_ILLEGAL_ADDRESS);  // [hw] sanitizer-h100.txt
  fault_case(dev, "local_oob", CUDA_ERROR_ILLEGAL_ADDRESS);  // [shim]
  fault_case(dev, "overflow", CUDA_ERROR_ILLEGAL_ADDRESS);
  CU(cuCtxSetCurrent(primary));

  // ---- stale handles after destroying their context [hw where measured; shim otherwise] ----
  {
    CUcontext cc;
    CU(cuCtxCreate(&cc, nullptr, 0, dev));
    CUstream ss;
    CU(cuStreamCreate(&ss, 0));
    CUevent ee;
    CU(cuEventCreate(&ee, 0));
    CUmodule mm;
    CU(cuModuleLoadData(&mm, FAULTS));
    CUdeviceptr dd;
    CU(cuMemAlloc(&dd, 64));
    CU(cuCtxDestroy(cc));
    CU(cuCtxSetCurrent(primary));
    CASE(cuStreamSynchronize(ss), CUDA_ERROR_INVALID_HANDLE);  // [shim]: SIGSEGV on a GPU
    CASE(cuEventRecord(ee, nullptr), CUDA_ERROR_INVALID_HANDLE);
    CASE(cuModuleGetFunction(&f, mm, "ok"), CUDA_ERROR_INVALID_HANDLE);
    CASE(cuMemFree(dd), CUDA_ERROR_INVALID_VALUE);  // [hw]
    CASE(cuCtxDestroy(cc), CUDA_ERROR_INVALID_CONTEXT);  // [hw]
  }

  // ---- many host threads at once: streams, copies, launches, contexts ----
  {
    const int T = 16;
    std::atomic<int> failures{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < T; t++)
      ts.emplace_back([&, t] {
        if (cuCtxSetCurrent(primary) != CUDA_SUCCESS) failures++;
        for (int it = 0; it < 20; it++) {
          CUstream st;
          CUdeviceptr p;
          if (cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) { failures++; continue; }
          if (cuMemAlloc(&p, 256) != CUDA_SUCCESS) { failures++; continue; }
          void* a[] = {&p};
          unsigned v = 0;
          if (cuLaunchKernel(okf, 1, 1, 1, 32, 1, 1, 0, st, a, nullptr) != CUDA_SUCCESS) failures++;
          if (cuMemcpyDtoHAsync(&v, p, 4, st) != CUDA_SUCCESS) failures++;
          if (cuStreamSynchronize(st) != CUDA_SUCCESS || v != 7) failures++;
          if (cuStreamDestroy(st) != CUDA_SUCCESS) failures++;
          if (cuMemFree(p) != CUDA_SUCCESS) failures++;
          if (it % 5 == t % 5) {  // a context of its own, created and destroyed meanwhile
            CUcontext own;
            if (cuCtxCreate(&own, nullptr, 0, dev) != CUDA_SUCCESS || cuCtxDestroy(own) != CUDA_SUCCESS)
              failures++;
            cuCtxSetCurrent(primary);
          }
        }
      });
    for (auto& th : ts) th.join();
    expect("16 host threads x 20 rounds", failures.load() == 0 ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN, CUDA_SUCCESS);
  }

  // ---- 3,000 streams with work at once: a bounded pool of stream workers serves them ----
  {
    const int N = 3000;
    std::vector<CUstream> streams(N);
    CUdeviceptr p;
    CU(cuMemAlloc(&p, N * 4));
    int failures = 0;
    for (int i = 0; i < N; i++) {
      if (cuStreamCreate(&streams[i], CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) { failures++; continue; }
      if (cuMemsetD32Async(p + 4 * i, i, 1, streams[i]) != CUDA_SUCCESS) failures++;
    }
    // Threads of the process while the work is queued (the shim's pool: 128 at most).
    int threads = 0;
    if (FILE* f = fopen("/proc/self/status", "r")) {
      char line[256];
      while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &threads) == 1) break;
      fclose(f);
    }
    std::vector<unsigned> h(N);
    CU(cuCtxSynchronize());
    CU(cuMemcpyDtoH(h.data(), p, N * 4));
    for (int i = 0; i < N; i++) failures += h[i] != (unsigned)i;
    for (auto st : streams) cuStreamDestroy(st);
    cuMemFree(p);
    expect("3000 busy streams", failures == 0 ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN, CUDA_SUCCESS);
    fprintf(stderr, "3000 busy streams: %d threads\n", threads);
    expect("3000 busy streams: at most 200 threads", threads <= 200 ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN,
           CUDA_SUCCESS);
  }

  printf("%s adversarial: %d cases, %d not as expected\n", expect_failures == 0 ? "PASS" : "FAIL",
         cases, expect_failures);
  return expect_failures == 0 ? 0 : 1;
}
