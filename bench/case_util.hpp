// Helpers shared by the cases_*.cpp files: deterministic inputs and expected outputs.
//
//   hkbench::Rng rng(42);
//   std::uint32_t v = rng.next32();                       // same sequence on every run
//   auto arg = hkbench::LaunchArg::generated<float>(n, hkbench::smallIntegers<float>(7, 16));
#pragma once

#include "launch_paths.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace hkbench {

// splitmix64: a fixed, platform-independent sequence.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint32_t next32() { return static_cast<std::uint32_t>(next() >> 32); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t s_;
};

// Fills with integers in [0, range) converted to T: sums and products of a few of them are
// exact in float/double, so results do not depend on FMA contraction or summation order.
template <class T>
std::function<void(T *)> smallIntegers(std::uint64_t seed, std::uint32_t range,
                                       std::size_t count) {
  return [=](T *dst) {
    Rng rng(seed);
    for (std::size_t i = 0; i < count; ++i) dst[i] = static_cast<T>(rng.next32() % range);
  };
}

template <class T>
std::function<void(T *)> constantFill(T value, std::size_t count) {
  return [=](T *dst) {
    for (std::size_t i = 0; i < count; ++i) dst[i] = value;
  };
}

template <class T>
Output outputOf(const std::vector<T> &values, ElemType type) {
  Output o;
  o.type = type;
  o.bytes.resize(values.size() * sizeof(T));
  std::memcpy(o.bytes.data(), values.data(), o.bytes.size());
  return o;
}

constexpr std::size_t roundUp(std::size_t n, std::size_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

// A launch of `kernel` (kernels/`file`) over a 1-D grid of `global` work-items in groups of
// `local`; the check reads argument `output` back as `type` after `checkLaunches` launches.
// The other fields keep KernelLaunch's defaults.
inline KernelLaunch gridLaunch(std::string file, std::string kernel, std::vector<LaunchArg> args,
                               std::size_t global, std::size_t local, std::size_t output,
                               ElemType type, std::uint64_t checkLaunches = 3) {
  KernelLaunch k;
  k.file = std::move(file);
  k.kernel = std::move(kernel);
  k.args = std::move(args);
  k.global = {global, 1, 1};
  k.local = {local, 1, 1};
  k.outputArg = output;
  k.outputType = type;
  k.checkLaunches = checkLaunches;
  return k;
}

// Enough work-items for the team (more than the inline limit, 8192 by default): 65536
// ints in groups of 256, for a kernel of trivial.cl (all take `global int *out`).
inline constexpr std::size_t kTeamItems = 65536;

inline KernelLaunch teamGridLaunch(const char *kernel) {
  return gridLaunch("trivial.cl", kernel,
                    {LaunchArg::generated<int>(kTeamItems, constantFill<int>(-1, kTeamItems))},
                    kTeamItems, 256, 0, ElemType::I32);
}

}  // namespace hkbench
