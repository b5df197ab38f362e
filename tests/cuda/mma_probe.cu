// What a GPU's tensor cores answer where the ISA leaves it open, for the shim's matrix
// instructions (engine/src/sem/fragment.rs, sem/mma.rs):
// 1. wmma fragment layouts ("unspecified and target architecture dependent", ISA 9.7.14.4.1):
//    each matrix is loaded with element (r, c) = its index r * cols + c, and every lane prints
//    its fragment's elements: "frag NAME lane L: v0 v1 ...".
// 2. mma.sync m16n8k16 f32.f16.f16.f32 on edge inputs (the truncated sum, NaN bits, -0,
//    overflow, subnormals): "dot CASE: d0" as hex, one A row times one B column plus C.
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

template <typename Frag, typename T>
__device__ void show(const char* name, Frag& f, T* out) {
  for (int i = 0; i < f.num_elements; i++) out[threadIdx.x * f.num_elements + i] = f.x[i];
}

__global__ void layouts(float* o16a, float* o16b, float* o16c, float* o32a, float* o8a, int* os8) {
  __shared__ __half h[32 * 16];
  __shared__ float f[32 * 16];
  __shared__ signed char s[32 * 16];
  for (int i = threadIdx.x; i < 512; i += 32) h[i] = __int2half_rn(i), f[i] = i, s[i] = i & 127;
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::load_matrix_sync(a, h, 16);
  wmma::load_matrix_sync(b, h, 16);
  wmma::load_matrix_sync(c, f, 16, wmma::mem_row_major);
  for (int i = 0; i < a.num_elements; i++) o16a[threadIdx.x * 16 + i] = __half2float(a.x[i]);
  for (int i = 0; i < b.num_elements; i++) o16b[threadIdx.x * 16 + i] = __half2float(b.x[i]);
  for (int i = 0; i < c.num_elements; i++) o16c[threadIdx.x * 8 + i] = c.x[i];
  wmma::fragment<wmma::matrix_a, 32, 8, 16, __half, wmma::row_major> a32;
  wmma::load_matrix_sync(a32, h, 16);
  for (int i = 0; i < a32.num_elements; i++) o32a[threadIdx.x * 16 + i] = __half2float(a32.x[i]);
  wmma::fragment<wmma::matrix_a, 8, 32, 16, __half, wmma::row_major> a8;
  wmma::load_matrix_sync(a8, h, 16);
  for (int i = 0; i < a8.num_elements; i++) o8a[threadIdx.x * 16 + i] = __half2float(a8.x[i]);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> sa;
  wmma::load_matrix_sync(sa, s, 16);
  for (int i = 0; i < sa.num_elements; i++) os8[threadIdx.x * 8 + i] = sa.x[i];
}

// One dot product of 16 f16 pairs plus an f32 C through mma.sync (row 0 of A, column 0 of B).
__global__ void dot(const unsigned short* a, const unsigned short* b, float c, float* d) {
  int l = threadIdx.x, g = l / 4, t = l % 4;
  unsigned ra[4] = {0, 0, 0, 0}, rb[2] = {0, 0};
  if (g == 0) {
    ra[0] = a[2 * t] | (unsigned)a[2 * t + 1] << 16;
    ra[2] = a[2 * t + 8] | (unsigned)a[2 * t + 9] << 16;
    rb[0] = b[2 * t] | (unsigned)b[2 * t + 1] << 16;
    rb[1] = b[2 * t + 8] | (unsigned)b[2 * t + 9] << 16;
  }
  float cc[4] = {l == 0 ? c : 0.f, 0, 0, 0}, dd[4];
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%10,%11,%12,%13};"
      : "=f"(dd[0]), "=f"(dd[1]), "=f"(dd[2]), "=f"(dd[3])
      : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(cc[0]),
        "f"(cc[1]), "f"(cc[2]), "f"(cc[3]));
  if (l == 0) *d = dd[0];
}

static void print(const char* name, const float* v, int per) {
  for (int l = 0; l < 32; l++) {
    printf("frag %s lane %d:", name, l);
    for (int i = 0; i < per; i++) printf(" %g", v[l * per + i]);
    printf("\n");
  }
}

int main() {
  float *o;
  int* os8;
  cudaMallocManaged(&o, 5 * 32 * 16 * sizeof(float));
  cudaMallocManaged(&os8, 32 * 8 * sizeof(int));
  layouts<<<1, 32>>>(o, o + 512, o + 1024, o + 1536, o + 2048, os8);
  cudaDeviceSynchronize();
  print("a m16n16k16 f16 row", o, 16);
  print("b m16n16k16 f16 col", o + 512, 16);
  print("c m16n16k16 f32 row", o + 1024, 8);
  print("a m32n8k16 f16 row", o + 1536, 16);
  print("a m8n32k16 f16 row", o + 2048, 16);
  for (int l = 0; l < 32; l++) {
    printf("frag a m16n16k16 s8 row lane %d:", l);
    for (int i = 0; i < 8; i++) printf(" %d", os8[l * 8 + i]);
    printf("\n");
  }
  // Edge cases: (name, A row, B column, C), f16 bit patterns.
  struct Case {
    const char* name;
    unsigned short a0, a1, arest, b0, b1, brest;
    float c;
  } cases[] = {
      {"1+15*2^-24", 0x3c00, 0x0c00, 0x0c00, 0x3c00, 0x0c00, 0x0c00, 0.f},
      {"cancel 2^15*2^15 - same + 1", 0x7800, 0x7800, 0, 0x7800, 0xf800, 0, 1.f},
      {"nan*1", 0x7e01, 0, 0, 0x3c00, 0, 0, 0.f},
      {"inf-inf", 0x7c00, 0x7c00, 0, 0x3c00, 0xbc00, 0, 0.f},
      {"-0 products, c -0", 0x8000, 0x8000, 0x8000, 0x3c00, 0x3c00, 0x3c00, -0.f},
      {"subnormal*subnormal", 0x0001, 0, 0, 0x0001, 0, 0, 0.f},
      {"c 2^127 + product 2^30", 0x7800, 0, 0, 0x7800, 0, 0, 1.7014118e38f},
      {"1 + c 2^-24 + 2^-25", 0x3c00, 0x1800, 0, 0x3c00, 0x2400, 0, 5.96046448e-08f},
  };
  unsigned short *a, *b;
  float* d;
  cudaMallocManaged(&a, 32);
  cudaMallocManaged(&b, 32);
  cudaMallocManaged(&d, 4);
  for (auto& cs : cases) {
    for (int i = 0; i < 16; i++) a[i] = i == 0 ? cs.a0 : i == 1 ? cs.a1 : cs.arest;
    for (int i = 0; i < 16; i++) b[i] = i == 0 ? cs.b0 : i == 1 ? cs.b1 : cs.brest;
    dot<<<1, 32>>>(a, b, cs.c, d);
    cudaDeviceSynchronize();
    unsigned bits;
    memcpy(&bits, d, 4);
    printf("dot %s: %08x\n", cs.name, bits);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
