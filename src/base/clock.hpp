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

// The CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID: a system call, about
// a microsecond). Against nowNs() over the same span: how long the thread was kept from
// running.
inline std::uint64_t threadCpuNs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(t.tv_nsec);
}

}  // namespace hk
