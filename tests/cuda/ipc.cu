// CUDA IPC between two processes that both run the driver: a parent and a child it starts with
// fork() + exec() of this program (the child initialises CUDA itself, as the real driver
// requires; a child that only forks cannot use it, see the "fork" mode).
//
//   ipc          the parent: memory handles (cuIpcGetMemHandle / OpenMemHandle /
//                CloseMemHandle), an event handle, and a VMM allocation exported as a POSIX
//                file descriptor passed over a unix socket (SCM_RIGHTS); error codes.
//   ipc child FD the child, talking to the parent over the socket FD.
//   ipc fork     fork() while a stream worker is busy: the child's calls return
//                CUDA_ERROR_NOT_INITIALIZED at once (never hang), cuDriverGetVersion works.
//
// Expected values: the kernels' arithmetic (element i of a buffer holds i * MUL + ADD), the
// driver API documentation (opening a handle twice in one context returns the same pointer
// and counts references; memory handles of unknown bytes are CUDA_ERROR_INVALID_VALUE or
// CUDA_ERROR_INVALID_HANDLE), and an H100/H200 (scripts/ground-truth/results/fork-h200.txt:
// a process opening its own handle gets CUDA_ERROR_INVALID_CONTEXT, closing a pointer never
// opened CUDA_ERROR_INVALID_VALUE, an event without CU_EVENT_INTERPROCESS
// CUDA_ERROR_INVALID_HANDLE; after fork() every call of the child but cuDriverGetVersion
// returns CUDA_ERROR_NOT_INITIALIZED).
#include <cuda.h>
#include <cstdint>
#include <cstring>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

__global__ void fill(int* a, int n, int mul, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i * mul + add;
}

// Counts the elements that differ from i * mul + add into *bad, then writes i * mul2 + add2.
__global__ void check_and_write(int* a, int n, int mul, int add, int* bad, int mul2, int add2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (a[i] != i * mul + add) atomicAdd(bad, 1);
    a[i] = i * mul2 + add2;
  }
}

// fill() after `iters` rounds of busy work per thread: a kernel that runs for a while.
__global__ void slow_fill(int* a, int n, int iters, int mul, int add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = i;
  for (int k = 0; k < iters; k++) x = x * 1103515245u + 12345u;
  if (i < n) a[i] = i * mul + add + (x == 0x9e3779b9u ? 1 : 0);
}

static const int NA = 1000, NB = 100000;

// What the parent sends the child (with the VMM allocation's descriptor attached).
struct Msg {
  CUipcMemHandle a, b;
  CUipcEventHandle ev;
  size_t vmm_size;
  int parent_pid;
};

// What the child answers.
struct Reply {
  int bad_a, bad_b, bad_vmm;
  int same_pointer;      // the second open of A returned the first's pointer
  CUresult third_close;  // closing A once more than it was opened
  CUresult forged;       // opening a handle whose descriptor is not the exporter's
  CUresult zeros;        // opening 64 zero bytes
  CUresult query_after;  // cuEventQuery once the wait is over
  CUresult free_opened;  // cuMemFree of an opened pointer
  int done;
};

static bool send_all(int sock, const void* p, size_t n, int fd) {
  struct msghdr m = {};
  struct iovec iov = {(void*)p, n};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  char ctl[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    struct cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  return sendmsg(sock, &m, 0) == (ssize_t)n;
}

static bool recv_all(int sock, void* p, size_t n, int* fd) {
  struct msghdr m = {};
  struct iovec iov = {p, n};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  char ctl[CMSG_SPACE(sizeof(int))] = {};
  m.msg_control = ctl;
  m.msg_controllen = sizeof ctl;
  if (recvmsg(sock, &m, MSG_WAITALL) != (ssize_t)n) return false;
  if (fd) {
    *fd = -1;
    for (struct cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        memcpy(fd, CMSG_DATA(c), sizeof(int));
  }
  return true;
}

static CUmemAllocationProp device_prop() {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

static CUdeviceptr map_rw(CUmemGenericAllocationHandle h, size_t size) {
  CUdeviceptr va = 0;
  CU(cuMemAddressReserve(&va, size, 0, 0, 0));
  CU(cuMemMap(va, size, 0, h, 0));
  CUmemAccessDesc acc = {};
  acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  acc.location.id = 0;
  acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(va, size, &acc, 1));
  return va;
}

static int child(int sock) {
  alarm(60);  // a hang fails the test instead of stalling it
  Msg msg;
  int vmm_fd = -1;
  REQUIRE(recv_all(sock, &msg, sizeof msg, &vmm_fd));
  REQUIRE(vmm_fd >= 0);
  Reply r = {};
  CHECK(cudaFree(0));  // the primary context, current
  int* bad;
  CHECK(cudaMalloc(&bad, 3 * sizeof(int)));
  CHECK(cudaMemset(bad, 0, 3 * sizeof(int)));

  // The parent's event, recorded after a slow kernel that writes B: a stream that waits for it
  // sees B written.
  CUevent ev;
  CU(cuIpcOpenEventHandle(&ev, msg.ev));
  CUdeviceptr b = 0;
  CU(cuIpcOpenMemHandle(&b, msg.b, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CU(cuStreamWaitEvent((CUstream)s, ev, 0));
  check_and_write<<<(NB + 255) / 256, 256, 0, s>>>((int*)b, NB, 7, 5, bad + 1, 7, 5);
  CHECK(cudaStreamSynchronize(s));
  CU(cuEventSynchronize(ev));
  r.query_after = cuEventQuery(ev);
  CU(cuEventDestroy(ev));

  // A: opened twice (one mapping, two references), checked, overwritten, closed.
  CUdeviceptr a = 0, a2 = 0;
  CU(cuIpcOpenMemHandle(&a, msg.a, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  CU(cuIpcOpenMemHandle(&a2, msg.a, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  r.same_pointer = a == a2;
  check_and_write<<<(NA + 255) / 256, 256>>>((int*)a, NA, 3, 1, bad, -1, 0);
  CHECK(cudaDeviceSynchronize());
  r.free_opened = cuMemFree(a);
  CU(cuIpcCloseMemHandle(a));
  CU(cuIpcCloseMemHandle(a2));
  r.third_close = cuIpcCloseMemHandle(a);
  CU(cuIpcCloseMemHandle(b));

  // Handles no export made.
  CUipcMemHandle forged = msg.a;
  forged.reserved[16] ^= 0x5a;  // the first piece's descriptor number
  forged.reserved[20] ^= 0x5a;  // and its name
  CUdeviceptr p = 0;
  r.forged = cuIpcOpenMemHandle(&p, forged, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  CUipcMemHandle zeros;
  memset(&zeros, 0, sizeof zeros);
  r.zeros = cuIpcOpenMemHandle(&p, zeros, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);

  // The VMM allocation, through the descriptor the parent passed.
  CUmemGenericAllocationHandle h;
  CU(cuMemImportFromShareableHandle(&h, (void*)(uintptr_t)vmm_fd,
                                    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  close(vmm_fd);
  CUdeviceptr v = map_rw(h, msg.vmm_size);
  int nv = (int)(msg.vmm_size / sizeof(int));
  check_and_write<<<(nv + 255) / 256, 256>>>((int*)v, nv, 11, 2, bad + 2, 13, 9);
  CHECK(cudaDeviceSynchronize());
  CU(cuMemUnmap(v, msg.vmm_size));
  CU(cuMemAddressFree(v, msg.vmm_size));
  CU(cuMemRelease(h));

  int host_bad[3];
  CHECK(cudaMemcpy(host_bad, bad, sizeof host_bad, cudaMemcpyDeviceToHost));
  r.bad_a = host_bad[0];
  r.bad_b = host_bad[1];
  r.bad_vmm = host_bad[2];
  r.done = 1;
  REQUIRE(send_all(sock, &r, sizeof r, -1));
  return 0;
}

static int parent(const char* self) {
  CU(cuInit(0));
  CHECK(cudaFree(0));
  CUcontext ctx;
  CU(cuCtxGetCurrent(&ctx));

  int *a, *b;
  CHECK(cudaMalloc(&a, NA * sizeof(int)));
  CHECK(cudaMalloc(&b, NB * sizeof(int)));
  fill<<<(NA + 255) / 256, 256>>>(a, NA, 3, 1);
  CHECK(cudaMemset(b, 0, NB * sizeof(int)));
  CHECK(cudaDeviceSynchronize());

  // A VMM allocation with a POSIX descriptor handle type.
  CUmemAllocationProp prop = device_prop();
  size_t gran = 0;
  CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CUmemGenericAllocationHandle h;
  CU(cuMemCreate(&h, gran, &prop, 0));
  CUdeviceptr v = map_rw(h, gran);
  int nv = (int)(gran / sizeof(int));
  fill<<<(nv + 255) / 256, 256>>>((int*)v, nv, 11, 2);
  CHECK(cudaDeviceSynchronize());
  int vmm_fd = -1;
  CU(cuMemExportToShareableHandle(&vmm_fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  REQUIRE(vmm_fd >= 0);

  Msg msg = {};
  msg.vmm_size = gran;
  msg.parent_pid = getpid();
  CU(cuIpcGetMemHandle(&msg.a, (CUdeviceptr)a));
  CU(cuIpcGetMemHandle(&msg.b, (CUdeviceptr)b));
  // The same allocation exported again: the same handle (a lightweight operation, documented).
  CUipcMemHandle again;
  CU(cuIpcGetMemHandle(&again, (CUdeviceptr)a));
  EXPECT(memcmp(&again, &msg.a, sizeof again) == 0);

  // Error codes in the exporting process.
  CUdeviceptr q = 0;
  EXPECT_EQ(cuIpcOpenMemHandle(&q, msg.a, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
            CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuIpcCloseMemHandle((CUdeviceptr)a), CUDA_ERROR_INVALID_VALUE);
  CUevent plain;
  CU(cuEventCreate(&plain, 0));
  CUipcEventHandle eh;
  EXPECT_EQ(cuIpcGetEventHandle(&eh, plain), CUDA_ERROR_INVALID_HANDLE);
  CU(cuEventDestroy(plain));
  EXPECT_EQ(cuIpcGetMemHandle(nullptr, (CUdeviceptr)a), CUDA_ERROR_INVALID_VALUE);
  int host_word = 0;
  EXPECT_EQ(cuIpcGetMemHandle(&again, (CUdeviceptr)&host_word), CUDA_ERROR_INVALID_VALUE);

  // The event the child waits for, recorded after a slow kernel writing B.
  CUevent ev;
  CU(cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
  CU(cuIpcGetEventHandle(&msg.ev, ev));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  slow_fill<<<(NB + 255) / 256, 256, 0, s>>>(b, NB, 2000, 7, 5);
  CU(cuEventRecord(ev, (CUstream)s));

  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    char fdtext[16];
    snprintf(fdtext, sizeof fdtext, "%d", sv[1]);
    execl(self, self, "child", fdtext, (char*)nullptr);
    _exit(127);
  }
  close(sv[1]);
  REQUIRE(send_all(sv[0], &msg, sizeof msg, vmm_fd));
  close(vmm_fd);
  Reply r = {};
  bool got = recv_all(sv[0], &r, sizeof r, nullptr);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
  REQUIRE(got && r.done);
  EXPECT_EQ(r.bad_a, 0);
  EXPECT_EQ(r.bad_b, 0);
  EXPECT_EQ(r.bad_vmm, 0);
  EXPECT_EQ(r.same_pointer, 1);
  EXPECT_EQ(r.third_close, CUDA_ERROR_INVALID_VALUE);
  EXPECT_MSG(r.forged == CUDA_ERROR_INVALID_HANDLE || r.forged == CUDA_ERROR_INVALID_VALUE,
             "forged handle: %d", r.forged);
  EXPECT_MSG(r.zeros == CUDA_ERROR_INVALID_HANDLE || r.zeros == CUDA_ERROR_INVALID_VALUE,
             "zero handle: %d", r.zeros);
  EXPECT_EQ(r.query_after, CUDA_SUCCESS);
  EXPECT(r.free_opened != CUDA_SUCCESS);

  // The child's writes, seen here.
  static int host[NB];
  CHECK(cudaMemcpy(host, a, NA * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < NA; i++) wrong += host[i] != -i;
  EXPECT_EQ(wrong, 0);
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemcpy(host, b, NB * sizeof(int), cudaMemcpyDeviceToHost));
  wrong = 0;
  for (int i = 0; i < NB; i++) wrong += host[i] != i * 7 + 5;
  EXPECT_EQ(wrong, 0);
  int* hv = new int[nv];
  CHECK(cudaMemcpy(hv, (void*)v, gran, cudaMemcpyDeviceToHost));
  wrong = 0;
  for (int i = 0; i < nv; i++) wrong += hv[i] != i * 13 + 9;
  EXPECT_EQ(wrong, 0);
  delete[] hv;

  CU(cuEventDestroy(ev));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CU(cuMemUnmap(v, gran));
  CU(cuMemAddressFree(v, gran));
  CU(cuMemRelease(h));
  if (expect_failures) return 1;
  printf("PASS ipc\n");
  return 0;
}

// fork() while a stream's worker runs a kernel: the child gets CUDA_ERROR_NOT_INITIALIZED from
// every call at once; the parent's work completes.
static int fork_busy() {
  int* d;
  CHECK(cudaMalloc(&d, NB * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUevent ev;
  CU(cuEventCreate(&ev, 0));
  slow_fill<<<(NB + 255) / 256, 256, 0, s>>>(d, NB, 2000, 7, 5);
  CU(cuEventRecord(ev, (CUstream)s));
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(20);
    int host[4];
    CUresult r[] = {
        cuStreamSynchronize((CUstream)s),
        cuEventSynchronize(ev),
        cuEventQuery(ev),
        cuCtxSynchronize(),
        cuMemcpyDtoH(host, (CUdeviceptr)d, sizeof host),
        cuLaunchHostFunc((CUstream)s, [](void*) {}, nullptr),
        cuInit(0),
    };
    int ok = 1;
    for (unsigned i = 0; i < sizeof r / sizeof r[0]; i++)
      if (r[i] != CUDA_ERROR_NOT_INITIALIZED) {
        fprintf(stderr, "child: call %u returned %d\n", i, r[i]);
        ok = 0;
      }
    int version = 0;
    if (cuDriverGetVersion(&version) != CUDA_SUCCESS || version <= 0) {
      fprintf(stderr, "child: cuDriverGetVersion failed\n");
      ok = 0;
    }
    fflush(stderr);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
  CHECK(cudaStreamSynchronize(s));
  static int host[NB];
  CHECK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < NB; i++) wrong += host[i] != i * 7 + 5;
  EXPECT_EQ(wrong, 0);
  CHECK(cudaFree(d));
  if (expect_failures) return 1;
  printf("PASS ipc fork\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 3 && strcmp(argv[1], "child") == 0) return child(atoi(argv[2]));
  if (argc >= 2 && strcmp(argv[1], "fork") == 0) return fork_busy();
  return parent("/proc/self/exe");
}
