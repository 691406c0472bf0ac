// Moving a spinning or freshly woken thread off the CPU of the thread it works for. The
// scheduler often wakes a thread on its waker's CPU and leaves it there while the other
// CPUs idle: two busy threads then share one CPU, each at half speed. Yielding does not
// spread them (a spinning thread and a yielding one make a CPU look half idle); a brief
// change of affinity does: the kernel migrates the thread at once, and restoring the
// affinity right after leaves it unpinned.
//
//   CpuMover mover;                             // one per thread that moves
//   if (sched_getcpu() == caller_cpu) mover.moveOff(caller_cpu);
#pragma once

#include <sched.h>

#include <cstdint>

namespace hk::team {

class CpuMover {
 public:
  // Moves at most once per `min_interval_ns` (a millisecond: each move costs a migration).
  explicit CpuMover(std::uint64_t min_interval_ns = 1'000'000)
      : min_interval_ns_(min_interval_ns) {}

  // Moves the calling thread off `cpu` onto its other allowed CPUs, then allows it all of
  // them again. The allowed CPUs are read at each move, never remembered: the application
  // may pin its threads (hostkernel's too) at any time, and a move must not undo that. A
  // pin set by another thread between the move's two system calls is undone all the same
  // (no system call changes an affinity only if it is unchanged): one who pins a moving
  // thread checks that the pin held.
  // At most once per interval; false when it did not move: too soon, no other allowed
  // CPU, the affinity not readable or not changeable.
  bool moveOff(int cpu);

  // How many moves were made.
  std::uint64_t moves() const { return moves_; }

 private:
  std::uint64_t min_interval_ns_;
  std::uint64_t last_move_ns_ = 0;
  std::uint64_t moves_ = 0;
};

}  // namespace hk::team
