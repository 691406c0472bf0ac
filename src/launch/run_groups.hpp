// Runs the work-groups of a planned launch: all on the calling thread (runInline), or split
// over the thread team (runOnTeam), each thread with its own local memory and printf
// buffer (ThreadState).
//
//   LaunchBody body{&image, &args, &plan, printf_capacity};
//   if (!teamWanted || !runOnTeam(body, steal)) runInline(body, threadState());
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernel/kernel_args.hpp"
#include "launch/geometry.hpp"
#include "launch/inline_runner.hpp"
#include "kernel/thread_state.hpp"
#include "program/program_image.hpp"
#include "team/team_choice.hpp"

namespace hk::launch {

struct LaunchBody {
  const program::KernelImage *image;
  kernel::KernelArgs *args;
  Plan *plan;  // the launch's own: runInline fills its printf fields in place
  std::size_t printf_capacity;
  // Native kernels: argument 0 is the plan's true ndrange; full groups run `unchecked`
  // when it is set (docs/native-kernels.md).
  bool hidden_ndrange = false;
  const program::KernelImage *unchecked = nullptr;
};

// The argument array for this thread: the kernel's own, or, with __local memory or a
// hidden ndrange, a copy pointing into the thread's arena and at the thread's copy of
// this launch's true ndrange (another thread may launch the same kernel with another
// ndrange meanwhile). Null only when the thread's buffers cannot grow.
[[gnu::always_inline]] inline void **threadArgs(const LaunchBody &b, kernel::ThreadState &ts) {
  kernel::KernelArgs &a = *b.args;
  if (!a.hasLocals() && !b.hidden_ndrange) return a.array();
  if (a.localBytes() > ts.local_capacity || a.arrayLength() > ts.scratch_capacity ||
      a.localCount() > ts.slots_capacity)
    if (!ts.reserve(a.localBytes(), a.arrayLength(), a.localCount())) return nullptr;
  if (a.hasLocals())
    a.placeLocals(ts.local_arena, ts.local_slots, ts.scratch_args);
  else
    std::memcpy(ts.scratch_args, a.array(), a.arrayLength() * sizeof(void *));
  if (b.hidden_ndrange) {
    trueNdrange(*b.plan, ts.ndrange);
    ts.scratch_args[0] = ts.ndrange;
  }
  return ts.scratch_args;
}

// Every group on the calling thread. False only when out of memory. The work-group
// function is given the launch's own pocl_context (no copy), with this thread's printf
// buffer.
[[gnu::always_inline]] inline bool runInline(const LaunchBody &b, kernel::ThreadState &ts) {
  void **args = threadArgs(b, ts);
  if (!args) return false;
  pocl::PoclContext &pc = b.plan->pc;
  pc.printf_buffer = ts.printf_buffer;
  pc.printf_buffer_position = &ts.printf_position;
  pc.printf_buffer_capacity = ts.printf_capacity;
  ++ts.depth;
  {
    FpModeScope fp(b.image->flush_denorms);
    if (b.unchecked)
      runGroupsVariants(b.image->fn, b.unchecked->fn, args, pc, b.plan->pad);
    else
      runGroups(b.image->fn, args, pc, b.plan->total_groups);
  }
  --ts.depth;
  if (ts.printf_position) ts.flushPrintf();
  return true;
}

enum class TeamResult { NotRun, Ran, OutOfMemory };

// Splits the groups over the team (the caller is thread 0). NotRun, with nothing run, when
// the team is busy or the caller is a team thread or inside a launch: the caller then runs
// the launch inline. OutOfMemory when a thread could not get its __local arena (its
// groups did not run). With `timed`, *serial_ns is the thread time spent in work-groups,
// summed over the team. With a `trace_name` (trace::internName, 0: none) each thread
// records a Lane event for each range of groups it ran.
// `choice`: the kernel's choice of team (Job::choice).
TeamResult runOnTeam(const LaunchBody &b, bool steal, bool timed, std::uint64_t *serial_ns,
                     std::uint32_t trace_name = 0, team::TeamChoice *choice = nullptr);

// TeamGain's probe of the calling thread on a large launch (TeamGain::splitProbeDue):
// every kSplitShare-th group (0, 8, 16, ...: *sampled of them, spread over the launch so
// that groups of uneven cost weigh as in the whole) runs on the calling thread alone, in
// *sampled_ns; then the others on the team with stealing, or on the caller when the team
// is busy. *serial_ns is the thread time of all groups. NotRun, with nothing run, where
// runOnTeam would not run, or for fewer than TeamGain::kSplitMinGroups groups.
TeamResult runSplit(const LaunchBody &b, std::uint64_t *sampled, std::uint64_t *sampled_ns,
                    std::uint64_t *serial_ns, std::uint32_t trace_name = 0,
                    team::TeamChoice *choice = nullptr);

}  // namespace hk::launch
