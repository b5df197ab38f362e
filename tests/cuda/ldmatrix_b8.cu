// The 8-bit shapes of ldmatrix and stmatrix (ISA 9.7.14.5.15-16, sm_100a/sm_120a):
// ldmatrix.m16n16.x1/.x2.trans.b8, the same decompressing .b8x16.b6x16_p32 / .b8x16.b4x16_p64,
// ldmatrix.m8n16.x1/.x2/.x4.b8x16.b6x16_p32 / .b4x16_p64, and stmatrix.m16n8.x1/.x2/.x4.trans.b8.
// Matrix rows lie at scattered 16-byte slots of shared memory (each lane gives a row's address,
// as the ISA's tables assign them). The host checks every register byte and every stored byte
// against the ISA's figures, written out here independently:
// - figure 105 (16x16 bytes): lane T holds in r0 fragment row T/4, columns 4(T%4)..+3, in r1
//   rows 8 + T/4; with .trans the fragment is the transpose of the rows in memory;
// - figure 106 (8x16): lane T's register holds row T/4, bytes 4(T%4)..+3;
// - figure 108 (16x8, stmatrix): row i < 8, column j is byte j%2 of lane 4i + j/2, row 8 + i
//   byte 2 + j%2; with .trans memory row j holds fragment column j;
// - decompression (9.7.16.9.1; fp4/fp6 containers of 9.7.14.5.14): a row's 16 bytes hold 16
//   elements of 4 bits (then 8 bytes of padding) or 6 bits (then 4), the first in the lowest
//   bits; each becomes a byte, e2m1 in bits 5:2, e3m2/e2m3 in bits 5:0.
// Prints one `ldst NAME: ok` line per case, or the first difference.
#include <cstdio>
#include <cstring>

#define LD2(INS) asm volatile(INS " {%0,%1}, [%2];" : "=r"(d[0]), "=r"(d[1]) : "r"(a))
#define LD4(INS) asm volatile(INS " {%0,%1,%2,%3}, [%4];" : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a))
#define LD1(INS) asm volatile(INS " {%0}, [%1];" : "=r"(d[0]) : "r"(a))
#define ST1(INS) asm volatile(INS " [%0], {%1};" ::"r"(a), "r"(d[0]) : "memory")
#define ST2(INS) asm volatile(INS " [%0], {%1,%2};" ::"r"(a), "r"(d[0]), "r"(d[1]) : "memory")
#define ST4(INS) asm volatile(INS " [%0], {%1,%2,%3,%4};" ::"r"(a), "r"(d[0]), "r"(d[1]), "r"(d[2]), "r"(d[3]) : "memory")

struct Case {
  const char* name;
  int rows;     // row addresses per matrix
  int mats;     // .x1/.x2/.x4
  int regs;     // registers per matrix
  int bits;     // decompressed element bits (0: plain bytes)
  int kind;     // 0: ldmatrix m16n16 .trans, 1: ldmatrix m8n16, 2: stmatrix m16n8 .trans
};
static const Case cases[] = {
    {"ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8", 16, 1, 2, 0, 0},
    {"ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8", 16, 2, 2, 0, 0},
    {"ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b6x16_p32", 16, 1, 2, 6, 0},
    {"ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b4x16_p64", 16, 2, 2, 4, 0},
    {"ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64", 8, 1, 1, 4, 1},
    {"ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b6x16_p32", 8, 2, 1, 6, 1},
    {"ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64", 8, 4, 1, 4, 1},
    {"ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32", 8, 4, 1, 6, 1},
    {"stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", 8, 1, 1, 0, 2},
    {"stmatrix.sync.aligned.m16n8.x2.trans.shared::cta.b8", 8, 2, 1, 0, 2},
    {"stmatrix.sync.aligned.m16n8.x4.trans.shared.b8", 8, 4, 1, 0, 2},
};
static const int ncases = sizeof(cases) / sizeof(cases[0]);

// Row i of the instruction lies at 16-byte slot slot(i) of 64.
__host__ __device__ int slot(int i) { return (i * 37 + 11) % 64; }

__global__ void run(int c, int nrows, const unsigned char* in, unsigned* regs_in, unsigned* regs_out,
                    unsigned char* mem_out) {
  __shared__ __align__(16) unsigned char smem[64 * 16];
  int l = threadIdx.x;
  for (int i = l; i < 64 * 16; i += 32) smem[i] = in[i];
  __syncwarp();
  // Lanes past the instruction's rows give row 0's address (ignored).
  unsigned a = (unsigned)__cvta_generic_to_shared(smem + 16 * slot(l < nrows ? l : 0));
  unsigned d[4];
  for (int r = 0; r < 4; r++) d[r] = regs_in[l * 4 + r];
  switch (c) {
    case 0: LD2("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8"); break;
    case 1: LD4("ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8"); break;
    case 2: LD2("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b6x16_p32"); break;
    case 3: LD4("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b4x16_p64"); break;
    case 4: LD1("ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64"); break;
    case 5: LD2("ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b6x16_p32"); break;
    case 6: LD4("ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64"); break;
    case 7: LD4("ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32"); break;
    case 8: ST1("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8"); break;
    case 9: ST2("stmatrix.sync.aligned.m16n8.x2.trans.shared::cta.b8"); break;
    default: ST4("stmatrix.sync.aligned.m16n8.x4.trans.shared.b8"); break;
  }
  __syncwarp();
  for (int r = 0; r < 4; r++) regs_out[l * 4 + r] = d[r];
  for (int i = l; i < 64 * 16; i += 32) mem_out[i] = smem[i];
}

// Row `row` of the instruction's memory, decompressed to 16 bytes when `bits` is 4 or 6.
static void row_bytes(const unsigned char* mem, int row, int bits, unsigned char out[16]) {
  const unsigned char* p = mem + 16 * slot(row);
  for (int e = 0; e < 16; e++) {
    if (bits == 0) {
      out[e] = p[e];
      continue;
    }
    unsigned v = 0;
    for (int k = 0; k < bits; k++) {
      int bit = bits * e + k;
      v |= ((p[bit / 8] >> (bit % 8)) & 1u) << k;
    }
    out[e] = bits == 4 ? v << 2 : v;
  }
}

int main() {
  unsigned char *in, *mem_out;
  unsigned *regs_in, *regs_out;
  cudaMallocManaged(&in, 64 * 16);
  cudaMallocManaged(&mem_out, 64 * 16);
  cudaMallocManaged(&regs_in, 32 * 4 * 4);
  cudaMallocManaged(&regs_out, 32 * 4 * 4);
  unsigned rng = 81;
  int failed = 0;
  for (int c = 0; c < ncases; c++) {
    const Case& k = cases[c];
    for (int i = 0; i < 64 * 16; i++) in[i] = (rng = rng * 1664525u + 1013904223u) >> 24;
    for (int i = 0; i < 32 * 4; i++) regs_in[i] = (rng = rng * 1664525u + 1013904223u);
    int nrows = k.rows * k.mats;
    run<<<1, 32>>>(c, nrows, in, regs_in, regs_out, mem_out);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      printf("ldst %s: %s\n", k.name, cudaGetErrorString(cudaGetLastError()));
      return 1;
    }
    char bad[200] = "";
    if (k.kind < 2) {
      for (int T = 0; T < 32 && !bad[0]; T++)
        for (int j = 0; j < k.mats * k.regs && !bad[0]; j++) {
          int q = j / k.regs, r = j % k.regs;
          for (int b = 0; b < 4; b++) {
            unsigned char want, row[16];
            if (k.kind == 0) {
              // Fragment (T/4 + 8r, 4(T%4) + b) of the transpose: memory row 4(T%4) + b.
              row_bytes(in, q * 16 + 4 * (T % 4) + b, k.bits, row);
              want = row[T / 4 + 8 * r];
            } else {
              row_bytes(in, q * 8 + T / 4, k.bits, row);
              want = row[4 * (T % 4) + b];
            }
            unsigned char got = regs_out[T * 4 + j] >> (8 * b);
            if (got != want)
              snprintf(bad, sizeof bad, "lane %d register %d byte %d: %02x, expected %02x", T, j, b, got, want);
          }
        }
    } else {
      // Fragment element (i, j) of matrix q; memory row j of q holds column j.
      unsigned char want[64 * 16];
      memcpy(want, in, sizeof want);
      for (int q = 0; q < k.mats; q++)
        for (int i = 0; i < 16; i++)
          for (int j = 0; j < 8; j++) {
            int lane = 4 * (i % 8) + j / 2, e = (i / 8) * 2 + j % 2;
            want[16 * slot(q * 8 + j) + i] = regs_in[lane * 4 + q] >> (8 * e);
          }
      for (int i = 0; i < 64 * 16 && !bad[0]; i++)
        if (mem_out[i] != want[i])
          snprintf(bad, sizeof bad, "shared byte %d (slot %d): %02x, expected %02x", i, i / 16, mem_out[i], want[i]);
    }
    if (bad[0]) failed = 1;
    printf("ldst %s: %s\n", k.name, bad[0] ? bad : "ok");
  }
  return failed;
}
