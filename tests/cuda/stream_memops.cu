// Stream attributes, stream memory operations (wait/write value, batches), context-wide event
// record and wait, pointer SYNC_MEMOPS, managed-memory range attributes and batched copies,
// through the driver API (and the runtime's equivalents where it has them). Expected values
// come from the semantics cuda.h documents for each call (quoted beside the checks); waits are
// shown to block by a stream that stays NOT_READY until the host, another stream's memory
// operation or another stream's kernel writes the word it waits on. Prints PASS.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <chrono>
#include "check.h"

#define RT(call) EXPECT((call) == cudaSuccess)

static void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// A stream that is still waiting (has unfinished work) after 50 ms.
static bool blocked(CUstream s) {
  sleep_ms(50);
  return cuStreamQuery(s) == CUDA_ERROR_NOT_READY;
}

__global__ void store(unsigned* p, unsigned v) { *p = v; }

static void device_attributes(CUdevice dev) {
  // What this driver implements (memops.rs): all stream memory operations.
  CUdevice_attribute yes[] = {
      CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1,
      CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
      CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES,
      CU_DEVICE_ATTRIBUTE_ATOMIC_REDUCTION_SUPPORTED};
  for (CUdevice_attribute a : yes) {
    int v = -1;
    CU(cuDeviceGetAttribute(&v, a, dev));
    EXPECT(v == 1);
  }
}

static void stream_attributes() {
  CUstream s, d;
  CU(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -2));
  CU(cuStreamCreate(&d, 0));
  CUstreamAttrValue v;
  memset(&v, 0, sizeof v);
  // The priority attribute is the stream's priority.
  CU(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &v));
  EXPECT(v.priority == -2);
  v.priority = -4;
  CU(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &v));
  int prio = 0;
  CU(cuStreamGetPriority(s, &prio));
  EXPECT(prio == -4);

  // Synchronization policy: CU_SYNC_POLICY_AUTO..BLOCKING_SYNC (1..4).
  v.syncPolicy = CU_SYNC_POLICY_YIELD;
  CU(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
  memset(&v, 0, sizeof v);
  CU(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
  EXPECT(v.syncPolicy == CU_SYNC_POLICY_YIELD);
  v.syncPolicy = (CUsynchronizationPolicy)9;
  EXPECT(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v) == CUDA_ERROR_INVALID_VALUE);

  // Access policy window: stored as given; the miss property "must be either NORMAL or
  // STREAMING", the hit ratio is a fraction.
  CUdeviceptr buf;
  CU(cuMemAlloc(&buf, 1 << 20));
  memset(&v, 0, sizeof v);
  v.accessPolicyWindow.base_ptr = (void*)buf;
  v.accessPolicyWindow.num_bytes = 1 << 20;
  v.accessPolicyWindow.hitRatio = 0.5f;
  v.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
  v.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
  CU(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &v));
  CUstreamAttrValue w;
  memset(&w, 0, sizeof w);
  CU(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
  EXPECT(w.accessPolicyWindow.base_ptr == (void*)buf && w.accessPolicyWindow.num_bytes == (1 << 20) &&
         w.accessPolicyWindow.hitRatio == 0.5f &&
         w.accessPolicyWindow.hitProp == CU_ACCESS_PROPERTY_PERSISTING &&
         w.accessPolicyWindow.missProp == CU_ACCESS_PROPERTY_STREAMING);
  w.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_PERSISTING;
  EXPECT(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w) == CUDA_ERROR_INVALID_VALUE);
  w.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_NORMAL;
  w.accessPolicyWindow.hitRatio = 1.5f;
  EXPECT(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w) == CUDA_ERROR_INVALID_VALUE);

  // Memory synchronization domain: DEFAULT or REMOTE.
  memset(&v, 0, sizeof v);
  v.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
  CU(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &v));
  memset(&v, 0, sizeof v);
  CU(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &v));
  EXPECT(v.memSyncDomain == CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE);
  v.memSyncDomain = (CUlaunchMemSyncDomain)2;
  EXPECT(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &v) == CUDA_ERROR_INVALID_VALUE);

  // Attributes that are not "valid for streams", a null value, a dead handle.
  EXPECT(cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuStreamSetAttribute(s, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, nullptr) == CUDA_ERROR_INVALID_VALUE);

  // cuStreamCopyAttributes: the destination takes every attribute of the source.
  CU(cuStreamCopyAttributes(d, s));
  memset(&w, 0, sizeof w);
  CU(cuStreamGetAttribute(d, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
  EXPECT(w.accessPolicyWindow.num_bytes == (1 << 20) && w.accessPolicyWindow.hitRatio == 0.5f);
  CU(cuStreamGetPriority(d, &prio));
  EXPECT(prio == -4);
  memset(&w, 0, sizeof w);
  CU(cuStreamGetAttribute(d, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &w));
  EXPECT(w.syncPolicy == CU_SYNC_POLICY_YIELD);

  // The runtime's names for the same calls.
  cudaStreamAttrValue rv;
  memset(&rv, 0, sizeof rv);
  rv.accessPolicyWindow.base_ptr = (void*)buf;
  rv.accessPolicyWindow.num_bytes = 4096;
  rv.accessPolicyWindow.hitRatio = 1.0f;
  rv.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  rv.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  RT(cudaStreamSetAttribute((cudaStream_t)d, cudaStreamAttributeAccessPolicyWindow, &rv));
  memset(&rv, 0, sizeof rv);
  RT(cudaStreamGetAttribute((cudaStream_t)d, cudaStreamAttributeAccessPolicyWindow, &rv));
  EXPECT(rv.accessPolicyWindow.num_bytes == 4096 && rv.accessPolicyWindow.hitRatio == 1.0f);

  CU(cuMemFree(buf));
  CU(cuStreamDestroy(s));
  CU(cuStreamDestroy(d));
}

// Page-locked host memory the device may address: the host writes and reads it directly.
template <typename T>
static T* pinned(CUdeviceptr* dev) {
  void* p = nullptr;
  CU(cuMemHostAlloc(&p, 4096, CU_MEMHOSTALLOC_DEVICEMAP));
  memset(p, 0, 4096);
  CU(cuMemHostGetDevicePointer(dev, p, 0));
  return (T*)p;
}

typedef CUresult (*WriteValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned);
typedef CUresult (*BatchMemOp)(CUstream, unsigned, CUstreamBatchMemOpParams*, unsigned);

static void memory_operations() {
  CUstream s1, s2, s3;
  CU(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  CU(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  CU(cuStreamCreate(&s3, CU_STREAM_NON_BLOCKING));
  CUdeviceptr hflag_d, out_d;
  volatile unsigned* hflag = pinned<unsigned>(&hflag_d);
  volatile unsigned* out = pinned<unsigned>(&out_d);

  // 1. The host releases a wait: GEQ (default) on a word the host writes after a delay.
  CU(cuStreamWaitValue32(s1, hflag_d, 3, CU_STREAM_WAIT_VALUE_GEQ));
  CU(cuStreamWriteValue32(s1, out_d, 42, 0));
  EXPECT(blocked(s1) && out[0] == 0);
  hflag[0] = 2;  // (int32_t)(2 - 3) < 0: still waiting
  EXPECT(blocked(s1) && out[0] == 0);
  hflag[0] = 3;
  CU(cuStreamSynchronize(s1));
  EXPECT(out[0] == 42);

  // 2. Another stream's kernel releases it (EQ), the wait queued first.
  CUdeviceptr dflag;
  CU(cuMemAlloc(&dflag, 64));
  CU(cuMemsetD32(dflag, 0, 16));
  CU(cuStreamWaitValue32(s1, dflag, 7, CU_STREAM_WAIT_VALUE_EQ));
  CU(cuStreamWriteValue32(s1, out_d + 4, 43, 0));
  EXPECT(blocked(s1));
  store<<<1, 1, 0, (cudaStream_t)s2>>>((unsigned*)dflag, 6);
  RT(cudaStreamSynchronize((cudaStream_t)s2));
  EXPECT(blocked(s1) && out[1] == 0);  // 6 != 7
  store<<<1, 1, 0, (cudaStream_t)s2>>>((unsigned*)dflag, 7);
  CU(cuStreamSynchronize(s1));
  EXPECT(out[1] == 43);

  // 3. Another stream's write releases it: 64-bit AND, then NOR.
  CUdeviceptr d64 = dflag + 8;
  CU(cuStreamWaitValue64(s1, d64, 0x100000000ull, CU_STREAM_WAIT_VALUE_AND));
  CU(cuStreamWriteValue32(s1, out_d + 8, 44, 0));
  CU(cuStreamWriteValue64(s2, d64, 0xffffffffull, 0));  // (v & 1<<32) == 0
  CU(cuStreamSynchronize(s2));
  EXPECT(blocked(s1) && out[2] == 0);
  CU(cuStreamWriteValue64(s2, d64, 0x100000000ull, 0));
  CU(cuStreamSynchronize(s1));
  EXPECT(out[2] == 44);
  // NOR: ~(*addr | value) != 0 (with the FLUSH flag: the device supports it).
  hflag[0] = 0x0000ffff;  // ~(0x0000ffff | 0xff000000) = 0x00ff0000: holds at once
  CU(cuStreamWaitValue32(s1, hflag_d, 0xff000000u, CU_STREAM_WAIT_VALUE_NOR | CU_STREAM_WAIT_VALUE_FLUSH));
  CU(cuStreamSynchronize(s1));
  hflag[0] = 0x00ffffff;  // ~(0x00ffffff | 0xff000000) = 0: blocks
  CU(cuStreamWaitValue32(s1, hflag_d, 0xff000000u, CU_STREAM_WAIT_VALUE_NOR));
  CU(cuStreamWriteValue32(s1, out_d + 12, 45, 0));
  EXPECT(blocked(s1) && out[3] == 0);
  CU(cuStreamWriteValue32(s2, hflag_d, 0x00ff00ffu, 0));  // ~(...) = 0x0000ff00
  CU(cuStreamSynchronize(s1));
  EXPECT(out[3] == 45);
  // GEQ is cyclic: (int32_t)(1 - 0xfffffff0) = 17 >= 0.
  CU(cuStreamWriteValue32(s1, dflag + 16, 1, 0));
  CU(cuStreamWaitValue32(s1, dflag + 16, 0xfffffff0u, CU_STREAM_WAIT_VALUE_GEQ));
  CU(cuStreamSynchronize(s1));

  // 4. A batch: wait, 64-bit write, atomic reduction, barrier (v2), in order.
  CUstreamBatchMemOpParams ops[4];
  memset(ops, 0, sizeof ops);
  ops[0].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
  ops[0].waitValue.address = dflag + 20;
  ops[0].waitValue.value = 5;
  ops[0].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
  ops[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
  ops[1].writeValue.address = out_d + 16;
  ops[1].writeValue.value64 = 0x1122334455667788ull;
  ops[2].atomicReduction.operation = CU_STREAM_MEM_OP_ATOMIC_REDUCTION;
  ops[2].atomicReduction.reductionOp = CU_STREAM_ATOMIC_REDUCTION_OP_ADD;
  ops[2].atomicReduction.dataType = CU_STREAM_ATOMIC_REDUCTION_UNSIGNED_32;
  ops[2].atomicReduction.address = out_d + 24;
  ops[2].atomicReduction.value = 10;
  ops[3].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
  ops[3].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
  out[6] = 32;
  CU(cuStreamBatchMemOp(s3, 4, ops, 0));
  EXPECT(blocked(s3) && out[4] == 0 && out[5] == 0 && out[6] == 32);
  CU(cuMemsetD32Async(dflag + 20, 5, 1, s2));
  CU(cuStreamSynchronize(s3));
  EXPECT(out[4] == 0x55667788u && out[5] == 0x11223344u && out[6] == 42);

  // 5. The v1 entry points (CUDA 8/9), found as cudart finds them: NO_MEMORY_BARRIER is a v1
  // write flag ("not supported in the v2 API"); the barrier operation is v2 only.
  WriteValue32 write_v1 = nullptr;
  BatchMemOp batch_v1 = nullptr;
  CUdriverProcAddressQueryResult q;
  CU(cuGetProcAddress("cuStreamWriteValue32", (void**)&write_v1, 8000, 0, &q));
  CU(cuGetProcAddress("cuStreamBatchMemOp", (void**)&batch_v1, 8000, 0, &q));
  EXPECT(write_v1 != nullptr && batch_v1 != nullptr);
  if (write_v1 && batch_v1) {
    CU(write_v1(s3, out_d + 28, 46, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER));
    CU(cuStreamSynchronize(s3));
    EXPECT(out[7] == 46);
    EXPECT(cuStreamWriteValue32(s3, out_d + 28, 47, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER) ==
           CUDA_ERROR_INVALID_VALUE);
    EXPECT(batch_v1(s3, 1, &ops[3], 0) == CUDA_ERROR_INVALID_VALUE);
    CU(batch_v1(s3, 1, &ops[1], 0));
  }

  // 6. Validation: alignment, managed memory, flags, batch size.
  EXPECT(cuStreamWaitValue32(s3, dflag + 2, 0, 0) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuStreamWaitValue64(s3, dflag + 4, 0, 0) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuStreamWriteValue32(s3, 0, 0, 0) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuStreamWaitValue32(s3, dflag, 0, 4) == CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr managed;
  CU(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL));
  EXPECT(cuStreamWriteValue32(s3, managed, 1, 0) == CUDA_ERROR_INVALID_VALUE);
  static CUstreamBatchMemOpParams many[256];
  for (auto& p : many) {
    p.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    p.writeValue.address = out_d;
  }
  EXPECT(cuStreamBatchMemOp(s3, 256, many, 0) == CUDA_ERROR_INVALID_VALUE);  // "less than 256"
  CU(cuStreamBatchMemOp(s3, 255, many, 0));
  EXPECT(cuStreamBatchMemOp(s3, 1, many, 1) == CUDA_ERROR_INVALID_VALUE);
  CU(cuStreamSynchronize(s3));

  // 7. Stream capture: graphs have no batch-memop nodes here, so capture refuses the
  // operation and invalidates itself, as for any operation a capture cannot record.
  CUstream c;
  CU(cuStreamCreate(&c, CU_STREAM_NON_BLOCKING));
  CU(cuStreamBeginCapture(c, CU_STREAM_CAPTURE_MODE_RELAXED));
  EXPECT(cuStreamWaitValue32(c, dflag, 0, 0) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CUgraph g = nullptr;
  EXPECT(cuStreamEndCapture(c, &g) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  CU(cuStreamDestroy(c));

  // 8. cuCtxRecordEvent captures the work of every stream of the context; cuCtxWaitEvent makes
  // all later work of the context (streams created later too) wait for an event.
  CUcontext ctx;
  CU(cuCtxGetCurrent(&ctx));
  CUevent ev;
  CU(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
  CUstream s5;
  CU(cuStreamCreate(&s5, CU_STREAM_NON_BLOCKING));
  hflag[1] = 0;
  CU(cuStreamWaitValue32(s5, hflag_d + 4, 1, CU_STREAM_WAIT_VALUE_EQ));
  CU(cuCtxRecordEvent(ctx, ev));
  sleep_ms(30);
  EXPECT(cuEventQuery(ev) == CUDA_ERROR_NOT_READY);
  hflag[1] = 1;
  CU(cuEventSynchronize(ev));
  hflag[1] = 0;
  CU(cuStreamWaitValue32(s5, hflag_d + 4, 1, CU_STREAM_WAIT_VALUE_EQ));
  CU(cuEventRecord(ev, s5));
  CU(cuCtxWaitEvent(ctx, ev));
  CUstream s6;
  CU(cuStreamCreate(&s6, CU_STREAM_NON_BLOCKING));
  CU(cuStreamWriteValue32(s6, out_d + 32, 48, 0));
  EXPECT(blocked(s6) && out[8] == 0);
  hflag[1] = 1;
  CU(cuStreamSynchronize(s6));
  EXPECT(out[8] == 48);
  EXPECT(cuCtxRecordEvent(nullptr, ev) == CUDA_ERROR_INVALID_CONTEXT);
  EXPECT(cuCtxWaitEvent(ctx, nullptr) == CUDA_ERROR_INVALID_HANDLE);
  CU(cuEventDestroy(ev));
  CU(cuStreamDestroy(s5));
  CU(cuStreamDestroy(s6));

  CU(cuMemFree(managed));
  CU(cuStreamDestroy(s2));
  CU(cuStreamDestroy(s3));
}

static void pointer_sync_memops() {
  CUdeviceptr p;
  CU(cuMemAlloc(&p, 256));
  unsigned one = 1, zero = 0, got = 7;
  CU(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p + 16));
  CU(cuPointerGetAttribute(&got, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
  EXPECT(got == 1);
  CU(cuPointerSetAttribute(&zero, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
  CU(cuPointerGetAttribute(&got, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
  EXPECT(got == 0);
  // Only SYNC_MEMOPS can be set.
  EXPECT(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuPointerSetAttribute(nullptr, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p) == CUDA_ERROR_INVALID_VALUE);
  int local = 0;
  EXPECT(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)&local) ==
         CUDA_ERROR_INVALID_VALUE);
  CU(cuMemFree(p));
}

static int range_int(CUmem_range_attribute a, CUdeviceptr p, size_t n) {
  int v = 12345;
  CU(cuMemRangeGetAttribute(&v, 4, a, p, n));
  return v;
}

static CUmemLocationType range_type(CUmem_range_attribute a, CUdeviceptr p, size_t n) {
  CUmemLocationType t = (CUmemLocationType)12345;
  CU(cuMemRangeGetAttribute(&t, sizeof t, a, p, n));
  return t;
}

static void managed_ranges(CUdevice dev) {
  // Advice is kept per CPU page: the checks below work on 4 whole pages of the allocation.
  const size_t page = 4096, size = 4 * page;
  CUdeviceptr m0, m;
  CU(cuMemAllocManaged(&m0, size + page, CU_MEM_ATTACH_GLOBAL));
  m = (m0 + page - 1) & ~(CUdeviceptr)(page - 1);
  CUstream s;
  CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

  // Nothing advised or prefetched: 0, CU_DEVICE_INVALID (-2), INVALID location type.
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, size) == 0);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, size) == CU_DEVICE_INVALID);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, size) == CU_DEVICE_INVALID);
  EXPECT(range_type(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, size) == CU_MEM_LOCATION_TYPE_INVALID);

  // READ_MOSTLY is 1 only "if all pages in the given memory range have read-duplication".
  CUmemLocation gpu = {CU_MEM_LOCATION_TYPE_DEVICE, {dev}}, cpu = {CU_MEM_LOCATION_TYPE_HOST, {0}};
  CU(cuMemAdvise(m, size, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu));
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, size) == 1);
  // Advice applies to whole CPU pages: 5 bytes inside page 0 unset it for all of page 0.
  CU(cuMemAdvise(m + 10, 5, CU_MEM_ADVISE_UNSET_READ_MOSTLY, gpu));
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, size) == 0);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + page - 1, 1) == 0);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + page, 3 * page) == 1);

  // PREFERRED_LOCATION: the device where all pages prefer it, CPU, else CU_DEVICE_INVALID.
  CU(cuMemAdvise(m, 2 * page, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, gpu));
  CU(cuMemAdvise(m + 3 * page, page, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, cpu));
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 2 * page) == dev);
  EXPECT(range_type(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, 2 * page) == CU_MEM_LOCATION_TYPE_DEVICE);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, m, 2 * page) == dev);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m + 3 * page, page) == CU_DEVICE_CPU);
  EXPECT(range_type(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m + 3 * page, page) == CU_MEM_LOCATION_TYPE_HOST);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, size) == CU_DEVICE_INVALID);  // mixed, page 2 none
  CU(cuMemAdvise(m, size, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, gpu));
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m + 3 * page, page) == CU_DEVICE_INVALID);

  // ACCESSED_BY: the devices advised for the entire range, then CU_DEVICE_INVALID.
  CU(cuMemAdvise(m, size, CU_MEM_ADVISE_SET_ACCESSED_BY, gpu));
  int acc[3] = {7, 7, 7};
  CU(cuMemRangeGetAttribute(acc, sizeof acc, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, size));
  EXPECT(acc[0] == dev && acc[1] == CU_DEVICE_INVALID && acc[2] == CU_DEVICE_INVALID);
  CU(cuMemAdvise(m + page, page, CU_MEM_ADVISE_UNSET_ACCESSED_BY, gpu));
  CU(cuMemRangeGetAttribute(acc, sizeof acc, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, size));
  EXPECT(acc[0] == CU_DEVICE_INVALID);
  CU(cuMemRangeGetAttribute(acc, 4, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m + 2 * page, 2 * page));
  EXPECT(acc[0] == dev);

  // LAST_PREFETCH_LOCATION: the last location asked for, for all pages alike.
  CU(cuMemPrefetchAsync(m, size, gpu, 0, s));
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, size) == dev);
  CU(cuMemPrefetchAsync(m, page, cpu, 0, s));
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, size) == CU_DEVICE_INVALID);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, page) == CU_DEVICE_CPU);
  EXPECT(range_type(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, m, page) == CU_MEM_LOCATION_TYPE_HOST);

  // cuMemPrefetchBatchAsync: locations by first index ({0, 2}: ops 0-1 to the GPU, op 2 to
  // the CPU).
  CUdeviceptr ptrs[3] = {m, m + page, m + 2 * page};
  size_t sizes[3] = {page, page, 2 * page};
  CUmemLocation locs[2] = {gpu, cpu};
  size_t idxs[2] = {0, 2};
  CU(cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 0, s));
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 2 * page) == dev);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, m, 2 * page) == dev);
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m + 2 * page, 2 * page) == CU_DEVICE_CPU);
  size_t bad_idxs[2] = {1, 2};
  EXPECT(cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, bad_idxs, 2, 0, s) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 1, s) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemPrefetchBatchAsync(ptrs, sizes, 3, locs, idxs, 2, 0, CU_STREAM_LEGACY) == CUDA_ERROR_INVALID_VALUE);
  CU(cuMemDiscardBatchAsync(ptrs, sizes, 3, 0, s));
  CU(cuMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 1, &cpu, idxs, 1, 0, s));
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, page) == CU_DEVICE_CPU);
  CU(cuStreamSynchronize(s));

  // cuMemRangeGetAttributes answers several at once.
  int rm = -1, pl = -1, lp = -1;
  void* data[3] = {&rm, &pl, &lp};
  size_t dsz[3] = {4, 4, 4};
  CUmem_range_attribute attrs[3] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
                                    CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION};
  CU(cuMemRangeGetAttributes(data, dsz, attrs, 3, m + page, page));
  EXPECT(rm == 1 && pl == CU_DEVICE_INVALID && lp == dev);

  // The runtime's query reads the same state.
  int rrm = -1;
  RT(cudaMemRangeGetAttribute(&rrm, 4, cudaMemRangeAttributeReadMostly, (void*)(m + page), page));
  EXPECT(rrm == 1);

  // Validation: data sizes, non-managed memory, empty ranges.
  long long wide = 0;
  EXPECT(cuMemRangeGetAttribute(&wide, 8, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, size) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemRangeGetAttribute(acc, 6, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, size) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemRangeGetAttribute(acc, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 0) == CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr plain;
  CU(cuMemAlloc(&plain, page));
  EXPECT(cuMemRangeGetAttribute(acc, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, plain, page) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemDiscardBatchAsync(&plain, sizes, 1, 0, s) == CUDA_ERROR_INVALID_VALUE);

  // Freed memory forgets its advice: a new allocation starts with none.
  CU(cuMemFree(m0));
  CU(cuMemAllocManaged(&m0, size + page, CU_MEM_ATTACH_GLOBAL));
  EXPECT(range_int(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m0, size) == 0);
  CU(cuMemFree(m0));
  CU(cuMemFree(plain));
  CU(cuStreamDestroy(s));
}

typedef CUresult (*MemcpyBatchV1)(CUdeviceptr*, CUdeviceptr*, size_t*, size_t, CUmemcpyAttributes*, size_t*,
                                  size_t, size_t*, CUstream);

static void batched_copies() {
  CUstream s;
  CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr flag_d;
  volatile unsigned* flag = pinned<unsigned>(&flag_d);
  const int n = 64;
  CUdeviceptr a, b;
  CU(cuMemAlloc(&a, n * 4));
  CU(cuMemAlloc(&b, n * 4));
  unsigned host_in[n], host_out[n];
  for (int i = 0; i < n; i++) host_in[i] = 1000 + i;
  memset(host_out, 0, sizeof host_out);

  // Host -> a, a -> b, b -> host; attributes {STREAM} for copies 0-1 and {STREAM} for 2.
  CUdeviceptr dsts[3] = {a, b, (CUdeviceptr)host_out};
  CUdeviceptr srcs[3] = {(CUdeviceptr)host_in, a, b};
  size_t sizes[3] = {n * 4, n * 4, n * 4};
  CUmemcpyAttributes attrs[2];
  memset(attrs, 0, sizeof attrs);
  attrs[0].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  attrs[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  size_t idxs[2] = {0, 2};
  // Copies within a batch may run in any order, so the dependent ones go in separate batches.
  CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, attrs, idxs, 1, s));
  CU(cuMemcpyBatchAsync(dsts + 1, srcs + 1, sizes + 1, 1, attrs, idxs, 1, s));
  CU(cuMemcpyBatchAsync(dsts + 2, srcs + 2, sizes + 2, 1, attrs, idxs, 1, s));
  CU(cuStreamSynchronize(s));
  EXPECT(host_out[0] == 1000 && host_out[n - 1] == 1000 + n - 1);

  // DURING_API_CALL reads the source before the call returns: changing a stack buffer after
  // the call does not change what lands, even though the stream is still blocked.
  CU(cuStreamWaitValue32(s, flag_d, 1, CU_STREAM_WAIT_VALUE_EQ));
  unsigned stack_src[4] = {1, 2, 3, 4};
  CUdeviceptr d1[1] = {a};
  CUdeviceptr s1[1] = {(CUdeviceptr)stack_src};
  size_t z1[1] = {16};
  CUmemcpyAttributes during[1];
  memset(during, 0, sizeof during);
  during[0].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
  size_t i1[1] = {0};
  CU(cuMemcpyBatchAsync(d1, s1, z1, 1, during, i1, 1, s));
  stack_src[0] = 99;
  EXPECT(blocked(s));
  flag[0] = 1;
  CU(cuStreamSynchronize(s));
  unsigned got[4] = {};
  CU(cuMemcpyDtoH(got, a, 16));
  EXPECT(got[0] == 1 && got[3] == 4);

  // Validation: an invalid source access order, the legacy stream, bad attribute indices.
  CUmemcpyAttributes invalid;
  memset(&invalid, 0, sizeof invalid);
  EXPECT(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &invalid, idxs, 1, s) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, attrs, idxs, 1, CU_STREAM_LEGACY) == CUDA_ERROR_INVALID_VALUE);
  size_t bad[2] = {0, 0};
  EXPECT(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, bad, 2, s) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, attrs, idxs, 2, s) == CUDA_ERROR_INVALID_VALUE);

  // The CUDA 12.8 form reports the failing copy in *failIdx (SIZE_MAX when none is to blame).
  MemcpyBatchV1 batch_v1 = nullptr;
  CUdriverProcAddressQueryResult q;
  CU(cuGetProcAddress("cuMemcpyBatchAsync", (void**)&batch_v1, 12080, 0, &q));
  EXPECT(batch_v1 != nullptr);
  if (batch_v1) {
    CUdeviceptr bd[2] = {a, 0};
    CUdeviceptr bs[2] = {b, b};
    size_t fail = 0;
    EXPECT(batch_v1(bd, bs, sizes, 2, attrs, idxs, 1, &fail, s) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(fail == 1);
    EXPECT(batch_v1(bd, bs, sizes, 2, attrs, idxs, 1, &fail, CU_STREAM_LEGACY) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(fail == SIZE_MAX);
    CU(batch_v1(bd, bs, sizes, 1, attrs, idxs, 1, &fail, s));
    // `s` is non-blocking: the synchronous copy below does not wait for this one.
    CU(cuStreamSynchronize(s));
  }

  // cuMemcpyWithAttributesAsync: one copy, same attributes.
  CU(cuMemcpyHtoD(a, stack_src, 16));
  CU(cuMemcpyWithAttributesAsync(b, a, 16, attrs, s));
  CU(cuStreamSynchronize(s));
  CU(cuMemcpyDtoH(got, b, 16));
  EXPECT(got[0] == 99 && got[2] == 3);

  // cuMemcpy3DBatchAsync: host (8x4 floats, packed) -> 2D array, then the 3x2 block at
  // (2, 1) of the array -> device memory with rows of 3, then back to the host.
  CUDA_ARRAY_DESCRIPTOR ad = {8, 4, CU_AD_FORMAT_FLOAT, 1};
  CUarray arr;
  CU(cuArrayCreate(&arr, &ad));
  float grid[32];
  for (int i = 0; i < 32; i++) grid[i] = (float)i;
  CUDA_MEMCPY3D_BATCH_OP op[2];
  memset(op, 0, sizeof op);
  op[0].src.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  op[0].src.op.ptr.ptr = (CUdeviceptr)grid;
  op[0].dst.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
  op[0].dst.op.array.array = arr;
  op[0].extent = {8, 4, 1};  // elements: the array's element size (4 bytes) applies
  op[0].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  CU(cuMemcpy3DBatchAsync(1, op, 0, s));
  op[1].src.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
  op[1].src.op.array.array = arr;
  op[1].src.op.array.offset = {2, 1, 0};
  op[1].dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  op[1].dst.op.ptr.ptr = a;
  op[1].dst.op.ptr.rowLength = 3;
  op[1].extent = {3, 2, 1};
  op[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  CU(cuMemcpy3DWithAttributesAsync(&op[1], 0, s));
  CU(cuStreamSynchronize(s));
  float block[6] = {};
  CU(cuMemcpyDtoH(block, a, sizeof block));
  // Row y, column x of the grid holds 8y + x: rows 1-2, columns 2-4.
  EXPECT(block[0] == 10 && block[2] == 12 && block[3] == 18 && block[5] == 20);
  // Pointer to pointer with a pitched source: 2 rows of 3 bytes out of rows of 5.
  unsigned char src5[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, dst3[6] = {};
  CUDA_MEMCPY3D_BATCH_OP pp;
  memset(&pp, 0, sizeof pp);
  pp.src.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  pp.src.op.ptr.ptr = (CUdeviceptr)src5;
  pp.src.op.ptr.rowLength = 5;
  pp.dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  pp.dst.op.ptr.ptr = (CUdeviceptr)dst3;
  pp.extent = {3, 2, 1};
  pp.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
  CU(cuMemcpy3DBatchAsync(1, &pp, 0, s));
  CU(cuStreamSynchronize(s));
  EXPECT(dst3[0] == 1 && dst3[2] == 3 && dst3[3] == 6 && dst3[5] == 8);
  // Validation: zero extent, a row length below the width, flags, the legacy stream.
  CUDA_MEMCPY3D_BATCH_OP badop = pp;
  badop.extent.depth = 0;
  EXPECT(cuMemcpy3DBatchAsync(1, &badop, 0, s) == CUDA_ERROR_INVALID_VALUE);
  badop = pp;
  badop.src.op.ptr.rowLength = 2;
  EXPECT(cuMemcpy3DBatchAsync(1, &badop, 0, s) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemcpy3DBatchAsync(1, &pp, 1, s) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemcpy3DBatchAsync(1, &pp, 0, CU_STREAM_LEGACY) == CUDA_ERROR_INVALID_VALUE);
  badop = pp;
  badop.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
  EXPECT(cuMemcpy3DWithAttributesAsync(&badop, 0, s) == CUDA_ERROR_INVALID_VALUE);

  // The runtime's batch copy.
  unsigned rin[8] = {5, 6, 7, 8, 9, 10, 11, 12}, rout[8] = {};
  void* rd[2] = {(void*)a, rout};
  const void* rs[2] = {rin, (void*)a};
  size_t rz[2] = {32, 32};
  cudaMemcpyAttributes ra;
  memset(&ra, 0, sizeof ra);
  ra.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  size_t ri = 0;
  RT(cudaMemcpyBatchAsync(rd, rs, rz, 1, &ra, &ri, 1, (cudaStream_t)s));
  RT(cudaMemcpyBatchAsync(rd + 1, rs + 1, rz + 1, 1, &ra, &ri, 1, (cudaStream_t)s));
  RT(cudaStreamSynchronize((cudaStream_t)s));
  EXPECT(rout[0] == 5 && rout[7] == 12);

  CU(cuArrayDestroy(arr));
  CU(cuMemFree(a));
  CU(cuMemFree(b));
  CU(cuStreamDestroy(s));
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  RT(cudaSetDevice(0));
  device_attributes(dev);
  stream_attributes();
  memory_operations();
  pointer_sync_memops();
  managed_ranges(dev);
  batched_copies();
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures == 0 ? 0 : 1;
}
