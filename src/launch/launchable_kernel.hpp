// A kernel as the launch layer keeps it: the kernel (its arguments and lifecycle,
// kernel/device_kernel.hpp) plus what decides and counts its launches: the plan cache, the
// timing sampler and the launch counts. queue::KernelEntry adds the OpenCL handles.
//
//   Plan p;
//   if (k.plans_valid.load(std::memory_order_acquire) && k.plans.lookup(dim, off, glob, loc, p))
//     execute(k, p, threadState());     // launch/launcher.hpp
#pragma once

#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "kernel/device_kernel.hpp"
#include "launch/geometry.hpp"
#include "launch/plan_cache.hpp"
#include "launch/sampler.hpp"
#include "launch/team_gain.hpp"
#include "team/team_choice.hpp"

namespace hk::launch {

// Counters that only their kernel's launching thread writes (relaxed load + store: no
// locked instruction on the launch path); readers may see slightly old values.
struct LaunchCounts {
  std::atomic<std::uint64_t> by_path[3] = {};
  std::atomic<std::uint64_t> by_reason[HK_REASON_COUNT] = {};
  std::atomic<std::uint64_t> background{0};  // of them, run in the background
  void add(hk_path path, hk_reason reason) {
    auto &p = by_path[path];
    p.store(p.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (path == HK_PATH_QUEUE) {
      auto &r = by_reason[reason];
      r.store(r.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
  }
  // Back to zero (a kernel object that takes over a released one's entry starts there).
  void clear() {
    for (auto &c : by_path) c.store(0, std::memory_order_relaxed);
    for (auto &c : by_reason) c.store(0, std::memory_order_relaxed);
    background.store(0, std::memory_order_relaxed);
  }
};

class LaunchableKernel : public kernel::DeviceKernel {
 public:
  // Whether the launch path may run a launch from `plans` without calling decide(): set
  // by decide() for a direct launch, cleared by anything that could change its verdict
  // (an argument set, a long launch, enough team work to specialize).
  std::atomic<bool> plans_valid{false};
  PlanCache plans;
  std::size_t planned_local[3] = {0, 0, 0};  // its plan's local size (merged groups: larger)
  Sampler sampler;
  team::TeamChoice team_choice;  // HOSTKERNEL_TEAM=auto with OpenMP: this kernel's team
  TeamGain team_gain;            // whether its launches gain from a team at all
  std::size_t printf_capacity = 0;  // of the prepared device: each team thread's buffer
  // Launches that take at least this long run in the background (queue/background.hpp)
  // when decide() next sees them; set by decide(), UINT64_MAX when they may not.
  std::atomic<std::uint64_t> background_ns{UINT64_MAX};
  // Background launches whose result was needed at once, in a row; past a few, the
  // kernel's next `background_pause` long launches run before their calls return
  // (queue/background.cpp).
  std::atomic<std::uint32_t> background_misses{0};
  std::atomic<std::uint32_t> background_pause{0};
  // The same for its team launches alone: a team launch waited for at once lost its share
  // of the team in the background; the kernel's launches on one thread may still gain.
  std::atomic<std::uint32_t> background_team_pause{0};
  // Background launches in a row whose caller waited long past their expected end (the
  // background thread lost its CPU to another process): past one, a pause that doubles.
  std::atomic<std::uint32_t> background_late{0};
  // What execute() does after a launch, set by decide(): 0 for most kernels, so that the
  // launch path tests one byte next to the counts it has just written.
  static constexpr std::uint8_t kCountVariants = 1;  // native kernels (hidden ndrange)
  static constexpr std::uint8_t kTrace = 2;          // HOSTKERNEL_TRACE
  std::uint8_t after_launch = 0;
  // HOSTKERNEL_TRACE: trace::internName of the kernel (0 untraced), set by decide().
  std::uint32_t trace_name = 0;
  LaunchCounts counts;
};

}  // namespace hk::launch
