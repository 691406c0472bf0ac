// How hostkernel's threads wait for each other: spin for a bounded time, then park on a
// futex. The team's workers and caller (team/team_waiting.cpp, team/team_internal.hpp)
// and the background launch thread (queue/background.cpp) wait this way.
//
//   std::atomic<std::uint32_t> word{0};
//   // waiter                                   // waker
//   const std::uint32_t w = word.load();        state = ready;
//   if (!spinUntil(spin_ns, ready, noShare))    word.fetch_add(1);
//     while (!ready()) futexWait(word, w);      futexWake(word, 1);
#pragma once

#include <sched.h>
#include <xmmintrin.h>

#include <atomic>
#include <cstdint>

#include "base/clock.hpp"

namespace hk::team {

// Parks until woken, or for at most 2 ms: every waiter re-checks its condition after a
// wait, so a missed wake-up costs at most that delay, never a hang. True when the wait
// ended by the time limit.
bool futexWait(std::atomic<std::uint32_t> &word, std::uint32_t expected);

// Wakes up to `count` threads parked on `word`.
void futexWake(std::atomic<std::uint32_t> &word, int count);

// Spins until ready() or spin_ns passed; true if ready. Every 16 pauses it checks the
// clock and asks shareCpu() whether a thread it waits for runs on its CPU; if so it calls
// sched_yield() so that the other thread runs now instead of after this one's time slice.
// It does not yield otherwise: two threads that yield to each other look idle to the
// scheduler, which then packs them onto one CPU.
template <typename Ready, typename ShareCpu>
bool spinUntil(std::uint64_t spin_ns, Ready ready, ShareCpu shareCpu) {
  if (ready()) return true;
  if (spin_ns == 0) return false;
  const std::uint64_t deadline = nowNs() + spin_ns;
  for (unsigned i = 1;; ++i) {
    _mm_pause();
    if (ready()) return true;
    if ((i & 15) == 0) {
      if (nowNs() >= deadline) return false;
      if (shareCpu()) {
        sched_yield();
        if (ready()) return true;
      }
    }
  }
}

}  // namespace hk::team
