// Wall-clock timing for pocl-launch-bench: std::chrono::steady_clock, in nanoseconds.
//
//   double ns = hkbench::timeNs([&] { path.run(n); });   // one batch of n operations
#pragma once

#include <chrono>
#include <utility>

namespace hkbench {

using Clock = std::chrono::steady_clock;

// Nanoseconds elapsed while f() runs.
template <class F>
double timeNs(F &&f) {
  const Clock::time_point start = Clock::now();
  std::forward<F>(f)();
  const Clock::time_point stop = Clock::now();
  return std::chrono::duration<double, std::nano>(stop - start).count();
}

}  // namespace hkbench
