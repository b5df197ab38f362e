// What the driver answers in a child process after fork(), when the parent had initialised it
// (issue: "after fork() the child's driver calls return CUDA_ERROR_NOT_INITIALIZED or what the
// real driver returns"), and what IPC and peer queries answer on one device.
// Prints "CALL: CODE NAME" lines; the child's lines start with "child".
// Build: nvcc -o fork_probe fork_probe.cpp -lcuda
#include <cuda.h>
#include <cstdio>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char* who, const char* call, CUresult r) {
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  printf("%s %s: %d %s\n", who, call, (int)r, name ? name : "?");
  fflush(stdout);
}

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  show("parent", "cuInit", cuInit(0));
  CUdevice dev;
  show("parent", "cuDeviceGet", cuDeviceGet(&dev, 0));
  CUcontext ctx;
  show("parent", "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  show("parent", "cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  CUdeviceptr p = 0;
  show("parent", "cuMemAlloc", cuMemAlloc(&p, 1 << 20));
  int can = -1;
  show("parent", "cuDeviceCanAccessPeer(0,0)", cuDeviceCanAccessPeer(&can, dev, dev));
  printf("parent canAccessPeer(0,0) = %d\n", can);
  show("parent", "cuCtxEnablePeerAccess(own)", cuCtxEnablePeerAccess(ctx, 0));
  CUipcMemHandle h;
  memset(&h, 0, sizeof h);
  show("parent", "cuIpcGetMemHandle", cuIpcGetMemHandle(&h, p));
  CUdeviceptr q = 0;
  show("parent", "cuIpcOpenMemHandle(own handle, same process)",
       cuIpcOpenMemHandle(&q, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  CUevent ev;
  show("parent", "cuEventCreate(interprocess)", cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
  CUipcEventHandle eh;
  show("parent", "cuIpcGetEventHandle", cuIpcGetEventHandle(&eh, ev));
  CUevent ev2;
  show("parent", "cuEventCreate(default)", cuEventCreate(&ev2, 0));
  show("parent", "cuIpcGetEventHandle(no INTERPROCESS flag)", cuIpcGetEventHandle(&eh, ev2));
  char buf[64] = {1};
  pid_t pid = fork();
  if (pid == 0) {
    // The child: every call on the inherited state, then a fresh cuInit.
    CUcontext cur = nullptr;
    show("child", "cuCtxGetCurrent", cuCtxGetCurrent(&cur));
    printf("child current context %s the parent's\n", cur == ctx ? "is" : "is not");
    show("child", "cuMemcpyHtoD", cuMemcpyHtoD(p, buf, sizeof buf));
    show("child", "cuMemAlloc", cuMemAlloc(&q, 4096));
    CUdevice d2;
    show("child", "cuDeviceGet", cuDeviceGet(&d2, 0));
    int n = -1;
    show("child", "cuDeviceGetCount", cuDeviceGetCount(&n));
    show("child", "cuCtxSynchronize", cuCtxSynchronize());
    show("child", "cuInit", cuInit(0));
    show("child", "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&cur, 0));
    show("child", "cuIpcOpenMemHandle(parent's handle)",
         cuIpcOpenMemHandle(&q, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    int drv = 0;
    show("child", "cuDriverGetVersion", cuDriverGetVersion(&drv));
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  printf("child exit: %s %d\n", WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  show("parent", "cuMemcpyHtoD after the child", cuMemcpyHtoD(p, buf, sizeof buf));
  show("parent", "cuIpcCloseMemHandle(never opened)", cuIpcCloseMemHandle(p));
  show("parent", "cuMemFree", cuMemFree(p));
  return 0;
}
