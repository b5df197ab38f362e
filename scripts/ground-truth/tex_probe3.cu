// Ground-truth probe, part 3 of the texture unit: what the shim implements from the ISA's text
// but no GPU has answered yet. Each line prints as hex floats or integers so a test can quote it:
// - texel offsets (`tex.2d ... {e}`), point and linear, inside and past the edge;
// - `.f16` results of float and 8-bit normalised textures (the rounding of a filtered value);
// - `tld4` on a layered texture and on a cubemap;
// - `txq` on a texture object and `suq` on a surface object (every query, OpenCL enumerations
//   or not);
// - `tex.grad.cube` level selection;
// - a surface `.trap` access out of bounds (the error code);
// - resource views the driver accepts or refuses (format size, extent, level and layer ranges).
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_) printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_));       \
  } while (0)

// Split builds: an H200 refused every launch of this program when its kernels shared one
// module (cudaErrorNotSupported, each launch), so each kernel can be built into its own
// translation unit, one module each, to learn which one the driver does not take:
//   nvcc -arch=sm_90 -DONLY=N -c -o kN.o tex_probe3.cu      (N = 1..13, one kernel each)
//   nvcc -arch=sm_90 -DSPLIT -o tex_probe3 tex_probe3.cu k*.o (main, the kernels declared)
// Built whole (neither macro), it is one module as before.
#if defined(ONLY)
#define KERNEL(n) (ONLY == n)
#define MAIN 0
#elif defined(SPLIT)
#define KERNEL(n) 0
#define MAIN 1
#else
#define KERNEL(n) 1
#define MAIN 1
#endif

// A 6 x 4 float image (10 y + x) and a 6 x 4 uchar one ((40 y + 7 x) % 256).
__global__ void offsets(cudaTextureObject_t t, float *out)
#if KERNEL(1)
{
  float a, b, c, d;
  int k = 0;
  for (int ox = -2; ox <= 2; ox += 2)
    for (int oy = -1; oy <= 1; oy++) {
      asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7, %8};"
          : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
          : "l"(t), "f"(2.75f), "f"(1.25f), "r"(ox), "r"(oy));
      out[k++] = a;
    }
}
#else
;
#endif
__global__ void halves(cudaTextureObject_t t, float x, float y, unsigned short *out)
#if KERNEL(2)
{
  unsigned short h0, h1, h2, h3;
  asm("tex.2d.v4.f16.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
      : "=h"(h0), "=h"(h1), "=h"(h2), "=h"(h3)
      : "l"(t), "f"(x), "f"(y));
  out[0] = h0;
  out[1] = h3;
}
#else
;
#endif
__global__ void halves2(cudaTextureObject_t t, float x, float y, unsigned short *out)
#if KERNEL(3)
{
  unsigned p0, p1;
  asm("tex.2d.v2.f16x2.f32 {%0, %1}, [%2, {%3, %4}];" : "=r"(p0), "=r"(p1) : "l"(t), "f"(x), "f"(y));
  out[2] = p0 & 0xffff;
  out[3] = p0 >> 16;
}
#else
;
#endif
__global__ void gather_a2d(cudaTextureObject_t layered, float *out)
#if KERNEL(4)
{
  float a, b, c, d;
  asm("tld4.r.a2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
      : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
      : "l"(layered), "r"(1), "f"(2.25f), "f"(1.75f));
  out[0] = a, out[1] = b, out[2] = c, out[3] = d;
}
#else
;
#endif
__global__ void gather_cube(cudaTextureObject_t cube, float *out)
#if KERNEL(5)
{
  float a, b, c, d;
  asm("tld4.r.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
      : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
      : "l"(cube), "f"(1.0f), "f"(0.3f), "f"(-0.2f));
  out[4] = a, out[5] = b, out[6] = c, out[7] = d;
}
#else
;
#endif
// The queries, in four kernels: the sizes and sampler fields, the OpenCL enumerations, and
// the same two groups for the surface.
__global__ void q_txq(cudaTextureObject_t t, int *v)
#if KERNEL(6)
{
  asm("txq.width.b32 %0, [%1];" : "=r"(v[0]) : "l"(t));
  asm("txq.height.b32 %0, [%1];" : "=r"(v[1]) : "l"(t));
  asm("txq.depth.b32 %0, [%1];" : "=r"(v[2]) : "l"(t));
  asm("txq.normalized_coords.b32 %0, [%1];" : "=r"(v[5]) : "l"(t));
  asm("txq.array_size.b32 %0, [%1];" : "=r"(v[6]) : "l"(t));
  asm("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(v[7]) : "l"(t));
  asm("txq.filter_mode.b32 %0, [%1];" : "=r"(v[8]) : "l"(t));
  asm("txq.addr_mode_0.b32 %0, [%1];" : "=r"(v[9]) : "l"(t));
}
#else
;
#endif
__global__ void q_txq_chan(cudaTextureObject_t t, int *v)
#if KERNEL(7)
{
  asm("txq.channel_data_type.b32 %0, [%1];" : "=r"(v[3]) : "l"(t));
  asm("txq.channel_order.b32 %0, [%1];" : "=r"(v[4]) : "l"(t));
}
#else
;
#endif
__global__ void q_suq(cudaSurfaceObject_t s, int *v)
#if KERNEL(8)
{
  asm("suq.width.b32 %0, [%1];" : "=r"(v[10]) : "l"(s));
  asm("suq.height.b32 %0, [%1];" : "=r"(v[11]) : "l"(s));
  asm("suq.array_size.b32 %0, [%1];" : "=r"(v[14]) : "l"(s));
  asm("suq.memory_layout.b32 %0, [%1];" : "=r"(v[15]) : "l"(s));
}
#else
;
#endif
__global__ void q_suq_chan(cudaSurfaceObject_t s, int *v)
#if KERNEL(9)
{
  asm("suq.channel_data_type.b32 %0, [%1];" : "=r"(v[12]) : "l"(s));
  asm("suq.channel_order.b32 %0, [%1];" : "=r"(v[13]) : "l"(s));
}
#else
;
#endif
__global__ void cube_grad(cudaTextureObject_t t, float g, float *out)
#if KERNEL(10)
{
  float a, b, c, d;
  asm("tex.grad.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}], {%8, %9, %9, %9}, "
      "{%9, %8, %9, %9};"
      : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
      : "l"(t), "f"(1.0f), "f"(0.2f), "f"(0.1f), "f"(g), "f"(0.0f));
  out[0] = a;
}
#else
;
#endif
__global__ void trap(cudaSurfaceObject_t s)
#if KERNEL(11)
{
  float v;
  surf2Dread(&v, s, 4 * 100, 0, cudaBoundaryModeTrap);
  if (v == 12345.0f) printf("unreachable\n");
}
#else
;
#endif
// Controls: a plain texture fetch and a plain store, each in its own module.
__global__ void plain_fetch(cudaTextureObject_t t, float *out)
#if KERNEL(12)
{
  out[0] = tex2D<float>(t, 2.5f, 1.5f);
}
#else
;
#endif
__global__ void plain_store(float *out)
#if KERNEL(13)
{
  out[0] = 42.0f;
}
#else
;
#endif

#if MAIN
static cudaTextureObject_t tex(cudaResourceDesc rd, cudaTextureFilterMode fm, int norm,
                               cudaTextureReadMode rm = cudaReadModeElementType,
                               cudaTextureFilterMode mip = cudaFilterModePoint, float maxl = 0) {
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = fm;
  td.readMode = rm;
  td.normalizedCoords = norm;
  td.mipmapFilterMode = mip;
  td.maxMipmapLevelClamp = maxl;
  cudaTextureObject_t t = 0;
  CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static cudaResourceDesc array_res(cudaArray_t a) {
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  return rd;
}

int main() {
  float *fout;
  {
    // The controls first: does any kernel of this program run?
    float *o, r = -1;
    CK(cudaMalloc(&o, sizeof(float)));
    plain_store<<<1, 1>>>(o);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&r, o, sizeof(float), cudaMemcpyDeviceToHost));
    printf("control plain store -> %a\n", r);
  }
  unsigned short *hout;
  int *iout;
  CK(cudaMalloc(&fout, 64 * sizeof(float)));
  CK(cudaMalloc(&hout, 16 * sizeof(short)));
  CK(cudaMalloc(&iout, 16 * sizeof(int)));
  float f[64];
  unsigned short h[16];
  int q[16];

  // Float image 6 x 4 (10 y + x) and uchar image ((40 y + 7 x) % 256).
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
  cudaChannelFormatDesc cu = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t fa, ua;
  CK(cudaMallocArray(&fa, &cf, 6, 4, cudaArraySurfaceLoadStore));
  CK(cudaMallocArray(&ua, &cu, 6, 4));
  float fv[24];
  unsigned char uv[24];
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 6; x++) fv[y * 6 + x] = 10 * y + x, uv[y * 6 + x] = (40 * y + 7 * x) % 256;
  CK(cudaMemcpy2DToArray(fa, 0, 0, fv, 24, 24, 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy2DToArray(ua, 0, 0, uv, 6, 6, 4, cudaMemcpyHostToDevice));
  {
    cudaTextureObject_t t = tex(array_res(fa), cudaFilterModePoint, 0);
    plain_fetch<<<1, 1>>>(t, fout);
    CK(cudaGetLastError());
    CK(cudaMemcpy(f, fout, sizeof(float), cudaMemcpyDeviceToHost));
    printf("control plain tex2D at (2.5,1.5) -> %a\n", f[0]);
  }
  for (int lin = 0; lin < 2; lin++) {
    cudaTextureObject_t t = tex(array_res(fa), lin ? cudaFilterModeLinear : cudaFilterModePoint, 0);
    offsets<<<1, 1>>>(t, fout);
    CK(cudaGetLastError());
    CK(cudaMemcpy(f, fout, 9 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < 9; k++)
      printf("offset %s at (2.75,1.25) by (%d,%d) -> %a\n", lin ? "linear" : "point", -2 + 2 * (k / 3),
             -1 + k % 3, f[k]);
  }
  float pts[][2] = {{2.5f, 1.5f}, {2.9f, 1.3f}, {0.7f, 3.1f}};
  for (int img = 0; img < 2; img++)
    for (int lin = 0; lin < 2; lin++) {
      cudaTextureObject_t t =
          img ? tex(array_res(ua), lin ? cudaFilterModeLinear : cudaFilterModePoint, 0, cudaReadModeNormalizedFloat)
              : tex(array_res(fa), lin ? cudaFilterModeLinear : cudaFilterModePoint, 0);
      for (auto &p : pts) {
        halves<<<1, 1>>>(t, p[0], p[1], hout);
        CK(cudaGetLastError());
        halves2<<<1, 1>>>(t, p[0], p[1], hout);
        CK(cudaGetLastError());
        CK(cudaMemcpy(h, hout, 4 * sizeof(short), cudaMemcpyDeviceToHost));
        printf("f16 %s %s at (%a,%a) -> %04x %04x f16x2 %04x %04x\n", img ? "unorm8" : "float",
               lin ? "linear" : "point", p[0], p[1], h[0], h[1], h[2], h[3]);
      }
    }

  // tld4 on a 2-layer 4 x 4 layered array (100 l + 10 y + x) and a 2 x 2 cubemap (10 f + x + 2 y).
  cudaArray_t la, ca;
  CK(cudaMalloc3DArray(&la, &cf, make_cudaExtent(4, 4, 2), cudaArrayLayered));
  CK(cudaMalloc3DArray(&ca, &cf, make_cudaExtent(2, 2, 6), cudaArrayCubemap));
  float lv[32], cv[24];
  for (int l = 0; l < 2; l++)
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 4; x++) lv[(l * 4 + y) * 4 + x] = 100 * l + 10 * y + x;
  for (int fc = 0; fc < 6; fc++)
    for (int y = 0; y < 2; y++)
      for (int x = 0; x < 2; x++) cv[fc * 4 + y * 2 + x] = 10 * fc + x + 2 * y;
  cudaMemcpy3DParms m = {};
  m.srcPtr = make_cudaPitchedPtr(lv, 16, 4, 4);
  m.dstArray = la;
  m.extent = make_cudaExtent(4, 4, 2);
  m.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&m));
  m.srcPtr = make_cudaPitchedPtr(cv, 8, 2, 2);
  m.dstArray = ca;
  m.extent = make_cudaExtent(2, 2, 6);
  CK(cudaMemcpy3D(&m));
  cudaTextureObject_t lt = tex(array_res(la), cudaFilterModePoint, 0);
  cudaTextureObject_t ct = tex(array_res(ca), cudaFilterModePoint, 1);
  gather_a2d<<<1, 1>>>(lt, fout);
  CK(cudaGetLastError());
  gather_cube<<<1, 1>>>(ct, fout);
  CK(cudaGetLastError());
  CK(cudaMemcpy(f, fout, 8 * sizeof(float), cudaMemcpyDeviceToHost));
  printf("tld4.r.a2d layer 1 at (2.25,1.75) -> %a %a %a %a\n", f[0], f[1], f[2], f[3]);
  printf("tld4.r.cube at (1,0.3,-0.2) -> %a %a %a %a\n", f[4], f[5], f[6], f[7]);

  // txq and suq.
  cudaSurfaceObject_t s;
  cudaResourceDesc sr = array_res(fa);
  CK(cudaCreateSurfaceObject(&s, &sr));
  cudaTextureObject_t ut = tex(array_res(ua), cudaFilterModeLinear, 1, cudaReadModeNormalizedFloat);
  q_txq<<<1, 1>>>(ut, iout);
  CK(cudaGetLastError());
  q_txq_chan<<<1, 1>>>(ut, iout);
  CK(cudaGetLastError());
  q_suq<<<1, 1>>>(s, iout);
  CK(cudaGetLastError());
  q_suq_chan<<<1, 1>>>(s, iout);
  CK(cudaGetLastError());
  CK(cudaMemcpy(q, iout, 16 * sizeof(int), cudaMemcpyDeviceToHost));
  printf("txq uchar normalized-float linear normalized-coords: width %d height %d depth %d "
         "channel_data_type %#x channel_order %#x normalized_coords %d array_size %d "
         "num_mipmap_levels %d filter_mode %d addr_mode_0 %d\n",
         q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9]);
  printf("suq float 6x4: width %d height %d channel_data_type %#x channel_order %#x array_size %d "
         "memory_layout %d\n",
         q[10], q[11], q[12], q[13], q[14], q[15]);

  // tex.grad.cube on a mipmapped 8 x 8 cubemap, level k holding 1000 k everywhere.
  cudaMipmappedArray_t mm;
  CK(cudaMallocMipmappedArray(&mm, &cf, make_cudaExtent(8, 8, 6), 4, cudaArrayCubemap));
  for (int k = 0; k < 4; k++) {
    cudaArray_t lvl;
    CK(cudaGetMipmappedArrayLevel(&lvl, mm, k));
    int w = 8 >> k;
    static float buf[8 * 8 * 6];
    for (int i = 0; i < w * w * 6; i++) buf[i] = 1000.0f * k;
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(buf, w * 4, w, w);
    p.dstArray = lvl;
    p.extent = make_cudaExtent(w, w, 6);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
  }
  cudaResourceDesc mr = {};
  mr.resType = cudaResourceTypeMipmappedArray;
  mr.res.mipmap.mipmap = mm;
  cudaTextureObject_t mt = tex(mr, cudaFilterModePoint, 1, cudaReadModeElementType, cudaFilterModePoint, 3);
  for (float g : {0.0f, 0.125f, 0.25f, 0.5f, 1.0f, 2.0f}) {
    cube_grad<<<1, 1>>>(mt, g, fout);
    CK(cudaGetLastError());
    CK(cudaMemcpy(f, fout, sizeof(float), cudaMemcpyDeviceToHost));
    printf("tex.grad.cube at (1,0.2,0.1) gradient %a -> %a\n", g, f[0]);
  }

  // Resource views: accepted or refused.
  {
    cudaChannelFormatDesc c32 = cudaCreateChannelDesc<unsigned>();
    cudaArray_t va;
    CK(cudaMalloc3DArray(&va, &c32, make_cudaExtent(4, 2, 3), cudaArrayLayered));
    struct V {
      const char *what;
      cudaResourceViewFormat fmt;
      size_t w, h, d;
      unsigned l0, l1;
    } views[] = {
        {"float1 whole", cudaResViewFormatFloat1, 4, 2, 3, 0, 2},
        {"float1 layers 1-2 depth 3", cudaResViewFormatFloat1, 4, 2, 3, 1, 2},
        {"float1 layers 1-2 depth 2", cudaResViewFormatFloat1, 4, 2, 2, 1, 2},
        {"float2 (other size)", cudaResViewFormatFloat2, 4, 2, 3, 0, 2},
        {"uchar4 (same size)", cudaResViewFormatUnsignedChar4, 4, 2, 3, 0, 2},
        {"width 3", cudaResViewFormatFloat1, 3, 2, 3, 0, 2},
        {"layers 2-1", cudaResViewFormatFloat1, 4, 2, 3, 2, 1},
        {"layers 0-3", cudaResViewFormatFloat1, 4, 2, 3, 0, 3},
        {"none, depth 0", cudaResViewFormatNone, 4, 2, 0, 0, 2},
    };
    for (auto &v : views) {
      cudaResourceViewDesc vd = {};
      vd.format = v.fmt;
      vd.width = v.w, vd.height = v.h, vd.depth = v.d;
      vd.firstLayer = v.l0, vd.lastLayer = v.l1;
      cudaTextureDesc td = {};
      cudaResourceDesc rd = array_res(va);
      cudaTextureObject_t t;
      cudaError_t e = cudaCreateTextureObject(&t, &rd, &td, &vd);
      printf("view %s -> %s\n", v.what, cudaGetErrorName(e));
      cudaGetLastError();
      if (!e) cudaDestroyTextureObject(t);
    }
  }

  // Last: a surface .trap access out of bounds (sticky).
  trap<<<1, 1>>>(s);
  CK(cudaGetLastError());
  printf("surface trap out of bounds -> %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
#endif
