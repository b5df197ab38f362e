// Ground-truth probe: what the driver answers to hostile input (issue: error handling).
// Built and run by scripts/ground-truth/run.sh on a machine with a GPU; each line it prints is
// `case: result`, so the answers can be quoted in the tests that rely on them.
// Every case that might kill the process runs in a forked child (the parent reports the signal).
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

static const char* nm(CUresult r) {
  const char* s = "?";
  cuGetErrorName(r, &s);
  return s;
}
static void report(const char* what, CUresult r) { printf("%s: %d %s\n", what, (int)r, nm(r)); }

// Load PTX with an error log; print the result and the log's first line.
static CUresult load(const char* what, const std::string& ptx, CUmodule* out = nullptr) {
  char log[4096] = {0};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* vals[] = {log, (void*)(size_t)sizeof(log)};
  CUmodule m = nullptr;
  CUresult r = cuModuleLoadDataEx(&m, ptx.c_str(), 2, opts, vals);
  char* nl = strchr(log, '\n');
  if (nl) *nl = 0;
  printf("load %s: %d %s | %s\n", what, (int)r, nm(r), log);
  if (out)
    *out = m;
  else if (r == CUDA_SUCCESS)
    cuModuleUnload(m);
  return r;
}

static const char* HDR = ".version 8.0\n.target sm_80\n.address_size 64\n";
static const std::string body = ".visible .entry k() { ret; }\n";

// Runs case `what` in a fresh process (this program re-executed with the case's name: a forked
// child cannot use a driver its parent initialised); prints how it ended when it did not exit.
static const char* self_path;
static const char* only_case;
template <class F> static void forked(const char* what, F f) {
  if (only_case) {
    if (!strcmp(only_case, what)) {
      f();
      fflush(stdout);
      _exit(0);
    }
    return;
  }
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) {
    execl(self_path, self_path, what, (char*)nullptr);
    _exit(127);
  }
  int st = 0;
  waitpid(p, &st, 0);
  if (WIFSIGNALED(st)) printf("%s: child killed by signal %d\n", what, WTERMSIG(st));
}

static std::string local_kernel(size_t bytes) {
  return std::string(HDR) + ".visible .entry k(.param .u64 out) {\n .local .align 8 .b8 buf[" +
         std::to_string(bytes) +
         "];\n .reg .u64 %a<4>; .reg .u32 %r<4>; .reg .pred %p<2>;\n mov.u32 %r1, %tid.x;\n"
         " mov.u64 %a1, buf;\n st.local.u32 [%a1], %r1;\n"
         " add.u64 %a2, %a1, " +
         std::to_string(bytes - 8) +
         ";\n st.local.u32 [%a2], %r1;\n ld.local.u32 %r2, [%a1];\n"
         " ld.param.u64 %a3, [out];\n cvta.to.global.u64 %a3, %a3;\n"
         " setp.eq.u32 %p1, %r1, 0;\n @%p1 st.global.u32 [%a3], %r2;\n ret;\n}\n";
}

int main(int argc, char** argv) {
  self_path = "/proc/self/exe";
  setvbuf(stdout, nullptr, _IONBF, 0);  // a case that crashes keeps what it printed
  only_case = argc > 1 ? argv[1] : nullptr;
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  char name[256];
  cuDeviceGetName(name, sizeof name, dev);
  int drv = 0;
  cuDriverGetVersion(&drv);
  if (!only_case) printf("device: %s, driver API %d\n", name, drv);
  if (!only_case) {

  // --- PTX that ptxas rejects or accepts (the driver's JIT answers) ---

  load("no .target", ".version 8.0\n.address_size 64\n" + body);
  load(".target sm_999", ".version 8.0\n.target sm_999\n.address_size 64\n" + body);
  load("duplicate .entry", std::string(HDR) + body + body);
  load("1 GiB static .shared",
       std::string(HDR) + ".shared .b8 s[1073741824];\n.visible .entry k() { .reg .u64 %a; mov.u64 %a, s; ret; }\n");
  load("48 KiB+4 static .shared",
       std::string(HDR) + ".shared .b8 s[49156];\n.visible .entry k() { .reg .u64 %a; mov.u64 %a, s; ret; }\n");
  load("1 MiB .const", std::string(HDR) + ".const .b8 c[1048576];\n" + body);
  load("64 KiB .const", std::string(HDR) + ".const .b8 c[65536];\n" + body);
  load("64 KiB+4 .const", std::string(HDR) + ".const .b8 c[65540];\n" + body);
  load("80 KiB of parameters", std::string(HDR) + ".visible .entry k(.param .align 8 .b8 p[81920]) { ret; }\n");
  load("32764 bytes of parameters", std::string(HDR) + ".visible .entry k(.param .align 4 .b8 p[32764]) { ret; }\n");
  load("32768 bytes of parameters", std::string(HDR) + ".visible .entry k(.param .align 4 .b8 p[32768]) { ret; }\n");
  load(".maxntid 0", std::string(HDR) + ".visible .entry k() .maxntid 0 { ret; }\n");
  load(".reg %r<100000000>", std::string(HDR) + ".visible .entry k() { .reg .b32 %r<100000000>; mov.b32 %r5, 1; ret; }\n");
  {
    std::string s = std::string(HDR) + ".visible .entry k() {\n";
    for (int i = 0; i < 1000; i++) s += "{\n";
    s += "ret;\n";
    for (int i = 0; i < 1000; i++) s += "}\n";
    s += "}\n";
    load("1000 nested blocks", s);
  }
  load("non-UTF-8 byte in a comment", std::string(HDR) + "// caf\xe9 \xff\n" + body);
  load("2^40-byte .global", std::string(HDR) + ".global .b8 g[1099511627776];\n" + body);
  load("200 GiB .global", std::string(HDR) + ".global .b8 g[214748364800];\n" + body);

  // --- local memory: per-thread size, launch with many threads ---
  CUdeviceptr out;
  cuMemAlloc(&out, 64);
  size_t sizes[] = {1024, 65536, 524288, 524296, 1048576, 16777216, 1073741824};
  for (size_t b : sizes) {
    char what[128];
    snprintf(what, sizeof what, ".local %zu bytes", b);
    CUmodule m;
    if (load(what, local_kernel(b), &m) != CUDA_SUCCESS) continue;
    CUfunction f;
    cuModuleGetFunction(&f, m, "k");
    int lsz = 0;
    cuFuncGetAttribute(&lsz, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
    printf("  LOCAL_SIZE_BYTES %d\n", lsz);
    unsigned grids[][2] = {{1, 1}, {1, 1024}, {132 * 16, 1024}};
    for (auto& g : grids) {
      void* args[] = {&out};
      CUresult r = cuLaunchKernel(f, g[0], 1, 1, g[1], 1, 1, 0, 0, args, nullptr);
      CUresult s = cuCtxSynchronize();
      size_t freeb = 0, tot = 0;
      cuMemGetInfo(&freeb, &tot);
      printf("  launch %ux%u: launch %d %s, sync %d %s, free %zu MiB\n", g[0], g[1], (int)r, nm(r), (int)s,
             nm(s), freeb >> 20);
      if (s != CUDA_SUCCESS) break;
    }
    cuModuleUnload(m);
  }
  // The stack limit: default, the largest accepted, and what a huge one does.
  size_t stack = 0;
  cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE);
  printf("default CU_LIMIT_STACK_SIZE %zu\n", stack);
  size_t tries[] = {524288, 524289, 1048576, 16u << 20, 1ull << 30};
  for (size_t t : tries) {
    CUresult r = cuCtxSetLimit(CU_LIMIT_STACK_SIZE, t);
    size_t now = 0;
    cuCtxGetLimit(&now, CU_LIMIT_STACK_SIZE);
    printf("cuCtxSetLimit(STACK_SIZE, %zu): %d %s, now %zu\n", t, (int)r, nm(r), now);
  }
  cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 1024);
  }

  // --- bad host pointers in copies (each in a child: they may crash) ---
  forked("HtoD from (void*)0x10", [&] {
    CUdeviceptr d;
    cuMemAlloc(&d, 4096);
    report("HtoD from (void*)0x10", cuMemcpyHtoD(d, (void*)0x10, 4));
  });
  forked("DtoH to (void*)0x10", [&] {
    CUdeviceptr d;
    cuMemAlloc(&d, 4096);
    report("DtoH to (void*)0x10", cuMemcpyDtoH((void*)0x10, d, 4));
  });
  forked("HtoD from NULL", [&] {
    CUdeviceptr d;
    cuMemAlloc(&d, 4096);
    report("HtoD from NULL", cuMemcpyHtoD(d, nullptr, 4));
  });
  forked("HtoD 1 MiB from a 4 KiB malloc", [&] {
    CUdeviceptr d;
    cuMemAlloc(&d, 1 << 20);
    void* h = malloc(4096);
    report("HtoD 1 MiB from a 4 KiB malloc (result)", cuMemcpyHtoD(d, h, 1 << 20));
  });
  forked("cuMemcpy wild unified address", [&] {
    CUdeviceptr d;
    cuMemAlloc(&d, 4096);
    report("cuMemcpy(d, 0x7f0000001000) wild", cuMemcpy(d, (CUdeviceptr)0x7f0000001000ull, 4));
    report("cuMemcpy(0x7f0000001000, d) wild", cuMemcpy((CUdeviceptr)0x7f0000001000ull, d, 4));
  });
  forked("DtoD wild device address", [&] {
    CUdeviceptr d;
    cuMemAlloc(&d, 4096);
    report("cuMemcpyDtoD(d, d+2^40)", cuMemcpyDtoD(d, d + (1ull << 40), 4));
    report("cuMemsetD8(d+2^40)", cuMemsetD8(d + (1ull << 40), 0, 4));
    report("cuMemsetD8(d, .., 8192) past the end", cuMemsetD8(d, 0, 8192));
    report("cuMemcpyHtoD(d, h, 8192) past the end", cuMemcpyHtoD(d, malloc(8192), 8192));
  });

  // --- the largest launchable .local size and the largest stack limit, by bisection ---
  forked("bisect limits", [&] {
    auto launches = [&](size_t bytes) {
      CUmodule m;
      CUmodule* mp = &m;
      char log[1024];
      CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void* v[] = {log, (void*)(size_t)sizeof log};
      if (cuModuleLoadDataEx(mp, local_kernel(bytes).c_str(), 2, o, v) != CUDA_SUCCESS) return false;
      CUfunction f;
      cuModuleGetFunction(&f, m, "k");
      CUdeviceptr o2;
      cuMemAlloc(&o2, 64);
      void* args[] = {&o2};
      CUresult r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, args, nullptr);
      cuCtxSynchronize();
      cuMemFree(o2);
      cuModuleUnload(m);
      return r == CUDA_SUCCESS;
    };
    size_t stacks[] = {1024, 65536};
    for (size_t st : stacks) {
      cuCtxSetLimit(CU_LIMIT_STACK_SIZE, st);
      size_t lo = 65536, hi = 524288;  // lo launches, hi does not (measured above)
      while (hi - lo > 8) {
        size_t mid = (lo + hi) / 2 / 8 * 8;
        if (launches(mid)) lo = mid; else hi = mid;
      }
      printf("largest launchable .local with stack limit %zu: %zu bytes (%zu fails)\n", st, lo, hi);
    }
    cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 1024);
    size_t lo = 1024, hi = 524288;
    while (hi - lo > 1) {
      size_t mid = (lo + hi) / 2;
      if (cuCtxSetLimit(CU_LIMIT_STACK_SIZE, mid) == CUDA_SUCCESS) lo = mid; else hi = mid;
    }
    size_t now = 0;
    cuCtxSetLimit(CU_LIMIT_STACK_SIZE, lo);
    cuCtxGetLimit(&now, CU_LIMIT_STACK_SIZE);
    printf("largest accepted CU_LIMIT_STACK_SIZE: %zu (%zu refused), reads back %zu\n", lo, hi, now);
    int sms = 0, thr = 0;
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cuDeviceGetAttribute(&thr, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    printf("SMs %d, threads per SM %d\n", sms, thr);
  });

  // --- stale handles after cuCtxDestroy ---
  forked("stale after cuCtxDestroy", [&] {
    CUcontext c;
    cuCtxCreate(&c, nullptr, 0, dev);
    CUdeviceptr d;
    cuMemAlloc(&d, 4096);
    CUmodule m;
    load("(in a created context)", std::string(HDR) + body, &m);
    CUfunction f;
    cuModuleGetFunction(&f, m, "k");
    CUstream s;
    cuStreamCreate(&s, 0);
    CUevent e;
    cuEventCreate(&e, 0);
    report("cuCtxDestroy", cuCtxDestroy(c));
    CUcontext cur = (CUcontext)1;
    cuCtxGetCurrent(&cur);
    printf("current after destroy: %s\n", cur == nullptr ? "NULL" : cur == c ? "the destroyed one" : "other");
    CUdeviceptr d2;
    report("no ctx: cuMemAlloc", cuMemAlloc(&d2, 16));
    report("no ctx: cuMemFree(stale)", cuMemFree(d));
    report("no ctx: cuStreamSynchronize(stale)", cuStreamSynchronize(s));
    report("no ctx: cuEventRecord(stale)", cuEventRecord(e, 0));
    report("no ctx: cuCtxSetCurrent(destroyed)", cuCtxSetCurrent(c));
    cuCtxSetCurrent(ctx);
    report("primary current: cuMemFree(stale)", cuMemFree(d));
    int v = 1;
    report("primary current: cuMemcpyHtoD(stale)", cuMemcpyHtoD(d, &v, 4));
    report("primary current: cuLaunchKernel(stale f)", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, nullptr, nullptr));
    report("primary current: cuCtxSynchronize after", cuCtxSynchronize());
    report("primary current: cuModuleGetFunction(stale m)", cuModuleGetFunction(&f, m, "k"));
    report("primary current: cuModuleUnload(stale m)", cuModuleUnload(m));
    report("primary current: cuStreamSynchronize(stale s)", cuStreamSynchronize(s));
    report("primary current: cuStreamQuery(stale s)", cuStreamQuery(s));
    report("primary current: cuStreamDestroy(stale s)", cuStreamDestroy(s));
    report("primary current: cuEventRecord(stale e)", cuEventRecord(e, 0));
    report("primary current: cuEventQuery(stale e)", cuEventQuery(e));
    report("primary current: cuEventDestroy(stale e)", cuEventDestroy(e));
    CUcontext got;
    report("primary current: cuPointerGetAttribute(CONTEXT, stale)",
           cuPointerGetAttribute(&got, CU_POINTER_ATTRIBUTE_CONTEXT, d));
    report("primary current: cuCtxDestroy(destroyed again)", cuCtxDestroy(c));
    report("primary current: cuCtxPushCurrent(destroyed)", cuCtxPushCurrent(c));
  });
  forked("stale after cuDevicePrimaryCtxReset", [&] {
    CUdeviceptr d;
    cuMemAlloc(&d, 4096);
    CUmodule m;
    load("(in the primary context)", std::string(HDR) + body, &m);
    CUfunction f;
    cuModuleGetFunction(&f, m, "k");
    CUstream s;
    cuStreamCreate(&s, 0);
    CUevent e;
    cuEventCreate(&e, 0);
    report("cuDevicePrimaryCtxReset", cuDevicePrimaryCtxReset(dev));
    CUcontext cur = (CUcontext)1;
    cuCtxGetCurrent(&cur);
    printf("current after reset: %s\n", cur == nullptr ? "NULL" : cur == ctx ? "the same handle" : "other");
    unsigned fl = 0;
    int active = -1;
    cuDevicePrimaryCtxGetState(dev, &fl, &active);
    printf("primary active after reset: %d\n", active);
    report("after reset: cuMemFree(stale)", cuMemFree(d));
    int v = 1;
    report("after reset: cuMemcpyHtoD(stale)", cuMemcpyHtoD(d, &v, 4));
    report("after reset: cuLaunchKernel(stale f)", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, nullptr, nullptr));
    report("after reset: cuModuleGetFunction(stale m)", cuModuleGetFunction(&f, m, "k"));
    report("after reset: cuStreamSynchronize(stale s)", cuStreamSynchronize(s));
    report("after reset: cuEventRecord(stale e)", cuEventRecord(e, 0));
    CUcontext c2;
    report("after reset: cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&c2, dev));
    printf("retained handle after reset: %s\n", c2 == ctx ? "the same" : "another");
    cuCtxSetCurrent(c2);
    report("retained: cuMemFree(stale)", cuMemFree(d));
    report("retained: cuStreamSynchronize(stale s)", cuStreamSynchronize(s));
    report("retained: cuLaunchKernel(stale f)", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, nullptr, nullptr));
    report("retained: cuCtxSynchronize", cuCtxSynchronize());
  });
  return 0;
}
