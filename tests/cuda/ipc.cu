// CUDA IPC between two processes that both run the driver: a parent and a child it starts with
// fork() + exec() of this program (the child initialises CUDA itself, as the real driver
// requires; a child that only forks cannot use it, see the "fork" mode).
//
//   ipc          the parent: memory handles (cuIpcGetMemHandle / OpenMemHandle /
//                CloseMemHandle), an event handle, and a VMM allocation exported as a POSIX
//                file descriptor passed over a unix socket (SCM_RIGHTS), a memory pool exported
//                the same way with one of its allocations (cuMemPoolExportPointer /
//                ImportPointer); error codes.
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
// returns CUDA_ERROR_NOT_INITIALIZED; and scripts/ground-truth/results/ipc-h200.txt: an
// allocation of an exportable pool is exported only once the pool has been, a pool allocation
// has no cuIpcGetMemHandle, an event handle no export made is CUDA_ERROR_MAP_FAILED).
#include <cuda.h>
#include <atomic>
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

static const int NA = 1000, NB = 100000, NP = 3000;

// A stream's host function that holds the stream until the program opens the gate: work queued
// behind it is certainly not done before then (a stream worker busy at a known moment).
static std::atomic<int> gate{0};
static void CUDA_CB wait_for_gate(void*) {
  while (!gate.load()) usleep(1000);
}

// What the parent sends the child (with the VMM allocation's descriptor attached).
struct Msg {
  CUipcMemHandle a, b;
  CUipcEventHandle ev;
  CUmemPoolPtrExportData pool_ptr;
  size_t vmm_size;
  int parent_pid;
};

// What the child answers.
struct Reply {
  int bad_a, bad_b, bad_vmm, bad_pool;
  CUresult alloc_imported;  // cuMemAllocFromPoolAsync from an imported pool
  int same_pointer;      // the second open of A returned the first's pointer
  CUresult third_close;  // closing A once more than it was opened
  CUresult forged;       // opening a handle whose descriptor is not the exporter's
  CUresult zeros;        // opening 64 zero bytes
  CUresult event_zeros;  // opening 64 zero bytes as an event handle
  CUresult event_forged; // an event handle whose descriptor is not the exporter's
  CUresult query_before;  // cuEventQuery while the parent's stream is held
  CUresult query_after;   // cuEventQuery once the wait is over
  CUresult free_opened;  // cuMemFree of an opened pointer
  int done;
};

// Sends n bytes with `nfd` descriptors attached (SCM_RIGHTS).
static bool send_all(int sock, const void* p, size_t n, const int* fds, int nfd) {
  struct msghdr m = {};
  struct iovec iov = {(void*)p, n};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  char ctl[CMSG_SPACE(2 * sizeof(int))] = {};
  if (nfd > 0) {
    m.msg_control = ctl;
    m.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
    struct cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(nfd * sizeof(int));
    memcpy(CMSG_DATA(c), fds, nfd * sizeof(int));
  }
  return sendmsg(sock, &m, 0) == (ssize_t)n;
}

// Receives n bytes and up to two descriptors (-1 where none came).
static bool recv_all(int sock, void* p, size_t n, int* fds) {
  struct msghdr m = {};
  struct iovec iov = {p, n};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  char ctl[CMSG_SPACE(2 * sizeof(int))] = {};
  m.msg_control = ctl;
  m.msg_controllen = sizeof ctl;
  if (recvmsg(sock, &m, MSG_WAITALL) != (ssize_t)n) return false;
  if (fds) {
    fds[0] = fds[1] = -1;
    for (struct cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        memcpy(fds, CMSG_DATA(c), c->cmsg_len - CMSG_LEN(0));
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
  int fds[2];
  REQUIRE(recv_all(sock, &msg, sizeof msg, fds));
  int vmm_fd = fds[0], pool_fd = fds[1];
  REQUIRE(vmm_fd >= 0 && pool_fd >= 0);
  Reply r = {};
  CHECK(cudaFree(0));  // the primary context, current
  int* bad;
  CHECK(cudaMalloc(&bad, 4 * sizeof(int)));
  CHECK(cudaMemset(bad, 0, 4 * sizeof(int)));

  // The parent's event, recorded after a kernel that writes B, queued behind a gate the parent
  // opens only when this process has queued its wait: a stream that waits for the event sees
  // B written.
  CUevent ev;
  CU(cuIpcOpenEventHandle(&ev, msg.ev));
  r.query_before = cuEventQuery(ev);
  CUdeviceptr b = 0;
  CU(cuIpcOpenMemHandle(&b, msg.b, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CU(cuStreamWaitEvent((CUstream)s, ev, 0));
  check_and_write<<<(NB + 255) / 256, 256, 0, s>>>((int*)b, NB, 7, 5, bad + 1, 7, 5);
  int waiting = 1;
  REQUIRE(send_all(sock, &waiting, sizeof waiting, nullptr, 0));
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
  CUipcEventHandle ezeros, eforged = msg.ev;
  memset(&ezeros, 0, sizeof ezeros);
  eforged.reserved[8] ^= 0x5a;  // the descriptor number
  CUevent bad_ev;
  r.event_zeros = cuIpcOpenEventHandle(&bad_ev, ezeros);
  r.event_forged = cuIpcOpenEventHandle(&bad_ev, eforged);

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

  // The pool, through its descriptor, and one allocation of it, through its export data.
  CUmemoryPool pool;
  CU(cuMemPoolImportFromShareableHandle(&pool, (void*)(uintptr_t)pool_fd,
                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  close(pool_fd);
  CUdeviceptr pp = 0;
  CU(cuMemPoolImportPointer(&pp, pool, &msg.pool_ptr));
  check_and_write<<<(NP + 255) / 256, 256>>>((int*)pp, NP, 5, 3, bad + 3, 17, 4);
  CHECK(cudaDeviceSynchronize());
  CUdeviceptr x = 0;
  r.alloc_imported = cuMemAllocFromPoolAsync(&x, 256, pool, 0);
  // Imported memory is freed here before the exporter frees it (documented order).
  CU(cuMemFree(pp));

  int host_bad[4];
  CHECK(cudaMemcpy(host_bad, bad, sizeof host_bad, cudaMemcpyDeviceToHost));
  r.bad_a = host_bad[0];
  r.bad_b = host_bad[1];
  r.bad_vmm = host_bad[2];
  r.bad_pool = host_bad[3];
  CHECK(cudaFree(bad));
  r.done = 1;
  REQUIRE(send_all(sock, &r, sizeof r, nullptr, 0));
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

  // A pool that can be exported, and an allocation of it.
  CUmemPoolProps pp = {};
  pp.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  pp.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  pp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  pp.location.id = 0;
  CUmemoryPool pool;
  CU(cuMemPoolCreate(&pool, &pp));
  CUdeviceptr pa = 0;
  CU(cuMemAllocFromPoolAsync(&pa, NP * sizeof(int), pool, 0));
  fill<<<(NP + 255) / 256, 256>>>((int*)pa, NP, 5, 3);
  CHECK(cudaDeviceSynchronize());
  // Before the pool itself is exported its allocations are not ("from an already shared memory
  // pool"): an H200 answered CUDA_ERROR_INVALID_VALUE (ipc-h200.txt). Pool memory has no
  // cuIpcGetMemHandle either (the same file).
  CUmemPoolPtrExportData early;
  EXPECT_EQ(cuMemPoolExportPointer(&early, pa), CUDA_ERROR_INVALID_VALUE);
  CUipcMemHandle pool_handle;
  EXPECT_EQ(cuIpcGetMemHandle(&pool_handle, pa), CUDA_ERROR_INVALID_VALUE);
  int pool_fd = -1;
  CU(cuMemPoolExportToShareableHandle(&pool_fd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  REQUIRE(pool_fd >= 0);
  // Pools made without a handle type, and memory of no exportable pool, cannot be exported.
  CUmemoryPool plain_pool;
  CU(cuDeviceGetDefaultMemPool(&plain_pool, 0));
  int no_fd = -1;
  EXPECT_EQ(cuMemPoolExportToShareableHandle(&no_fd, plain_pool,
                                             CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
            CUDA_ERROR_INVALID_VALUE);
  CUmemPoolPtrExportData no_data;
  EXPECT_EQ(cuMemPoolExportPointer(&no_data, (CUdeviceptr)a), CUDA_ERROR_INVALID_VALUE);

  Msg msg = {};
  CU(cuMemPoolExportPointer(&msg.pool_ptr, pa));
  msg.vmm_size = gran;
  msg.parent_pid = getpid();
  CU(cuIpcGetMemHandle(&msg.a, (CUdeviceptr)a));
  CU(cuIpcGetMemHandle(&msg.b, (CUdeviceptr)b));
  // The same allocation exported again: the same handle (a lightweight operation, documented).
  CUipcMemHandle again;
  CU(cuIpcGetMemHandle(&again, (CUdeviceptr)a));
  EXPECT(memcmp(&again, &msg.a, sizeof again) == 0);
  // A new allocation at a freed one's address gets another handle (documented).
  int *t1, *t2;
  CUipcMemHandle th1, th2;
  CHECK(cudaMalloc(&t1, 512));
  CU(cuIpcGetMemHandle(&th1, (CUdeviceptr)t1));
  CHECK(cudaFree(t1));
  CHECK(cudaMalloc(&t2, 512));
  CU(cuIpcGetMemHandle(&th2, (CUdeviceptr)t2));
  if (t2 == t1) EXPECT(memcmp(&th1, &th2, sizeof th1) != 0);
  CHECK(cudaFree(t2));

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

  // The event the child waits for, recorded after the gate and a kernel writing B.
  CUevent ev;
  CU(cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
  CU(cuIpcGetEventHandle(&msg.ev, ev));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CU(cuLaunchHostFunc((CUstream)s, wait_for_gate, nullptr));
  slow_fill<<<(NB + 255) / 256, 256, 0, s>>>(b, NB, 200, 7, 5);
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
  int fds[2] = {vmm_fd, pool_fd};
  REQUIRE(send_all(sv[0], &msg, sizeof msg, fds, 2));
  close(vmm_fd);
  close(pool_fd);
  int waiting = 0;
  bool got = recv_all(sv[0], &waiting, sizeof waiting, nullptr);
  gate = 1;
  Reply r = {};
  got = got && recv_all(sv[0], &r, sizeof r, nullptr);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
  REQUIRE(got && r.done);
  EXPECT_EQ(r.bad_a, 0);
  EXPECT_EQ(r.bad_b, 0);
  EXPECT_EQ(r.bad_vmm, 0);
  EXPECT_EQ(r.bad_pool, 0);
  EXPECT(r.alloc_imported != CUDA_SUCCESS);
  EXPECT_EQ(r.same_pointer, 1);
  EXPECT_EQ(r.third_close, CUDA_ERROR_INVALID_VALUE);
  EXPECT_MSG(r.forged == CUDA_ERROR_INVALID_HANDLE || r.forged == CUDA_ERROR_INVALID_VALUE,
             "forged handle: %d", r.forged);
  EXPECT_MSG(r.zeros == CUDA_ERROR_INVALID_HANDLE || r.zeros == CUDA_ERROR_INVALID_VALUE,
             "zero handle: %d", r.zeros);
  // An H200 answered 64 zero bytes with CUDA_ERROR_MAP_FAILED (ipc-h200.txt), not one of the
  // codes cuIpcOpenEventHandle documents; a forged descriptor is taken as the same case.
  EXPECT_EQ(r.event_zeros, CUDA_ERROR_MAP_FAILED);
  EXPECT_EQ(r.event_forged, CUDA_ERROR_MAP_FAILED);
  EXPECT_EQ(r.query_before, CUDA_ERROR_NOT_READY);
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
  CHECK(cudaMemcpy(host, (void*)pa, NP * sizeof(int), cudaMemcpyDeviceToHost));
  wrong = 0;
  for (int i = 0; i < NP; i++) wrong += host[i] != i * 17 + 4;
  EXPECT_EQ(wrong, 0);
  CU(cuMemFreeAsync(pa, 0));
  CHECK(cudaDeviceSynchronize());
  CU(cuMemPoolDestroy(pool));

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
  // The stream's worker is inside the gate's host function when the process forks.
  CU(cuLaunchHostFunc((CUstream)s, wait_for_gate, nullptr));
  slow_fill<<<(NB + 255) / 256, 256, 0, s>>>(d, NB, 200, 7, 5);
  CU(cuEventRecord(ev, (CUstream)s));
  usleep(20000);
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
  EXPECT_EQ(cuEventQuery(ev), CUDA_ERROR_NOT_READY);
  gate = 1;
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
