// What a GPU and its driver answer about the Tensor Memory Accelerator where cuda.h and the ISA
// (5.5 "Tensor Access Modes", 9.7.9.25.5.2 cp.async.bulk.tensor) leave it open, for the shim's
// tensor maps and bulk tensor copies. Build: nvcc -std=c++17 -O2 -gencode
// arch=compute_90a,code=sm_90a (no -lcuda: the driver is reached by cudaGetDriverEntryPointByVersion).
// 1. cuTensorMapEncodeTiled's argument checks: one valid base (rank 2 f32 64x64, box 16x16) and
//    single deviations from it, every data type with and without NaN fill, the packed types;
//    cuTensorMapReplaceAddress with bad addresses: "encode tiled CASE: CODE NAME",
//    "replace CASE: CODE NAME".
// 2. cuTensorMapEncodeIm2col's checks on a rank-4 NHWC f32 base (N2 H8 W8 C16, corners -1/-1,
//    16 channels, 32 pixels) and deviations (ranks, corner ranges per rank, channels, pixels,
//    swizzle): "encode im2col CASE: CODE NAME".
// 3. Out-of-bound fill: a 16x8 tensor (element = index+1) of each type read as a 16x16 box at
//    (-2,-2) (and fully outside): "oob TYPE FILL at=(x,y): done=1 inbound_ok=N/M first=0xBITS
//    oob=K" (first: tensor element (0,0); all ones when none is in the box) and one
//    "oob TYPE FILL at=(x,y): oob bits=0xBITS count=K" per distinct fill value (0xabab.. = unwritten).
// 4. (last, the riskiest) im2col loads from a N2 H6 W6 C8 f32 tensor whose elements are their
//    linear index + 1 (tensor dims {C,W,H,N}): "im2col CFG coord=(c,w,h,n) off=(w,h) tx=B: done=1"
//    (or "TIMEOUT mbar=0x.."), then "im2col CFG coord=.. off=.. vals: ..." with each element's
//    source index (element value - 1; -1 for a zero fill, u for a byte never written, nan), and
//    "im2col CFG coord=.. off=.. pixels: n.h.w.c ..." decoding each pixel's first channel
//    (oob for a zero fill), "im2col CFG coord=.. off=.. written_past_box=BYTES"; each config
//    first prints "im2col CFG encode lo=.. hi=.. es=.. cpp=.. ppc=..: CODE NAME".
// 5. (before 4) a 2-CTA cluster where CTA 0 multicasts one 16x16 f32 box to ctaMask 0x3 and
//    0x2: "multicast mask=M cta=R: done=1 match=N/256 unwritten=K mbar=0x.. first=v0 v1 v2 v3".
// 6. (after 2) what parts 1 and 2 leave open: NULL arrays, dimensions of 2^32, interleaved box
//    rows and swizzles, more im2col checks ("encode tiled/im2col CASE: CODE NAME"),
//    cuTensorMapReplaceAddress on bytes no encoder wrote ("replace CASE: CODE NAME"), and
//    bisections: the largest box side the tiled encoder takes with the others fixed
//    ("bisect tiled box CASE: box[i] <= N"), the largest pixelsPerColumn ("bisect im2col ppc
//    CASE: ppc <= N"), the largest and smallest im2col dimension for pairs of corners ("bisect
//    im2col dim CASE: dim[i] <= N (2^31+K)", "... >= N").
// Every launch prints "launch WHAT: launch=E NAME sync=E NAME"; a sticky error ends the run
// ("sticky error after WHAT: exiting"). A driver call that faults prints "CASE: CRASH signal N".
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <map>
#include <vector>
namespace cg = cooperative_groups;

static PFN_cuTensorMapEncodeTiled_v12000 encTiled;
static PFN_cuTensorMapEncodeIm2col_v12000 encIm2col;
static PFN_cuTensorMapReplaceAddress_v12000 replaceAddr;
static PFN_cuGetErrorName_v6000 getName;

static const char* ename(CUresult r) {
  const char* s = nullptr;
  return getName && getName(r, &s) == CUDA_SUCCESS && s ? s : "?";
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("fatal %s: %d %s\n", #x, (int)e_, cudaGetErrorName(e_)); exit(2); } } while (0)

// A driver call that might dereference a bad pointer runs under this guard: a SIGSEGV or
// SIGBUS inside it prints "CRASH" instead of ending the run.
static sigjmp_buf jb;
static volatile sig_atomic_t guarded;
static void on_fault(int sig) {
  if (guarded) siglongjmp(jb, sig);
  signal(sig, SIG_DFL);
  raise(sig);
}
#define GUARDED(r, call) do { int sig_ = sigsetjmp(jb, 1); guarded = 1; \
    if (sig_ == 0) r = (call); else r = (CUresult)-sig_; guarded = 0; } while (0)
static void show(const char* kind, const char* name, CUresult r) {
  if ((int)r < 0) printf("%s %s: CRASH signal %d\n", kind, name, -(int)r);
  else printf("%s %s: %d %s\n", kind, name, (int)r, ename(r));
}

// After every launch: the launch's own error, then the synchronisation's. A sticky error (the
// second synchronisation fails too) ends the run with what was printed.
static bool after_launch(const char* what) {
  cudaError_t l = cudaGetLastError();
  cudaError_t s = cudaDeviceSynchronize();
  printf("launch %s: launch=%d %s sync=%d %s\n", what, (int)l, cudaGetErrorName(l), (int)s,
         cudaGetErrorName(s));
  if (s != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess) {
    printf("sticky error after %s: exiting\n", what);
    exit(3);
  }
  cudaGetLastError();
  return l == cudaSuccess && s == cudaSuccess;
}

// ---------------------------------------------------------------- device side (inline PTX)
__device__ __forceinline__ uint32_t saddr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint32_t b, uint32_t n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(n) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_expect(uint32_t b, uint32_t tx) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(tx) : "memory");
}
__device__ __forceinline__ uint64_t gtimer() {
  uint64_t t;
  return ({ asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); t; });
}
// Waits for phase 0 of the mbarrier; false after 100 ms (or 1e8 polls) rather than hanging.
__device__ bool mbar_wait(uint32_t b) {
  uint64_t t0 = gtimer();
  for (long i = 0; i < 100000000L; i++) {
    uint32_t ok;
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 " selp.u32 %0, 1, 0, p;\n}\n" : "=r"(ok) : "r"(b), "r"(0u) : "memory");
    if (ok) return true;
    if (gtimer() - t0 > 100000000ull) return false;
  }
  return false;
}

// One TMA load into a 4 KiB shared buffer prefilled with 0xAB bytes, copied out whole.
// mode 0: 2-D tile at (k0, k1); mode 1: 4-D im2col at {k0, k1, k2, k3} with offsets {ow, oh}.
// st[0] = 1 when the mbarrier completed, st[1] = its raw 64-bit word afterwards.
__global__ void tma_load(const __grid_constant__ CUtensorMap map, int mode, int k0, int k1, int k2,
                         int k3, unsigned short ow, unsigned short oh, unsigned tx,
                         unsigned char* out, unsigned long long* st) {
  __shared__ alignas(1024) unsigned char buf[4096];
  __shared__ alignas(8) unsigned long long bar;
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) buf[i] = 0xAB;
  uint32_t b = saddr(&bar);
  if (threadIdx.x == 0) mbar_init(b, 1);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_expect(b, tx);
    uint64_t m = reinterpret_cast<uint64_t>(&map);
    if (mode == 0)
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                   " [%0], [%1, {%2, %3}], [%4];" ::"r"(saddr(buf)), "l"(m), "r"(k0), "r"(k1), "r"(b)
                   : "memory");
    else
      asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                   " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};" ::"r"(saddr(buf)), "l"(m),
                   "r"(k0), "r"(k1), "r"(k2), "r"(k3), "r"(b), "h"(ow), "h"(oh) : "memory");
    st[0] = mbar_wait(b);
    st[1] = *(volatile unsigned long long*)&bar;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) out[i] = buf[i];
}

// Cluster of 2: CTA 0 multicasts a 16x16 f32 box at (x, y) to the CTAs in mask; each CTA waits
// on its own mbarrier (same offset), expecting the box's bytes when its bit is in the mask.
__global__ void __cluster_dims__(2, 1, 1) mcast(const __grid_constant__ CUtensorMap map, int x,
                                                int y, unsigned short mask, float* out,
                                                unsigned long long* st) {
  __shared__ alignas(1024) unsigned buf[256];
  __shared__ alignas(8) unsigned long long bar;
  cg::cluster_group cl = cg::this_cluster();
  unsigned rank = cl.block_rank();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) buf[i] = 0xABABABABu;
  uint32_t b = saddr(&bar);
  if (threadIdx.x == 0) mbar_init(b, 1);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) mbar_expect(b, (mask >> rank) & 1 ? 1024u : 0u);
  cl.sync();
  if (rank == 0 && threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(saddr(buf)),
                 "l"(reinterpret_cast<uint64_t>(&map)), "r"(x), "r"(y), "r"(b), "h"(mask) : "memory");
  if (threadIdx.x == 0) {
    st[rank * 2] = mbar_wait(b);
    st[rank * 2 + 1] = *(volatile unsigned long long*)&bar;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) out[rank * 256 + i] = __uint_as_float(buf[i]);
  cl.sync();
}

// ---------------------------------------------------------------- host side
static const char* tname[] = {"u8",  "u16",  "u32",    "i32",  "u64",    "i64",     "f16",    "f32",
                              "f64", "bf16", "f32ftz", "tf32", "tf32ftz", "16u4a8", "16u4a16", "16u6a16"};
static const int tsize[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};

alignas(128) static unsigned char mapbuf[512];

struct Tiled {
  void* map; int type; unsigned rank; void* addr; cuuint64_t dim[8], str[8]; cuuint32_t box[8], es[8];
  int il, sw, l2, fill;
};
static CUresult tiled_r(const Tiled& t) {
  CUresult r;
  GUARDED(r, encTiled((CUtensorMap*)t.map, (CUtensorMapDataType)t.type, t.rank, t.addr, t.dim, t.str,
                      t.box, t.es, (CUtensorMapInterleave)t.il, (CUtensorMapSwizzle)t.sw,
                      (CUtensorMapL2promotion)t.l2, (CUtensorMapFloatOOBfill)t.fill));
  return r;
}
static void tiled(const char* name, const Tiled& t) { show("encode tiled", name, tiled_r(t)); }
#define TC(name, ...) do { Tiled t = tb; __VA_ARGS__; tiled(name, t); } while (0)

// Rank 3 interleaved: dim 0 is the interleave chunk (4 or 8 f32), 64x64 of them.
static void inter(Tiled& t, int il) {
  int c = il == 1 ? 4 : 8;
  t.rank = 3, t.il = il;
  t.dim[0] = c, t.dim[1] = 64, t.dim[2] = 64;
  t.str[0] = c * 4, t.str[1] = c * 4 * 64;
  t.box[0] = c, t.box[1] = 16, t.box[2] = 16;
  if (il == 2) t.sw = CU_TENSOR_MAP_SWIZZLE_32B;
}

// Part 1's base: rank 2 f32 64x64, rows of 256 bytes, box 16x16.
static Tiled tiled_base(char* g) {
  Tiled tb{};
  tb.map = mapbuf, tb.type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32, tb.rank = 2, tb.addr = g;
  for (int i = 0; i < 8; i++) tb.dim[i] = 1, tb.str[i] = 16384, tb.box[i] = 1, tb.es[i] = 1;
  tb.dim[0] = tb.dim[1] = 64, tb.str[0] = 256, tb.box[0] = tb.box[1] = 16;
  return tb;
}

static void part1(char* g) {
  Tiled tb = tiled_base(g);
  char* m = (char*)mapbuf;
  TC("base");
  TC("rank1", t.rank = 1);
  TC("rank5", t.rank = 5);
  TC("map_null", t.map = nullptr);
  TC("map_off8", t.map = m + 8);
  TC("map_off16", t.map = m + 16);
  TC("map_off32", t.map = m + 32);
  TC("map_off64", t.map = m + 64);
  TC("dtype16", t.type = 16);
  TC("interleave3", t.il = 3);
  TC("swizzle7", t.sw = 7);
  TC("l2promo4", t.l2 = 4);
  TC("oobfill2", t.fill = 2);
  TC("l2promo_256B", t.l2 = 3);
  TC("rank0", t.rank = 0);
  TC("rank6", t.rank = 6);
  TC("il16_rank1", t.rank = 1, t.il = 1);
  TC("il16_rank2", t.il = 1);
  TC("il16_rank3", inter(t, 1));
  TC("il16_rank3_box0_16", inter(t, 1), t.dim[0] = 16, t.str[0] = 64, t.str[1] = 4096, t.box[0] = 16);
  TC("il16_rank3_sw128", inter(t, 1), t.sw = 3);
  TC("il32_rank3_sw32", inter(t, 2));
  TC("il32_rank3_sw0", inter(t, 2), t.sw = 0);
  TC("il32_rank3_sw64", inter(t, 2), t.sw = 2);
  TC("il32_rank3_sw128", inter(t, 2), t.sw = 3);
  TC("il32_addr_off16", inter(t, 2), t.addr = g + 16);
  TC("il32_stride48", inter(t, 2), t.str[0] = 48, t.str[1] = 48 * 64);
  TC("il16_es0_2", inter(t, 1), t.es[0] = 2);
  TC("addr_off8", t.addr = g + 8);
  TC("addr_off16", t.addr = g + 16);
  TC("addr_null", t.addr = nullptr);
  TC("dim0_0", t.dim[0] = 0);
  TC("dim1_0", t.dim[1] = 0);
  TC("dim0_63", t.dim[0] = 63);
  TC("dim1_2p31", t.dim[1] = 1ull << 31);
  TC("dim1_2p31p1", t.dim[1] = (1ull << 31) + 1);
  TC("dim1_2p32p1", t.dim[1] = (1ull << 32) + 1);
  TC("stride100", t.str[0] = 100);
  TC("stride0", t.str[0] = 0);
  TC("stride16", t.str[0] = 16);
  TC("stride128_lt_row", t.str[0] = 128);
  TC("stride272", t.str[0] = 272);
  TC("stride_2p40m16", t.str[0] = (1ull << 40) - 16);
  TC("stride_2p40", t.str[0] = 1ull << 40);
  TC("rank3_stride1_lt_stride0", t.rank = 3, t.str[1] = 128);
  TC("box0_0", t.box[0] = 0);
  TC("box1_0", t.box[1] = 0);
  TC("box1_256", t.box[1] = 256);
  TC("box1_257", t.box[1] = 257);
  TC("box0_3_12B", t.box[0] = 3);
  TC("box0_4_16B", t.box[0] = 4);
  TC("box0_64_256B", t.box[0] = 64);
  TC("box0_128_gt_dim", t.box[0] = 128);
  TC("box1_128_gt_dim", t.box[1] = 128);
  TC("box0_256_1KiB", t.box[0] = 256, t.dim[0] = 256, t.str[0] = 1024);
  TC("es0_0", t.es[0] = 0);
  TC("es1_0", t.es[1] = 0);
  TC("es1_8", t.es[1] = 8);
  TC("es1_9", t.es[1] = 9);
  TC("es0_2", t.es[0] = 2);
  TC("es0_9", t.es[0] = 9);
  TC("sw32_box0_8_32B", t.sw = 1, t.box[0] = 8);
  TC("sw32_box0_16_64B", t.sw = 1);
  TC("sw64_box0_16_64B", t.sw = 2);
  TC("sw64_box0_32_128B", t.sw = 2, t.box[0] = 32);
  TC("sw128_box0_16_64B", t.sw = 3);
  TC("sw128_box0_32_128B", t.sw = 3, t.box[0] = 32);
  TC("sw128_box0_64_256B", t.sw = 3, t.box[0] = 64);
  // 4 = 128B_ATOM_32B, 5 = 128B_ATOM_32B_FLIP_8B, 6 = 128B_ATOM_64B (cuda.h 13.5).
  TC("sw4_128B_ATOM_32B_box0_32", t.sw = 4, t.box[0] = 32);
  TC("sw5_128B_ATOM_32B_FLIP_8B_box0_32", t.sw = 5, t.box[0] = 32);
  TC("sw6_128B_ATOM_64B_box0_32", t.sw = 6, t.box[0] = 32);
  TC("sw4_128B_ATOM_32B_box0_64", t.sw = 4, t.box[0] = 64);
  for (int ty = 0; ty < 13; ty++)
    for (int f = 0; f < 2; f++) {
      char n[64];
      snprintf(n, sizeof n, "dtype_%s_fill_%s", tname[ty], f ? "nan" : "none");
      TC(n, t.type = ty, t.fill = f, t.str[0] = 64 * tsize[ty]);
    }
  // Packed types (13 16U4_ALIGN8B, 14 16U4_ALIGN16B, 15 16U6_ALIGN16B): 128 values a row,
  // 64 bytes (8B) or 128 bytes (16B) a row.
  TC("packed_16u4a8", t.type = 13, t.dim[0] = 128, t.str[0] = 64, t.box[0] = 128);
  TC("packed_16u4a8_box0_32", t.type = 13, t.dim[0] = 128, t.str[0] = 64, t.box[0] = 32);
  TC("packed_16u4a8_dim0_127", t.type = 13, t.dim[0] = 127, t.str[0] = 64, t.box[0] = 32);
  TC("packed_16u4a8_nan", t.type = 13, t.dim[0] = 128, t.str[0] = 64, t.box[0] = 128, t.fill = 1);
  TC("packed_16u4a16", t.type = 14, t.dim[0] = 128, t.str[0] = 128, t.box[0] = 128);
  TC("packed_16u4a16_box0_64", t.type = 14, t.dim[0] = 128, t.str[0] = 128, t.box[0] = 64);
  TC("packed_16u4a16_dim0_64", t.type = 14, t.dim[0] = 64, t.str[0] = 128, t.box[0] = 128);
  TC("packed_16u4a16_addr_off16", t.type = 14, t.dim[0] = 128, t.str[0] = 128, t.box[0] = 128, t.addr = g + 16);
  TC("packed_16u4a16_stride144", t.type = 14, t.dim[0] = 128, t.str[0] = 144, t.box[0] = 128);
  TC("packed_16u6a16", t.type = 15, t.dim[0] = 128, t.str[0] = 128, t.box[0] = 128);
  TC("packed_16u6a16_sw32", t.type = 15, t.dim[0] = 128, t.str[0] = 128, t.box[0] = 128, t.sw = 1);
  TC("packed_16u6a16_sw128", t.type = 15, t.dim[0] = 128, t.str[0] = 128, t.box[0] = 128, t.sw = 3);
  TC("packed_16u6a16_il16_rank3", t.type = 15, t.dim[0] = 128, t.str[0] = 128, t.box[0] = 128, t.rank = 3, t.il = 1);

  // cuTensorMapReplaceAddress on a valid base map (and on a 32B-interleaved one).
  auto rep = [&](const char* name, void* map, void* a) {
    CUresult r;
    GUARDED(r, replaceAddr((CUtensorMap*)map, a));
    show("replace", name, r);
  };
  alignas(128) static CUtensorMap good;
  Tiled t = tb;
  t.map = &good;
  tiled("replace_setup_base", t);
  rep("addr_off8", &good, g + 8);
  rep("addr_off16", &good, g + 16);
  rep("addr_off32", &good, g + 32);
  rep("addr_null", &good, nullptr);
  rep("map_null", nullptr, g);
  rep("map_off8", (char*)&good + 8, g);
  inter(t, 2);
  tiled("replace_setup_il32", t);
  rep("il32_addr_off16", &good, g + 16);
  rep("il32_addr_off32", &good, g + 32);
}

struct I2c {
  void* map; int type; unsigned rank; void* addr; cuuint64_t dim[8], str[8]; int lo[8], hi[8];
  unsigned cpp, ppc; cuuint32_t es[8]; int il, sw, l2, fill;
};
static CUresult im2col_r(const I2c& t) {
  CUresult r;
  GUARDED(r, encIm2col((CUtensorMap*)t.map, (CUtensorMapDataType)t.type, t.rank, t.addr, t.dim, t.str,
                       t.lo, t.hi, t.cpp, t.ppc, t.es, (CUtensorMapInterleave)t.il,
                       (CUtensorMapSwizzle)t.sw, (CUtensorMapL2promotion)t.l2,
                       (CUtensorMapFloatOOBfill)t.fill));
  return r;
}
static void im2col(const char* name, const I2c& t) { show("encode im2col", name, im2col_r(t)); }
#define IC(name, ...) do { I2c t = ib; __VA_ARGS__; im2col(name, t); } while (0)

// Part 2's base: rank 4 NHWC f32: dims {C16, W8, H8, N2}; rank 5 NDHWC adds D2; rank 3 NWC is
// {C16, W8, N2}. Corners -1 (one pixel of padding), 16 channels, 32 pixels.
static I2c im2col_base(char* g) {
  I2c ib{};
  ib.map = mapbuf, ib.type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32, ib.rank = 4, ib.addr = g;
  cuuint64_t d[5] = {16, 8, 8, 2, 2}, s[4] = {64, 512, 4096, 8192};
  for (int i = 0; i < 8; i++)
    ib.dim[i] = i < 5 ? d[i] : 1, ib.str[i] = i < 4 ? s[i] : 16384, ib.lo[i] = -1, ib.hi[i] = -1, ib.es[i] = 1;
  ib.cpp = 16, ib.ppc = 32;
  return ib;
}

static void part2(char* g) {
  I2c ib = im2col_base(g);
  auto r3 = [](I2c& t) { t.rank = 3, t.dim[1] = 8, t.dim[2] = 2, t.str[1] = 512; };
  IC("base");
  IC("rank2", t.rank = 2);
  IC("rank3", r3(t));
  IC("rank5", t.rank = 5);
  IC("rank6", t.rank = 6);
  IC("map_off8", t.map = (char*)mapbuf + 8);
  IC("addr_off8", t.addr = g + 8);
  IC("r4_lo0_m128", t.lo[0] = -128);
  IC("r4_lo0_m129", t.lo[0] = -129);
  IC("r4_lo1_m128", t.lo[1] = -128);
  IC("r4_lo1_m129", t.lo[1] = -129);
  IC("r4_hi0_127", t.hi[0] = 127);
  IC("r4_hi0_128", t.hi[0] = 128);
  IC("r4_hi1_127", t.hi[1] = 127);
  IC("r4_hi1_128", t.hi[1] = 128);
  IC("r4_lo0_127", t.lo[0] = 127);
  IC("r4_hi0_m128", t.hi[0] = -128);
  IC("r4_zero_area_lo4_hi-4", t.lo[0] = t.lo[1] = 4, t.hi[0] = t.hi[1] = -4);
  IC("r4_one_pixel_lo3_hi-4", t.lo[0] = t.lo[1] = 3, t.hi[0] = t.hi[1] = -4);
  IC("r4_negative_area_lo6_hi-6", t.lo[0] = t.lo[1] = 6, t.hi[0] = t.hi[1] = -6);
  IC("r5_lo_m16", t.rank = 5, t.lo[0] = t.lo[1] = t.lo[2] = -16);
  IC("r5_lo0_m17", t.rank = 5, t.lo[0] = -17);
  IC("r5_lo2_m17", t.rank = 5, t.lo[2] = -17);
  IC("r5_hi_15", t.rank = 5, t.hi[0] = t.hi[1] = t.hi[2] = 15);
  IC("r5_hi0_16", t.rank = 5, t.hi[0] = 16);
  IC("r3_lo_m32768", r3(t), t.lo[0] = -32768);
  IC("r3_lo_m32769", r3(t), t.lo[0] = -32769);
  IC("r3_hi_32767", r3(t), t.hi[0] = 32767);
  IC("r3_hi_32768", r3(t), t.hi[0] = 32768);
  IC("cpp0", t.cpp = 0);
  IC("cpp2_8B", t.cpp = 2);
  IC("cpp3_12B", t.cpp = 3);
  IC("cpp4_16B", t.cpp = 4);
  IC("cpp32_gt_C", t.cpp = 32);
  IC("cpp256", t.cpp = 256, t.dim[0] = 256, t.str[0] = 1024, t.str[1] = 8192, t.str[2] = 65536);
  IC("cpp257", t.cpp = 257, t.dim[0] = 256, t.str[0] = 1024, t.str[1] = 8192, t.str[2] = 65536);
  IC("ppc0", t.ppc = 0);
  IC("ppc1", t.ppc = 1);
  IC("ppc1024", t.ppc = 1024);
  IC("ppc1025", t.ppc = 1025);
  IC("ppc1024_cpp256", t.ppc = 1024, t.cpp = 256, t.dim[0] = 256, t.str[0] = 1024, t.str[1] = 8192, t.str[2] = 65536);
  IC("sw32_cpp8_32B", t.sw = 1, t.cpp = 8);
  IC("sw32_cpp16_64B", t.sw = 1);
  IC("sw64_cpp16_64B", t.sw = 2);
  IC("sw64_cpp32_128B", t.sw = 2, t.cpp = 32, t.dim[0] = 32, t.str[0] = 128, t.str[1] = 1024, t.str[2] = 8192);
  IC("sw128_cpp16_64B", t.sw = 3);
  IC("sw128_cpp64_256B", t.sw = 3, t.cpp = 64, t.dim[0] = 64, t.str[0] = 256, t.str[1] = 2048, t.str[2] = 16384);
  IC("es0_0", t.es[0] = 0);
  IC("es1_0", t.es[1] = 0);
  IC("es1_9", t.es[1] = 9);
  IC("es_1_2_2_1", t.es[1] = t.es[2] = 2);
  IC("es3_n_2", t.es[3] = 2);
  IC("il16", t.il = 1);
  IC("fill_nan_f32", t.fill = 1);
  IC("fill_nan_i32", t.fill = 1, t.type = CU_TENSOR_MAP_DATA_TYPE_INT32);
}

// The largest value of t.box[idx] (1..256) the tiled encoder takes, 0 when none.
static int box_max(Tiled t, int idx) {
  int lo = 0, hi = 257;
  while (hi - lo > 1) { int m = (lo + hi) / 2; t.box[idx] = m; (tiled_r(t) == CUDA_SUCCESS ? lo : hi) = m; }
  return lo;
}
// The largest pixelsPerColumn (1..1024) the im2col encoder takes, 0 when none.
static int ppc_max(I2c t) {
  int lo = 0, hi = 1025;
  while (hi - lo > 1) { int m = (lo + hi) / 2; t.ppc = m; (im2col_r(t) == CUDA_SUCCESS ? lo : hi) = m; }
  return lo;
}
// The largest t.dim[idx] (up to 2^32) the im2col encoder takes, taking dimension 1 as taken.
static unsigned long long dim_max(I2c t, int idx) {
  unsigned long long lo = 1, hi = (1ull << 32) + 1;
  while (hi - lo > 1) { unsigned long long m = (lo + hi) / 2; t.dim[idx] = m; (im2col_r(t) == CUDA_SUCCESS ? lo : hi) = m; }
  return lo;
}
// The smallest t.dim[idx] (up to 2^20) the im2col encoder takes.
static unsigned long long dim_min(I2c t, int idx) {
  unsigned long long lo = 0, hi = 1ull << 20;
  while (hi - lo > 1) { unsigned long long m = (lo + hi) / 2; t.dim[idx] = m; (im2col_r(t) == CUDA_SUCCESS ? hi : lo) = m; }
  return hi;
}

static void part6(char* g) {
  Tiled tb = tiled_base(g);
  auto raw = [&](const char* name, const Tiled& t, bool dim, bool str, bool box, bool es) {
    CUresult r;
    GUARDED(r, encTiled((CUtensorMap*)t.map, (CUtensorMapDataType)t.type, t.rank, t.addr, dim ? t.dim : nullptr,
                        str ? t.str : nullptr, box ? t.box : nullptr, es ? t.es : nullptr,
                        (CUtensorMapInterleave)t.il, (CUtensorMapSwizzle)t.sw, (CUtensorMapL2promotion)t.l2,
                        (CUtensorMapFloatOOBfill)t.fill));
    show("encode tiled", name, r);
  };
  raw("dims_null", tb, false, true, true, true);
  raw("strides_null", tb, true, false, true, true);
  { Tiled t = tb; t.rank = 1; raw("rank1_strides_null", t, true, false, true, true); }
  raw("box_null", tb, true, true, false, true);
  raw("es_null", tb, true, true, true, false);
  TC("dim1_2p32", t.dim[1] = 1ull << 32);
  TC("dim0_2p32", t.dim[0] = 1ull << 32);
  // Interleave: the inner box row, the swizzle spans.
  TC("il16_box0_1_4B", inter(t, 1), t.box[0] = 1);
  TC("il16_box0_2_8B", inter(t, 1), t.box[0] = 2);
  TC("il16_box0_3_12B", inter(t, 1), t.box[0] = 3);
  TC("il16_box0_8_32B", inter(t, 1), t.box[0] = 8);
  TC("il16_box0_64_256B", inter(t, 1), t.box[0] = 64);
  TC("il16_u8_box0_1", inter(t, 1), t.type = 0, t.box[0] = 1);
  TC("il16_dim0_5", inter(t, 1), t.dim[0] = 5);
  TC("il16_dim0_1", inter(t, 1), t.dim[0] = 1);
  TC("il16_sw32_box0_4_16B", inter(t, 1), t.sw = 1);
  TC("il16_sw32_box0_16_64B", inter(t, 1), t.box[0] = 16, t.sw = 1);
  TC("il16_sw64_box0_32_128B", inter(t, 1), t.box[0] = 32, t.sw = 2);
  TC("il16_sw128_box0_64_256B", inter(t, 1), t.box[0] = 64, t.sw = 3);
  TC("il32_sw32_box0_16_64B", inter(t, 2), t.box[0] = 16);
  TC("il32_sw0_box0_16_64B", inter(t, 2), t.box[0] = 16, t.sw = 0);
  TC("il32_sw0_box0_4_16B", inter(t, 2), t.box[0] = 4, t.sw = 0);
  TC("il32_sw0_box0_3_12B", inter(t, 2), t.box[0] = 3, t.sw = 0);
  TC("il32_sw128_box0_64_256B", inter(t, 2), t.box[0] = 64, t.sw = 3);
  TC("il16_rank5", inter(t, 1), t.rank = 5);
  TC("il16_stride16_r3", inter(t, 1), t.str[1] = 16);
  TC("il16_sw4", inter(t, 1), t.sw = 4);
  TC("sw32_f64_box0_4_32B", t.type = 8, t.box[0] = 4, t.sw = 1);
  TC("sw128_u8_box0_128", t.type = 0, t.box[0] = 128, t.sw = 3);
  TC("sw128_u8_box0_144", t.type = 0, t.box[0] = 144, t.sw = 3);
  TC("es0_8_box0_4", t.box[0] = 4, t.es[0] = 8);
  TC("es1_8_box1_2", t.es[1] = 8, t.box[1] = 2);
  TC("stride_unused_100", t.str[1] = 100);
  TC("stride1_2p40_r3", t.rank = 3, t.str[1] = 1ull << 40);
  // The largest box: one side bisected, the others fixed (256 f32 rows of 1 KiB unless named).
  Tiled bb = tb;
  bb.dim[0] = 256, bb.str[0] = 1024, bb.str[1] = 1 << 20, bb.str[2] = 1 << 24, bb.str[3] = 1 << 28;
  auto bis = [&](const char* name, int idx, auto set) {
    Tiled t = bb;
    set(t);
    printf("bisect tiled box %s: box[%d] <= %d\n", name, idx, box_max(t, idx));
  };
  bis("f32_256xk", 1, [](Tiled& t) { t.box[0] = 256; });
  bis("f64_64xk", 1, [](Tiled& t) { t.box[0] = 64, t.type = 8; });
  bis("u8_256x256xk", 2, [](Tiled& t) { t.rank = 3, t.type = 0, t.box[0] = t.box[1] = 256; });
  bis("f32_64x16xk", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 64, t.box[1] = 16; });
  bis("f32_4x4x4x4xk", 4, [](Tiled& t) { t.rank = 5, t.box[0] = t.box[1] = t.box[2] = t.box[3] = 4; });
  bis("f32_16x256xk_sw128", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 16, t.box[1] = 256, t.sw = 3; });
  bis("f32_4x256xk_sw128", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 4, t.box[1] = 256, t.sw = 3; });
  bis("f32_4x256xk_il16", 2, [](Tiled& t) { inter(t, 1), t.dim[0] = 256, t.str[0] = 1024, t.str[1] = 1 << 20, t.box[0] = 4, t.box[1] = 256; });
  bis("f32_8x256xk_il32_sw32", 2, [](Tiled& t) { inter(t, 2), t.dim[0] = 256, t.str[0] = 1024, t.str[1] = 1 << 20, t.box[0] = 8, t.box[1] = 256; });
  // ... with traversal strides.
  bis("f32_256xk_es1_2", 1, [](Tiled& t) { t.box[0] = 256, t.es[1] = 2; });
  bis("f32_256xk_es0_8", 1, [](Tiled& t) { t.box[0] = 256, t.es[0] = 8; });
  bis("f32_4x256xk_es0_2", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 4, t.box[1] = 256, t.es[0] = 2; });
  bis("f32_4x256xk_es0_3", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 4, t.box[1] = 256, t.es[0] = 3; });
  bis("f32_8x256xk_es0_3", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 8, t.box[1] = 256, t.es[0] = 3; });
  bis("f32_12x256xk_es0_5", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 12, t.box[1] = 256, t.es[0] = 5; });
  bis("f32_4x256xk_es0_8", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 4, t.box[1] = 256, t.es[0] = 8; });
  bis("f32_256x3xk_es1_2", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 256, t.box[1] = 3, t.es[1] = 2; });
  bis("f32_256x5xk_es1_4", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 256, t.box[1] = 5, t.es[1] = 4; });
  bis("f32_256x7xk_es1_8", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 256, t.box[1] = 7, t.es[1] = 8; });
  bis("f32_256x5xk_es2_2", 2, [](Tiled& t) { t.rank = 3, t.box[0] = 256, t.box[1] = 5, t.es[2] = 2; });

  // cuTensorMapReplaceAddress on 128 bytes that no encoder wrote, and addresses of no allocation.
  {
    alignas(128) static unsigned char zero[256], ones[256];
    memset(ones, 0xff, sizeof ones);
    auto rep = [&](const char* name, void* map, void* a) {
      CUresult r;
      GUARDED(r, replaceAddr((CUtensorMap*)map, a));
      show("replace", name, r);
    };
    rep("zero_map", zero, g + 16);
    unsigned long long first;
    memcpy(&first, zero, 8);
    printf("replace zero_map: first 8 bytes hold the address: %s\n", first == (unsigned long long)(g + 16) ? "yes" : "no");
    rep("ones_map", ones, g + 16);
    rep("ones_map_addr_off8", ones, g + 8);
    rep("addr_16", zero, (void*)16);
    rep("addr_unmapped", zero, (void*)0x7f0000001230ull);
  }

  I2c ib = im2col_base(g);
  IC("map_null", t.map = nullptr);
  IC("addr_null", t.addr = nullptr);
  IC("dim0_0", t.dim[0] = 0);
  IC("dim1_2p32", t.dim[1] = 1ull << 32);
  IC("dim0_2p32", t.dim[0] = 1ull << 32);
  IC("dim3_2p32", t.dim[3] = 1ull << 32);
  IC("dim1_2p31", t.dim[1] = 1ull << 31);
  IC("dim1_2p31p1", t.dim[1] = (1ull << 31) + 1);
  IC("stride100", t.str[0] = 100);
  IC("stride0", t.str[0] = 0);
  IC("stride2_2p40", t.str[2] = 1ull << 40);
  IC("sw4", t.sw = 4, t.cpp = 32, t.dim[0] = 32);
  IC("sw5", t.sw = 5, t.cpp = 32, t.dim[0] = 32);
  IC("sw6", t.sw = 6, t.cpp = 32, t.dim[0] = 32);
  IC("sw7", t.sw = 7);
  IC("interleave3", t.il = 3);
  IC("l2promo4", t.l2 = 4);
  IC("oobfill2", t.fill = 2);
  IC("dtype16", t.type = 16);
  IC("packed_16u4a8", t.type = 13, t.cpp = 128, t.dim[0] = 128);
  IC("packed_16u4a16", t.type = 14, t.cpp = 128, t.dim[0] = 128);
  IC("il32_sw0_cpp8", t.il = 2, t.cpp = 8);
  IC("il32_sw32_cpp8", t.il = 2, t.sw = 1, t.cpp = 8);
  IC("il32_addr_off16", t.il = 2, t.sw = 1, t.cpp = 8, t.addr = g + 16);
  IC("il32_stride48", t.il = 2, t.sw = 1, t.cpp = 8, t.str[0] = 48);
  IC("il16_cpp2_8B", t.il = 1, t.cpp = 2);
  IC("il16_cpp3_12B", t.il = 1, t.cpp = 3);
  IC("il16_sw32_cpp16_64B", t.il = 1, t.sw = 1);
  IC("il16_rank3", t.il = 1, t.rank = 3, t.dim[1] = 8, t.dim[2] = 2, t.str[1] = 512);
  IC("es0_8", t.es[0] = 8);
  IC("es1_8", t.es[1] = 8);
  IC("cpp1_u8_1B", t.type = 0, t.cpp = 1);
  IC("cpp16_u8_16B", t.type = 0, t.cpp = 16);
  IC("cpp8_f16_16B", t.type = 6, t.cpp = 8);
  IC("cpp2_f64_16B", t.type = 8, t.cpp = 2);
  IC("fill_nan_f16", t.type = 6, t.fill = 1);
  IC("unused_corner2_m200_200", t.lo[2] = -200, t.hi[2] = 200);
  IC("area1_es2", t.lo[0] = 3, t.hi[0] = -4, t.es[1] = 2);
  IC("area0_h", t.lo[1] = 4, t.hi[1] = -4);
  IC("area1_w1_lo0_hi0", t.dim[1] = 1, t.lo[0] = 0, t.hi[0] = 0);
  IC("area0_w1_lo0_hi-1", t.dim[1] = 1, t.lo[0] = 0, t.hi[0] = -1);
  IC("r5_area0_d", t.rank = 5, t.lo[2] = 1, t.hi[2] = -1);
  IC("r5_area1_d", t.rank = 5, t.lo[2] = 0, t.hi[2] = -1);
  IC("r3_area0", t.rank = 3, t.dim[1] = 8, t.dim[2] = 2, t.str[1] = 512, t.lo[0] = 4, t.hi[0] = -4);
  IC("cpp256_ppc229_es0_2", t.cpp = 256, t.dim[0] = 256, t.str[0] = 2048, t.str[1] = 16384, t.str[2] = 131072, t.ppc = 229, t.es[0] = 2);
  // The largest pixelsPerColumn per type and channels.
  struct { const char* name; int type, cpp, sw, il; } pc[] = {
      {"f32_cpp256", 7, 256, 0, 0}, {"f32_cpp128", 7, 128, 0, 0}, {"f32_cpp64", 7, 64, 0, 0},
      {"f32_cpp32", 7, 32, 0, 0},   {"f16_cpp256", 6, 256, 0, 0}, {"f16_cpp128", 6, 128, 0, 0},
      {"u8_cpp256", 0, 256, 0, 0},  {"f64_cpp256", 8, 256, 0, 0}, {"f64_cpp128", 8, 128, 0, 0},
      {"f32_cpp32_sw128", 7, 32, 3, 0}, {"f32_cpp4_il16", 7, 4, 0, 1}};
  for (auto& c : pc) {
    I2c t = ib;
    t.type = c.type, t.cpp = c.cpp, t.sw = c.sw, t.il = c.il;
    t.dim[0] = 256, t.str[0] = 2048, t.str[1] = 16384, t.str[2] = 131072;
    printf("bisect im2col ppc %s: ppc <= %d\n", c.name, ppc_max(t));
  }
  // The largest and smallest spatial dimension for pairs of corners.
  auto dmax = [&](const char* name, I2c t, int idx) {
    unsigned long long d = dim_max(t, idx);
    printf("bisect im2col dim %s: dim[%d] <= %llu (2^31%+lld)\n", name, idx, d, (long long)d - (1ll << 31));
  };
  auto corners = [&](int lo, int hi) { I2c t = ib; t.lo[0] = lo, t.hi[0] = hi; return t; };
  dmax("c", ib, 0);
  dmax("w", ib, 1);
  dmax("h", ib, 2);
  dmax("n", ib, 3);
  dmax("w_lo0_hi0", corners(0, 0), 1);
  dmax("w_lo-128_hi127", corners(-128, 127), 1);
  dmax("w_lo-128_hi-1", corners(-128, -1), 1);
  dmax("w_lo0_hi-1", corners(0, -1), 1);
  dmax("w_lo5_hi0", corners(5, 0), 1);
  dmax("w_lo-1_hi5", corners(-1, 5), 1);
  dmax("w_lo-1_hi-128", corners(-1, -128), 1);
  dmax("w_lo100_hi-100", corners(100, -100), 1);
  dmax("w_lo127_hi127", corners(127, 127), 1);
  { I2c t = ib; t.rank = 5, t.lo[2] = 3, t.hi[2] = 7; dmax("r5_d_lo3_hi7", t, 3); }
  { I2c t = ib; t.rank = 5; dmax("r5_n", t, 4); }
  { I2c t = ib; t.rank = 3, t.dim[2] = 2, t.str[1] = 512, t.lo[0] = -32768, t.hi[0] = 32767; dmax("r3_w_lo-32768_hi32767", t, 1); }
  { I2c t = ib; t.rank = 3, t.dim[2] = 2, t.str[1] = 512, t.lo[0] = 32767, t.hi[0] = -32768; dmax("r3_w_lo32767_hi-32768", t, 1); }
  { I2c t = ib; t.rank = 3, t.dim[2] = 2, t.str[1] = 512; dmax("r3_n", t, 2); }
  auto dmin = [&](const char* name, I2c t) { printf("bisect im2col dim %s: dim[1] >= %llu\n", name, dim_min(t, 1)); };
  dmin("w_lo100_hi-100", corners(100, -100));
  dmin("w_lo100_hi50", corners(100, 50));
  dmin("w_lo-100_hi-120", corners(-100, -120));
  { I2c t = corners(100, -100); t.es[1] = 4; dmin("w_lo100_hi-100_es1_4", t); }
}

// One load through tma_load; returns false when nothing could be read back.
static unsigned char* dout;
static unsigned long long* dst;
static bool load(const char* what, const CUtensorMap& map, int mode, int k0, int k1, int k2, int k3,
                 int ow, int oh, unsigned tx, std::vector<unsigned char>& got, unsigned long long st[2]) {
  tma_load<<<1, 128>>>(map, mode, k0, k1, k2, k3, (unsigned short)ow, (unsigned short)oh, tx, dout, dst);
  if (!after_launch(what)) return false;
  got.resize(4096);
  CK(cudaMemcpy(got.data(), dout, 4096, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(st, dst, 16, cudaMemcpyDeviceToHost));
  return true;
}

static uint64_t value_bits(int ty, int v) {  // the bits of v in type ty
  if (ty == 6) { __half h = __float2half((float)v); uint16_t b; memcpy(&b, &h, 2); return b; }
  if (ty == 9) { __nv_bfloat16 h = __float2bfloat16((float)v); uint16_t b; memcpy(&b, &h, 2); return b; }
  if (ty == 7 || ty == 10 || ty == 11 || ty == 12) { float f = (float)v; uint32_t b; memcpy(&b, &f, 4); return b; }
  if (ty == 8) { double f = v; uint64_t b; memcpy(&b, &f, 8); return b; }
  return (uint64_t)v;
}

// A 16-wide, 8-high tensor of type ty (element = index+1) read as a 16x16 box at (x, y).
static int oob_rows = 16;  // the tensor's height (the box is 16x16)
static void oob(int ty, int fill, int x, int y) {
  int es = tsize[ty];
  char* dev;
  CK(cudaMalloc(&dev, 16 * oob_rows * es));
  std::vector<unsigned char> h(16 * oob_rows * es);
  for (int i = 0; i < 16 * oob_rows; i++) { uint64_t b = value_bits(ty, i + 1); memcpy(&h[i * es], &b, es); }
  CK(cudaMemcpy(dev, h.data(), h.size(), cudaMemcpyHostToDevice));
  alignas(128) CUtensorMap map;
  cuuint64_t dim[2] = {16, (cuuint64_t)oob_rows}, str[1] = {(cuuint64_t)16 * es};
  cuuint32_t box[2] = {16, 16}, e[2] = {1, 1};
  char what[96];
  snprintf(what, sizeof what, "oob %s %s rows=%d at=(%d,%d)", tname[ty], fill ? "nan" : "none", oob_rows, x, y);
  CUresult r = encTiled(&map, (CUtensorMapDataType)ty, 2, dev, dim, str, box, e, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, (CUtensorMapFloatOOBfill)fill);
  if (r != CUDA_SUCCESS) printf("%s: encode %d %s\n", what, (int)r, ename(r));
  std::vector<unsigned char> got;
  unsigned long long st[2];
  if (r == CUDA_SUCCESS && load(what, map, 0, x, y, 0, 0, 0, 0, 256 * es, got, st)) {
    int ok = 0, nin = 0, noob = 0;
    uint64_t first = ~0ull;
    std::map<uint64_t, int> fills;
    for (int rr = 0; rr < 16; rr++)
      for (int c = 0; c < 16; c++) {
        uint64_t b = 0;
        memcpy(&b, &got[(rr * 16 + c) * es], es);
        int gr = y + rr, gc = x + c;
        if (gr >= 0 && gr < oob_rows && gc >= 0 && gc < 16) {
          nin++;
          ok += b == value_bits(ty, gr * 16 + gc + 1);
          if (first == ~0ull) first = b;
        } else {
          noob++, fills[b]++;
        }
      }
    printf("%s: done=%llu inbound_ok=%d/%d first=0x%llx oob=%d", what, st[0], ok, nin,
           (unsigned long long)first, noob);
    if (!st[0]) printf(" TIMEOUT mbar=0x%llx", st[1]);
    printf("\n");
    for (auto& f : fills) printf("%s: oob bits=0x%llx count=%d\n", what, (unsigned long long)f.first, f.second);
  }
  cudaFree(dev);
}

static void part3() {
  const int floats[] = {7, 6, 9, 8, 11};  // f32 f16 bf16 f64 tf32
  for (int ty : floats)
    for (int f = 0; f < 2; f++) oob(ty, f, -2, -2);
  oob(0, 0, -2, -2);   // u8
  oob(3, 0, -2, -2);   // i32
  oob(1, 0, -2, -2);   // u16
  oob(7, 1, 32, 0);    // entirely outside
  oob(7, 0, 32, 0);
  oob(6, 1, -20, -20);
  oob(0, 0, 0, 100);
  oob_rows = 8;  // last: a box taller than the tensor
  oob(7, 1, -2, -2);
}

static void part5() {
  float* dev;
  std::vector<float> h(64 * 64);
  for (int i = 0; i < 64 * 64; i++) h[i] = (float)(i + 1);
  CK(cudaMalloc(&dev, h.size() * 4));
  CK(cudaMemcpy(dev, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  alignas(128) CUtensorMap map;
  cuuint64_t dim[2] = {64, 64}, str[1] = {256};
  cuuint32_t box[2] = {16, 16}, e[2] = {1, 1};
  CUresult r = encTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dev, dim, str, box, e, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  printf("multicast encode: %d %s\n", (int)r, ename(r));
  float* out;
  CK(cudaMalloc(&out, 512 * 4));
  const int x = 8, y = 4;
  for (unsigned short mask : {3, 2}) {
    char what[64];
    snprintf(what, sizeof what, "multicast mask=0x%x", mask);
    CK(cudaMemset(out, 0, 512 * 4));
    mcast<<<2, 64>>>(map, x, y, mask, out, dst);
    if (!after_launch(what)) continue;
    std::vector<float> got(512);
    unsigned long long st[4];
    CK(cudaMemcpy(got.data(), out, 512 * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(st, dst, 32, cudaMemcpyDeviceToHost));
    for (int c = 0; c < 2; c++) {
      int match = 0, unwritten = 0;
      for (int i = 0; i < 256; i++) {
        match += got[c * 256 + i] == (float)((y + i / 16) * 64 + x + i % 16 + 1);
        uint32_t bits;
        memcpy(&bits, &got[c * 256 + i], 4);
        unwritten += bits == 0xABABABABu;
      }
      printf("%s cta=%d: done=%llu match=%d/256 unwritten=%d mbar=0x%llx first=%g %g %g %g\n", what, c,
             st[c * 2], match, unwritten, st[c * 2 + 1], got[c * 256], got[c * 256 + 1], got[c * 256 + 2],
             got[c * 256 + 3]);
    }
  }
  cudaFree(out);
  cudaFree(dev);
}

// im2col over N2 H6 W6 C8 f32, element = linear index + 1; dims {C, W, H, N}.
struct Cfg { const char* name; int lo0, lo1, hi0, hi1, es1, es2, cpp, ppc; };
struct Ld { int c, w, h, n, ow, oh; };
static void im2col_loads(float* dev, const Cfg& cf, std::vector<Ld> lds) {
  alignas(128) CUtensorMap map;
  cuuint64_t dim[4] = {8, 6, 6, 2}, str[3] = {32, 192, 1152};
  int lo[2] = {cf.lo0, cf.lo1}, hi[2] = {cf.hi0, cf.hi1};
  cuuint32_t es[4] = {1, (cuuint32_t)cf.es1, (cuuint32_t)cf.es2, 1};
  CUresult r = encIm2col(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, dev, dim, str, lo, hi, cf.cpp, cf.ppc, es,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                         CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  printf("im2col %s encode lo=(%d,%d) hi=(%d,%d) es=(1,%d,%d,1) cpp=%d ppc=%d: %d %s\n", cf.name, cf.lo0,
         cf.lo1, cf.hi0, cf.hi1, cf.es1, cf.es2, cf.cpp, cf.ppc, (int)r, ename(r));
  if (r != CUDA_SUCCESS) return;
  for (const Ld& l : lds) {
    unsigned tx = cf.ppc * cf.cpp * 4;  // pixels per column x channels per pixel x element size
    char what[128];
    snprintf(what, sizeof what, "im2col %s coord=(%d,%d,%d,%d) off=(%d,%d)", cf.name, l.c, l.w, l.h, l.n, l.ow, l.oh);
    std::vector<unsigned char> got;
    unsigned long long st[2];
    if (!load(what, map, 1, l.c, l.w, l.h, l.n, l.ow, l.oh, tx, got, st)) continue;
    printf("%s tx=%u: done=%llu", what, tx, st[0]);
    if (!st[0]) printf(" TIMEOUT mbar=0x%llx", st[1]);
    printf("\n%s vals:", what);
    int n = cf.ppc * cf.cpp;
    for (int i = 0; i < n; i++) {
      float v;
      memcpy(&v, &got[i * 4], 4);
      if (got[i * 4] == 0xAB && got[i * 4 + 3] == 0xAB) printf(" u");
      else if (v != v) printf(" nan");
      else printf(" %g", v - 1);
    }
    int after = 0;  // bytes written past the expected box
    for (int i = n * 4; i < 4096; i++) after += got[i] != 0xAB;
    printf("\n%s pixels:", what);
    for (int p = 0; p < (int)cf.ppc; p++) {
      float v;
      memcpy(&v, &got[p * cf.cpp * 4], 4);
      int idx = v == v ? (int)v - 1 : -2;
      if (got[p * cf.cpp * 4] == 0xAB && got[p * cf.cpp * 4 + 3] == 0xAB) printf(" u");
      else if (v == 0) printf(" oob");
      else if (idx < 0) printf(" nan");
      else printf(" %d.%d.%d.%d", idx / 288, idx / 48 % 6, idx / 8 % 6, idx % 8);
    }
    printf("\n%s written_past_box=%d\n", what, after);
  }
}

static void part4() {
  std::vector<float> h(2 * 6 * 6 * 8);
  for (size_t i = 0; i < h.size(); i++) h[i] = (float)(i + 1);
  float* dev;
  CK(cudaMalloc(&dev, h.size() * 4));
  CK(cudaMemcpy(dev, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  // name, lower corner {[0],[1]}, upper corner {[0],[1]}, elementStrides W/H, cpp, ppc
  Cfg A{"pad1", -1, -1, -1, -1, 1, 1, 8, 16}, B{"pad1_ppc32", -1, -1, -1, -1, 1, 1, 8, 32},
      C{"lo0_hi-2", 0, 0, -2, -2, 1, 1, 8, 16}, D{"pad1_es2", -1, -1, -1, -1, 2, 2, 8, 16},
      E{"pad1_cpp4", -1, -1, -1, -1, 1, 1, 4, 16}, F{"asym_lo-2,0_hi0,0", -2, 0, 0, 0, 1, 1, 8, 16};
  im2col_loads(dev, A, {{0, -1, -1, 0, 0, 0}, {0, -1, -1, 0, 1, 1}, {0, -1, -1, 0, 2, 0}, {0, -1, -1, 0, 0, 2},
                        {0, 0, 0, 0, 0, 0}, {0, 2, 4, 0, 0, 0}, {0, 3, 4, 1, 1, 1}, {4, -1, -1, 0, 1, 1}});
  im2col_loads(dev, B, {{0, -1, -1, 0, 1, 1}, {0, 2, 4, 0, 0, 0}, {0, 0, 3, 1, 2, 2}});
  im2col_loads(dev, C, {{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 2, 2}, {0, 2, 3, 0, 1, 1}});
  im2col_loads(dev, D, {{0, -1, -1, 0, 0, 0}, {0, -1, -1, 0, 1, 1}, {0, 1, 1, 0, 1, 1}});
  im2col_loads(dev, E, {{0, -1, -1, 0, 1, 1}, {4, -1, -1, 0, 1, 1}});
  im2col_loads(dev, F, {{0, 0, 0, 0, 0, 0}});
  // Riskiest last: a whole column past the last image, a base outside the bounding box, a large offset.
  Cfg R = A;
  R.name = "pad1_risky";
  im2col_loads(dev, R, {{0, -1, -1, 2, 0, 0}, {0, 5, 5, 1, 0, 0}, {0, -1, -1, 0, 200, 0}});
  cudaFree(dev);
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);  // every line out even if the driver kills the process
  struct sigaction sa = {};
  sa.sa_handler = on_fault;
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
  cudaDriverEntryPointQueryResult q;
  CK(cudaFree(0));
  CK(cudaGetDriverEntryPointByVersion("cuGetErrorName", (void**)&getName, 6000, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void**)&encTiled, 12000, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", (void**)&encIm2col, 12000, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapReplaceAddress", (void**)&replaceAddr, 12000, cudaEnableDefault, &q));
  if (!getName || !encTiled || !encIm2col || !replaceAddr) {
    printf("fatal: driver entry point missing\n");
    return 2;
  }
  int dev, drv, rt;
  cudaDeviceProp p;
  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&p, dev));
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  printf("device %s sm_%d%d driver %d runtime %d\n", p.name, p.major, p.minor, drv, rt);
  char* g;
  CK(cudaMalloc(&g, 1 << 20));
  CK(cudaMalloc(&dout, 4096));
  CK(cudaMalloc(&dst, 64));
  // Parts to run, in order (argv[1], default all): a crash or sticky error in one part then
  // leaves the others to a separate run.
  const char* parts = argc > 1 ? argv[1] : "126354";
  for (const char* c = parts; *c; c++) {
    if (*c == '1') part1(g);
    if (*c == '2') part2(g);
    if (*c == '3') part3();
    if (*c == '4') part4();
    if (*c == '5') part5();
    if (*c == '6') part6(g);
  }
  printf("end\n");
  return 0;
}
