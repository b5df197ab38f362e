// Shared helpers for the thrust and CUB programs: deterministic host data, the sizes to run,
// comparisons against a CPU reference that name the first mismatch, and per-section timing.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "check.h"

// The sizes each algorithm runs at: the edges (0, 1, a warp and a block around their
// boundaries, several tiles) always, 2^20 and 2^24 too when CUDA_SHIM_LIB_LARGE=1 (a few minutes).
static std::vector<size_t> test_sizes() {
  std::vector<size_t> s = {0, 1, 2, 31, 32, 33, 255, 1000, 4097, 70001};
  const char* large = getenv("CUDA_SHIM_LIB_LARGE");
  if (large && strcmp(large, "1") == 0) {
    s.push_back(1u << 20);
    s.push_back(1u << 24);
  }
  return s;
}

// splitmix64: the same data on every run and every machine.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// n values of T from random bits; `range` > 0 takes them modulo range (many duplicates).
template <class T>
static std::vector<T> random_values(size_t n, uint64_t seed, uint64_t range = 0) {
  Rng r(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    uint64_t bits = r.next();
    if (range) bits %= range;
    T t;
    memcpy(&t, &bits, sizeof(T));
    x = t;
  }
  return v;
}

// Compares element by element and reports the first mismatch (as integers).
template <class A, class B>
static bool same(const char* what, size_t n, const A& got, const B& want) {
  if (got.size() != want.size()) {
    EXPECT_MSG(false, "%s n=%zu: %zu results, expected %zu", what, n, (size_t)got.size(),
               (size_t)want.size());
    return false;
  }
  for (size_t i = 0; i < want.size(); i++) {
    if (!(got[i] == want[i])) {
      EXPECT_MSG(false, "%s n=%zu: [%zu] = %lld, expected %lld", what, n, i,
                 (long long)got[i], (long long)want[i]);
      return false;
    }
  }
  return true;
}

// Prints how long each section took, to stderr (the test's speed on the emulator).
struct Section {
  const char* name;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  explicit Section(const char* n) : name(n) {}
  ~Section() {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fprintf(stderr, "%-28s %8.2f s\n", name, s);
  }
};
