// Atomics of every kind on global and shared memory, and a 256-bin histogram with shared-memory
// privatisation. Expected values come from arithmetic on the host: sums of integers (exact in any
// order), the CUDA definitions of atomicInc/atomicDec ((old >= val) ? 0 : old+1 and
// ((old == 0) | (old > val)) ? val : old-1), and multiset arguments for exch/inc/dec results.
#include "check.h"
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

constexpr int BLOCKS = 16, THREADS = 256, N = BLOCKS * THREADS;
constexpr unsigned WRAP = 37;

__host__ __device__ unsigned hash32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}
__host__ __device__ float hfloat(unsigned t) {  // spread of signed values, some negative
  return ((int)(hash32(t) % 20001) - 10000) * 0.125f;
}

struct G {  // global-memory targets
  int add_i; unsigned add_u; unsigned long long add_u64; float add_f; double add_d;
  int sub_i; unsigned exch; unsigned inc; unsigned dec;
  int min_i, max_i; unsigned min_u, max_u; long long min_ll, max_ll;
  unsigned long long min_ull, max_ull;
  unsigned and_u, or_u, xor_u; unsigned long long and_ull, or_ull, xor_ull;
  unsigned cas_count; unsigned long long cas_sum; int fmax_bits; int sys_add; int blk_add;
  unsigned inc_big, dec_big, dec_zero;
  __half2 h2; __nv_bfloat162 b2; __half h; __nv_bfloat16 b;
};

__device__ float atomic_max_float(float* addr, float v) {
  int* p = (int*)addr;
  int old = *p, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(p, assumed, __float_as_int(v));
  } while (old != assumed);
  return __int_as_float(old);
}

__global__ void global_atomics(G* g, unsigned* exch_old, unsigned* inc_old, unsigned* dec_old) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned h = hash32(t);
  atomicAdd(&g->add_i, (int)(t % 7) - 3);
  atomicAdd(&g->add_u, t);
  atomicAdd(&g->add_u64, (unsigned long long)t << 20);
  atomicAdd(&g->add_f, (float)(t % 4) * 0.5f);
  atomicAdd(&g->add_d, (double)t * 0.25);
  atomicSub(&g->sub_i, (int)(t % 5));
  exch_old[t] = atomicExch(&g->exch, t + 1000);
  inc_old[t] = atomicInc(&g->inc, WRAP);
  dec_old[t] = atomicDec(&g->dec, WRAP);
  atomicMin(&g->min_i, (int)h);
  atomicMax(&g->max_i, (int)h);
  atomicMin(&g->min_u, h);
  atomicMax(&g->max_u, h);
  long long s64 = (long long)(((unsigned long long)h << 32) | hash32(h));
  atomicMin(&g->min_ll, s64);
  atomicMax(&g->max_ll, s64);
  atomicMin(&g->min_ull, (unsigned long long)s64);
  atomicMax(&g->max_ull, (unsigned long long)s64);
  atomicAnd(&g->and_u, ~(1u << (h % 32)) | (t % 3 ? 0xffffffffu : 0u) );
  atomicOr(&g->or_u, (t % 5 == 0) ? 1u << (h % 32) : 0u);
  atomicXor(&g->xor_u, h);
  atomicAnd(&g->and_ull, ~(1ull << (h % 64)) | (t % 11 ? ~0ull : 0ull));
  atomicOr(&g->or_ull, (t % 13 == 0) ? 1ull << (h % 64) : 0ull);
  atomicXor(&g->xor_ull, (unsigned long long)s64);
  // CAS loops: a counter and a 64-bit sum
  unsigned old = g->cas_count, a;
  do { a = old; old = atomicCAS(&g->cas_count, a, a + 1); } while (old != a);
  unsigned long long o64 = g->cas_sum, a64;
  do { a64 = o64; o64 = atomicCAS(&g->cas_sum, a64, a64 + t); } while (o64 != a64);
  atomic_max_float((float*)&g->fmax_bits, hfloat(t));
  atomicAdd_system(&g->sys_add, 3);
  atomicAdd_block(&g->blk_add, 2);  // block scope on global memory: still one location
#ifdef ATOMICS_16BIT
  // compute_80 has no native 16-bit scalar add: nvcc emits an atom.cas.b16 loop for these
  if (t < 128) {
    atomicAdd(&g->h2, __halves2half2(__float2half(1.0f), __float2half(0.5f)));
    atomicAdd(&g->b2, __halves2bfloat162(__float2bfloat16(1.0f), __float2bfloat16(0.5f)));
    atomicAdd(&g->h, __float2half(0.25f));
    atomicAdd(&g->b, __float2bfloat16(2.0f));
  }
#endif
  if (t == 0) {
    // inc/dec outside the wrap range: (old >= val) ? 0 : old+1 ; (old==0 | old>val) ? val : old-1
    atomicInc(&g->inc_big, WRAP);
    atomicDec(&g->dec_big, WRAP);
    atomicDec(&g->dec_zero, WRAP);
  }
}

// Shared memory: the same kinds per block, results written out per block.
struct S {
  int add_i; unsigned add_u; unsigned long long add_u64; float add_f; double add_d; int sub_i;
  unsigned inc, dec; int min_i, max_i; unsigned long long min_ull, max_ull;
  unsigned and_u, or_u, xor_u; unsigned cas_count; float fmax; unsigned exch; int blk;
};

__global__ void shared_atomics(S* out) {
  __shared__ S s;
  unsigned t = threadIdx.x, b = blockIdx.x;
  unsigned h = hash32(t + 7919 * b);
  if (t == 0) {
    memset(&s, 0, sizeof s);
    s.min_i = 0x7fffffff; s.max_i = (int)0x80000000; s.min_ull = ~0ull; s.and_u = ~0u;
    s.fmax = -1e30f; s.dec = 5; s.inc = b;
  }
  __syncthreads();
  atomicAdd(&s.add_i, (int)(h % 9) - 4);
  atomicAdd(&s.add_u, h % 1000);
  atomicAdd(&s.add_u64, (unsigned long long)h << 8);
  atomicAdd(&s.add_f, (float)(h % 8) * 0.25f);
  atomicAdd(&s.add_d, (double)(h % 1000) * 0.5);
  atomicSub(&s.sub_i, (int)(h % 3));
  atomicInc(&s.inc, 9);
  atomicDec(&s.dec, 9);
  atomicMin(&s.min_i, (int)h);
  atomicMax(&s.max_i, (int)h);
  atomicMin(&s.min_ull, ((unsigned long long)h << 32) | t);
  atomicMax(&s.max_ull, ((unsigned long long)h << 32) | t);
  atomicAnd(&s.and_u, t % 4 ? ~0u : ~(1u << (h % 32)));
  atomicOr(&s.or_u, t % 6 ? 0u : (1u << (h % 32)));
  atomicXor(&s.xor_u, h);
  unsigned old = s.cas_count, a;
  do { a = old; old = atomicCAS(&s.cas_count, a, a + 2); } while (old != a);
  atomic_max_float(&s.fmax, hfloat(h));
  atomicExch(&s.exch, 1);
  atomicAdd_block(&s.blk, 1);
  __syncthreads();
  if (t == 0) out[b] = s;
}

// 256-bin histogram: each block counts into shared bins, then adds them to the global bins.
__global__ void histogram(const unsigned* data, int nwords, unsigned* bins) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += gridDim.x * blockDim.x) {
    unsigned w = data[i];
    atomicAdd(&local[w & 0xff], 1u);
    atomicAdd(&local[(w >> 8) & 0xff], 1u);
    atomicAdd(&local[(w >> 16) & 0xff], 1u);
    atomicAdd(&local[w >> 24], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i]) atomicAdd(&bins[i], local[i]);
}


#ifdef ATOMICS_16BIT
static float h2f(unsigned short bits) {  // binary16 to float, exact
  int e = (bits >> 10) & 31, m = bits & 1023;
  float v = e ? ldexpf((float)(m | 1024), e - 25) : ldexpf((float)m, -24);
  return bits & 0x8000 ? -v : v;
}
static float bf2f(unsigned short bits) {
  unsigned u = (unsigned)bits << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
#endif

int main() {
  // ---- global
  G init;
  memset(&init, 0, sizeof init);
  init.sub_i = 1000; init.exch = 7; init.dec = 5;
  init.min_i = 0x7fffffff; init.max_i = (int)0x80000000; init.min_u = ~0u; init.max_u = 0;
  init.min_ll = 0x7fffffffffffffffll; init.max_ll = (long long)0x8000000000000000ull;
  init.min_ull = ~0ull; init.max_ull = 0;
  init.and_u = ~0u; init.and_ull = ~0ull;
  float fneg = -1e30f; memcpy(&init.fmax_bits, &fneg, 4);
  init.inc_big = 100; init.dec_big = 100; init.dec_zero = 0;
  G* dg; unsigned *dex, *dinc, *ddec;
  CHECK(cudaMalloc(&dg, sizeof(G)));
  CHECK(cudaMalloc(&dex, N * 4)); CHECK(cudaMalloc(&dinc, N * 4)); CHECK(cudaMalloc(&ddec, N * 4));
  CHECK(cudaMemcpy(dg, &init, sizeof(G), cudaMemcpyHostToDevice));
  global_atomics<<<BLOCKS, THREADS>>>(dg, dex, dinc, ddec);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  G g;
  std::vector<unsigned> exo(N), inco(N), deco(N);
  CHECK(cudaMemcpy(&g, dg, sizeof(G), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(exo.data(), dex, N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(inco.data(), dinc, N * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(deco.data(), ddec, N * 4, cudaMemcpyDeviceToHost));

  long long add_i = 0; unsigned add_u = 0; unsigned long long add_u64 = 0; double add_f = 0, add_d = 0;
  int sub_i = 1000; int min_i = 0x7fffffff, max_i = (int)0x80000000; unsigned min_u = ~0u, max_u = 0;
  long long min_ll = init.min_ll, max_ll = init.max_ll; unsigned long long min_ull = ~0ull, max_ull = 0;
  unsigned and_u = ~0u, or_u = 0, xor_u = 0; unsigned long long and_ull = ~0ull, or_ull = 0, xor_ull = 0;
  unsigned long long cas_sum = 0; float fmax = -1e30f;
  for (unsigned t = 0; t < N; t++) {
    unsigned h = hash32(t);
    add_i += (int)(t % 7) - 3; add_u += t; add_u64 += (unsigned long long)t << 20;
    add_f += (t % 4) * 0.5; add_d += t * 0.25; sub_i -= t % 5;
    min_i = std::min(min_i, (int)h); max_i = std::max(max_i, (int)h);
    min_u = std::min(min_u, h); max_u = std::max(max_u, h);
    long long s64 = (long long)(((unsigned long long)h << 32) | hash32(h));
    min_ll = std::min(min_ll, s64); max_ll = std::max(max_ll, s64);
    min_ull = std::min(min_ull, (unsigned long long)s64); max_ull = std::max(max_ull, (unsigned long long)s64);
    and_u &= ~(1u << (h % 32)) | (t % 3 ? 0xffffffffu : 0u);
    or_u |= (t % 5 == 0) ? 1u << (h % 32) : 0u;
    xor_u ^= h;
    and_ull &= ~(1ull << (h % 64)) | (t % 11 ? ~0ull : 0ull);
    or_ull |= (t % 13 == 0) ? 1ull << (h % 64) : 0ull;
    xor_ull ^= (unsigned long long)s64;
    cas_sum += t;
    fmax = std::max(fmax, hfloat(t));
  }
  EXPECT_MSG(g.add_i == (int)add_i, "add_i %d want %lld", g.add_i, add_i);
  EXPECT_MSG(g.add_u == add_u, "add_u %u want %u", g.add_u, add_u);
  EXPECT_MSG(g.add_u64 == add_u64, "add_u64 %llu want %llu", g.add_u64, add_u64);
  EXPECT_MSG(g.add_f == (float)add_f, "add_f %g want %g", g.add_f, add_f);
  EXPECT_MSG(g.add_d == add_d, "add_d %g want %g", g.add_d, add_d);
  EXPECT_MSG(g.sub_i == sub_i, "sub_i %d want %d", g.sub_i, sub_i);
  EXPECT_MSG(g.min_i == min_i && g.max_i == max_i, "min/max_i %d %d want %d %d", g.min_i, g.max_i, min_i, max_i);
  EXPECT_MSG(g.min_u == min_u && g.max_u == max_u, "min/max_u %u %u want %u %u", g.min_u, g.max_u, min_u, max_u);
  EXPECT_MSG(g.min_ll == min_ll && g.max_ll == max_ll, "min/max_ll %lld %lld want %lld %lld", g.min_ll, g.max_ll, min_ll, max_ll);
  EXPECT_MSG(g.min_ull == min_ull && g.max_ull == max_ull, "min/max_ull %llx %llx want %llx %llx", g.min_ull, g.max_ull, min_ull, max_ull);
  EXPECT_MSG(g.and_u == and_u && g.or_u == or_u && g.xor_u == xor_u, "and/or/xor %x %x %x want %x %x %x", g.and_u, g.or_u, g.xor_u, and_u, or_u, xor_u);
  EXPECT_MSG(g.and_ull == and_ull && g.or_ull == or_ull && g.xor_ull == xor_ull, "and/or/xor 64 %llx %llx %llx want %llx %llx %llx", g.and_ull, g.or_ull, g.xor_ull, and_ull, or_ull, xor_ull);
  EXPECT_MSG(g.cas_count == (unsigned)N, "cas_count %u want %d", g.cas_count, N);
  EXPECT_MSG(g.cas_sum == cas_sum, "cas_sum %llu want %llu", g.cas_sum, cas_sum);
  float gf; memcpy(&gf, &g.fmax_bits, 4);
  EXPECT_MSG(gf == fmax, "cas float max %g want %g", gf, fmax);
  EXPECT_MSG(g.sys_add == 3 * N && g.blk_add == 2 * N, "system/block add %d %d", g.sys_add, g.blk_add);
  // exch: the olds plus the final value are the initial value plus every thread's value.
  {
    std::vector<unsigned> got(exo); got.push_back(g.exch);
    std::vector<unsigned> want; want.push_back(7);
    for (unsigned t = 0; t < N; t++) want.push_back(t + 1000);
    std::sort(got.begin(), got.end()); std::sort(want.begin(), want.end());
    EXPECT_MSG(got == want, "atomicExch results are not a permutation");
  }
  // inc/dec: N applications of the same operation visit a fixed sequence of values.
  {
    std::vector<unsigned> wi, wd; unsigned vi = 0, vd = 5;
    for (int k = 0; k < N; k++) {
      wi.push_back(vi); wd.push_back(vd);
      vi = (vi >= WRAP) ? 0 : vi + 1;
      vd = (vd == 0 || vd > WRAP) ? WRAP : vd - 1;
    }
    std::sort(wi.begin(), wi.end()); std::sort(wd.begin(), wd.end());
    std::sort(inco.begin(), inco.end()); std::sort(deco.begin(), deco.end());
    EXPECT_MSG(g.inc == vi && inco == wi, "atomicInc final %u want %u", g.inc, vi);
    EXPECT_MSG(g.dec == vd && deco == wd, "atomicDec final %u want %u", g.dec, vd);
  }
  EXPECT_MSG(g.inc_big == 0, "atomicInc(100, 37) left %u want 0", g.inc_big);
  EXPECT_MSG(g.dec_big == WRAP, "atomicDec(100, 37) left %u want 37", g.dec_big);
  EXPECT_MSG(g.dec_zero == WRAP, "atomicDec(0, 37) left %u want 37", g.dec_zero);
#ifdef ATOMICS_16BIT
  {
    unsigned short hx, hy, hs, bx, by, bs;
    memcpy(&hx, &g.h2, 2); memcpy(&hy, (char*)&g.h2 + 2, 2);
    memcpy(&bx, &g.b2, 2); memcpy(&by, (char*)&g.b2 + 2, 2);
    memcpy(&hs, &g.h, 2); memcpy(&bs, &g.b, 2);
    EXPECT_MSG(h2f(hx) == 128.0f && h2f(hy) == 64.0f, "half2 add %g %g want 128 64", h2f(hx), h2f(hy));
    EXPECT_MSG(bf2f(bx) == 128.0f && bf2f(by) == 64.0f, "bfloat162 add %g %g want 128 64", bf2f(bx), bf2f(by));
    EXPECT_MSG(h2f(hs) == 32.0f, "half add %g want 32", h2f(hs));
    EXPECT_MSG(bf2f(bs) == 256.0f, "bfloat16 add %g want 256", bf2f(bs));
  }
#endif

  // ---- shared
  const int SB = 8;
  S* ds;
  CHECK(cudaMalloc(&ds, SB * sizeof(S)));
  shared_atomics<<<SB, THREADS>>>(ds);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<S> so(SB);
  CHECK(cudaMemcpy(so.data(), ds, SB * sizeof(S), cudaMemcpyDeviceToHost));
  for (int b = 0; b < SB; b++) {
    long long ai = 0; unsigned au = 0; unsigned long long a64 = 0; double af = 0, ad = 0; int si = 0;
    unsigned inc = b, dec = 5; int mn = 0x7fffffff, mx = (int)0x80000000;
    unsigned long long mnu = ~0ull, mxu = 0; unsigned an = ~0u, o = 0, x = 0; float fm = -1e30f;
    for (unsigned t = 0; t < THREADS; t++) {
      unsigned h = hash32(t + 7919 * b);
      ai += (int)(h % 9) - 4; au += h % 1000; a64 += (unsigned long long)h << 8;
      af += (h % 8) * 0.25; ad += (h % 1000) * 0.5; si -= h % 3;
      inc = (inc >= 9) ? 0 : inc + 1; dec = (dec == 0 || dec > 9) ? 9 : dec - 1;
      mn = std::min(mn, (int)h); mx = std::max(mx, (int)h);
      unsigned long long k = ((unsigned long long)h << 32) | t;
      mnu = std::min(mnu, k); mxu = std::max(mxu, k);
      an &= t % 4 ? ~0u : ~(1u << (h % 32)); o |= t % 6 ? 0u : (1u << (h % 32)); x ^= h;
      fm = std::max(fm, hfloat(h));
    }
    const S& s = so[b];
    EXPECT_MSG(s.add_i == (int)ai && s.add_u == au && s.add_u64 == a64, "block %d shared add %d %u %llu", b, s.add_i, s.add_u, s.add_u64);
    EXPECT_MSG(s.add_f == (float)af && s.add_d == ad && s.sub_i == si, "block %d shared add f/d/sub %g %g %d want %g %g %d", b, s.add_f, s.add_d, s.sub_i, af, ad, si);
    EXPECT_MSG(s.inc == inc && s.dec == dec, "block %d shared inc/dec %u %u want %u %u", b, s.inc, s.dec, inc, dec);
    EXPECT_MSG(s.min_i == mn && s.max_i == mx && s.min_ull == mnu && s.max_ull == mxu, "block %d shared min/max", b);
    EXPECT_MSG(s.and_u == an && s.or_u == o && s.xor_u == x, "block %d shared and/or/xor %x %x %x want %x %x %x", b, s.and_u, s.or_u, s.xor_u, an, o, x);
    EXPECT_MSG(s.cas_count == 2 * THREADS && s.fmax == fm && s.exch == 1 && s.blk == THREADS, "block %d shared cas %u fmax %g (want %g) exch %u blk %d", b, s.cas_count, s.fmax, fm, s.exch, s.blk);
  }

  // ---- histogram
  const int NBYTES = 1 << 20, NW = NBYTES / 4;
  std::vector<unsigned> data(NW);
  for (int i = 0; i < NW; i++) {
    unsigned h = hash32(i);
    // skewed: half the bytes land in a few bins, so many atomics collide
    data[i] = (h & 0x80808080u) ? h : (h & 0x07070707u);
  }
  std::vector<unsigned> want(256, 0);
  for (unsigned w : data) for (int k = 0; k < 4; k++) want[(w >> (8 * k)) & 0xff]++;
  unsigned *dd, *dbins;
  CHECK(cudaMalloc(&dd, NBYTES)); CHECK(cudaMalloc(&dbins, 256 * 4));
  CHECK(cudaMemcpy(dd, data.data(), NBYTES, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dbins, 0, 256 * 4));
  histogram<<<32, 256>>>(dd, NW, dbins);
  CHECK(cudaGetLastError());
  std::vector<unsigned> bins(256);
  CHECK(cudaMemcpy(bins.data(), dbins, 256 * 4, cudaMemcpyDeviceToHost));
  unsigned long long total = 0;
  for (int i = 0; i < 256; i++) {
    total += bins[i];
    EXPECT_MSG(bins[i] == want[i], "bin %d = %u want %u", i, bins[i], want[i]);
  }
  EXPECT_MSG(total == (unsigned long long)NBYTES, "histogram total %llu", total);
  if (expect_failures) {
    printf("FAIL isa_atomics: %d checks failed\n", expect_failures);
    return 1;
  }
  printf("PASS isa_atomics: %d threads, histogram of %d bytes\n", N, NBYTES);
  return 0;
}
