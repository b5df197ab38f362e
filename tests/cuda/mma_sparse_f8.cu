// Sparse mma with f8 elements (ISA 9.7.14.6: mma.sp{::ordered_metadata}.sync.aligned.m16n8k64
// .row.col.f32.f8type.f8type.f32, f8type .e4m3/.e5m2, sm_89+): A's non-zero half packed as a
// dense m16n8k32 8-bit A, the 2-bit indices of each chunk of four in the metadata register of
// every thread of a group of four (selector 0; rows 8-15 in the odd threads, figure 129).
// Inputs from a fixed generator, so every run (GPU or shim) sees the same: per trial random
// metadata, random f8 bytes for A and B (uniform bytes, NaN and infinity included; or a narrow
// exponent range, for cancellation; or finite bytes only) and a random f32 C. Prints D (16 x 8,
// row-major, hex) per trial: `spf8 TYPE trial T: ...`. Recorded on a GPU, replayed on the shim
// (tests/tensor_cores.rs).
#include <cstdio>
#include <cstring>

__device__ void pack(const unsigned char* m, int rows_k, int lane, unsigned* reg, int n, bool is_a) {
  int g = lane / 4, t = lane % 4;
  for (int r = 0; r < n; r++) {
    unsigned v = 0;
    for (int j = 0; j < 4; j++) {
      // A (16 x 32 packed, row-major): register r holds row (r%2)*8+g, columns (r/2)*16+t*4+j.
      // B (64 x 8, column-major): register r holds rows r*16+t*4+j of column g.
      int idx = is_a ? ((r % 2) * 8 + g) * 32 + (r / 2) * 16 + t * 4 + j : g * rows_k + r * 16 + t * 4 + j;
      v |= (unsigned)m[idx] << (8 * j);
    }
    reg[r] = v;
  }
}

#define SP(INS)                                                                                    \
  asm volatile(INS " {%0,%1,%2,%3}, {%5,%6,%7,%8}, {%9,%10,%11,%12}, {%13,%14,%15,%16}, %4, 0;"      \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                     \
               : "r"(e), "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), \
                 "r"(b[3]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))

static const char* names[8] = {"e4m3.e4m3", "e4m3.e5m2", "e5m2.e4m3", "e5m2.e5m2",
                               "e4m3.e4m3 ordered", "e4m3.e5m2 ordered", "e5m2.e4m3 ordered",
                               "e5m2.e5m2 ordered"};

__global__ void sparse(int cfg, const unsigned char* pa, const unsigned char* pb, const unsigned* meta,
                       const unsigned* pc, unsigned* out) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned a[4], b[4], c[4], d[4] = {}, e = meta[lane];
  pack(pa, 64, lane, a, 4, true);
  pack(pb, 64, lane, b, 4, false);
  for (int i = 0; i < 4; i++) c[i] = pc[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
  switch (cfg) {
    case 0: SP("mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32"); break;
    case 1: SP("mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32"); break;
    case 2: SP("mma.sp.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32"); break;
    case 3: SP("mma.sp.sync.aligned.m16n8k64.row.col.f32.e5m2.e5m2.f32"); break;
    case 4: SP("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32"); break;
    case 5: SP("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32"); break;
    case 6: SP("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32"); break;
    default: SP("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e5m2.f32"); break;
  }
  for (int i = 0; i < 4; i++) out[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
}

static unsigned rng = 2026;
static unsigned next() { return rng = rng * 1664525u + 1013904223u, rng >> 8; }
static const unsigned meaningful[6] = {0x4, 0x8, 0x9, 0xC, 0xD, 0xE};

// A random f8 byte of the given kind (e4m3: 4 exponent bits; e5m2: 5) for trial style `s`:
// 0 any byte; 1 exponent within two binades of the middle (cancellation); 2 finite only.
static unsigned char f8(bool e5, int s) {
  unsigned v = next() & 0xff;
  if (s == 1) {
    unsigned sign = v & 0x80, mant = next() & (e5 ? 3 : 7), mid = e5 ? 15 : 7;
    unsigned ex = mid - 1 + next() % 3;
    return sign | ex << (e5 ? 2 : 3) | mant;
  }
  if (s == 2) {
    while (e5 ? (v & 0x7c) == 0x7c : (v & 0x7f) == 0x7f) v = next() & 0xff;
  }
  return v;
}

int main() {
  unsigned char *pa, *pb;
  unsigned *meta, *pc, *out;
  cudaMallocManaged(&pa, 16 * 32);
  cudaMallocManaged(&pb, 64 * 8);
  cudaMallocManaged(&meta, 32 * 4);
  cudaMallocManaged(&pc, 128 * 4);
  cudaMallocManaged(&out, 128 * 4);
  for (int cfg = 0; cfg < 8; cfg++) {
    bool ae5 = (cfg % 4) >= 2, be5 = cfg % 2;
    for (int trial = 0; trial < 9; trial++) {
      int s = trial % 3;
      for (int l = 0; l < 32; l++) {
        unsigned m = 0;
        for (int j = 0; j < 8; j++) m |= meaningful[next() % 6] << (4 * j);
        meta[l] = m;
      }
      for (int i = 0; i < 16 * 32; i++) pa[i] = f8(ae5, s);
      for (int i = 0; i < 64 * 8; i++) pb[i] = f8(be5, s);
      for (int i = 0; i < 128; i++) {
        float v = trial < 3 ? 0.0f : ((int)(next() % 20001) - 10000) / 100.0f * (float)(1 << (next() % 8));
        memcpy(&pc[i], &v, 4);
      }
      sparse<<<1, 32>>>(cfg, pa, pb, meta, pc, out);
      cudaError_t err = cudaGetLastError();
      if (err == cudaSuccess) err = cudaDeviceSynchronize();
      if (err != cudaSuccess) {
        printf("spf8 %s trial %d: %s\n", names[cfg], trial, cudaGetErrorName(err));
        return 1;
      }
      printf("spf8 %s trial %d:", names[cfg], trial);
      for (int i = 0; i < 128; i++) printf(" %08x", out[i]);
      printf("\n");
    }
  }
  return 0;
}
