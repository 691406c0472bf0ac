// Deterministic test data: a fixed generator per seed, so that every run (and the PoCL
// and hostkernel runs of one case) sees the same inputs.
//
//   std::vector<float> x = floats(n, /*seed=*/7);          // in [-4, 4)
//   std::vector<uint32_t> idx = ints<uint32_t>(n, 8, n);    // in [0, n)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s ^ (s >> 29);
  }
  // In [0, 1), with the 53 bits a double holds.
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  float f(float lo, float hi) { return lo + static_cast<float>(unit()) * (hi - lo); }
  double d(double lo, double hi) { return lo + unit() * (hi - lo); }
};

inline std::vector<float> floats(size_t n, uint64_t seed, float lo = -4.0f, float hi = 4.0f) {
  Rng r(seed);
  std::vector<float> v(n);
  for (auto &x : v) x = r.f(lo, hi);
  return v;
}

inline std::vector<double> doubles(size_t n, uint64_t seed, double lo, double hi) {
  Rng r(seed);
  std::vector<double> v(n);
  for (auto &x : v) x = r.d(lo, hi);
  return v;
}

// Any value of T, or values in [0, mod) when mod is not 0.
template <class T>
std::vector<T> ints(size_t n, uint64_t seed, uint64_t mod = 0) {
  Rng r(seed);
  std::vector<T> v(n);
  for (auto &x : v) x = static_cast<T>(mod ? r.next() % mod : r.next());
  return v;
}
