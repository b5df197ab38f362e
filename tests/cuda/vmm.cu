// Virtual memory management through the driver API: reserve address space, create a physical
// allocation, map it twice, grant access, let a kernel write through one view and read the data
// back through the other; the memory accounting, pointer attributes, handle retain/release and
// POSIX file descriptor export/import that go with it; the documented errors; and, last, a kernel
// access to reserved but unmapped address space, which is an illegal address.
// Expected values follow the CUDA driver API documentation (cuda.h): granularity 2 MiB as on
// current GPUs, RANGE_* attributes name the reservation and MAPPING_* the mapping.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>
#include "check.h"

#define EXPECT_ERR(call, err) EXPECT((call) == (err))

// out[i] = i * 3 + 1 for i < n.
static const char* kPtx = R"PTX(
.version 8.0
.target sm_80
.address_size 64

.visible .entry fill(
    .param .u64 out,
    .param .u32 n
)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<8>;
    .reg .b64   %rd<4>;

    ld.param.u64    %rd1, [out];
    ld.param.u32    %r1, [n];
    mov.u32         %r2, %ctaid.x;
    mov.u32         %r3, %ntid.x;
    mov.u32         %r4, %tid.x;
    mad.lo.s32      %r5, %r2, %r3, %r4;
    setp.ge.u32     %p1, %r5, %r1;
    @%p1 bra        DONE;
    mul.wide.u32    %rd2, %r5, 4;
    add.s64         %rd3, %rd1, %rd2;
    mad.lo.s32      %r6, %r5, 3, 1;
    st.global.u32   [%rd3], %r6;
DONE:
    ret;
}
)PTX";

static CUresult launch_fill(CUfunction fn, CUdeviceptr out, unsigned n) {
  void* args[] = {&out, &n};
  return cuLaunchKernel(fn, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr);
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuCtxCreate(&ctx, nullptr, 0, dev));
  CUmodule mod;
  CU(cuModuleLoadData(&mod, kPtx));
  CUfunction fill;
  CU(cuModuleGetFunction(&fill, mod, "fill"));

  int vmm = 0, fd_ok = 0;
  CU(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
  CU(cuDeviceGetAttribute(&fd_ok, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev));
  EXPECT(vmm == 1);
  EXPECT(fd_ok == 1);

  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t gmin = 0, grec = 0;
  CU(cuMemGetAllocationGranularity(&gmin, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CU(cuMemGetAllocationGranularity(&grec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  EXPECT(gmin == (2u << 20));
  EXPECT(grec == (2u << 20));
  const size_t G = gmin;

  size_t free0 = 0, total = 0;
  CU(cuMemGetInfo(&free0, &total));

  // Three granules of address space: two views of one allocation, and a hole.
  CUdeviceptr va = 0;
  CU(cuMemAddressReserve(&va, 3 * G, 0, 0, 0));
  EXPECT(va != 0 && va % G == 0);
  size_t free1 = 0;
  CU(cuMemGetInfo(&free1, &total));
  EXPECT(free1 == free0);  // address space costs no memory

  CUmemGenericAllocationHandle h = 0;
  CU(cuMemCreate(&h, G, &prop, 0));
  size_t free2 = 0;
  CU(cuMemGetInfo(&free2, &total));
  EXPECT(free0 - free2 == G);  // the physical allocation does

  // Documented errors.
  CUmemGenericAllocationHandle bad = 0;
  EXPECT_ERR(cuMemCreate(&bad, G / 2, &prop, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_ERR(cuMemCreate(&bad, G, &prop, 1), CUDA_ERROR_INVALID_VALUE);
  CUmemAllocationProp other = prop;
  other.location.id = 7;
  EXPECT_ERR(cuMemCreate(&bad, G, &other, 0), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_ERR(cuMemMap(va + 4096, G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);  // unaligned
  EXPECT_ERR(cuMemMap(va, 2 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);     // beyond the allocation
  EXPECT_ERR(cuMemMap(va + 2 * G, 2 * G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);  // beyond the reservation

  CU(cuMemMap(va, G, 0, h, 0));
  CU(cuMemMap(va + G, G, 0, h, 0));
  EXPECT_ERR(cuMemMap(va, G, 0, h, 0), CUDA_ERROR_INVALID_VALUE);  // already mapped
  EXPECT_ERR(cuMemUnmap(va, G / 2), CUDA_ERROR_INVALID_VALUE);     // a part of a mapping
  EXPECT_ERR(cuMemAddressFree(va, G), CUDA_ERROR_INVALID_VALUE);   // not the reserved size

  // Mapped but no access yet: copies are refused.
  unsigned probe = 0;
  EXPECT(cuMemcpyDtoH(&probe, va, 4) != CUDA_SUCCESS);
  unsigned long long flags = 99;
  CUmemLocation loc = {};
  loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
  loc.id = dev;
  CU(cuMemGetAccess(&flags, &loc, va));
  EXPECT(flags == CU_MEM_ACCESS_FLAGS_PROT_NONE);

  CUmemAccessDesc access = {};
  access.location = loc;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(va, 2 * G, &access, 1));
  CU(cuMemGetAccess(&flags, &loc, va + G + 100));
  EXPECT(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  EXPECT_ERR(cuMemSetAccess(va, 3 * G, &access, 1), CUDA_ERROR_INVALID_VALUE);  // hole

  // A kernel writes through the first view; the second one sees the data.
  const unsigned n = (unsigned)(G / 4);
  CU(launch_fill(fill, va, n));
  CU(cuCtxSynchronize());
  std::vector<unsigned> host(n, 0);
  CU(cuMemcpyDtoH(host.data(), va + G, n * 4));
  int wrong = 0;
  for (unsigned i = 0; i < n; i++) wrong += host[i] != i * 3 + 1;
  EXPECT(wrong == 0);

  // Pointer attributes and address ranges.
  CUdeviceptr range_start = 0, map_base = 0, dptr = 0;
  size_t range_size = 0, map_size = 0;
  unsigned mem_type = 0, mapped = 0, access_flags = 0, managed = 9;
  unsigned long long handle_types = 0;
  CU(cuPointerGetAttribute(&range_start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, va + G + 8));
  CU(cuPointerGetAttribute(&range_size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, va + G + 8));
  CU(cuPointerGetAttribute(&map_base, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, va + G + 8));
  CU(cuPointerGetAttribute(&map_size, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, va + G + 8));
  CU(cuPointerGetAttribute(&mem_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va + G + 8));
  CU(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, va + G + 8));
  CU(cuPointerGetAttribute(&access_flags, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, va + G + 8));
  CU(cuPointerGetAttribute(&handle_types, CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, va + G + 8));
  CU(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, va + G + 8));
  CU(cuPointerGetAttribute(&dptr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, va + G + 8));
  EXPECT(range_start == va && range_size == 3 * G);
  EXPECT(map_base == va + G && map_size == G);
  EXPECT(mem_type == CU_MEMORYTYPE_DEVICE && mapped == 1 && managed == 0);
  EXPECT(access_flags == CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE);
  EXPECT(handle_types == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  EXPECT(dptr == va + G + 8);
  void* hostp = nullptr;
  EXPECT_ERR(cuPointerGetAttribute(&hostp, CU_POINTER_ATTRIBUTE_HOST_POINTER, va), CUDA_ERROR_INVALID_VALUE);
  // The hole: reserved, not mapped.
  CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR};
  unsigned hole_mapped = 7;
  CUdeviceptr hole_start = 0;
  void* data[2] = {&hole_mapped, &hole_start};
  CU(cuPointerGetAttributes(2, attrs, data, va + 2 * G + 64));
  EXPECT(hole_mapped == 0 && hole_start == va);
  CUdeviceptr base = 0;
  size_t size = 0;
  CU(cuMemGetAddressRange(&base, &size, va + G + 12345));
  EXPECT(base == va + G && size == G);

  // Handles: the one backing an address, and the creation properties.
  CUmemGenericAllocationHandle again = 0;
  CU(cuMemRetainAllocationHandle(&again, (void*)(va + G + 4096)));
  EXPECT(again == h);
  CU(cuMemRelease(again));
  CUmemAllocationProp got = {};
  CU(cuMemGetAllocationPropertiesFromHandle(&got, h));
  EXPECT(got.type == CU_MEM_ALLOCATION_TYPE_PINNED);
  EXPECT(got.location.type == CU_MEM_LOCATION_TYPE_DEVICE && got.location.id == dev);
  EXPECT(got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);

  // Export as a file descriptor, import it, map it in the hole: a third view of the same data.
  int fd = -1;
  CU(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  EXPECT(fd >= 0);
  CUmemGenericAllocationHandle imported = 0;
  CU(cuMemImportFromShareableHandle(&imported, (void*)(long)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  close(fd);
  CU(cuMemMap(va + 2 * G, G, 0, imported, 0));
  CU(cuMemRelease(imported));  // the mapping keeps it alive
  CU(cuMemSetAccess(va + 2 * G, G, &access, 1));
  unsigned third[4] = {};
  CU(cuMemcpyDtoH(third, va + 2 * G + 400, sizeof third));
  EXPECT(third[0] == 301 && third[3] == 310);
  CU(cuMemUnmap(va + 2 * G, G));

  // Unmap both views (one call, two whole mappings) and release: the memory comes back.
  CU(cuMemUnmap(va, 2 * G));
  CU(cuMemRelease(h));
  EXPECT_ERR(cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);
  size_t free3 = 0;
  CU(cuMemGetInfo(&free3, &total));
  EXPECT(free3 == free0);
  EXPECT_ERR(cuMemGetAccess(&flags, &loc, va), CUDA_ERROR_INVALID_VALUE);

  // A kernel touching reserved but unmapped memory: an illegal address at synchronisation.
  CU(launch_fill(fill, va, 1));
  CUresult sync = cuCtxSynchronize();
  EXPECT(sync == CUDA_ERROR_ILLEGAL_ADDRESS);
  CU(cuMemAddressFree(va, 3 * G));

  if (expect_failures == 0) printf("PASS vmm\n");
  return expect_failures == 0 ? 0 : 1;
}
