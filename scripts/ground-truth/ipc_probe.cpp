// What the driver answers to IPC calls the documentation leaves open (results/ipc-h200.txt; the
// shim's choices are in libcuda-shim/src/memory/ipc.rs and pool_ipc.rs): handles no export
// made, an event handle opened in its own process, memory the calls do not take, a pointer
// opened twice, cuMemFree of an opened pointer, the pool calls' refusals, cuMemPoolExportPointer
// before and after the pool's export, and an event handle with flipped bytes.
// Prints "WHO CALL: CODE NAME" lines. The child is this program exec'd with "child FD".
// Build: nvcc -o ipc_probe ipc_probe.cpp -lcuda
#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char* who, const char* call, CUresult r) {
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  printf("%s %s: %d %s\n", who, call, (int)r, name ? name : "?");
  fflush(stdout);
}

struct Msg {
  CUipcMemHandle mem;
  CUipcEventHandle ev;
  CUmemPoolPtrExportData pool_ptr;
};

static void send_fd(int sock, const Msg& m, int fd) {
  struct msghdr h = {};
  struct iovec iov = {(void*)&m, sizeof m};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  char ctl[CMSG_SPACE(sizeof(int))] = {};
  h.msg_control = ctl;
  h.msg_controllen = sizeof ctl;
  struct cmsghdr* c = CMSG_FIRSTHDR(&h);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  sendmsg(sock, &h, 0);
}

static int recv_fd(int sock, Msg* m) {
  struct msghdr h = {};
  struct iovec iov = {m, sizeof *m};
  h.msg_iov = &iov;
  h.msg_iovlen = 1;
  char ctl[CMSG_SPACE(sizeof(int))] = {};
  h.msg_control = ctl;
  h.msg_controllen = sizeof ctl;
  int fd = -1;
  if (recvmsg(sock, &h, MSG_WAITALL) == (ssize_t)sizeof *m && CMSG_FIRSTHDR(&h))
    memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&h)), sizeof fd);
  return fd;
}

static int child(int sock) {
  Msg m;
  int pool_fd = recv_fd(sock, &m);
  show("child", "cuInit", cuInit(0));
  CUcontext ctx;
  show("child", "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, 0));
  show("child", "cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  CUdeviceptr a = 0, a2 = 0, q = 0;
  show("child", "cuIpcOpenMemHandle", cuIpcOpenMemHandle(&a, m.mem, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  show("child", "cuIpcOpenMemHandle(again)", cuIpcOpenMemHandle(&a2, m.mem, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  printf("child second open returns the same pointer: %d\n", a == a2);
  show("child", "cuIpcOpenMemHandle(flags 0)", cuIpcOpenMemHandle(&q, m.mem, 0));
  if (q) cuIpcCloseMemHandle(q);
  show("child", "cuIpcOpenMemHandle(flags 2)", cuIpcOpenMemHandle(&q, m.mem, 2));
  show("child", "cuMemFree(opened pointer)", cuMemFree(a));
  size_t size = 0;
  CUdeviceptr base = 0;
  show("child", "cuMemGetAddressRange(opened + 8)", cuMemGetAddressRange(&base, &size, a + 8));
  printf("child range: base is the pointer %d, size %zu\n", base == a, size);
  CUipcMemHandle again;
  show("child", "cuIpcGetMemHandle(opened pointer)", cuIpcGetMemHandle(&again, a));
  show("child", "cuIpcCloseMemHandle", cuIpcCloseMemHandle(a));
  show("child", "cuIpcCloseMemHandle(second)", cuIpcCloseMemHandle(a2));
  show("child", "cuIpcCloseMemHandle(third)", cuIpcCloseMemHandle(a));
  CUipcMemHandle zeros;
  memset(&zeros, 0, sizeof zeros);
  show("child", "cuIpcOpenMemHandle(64 zero bytes)", cuIpcOpenMemHandle(&q, zeros, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  CUipcMemHandle flipped = m.mem;
  for (int i = 0; i < 64; i += 3) flipped.reserved[i] ^= 0x5a;
  show("child", "cuIpcOpenMemHandle(flipped bytes)", cuIpcOpenMemHandle(&q, flipped, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  CUevent ev;
  show("child", "cuIpcOpenEventHandle", cuIpcOpenEventHandle(&ev, m.ev));
  show("child", "cuEventQuery(opened)", cuEventQuery(ev));
  show("child", "cuEventRecord(opened)", cuEventRecord(ev, 0));
  show("child", "cuEventSynchronize(opened)", cuEventSynchronize(ev));
  float ms;
  show("child", "cuEventElapsedTime(opened)", cuEventElapsedTime(&ms, ev, ev));
  CUipcEventHandle eh;
  show("child", "cuIpcGetEventHandle(opened event)", cuIpcGetEventHandle(&eh, ev));
  show("child", "cuEventDestroy(opened)", cuEventDestroy(ev));
  CUipcEventHandle ezeros;
  memset(&ezeros, 0, sizeof ezeros);
  show("child", "cuIpcOpenEventHandle(64 zero bytes)", cuIpcOpenEventHandle(&ev, ezeros));
  CUipcEventHandle eflipped = m.ev;
  for (int i = 0; i < 64; i += 3) eflipped.reserved[i] ^= 0x5a;
  show("child", "cuIpcOpenEventHandle(flipped bytes)", cuIpcOpenEventHandle(&ev, eflipped));
  CUmemoryPool pool;
  show("child", "cuMemPoolImportFromShareableHandle",
       cuMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)pool_fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  CUdeviceptr pp = 0;
  show("child", "cuMemPoolImportPointer", cuMemPoolImportPointer(&pp, pool, &m.pool_ptr));
  show("child", "cuMemAllocFromPoolAsync(imported pool)", cuMemAllocFromPoolAsync(&q, 256, pool, 0));
  show("child", "cuDeviceSetMemPool(imported pool)", cuDeviceSetMemPool(0, pool));
  CUmemPoolPtrExportData zd;
  memset(&zd, 0, sizeof zd);
  show("child", "cuMemPoolImportPointer(64 zero bytes)", cuMemPoolImportPointer(&q, pool, &zd));
  show("child", "cuMemFree(imported pool pointer)", cuMemFree(pp));
  show("child", "cuMemPoolImportFromShareableHandle(fd 0)",
       cuMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  int done = 1;
  write(sock, &done, sizeof done);
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc >= 3 && strcmp(argv[1], "child") == 0) return child(atoi(argv[2]));
  show("parent", "cuInit", cuInit(0));
  CUcontext ctx;
  show("parent", "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, 0));
  show("parent", "cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  CUdeviceptr p = 0, m = 0;
  show("parent", "cuMemAlloc", cuMemAlloc(&p, 1000));
  Msg msg;
  show("parent", "cuIpcGetMemHandle", cuIpcGetMemHandle(&msg.mem, p));
  CUipcMemHandle h;
  show("parent", "cuIpcGetMemHandle(base + 256)", cuIpcGetMemHandle(&h, p + 256));
  show("parent", "cuIpcGetMemHandle(0)", cuIpcGetMemHandle(&h, 0));
  show("parent", "cuMemAllocManaged", cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
  show("parent", "cuIpcGetMemHandle(managed)", cuIpcGetMemHandle(&h, m));
  void* host = nullptr;
  show("parent", "cuMemAllocHost", cuMemAllocHost(&host, 4096));
  show("parent", "cuIpcGetMemHandle(pinned host)", cuIpcGetMemHandle(&h, (CUdeviceptr)host));
  CUevent ev, ev2;
  show("parent", "cuEventCreate(interprocess)", cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
  show("parent", "cuEventCreate(interprocess, timing)", cuEventCreate(&ev2, CU_EVENT_INTERPROCESS));
  show("parent", "cuIpcGetEventHandle", cuIpcGetEventHandle(&msg.ev, ev));
  CUevent own;
  show("parent", "cuIpcOpenEventHandle(own handle)", cuIpcOpenEventHandle(&own, msg.ev));
  CUmemoryPool def;
  cuDeviceGetDefaultMemPool(&def, 0);
  int fd = -1;
  show("parent", "cuMemPoolExportToShareableHandle(default pool)",
       cuMemPoolExportToShareableHandle(&fd, def, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  CUmemPoolProps pp = {};
  pp.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  pp.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  pp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  CUmemoryPool pool;
  show("parent", "cuMemPoolCreate(posix fd)", cuMemPoolCreate(&pool, &pp));
  CUdeviceptr pa = 0;
  show("parent", "cuMemAllocFromPoolAsync", cuMemAllocFromPoolAsync(&pa, 1000, pool, 0));
  cuCtxSynchronize();
  show("parent", "cuMemPoolExportPointer", cuMemPoolExportPointer(&msg.pool_ptr, pa));
  CUmemPoolPtrExportData d;
  show("parent", "cuMemPoolExportPointer(cuMemAlloc memory)", cuMemPoolExportPointer(&d, p));
  show("parent", "cuIpcGetMemHandle(pool memory)", cuIpcGetMemHandle(&h, pa));
  show("parent", "cuMemPoolExportToShareableHandle",
       cuMemPoolExportToShareableHandle(&fd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  int none = -1;
  show("parent", "cuMemPoolExportToShareableHandle(flags 1)",
       cuMemPoolExportToShareableHandle(&none, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
  // Not sent to the child: its import answers the refused export's data, as recorded.
  CUmemPoolPtrExportData later;
  show("parent", "cuMemPoolExportPointer(after the pool's export)", cuMemPoolExportPointer(&later, pa));
  pp.handleTypes = CU_MEM_HANDLE_TYPE_WIN32;
  CUmemoryPool wpool;
  show("parent", "cuMemPoolCreate(win32)", cuMemPoolCreate(&wpool, &pp));
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    char t[16];
    snprintf(t, sizeof t, "%d", sv[1]);
    execl("/proc/self/exe", argv[0], "child", t, (char*)nullptr);
    _exit(127);
  }
  close(sv[1]);
  send_fd(sv[0], msg, fd);
  int done = 0;
  read(sv[0], &done, sizeof done);
  int st = 0;
  waitpid(pid, &st, 0);
  printf("child exit: %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  show("parent", "cuMemFreeAsync(pool memory)", cuMemFreeAsync(pa, 0));
  CUdeviceptr old = p;
  show("parent", "cuMemFree", cuMemFree(p));
  show("parent", "cuMemAlloc(again)", cuMemAlloc(&p, 1000));
  CUipcMemHandle h2;
  show("parent", "cuIpcGetMemHandle(new allocation)", cuIpcGetMemHandle(&h2, p));
  printf("parent new allocation at the same address: %d, its handle differs: %d\n", p == old,
         memcmp(&h2, &msg.mem, sizeof h2) != 0);
  return 0;
}
