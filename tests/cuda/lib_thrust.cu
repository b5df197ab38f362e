// thrust on the device, every result checked against the same algorithm from the C++ standard
// library on the host: sorts (radix sorts of 8/16/32/64-bit keys and floats, merge sorts of
// pairs and of structs with a comparator), reductions, scans, stream compaction, set
// operations, vectorised binary search, and a device_vector of structs.
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/pair.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>
#include <algorithm>
#include <numeric>
#include "lib_common.h"

template <class T>
static std::vector<T> host(const thrust::device_vector<T>& d) {
  std::vector<T> h(d.size());
  thrust::copy(d.begin(), d.end(), h.begin());
  return h;
}

// thrust::sort of arithmetic keys (CUB's radix sort), ascending and with greater<>.
template <class T>
static void sort_keys(const char* what, size_t n, uint64_t range = 0) {
  auto h = random_values<T>(n, n + sizeof(T), range);
  thrust::device_vector<T> d(h.begin(), h.end());
  thrust::sort(d.begin(), d.end());
  auto want = h;
  std::sort(want.begin(), want.end());
  same(what, n, host(d), want);
  d.assign(h.begin(), h.end());
  thrust::sort(d.begin(), d.end(), thrust::greater<T>());
  std::sort(want.begin(), want.end(), std::greater<T>());
  same(what, n, host(d), want);
}

// Floats: equal bits after sorting (no NaNs; -0.0 and 0.0 compare equal, both orders are
// right, so the values are compared numerically).
template <class T>
static void sort_floats(const char* what, size_t n) {
  Rng r(n * 7 + sizeof(T));
  std::vector<T> h(n);
  for (auto& x : h) x = (T)((int64_t)(r.next() % 2000001) - 1000000) / (T)64;
  thrust::device_vector<T> d(h.begin(), h.end());
  thrust::sort(d.begin(), d.end());
  std::sort(h.begin(), h.end());
  same(what, n, host(d), h);
}

// stable_sort_by_key and sort_by_key: radix sort of keys carrying values. stable must match
// std::stable_sort exactly; the unstable one must give the sorted keys and, per key, the same
// set of values.
template <class K, class V>
static void sort_by_key(const char* what, size_t n) {
  auto keys = random_values<K>(n, n * 3 + sizeof(K), n / 4 + 1);
  std::vector<V> vals(n);
  for (size_t i = 0; i < n; i++) vals[i] = (V)i;
  std::vector<std::pair<K, V>> ref(n);
  for (size_t i = 0; i < n; i++) ref[i] = {keys[i], vals[i]};
  std::stable_sort(ref.begin(), ref.end(),
                   [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<K> want_k(n);
  std::vector<V> want_v(n);
  for (size_t i = 0; i < n; i++) want_k[i] = ref[i].first, want_v[i] = ref[i].second;

  thrust::device_vector<K> dk(keys.begin(), keys.end());
  thrust::device_vector<V> dv(vals.begin(), vals.end());
  thrust::stable_sort_by_key(dk.begin(), dk.end(), dv.begin());
  same(what, n, host(dk), want_k);
  same(what, n, host(dv), want_v);

  dk.assign(keys.begin(), keys.end());
  dv.assign(vals.begin(), vals.end());
  thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
  auto gk = host(dk);
  auto gv = host(dv);
  same(what, n, gk, want_k);
  std::vector<std::pair<K, V>> got(n);
  for (size_t i = 0; i < n; i++) got[i] = {gk[i], gv[i]}, ref[i] = {want_k[i], want_v[i]};
  std::sort(got.begin(), got.end());
  std::sort(ref.begin(), ref.end());
  EXPECT_MSG(got == ref, "%s n=%zu: sort_by_key lost or moved values", what, n);
}

// thrust::sort of thrust::pair (lexicographic merge sort).
static void sort_pairs(size_t n) {
  auto a = random_values<int>(n, n + 11, 50);
  auto b = random_values<int>(n, n + 12);
  std::vector<thrust::pair<int, int>> h(n);
  std::vector<std::pair<int, int>> want(n);
  for (size_t i = 0; i < n; i++) h[i] = {a[i], b[i]}, want[i] = {a[i], b[i]};
  thrust::device_vector<thrust::pair<int, int>> d(h.begin(), h.end());
  thrust::sort(d.begin(), d.end());
  std::sort(want.begin(), want.end());
  auto got = host(d);
  for (size_t i = 0; i < n; i++) {
    if (got[i].first != want[i].first || got[i].second != want[i].second) {
      EXPECT_MSG(false, "sort pairs n=%zu: [%zu] = (%d,%d), expected (%d,%d)", n, i,
                 got[i].first, got[i].second, want[i].first, want[i].second);
      break;
    }
  }
}

// A device_vector of structs: stable_sort with a comparator on one field (descending), a
// transform of the structs, and a reduction with a user-defined operator.
struct Particle {
  float x, y;
  int id;
  short bucket;
};
struct ByBucketDesc {
  __host__ __device__ bool operator()(const Particle& a, const Particle& b) const {
    return a.bucket > b.bucket;
  }
};
struct Step {
  __host__ __device__ Particle operator()(Particle p) const {
    p.x += 0.5f * p.y;
    p.id *= 2;
    return p;
  }
};
struct MaxId {
  __host__ __device__ Particle operator()(const Particle& a, const Particle& b) const {
    return a.id >= b.id ? a : b;
  }
};
static void structs(size_t n) {
  auto ids = random_values<int>(n, n + 21, 1u << 30);
  auto buckets = random_values<short>(n, n + 22, 17);
  std::vector<Particle> h(n);
  for (size_t i = 0; i < n; i++) h[i] = {(float)i, (float)(i % 7), ids[i], buckets[i]};
  thrust::device_vector<Particle> d(h.begin(), h.end());
  thrust::stable_sort(d.begin(), d.end(), ByBucketDesc());
  thrust::transform(d.begin(), d.end(), d.begin(), Step());
  auto want = h;
  std::stable_sort(want.begin(), want.end(), ByBucketDesc());
  std::transform(want.begin(), want.end(), want.begin(), Step());
  auto got = host(d);
  for (size_t i = 0; i < n; i++) {
    const Particle &g = got[i], &w = want[i];
    if (g.x != w.x || g.y != w.y || g.id != w.id || g.bucket != w.bucket) {
      EXPECT_MSG(false, "structs n=%zu: [%zu] = {%g,%g,%d,%d}, expected {%g,%g,%d,%d}", n, i,
                 g.x, g.y, g.id, g.bucket, w.x, w.y, w.id, w.bucket);
      break;
    }
  }
  Particle init = {0, 0, -1, 0};
  Particle m = thrust::reduce(d.begin(), d.end(), init, MaxId());
  int want_id = -1;
  for (auto& p : want) want_id = std::max(want_id, p.id);
  EXPECT_MSG(m.id == want_id, "structs n=%zu: max id %d, expected %d", n, m.id, want_id);
}

struct IsOdd {
  __host__ __device__ bool operator()(int x) const { return x & 1; }
};
struct Saxpy {
  int a;
  __host__ __device__ long long operator()(int x, int y) const { return (long long)a * x + y; }
};

static void reductions_and_scans(size_t n) {
  auto h = random_values<int>(n, n + 31, 2001);
  for (auto& x : h) x -= 1000;
  thrust::device_vector<int> d(h.begin(), h.end());

  long long sum = thrust::reduce(d.begin(), d.end(), 0ll);
  EXPECT_MSG(sum == std::accumulate(h.begin(), h.end(), 0ll), "reduce n=%zu: %lld", n, sum);
  int mx = thrust::reduce(d.begin(), d.end(), INT_MIN, thrust::maximum<int>());
  int want_mx = INT_MIN;
  for (int x : h) want_mx = std::max(want_mx, x);
  EXPECT_EQ(mx, want_mx);

  thrust::device_vector<int> out(n);
  std::vector<int> want(n);
  thrust::inclusive_scan(d.begin(), d.end(), out.begin());
  std::inclusive_scan(h.begin(), h.end(), want.begin());
  same("inclusive_scan", n, host(out), want);
  thrust::exclusive_scan(d.begin(), d.end(), out.begin(), 7);
  std::exclusive_scan(h.begin(), h.end(), want.begin(), 7);
  same("exclusive_scan", n, host(out), want);
  thrust::inclusive_scan(d.begin(), d.end(), out.begin(), thrust::maximum<int>());
  std::inclusive_scan(h.begin(), h.end(), want.begin(),
                      [](int a, int b) { return std::max(a, b); });
  same("inclusive_scan max", n, host(out), want);

  // Keys in runs of 1..9 equal values.
  std::vector<int> keys(n);
  Rng r(n + 32);
  for (size_t i = 0, k = 0; i < n; k++)
    for (size_t run = 1 + r.next() % 9; run && i < n; run--) keys[i++] = (int)(k % 5);
  thrust::device_vector<int> dk(keys.begin(), keys.end());

  std::vector<int> want_scan(n);
  for (size_t i = 0; i < n; i++)
    want_scan[i] = h[i] + (i && keys[i] == keys[i - 1] ? want_scan[i - 1] : 0);
  thrust::inclusive_scan_by_key(dk.begin(), dk.end(), d.begin(), out.begin());
  same("inclusive_scan_by_key", n, host(out), want_scan);
  for (size_t i = 0; i < n; i++)
    want_scan[i] = (i && keys[i] == keys[i - 1] ? want_scan[i - 1] + h[i - 1] : 3);
  thrust::exclusive_scan_by_key(dk.begin(), dk.end(), d.begin(), out.begin(), 3);
  same("exclusive_scan_by_key", n, host(out), want_scan);

  std::vector<int> want_k, want_v;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || keys[i] != keys[i - 1]) want_k.push_back(keys[i]), want_v.push_back(0);
    want_v.back() += h[i];
  }
  thrust::device_vector<int> rk(n), rv(n);
  auto ends = thrust::reduce_by_key(dk.begin(), dk.end(), d.begin(), rk.begin(), rv.begin());
  rk.resize(ends.first - rk.begin());
  rv.resize(ends.second - rv.begin());
  same("reduce_by_key keys", n, host(rk), want_k);
  same("reduce_by_key values", n, host(rv), want_v);

  // transform of two inputs into 64-bit results.
  thrust::device_vector<long long> t(n);
  thrust::transform(d.begin(), d.end(), dk.begin(), t.begin(), Saxpy{3});
  std::vector<long long> want_t(n);
  for (size_t i = 0; i < n; i++) want_t[i] = 3ll * h[i] + keys[i];
  same("transform", n, host(t), want_t);
}

static void compaction(size_t n) {
  auto h = random_values<int>(n, n + 41, 100);
  thrust::device_vector<int> d(h.begin(), h.end());
  std::vector<int> want;

  thrust::device_vector<int> out(n);
  auto end = thrust::copy_if(d.begin(), d.end(), out.begin(), IsOdd());
  out.resize(end - out.begin());
  std::copy_if(h.begin(), h.end(), std::back_inserter(want), IsOdd());
  same("copy_if", n, host(out), want);

  auto kept = h;
  kept.erase(std::remove_if(kept.begin(), kept.end(), IsOdd()), kept.end());
  auto d2 = d;
  d2.erase(thrust::remove_if(d2.begin(), d2.end(), IsOdd()), d2.end());
  same("remove_if", n, host(d2), kept);

  auto u = h;
  u.erase(std::unique(u.begin(), u.end()), u.end());
  auto d3 = d;
  d3.erase(thrust::unique(d3.begin(), d3.end()), d3.end());
  same("unique", n, host(d3), u);
}

static void sets_and_search(size_t n) {
  auto a = random_values<int>(n, n + 51, n + 10);
  auto b = random_values<int>(n / 2 + 3, n + 52, n + 10);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end());
  thrust::device_vector<int> out(a.size() + b.size());
  std::vector<int> want;
  using It = thrust::device_vector<int>::iterator;
  auto check = [&](const char* what, It end) {
    std::vector<int> got(out.begin(), end);
    same(what, n, got, want);
    want.clear();
  };
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(want));
  check("set_union",
        thrust::set_union(da.begin(), da.end(), db.begin(), db.end(), out.begin()));
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(want));
  check("set_intersection",
        thrust::set_intersection(da.begin(), da.end(), db.begin(), db.end(), out.begin()));
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(want));
  check("set_difference",
        thrust::set_difference(da.begin(), da.end(), db.begin(), db.end(), out.begin()));
  std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(),
                                std::back_inserter(want));
  check("set_symmetric_difference", thrust::set_symmetric_difference(
                                        da.begin(), da.end(), db.begin(), db.end(), out.begin()));

  // Vectorised searches of b's values (and some beyond both ends) in a.
  std::vector<int> q(b);
  q.push_back(-5);
  q.push_back((int)n + 20);
  thrust::device_vector<int> dq(q.begin(), q.end());
  thrust::device_vector<long long> pos(q.size());
  thrust::device_vector<bool> found(q.size());
  std::vector<long long> want_lo(q.size()), want_hi(q.size());
  std::vector<bool> want_found(q.size());
  for (size_t i = 0; i < q.size(); i++) {
    want_lo[i] = std::lower_bound(a.begin(), a.end(), q[i]) - a.begin();
    want_hi[i] = std::upper_bound(a.begin(), a.end(), q[i]) - a.begin();
    want_found[i] = std::binary_search(a.begin(), a.end(), q[i]);
  }
  thrust::lower_bound(da.begin(), da.end(), dq.begin(), dq.end(), pos.begin());
  same("lower_bound", n, host(pos), want_lo);
  thrust::upper_bound(da.begin(), da.end(), dq.begin(), dq.end(), pos.begin());
  same("upper_bound", n, host(pos), want_hi);
  thrust::binary_search(da.begin(), da.end(), dq.begin(), dq.end(), found.begin());
  std::vector<bool> got_found(q.size());
  thrust::copy(found.begin(), found.end(), got_found.begin());
  same("binary_search", n, got_found, want_found);
}

int main() {
  auto sizes = test_sizes();
  {
    Section s("sort 8/16/32/64-bit keys");
    for (size_t n : sizes) {
      sort_keys<uint8_t>("sort u8", n);
      sort_keys<int8_t>("sort s8", n);
      sort_keys<uint16_t>("sort u16", n);
      sort_keys<int16_t>("sort s16", n, 3000);
      sort_keys<int32_t>("sort s32", n);
      sort_keys<uint32_t>("sort u32 few", n, 10);
      sort_keys<uint64_t>("sort u64", n);
      sort_keys<int64_t>("sort s64", n);
    }
  }
  {
    Section s("sort floats");
    for (size_t n : sizes) sort_floats<float>("sort f32", n), sort_floats<double>("sort f64", n);
  }
  {
    Section s("sort_by_key");
    for (size_t n : sizes) {
      sort_by_key<uint32_t, int>("sort_by_key u32/s32", n);
      sort_by_key<int64_t, uint16_t>("sort_by_key s64/u16", n);
      sort_by_key<uint8_t, double>("sort_by_key u8/f64", n);
    }
  }
  {
    Section s("sort pairs");
    for (size_t n : sizes) sort_pairs(n);
  }
  {
    Section s("structs, stable_sort comp");
    for (size_t n : sizes) structs(n);
  }
  {
    Section s("reduce, scan, by_key");
    for (size_t n : sizes) reductions_and_scans(n);
  }
  {
    Section s("copy_if, remove_if, unique");
    for (size_t n : sizes) compaction(n);
  }
  {
    Section s("set ops, binary search");
    for (size_t n : sizes) sets_and_search(n);
  }
  CHECK(cudaDeviceSynchronize());
  if (expect_failures) {
    printf("FAIL (%d)\n", expect_failures);
    return 1;
  }
  printf("PASS\n");
  return 0;
}
