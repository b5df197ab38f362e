// fma.rn.oob{.relu} on f16, bf16, f16x2 and bf16x2 (ISA 9.7.4.4): which operands holding the
// OOB-NaN of tensor copies (0x7ff7, as an H200's copies write it) make the result +0, and what
// other NaNs give. Prints one line per case: "fma TYPE[.relu] a b c: d" in hex; the shim's
// answers are compared with an H200's (scripts/ground-truth/results/fma-oob-h200.txt).
#include <cstdio>
#include <cstdint>

template <int T>  // 0 f16, 1 bf16, 2 f16x2, 3 bf16x2; relu in bit 2
__global__ void fma_oob(const uint32_t* in, uint32_t* out, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  uint32_t a = in[3 * i], b = in[3 * i + 1], c = in[3 * i + 2], d = 0;
  if constexpr (T == 0) {
    uint16_t r;
    asm("fma.rn.oob.f16 %0, %1, %2, %3;" : "=h"(r) : "h"((uint16_t)a), "h"((uint16_t)b), "h"((uint16_t)c));
    d = r;
  } else if constexpr (T == 4) {
    uint16_t r;
    asm("fma.rn.oob.relu.f16 %0, %1, %2, %3;" : "=h"(r) : "h"((uint16_t)a), "h"((uint16_t)b), "h"((uint16_t)c));
    d = r;
  } else if constexpr (T == 1) {
    uint16_t r;
    asm("fma.rn.oob.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"((uint16_t)a), "h"((uint16_t)b), "h"((uint16_t)c));
    d = r;
  } else if constexpr (T == 5) {
    uint16_t r;
    asm("fma.rn.oob.relu.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"((uint16_t)a), "h"((uint16_t)b), "h"((uint16_t)c));
    d = r;
  } else if constexpr (T == 2) {
    asm("fma.rn.oob.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  } else {
    asm("fma.rn.oob.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  }
  out[i] = d;
}

int main() {
  // f16: 2.0, OOB, another NaN, the OOB pattern with the sign set; 3.0, OOB; 1.0, OOB, -10.0.
  const uint32_t fa[] = {0x4000, 0x7ff7, 0x7fff, 0xfff7}, fb[] = {0x4200, 0x7ff7}, fc[] = {0x3c00, 0x7ff7, 0xc900};
  const uint32_t ba[] = {0x4000, 0x7ff7, 0x7fff, 0xfff7}, bb[] = {0x4040, 0x7ff7}, bc[] = {0x3f80, 0x7ff7, 0xc120};
  uint32_t *in, *out;
  cudaMallocManaged(&in, 3 * 64 * 4);
  cudaMallocManaged(&out, 64 * 4);
  const char* names[] = {"f16", "bf16", "f16x2", "bf16x2", "f16.relu", "bf16.relu"};
  for (int t : {0, 4, 1, 5}) {
    bool bf = t == 1 || t == 5;
    const uint32_t *A = bf ? ba : fa, *B = bf ? bb : fb, *C = bf ? bc : fc;
    int n = 0;
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 2; j++)
        for (int k = 0; k < 3; k++) in[3 * n] = A[i], in[3 * n + 1] = B[j], in[3 * n + 2] = C[k], n++;
    if (t == 0) fma_oob<0><<<1, 32>>>(in, out, n);
    if (t == 4) fma_oob<4><<<1, 32>>>(in, out, n);
    if (t == 1) fma_oob<1><<<1, 32>>>(in, out, n);
    if (t == 5) fma_oob<5><<<1, 32>>>(in, out, n);
    cudaDeviceSynchronize();
    for (int i = 0; i < n; i++)
      printf("fma %s %04x %04x %04x: %04x\n", (t == 4 ? "f16.relu" : t == 5 ? "bf16.relu" : names[t]), in[3 * i], in[3 * i + 1], in[3 * i + 2], out[i]);
  }
  // Packed: OOB in one half only.
  for (int t : {2, 3}) {
    bool bf = t == 3;
    uint32_t two = bf ? 0x4000 : 0x4000, three = bf ? 0x4040 : 0x4200, one = bf ? 0x3f80 : 0x3c00;
    uint32_t cases[][3] = {{0x7ff70000 | two, three | three << 16, one | one << 16},
                           {two | two << 16, 0x7ff7u << 16 | three, one | one << 16},
                           {two | two << 16, three | three << 16, 0x7ff7u << 16 | one},
                           {0x7fff0000 | two, three | three << 16, one | one << 16}};
    for (int i = 0; i < 4; i++) in[3 * i] = cases[i][0], in[3 * i + 1] = cases[i][1], in[3 * i + 2] = cases[i][2];
    if (t == 2) fma_oob<2><<<1, 32>>>(in, out, 4);
    else fma_oob<3><<<1, 32>>>(in, out, 4);
    cudaDeviceSynchronize();
    for (int i = 0; i < 4; i++) printf("fma %s %08x %08x %08x: %08x\n", names[t], in[3 * i], in[3 * i + 1], in[3 * i + 2], out[i]);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
