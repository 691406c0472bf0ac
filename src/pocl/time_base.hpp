// PoCL's time base for profiling: event timestamps of direct launches taken with it
// compare with those of PoCL's own commands.
//
//   cl_ulong queued = hk::pocl::timeBaseNs();
#pragma once

#include <time.h>

#include <cstdint>

namespace hk::pocl {

// PoCL 3.1 stamps its events with pocl_gettimemono_ns (lib/CL/pocl_timing.c):
// CLOCK_MONOTONIC_RAW on Linux, in nanoseconds.
inline std::uint64_t timeBaseNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace hk::pocl
