// CUB's device-wide algorithms, each result checked against the C++ standard library on the
// host: DeviceRadixSort (keys and pairs, ascending and descending, bit ranges, DoubleBuffer),
// DeviceSegmentedSort and DeviceSegmentedRadixSort, DeviceReduce (Sum, Min, Max, ArgMin,
// ArgMax), DeviceScan (sums, scans with an operator, by key), DeviceSelect and DevicePartition,
// DeviceHistogram (even and custom levels) and DeviceRunLengthEncode.
#include <cub/cub.cuh>
#include <algorithm>
#include <numeric>
#include "lib_common.h"

// A device copy of a host vector, freed at the end of the scope.
template <class T>
struct DVec {
  T* p = nullptr;
  size_t n = 0;
  explicit DVec(size_t count) : n(count) { CHECK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T))); }
  explicit DVec(const std::vector<T>& h) : DVec(h.size()) {
    CHECK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DVec() { cudaFree(p); }
  std::vector<T> host(size_t count) const {
    std::vector<T> h(count);
    CHECK(cudaMemcpy(h.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  std::vector<T> host() const { return host(n); }
  T one() const { return host(1)[0]; }
};

// CUB's two calls: the first sizes the temporary storage, the second runs.
#define CUB_RUN(fn, ...)                                    \
  do {                                                      \
    size_t bytes_ = 0;                                      \
    CHECK(fn(nullptr, bytes_, __VA_ARGS__));                \
    DVec<char> tmp_(bytes_);                                \
    CHECK(fn(tmp_.p, bytes_, __VA_ARGS__));                 \
    CHECK(cudaGetLastError());                              \
    CHECK(cudaDeviceSynchronize());                         \
  } while (0)

// Keys compared only on bits [begin, end), as a radix sort over that range sees them.
template <class K>
static uint64_t bits_of(K k, int begin, int end) {
  uint64_t u = 0;
  memcpy(&u, &k, sizeof(K));
  uint64_t mask = end - begin >= 64 ? ~0ull : ((1ull << (end - begin)) - 1);
  return (u >> begin) & mask;
}

// Radix sort of unsigned keys (and their indices as values) over [begin, end), ascending and
// descending: a stable sort, so it must equal std::stable_sort on those bits.
template <class K>
static void radix_sort(const char* what, size_t n, int begin, int end) {
  auto keys = random_values<K>(n, n * 5 + sizeof(K) + begin);
  std::vector<uint32_t> vals(n);
  std::iota(vals.begin(), vals.end(), 0u);
  DVec<K> kin(keys), kout(n);
  DVec<uint32_t> vin(vals), vout(n);
  for (int desc = 0; desc < 2; desc++) {
    std::vector<uint32_t> order(vals);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      uint64_t x = bits_of(keys[a], begin, end), y = bits_of(keys[b], begin, end);
      return desc ? x > y : x < y;
    });
    std::vector<K> want_k(n);
    for (size_t i = 0; i < n; i++) want_k[i] = keys[order[i]];
    if (desc) {
      CUB_RUN(cub::DeviceRadixSort::SortKeysDescending, kin.p, kout.p, n, begin, end);
      same(what, n, kout.host(), want_k);
      CUB_RUN(cub::DeviceRadixSort::SortPairsDescending, kin.p, kout.p, vin.p, vout.p, n, begin,
              end);
    } else {
      CUB_RUN(cub::DeviceRadixSort::SortKeys, kin.p, kout.p, n, begin, end);
      same(what, n, kout.host(), want_k);
      CUB_RUN(cub::DeviceRadixSort::SortPairs, kin.p, kout.p, vin.p, vout.p, n, begin, end);
    }
    same(what, n, kout.host(), want_k);
    same(what, n, vout.host(), order);
  }
}

// Signed and floating-point keys over all their bits, through a DoubleBuffer.
template <class K>
static void radix_sort_signed(const char* what, size_t n) {
  std::vector<K> keys(n);
  Rng r(n + 61 + sizeof(K));
  for (auto& k : keys) k = (K)((int64_t)(r.next() % 20001) - 10000) / (K)(sizeof(K) == 1 ? 100 : 4);
  DVec<K> a(keys), b(n);
  cub::DoubleBuffer<K> buf(a.p, b.p);
  CUB_RUN(cub::DeviceRadixSort::SortKeys, buf, n);
  auto want = keys;
  std::sort(want.begin(), want.end());
  same(what, n, (buf.Current() == a.p ? a : b).host(), want);
}

// Segments of 0..40 items (and a few large ones), sorted each on its own.
static void segmented(size_t n) {
  std::vector<int> offsets = {0};
  Rng r(n + 71);
  while ((size_t)offsets.back() < n) {
    size_t len = r.next() % 8 == 0 ? r.next() % 3000 : r.next() % 41;
    offsets.push_back((int)std::min(n, offsets.back() + len));
  }
  int segs = (int)offsets.size() - 1;
  auto keys = random_values<int>(n, n + 72, 100);
  std::vector<uint32_t> vals(n);
  std::iota(vals.begin(), vals.end(), 0u);
  std::vector<uint32_t> order(vals);
  for (int s = 0; s < segs; s++)
    std::stable_sort(order.begin() + offsets[s], order.begin() + offsets[s + 1],
                     [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<int> want_k(n);
  for (size_t i = 0; i < n; i++) want_k[i] = keys[order[i]];

  DVec<int> off(offsets), kin(keys), kout(n);
  DVec<uint32_t> vin(vals), vout(n);
  CUB_RUN(cub::DeviceSegmentedSort::SortKeys, kin.p, kout.p, n, segs, off.p, off.p + 1);
  same("segmented sort keys", n, kout.host(), want_k);
  CUB_RUN(cub::DeviceSegmentedSort::StableSortPairs, kin.p, kout.p, vin.p, vout.p, n, segs, off.p,
          off.p + 1);
  same("segmented stable sort pairs", n, kout.host(), want_k);
  same("segmented stable sort pairs", n, vout.host(), order);
  CUB_RUN(cub::DeviceSegmentedRadixSort::SortPairs, kin.p, kout.p, vin.p, vout.p, (int)n, segs,
          off.p, off.p + 1);
  same("segmented radix sort pairs", n, kout.host(), want_k);
  same("segmented radix sort pairs", n, vout.host(), order);

  for (int s = 0; s < segs; s++)
    std::stable_sort(order.begin() + offsets[s], order.begin() + offsets[s + 1],
                     [&](uint32_t a, uint32_t b) { return keys[a] > keys[b]; });
  for (size_t i = 0; i < n; i++) want_k[i] = keys[order[i]];
  CUB_RUN(cub::DeviceSegmentedSort::StableSortPairsDescending, kin.p, kout.p, vin.p, vout.p, n,
          segs, off.p, off.p + 1);
  same("segmented stable sort pairs descending", n, kout.host(), want_k);
  same("segmented stable sort pairs descending", n, vout.host(), order);
}

struct Less100 {
  __host__ __device__ bool operator()(int x) const { return x < 100; }
};
struct Mul {
  __host__ __device__ long long operator()(long long a, long long b) const {
    return (a * b) % 1000003;
  }
};

static void reduce_and_scan(size_t n) {
  auto h = random_values<int>(n, n + 81, 100001);
  for (auto& x : h) x -= 50000;
  DVec<int> in(h);
  DVec<long long> out64(n + 1);
  DVec<int> out(n + 1);

  std::vector<long long> h64(h.begin(), h.end());
  DVec<long long> in64(h64);
  CUB_RUN(cub::DeviceReduce::Sum, in64.p, out64.p, n);
  EXPECT_EQ(out64.one(), std::accumulate(h64.begin(), h64.end(), 0ll));
  int mn = INT_MAX, mx = INT_MIN;
  for (int x : h) mn = std::min(mn, x), mx = std::max(mx, x);
  CUB_RUN(cub::DeviceReduce::Min, in.p, out.p, n);
  EXPECT_EQ(out.one(), mn);
  CUB_RUN(cub::DeviceReduce::Max, in.p, out.p, n);
  EXPECT_EQ(out.one(), mx);
  if (n > 0) {
    // The first index of the extremum, as the CUB documentation specifies.
    DVec<int64_t> idx(1);
    CUB_RUN(cub::DeviceReduce::ArgMin, in.p, out.p, idx.p, (int64_t)n);
    EXPECT_EQ(out.one(), mn);
    EXPECT_EQ(idx.one(), std::min_element(h.begin(), h.end()) - h.begin());
    CUB_RUN(cub::DeviceReduce::ArgMax, in.p, out.p, idx.p, (int64_t)n);
    EXPECT_EQ(out.one(), mx);
    EXPECT_EQ(idx.one(), std::max_element(h.begin(), h.end()) - h.begin());
  }

  std::vector<long long> want(n);
  CUB_RUN(cub::DeviceScan::InclusiveSum, in64.p, out64.p, n);
  std::inclusive_scan(h64.begin(), h64.end(), want.begin());
  same("InclusiveSum", n, out64.host(n), want);
  CUB_RUN(cub::DeviceScan::ExclusiveSum, in64.p, out64.p, n);
  std::exclusive_scan(h64.begin(), h64.end(), want.begin(), 0ll);
  same("ExclusiveSum", n, out64.host(n), want);
  std::vector<long long> pos(n);
  for (size_t i = 0; i < n; i++) pos[i] = (h64[i] & 1023) + 1;
  DVec<long long> dpos(pos);
  CUB_RUN(cub::DeviceScan::ExclusiveScan, dpos.p, out64.p, Mul(), 5ll, n);
  std::exclusive_scan(pos.begin(), pos.end(), want.begin(), 5ll, Mul());
  same("ExclusiveScan mul", n, out64.host(n), want);
  CUB_RUN(cub::DeviceScan::InclusiveScan, dpos.p, out64.p, Mul(), n);
  std::inclusive_scan(pos.begin(), pos.end(), want.begin(), Mul());
  same("InclusiveScan mul", n, out64.host(n), want);

  std::vector<int> keys(n);
  for (size_t i = 0; i < n; i++) keys[i] = (int)(i / 7 + (i % 13 == 0));
  DVec<int> dk(keys);
  CUB_RUN(cub::DeviceScan::InclusiveSumByKey, dk.p, in64.p, out64.p, (int)n);
  for (size_t i = 0; i < n; i++)
    want[i] = h64[i] + (i && keys[i] == keys[i - 1] ? want[i - 1] : 0);
  same("InclusiveSumByKey", n, out64.host(n), want);
  CUB_RUN(cub::DeviceScan::ExclusiveSumByKey, dk.p, in64.p, out64.p, (int)n);
  for (size_t i = 0; i < n; i++)
    want[i] = i && keys[i] == keys[i - 1] ? want[i - 1] + h64[i - 1] : 0;
  same("ExclusiveSumByKey", n, out64.host(n), want);
}

static void select_partition(size_t n) {
  auto h = random_values<int>(n, n + 91, 300);
  DVec<int> in(h), out(n);
  DVec<int> count(1);
  std::vector<int> want;
  std::copy_if(h.begin(), h.end(), std::back_inserter(want), Less100());
  CUB_RUN(cub::DeviceSelect::If, in.p, out.p, count.p, (int)n, Less100());
  EXPECT_EQ(count.one(), want.size());
  same("Select::If", n, out.host(want.size()), want);

  std::vector<char> flags(n);
  for (size_t i = 0; i < n; i++) flags[i] = h[i] % 3 == 0;
  DVec<char> dflags(flags);
  want.clear();
  for (size_t i = 0; i < n; i++)
    if (flags[i]) want.push_back(h[i]);
  CUB_RUN(cub::DeviceSelect::Flagged, in.p, dflags.p, out.p, count.p, (int)n);
  EXPECT_EQ(count.one(), want.size());
  same("Select::Flagged", n, out.host(want.size()), want);

  auto sorted = h;
  std::sort(sorted.begin(), sorted.end());
  DVec<int> sin(sorted);
  want = sorted;
  want.erase(std::unique(want.begin(), want.end()), want.end());
  CUB_RUN(cub::DeviceSelect::Unique, sin.p, out.p, count.p, (int)n);
  EXPECT_EQ(count.one(), want.size());
  same("Select::Unique", n, out.host(want.size()), want);

  // Partition::If: the selected items in order, then the rejected ones in reverse order.
  want.clear();
  std::copy_if(h.begin(), h.end(), std::back_inserter(want), Less100());
  size_t selected = want.size();
  for (size_t i = n; i-- > 0;)
    if (!Less100()(h[i])) want.push_back(h[i]);
  CUB_RUN(cub::DevicePartition::If, in.p, out.p, count.p, (int)n, Less100());
  EXPECT_EQ(count.one(), selected);
  same("Partition::If", n, out.host(), want);
}

static void histogram_and_rle(size_t n) {
  auto h = random_values<int>(n, n + 101, 1100);
  for (auto& x : h) x -= 50;  // some samples fall outside [0, 1000)
  DVec<int> in(h);
  // 20 even bins over [0, 1000).
  std::vector<int> want(20);
  for (int x : h)
    if (x >= 0 && x < 1000) want[x / 50]++;
  DVec<int> hist(20);
  CUB_RUN(cub::DeviceHistogram::HistogramEven, in.p, hist.p, 21, 0, 1000, (int)n);
  same("HistogramEven", n, hist.host(), want);
  // Custom levels: bin i is [levels[i], levels[i+1]).
  std::vector<int> levels = {-50, 0, 1, 10, 100, 500, 999, 1050};
  std::vector<int> want_r(levels.size() - 1);
  for (int x : h)
    for (size_t b = 0; b + 1 < levels.size(); b++)
      if (x >= levels[b] && x < levels[b + 1]) want_r[b]++;
  DVec<int> dlevels(levels), hist_r(want_r.size());
  CUB_RUN(cub::DeviceHistogram::HistogramRange, in.p, hist_r.p, (int)levels.size(), dlevels.p,
          (int)n);
  same("HistogramRange", n, hist_r.host(), want_r);

  // Runs of 1..6 equal values.
  std::vector<int> runs(n);
  Rng r(n + 102);
  for (size_t i = 0; i < n; i++) runs[i] = i && r.next() % 6 ? runs[i - 1] : (int)(r.next() % 4);
  std::vector<int> uniq, counts, nt_off, nt_len;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || runs[i] != runs[i - 1]) uniq.push_back(runs[i]), counts.push_back(0);
    counts.back()++;
  }
  for (size_t i = 0, start = 0; i < uniq.size(); start += counts[i], i++)
    if (counts[i] > 1) nt_off.push_back((int)start), nt_len.push_back(counts[i]);
  DVec<int> din(runs), dun(n), dcnt(n), dnum(1);
  CUB_RUN(cub::DeviceRunLengthEncode::Encode, din.p, dun.p, dcnt.p, dnum.p, (int)n);
  EXPECT_EQ(dnum.one(), uniq.size());
  same("RLE Encode unique", n, dun.host(uniq.size()), uniq);
  same("RLE Encode counts", n, dcnt.host(uniq.size()), counts);
  CUB_RUN(cub::DeviceRunLengthEncode::NonTrivialRuns, din.p, dun.p, dcnt.p, dnum.p, (int)n);
  EXPECT_EQ(dnum.one(), nt_off.size());
  same("RLE NonTrivialRuns offsets", n, dun.host(nt_off.size()), nt_off);
  same("RLE NonTrivialRuns lengths", n, dcnt.host(nt_len.size()), nt_len);
}

int main() {
  auto sizes = test_sizes();
  {
    Section s("DeviceRadixSort");
    for (size_t n : sizes) {
      radix_sort<uint8_t>("radix u8", n, 0, 8);
      radix_sort<uint16_t>("radix u16 [3,11)", n, 3, 11);
      radix_sort<uint32_t>("radix u32", n, 0, 32);
      radix_sort<uint32_t>("radix u32 [8,20)", n, 8, 20);
      radix_sort<uint64_t>("radix u64", n, 0, 64);
      radix_sort<uint64_t>("radix u64 [30,47)", n, 30, 47);
      radix_sort_signed<int8_t>("radix s8", n);
      radix_sort_signed<int32_t>("radix s32", n);
      radix_sort_signed<int64_t>("radix s64", n);
      radix_sort_signed<float>("radix f32", n);
      radix_sort_signed<double>("radix f64", n);
    }
  }
  {
    Section s("DeviceSegmentedSort");
    for (size_t n : sizes) segmented(n);
  }
  {
    Section s("DeviceReduce, DeviceScan");
    for (size_t n : sizes) reduce_and_scan(n);
  }
  {
    Section s("DeviceSelect, Partition");
    for (size_t n : sizes) select_partition(n);
  }
  {
    Section s("DeviceHistogram, RLE");
    for (size_t n : sizes) histogram_and_rle(n);
  }
  if (expect_failures) {
    printf("FAIL (%d)\n", expect_failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
