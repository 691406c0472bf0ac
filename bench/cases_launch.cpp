// Launch-overhead cases: one small kernel launched and finished, again and again.
#include "launch_paths.hpp"

#include <cstring>
#include <vector>

namespace hkbench {
namespace {

template <class T>
Output outputOf(const std::vector<T> &values, ElemType type) {
  Output o;
  o.type = type;
  o.bytes.resize(values.size() * sizeof(T));
  std::memcpy(o.bytes.data(), values.data(), o.bytes.size());
  return o;
}

// kernel void trivial(global int *out) { out[gid] = gid; } on one work-item.
const Register kTrivial{[] {
  KernelLaunch k;
  k.file = "trivial.cl";
  k.kernel = "trivial";
  const std::vector<int> out{-1};  // sentinel: the check sees whether the kernel ran
  k.args = {LaunchArg::buffer<int>(out)};
  k.global = {1, 1, 1};
  k.local = {1, 1, 1};
  k.outputArg = 0;
  k.outputType = ElemType::I32;
  return launchCase(
      "launch/trivial", "trivial(out): 1 work-item (global 1, local 1); one op = launch + finish",
      k, [] { return outputOf(std::vector<int>{0}, ElemType::I32); });
}()};

// y = a*x + y on 1000 floats, padded to 1024 so that local size 64 divides the grid: the
// kernel has no bounds check, and a uniform grid is what the direct path runs.
constexpr std::size_t kAxpyN = 1024;
constexpr float kAxpyA = 2.0f;

const Register kAxpy1000{[] {
  // Small integers: a*x+y is exact with or without FMA contraction, for any launch count
  // the check uses.
  std::vector<float> x(kAxpyN), y(kAxpyN);
  for (std::size_t i = 0; i < kAxpyN; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(1000 - static_cast<int>(i));
  }
  KernelLaunch k;
  k.file = "axpy.cl";
  k.kernel = "axpy";
  k.args = {LaunchArg::scalar(kAxpyA), LaunchArg::buffer<float>(x), LaunchArg::buffer<float>(y)};
  k.global = {kAxpyN, 1, 1};
  k.local = {64, 1, 1};
  k.outputArg = 2;
  k.outputType = ElemType::F32;
  const std::uint64_t launches = k.checkLaunches;
  return launchCase(
      "launch/axpy-1000",
      "axpy(a, x, y): 1000 floats padded to 1024, global 1024, local 64 (16 work-groups); "
      "one op = launch + finish",
      k, [x, y, launches] {
        std::vector<float> expect(y);
        for (std::size_t i = 0; i < kAxpyN; ++i)
          for (std::uint64_t l = 0; l < launches; ++l) expect[i] = kAxpyA * x[i] + expect[i];
        return outputOf(expect, ElemType::F32);
      });
}()};

}  // namespace
}  // namespace hkbench
