// What the driver answers to the multicast-object calls on one device (the shim has none yet;
// issue 14 asks for multimem "on the devices that exist"): the device attribute, the granularity,
// and each step of creating, adding a device, binding memory and mapping a multicast object.
// Prints "CALL: CODE NAME [value]" lines.
// Build: nvcc -o multicast_probe multicast_probe.cpp -lcuda
#include <cuda.h>
#include <cstdio>

static void show(const char* call, CUresult r, long long v = -1) {
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  if (v >= 0)
    printf("%s: %d %s %lld\n", call, (int)r, name ? name : "?", v);
  else
    printf("%s: %d %s\n", call, (int)r, name ? name : "?");
  fflush(stdout);
}

int main() {
  CUdevice dev;
  CUcontext ctx;
  show("cuInit", cuInit(0));
  show("cuDeviceGet", cuDeviceGet(&dev, 0));
  show("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  show("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  int v = -1;
  show("attribute MULTICAST_SUPPORTED",
       cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev), v);
  v = -1;
  show("attribute HANDLE_TYPE_FABRIC_SUPPORTED",
       cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, dev), v);
  CUmulticastObjectProp mp = {};
  mp.numDevices = 1;
  mp.size = 2 << 20;
  mp.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t g = 0;
  show("cuMulticastGetGranularity minimum",
       cuMulticastGetGranularity(&g, &mp, CU_MULTICAST_GRANULARITY_MINIMUM), (long long)g);
  g = 0;
  show("cuMulticastGetGranularity recommended",
       cuMulticastGetGranularity(&g, &mp, CU_MULTICAST_GRANULARITY_RECOMMENDED), (long long)g);
  show("cuMulticastGetGranularity null prop",
       cuMulticastGetGranularity(&g, nullptr, CU_MULTICAST_GRANULARITY_MINIMUM));
  CUmemGenericAllocationHandle mc = 0;
  show("cuMulticastCreate 1 device 2 MiB", cuMulticastCreate(&mc, &mp));
  CUmulticastObjectProp bad = mp;
  bad.numDevices = 0;
  CUmemGenericAllocationHandle mc2 = 0;
  show("cuMulticastCreate 0 devices", cuMulticastCreate(&mc2, &bad));
  bad = mp;
  bad.size = 4096;
  show("cuMulticastCreate 4 KiB", cuMulticastCreate(&mc2, &bad));
  if (mc) {
    show("cuMulticastAddDevice", cuMulticastAddDevice(mc, dev));
    CUmemAllocationProp ap = {};
    ap.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ap.location.id = dev;
    ap.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemGenericAllocationHandle mem = 0;
    show("cuMemCreate", cuMemCreate(&mem, 2 << 20, &ap, 0));
    show("cuMulticastBindMem", cuMulticastBindMem(mc, 0, mem, 0, 2 << 20, 0));
    CUdeviceptr va = 0;
    show("cuMemAddressReserve", cuMemAddressReserve(&va, 2 << 20, 2 << 20, 0, 0));
    show("cuMemMap multicast", cuMemMap(va, 2 << 20, 0, mc, 0));
    CUmemAccessDesc ad = {};
    ad.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ad.location.id = dev;
    ad.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    show("cuMemSetAccess multicast", cuMemSetAccess(va, 2 << 20, &ad, 1));
    show("cuMemUnmap", cuMemUnmap(va, 2 << 20));
    show("cuMulticastUnbind", cuMulticastUnbind(mc, dev, 0, 2 << 20));
    show("cuMemRelease mem", cuMemRelease(mem));
    show("cuMemRelease multicast", cuMemRelease(mc));
  }
  printf("done\n");
  return 0;
}
