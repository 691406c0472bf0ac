#include "launch/run_groups.hpp"

#include <atomic>

#include "launch/sampler.hpp"
#include "launch/team_gain.hpp"
#include "team/dispatch.hpp"
#include "trace/recorder.hpp"

namespace hk::launch {
namespace {

constexpr std::uint64_t kStackReserve = 256 * 1024;

// Read by every team thread, right after the caller wrote it: the body and the plan are
// copies in adjacent lines, so that a thread reaches all of it from its job's context in
// one step, not through pointers to the caller's frames.
struct TeamLaunch {
  TeamLaunch(const LaunchBody &b, std::uint32_t name) : body(b), trace_name(name), plan(*b.plan) {
    body.plan = &plan;
  }
  LaunchBody body;
  std::uint32_t trace_name;  // 0: untraced
  std::atomic<bool> failed{false};
  std::atomic<std::uint64_t> busy_ns{0};  // the team's time in groups (Job::work_ns)
  std::atomic<bool> execution_failed{false};  // a work-item of any thread's groups
  // Which groups index i stands for (runSplit): every group (i), or with a sample
  // stride s, every s-th group (i * s) or the others (i + i / (s - 1) + 1).
  enum class Pick : std::uint8_t { All, Sampled, Others } pick = Pick::All;
  Plan plan;
};

constexpr std::uint64_t kSampleStride = TeamGain::kSplitShare;

std::uint64_t pickedGroup(TeamLaunch::Pick pick, std::uint64_t i) {
  return pick == TeamLaunch::Pick::Sampled ? i * kSampleStride
                                           : i + i / (kSampleStride - 1) + 1;
}

// Runs groups [begin, end) in PoCL's order (x fastest). One division per range to find
// the first group's coordinates, then counters; a picked subset (runSplit) divides per
// group.
void runRange(void *ctx, std::uint64_t begin, std::uint64_t end, unsigned thread) {
  auto &launch = *static_cast<TeamLaunch *>(ctx);
  const LaunchBody &b = launch.body;
  kernel::ThreadState &ts = kernel::threadState();
  if (!ts.ready) ts.setUp(b.printf_capacity);
  void **args = threadArgs(b, ts);
  if (!args) {  // out of memory on this thread: nothing sensible to do but report
    launch.failed.store(true, std::memory_order_relaxed);
    return;
  }
  pocl::PoclContext pc = b.plan->pc;
  pc.printf_buffer = ts.printf_buffer;
  pc.printf_buffer_position = &ts.printf_position;
  pc.printf_buffer_capacity = ts.printf_capacity;
  const std::uint64_t nx = pc.num_groups[0], ny = pc.num_groups[1];
  std::uint64_t x = begin % nx, rest = begin / nx;
  std::uint64_t y = rest % ny, z = rest / ny;
  // The team times its threads' work (Job::work_ns); a traced launch stamps each range.
  const std::uint64_t t0 = launch.trace_name ? nowNs() : 0;
  ++ts.depth;
  {
    FpModeScope fp(b.image->flush_denorms);
    const pocl::WorkGroupFn checked = b.image->fn;
    const pocl::WorkGroupFn unchecked = b.unchecked ? b.unchecked->fn : checked;
    const std::uint64_t full[3] = {fullGroups(*b.plan, 0), fullGroups(*b.plan, 1),
                                   fullGroups(*b.plan, 2)};
    // Native kernels: full groups run the unchecked variant (the same fn otherwise).
    if (launch.pick == TeamLaunch::Pick::All) {
      for (std::uint64_t g = begin; g < end; ++g) {
        (x < full[0] && y < full[1] && z < full[2] ? unchecked : checked)(args, &pc, x, y, z);
        if (++x == nx) {
          x = 0;
          if (++y == ny) {
            y = 0;
            ++z;
          }
        }
      }
    } else {
      for (std::uint64_t i = begin; i < end; ++i) {
        const std::uint64_t g = pickedGroup(launch.pick, i);
        x = g % nx;
        y = g / nx % ny;
        z = g / nx / ny;
        (x < full[0] && y < full[1] && z < full[2] ? unchecked : checked)(args, &pc, x, y, z);
      }
    }
  }
  --ts.depth;
  if (pocl::executionFailed(pc)) launch.execution_failed.store(true, std::memory_order_relaxed);
  if (launch.trace_name)
    ts.traceBuffer().record({trace::Kind::Lane, HK_PATH_TEAM, HK_REASON_NONE,
                             static_cast<std::uint8_t>(thread), launch.trace_name, t0,
                             nowNs() - t0, end - begin});
  if (ts.printf_position) ts.flushPrintf();
}

// The team job of `launch`'s `groups` (indices, launch.pick).
team::Job teamJob(TeamLaunch &launch, const LaunchBody &b, std::uint64_t groups, bool steal,
                  bool timed, team::TeamChoice *choice, const kernel::ThreadState &ts) {
  // A thread of the application's must hold a work-group's frame and the frames above it
  // (the pool's own, ours): the same reserve as the own workers (launch/tuning.cpp).
  const std::uint64_t items =
      b.plan->pc.local_size[0] * b.plan->pc.local_size[1] * b.plan->pc.local_size[2];
  const std::uint64_t need = b.image->stack.bytesFor(items);
  return team::Job{runRange, &launch, groups, steal,
                   need > UINT64_MAX - kStackReserve ? UINT64_MAX : need + kStackReserve,
                   timed ? &launch.busy_ns : nullptr, choice, ts.background_thread};
}

// What the threads' groups left in `launch`: a failed work-item in the launch's context,
// a thread without memory as the result.
TeamResult finish(TeamLaunch &launch, const LaunchBody &b) {
  if (launch.execution_failed.load(std::memory_order_relaxed))
    pocl::setExecutionFailed(b.plan->pc);
  return launch.failed.load(std::memory_order_relaxed) ? TeamResult::OutOfMemory
                                                       : TeamResult::Ran;
}

}  // namespace

TeamResult runOnTeam(const LaunchBody &b, bool steal, bool timed, std::uint64_t *serial_ns,
                     std::uint32_t trace_name, team::TeamChoice *choice) {
  kernel::ThreadState &ts = kernel::threadState();
  if (ts.depth != 0 || team::Team::onTeamThread()) return TeamResult::NotRun;
  TeamLaunch launch(b, trace_name);
  if (!team::runJob(teamJob(launch, b, b.plan->total_groups, steal, timed, choice, ts)))
    return TeamResult::NotRun;
  *serial_ns = launch.busy_ns.load(std::memory_order_relaxed);
  return finish(launch, b);
}

TeamResult runSplit(const LaunchBody &b, std::uint64_t *sampled, std::uint64_t *sampled_ns,
                    std::uint64_t *serial_ns, std::uint32_t trace_name,
                    team::TeamChoice *choice) {
  kernel::ThreadState &ts = kernel::threadState();
  const std::uint64_t total = b.plan->total_groups;
  if (ts.depth != 0 || team::Team::onTeamThread() || total < 2 * kSampleStride)
    return TeamResult::NotRun;
  TeamLaunch launch(b, trace_name);
  *sampled = (total + kSampleStride - 1) / kSampleStride;
  launch.pick = TeamLaunch::Pick::Sampled;
  const std::uint64_t t0 = nowNs();
  runRange(&launch, 0, *sampled, 0);
  *sampled_ns = nowNs() - t0;
  launch.pick = TeamLaunch::Pick::Others;
  constexpr bool kSteal = true;
  if (!team::runJob(teamJob(launch, b, total - *sampled, kSteal, true, choice, ts)))
    runRange(&launch, 0, total - *sampled, 0);  // the team is busy
  *serial_ns = *sampled_ns + launch.busy_ns.load(std::memory_order_relaxed);
  return finish(launch, b);
}

}  // namespace hk::launch
