// CUB's block and warp collectives, each result checked against a host computation over the
// same tile: BlockLoad/BlockStore in every algorithm (direct, striped, vectorized, transpose,
// warp transpose) with partial last tiles, BlockReduce and BlockScan in every algorithm,
// BlockRadixSort (pairs, descending, a bit range), WarpReduce and WarpScan on full and logical
// (16- and 8-lane) warps, with a partial warp reduction.
#include <cub/cub.cuh>
#include <cuda/functional>
#include <algorithm>
#include <climits>
#include "lib_common.h"

// Where item `i` of thread `t` sits in the tile for a blocked or a striped arrangement.
__host__ __device__ inline int tile_pos(bool striped, int threads, int ipt, int t, int i) {
  return striped ? i * threads + t : t * ipt + i;
}

// Per tile: a load/store round trip (copy), the exclusive prefix sum of the items in thread
// order, the tile's sum and max, the sum of item 0 over the first `valid threads`, and the
// tile sorted by key (stable, with each item's tile index as value).
template <int BT, int IPT, cub::BlockLoadAlgorithm LA, cub::BlockStoreAlgorithm STA,
          cub::BlockReduceAlgorithm RA, cub::BlockScanAlgorithm SCA>
__global__ void tile_kernel(const int* in, int* copy, int* scan, int* sorted, int* sorted_idx,
                            unsigned* desc, int* sums, int n) {
  using Load = cub::BlockLoad<int, BT, IPT, LA>;
  using Store = cub::BlockStore<int, BT, IPT, STA>;
  using Reduce = cub::BlockReduce<int, BT, RA>;
  using Scan = cub::BlockScan<int, BT, SCA>;
  using Sort = cub::BlockRadixSort<int, BT, IPT, int>;
  using SortU = cub::BlockRadixSort<unsigned, BT, IPT, int>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
    typename Sort::TempStorage sort;
    typename SortU::TempStorage sortu;
  } tmp;
  constexpr int TILE = BT * IPT;
  constexpr bool STRIPED = LA == cub::BLOCK_LOAD_STRIPED;
  int base = blockIdx.x * TILE;
  int valid = min(TILE, n - base);
  int t = threadIdx.x;

  int items[IPT];
  Load(tmp.load).Load(in + base, items, valid, 0);
  __syncthreads();
  // The transposing stores rearrange the array they are given: store a copy.
  int out[IPT];
  for (int i = 0; i < IPT; i++) out[i] = items[i];
  Store(tmp.store).Store(copy + base, out, valid);
  __syncthreads();

  int sum = Reduce(tmp.reduce).Sum(items);
  __syncthreads();
  int mx = Reduce(tmp.reduce).Reduce(items, cuda::maximum<int>{});
  __syncthreads();
  int valid_threads = (blockIdx.x * 37) % BT + 1;
  int partial = Reduce(tmp.reduce).Sum(items[0], valid_threads);
  __syncthreads();
  int aggregate;
  int prefix[IPT];
  Scan(tmp.scan).ExclusiveSum(items, prefix, aggregate);
  __syncthreads();
  Store(tmp.store).Store(scan + base, prefix, valid);
  __syncthreads();
  if (t == 0) {
    sums[blockIdx.x * 4 + 0] = sum;
    sums[blockIdx.x * 4 + 1] = mx;
    sums[blockIdx.x * 4 + 2] = partial;
    sums[blockIdx.x * 4 + 3] = aggregate;
  }

  // Keys past the end of the input are INT_MAX, so they sort last.
  int keys[IPT], vals[IPT];
  for (int i = 0; i < IPT; i++) {
    int p = tile_pos(STRIPED, BT, IPT, t, i);
    keys[i] = p < valid ? items[i] : INT_MAX;
    vals[i] = p;
  }
  Sort(tmp.sort).Sort(keys, vals);
  __syncthreads();
  for (int i = 0; i < IPT; i++) {
    int p = t * IPT + i;
    if (p < valid) sorted[base + p] = keys[i], sorted_idx[base + p] = vals[i];
  }

  // Descending on bits [4, 20) only; past-the-end keys are 0 and stay behind equal ones.
  unsigned ukeys[IPT];
  for (int i = 0; i < IPT; i++) {
    int p = tile_pos(STRIPED, BT, IPT, t, i);
    ukeys[i] = p < valid ? (unsigned)items[i] * 2654435761u : 0;
    vals[i] = p;
  }
  __syncthreads();
  SortU(tmp.sortu).SortDescending(ukeys, vals, 4, 20);
  for (int i = 0; i < IPT; i++) {
    int p = t * IPT + i;
    if (p < valid) desc[base + p] = vals[i];
  }
}

template <int BT, int IPT, cub::BlockLoadAlgorithm LA, cub::BlockStoreAlgorithm STA,
          cub::BlockReduceAlgorithm RA, cub::BlockScanAlgorithm SCA>
static void run_tiles(const char* what, size_t n) {
  constexpr int TILE = BT * IPT;
  constexpr bool STRIPED = LA == cub::BLOCK_LOAD_STRIPED;
  static_assert(STRIPED == (STA == cub::BLOCK_STORE_STRIPED), "load and store arrangements");
  if (n == 0) return;
  int tiles = (int)((n + TILE - 1) / TILE);
  auto h = random_values<int>(n, n + BT + IPT, 1000000);
  int *in, *copy, *scan, *sorted, *sorted_idx, *sums;
  unsigned* desc;
  CHECK(cudaMalloc(&in, n * 4));
  CHECK(cudaMalloc(&copy, n * 4));
  CHECK(cudaMalloc(&scan, n * 4));
  CHECK(cudaMalloc(&sorted, n * 4));
  CHECK(cudaMalloc(&sorted_idx, n * 4));
  CHECK(cudaMalloc(&desc, n * 4));
  CHECK(cudaMalloc(&sums, tiles * 16));
  CHECK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  tile_kernel<BT, IPT, LA, STA, RA, SCA>
      <<<tiles, BT>>>(in, copy, scan, sorted, sorted_idx, desc, sums, (int)n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> g_copy(n), g_scan(n), g_sorted(n), g_idx(n), g_sums(tiles * 4);
  std::vector<unsigned> g_desc(n);
  CHECK(cudaMemcpy(g_copy.data(), copy, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_scan.data(), scan, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_sorted.data(), sorted, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_idx.data(), sorted_idx, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_desc.data(), desc, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_sums.data(), sums, tiles * 16, cudaMemcpyDeviceToHost));
  for (void* p : {(void*)in, (void*)copy, (void*)scan, (void*)sorted, (void*)sorted_idx,
                  (void*)desc, (void*)sums})
    CHECK(cudaFree(p));
  same(what, n, g_copy, h);

  std::vector<int> want_scan(n), want_sorted(n), want_idx(n), want_sums(tiles * 4);
  std::vector<unsigned> want_desc(n);
  for (int b = 0; b < tiles; b++) {
    int base = b * TILE, valid = std::min<int>(TILE, (int)n - base);
    auto item = [&](int t, int i) {
      int p = tile_pos(STRIPED, BT, IPT, t, i);
      return p < valid ? h[base + p] : 0;
    };
    int run = 0, mx = INT_MIN, sum = 0, partial = 0;
    for (int t = 0; t < BT; t++)
      for (int i = 0; i < IPT; i++) {
        int p = tile_pos(STRIPED, BT, IPT, t, i);
        if (p < valid) want_scan[base + p] = run;
        run += item(t, i);
        mx = std::max(mx, item(t, i));
        sum += item(t, i);
      }
    int valid_threads = (b * 37) % BT + 1;
    for (int t = 0; t < valid_threads; t++) partial += item(t, 0);
    want_sums[b * 4 + 0] = sum;
    want_sums[b * 4 + 1] = mx;
    want_sums[b * 4 + 2] = partial;
    want_sums[b * 4 + 3] = run;

    // Stable sorts of the tile's positions, in the order the threads hold them.
    std::vector<int> order;
    for (int t = 0; t < BT; t++)
      for (int i = 0; i < IPT; i++) order.push_back(tile_pos(STRIPED, BT, IPT, t, i));
    auto key = [&](int p) { return p < valid ? h[base + p] : INT_MAX; };
    auto asc = order;
    std::stable_sort(asc.begin(), asc.end(), [&](int a, int c) { return key(a) < key(c); });
    auto ukey = [&](int p) { return ((p < valid ? (unsigned)h[base + p] * 2654435761u : 0) >> 4) & 0xffff; };
    auto dsc = order;
    std::stable_sort(dsc.begin(), dsc.end(), [&](int a, int c) { return ukey(a) > ukey(c); });
    for (int p = 0; p < valid; p++) {
      want_sorted[base + p] = key(asc[p]);
      want_idx[base + p] = asc[p];
      want_desc[base + p] = dsc[p];
    }
  }
  same(what, n, g_scan, want_scan);
  same(what, n, g_sums, want_sums);
  same(what, n, g_sorted, want_sorted);
  same(what, n, g_idx, want_idx);
  same(what, n, g_desc, want_desc);
}

// Per warp of 128-thread blocks: full-warp sum and a partial sum over the first `valid` lanes,
// inclusive and exclusive prefix sums, and on 16-lane logical warps a max reduction and an
// inclusive max scan of 64-bit values (8-lane warps for the scan).
__global__ void warp_kernel(const int* in, int* red, int* inc, int* exc, long long* scan8,
                            int n) {
  using WR = cub::WarpReduce<int>;
  using WS = cub::WarpScan<int>;
  using WR16 = cub::WarpReduce<int, 16>;
  using WS8 = cub::WarpScan<long long, 8>;
  __shared__ typename WR::TempStorage wr[4];
  __shared__ typename WS::TempStorage ws[4];
  __shared__ typename WR16::TempStorage wr16[8];
  __shared__ typename WS8::TempStorage ws8[16];
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int v = gid < n ? in[gid] : 0;
  int full = WR(wr[warp]).Sum(v);
  int valid = (gid / 32) % 32 + 1;
  int part = WR(wr[warp]).Sum(v, valid);
  int i, e;
  WS(ws[warp]).InclusiveSum(v, i);
  WS(ws[warp]).ExclusiveSum(v, e);
  int m16 = WR16(wr16[threadIdx.x / 16]).Reduce(v, cuda::maximum<int>{});
  long long s8;
  WS8(ws8[threadIdx.x / 8]).InclusiveScan((long long)v * 1000003, s8, cuda::maximum<long long>{});
  if (gid < n) {
    if (lane == 0) red[gid / 32 * 2] = full, red[gid / 32 * 2 + 1] = part;
    if (lane % 16 == 0) red[(n + 31) / 32 * 2 + gid / 16] = m16;
    inc[gid] = i;
    exc[gid] = lane == 0 ? 0 : e;  // lane 0's exclusive sum is undefined
    scan8[gid] = s8;
  }
}

static void run_warps(size_t n) {
  if (n == 0) return;
  int blocks = (int)((n + 127) / 128);
  size_t warps = (n + 31) / 32, halves = (n + 15) / 16;
  auto h = random_values<int>(n, n + 7, 2001);
  for (auto& x : h) x -= 1000;
  int *in, *red, *inc, *exc;
  long long* scan8;
  CHECK(cudaMalloc(&in, n * 4));
  CHECK(cudaMalloc(&red, (warps * 2 + halves) * 4));
  CHECK(cudaMalloc(&inc, n * 4));
  CHECK(cudaMalloc(&exc, n * 4));
  CHECK(cudaMalloc(&scan8, n * 8));
  CHECK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  warp_kernel<<<blocks, 128>>>(in, red, inc, exc, scan8, (int)n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> g_red(warps * 2 + halves), g_inc(n), g_exc(n);
  std::vector<long long> g_s8(n);
  CHECK(cudaMemcpy(g_red.data(), red, g_red.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_inc.data(), inc, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_exc.data(), exc, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_s8.data(), scan8, n * 8, cudaMemcpyDeviceToHost));
  for (void* p : {(void*)in, (void*)red, (void*)inc, (void*)exc, (void*)scan8}) CHECK(cudaFree(p));

  auto at = [&](size_t g) { return g < n ? h[g] : 0; };
  std::vector<int> want_red(warps * 2 + halves), want_inc(n), want_exc(n);
  std::vector<long long> want_s8(n);
  for (size_t w = 0; w < warps; w++) {
    int full = 0, part = 0, run = 0;
    int valid = (int)(w % 32) + 1;
    for (int l = 0; l < 32; l++) {
      size_t g = w * 32 + l;
      full += at(g);
      if (l < valid) part += at(g);
      if (g < n) want_exc[g] = run;
      run += at(g);
      if (g < n) want_inc[g] = run;
    }
    want_red[w * 2] = full, want_red[w * 2 + 1] = part;
  }
  for (size_t q = 0; q < halves; q++) {
    int m = INT_MIN;
    for (int l = 0; l < 16; l++) m = std::max(m, at(q * 16 + l));
    want_red[warps * 2 + q] = m;
  }
  for (size_t g = 0; g < n; g++) {
    long long x = (long long)h[g] * 1000003;
    want_s8[g] = g % 8 ? std::max(want_s8[g - 1], x) : x;
  }
  for (size_t w = 0; w < warps; w++) want_exc[w * 32] = 0;
  same("warp reduce", n, g_red, want_red);
  same("warp inclusive sum", n, g_inc, want_inc);
  same("warp exclusive sum", n, g_exc, want_exc);
  same("warp scan 8 lanes", n, g_s8, want_s8);
}

int main() {
  auto sizes = test_sizes();
  {
    Section s("block collectives");
    for (size_t n : sizes) {
      run_tiles<128, 4, cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT,
                cub::BLOCK_REDUCE_WARP_REDUCTIONS, cub::BLOCK_SCAN_WARP_SCANS>("direct", n);
      run_tiles<96, 3, cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE,
                cub::BLOCK_REDUCE_RAKING, cub::BLOCK_SCAN_RAKING>("transpose", n);
      run_tiles<256, 4, cub::BLOCK_LOAD_VECTORIZE, cub::BLOCK_STORE_VECTORIZE,
                cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, cub::BLOCK_SCAN_RAKING_MEMOIZE>(
          "vectorize", n);
      run_tiles<64, 7, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE,
                cub::BLOCK_REDUCE_WARP_REDUCTIONS, cub::BLOCK_SCAN_WARP_SCANS>("warp transpose",
                                                                               n);
      run_tiles<32, 2, cub::BLOCK_LOAD_STRIPED, cub::BLOCK_STORE_STRIPED,
                cub::BLOCK_REDUCE_RAKING, cub::BLOCK_SCAN_RAKING_MEMOIZE>("striped", n);
      run_tiles<1024, 1, cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT,
                cub::BLOCK_REDUCE_WARP_REDUCTIONS, cub::BLOCK_SCAN_WARP_SCANS>("1024 threads",
                                                                               n);
    }
  }
  {
    Section s("warp collectives");
    for (size_t n : sizes) run_warps(n);
  }
  if (expect_failures) {
    printf("FAIL (%d)\n", expect_failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
