// The sm_120a mma.sync kinds (ISA 9.7.14.5, PTX ISA 8.7+): `.kind::f8f6f4` with every pairing of
// e4m3/e5m2/e3m2/e2m3/e2m1 multiplicands and f32 or f16 accumulators (m16n8k32, each element in
// an 8-bit container: fp6 in bits 5:0, fp4 in bits 5:2), and the block-scaled kinds
// `.kind::mxf8f6f4` (scale_vec::1X, ue8m0, m16n8k32), `.kind::mxf4` (2X, ue8m0) and
// `.kind::mxf4nvf4` (2X ue8m0, 4X ue4m3, and 4X ue8m0 of PTX ISA 9.1), m16n8k64 with packed e2m1;
// and the sparse `mma.sp::ordered_metadata` of each kind (ptxas 13.5 refuses plain `.sp`): m16n8k64
// `.kind::f8f6f4` and `.kind::mxf8f6f4`, m16n8k128 `.kind::mxf4` and `.kind::mxf4nvf4`, whose packed
// A (16 x 32 bytes) and B (8 columns of 64 bytes) come in the registers of the 8-bit m16n8k64 form
// (the 4-bit figures 140-145 put the same bytes there) and whose metadata is laid out alike
// (figures 146-147).
//
// Fragments are loaded from whole matrices as the ISA's figures lay them out (A 16 x K row-major
// bytes, B 8 columns of K bytes, C/D 16 x 8): lane l (group g = l / 4, t = l % 4) holds in A's
// register r the bytes A[g + 8 * (r % 2)][(r / 2) * 16 + t * 4 + 0..3] and in B's register r the
// bytes B[g][r * 16 + t * 4 + 0..3] (figures for m16n8k32 8-bit and m16n8k64 4-bit elements,
// which put the same bytes in the same registers), C's element i at row g + 8 * (i / 2), column
// 2t + i % 2. The scale factors follow 9.7.14.3: every lane passes a word of its own; the pair of
// lanes 2 * thread-id-a, +1 of each quad gives rows g and g + 8, lane thread-id-b of each quad
// column g, and byte-id selects the byte (1X), the two bytes (2X) or all four (4X) of the word.
//
// Inputs come from a fixed generator that scripts/oracles/mma-kinds.py replays, so that
// expected outputs can be computed without a GPU: by mmasim 2.1.1's "RTX Blackwell" model
// (scripts/oracles/mma-kinds-mmasim.txt; tests/tensor_cores.rs compares). Padding bits of the
// containers and the bytes of lanes not selected are random, so a model that reads them fails.
// Prints per configuration and trial `kinds INSTRUCTION trial T: D` (16 x 8, row-major, hex).
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>

#define F32(INS)                                                                                   \
  asm volatile(INS " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                     \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                     \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),       \
                 "r"(c[1]), "r"(c[2]), "r"(c[3]))
#define F16(INS)                                                                                   \
  asm volatile(INS " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"                                     \
               : "=r"(d[0]), "=r"(d[1])                                                             \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),       \
                 "r"(c[1]))
#define SPF32(INS)                                                                                 \
  asm volatile(INS " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%12,%13,%14,%15}, %16, 0;"      \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                     \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(bs[0]), "r"(bs[1]), "r"(bs[2]),    \
                 "r"(bs[3]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(e))
#define SPF16(INS)                                                                                 \
  asm volatile(INS " {%0,%1}, {%2,%3,%4,%5}, {%6,%7,%8,%9}, {%10,%11}, %12, 0;"                     \
               : "=r"(d[0]), "=r"(d[1])                                                             \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(bs[0]), "r"(bs[1]), "r"(bs[2]),    \
                 "r"(bs[3]), "r"(c[0]), "r"(c[1]), "r"(e))
#define MX(INS)                                                                                    \
  asm volatile(INS " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}, %14, {%15,%16}, "    \
                   "%17, {%18,%19};"                                                                \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                     \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),       \
                 "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(sfa), "h"(sel[0]), "h"(sel[1]), "r"(sfb),     \
                 "h"(sel[2]), "h"(sel[3]))

#define SPMX(INS)                                                                                  \
  asm volatile(INS " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%12,%13,%14,%15}, %16, 0, "  \
                   "%17, {%18,%19}, %20, {%21,%22};"                                               \
               : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                     \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(bs[0]), "r"(bs[1]), "r"(bs[2]),    \
                 "r"(bs[3]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(e), "r"(sfa),          \
                 "h"(sel[0]), "h"(sel[1]), "r"(sfb), "h"(sel[2]), "h"(sel[3]))

static const char* names[] = {
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e3m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e4m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e3m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e2m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e2m1.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e4m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e5m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e4m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e5m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e3m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m1.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e5m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m3.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e4m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e5m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e3m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e2m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e2m1.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e4m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e5m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e3m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e2m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e2m1.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e4m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e5m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e3m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e2m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e2m1.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e4m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e5m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e3m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e2m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e2m1.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e4m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e5m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e3m2.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e2m3.f16",
    "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e2m1.f16",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e5m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e3m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e2m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e2m1.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e4m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e5m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e3m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e2m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e2m1.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e4m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e5m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e3m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e2m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e2m1.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e4m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e5m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e3m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e2m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e2m1.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e4m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e5m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e3m2.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e2m3.f32.ue8m0",
    "mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3",
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e3m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e2m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e4m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e3m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e2m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e2m1.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e4m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e5m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e4m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e5m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e3m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e2m1.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e5m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e2m3.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e4m3.e4m3.f16",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e5m2.e5m2.f16",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e3m2.e3m2.f16",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e2m3.e2m3.f16",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e2m1.e2m1.f16",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e3m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e4m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e5m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e3m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m1.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e4m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e5m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e3m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e4m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e5m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e3m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m1.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e5m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e3m2.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e4m3.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
    "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0"
};
static const int configs = sizeof(names) / sizeof(names[0]);

struct Inputs {
  unsigned char a[16 * 32], b[8 * 32];
  unsigned char bs[8 * 64];  // the sparse forms' B (K = 64)
  unsigned meta[32];         // and their metadata
  unsigned c[128];  // f32 bits, or f16 bits in the low half
  unsigned sfa[32], sfb[32];
  unsigned short sel[4];  // byte-id-a, thread-id-a, byte-id-b, thread-id-b
};

__global__ void kinds(int cfg, bool f16, const Inputs* in, unsigned* out) {
  int l = threadIdx.x, g = l / 4, t = l % 4;
  unsigned a[4], b[2], bs[4], c[4], d[4] = {}, e = in->meta[l];
  for (int r = 0; r < 4; r++) memcpy(&a[r], &in->a[(g + 8 * (r % 2)) * 32 + (r / 2) * 16 + t * 4], 4);
  for (int r = 0; r < 2; r++) memcpy(&b[r], &in->b[g * 32 + r * 16 + t * 4], 4);
  // Sparse: A is the packed 16 x 32 above (figures 130-131), B 64 x 8 (figures 132-135).
  for (int r = 0; r < 4; r++) memcpy(&bs[r], &in->bs[g * 64 + r * 16 + t * 4], 4);
  for (int i = 0; i < 4; i++) c[i] = in->c[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
  if (f16)
    for (int i = 0; i < 2; i++) c[i] = in->c[(g + 8 * i) * 8 + 2 * t] | in->c[(g + 8 * i) * 8 + 2 * t + 1] << 16;
  unsigned sfa = in->sfa[l], sfb = in->sfb[l];
  unsigned short sel[4] = {in->sel[0], in->sel[1], in->sel[2], in->sel[3]};
  switch (cfg) {
    case 0: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32"); break;
    case 1: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32"); break;
    case 2: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e3m2.f32"); break;
    case 3: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m3.f32"); break;
    case 4: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32"); break;
    case 5: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e4m3.f32"); break;
    case 6: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32"); break;
    case 7: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e3m2.f32"); break;
    case 8: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e2m3.f32"); break;
    case 9: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e2m1.f32"); break;
    case 10: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e4m3.f32"); break;
    case 11: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e5m2.f32"); break;
    case 12: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32"); break;
    case 13: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32"); break;
    case 14: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32"); break;
    case 15: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e4m3.f32"); break;
    case 16: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e5m2.f32"); break;
    case 17: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e3m2.f32"); break;
    case 18: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32"); break;
    case 19: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m1.f32"); break;
    case 20: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32"); break;
    case 21: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e5m2.f32"); break;
    case 22: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32"); break;
    case 23: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m3.f32"); break;
    case 24: F32("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32"); break;
    case 25: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e4m3.f16"); break;
    case 26: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e5m2.f16"); break;
    case 27: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e3m2.f16"); break;
    case 28: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e2m3.f16"); break;
    case 29: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e2m1.f16"); break;
    case 30: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e4m3.f16"); break;
    case 31: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e5m2.f16"); break;
    case 32: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e3m2.f16"); break;
    case 33: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e2m3.f16"); break;
    case 34: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e2m1.f16"); break;
    case 35: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e4m3.f16"); break;
    case 36: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e5m2.f16"); break;
    case 37: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e3m2.f16"); break;
    case 38: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e2m3.f16"); break;
    case 39: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e2m1.f16"); break;
    case 40: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e4m3.f16"); break;
    case 41: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e5m2.f16"); break;
    case 42: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e3m2.f16"); break;
    case 43: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e2m3.f16"); break;
    case 44: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e2m1.f16"); break;
    case 45: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e4m3.f16"); break;
    case 46: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e5m2.f16"); break;
    case 47: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e3m2.f16"); break;
    case 48: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e2m3.f16"); break;
    case 49: F16("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e2m1.f16"); break;
    case 50: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e4m3.f32.ue8m0"); break;
    case 51: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e5m2.f32.ue8m0"); break;
    case 52: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e3m2.f32.ue8m0"); break;
    case 53: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e2m3.f32.ue8m0"); break;
    case 54: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e4m3.e2m1.f32.ue8m0"); break;
    case 55: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e4m3.f32.ue8m0"); break;
    case 56: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e5m2.f32.ue8m0"); break;
    case 57: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e3m2.f32.ue8m0"); break;
    case 58: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e2m3.f32.ue8m0"); break;
    case 59: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e5m2.e2m1.f32.ue8m0"); break;
    case 60: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e4m3.f32.ue8m0"); break;
    case 61: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e5m2.f32.ue8m0"); break;
    case 62: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e3m2.f32.ue8m0"); break;
    case 63: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e2m3.f32.ue8m0"); break;
    case 64: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e3m2.e2m1.f32.ue8m0"); break;
    case 65: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e4m3.f32.ue8m0"); break;
    case 66: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e5m2.f32.ue8m0"); break;
    case 67: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e3m2.f32.ue8m0"); break;
    case 68: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e2m3.f32.ue8m0"); break;
    case 69: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m3.e2m1.f32.ue8m0"); break;
    case 70: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e4m3.f32.ue8m0"); break;
    case 71: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e5m2.f32.ue8m0"); break;
    case 72: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e3m2.f32.ue8m0"); break;
    case 73: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e2m3.f32.ue8m0"); break;
    case 74: MX("mma.sync.aligned.kind::mxf8f6f4.block_scale.scale_vec::1X.m16n8k32.row.col.f32.e2m1.e2m1.f32.ue8m0"); break;
    case 75: MX("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0"); break;
    case 76: MX("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"); break;
    case 77: MX("mma.sync.aligned.kind::mxf4nvf4.block_scale.scale_vec::4X.m16n8k64.row.col.f32.e2m1.e2m1.f32.ue4m3"); break;
    case 78: MX("mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0"); break;
    case 79: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32"); break;
    case 80: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32"); break;
    case 81: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e3m2.f32"); break;
    case 82: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e2m3.f32"); break;
    case 83: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32"); break;
    case 84: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e4m3.f32"); break;
    case 85: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32"); break;
    case 86: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e3m2.f32"); break;
    case 87: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e2m3.f32"); break;
    case 88: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e5m2.e2m1.f32"); break;
    case 89: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e4m3.f32"); break;
    case 90: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e5m2.f32"); break;
    case 91: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32"); break;
    case 92: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32"); break;
    case 93: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32"); break;
    case 94: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e4m3.f32"); break;
    case 95: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e5m2.f32"); break;
    case 96: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e3m2.f32"); break;
    case 97: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32"); break;
    case 98: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m3.e2m1.f32"); break;
    case 99: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32"); break;
    case 100: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e5m2.f32"); break;
    case 101: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32"); break;
    case 102: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e2m3.f32"); break;
    case 103: SPF32("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32"); break;
    case 104: SPF16("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e4m3.e4m3.f16"); break;
    case 105: SPF16("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e5m2.e5m2.f16"); break;
    case 106: SPF16("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e3m2.e3m2.f16"); break;
    case 107: SPF16("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e2m3.e2m3.f16"); break;
    case 108: SPF16("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e2m1.e2m1.f16"); break;
    case 109: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0"); break;
    case 110: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0"); break;
    case 111: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e3m2.f32.ue8m0"); break;
    case 112: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m3.f32.ue8m0"); break;
    case 113: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0"); break;
    case 114: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e4m3.f32.ue8m0"); break;
    case 115: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e5m2.f32.ue8m0"); break;
    case 116: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e3m2.f32.ue8m0"); break;
    case 117: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m3.f32.ue8m0"); break;
    case 118: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m1.f32.ue8m0"); break;
    case 119: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e4m3.f32.ue8m0"); break;
    case 120: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e5m2.f32.ue8m0"); break;
    case 121: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e3m2.f32.ue8m0"); break;
    case 122: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m3.f32.ue8m0"); break;
    case 123: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0"); break;
    case 124: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e4m3.f32.ue8m0"); break;
    case 125: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e5m2.f32.ue8m0"); break;
    case 126: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e3m2.f32.ue8m0"); break;
    case 127: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m3.f32.ue8m0"); break;
    case 128: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m1.f32.ue8m0"); break;
    case 129: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0"); break;
    case 130: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e5m2.f32.ue8m0"); break;
    case 131: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e3m2.f32.ue8m0"); break;
    case 132: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m3.f32.ue8m0"); break;
    case 133: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m1.f32.ue8m0"); break;
    case 134: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e4m3.f32.ue8m0"); break;
    case 135: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0"); break;
    case 136: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"); break;
    case 137: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"); break;
    case 138: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"); break;
    case 139: SPMX("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0"); break;
    default: break;
  }
  if (f16) {
    for (int i = 0; i < 2; i++) {
      out[(g + 8 * i) * 8 + 2 * t] = d[i] & 0xffff;
      out[(g + 8 * i) * 8 + 2 * t + 1] = d[i] >> 16;
    }
  } else {
    for (int i = 0; i < 4; i++) out[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
  }
}

static unsigned rng = 120;
static unsigned next() { return rng = rng * 1664525u + 1013904223u, rng >> 8; }

// A multiplicand byte of type `ty` for trial style `s` (0: any byte; 1: e4m3/e5m2 exponents
// within two binades of the middle, for cancellation; 2: e4m3/e5m2 finite only). fp6 and fp4
// containers are any byte: their padding bits are random.
static unsigned char element(const char* ty, int s) {
  unsigned v = next() & 0xff;
  bool e5 = !strcmp(ty, "e5m2");
  if (strcmp(ty, "e4m3") && !e5) return v;
  if (s == 1) {
    unsigned sign = v & 0x80, mant = next() & (e5 ? 3 : 7), mid = e5 ? 15 : 7;
    return sign | (mid - 1 + next() % 3) << (e5 ? 2 : 3) | mant;
  }
  if (s == 2)
    while (e5 ? (v & 0x7c) == 0x7c : (v & 0x7f) == 0x7f) v = next() & 0xff;
  return v;
}

// A scale byte: ue8m0 mostly within 2^-15..2^16, sometimes NaN (0xff) or any byte; ue4m3
// mostly near 1 (0x28..0x47), sometimes any byte (NaN, zero, subnormal, a sign bit).
static unsigned scale_byte(bool ue4m3) {
  if (ue4m3) return next() % 8 == 0 ? next() & 0xff : 0x28 + next() % 0x20;
  unsigned r = next() % 64;
  return r == 0 ? 0xff : r == 1 ? next() & 0xff : 112 + next() % 32;
}

int main() {
  Inputs* in;
  unsigned* out;
  cudaMallocManaged(&in, sizeof(Inputs));
  cudaMallocManaged(&out, 128 * 4);
  for (int cfg = 0; cfg < configs; cfg++) {
    const char* name = names[cfg];
    // The types: the four (or five) words after the layouts that are not qualifiers.
    char words[8][16];
    int nw = 0;
    for (const char* p = strstr(name, ".row.col.") + 9; *p && nw < 8;) {
      int n = 0;
      while (p[n] && p[n] != '.') n++;
      memcpy(words[nw], p, n);
      words[nw][n] = 0;
      p += n + (p[n] == '.');
      if (!strchr(words[nw], ':') && strcmp(words[nw], "block_scale")) nw++;
    }
    bool f16 = !strcmp(words[0], "f16"), scaled = strstr(name, "block_scale") != nullptr;
    bool sparse = strstr(name, "mma.sp") != nullptr;
    bool ue4m3 = scaled && !strcmp(words[4], "ue4m3");
    int vec = strstr(name, "4X") ? 4 : strstr(name, "kind::mxf4") ? 2 : 1;
    for (int trial = 0; trial < 3; trial++) {
      for (int i = 0; i < 16 * 32; i++) in->a[i] = element(words[1], trial);
      if (sparse)
        for (int i = 0; i < 8 * 64; i++) in->bs[i] = element(words[2], trial);
      else
        for (int i = 0; i < 8 * 32; i++) in->b[i] = element(words[2], trial);
      for (int i = 0; i < 128; i++) {
        float v = 0.0f;
        if (trial > 0) {
          int m = (int)(next() % 20001) - 10000;  // (two statements: the calls' order is fixed)
          v = m / 100.0f * (float)(1 << (next() % 8));
        }
        if (f16) {
          __half h = __float2half_rn(v);
          unsigned short hb;
          memcpy(&hb, &h, 2);
          in->c[i] = hb;
        } else {
          memcpy(&in->c[i], &v, 4);
        }
      }
      // The metadata of mma.sp: per lane eight 4-bit pairs of indices, each one of the six
      // meaningful ones (9.7.14.6.1); lane 4(r % 8) + 2(j / 8) + r / 8 holds row r's chunk j
      // in bits 4(j % 8) (figures 136-137, selector 0).
      if (sparse) {
        static const unsigned meaningful[6] = {0x4, 0x8, 0x9, 0xC, 0xD, 0xE};
        for (int l = 0; l < 32; l++) {
          in->meta[l] = 0;
          for (int j = 0; j < 8; j++) in->meta[l] |= meaningful[next() % 6] << (4 * j);
        }
      }
      if (scaled) {
        for (int l = 0; l < 32; l++) {
          in->sfa[l] = in->sfb[l] = 0;
          for (int j = 0; j < 4; j++) in->sfa[l] |= scale_byte(ue4m3) << (8 * j);
          for (int j = 0; j < 4; j++) in->sfb[l] |= scale_byte(ue4m3) << (8 * j);
        }
        in->sel[0] = vec == 1 ? next() % 4 : vec == 2 ? 2 * (next() % 2) : 0;
        in->sel[1] = next() % 2;
        in->sel[2] = vec == 1 ? next() % 4 : vec == 2 ? 2 * (next() % 2) : 0;
        in->sel[3] = next() % 4;
      }
      kinds<<<1, 32>>>(cfg, f16, in, out);
      cudaError_t err = cudaGetLastError();
      if (err == cudaSuccess) err = cudaDeviceSynchronize();
      if (err != cudaSuccess) {
        printf("kinds %s trial %d: %s\n", name, trial, cudaGetErrorName(err));
        return 1;
      }
      printf("kinds %s trial %d:", name, trial);
      for (int i = 0; i < 128; i++) printf(f16 ? " %04x" : " %08x", out[i]);
      printf("\n");
    }
  }
  return 0;
}
