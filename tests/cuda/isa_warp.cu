// Warp shuffles and votes, checked against the PTX ISA's definitions of shfl.sync (idx, up,
// down, bfly with a segment mask from the width), vote.sync, match.sync, redux.sync and
// activemask, evaluated on the host. One block of 128 threads (4 warps) plus a partial warp.
#include "check.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <vector>

namespace cg = cooperative_groups;
constexpr int T = 128;
constexpr int NOUT = 64;  // values recorded per thread

__host__ __device__ unsigned hash32(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}

__global__ void warp_ops(unsigned* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  unsigned* o = out + t * NOUT;
  unsigned v = hash32(t) % 1000;
  int k = 0;
  const unsigned FULL = 0xffffffffu;
  // shfl.idx, widths 32/16/8, in-range, out-of-range and negative source lanes
  o[k++] = __shfl_sync(FULL, v, (lane * 7 + 3) % 32);
  o[k++] = __shfl_sync(FULL, v, lane + 13, 16);
  o[k++] = __shfl_sync(FULL, v, -3, 8);
  o[k++] = __shfl_sync(FULL, v, 40);
  // shfl.up / down with widths; lanes whose source falls outside the segment keep their value
  o[k++] = __shfl_up_sync(FULL, v, 3);
  o[k++] = __shfl_up_sync(FULL, v, 5, 16);
  o[k++] = __shfl_up_sync(FULL, v, 2, 8);
  o[k++] = __shfl_down_sync(FULL, v, 3);
  o[k++] = __shfl_down_sync(FULL, v, 5, 16);
  o[k++] = __shfl_down_sync(FULL, v, 6, 8);
  // shfl.bfly: an xor mask that reaches past the segment keeps the value; earlier ones are read
  o[k++] = __shfl_xor_sync(FULL, v, 1);
  o[k++] = __shfl_xor_sync(FULL, v, 21);
  o[k++] = __shfl_xor_sync(FULL, v, 9, 16);
  o[k++] = __shfl_xor_sync(FULL, v, 12, 8);
  // 64-bit and float shuffles
  unsigned long long w = ((unsigned long long)hash32(t + 500) << 32) | v;
  unsigned long long w2 = __shfl_sync(FULL, w, 31 - lane);
  o[k++] = (unsigned)w2; o[k++] = (unsigned)(w2 >> 32);
  float f = __shfl_down_sync(FULL, (float)v * 0.5f, 1);
  o[k++] = __float_as_uint(f);
  // warp reduction (butterfly) and inclusive scan (shfl.up)
  unsigned s = v;
  for (int d = 16; d > 0; d /= 2) s += __shfl_xor_sync(FULL, s, d);
  o[k++] = s;
  unsigned sc = v;
  for (int d = 1; d < 32; d *= 2) {
    unsigned y = __shfl_up_sync(FULL, sc, d);
    if (lane >= (unsigned)d) sc += y;
  }
  o[k++] = sc;
  // votes
  bool p = (v % 3) == 0;
  unsigned b = __ballot_sync(FULL, p);
  o[k++] = b;
  o[k++] = __all_sync(FULL, v < 1000);
  o[k++] = __all_sync(FULL, p);
  o[k++] = __any_sync(FULL, v == 999999);
  o[k++] = __any_sync(FULL, p);
  o[k++] = __popc(b);
  o[k++] = __ffs(b);
  o[k++] = __ffs(__ballot_sync(FULL, false));
  // activemask and votes under divergence
  unsigned am = 0, bo = 0, an = 0;
  if (lane & 1) {
    am = __activemask();
    bo = __ballot_sync(0xaaaaaaaau, lane > 20);
    an = __any_sync(0xaaaaaaaau, lane == 7);
  } else if (lane % 4 == 0) {
    am = __activemask();
    bo = __ballot_sync(0x11111111u, true);
  }
  o[k++] = am; o[k++] = bo; o[k++] = an;
  // match
  unsigned key = v % 4;
  o[k++] = __match_any_sync(FULL, key);
  int pred = -1;
  o[k++] = __match_all_sync(FULL, key, &pred);
  o[k++] = pred;
  int pred2 = -1;
  o[k++] = __match_all_sync(FULL, t / 32, &pred2);
  o[k++] = pred2;
  // redux (compute_80)
  o[k++] = __reduce_add_sync(FULL, v);
  o[k++] = (unsigned)__reduce_min_sync(FULL, (int)v - 500);
  o[k++] = (unsigned)__reduce_max_sync(FULL, (int)v - 500);
  o[k++] = __reduce_min_sync(FULL, hash32(t));
  o[k++] = __reduce_max_sync(FULL, hash32(t));
  o[k++] = __reduce_and_sync(FULL, hash32(t) | 0x10000001u);
  o[k++] = __reduce_or_sync(FULL, 1u << (v % 32));
  o[k++] = __reduce_xor_sync(FULL, hash32(t));
  unsigned low = 0;
  if (lane < 16) low = __reduce_add_sync(0x0000ffffu, v);  // only the lanes named in the mask
  o[k++] = low;
  // cooperative groups tiles
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  unsigned r16 = v;
  for (int d = 8; d > 0; d /= 2) r16 += t16.shfl_down(r16, d);
  o[k++] = t16.shfl(r16, 0);
  o[k++] = t8.shfl_xor(v, 5);
  o[k++] = t8.shfl_up(v, 1);
  o[k++] = t8.meta_group_rank() * 100 + t8.thread_rank();
#ifdef MASKED_COLLECTIVES
  // Converged lanes passing disjoint member masks: each group sees only its own members
  // (tile.ballot and cg::reduce on tiles compile to vote.sync / redux.sync with the tile's mask).
  o[k++] = t8.ballot(p);
  o[k++] = cg::reduce(t16, v, cg::plus<unsigned>());
  unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  o[k++] = __ballot_sync(half, p);
  o[k++] = __reduce_add_sync(half, v);
  o[k++] = __match_any_sync(half, key);
  o[k++] = __any_sync(half, lane == 20);
#endif
  o[k++] = cg::reduce(t8, v, cg::greater<unsigned>());
  o[k++] = k;  // number of values, checked by the host
}

// A partial last warp: 40 threads, the second warp has 8 lanes.
__global__ void partial(unsigned* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  unsigned m = __activemask();
  out[t * 4 + 0] = m;
  out[t * 4 + 1] = __ballot_sync(m, lane % 2);
  out[t * 4 + 2] = __shfl_down_sync(m, t, 1);
  out[t * 4 + 3] = __reduce_add_sync(m, t);
}

static int bad = 0;

// PTX shfl.sync: c = ((32 - width) << 8) | clamp, segmask = c[12:8].
static unsigned shfl(const unsigned* vals, unsigned lane, int mode, int b, int width) {
  unsigned segmask = (32 - width) & 31, cval = mode == 1 ? 0 : 31;
  unsigned maxLane = (lane & segmask) | (cval & ~segmask), minLane = lane & segmask;
  int j;
  bool ok;
  unsigned bv = (unsigned)b & 31;
  switch (mode) {
    case 0: j = minLane | (bv & ~segmask); ok = (unsigned)j <= maxLane; break;  // idx
    case 1: j = (int)lane - (int)bv; ok = j >= (int)maxLane; break;             // up
    case 2: j = lane + bv; ok = (unsigned)j <= maxLane; break;                  // down
    default: j = lane ^ bv; ok = (unsigned)j <= maxLane; break;                 // bfly
  }
  return ok ? vals[j] : vals[lane];
}

int main() {
  unsigned* d;
  CHECK(cudaMalloc(&d, T * NOUT * 4));
  CHECK(cudaMemset(d, 0, T * NOUT * 4));
  warp_ops<<<1, T>>>(d);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> out(T * NOUT);
  CHECK(cudaMemcpy(out.data(), d, T * NOUT * 4, cudaMemcpyDeviceToHost));
  for (int wbase = 0; wbase < T; wbase += 32) {
    unsigned v[32], hv[32], w64lo[32], w64hi[32];
    for (int l = 0; l < 32; l++) {
      v[l] = hash32(wbase + l) % 1000;
      hv[l] = hash32(wbase + l);
      w64lo[l] = v[l];
      w64hi[l] = hash32(wbase + l + 500);
    }
    for (unsigned lane = 0; lane < 32; lane++) {
      unsigned t = wbase + lane;
      std::vector<unsigned> e;
      e.push_back(shfl(v, lane, 0, (lane * 7 + 3) % 32, 32));
      e.push_back(shfl(v, lane, 0, lane + 13, 16));
      e.push_back(shfl(v, lane, 0, -3, 8));
      e.push_back(shfl(v, lane, 0, 40, 32));
      e.push_back(shfl(v, lane, 1, 3, 32));
      e.push_back(shfl(v, lane, 1, 5, 16));
      e.push_back(shfl(v, lane, 1, 2, 8));
      e.push_back(shfl(v, lane, 2, 3, 32));
      e.push_back(shfl(v, lane, 2, 5, 16));
      e.push_back(shfl(v, lane, 2, 6, 8));
      e.push_back(shfl(v, lane, 3, 1, 32));
      e.push_back(shfl(v, lane, 3, 21, 32));
      e.push_back(shfl(v, lane, 3, 9, 16));
      e.push_back(shfl(v, lane, 3, 12, 8));
      e.push_back(w64lo[31 - lane]);
      e.push_back(w64hi[31 - lane]);
      float fv = (float)(lane < 31 ? v[lane + 1] : v[lane]) * 0.5f;
      unsigned fb; memcpy(&fb, &fv, 4);
      e.push_back(fb);
      unsigned sum = 0, scan = 0, ballot = 0, all_lt = 1, all_p = 1, any_p = 0;
      for (int l = 0; l < 32; l++) {
        sum += v[l];
        if (l <= (int)lane) scan += v[l];
        bool p = v[l] % 3 == 0;
        ballot |= (unsigned)p << l;
        all_lt &= v[l] < 1000; all_p &= p; any_p |= p;
      }
      e.push_back(sum); e.push_back(scan); e.push_back(ballot);
      e.push_back(all_lt); e.push_back(all_p); e.push_back(0); e.push_back(any_p);
      e.push_back(__builtin_popcount(ballot));
      e.push_back(ballot ? __builtin_ctz(ballot) + 1 : 0);
      e.push_back(0);
      if (lane & 1) { e.push_back(0xaaaaaaaau); e.push_back(0xaaa00000u); e.push_back(1); }
      else if (lane % 4 == 0) { e.push_back(0x11111111u); e.push_back(0x11111111u); e.push_back(0); }
      else { e.push_back(0); e.push_back(0); e.push_back(0); }
      unsigned same = 0;
      bool allsame = true;
      for (int l = 0; l < 32; l++) {
        if (v[l] % 4 == v[lane] % 4) same |= 1u << l;
        if (v[l] % 4 != v[0] % 4) allsame = false;
      }
      e.push_back(same);
      e.push_back(allsame ? 0xffffffffu : 0); e.push_back(allsame);
      e.push_back(0xffffffffu); e.push_back(1);
      int mn = 1 << 30, mx = -(1 << 30);
      unsigned umn = ~0u, umx = 0, an = ~0u, orr = 0, x = 0, lowsum = 0;
      for (int l = 0; l < 32; l++) {
        mn = std::min(mn, (int)v[l] - 500); mx = std::max(mx, (int)v[l] - 500);
        umn = std::min(umn, hv[l]); umx = std::max(umx, hv[l]);
        an &= hv[l] | 0x10000001u; orr |= 1u << (v[l] % 32); x ^= hv[l];
        if (l < 16) lowsum += v[l];
      }
      e.push_back(sum); e.push_back((unsigned)mn); e.push_back((unsigned)mx);
      e.push_back(umn); e.push_back(umx); e.push_back(an); e.push_back(orr); e.push_back(x);
      e.push_back(lane < 16 ? lowsum : 0);
      unsigned seg16 = lane & ~15u, seg8 = lane & ~7u, s16 = 0, m8 = 0, b8 = 0;
      for (unsigned l = seg16; l < seg16 + 16; l++) s16 += v[l];
      for (unsigned l = seg8; l < seg8 + 8; l++) {
        m8 = std::max(m8, v[l]);
        b8 |= (unsigned)(v[l] % 3 == 0) << (l - seg8);
      }
      e.push_back(s16);
      e.push_back(v[seg8 + ((lane % 8) ^ 5)]);
      e.push_back(lane % 8 ? v[lane - 1] : v[lane]);
      e.push_back((t / 8) * 100 + t % 8);
#ifdef MASKED_COLLECTIVES
      e.push_back(b8);
      e.push_back(s16);
      unsigned hb = 0, hs = 0, hm = 0, lo = lane & 16;
      for (unsigned l = lo; l < lo + 16; l++) {
        hb |= (unsigned)(v[l] % 3 == 0) << l;
        hs += v[l];
        if (v[l] % 4 == v[lane] % 4) hm |= 1u << l;
      }
      e.push_back(hb); e.push_back(hs); e.push_back(hm); e.push_back(lane >= 16);
#endif
      e.push_back(m8);
      e.push_back((unsigned)e.size());
      for (size_t i = 0; i < e.size(); i++) {
        unsigned got = out[t * NOUT + i];
        if (got != e[i] && bad++ < 80)
          fprintf(stderr, "thread %u value %zu: got %u (0x%x) want %u (0x%x)\n", t, i, got, got, e[i], e[i]);
      }
    }
  }
  // partial warp
  const int P = 40;
  partial<<<1, P>>>(d);
  CHECK(cudaGetLastError());
  std::vector<unsigned> po(P * 4);
  CHECK(cudaMemcpy(po.data(), d, P * 16, cudaMemcpyDeviceToHost));
  for (unsigned t = 0; t < P; t++) {
    unsigned lane = t % 32, base = t - lane, n = t < 32 ? 32 : P - 32;
    unsigned m = n == 32 ? 0xffffffffu : (1u << n) - 1;
    unsigned bal = 0, sum = 0;
    for (unsigned l = 0; l < n; l++) { bal |= (l % 2) << l; sum += base + l; }
    unsigned want[4] = {m, bal, lane + 1 < n ? t + 1 : t, sum};
    for (int i = 0; i < 4; i++)
      // the last lane's shfl.down reads a lane that does not exist: undefined, not checked
      if (!(i == 2 && lane + 1 == n) && po[t * 4 + i] != want[i] && bad++ < 80)
        fprintf(stderr, "partial thread %u value %d: got 0x%x want 0x%x\n", t, i, po[t * 4 + i], want[i]);
  }
  if (bad) {
    printf("FAIL isa_warp: %d values wrong\n", bad);
    return 1;
  }
  printf("PASS isa_warp: %d threads of shuffles, votes, match, redux and tiles\n", T);
  return 0;
}
