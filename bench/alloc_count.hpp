// Heap allocations made by the whole process while counting is on.
//
// The bench executable interposes malloc, calloc, realloc, posix_memalign, aligned_alloc,
// memalign, valloc and pvalloc (alloc_count.cpp): each forwards to glibc's own
// implementation (__libc_malloc, ...), and counts one allocation while counting is on.
// An executable's definitions come first in the dynamic symbol lookup, so this covers every
// thread and every library (libhostkernel, PoCL, libstdc++'s operator new, OpenMP). free
// is not counted. Counting is off unless a timed batch is running.
//
//   hkbench::AllocCounter::start();
//   path.run(n);
//   std::uint64_t allocs = hkbench::AllocCounter::stop();   // made during run(n)
//
// HKBENCH_ALLOC_TRACE=N prints the call stack of the first N counted allocations to stderr
// (addresses in libraries as lib.so(+offset): `addr2line -f -e lib.so offset`).
//
// Sanitizer builds (HK_SANITIZE) bring their own malloc; there the interposer is compiled
// out (HKBENCH_NO_ALLOC_COUNT) and available() is false.
#pragma once

#include <cstdint>

namespace hkbench {

struct AllocCounter {
  // False when the interposer is compiled out (sanitizer builds).
  static bool available();
  // Resets the count and turns counting on.
  static void start();
  // Turns counting off and returns the allocations made since start().
  static std::uint64_t stop();
};

}  // namespace hkbench
