// How the team's workers wait for a job: spin (moving off the caller's CPU, or yielding
// to it), then park on a futex; and how the caller is woken when the job is done.
#include <sched.h>

#include <climits>

#include "team/team.hpp"
#include "team/team_internal.hpp"
#include "team/waiting.hpp"

namespace hk::team {

// ---------------------------------------------------------------------------------------
// Waiting: spin, then park on a futex (an event count: the waiter reads the futex word,
// announces itself, re-checks its condition, then sleeps only if the word is unchanged).

void Team::wakeWorkers() {
  wake_.fetch_add(1, std::memory_order_seq_cst);
  futexWake(wake_, INT_MAX);
}

int Team::noteCpu(unsigned thread) {
  const int c = sched_getcpu();  // glibc reads it from rseq: a few ns
  std::atomic<int> &mine = slots_[thread].cpu;
  if (mine.load(std::memory_order_relaxed) != c) mine.store(c, std::memory_order_relaxed);
  return c;
}

// An unpinned worker that spins on the caller's CPU moves off it (CpuMover). Yielding
// alone leaves both threads on one vCPU: the scheduler sees a spinning thread and a
// yielding one, a CPU that looks half idle, and does not spread them. False when it did
// not move (pinned, one CPU, too soon).
bool Team::moveOffCpu(unsigned thread, int cpu) {
  if (options_.pin != PinMode::None || !slots_[thread].mover.moveOff(cpu)) return false;
  moves_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

std::uint64_t Team::waitForChange(unsigned thread, std::uint64_t seen) {
  std::uint64_t s = seen;
  // A worker waits for the caller (thread 0) to publish a job; on the caller's CPU it
  // moves off, or else yields to it.
  if (spinUntil(
          options_.spin_ns,
          [&] {
            return (s = state_.load(std::memory_order_acquire)) != seen ||
                   park_now_.load(std::memory_order_relaxed);
          },
          [&] {
            const int c = noteCpu(thread);
            if (c != slots_[0].cpu.load(std::memory_order_relaxed)) return false;
            if (!moveOffCpu(thread, c)) return true;
            noteCpu(thread);
            return false;
          }) &&
      s != seen)
    return s;
  for (;;) {
    const std::uint32_t w = wake_.load(std::memory_order_seq_cst);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    s = state_.load(std::memory_order_seq_cst);
    bool timed_out = false;
    if (s == seen) {
      parks_.fetch_add(1, std::memory_order_relaxed);
      timed_out = futexWait(wake_, w);
    }
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
    s = state_.load(std::memory_order_acquire);
    if (s != seen) {
      if (timed_out) late_wakes_.fetch_add(1, std::memory_order_relaxed);
      return s;
    }
  }
}

void Team::notifyCaller() {
  if (caller_sleeping_.load(std::memory_order_seq_cst)) {
    caller_wake_.fetch_add(1, std::memory_order_seq_cst);
    futexWake(caller_wake_, 1);
  }
}

}  // namespace hk::team
