// What wgmma.mma_async computes on a Hopper GPU for the forms the shim took last: the f8 kinds
// (every .e4m3/.e5m2 A and B, .f32 and .f16 D), .b1 with .and.popc, and the sparse .sp forms
// of .f16 and .e4m3, next to dense .f16 (whose layouts the shim ran before, so that this
// program's own fragment and descriptor code is checked on the shim first).
//
// Every case is m64n16 (K = 32 bytes of A per row: k16 f16, k32 f8, k256 b1; the sparse forms
// twice the K), A from a shared-memory descriptor ("ss") or from registers ("rs"), B from a
// descriptor, both K-major in the ISA's canonical layout without swizzle (9.7.15.5.1.10: core
// matrices of 8 rows of 16 bytes, LBO = 128 bytes between core matrices along K, SBO between
// groups of 8 rows). scale-d is 1: D starts as a random C.
//
// Inputs come from one xorshift generator seeded with SEED (printed), drawn in a fixed order:
// per case A (64 x 32 bytes, row-major, packed for .sp), B (16 columns of K-bytes), C (64 x 16,
// as 32-bit words, f16 in the low half), then the metadata words (128 lanes, .sp only). The f8
// rows come in four bands (rows 0-15 any bit pattern, NaN and infinities included, rows 16-31
// exponents near 1, rows 32-47 products that cancel in pairs with a small tail, rows 48-63 a
// wide exponent spread with subnormals); C likewise has zeros, -0, specials and wide values.
//
// Output: "case NAME" then one line per row of D, "NAME ROW: v0 .. v15" in hex (the element's
// bits), and "exit N" (0 when every CUDA call succeeded). Build and run:
//   nvcc -std=c++17 -arch=sm_90a -o wgmma_probe wgmma_probe.cu && ./wgmma_probe
// (-DF16_ONLY: the dense .f16 cases alone.)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define SEED 0x5eed1234abcdULL

static int failures = 0;
#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            printf("error %s: %s (%d)\n", #x, cudaGetErrorString(e_), (int)e_);                \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

// The forms, one per kernel branch.
enum Form {
    F16_F32,      // m64n16k16.f32.f16.f16
    F8_F32,       // m64n16k32.f32.{A}.{B}
    F8_F16,       // m64n16k32.f16.{A}.{B}
    B1_AND,       // m64n16k256.s32.b1.b1.and.popc
    SP_F16_F32,   // sp m64n16k32.f32.f16.f16 (selector 0 or 1)
    SP_E4M3_F32,  // sp m64n16k64.f32.e4m3.e4m3
    SP_E5M2_F16,  // sp m64n16k64.f16.e5m2.e4m3
    F8_NEG,       // m64n16k32.f32.e4m3.e5m2 with imm-scale-a -1
    SP_BF16_F32,  // sp m64n16k32.f32.bf16.bf16 (selector 0 or 1)
    SP_TF32_F32,  // sp m64n16k16.f32.tf32.tf32 (selector 0 or 1)
    SP_S8U8,      // sp m64n16k64.s32.s8.u8
};

// The element kind of A and B: 0 f16, 1 bf16, 2 tf32, 3 f8, 4 b1, 5 s8 (A) and u8 (B).
static int kind_of(int f) {
    switch (f) {
    case F16_F32:
    case SP_F16_F32:
        return 0;
    case SP_BF16_F32:
        return 1;
    case SP_TF32_F32:
        return 2;
    case B1_AND:
        return 4;
    case SP_S8U8:
        return 5;
    default:
        return 3;
    }
}
static const int kind_bits[6] = {16, 16, 32, 8, 1, 8};

static bool is_sparse(int f) {
    return f == SP_F16_F32 || f == SP_E4M3_F32 || f == SP_E5M2_F16 || f == SP_BF16_F32 ||
           f == SP_TF32_F32 || f == SP_S8U8;
}

struct Case {
    std::string name;
    Form form;
    int ta, tb;  // f8: 0 e4m3, 1 e5m2
    bool rs;     // A from registers
    int sel;     // sparsity selector
};

// A: 64 rows of 32 bytes. B: 16 columns of KB bytes (32, or 64 for .sp).
struct Params {
    const uint8_t *a, *b;
    const uint32_t *c, *meta;
    uint32_t *d;
    int kb;
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ static uint64_t desc_of(const void *smem, uint32_t sbo) {
    uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
    uint64_t d = 0;
    d |= (uint64_t)((addr >> 4) & 0x3fff);
    d |= (uint64_t)((128 >> 4) & 0x3fff) << 16;  // LBO: the next core matrix along K
    d |= (uint64_t)((sbo >> 4) & 0x3fff) << 32;  // SBO: the next 8 rows
    return d;                                    // base offset 0, no swizzle
}

// Byte `c` (of KB) of row `r` in the canonical K-major layout without swizzle.
__device__ static uint32_t canon(int r, int c, int kb) {
    return (r % 8) * 16 + (r / 8) * (8 * kb) + (c % 16) + (c / 16) * 128;
}
#endif

#define D8 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define D4 "{%0, %1, %2, %3}"
#define OUT8(d) "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
#define OUT4(d) "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])

// The f8 forms for one (A, B, D) type triple, A from a descriptor or registers.
#define F8_CASES(AT, BT, ID)                                                                   \
    case ID:                                                                                   \
        if (f32) {                                                                             \
            if (rs)                                                                            \
                asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32." AT "." BT " " D8    \
                             ", {%8, %9, %10, %11}, %12, 1, 1, 1;"                             \
                             : OUT8(d)                                                         \
                             : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db));       \
            else                                                                               \
                asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32." AT "." BT " " D8    \
                             ", %8, %9, 1, 1, 1;"                                              \
                             : OUT8(d)                                                         \
                             : "l"(da), "l"(db));                                              \
        } else {                                                                               \
            if (rs)                                                                            \
                asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f16." AT "." BT " " D4    \
                             ", {%4, %5, %6, %7}, %8, 1, 1, 1;"                                \
                             : OUT4(d)                                                         \
                             : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db));       \
            else                                                                               \
                asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f16." AT "." BT " " D4    \
                             ", %4, %5, 1, 1, 1;"                                              \
                             : OUT4(d)                                                         \
                             : "l"(da), "l"(db));                                              \
        }                                                                                      \
        break;

__global__ void __launch_bounds__(128) probe(Params p, int form, int ta, int tb, int rs, int sel) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ __align__(1024) uint8_t sa[64 * 32];
    __shared__ __align__(1024) uint8_t sb[16 * 64];
    int t = threadIdx.x, w = t / 32, lane = t % 32;
    for (int i = t; i < 64 * 32; i += 128)
        sa[canon(i / 32, i % 32, 32)] = p.a[i];
    for (int i = t; i < 16 * p.kb; i += 128)
        sb[canon(i / p.kb, i % p.kb, p.kb)] = p.b[i];
    // A's register fragment: register r holds bytes tig*4 + 16*(r/2) .. +3 of row
    // 16w + gid + 8*(r%2), whatever the element width (the layouts of 9.7.15.5.1).
    uint32_t ar[4];
    int gid = lane / 4, tig = lane % 4;
    for (int r = 0; r < 4; r++) {
        int row = 16 * w + gid + 8 * (r % 2), col = tig * 4 + 16 * (r / 2);
        memcpy(&ar[r], p.a + row * 32 + col, 4);
    }
    // D: element i of a thread is row 16w + gid + 8*((i%4)/2), column tig*2 + i%2 + 8*(i/4).
    bool f16d = form == F8_F16 || form == SP_E5M2_F16;
    uint32_t d[8];
    for (int i = 0; i < 8; i++) {
        int row = 16 * w + gid + 8 * ((i % 4) / 2), col = tig * 2 + i % 2 + 8 * (i / 4);
        uint32_t c = p.c[row * 16 + col];
        if (!f16d)
            d[i] = c;
        else if (i % 2 == 0)
            d[i / 2] = c & 0xffff;
        else
            d[i / 2] |= c << 16;
    }
    uint32_t meta = p.meta ? p.meta[t] : 0;
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    uint64_t da = desc_of(sa, 8 * 32), db = desc_of(sb, 8 * p.kb);
    bool f32 = form == F8_F32;
    (void)f32, (void)meta;
    switch (form) {
    case F16_F32:
        if (rs)
            asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " D8
                         ", {%8, %9, %10, %11}, %12, 1, 1, 1, 0;"
                         : OUT8(d)
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db));
        else
            asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " D8
                         ", %8, %9, 1, 1, 1, 0, 0;"
                         : OUT8(d)
                         : "l"(da), "l"(db));
        break;
#ifndef F16_ONLY
    case F8_F32:
    case F8_F16:
        switch (ta * 2 + tb) {
            F8_CASES("e4m3", "e4m3", 0)
            F8_CASES("e4m3", "e5m2", 1)
            F8_CASES("e5m2", "e4m3", 2)
            F8_CASES("e5m2", "e5m2", 3)
        }
        break;
    case B1_AND:
        if (rs)
            asm volatile("wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc " D8
                         ", {%8, %9, %10, %11}, %12, 1;"
                         : OUT8(d)
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db));
        else
            asm volatile("wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc " D8
                         ", %8, %9, 1;"
                         : OUT8(d)
                         : "l"(da), "l"(db));
        break;
    case SP_F16_F32:
        // The selector is an immediate: one asm per value.
        if (rs && sel == 0)
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 " D8
                         ", {%8, %9, %10, %11}, %12, %13, 0, 1, 1, 1, 0;"
                         : OUT8(d)
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(meta));
        else if (rs)
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 " D8
                         ", {%8, %9, %10, %11}, %12, %13, 1, 1, 1, 1, 0;"
                         : OUT8(d)
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(meta));
        else if (sel == 0)
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 " D8
                         ", %8, %9, %10, 0, 1, 1, 1, 0, 0;"
                         : OUT8(d)
                         : "l"(da), "l"(db), "r"(meta));
        else
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 " D8
                         ", %8, %9, %10, 1, 1, 1, 1, 0, 0;"
                         : OUT8(d)
                         : "l"(da), "l"(db), "r"(meta));
        break;
    case SP_E4M3_F32:
        if (rs)
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k64.f32.e4m3.e4m3 " D8
                         ", {%8, %9, %10, %11}, %12, %13, 0, 1, 1, 1;"
                         : OUT8(d)
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(meta));
        else
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k64.f32.e4m3.e4m3 " D8
                         ", %8, %9, %10, 0, 1, 1, 1;"
                         : OUT8(d)
                         : "l"(da), "l"(db), "r"(meta));
        break;
    case SP_E5M2_F16:
        if (rs)
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k64.f16.e5m2.e4m3 " D4
                         ", {%4, %5, %6, %7}, %8, %9, 0, 1, 1, 1;"
                         : OUT4(d)
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(meta));
        else
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k64.f16.e5m2.e4m3 " D4
                         ", %4, %5, %6, 0, 1, 1, 1;"
                         : OUT4(d)
                         : "l"(da), "l"(db), "r"(meta));
        break;
    case F8_NEG:
        if (rs)
            asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2 " D8
                         ", {%8, %9, %10, %11}, %12, 1, -1, 1;"
                         : OUT8(d)
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db));
        else
            asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2 " D8
                         ", %8, %9, 1, -1, 1;"
                         : OUT8(d)
                         : "l"(da), "l"(db));
        break;
#define SP_FORM(SHAPE_TYPES, TAIL_RS, TAIL_SS)                                                 \
    if (rs && sel == 0)                                                                        \
        asm volatile("wgmma.mma_async.sp.sync.aligned." SHAPE_TYPES " " D8                     \
                     ", {%8, %9, %10, %11}, %12, %13, 0, 1" TAIL_RS ";"                        \
                     : OUT8(d)                                                                 \
                     : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(meta));    \
    else if (rs)                                                                               \
        asm volatile("wgmma.mma_async.sp.sync.aligned." SHAPE_TYPES " " D8                     \
                     ", {%8, %9, %10, %11}, %12, %13, 1, 1" TAIL_RS ";"                        \
                     : OUT8(d)                                                                 \
                     : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(meta));    \
    else if (sel == 0)                                                                         \
        asm volatile("wgmma.mma_async.sp.sync.aligned." SHAPE_TYPES " " D8                     \
                     ", %8, %9, %10, 0, 1" TAIL_SS ";"                                         \
                     : OUT8(d)                                                                 \
                     : "l"(da), "l"(db), "r"(meta));                                           \
    else                                                                                       \
        asm volatile("wgmma.mma_async.sp.sync.aligned." SHAPE_TYPES " " D8                     \
                     ", %8, %9, %10, 1, 1" TAIL_SS ";"                                         \
                     : OUT8(d)                                                                 \
                     : "l"(da), "l"(db), "r"(meta));
    case SP_BF16_F32:
        SP_FORM("m64n16k32.f32.bf16.bf16", ", 1, 1, 0", ", 1, 1, 0, 0")
        break;
    case SP_TF32_F32:
        SP_FORM("m64n16k16.f32.tf32.tf32", ", 1, 1", ", 1, 1")
        break;
    case SP_S8U8:
        if (rs)
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k64.s32.s8.u8 " D8
                         ", {%8, %9, %10, %11}, %12, %13, 0, 1;"
                         : OUT8(d)
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "l"(db), "r"(meta));
        else
            asm volatile("wgmma.mma_async.sp.sync.aligned.m64n16k64.s32.s8.u8 " D8
                         ", %8, %9, %10, 0, 1;"
                         : OUT8(d)
                         : "l"(da), "l"(db), "r"(meta));
        break;
#endif
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int i = 0; i < 8; i++) {
        int row = 16 * w + gid + 8 * ((i % 4) / 2), col = tig * 2 + i % 2 + 8 * (i / 4);
        uint32_t v = f16d ? (d[i / 2] >> (16 * (i % 2))) & 0xffff : d[i];
        p.d[row * 16 + col] = v;
    }
#else
    // nvcc's -arch=sm_90a also emits compute_90 PTX, which has no wgmma.
    __trap();
#endif
}

static uint64_t rng = SEED;
static uint32_t next() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

// An f8 value (e4m3 if `t` is 0, else e5m2) of biased exponent `e`, fraction random.
static uint8_t f8(int t, int e, bool neg) {
    int mb = t == 0 ? 3 : 2;
    uint8_t v = (uint8_t)((e << mb) | (next() & ((1 << mb) - 1)));
    if (t == 0 && (v & 0x7f) == 0x7f)
        v = 0x7e;  // keep NaN to the random band
    return v | (neg ? 0x80 : 0);
}

// Row `r` of an f8 A (32 bytes) or one column of B (kb bytes), in the band of `r`.
static void f8_line(uint8_t *out, int n, int t, int band) {
    int bias = t == 0 ? 7 : 15, emax = t == 0 ? 15 : 30;
    for (int k = 0; k < n; k++) {
        bool neg = next() & 1;
        switch (band) {
        case 0:
            out[k] = (uint8_t)next();
            break;
        case 1:  // exponents near 1
            out[k] = f8(t, bias - 1 + (int)(next() % 3), neg);
            break;
        case 2:  // big pairs that cancel (A's pairs equal, B's pairs opposite), a small tail
            if (k % 2 == 1 && k < n - 8)
                out[k] = out[k - 1];
            else
                out[k] = k < n - 8 ? f8(t, emax - (int)(next() % 4), neg)
                                   : f8(t, 1 + (int)(next() % 4), neg);
            break;
        default:  // wide spread: the top binades, subnormals and zeros
            switch (next() % 4) {
            case 0:
                out[k] = f8(t, emax - (int)(next() % 2), neg);
                break;
            case 1:
                out[k] = (uint8_t)((next() & ((1 << (t == 0 ? 3 : 2)) - 1)) | (neg ? 0x80 : 0));
                break;
            case 2:
                out[k] = f8(t, 1 + (int)(next() % 6), neg);
                break;
            default:
                out[k] = neg ? 0x80 : 0;
            }
        }
    }
}

static uint32_t f32_c(int i) {
    switch (next() % 10) {
    case 0:
        return 0;
    case 1:
        return 0x80000000u;
    case 2: {
        uint32_t specials[] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u, 0x7f7fffffu};
        return specials[next() % 5];
    }
    case 3:  // large
        return (next() & 0x807fffffu) | ((0x80u + 40 + next() % 60) << 23);
    case 4:  // tiny
        return (next() & 0x807fffffu) | ((1 + next() % 20) << 23);
    default:  // moderate
        return (next() & 0x807fffffu) | ((0x7fu - 8 + next() % 16) << 23);
    }
    (void)i;
}

static uint32_t f16_c() {
    switch (next() % 10) {
    case 0:
        return 0;
    case 1:
        return 0x8000;
    case 2: {
        uint32_t specials[] = {0x7c00, 0xfc00, 0x7e00, 0x0001, 0x7bff};
        return specials[next() % 5];
    }
    case 3:
        return (next() & 0x83ff) | ((20 + next() % 10) << 10);
    default:
        return (next() & 0x83ff) | ((12 + next() % 6) << 10);
    }
}

// A moderate f16 (exponents -3..2), for the dense and sparse f16 cases.
static uint16_t f16_in() { return (uint16_t)((next() & 0x83ff) | ((12 + next() % 6) << 10)); }

// A metadata nibble: two distinct increasing 2-bit indices (the valid 2:4 patterns).
static uint32_t nibble(bool tf32) {
    static const uint32_t ok[6] = {0x4, 0x8, 0xc, 0x9, 0xd, 0xe};
    return tf32 ? (next() % 2 ? 0xe : 0x4) : ok[next() % 6];
}

// The host's reference, to check the program's own layouts: D as exact double sums (the
// GPU's truncation and rounding stay well inside the tolerances), b1 exact.
static double f16_val(uint32_t v) {
    int e = (v >> 10) & 31, f = v & 1023;
    double x = e == 31 ? (f ? NAN : INFINITY) : e ? ldexp(1024 + f, e - 25) : ldexp(f, -24);
    return v & 0x8000 ? -x : x;
}
static double f32_val(uint32_t v) {
    float f;
    memcpy(&f, &v, 4);
    return f;
}
static double f8_val(int t, uint32_t v) {
    int mb = t == 0 ? 3 : 2, eb = 7 - mb, bias = t == 0 ? 7 : 15;
    int e = (v >> mb) & ((1 << eb) - 1), f = v & ((1 << mb) - 1);
    double x;
    if (t == 0 && (v & 0x7f) == 0x7f)
        x = NAN;
    else if (t == 1 && e == 31)
        x = f ? NAN : INFINITY;
    else
        x = e ? ldexp((1 << mb) + f, e - bias - mb) : ldexp(f, 1 - bias - mb);
    return v & 0x80 ? -x : x;
}

// The dense column of packed element `p` of row `r` (0..63) under the metadata words `m`
// (the lanes of each warp as the ISA's figures 176, 180 and 181 give them).
static int sparse_col(const std::vector<uint32_t> &m, int bits, int sel, int r, int p) {
    int w = r / 16, rr = r % 16, j = p / 2, lane, bit;
    if (bits == 32) {  // tf32: one element of each chunk of two, index 0b0100 or 0b1110
        lane = 4 * (rr % 8) + 2 * sel + p / 4;
        bit = 16 * (rr / 8) + 4 * (p % 4);
        return 2 * p + ((m[32 * w + lane] >> bit) & 3) / 2;
    }
    if (bits == 16) {
        lane = 4 * (rr % 8) + 2 * sel + j / 4;
        bit = 16 * (rr / 8) + 4 * (j % 4);
    } else {
        lane = 4 * (rr % 8) + 2 * (j / 8) + rr / 8;
        bit = 4 * (j % 8);
    }
    uint32_t nib = (m[32 * w + lane] >> bit) & 15;
    return 4 * j + (p % 2 ? nib >> 2 : nib & 3);
}

static uint32_t word(const uint8_t *p, int bytes) {
    uint32_t v = 0;
    memcpy(&v, p, bytes);
    return v;
}

// Element `k` of a row of A or column of B (bytes at `p`) as a double.
static double value(const Case &cs, bool is_a, const uint8_t *p, int k) {
    switch (kind_of(cs.form)) {
    case 0:
        return f16_val(word(p + 2 * k, 2));
    case 1:
        return f32_val(word(p + 2 * k, 2) << 16);
    case 2:
        return f32_val(word(p + 4 * k, 4) & 0xffffe000u);
    case 5:
        return is_a ? (double)(int8_t)p[k] : (double)p[k];
    default:
        return f8_val(is_a ? cs.ta : cs.tb, p[k]);
    }
}

static void check(const Case &cs, const std::vector<uint8_t> &a, const std::vector<uint8_t> &b,
                  int kb, const std::vector<uint32_t> &c, const std::vector<uint32_t> &m,
                  const std::vector<uint32_t> &d) {
    bool sparse = is_sparse(cs.form);
    bool f16d = cs.form == F8_F16 || cs.form == SP_E5M2_F16;
    int kind = kind_of(cs.form), bits = kind_bits[kind];
    int bad = 0;
    for (int r = 0; r < 64; r++)
        for (int n = 0; n < 16; n++) {
            uint32_t got = d[r * 16 + n];
            if (kind == 4) {
                uint32_t want = c[r * 16 + n];
                for (int i = 0; i < 32; i++)
                    want += __builtin_popcount(a[r * 32 + i] & b[n * 32 + i]);
                bad += got != want;
                continue;
            }
            int ka = 256 / bits;  // A's (packed) elements per row
            if (kind == 5) {
                int64_t want = (int32_t)c[r * 16 + n];
                for (int p = 0; p < ka; p++) {
                    int k = sparse_col(m, bits, cs.sel, r, p);
                    want += (int64_t)value(cs, true, &a[r * 32], p) *
                            (int64_t)value(cs, false, &b[n * kb], k);
                }
                bad += got != (uint32_t)want;
                continue;
            }
            double sum = f16d ? f16_val(c[r * 16 + n]) : f32_val(c[r * 16 + n]);
            double mag = fabs(sum);
            for (int p = 0; p < ka; p++) {
                int k = sparse ? sparse_col(m, bits, cs.sel, r, p) : p;
                double x = value(cs, true, &a[r * 32], p), y = value(cs, false, &b[n * kb], k);
                if (cs.form == F8_NEG)
                    x = -x;
                sum += x * y;
                mag += fabs(x * y);
            }
            double g = f16d ? f16_val(got) : f32_val(got);
            if (!std::isfinite(sum) || !std::isfinite(mag) || (f16d && fabs(sum) > 65504)) {
                bad += std::isfinite(g) && fabs(g) < 65504;
                continue;
            }
            double tol = (kind < 2 ? 1e-5 : f16d ? 4e-3 : 1e-3) * mag + (f16d ? 1.2e-7 : 1e-38);
            bad += !(fabs(g - sum) <= tol);
        }
    printf("check %s: %s %d\n", cs.name.c_str(), bad ? "BAD" : "ok", bad);
}

int main() {
    std::vector<Case> cases;
    cases.push_back({"f16.f32.ss", F16_F32, 0, 0, false, 0});
    cases.push_back({"f16.f32.rs", F16_F32, 0, 0, true, 0});
#ifndef F16_ONLY
    const char *f8n[2] = {"e4m3", "e5m2"};
    for (int dt = 0; dt < 2; dt++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int rs = 0; rs < 2; rs++)
                    cases.push_back({std::string(dt ? "f16." : "f32.") + f8n[ta] + "." + f8n[tb] +
                                         (rs ? ".rs" : ".ss"),
                                     dt ? F8_F16 : F8_F32, ta, tb, rs != 0, 0});
    cases.push_back({"b1.and.ss", B1_AND, 0, 0, false, 0});
    cases.push_back({"b1.and.rs", B1_AND, 0, 0, true, 0});
    for (int sel = 0; sel < 2; sel++)
        for (int rs = 0; rs < 2; rs++)
            cases.push_back({std::string("sp.f32.f16.sel") + char('0' + sel) + (rs ? ".rs" : ".ss"),
                             SP_F16_F32, 0, 0, rs != 0, sel});
    cases.push_back({"sp.f32.e4m3.e4m3.ss", SP_E4M3_F32, 0, 0, false, 0});
    cases.push_back({"sp.f32.e4m3.e4m3.rs", SP_E4M3_F32, 0, 0, true, 0});
    cases.push_back({"sp.f16.e5m2.e4m3.ss", SP_E5M2_F16, 1, 0, false, 0});
    cases.push_back({"sp.f16.e5m2.e4m3.rs", SP_E5M2_F16, 1, 0, true, 0});
    cases.push_back({"neg.f32.e4m3.e5m2.ss", F8_NEG, 0, 1, false, 0});
    cases.push_back({"neg.f32.e4m3.e5m2.rs", F8_NEG, 0, 1, true, 0});
    for (int sel = 0; sel < 2; sel++)
        for (int rs = 0; rs < 2; rs++) {
            std::string tail = std::string(".sel") + char('0' + sel) + (rs ? ".rs" : ".ss");
            cases.push_back({"sp.f32.bf16" + tail, SP_BF16_F32, 0, 0, rs != 0, sel});
            cases.push_back({"sp.f32.tf32" + tail, SP_TF32_F32, 0, 0, rs != 0, sel});
        }
    cases.push_back({"sp.s32.s8.u8.ss", SP_S8U8, 0, 0, false, 0});
    cases.push_back({"sp.s32.s8.u8.rs", SP_S8U8, 0, 0, true, 0});
#endif

    printf("seed %llx\n", (unsigned long long)SEED);
    uint8_t *da, *db;
    uint32_t *dc, *dm, *dd;
    CK(cudaMalloc(&da, 64 * 32));
    CK(cudaMalloc(&db, 16 * 64));
    CK(cudaMalloc(&dc, 64 * 16 * 4));
    CK(cudaMalloc(&dm, 128 * 4));
    CK(cudaMalloc(&dd, 64 * 16 * 4));
    for (const Case &cs : cases) {
        bool sparse = is_sparse(cs.form);
        int kb = sparse ? 64 : 32;
        std::vector<uint8_t> a(64 * 32), b(16 * kb);
        std::vector<uint32_t> c(64 * 16), m(128);
        int kind = kind_of(cs.form);
        if (kind == 0 || kind == 1) {
            // Moderate values: exponents -3..2 (f16), -7..8 (bf16).
            for (size_t i = 0; i < a.size() + b.size(); i += 2) {
                uint16_t v = kind == 0 ? f16_in()
                                       : (uint16_t)((next() & 0x807f) | ((120 + next() % 16) << 7));
                memcpy(i < a.size() ? &a[i] : &b[i - a.size()], &v, 2);
            }
        } else if (kind == 2) {
            // f32 words with the low 13 bits set too (tf32 ignores them).
            for (size_t i = 0; i < a.size() + b.size(); i += 4) {
                uint32_t v = (next() & 0x807fffffu) | ((120u + next() % 16) << 23);
                memcpy(i < a.size() ? &a[i] : &b[i - a.size()], &v, 4);
            }
        } else if (kind == 4 || kind == 5) {
            for (auto &v : a)
                v = (uint8_t)next();
            for (auto &v : b)
                v = (uint8_t)next();
        } else {
            for (int r = 0; r < 64; r++)
                f8_line(&a[r * 32], 32, cs.ta, r / 16);
            // B's columns: bands by column; cancelling columns negate their pairs' second.
            for (int n = 0; n < 16; n++) {
                int band = n % 4;
                f8_line(&b[n * kb], kb, cs.tb, band);
                if (band == 2)
                    for (int k = 1; k < kb - 8; k += 2)
                        b[n * kb + k] = b[n * kb + k - 1] ^ 0x80;
            }
        }
        bool f16d = cs.form == F8_F16 || cs.form == SP_E5M2_F16;
        for (int i = 0; i < 64 * 16; i++)
            c[i] = kind >= 4 ? next() % 1000 - 500 : f16d ? f16_c() : f32_c(i);
        if (sparse)
            for (auto &v : m) {
                v = 0;
                for (int j = 0; j < 8; j++)
                    v |= nibble(cs.form == SP_TF32_F32) << (4 * j);
            }
        CK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dm, m.data(), m.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(dd, 0xee, 64 * 16 * 4));
        Params p{da, db, dc, sparse ? dm : nullptr, dd, kb};
        probe<<<1, 128>>>(p, cs.form, cs.ta, cs.tb, cs.rs, cs.sel);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<uint32_t> d(64 * 16);
        CK(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost));
        printf("case %s\n", cs.name.c_str());
        for (int r = 0; r < 64; r++) {
            printf("%s %d:", cs.name.c_str(), r);
            for (int n = 0; n < 16; n++)
                printf(f16d ? " %04x" : " %08x", d[r * 16 + n]);
            printf("\n");
        }
        check(cs, a, b, kb, c, m, d);
    }
    printf("exit %d\n", failures);
    return failures != 0;
}
