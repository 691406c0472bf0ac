// What the team's files share and no one else sees (team/team.hpp's private parts):
// a thread's slot, and the caller's wait for its workers, a template the job protocol
// (team.cpp) instantiates.
#pragma once

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <climits>
#include <cstdint>

#include "team/cpu_mover.hpp"
#include "team/team.hpp"
#include "team/waiting.hpp"

namespace hk::team {

// One per team thread. `next`/`end` are the thread's block in a stealing job: the owner
// and thieves claim chunks with fetch_add on `next`, so each group is claimed once.
struct alignas(64) Team::Slot {
  std::atomic<std::uint64_t> next{0};
  std::uint64_t end = 0;
  std::atomic<int> cpu{-1};  // where the thread last ran (noteCpu), for spinUntil's yield
  Team *team = nullptr;
  unsigned index = 0;
  bool running = false;  // a thread was created for this slot and not yet joined
  pthread_t thread{};
  // Unpinned workers move off the caller's CPU (moveOffCpu).
  CpuMover mover;
};

// The caller (thread 0) waits for the workers: it spins, yielding when one of them is on
// its CPU, then parks on caller_wake_ (an event count, as the workers park on wake_).
template <typename Ready>
void Team::callerWait(Ready ready) {
  const unsigned n = size_.load(std::memory_order_relaxed);
  auto shareCpu = [&] {
    const int c = noteCpu(0);
    for (unsigned k = 1; k < n; ++k)
      if (slots_[k].cpu.load(std::memory_order_relaxed) == c) return true;
    return false;
  };
  if (spinUntil(options_.spin_ns, ready, shareCpu)) return;
  for (;;) {
    const std::uint32_t w = caller_wake_.load(std::memory_order_seq_cst);
    caller_sleeping_.store(1, std::memory_order_seq_cst);
    if (ready()) break;
    parks_.fetch_add(1, std::memory_order_relaxed);
    const bool timed_out = futexWait(caller_wake_, w);
    if (ready()) {
      if (timed_out) late_wakes_.fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  caller_sleeping_.store(0, std::memory_order_relaxed);
}

}  // namespace hk::team
