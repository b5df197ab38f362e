// Surface objects: writes and reads in every geometry (1-D, 2-D, 3-D, 1-D and 2-D layered,
// cubemap) with several element types, checked against the plain host arrays copied in or out
// with cudaMemcpy*Array (so a write is checked by the copy, a read by data the copy put there);
// the boundary modes; surface writes read back through a texture; suq, sured and sust.p through
// inline PTX; the driver's answers to bad arguments. Every expected value is computed here from
// the rules: the CUDA Programming Guide's surface functions (x in bytes, y/z/layer in elements;
// cudaBoundaryModeZero reads 0 and drops writes, Clamp moves to the nearest element, Trap fails
// the kernel) and PTX ISA 9.7.11 (suq's sizes in elements, array_size 0 unless layered,
// memory_layout 0 for CUDA arrays; sured's operations; sust.p's conversion to the format).
// The independent mode too: a .surfref variable of a driver-API module, bound to two arrays
// in turn with cuSurfRefSetArray.
//
// The last check makes a .trap access out of bounds: the launch fails with
// cudaErrorIllegalAddress and the process goes on to print PASS.
#include "check.h"
#include <cstdint>
#include <cstring>

static cudaArray_t array3d(cudaChannelFormatDesc cf, int w, int h, int d, unsigned flags) {
  cudaArray_t a;
  CHECK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(w, h, d), flags | cudaArraySurfaceLoadStore));
  return a;
}
static cudaSurfaceObject_t surface(cudaArray_t a) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaSurfaceObject_t s;
  CHECK(cudaCreateSurfaceObject(&s, &rd));
  return s;
}
// Copies a whole array (w x h x d elements of `elem` bytes, h and d at least 1) to or from host.
static void copy(cudaArray_t a, void *host, size_t elem, int w, int h, int d, bool to_array) {
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  cudaPitchedPtr hp = make_cudaPitchedPtr(host, w * elem, w, h);
  if (to_array) {
    p.srcPtr = hp;
    p.dstArray = a;
    p.kind = cudaMemcpyHostToDevice;
  } else {
    p.srcArray = a;
    p.dstPtr = hp;
    p.kind = cudaMemcpyDeviceToHost;
  }
  p.extent = make_cudaExtent(w, h, d);
  CHECK(cudaMemcpy3D(&p));
}

// ---- 1-D floats
__global__ void w1d(cudaSurfaceObject_t s, int n) {
  int x = threadIdx.x;
  if (x < n) surf1Dwrite(x * 1.5f - 3.0f, s, x * 4);
}
__global__ void r1d(cudaSurfaceObject_t s, float *out, int n) {
  int x = threadIdx.x;
  if (x < n) out[x] = surf1Dread<float>(s, x * 4);
}

// ---- 2-D, one kernel per element type
template <class T> __device__ T value(int x, int y);
template <> __device__ uchar4 value(int x, int y) {
  return make_uchar4(x * 3 + y, 255 - x, y * 17, (x ^ y) & 0xff);
}
template <> __device__ float value(int x, int y) { return x * 0.5f + y * 100.0f; }
template <> __device__ int2 value(int x, int y) { return make_int2(x - 1000 * y, -x * y); }
template <> __device__ short value(int x, int y) { return (short)(x * 7 - y * 300); }
template <> __device__ float4 value(int x, int y) {
  return make_float4(x, y, x * y, -1.0f / (x + 1));
}
template <class T> __global__ void w2d(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) surf2Dwrite(value<T>(x, y), s, x * (int)sizeof(T), y);
}
template <class T> __global__ void r2d(cudaSurfaceObject_t s, T *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) out[y * w + x] = surf2Dread<T>(s, x * (int)sizeof(T), y);
}
// The host's copy of value<T>, for the expected data.
static uchar4 hvalue_uchar4(int x, int y) {
  return make_uchar4(x * 3 + y, 255 - x, y * 17, (x ^ y) & 0xff);
}
static float hvalue_float(int x, int y) { return x * 0.5f + y * 100.0f; }
static int2 hvalue_int2(int x, int y) { return make_int2(x - 1000 * y, -x * y); }
static short hvalue_short(int x, int y) { return (short)(x * 7 - y * 300); }
static float4 hvalue_float4(int x, int y) { return make_float4(x, y, x * y, -1.0f / (x + 1)); }

static bool same(uchar4 a, uchar4 b) { return !memcmp(&a, &b, sizeof a); }
static bool same(float a, float b) { return !memcmp(&a, &b, sizeof a); }
static bool same(int2 a, int2 b) { return !memcmp(&a, &b, sizeof a); }
static bool same(short a, short b) { return a == b; }
static bool same(float4 a, float4 b) { return !memcmp(&a, &b, sizeof a); }

template <class T> static void check2d(const char *name, T (*hv)(int, int)) {
  const int w = 13, h = 5;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<T>();
  cudaArray_t a = array3d(cf, w, h, 0, 0);
  cudaSurfaceObject_t s = surface(a);
  w2d<T><<<h, 32>>>(s, w, h);
  CHECK(cudaGetLastError());
  static T host[h * w];
  copy(a, host, sizeof(T), w, h, 1, false);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      EXPECT_MSG(same(host[y * w + x], hv(x, y)), "%s write at (%d, %d)", name, x, y);
  // Reads of data the copy put there (the written values, reversed by rows).
  static T rev[h * w];
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) rev[y * w + x] = hv(x, h - 1 - y);
  copy(a, rev, sizeof(T), w, h, 1, true);
  T *out;
  CHECK(cudaMalloc(&out, sizeof rev));
  r2d<T><<<h, 32>>>(s, out, w, h);
  static T got[h * w];
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * h; i++)
    EXPECT_MSG(same(got[i], rev[i]), "%s read of element %d", name, i);
  CHECK(cudaFree(out));
  CHECK(cudaDestroySurfaceObject(s));
  CHECK(cudaFreeArray(a));
}

// ---- 3-D, layered and cubemap (ints: x + 100 y + 10000 z)
__global__ void w3d(cudaSurfaceObject_t s, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) surf3Dwrite(x + 100 * y + 10000 * z, s, x * 4, y, z);
}
__global__ void r3d(cudaSurfaceObject_t s, int *out, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) out[(z * h + y) * w + x] = surf3Dread<int>(s, x * 4, y, z);
}
__global__ void w1dl(cudaSurfaceObject_t s, int w, int layers) {
  int x = threadIdx.x, l = blockIdx.x;
  if (x < w && l < layers) surf1DLayeredwrite(x + 10000 * l, s, x * 4, l);
}
__global__ void r1dl(cudaSurfaceObject_t s, int *out, int w, int layers) {
  int x = threadIdx.x, l = blockIdx.x;
  if (x < w && l < layers) out[l * w + x] = surf1DLayeredread<int>(s, x * 4, l);
}
__global__ void w2dl(cudaSurfaceObject_t s, int w, int h, int layers) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  if (x < w && y < h && l < layers) surf2DLayeredwrite(x + 100 * y + 10000 * l, s, x * 4, y, l);
}
__global__ void r2dl(cudaSurfaceObject_t s, int *out, int w, int h, int layers) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  if (x < w && y < h && l < layers)
    out[(l * h + y) * w + x] = surf2DLayeredread<int>(s, x * 4, y, l);
}
__global__ void wcube(cudaSurfaceObject_t s, int w) {
  int x = threadIdx.x, y = blockIdx.x, f = blockIdx.y;
  if (x < w && y < w) surfCubemapwrite(x + 100 * y + 10000 * f, s, x * 4, y, f);
}
__global__ void rcube(cudaSurfaceObject_t s, int *out, int w) {
  int x = threadIdx.x, y = blockIdx.x, f = blockIdx.y;
  if (x < w && y < w) out[(f * w + y) * w + x] = surfCubemapread<int>(s, x * 4, y, f);
}

// Writes with kernel `wk` and checks them by copying out; fills the array with the negated
// values, reads with `rk` and checks those. w x h x d elements (h, d at least 1).
template <class W, class R>
static void check_volume(const char *name, cudaArray_t a, int w, int h, int d, W wk, R rk) {
  cudaSurfaceObject_t s = surface(a);
  wk(s);
  CHECK(cudaGetLastError());
  int n = w * h * d;
  int *host = new int[n], *out;
  copy(a, host, 4, w, h, d, false);
  for (int z = 0; z < d; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        EXPECT_MSG(host[(z * h + y) * w + x] == x + 100 * y + 10000 * z,
                   "%s write at (%d, %d, %d): %d", name, x, y, z, host[(z * h + y) * w + x]);
  for (int i = 0; i < n; i++) host[i] = -host[i] - 1;
  copy(a, host, 4, w, h, d, true);
  CHECK(cudaMalloc(&out, n * 4));
  rk(s, out);
  int *got = new int[n];
  CHECK(cudaMemcpy(got, out, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT_MSG(got[i] == host[i], "%s read of element %d", name, i);
  delete[] host;
  delete[] got;
  CHECK(cudaFree(out));
  CHECK(cudaDestroySurfaceObject(s));
}

// ---- boundary modes on a 1-D int surface of 8 elements
__global__ void bounds(cudaSurfaceObject_t s, int *out) {
  out[0] = surf1Dread<int>(s, -4, cudaBoundaryModeZero);
  out[1] = surf1Dread<int>(s, 8 * 4, cudaBoundaryModeZero);
  out[2] = surf1Dread<int>(s, -400, cudaBoundaryModeClamp);
  out[3] = surf1Dread<int>(s, 1000 * 4, cudaBoundaryModeClamp);
  out[4] = surf1Dread<int>(s, 3 * 4, cudaBoundaryModeZero);
  surf1Dwrite(777, s, 8 * 4, cudaBoundaryModeZero);   // dropped
  surf1Dwrite(555, s, -4, cudaBoundaryModeZero);      // dropped
  surf1Dwrite(999, s, 50 * 4, cudaBoundaryModeClamp); // element 7
  surf1Dwrite(111, s, -8, cudaBoundaryModeClamp);     // element 0
}
__global__ void trap_read(cudaSurfaceObject_t s, int *out) {
  out[0] = surf1Dread<int>(s, 8 * 4, cudaBoundaryModeTrap);
}

// ---- surface writes read through a texture (point sampling at texel centres: the texel)
__global__ void wtex(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) surf2Dwrite(x * 0.25f - y, s, x * 4, y);
}
__global__ void rtex(cudaTextureObject_t t, float *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}

// ---- suq, sured and sust.p through inline PTX
__global__ void queries(cudaSurfaceObject_t s, unsigned *out) {
  asm volatile("suq.width.b32 %0, [%1];" : "=r"(out[0]) : "l"(s));
  asm volatile("suq.height.b32 %0, [%1];" : "=r"(out[1]) : "l"(s));
  asm volatile("suq.depth.b32 %0, [%1];" : "=r"(out[2]) : "l"(s));
  asm volatile("suq.array_size.b32 %0, [%1];" : "=r"(out[3]) : "l"(s));
  asm volatile("suq.memory_layout.b32 %0, [%1];" : "=r"(out[4]) : "l"(s));
}
// 256 threads in 4 CTAs: each adds tid + 1 to element (tid % 4, tid / 4 % 2) of a 4 x 2 u32 surface, and
// takes the min and max of tid * 37 % 101 - 50 (as s32) into elements 0 and 1 of a 1-D one,
// ORs 1 << (tid % 32) into element 2 and ANDs ~(1 << (tid % 16)) into element 3.
__global__ void reductions(cudaSurfaceObject_t s2, cudaSurfaceObject_t s1) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  int x = (t % 4) * 4, y = t / 4 % 2;
  asm volatile("sured.b.add.2d.u32.trap [%0, {%1, %2}], %3;" ::"l"(s2), "r"(x), "r"(y),
               "r"(t + 1));
  int v = (int)(t * 37 % 101) - 50;
  asm volatile("sured.b.min.1d.s32.trap [%0, {%1}], %2;" ::"l"(s1), "r"(0), "r"(v));
  asm volatile("sured.b.max.1d.s32.trap [%0, {%1}], %2;" ::"l"(s1), "r"(4), "r"(v));
  asm volatile("sured.b.or.1d.b32.trap [%0, {%1}], %2;" ::"l"(s1), "r"(8), "r"(1u << (t % 32)));
  asm volatile("sured.b.and.1d.b32.trap [%0, {%1}], %2;" ::"l"(s1), "r"(12),
               "r"(~(1u << (t % 16))));
  // .p: sample addressing, element 4 (byte 16); u32 because the format is unsigned.
  asm volatile("sured.p.add.1d.b32.trap [%0, {%1}], %2;" ::"l"(s1), "r"(4), "r"(2u));
}
__global__ void formatted(cudaSurfaceObject_t u8, cudaSurfaceObject_t f16) {
  int x = threadIdx.x;
  // Sample addressing: x is the element index. Unsigned 8-bit channels take u32 values.
  asm volatile("sust.p.1d.v4.b32.trap [%0, {%1}], {%2, %3, %4, %5};" ::"l"(u8), "r"(x),
               "r"(x), "r"(x * 2u), "r"(200u), "r"(x + 100u));
  // Half channels take f32 values, converted (1.5 -> 0x3e00, x + 0.25 exactly representable).
  asm volatile("sust.p.1d.v2.b32.trap [%0, {%1}], {%2, %3};" ::"l"(f16), "r"(x),
               "f"(1.5f), "f"(x + 0.25f));
}

// ---- the independent mode: a .surfref variable bound with cuSurfRefSetArray (driver API)
static const char *surfref_ptx = R"(
.version 7.0
.target sm_80
.address_size 64
.global .surfref sref;
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mad.lo.u32 %r3, %r1, 3, 1;
  sust.b.1d.b32.trap [sref, {%r2}], %r3;
  suq.width.b32 %r4, [sref];
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r4;
  ret;
}
)";
static void check_surfref() {
  CUmodule mod;
  CU(cuModuleLoadData(&mod, surfref_ptx));
  CUfunction k;
  CU(cuModuleGetFunction(&k, mod, "k"));
  CUsurfref ref, again;
  EXPECT(cuModuleGetSurfRef(&ref, mod, "nothere") == CUDA_ERROR_NOT_FOUND);
  EXPECT(cuModuleGetSurfRef(nullptr, mod, "sref") == CUDA_ERROR_INVALID_VALUE);
  CU(cuModuleGetSurfRef(&ref, mod, "sref"));
  CU(cuModuleGetSurfRef(&again, mod, "sref"));
  EXPECT(ref == again);
  CUarray got;
  EXPECT(cuSurfRefGetArray(&got, ref) == CUDA_ERROR_INVALID_VALUE); // nothing bound yet
  cudaChannelFormatDesc cu = cudaCreateChannelDesc<unsigned>();
  cudaArray_t plain, a16 = array3d(cu, 16, 0, 0, 0), a8 = array3d(cu, 8, 0, 0, 0);
  CHECK(cudaMallocArray(&plain, &cu, 16));
  EXPECT(cuSurfRefSetArray(ref, (CUarray)plain, 0) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuSurfRefSetArray(ref, (CUarray)a16, 1) == CUDA_ERROR_INVALID_VALUE);
  unsigned *out;
  CHECK(cudaMalloc(&out, 4));
  void *args[] = {&out};
  // Each binding is what the launches after it see: 16 then 8 elements.
  cudaArray_t arrays[2] = {a16, a8};
  for (int b = 0; b < 2; b++) {
    int n = b == 0 ? 16 : 8;
    CU(cuSurfRefSetArray(ref, (CUarray)arrays[b], 0));
    CU(cuSurfRefGetArray(&got, ref));
    EXPECT(got == (CUarray)arrays[b]);
    CU(cuLaunchKernel(k, 1, 1, 1, n, 1, 1, 0, nullptr, args, nullptr));
    unsigned width, v[16];
    CHECK(cudaMemcpy(&width, out, 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(width, (unsigned)n);
    copy(arrays[b], v, 4, n, 1, 1, false);
    for (int x = 0; x < n; x++) EXPECT_EQ(v[x], 3u * x + 1);
  }
  CU(cuModuleUnload(mod));
  CHECK(cudaFree(out));
  CHECK(cudaFreeArray(plain));
  CHECK(cudaFreeArray(a16));
  CHECK(cudaFreeArray(a8));
}

int main() {
  // 1-D floats.
  {
    const int n = 40;
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
    cudaArray_t a = array3d(cf, n, 0, 0, 0);
    cudaSurfaceObject_t s = surface(a);
    w1d<<<1, 64>>>(s, n);
    float host[n], *out, got[n];
    copy(a, host, 4, n, 1, 1, false);
    for (int x = 0; x < n; x++) EXPECT_EQ(host[x], x * 1.5f - 3.0f);
    for (int x = 0; x < n; x++) host[x] = x * 0.125f;
    copy(a, host, 4, n, 1, 1, true);
    CHECK(cudaMalloc(&out, sizeof got));
    r1d<<<1, 64>>>(s, out, n);
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int x = 0; x < n; x++) EXPECT_EQ(got[x], x * 0.125f);
    cudaResourceDesc back;
    CHECK(cudaGetSurfaceObjectResourceDesc(&back, s));
    EXPECT(back.resType == cudaResourceTypeArray && back.res.array.array == a);
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFree(out));
    CHECK(cudaFreeArray(a));
  }

  // 2-D in five element types.
  check2d<uchar4>("uchar4", hvalue_uchar4);
  check2d<float>("float", hvalue_float);
  check2d<int2>("int2", hvalue_int2);
  check2d<short>("short", hvalue_short);
  check2d<float4>("float4", hvalue_float4);

  // 3-D, layered and cubemap ints.
  cudaChannelFormatDesc ci = cudaCreateChannelDesc<int>();
  {
    const int w = 7, h = 3, d = 4;
    cudaArray_t a = array3d(ci, w, h, d, 0);
    check_volume(
        "3d", a, w, h, d, [&](cudaSurfaceObject_t s) { w3d<<<dim3(h, d), 32>>>(s, w, h, d); },
        [&](cudaSurfaceObject_t s, int *o) { r3d<<<dim3(h, d), 32>>>(s, o, w, h, d); });
    CHECK(cudaFreeArray(a));
  }
  {
    const int w = 9, layers = 3;
    cudaArray_t a = array3d(ci, w, 0, layers, cudaArrayLayered);
    // Layer l is slice z = l of the copy, so the expected value's 100 y term is 0.
    check_volume(
        "1d layered", a, w, 1, layers,
        [&](cudaSurfaceObject_t s) { w1dl<<<layers, 32>>>(s, w, layers); },
        [&](cudaSurfaceObject_t s, int *o) { r1dl<<<layers, 32>>>(s, o, w, layers); });
    CHECK(cudaFreeArray(a));
  }
  {
    const int w = 6, h = 5, layers = 3;
    cudaArray_t a = array3d(ci, w, h, layers, cudaArrayLayered);
    check_volume(
        "2d layered", a, w, h, layers,
        [&](cudaSurfaceObject_t s) { w2dl<<<dim3(h, layers), 32>>>(s, w, h, layers); },
        [&](cudaSurfaceObject_t s, int *o) { r2dl<<<dim3(h, layers), 32>>>(s, o, w, h, layers); });
    cudaSurfaceObject_t s = surface(a);
    unsigned *q, got[5];
    CHECK(cudaMalloc(&q, sizeof got));
    queries<<<1, 1>>>(s, q);
    CHECK(cudaMemcpy(got, q, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got[0], (unsigned)w);
    EXPECT_EQ(got[1], (unsigned)h);
    EXPECT_EQ(got[3], (unsigned)layers);
    EXPECT_EQ(got[4], 0u);
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFree(q));
    CHECK(cudaFreeArray(a));
  }
  {
    const int w = 4;
    cudaArray_t a = array3d(ci, w, w, 6, cudaArrayCubemap);
    check_volume(
        "cubemap", a, w, w, 6, [&](cudaSurfaceObject_t s) { wcube<<<dim3(w, 6), 32>>>(s, w); },
        [&](cudaSurfaceObject_t s, int *o) { rcube<<<dim3(w, 6), 32>>>(s, o, w); });
    CHECK(cudaFreeArray(a));
  }
  // suq on a 3-D array: its three sizes, not an array (array_size 0), not linear.
  {
    cudaArray_t a = array3d(ci, 5, 6, 7, 0);
    cudaSurfaceObject_t s = surface(a);
    unsigned *q, got[5];
    CHECK(cudaMalloc(&q, sizeof got));
    queries<<<1, 1>>>(s, q);
    CHECK(cudaMemcpy(got, q, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got[0], 5u);
    EXPECT_EQ(got[1], 6u);
    EXPECT_EQ(got[2], 7u);
    EXPECT_EQ(got[3], 0u);
    EXPECT_EQ(got[4], 0u);
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFree(q));
    CHECK(cudaFreeArray(a));
  }

  // Surface writes read back through a texture object over the same array.
  {
    const int w = 11, h = 4;
    cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &cf, w, h, cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s = surface(a);
    wtex<<<h, 32>>>(s, w, h);
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    float *out, got[w * h];
    CHECK(cudaMalloc(&out, sizeof got));
    rtex<<<h, 32>>>(t, out, w, h);
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) EXPECT_EQ(got[y * w + x], x * 0.25f - y);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFree(out));
    CHECK(cudaFreeArray(a));
  }

  // sured: expected values from the operations applied on the host.
  {
    cudaChannelFormatDesc cu = cudaCreateChannelDesc<unsigned>();
    cudaArray_t a2 = array3d(cu, 4, 2, 0, 0), a1 = array3d(cu, 8, 0, 0, 0);
    unsigned z2[8] = {0}, z1[8] = {0, 0, 0, 0xffffffffu, 10, 0, 0, 0};
    z1[0] = 0x7fffffff;  // min starts high (as s32)
    z1[1] = 0x80000000u; // max starts low
    copy(a2, z2, 4, 4, 2, 1, true);
    copy(a1, z1, 4, 8, 1, 1, true);
    cudaSurfaceObject_t s2 = surface(a2), s1 = surface(a1);
    reductions<<<4, 64>>>(s2, s1); // CTAs run on several host threads
    CHECK(cudaGetLastError());
    unsigned want2[8] = {0};
    int mn = 0x7fffffff, mx = (int)0x80000000u;
    unsigned orv = 0, andv = 0xffffffffu;
    for (unsigned t = 0; t < 256; t++) {
      want2[(t / 4 % 2) * 4 + t % 4] += t + 1;
      int v = (int)(t * 37 % 101) - 50;
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
      orv |= 1u << (t % 32);
      andv &= ~(1u << (t % 16));
    }
    copy(a2, z2, 4, 4, 2, 1, false);
    copy(a1, z1, 4, 8, 1, 1, false);
    for (int i = 0; i < 8; i++) EXPECT_EQ(z2[i], want2[i]);
    EXPECT_EQ((int)z1[0], mn);
    EXPECT_EQ((int)z1[1], mx);
    EXPECT_EQ(z1[2], orv);
    EXPECT_EQ(z1[3], andv);
    EXPECT_EQ(z1[4], 10u + 2u * 256u);
    CHECK(cudaDestroySurfaceObject(s2));
    CHECK(cudaDestroySurfaceObject(s1));
    CHECK(cudaFreeArray(a2));
    CHECK(cudaFreeArray(a1));
  }

  // sust.p: unsigned 8-bit channels take u32 values; half channels f32 values, converted.
  {
    const int n = 16;
    cudaArray_t a8 = array3d(cudaCreateChannelDesc<uchar4>(), n, 0, 0, 0);
    cudaArray_t ah = array3d(cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat), n,
                             0, 0, 0);
    cudaSurfaceObject_t s8 = surface(a8), sh = surface(ah);
    formatted<<<1, n>>>(s8, sh);
    CHECK(cudaGetLastError());
    uchar4 h8[n];
    uint16_t hh[2 * n];
    copy(a8, h8, 4, n, 1, 1, false);
    copy(ah, hh, 4, n, 1, 1, false);
    for (int x = 0; x < n; x++) {
      EXPECT(same(h8[x], make_uchar4(x, x * 2, 200, x + 100)));
      EXPECT_EQ(hh[2 * x], 0x3e00);
      // x + 0.25 in binary16: exponent e = floor(log2(x + 0.25)), 10 fraction bits (exact).
      float v = x + 0.25f;
      int e = 0;
      while (v >= 2.0f) v /= 2, e++;
      while (v < 1.0f) v *= 2, e--;
      EXPECT_EQ(hh[2 * x + 1], (uint16_t)(((e + 15) << 10) | (int)((v - 1.0f) * 1024)));
    }
    CHECK(cudaDestroySurfaceObject(s8));
    CHECK(cudaDestroySurfaceObject(sh));
    CHECK(cudaFreeArray(a8));
    CHECK(cudaFreeArray(ah));
  }

  // The driver's validation (cuSurfObjectCreate: a CUDA array made for surface load/store,
  // flags 0; every pointer required; a destroyed handle is invalid).
  cudaArray_t plain, ok;
  CHECK(cudaMallocArray(&plain, &ci, 8, 8));
  CHECK(cudaMallocArray(&ok, &ci, 8, 8, cudaArraySurfaceLoadStore));
  CUDA_RESOURCE_DESC crd;
  memset(&crd, 0, sizeof crd);
  crd.resType = CU_RESOURCE_TYPE_ARRAY;
  crd.res.array.hArray = (CUarray)plain;
  CUsurfObject cs;
  EXPECT(cuSurfObjectCreate(&cs, &crd) == CUDA_ERROR_INVALID_VALUE);
  crd.res.array.hArray = (CUarray)ok;
  EXPECT(cuSurfObjectCreate(nullptr, &crd) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuSurfObjectCreate(&cs, nullptr) == CUDA_ERROR_INVALID_VALUE);
  crd.flags = 1;
  EXPECT(cuSurfObjectCreate(&cs, &crd) == CUDA_ERROR_INVALID_VALUE);
  crd.flags = 0;
  int *lin;
  CHECK(cudaMalloc(&lin, 1024));
  CUDA_RESOURCE_DESC lrd;
  memset(&lrd, 0, sizeof lrd);
  lrd.resType = CU_RESOURCE_TYPE_LINEAR;
  lrd.res.linear.devPtr = (CUdeviceptr)lin;
  lrd.res.linear.format = CU_AD_FORMAT_SIGNED_INT32;
  lrd.res.linear.numChannels = 1;
  lrd.res.linear.sizeInBytes = 1024;
  EXPECT(cuSurfObjectCreate(&cs, &lrd) == CUDA_ERROR_INVALID_VALUE);
  CU(cuSurfObjectCreate(&cs, &crd));
  CUDA_RESOURCE_DESC back;
  EXPECT(cuSurfObjectGetResourceDesc(nullptr, cs) == CUDA_ERROR_INVALID_VALUE);
  CU(cuSurfObjectGetResourceDesc(&back, cs));
  EXPECT(back.resType == CU_RESOURCE_TYPE_ARRAY && back.res.array.hArray == (CUarray)ok);
  CU(cuSurfObjectDestroy(cs));
  EXPECT(cuSurfObjectDestroy(cs) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuSurfObjectGetResourceDesc(&back, cs) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cudaFreeArray(plain));

  check_surfref();

  // Boundary modes on 8 ints 10, 20, ..., 80.
  {
    int h[8] = {10, 20, 30, 40, 50, 60, 70, 80};
    cudaArray_t a = array3d(ci, 8, 0, 0, 0);
    copy(a, h, 4, 8, 1, 1, true);
    cudaSurfaceObject_t s = surface(a);
    int *out, got[5];
    CHECK(cudaMalloc(&out, sizeof got));
    bounds<<<1, 1>>>(s, out);
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got[0], 0);
    EXPECT_EQ(got[1], 0);
    EXPECT_EQ(got[2], 10);
    EXPECT_EQ(got[3], 80);
    EXPECT_EQ(got[4], 40);
    int after[8];
    copy(a, after, 4, 8, 1, 1, false);
    int want[8] = {111, 20, 30, 40, 50, 60, 70, 999};
    for (int i = 0; i < 8; i++) EXPECT_EQ(after[i], want[i]);
    // Trap: the kernel fails with an illegal address, reported at the next synchronisation.
    trap_read<<<1, 1>>>(s, out);
    cudaError_t e = cudaDeviceSynchronize();
    EXPECT_MSG(e == cudaErrorIllegalAddress, "trap: %s", cudaGetErrorName(e));
  }
  if (expect_failures == 0) printf("PASS\n");
  return expect_failures == 0 ? 0 : 1;
}
