// The one clock of hostkernel's timing: CLOCK_MONOTONIC in nanoseconds (a vDSO call, no
// system call, on Linux with a TSC clocksource).
//
//   const std::uint64_t t0 = hk::nowNs();
//   ...
//   const std::uint64_t took = hk::nowNs() - t0;
#pragma once

#include <time.h>

#include <cstdint>

namespace hk {

[[gnu::always_inline]] inline std::uint64_t nowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(t.tv_nsec);
}

}  // namespace hk
