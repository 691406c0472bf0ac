#include "launch/launcher.hpp"

#include <algorithm>
#include <string>

#include "base/config.hpp"
#include "base/log.hpp"
#include "launch/overlap_trial.hpp"
#include "launch/tuning.hpp"
#include "pocl/worker_stack.hpp"
#include "team/team.hpp"
#include "trace/recorder.hpp"

namespace hk::launch {
namespace {

Verdict toQueue(hk_reason why) { return Verdict{Verdict::Route::Queue, why}; }

// Sets what execute() must do after the launch (LaunchableKernel::after_launch), before
// the kernel's first direct launch; written only when it changes, as the fast path of
// another thread reads it.
void noteAfterLaunch(LaunchableKernel &k) {
  if (trace::enabled() && k.trace_name == 0) k.trace_name = trace::internName(k.name);
  const std::uint8_t after = (k.hidden_ndrange ? LaunchableKernel::kCountVariants : 0) |
                             (trace::enabled() ? LaunchableKernel::kTrace : 0);
  if (k.after_launch != after) k.after_launch = after;
}

// Plans the launch so that one work-group fits `room` bytes of stack (docs/stack.md):
// without a local size, PoCL's choice capped at the largest power of two of work-items
// that fits. HK_REASON_STACK when the group does not fit (an explicit local size, or not
// even one work-item); other reasons as planLaunch gives them.
hk_reason planWithinStack(const kernel::DeviceKernel &k, const DeviceLimits &limits,
                          const LaunchRequest &r, std::uint64_t room, Plan &plan) {
  const program::KernelImage &image = *k.image.load(std::memory_order_acquire);
  const program::StackModel &stack = image.stack;
  const std::uint64_t cap = std::max<std::uint64_t>(stack.largestPow2Fitting(room), 1);
  const auto &reqd = image.meta->reqd_wg_size;
  if (hk_reason why = planLaunch(r, limits, reqd, plan, config().inline_max_items, cap,
                                 k.hidden_ndrange);
      why != HK_REASON_NONE)
    return why;
  // A group-free kernel (docs/launch.md, "Merged work-groups") gives the same results with
  // fewer, larger groups: fewer calls of the work-group function. Only a valid request is
  // merged, so PoCL's errors stay PoCL's. A launch for the team keeps enough groups to
  // spread; a smaller one at least one per team thread, in case its kernel turns out slow
  // enough for the team.
  const std::uint64_t threads = team::Team::instance().size();
  LaunchRequest merged = r;
  if (image.group_free && !k.hidden_ndrange && reqd[0] == 0 &&
      mergeGroups(merged,
                  std::min({kMergedGroupItems, std::uint64_t{limits.max_group_size}, cap}),
                  limits.max_item_sizes[0], limits.max_item_sizes[1],
                  plan.team_sized ? threads * kMergedGroupsPerThread : threads)) {
    Plan p;
    if (planLaunch(merged, limits, reqd, p, config().inline_max_items, cap, false) ==
        HK_REASON_NONE)
      plan = p;
  }
  const std::uint64_t need =
      stack.bytesFor(plan.pc.local_size[0] * plan.pc.local_size[1] * plan.pc.local_size[2]);
  plan.stack_kib =
      static_cast<std::uint32_t>(std::min<std::uint64_t>((need + 1023) >> 10, UINT32_MAX));
  return need <= room ? HK_REASON_NONE : HK_REASON_STACK;
}

// A group too large for this thread's stack runs on one of PoCL's workers: it must fit
// there (PoCL has no stack check either and would crash). Without a local size, PoCL is
// given the largest one that fits its workers instead of choosing its own.
Verdict toPoclWorkers(const kernel::DeviceKernel &k, const DeviceLimits &limits,
                      const LaunchRequest &r) {
  Plan pocl_plan;
  if (planWithinStack(k, limits, r, pocl::workerStackRoom(), pocl_plan) != HK_REASON_NONE) {
    logf(LogLevel::Warn,
         "kernel '%s': a work-group of %llu work-items needs ~%u KiB of stack, more than "
         "any thread here has: CL_OUT_OF_RESOURCES",
         k.name.c_str(),
         (unsigned long long)(pocl_plan.pc.local_size[0] * pocl_plan.pc.local_size[1] *
                              pocl_plan.pc.local_size[2]),
         pocl_plan.stack_kib);
    return Verdict{Verdict::Route::OutOfResources, HK_REASON_STACK};
  }
  Verdict v = toQueue(HK_REASON_STACK);
  v.fitted_local = true;
  for (int d = 0; d < 3; ++d) v.local[d] = pocl_plan.pc.local_size[d];
  return v;
}

}  // namespace

Verdict decide(LaunchableKernel &k, const LaunchTarget &t, const LaunchRequest &r,
               std::uint64_t caller_stack_room, Plan &plan) {
  k.plans_valid.store(false, std::memory_order_relaxed);
  // HOSTKERNEL_FIRST_LAUNCH=queue: a program nothing has prepared is not compiled for a
  // launch that may be its kernel's only one.
  const kernel::ImageLoader *find = config().first_launch_on_queue ? &t.found_image : nullptr;
  if (hk_reason why = k.prepare(t.device, t.image, find, r.has_local ? r.local : nullptr);
      why != HK_REASON_NONE)
    return toQueue(why);
  if (k.args.dirty()) {
    std::string detail;
    const program::KernelImage &image = *k.image.load(std::memory_order_acquire);
    if (hk_reason why = k.args.bind(image, t.buffers, detail); why != HK_REASON_NONE) {
      k.args.markDirty();
      logf(LogLevel::Info, "kernel '%s' uses PoCL's queue: %s", k.name.c_str(),
           detail.c_str());
      return toQueue(why);
    }
  }
  k.buildVariantIfDue(t.context, t.device);
  if (k.printf_capacity != t.printf_capacity) k.printf_capacity = t.printf_capacity;
  hk_reason why = planWithinStack(k, *t.limits, r, stackRoomForLaunch(caller_stack_room), plan);
  if (why == HK_REASON_STACK && !k.hidden_ndrange) return toPoclWorkers(k, *t.limits, r);
  if (why != HK_REASON_NONE) return toQueue(why);  // native kernels: groups <= 64
  bool replan = false;
  if (hk_reason w = k.fitImage(plan.pc, replan); w != HK_REASON_NONE) return toQueue(w);
  if (replan) return decide(k, t, r, caller_stack_room, plan);  // now generic: once
  for (int d = 0; d < 3; ++d) k.planned_local[d] = plan.pc.local_size[d];
  noteAfterLaunch(k);
  k.plans.store(r, plan);
  const bool specialize = k.startSpecializing(plan.total_groups, plan.stack_kib, plan.pc);
  // As far as is known now (its first direct launch tries the team: teamSized), so that
  // with the application's OpenMP threads as the team, a kernel that turns out small and
  // long keeps its launches in the background.
  const bool team_launch = knownTeamSized(plan, k.sampler);
  const bool may_background = t.background == BackgroundUse::AllLaunches ||
                              (t.background == BackgroundUse::InlineLaunches && !team_launch);
  const std::uint64_t background_ns =
      may_background ? config().background_us * 1000 : UINT64_MAX;
  if (k.background_ns.load(std::memory_order_relaxed) != background_ns)
    k.background_ns.store(background_ns, std::memory_order_relaxed);
  if (specialize) return Verdict{Verdict::Route::Specialize};
  // A kernel whose launches take long keeps taking this path: each of its launches goes to
  // the background (the fast path runs launches before their calls return). Not from the
  // measure of a kernel object's first direct launch alone, which pays for what the first
  // launch touches first (its thread's buffers, page faults).
  const std::uint64_t ran = k.counts.by_path[HK_PATH_INLINE].load(std::memory_order_relaxed) +
                            k.counts.by_path[HK_PATH_TEAM].load(std::memory_order_relaxed);
  const bool team_paused = team_launch && k.team_gain.team() &&
                           k.background_team_pause.load(std::memory_order_relaxed) != 0;
  if (ran >= 2 && k.sampler.lastNs() >= background_ns && !team_paused &&
      k.background_pause.load(std::memory_order_relaxed) == 0) {
    const OverlapTrial::Decision d = processTrial().next(nowNs());
    if (d.route == OverlapTrial::Route::Background) return Verdict{Verdict::Route::Background};
    if (d.pause)
      k.background_pause.store(d.pause, std::memory_order_relaxed);
    else
      return Verdict{Verdict::Route::Direct};  // in the trial: the next launch comes here
  }
  // Until its unchecked variant is settled, a native kernel's launches come here.
  if (k.variantsSettled()) k.plans_valid.store(true, std::memory_order_release);
  return Verdict{Verdict::Route::Direct};
}

bool planNativeForQueue(const kernel::DeviceKernel &k, const DeviceLimits &limits,
                        const std::array<std::uint64_t, 3> &reqd, cl_uint dim,
                        const std::size_t *offset, const std::size_t *global,
                        const std::size_t *local, Plan &plan) {
  // Without a local size, the largest group that fits PoCL's worker stacks.
  const program::KernelImage *image = k.image.load(std::memory_order_acquire);
  const std::uint64_t pocl_cap =
      image ? image->stack.largestPow2Fitting(pocl::workerStackRoom()) : UINT64_MAX;
  return dim >= 1 && dim <= 3 && global &&
         planLaunch(LaunchRequest::from(dim, offset, global, local), limits, reqd, plan,
                    config().inline_max_items, pocl_cap ? pocl_cap : 1, true) ==
             HK_REASON_NONE;
}

void countVariants(LaunchableKernel &k, const Plan &plan) {
  const std::uint64_t unchecked = k.unchecked ? fullTotal(plan) : 0;
  k.unchecked_groups.store(k.unchecked_groups.load(std::memory_order_relaxed) + unchecked,
                           std::memory_order_relaxed);
  k.checked_groups.store(
      k.checked_groups.load(std::memory_order_relaxed) + plan.total_groups - unchecked,
      std::memory_order_relaxed);
}

void afterLaunch(LaunchableKernel &k, const Plan &plan, kernel::ThreadState &ts, hk_path path,
                 std::uint64_t t0) {
  if (k.after_launch & LaunchableKernel::kCountVariants) countVariants(k, plan);
  if (k.after_launch & LaunchableKernel::kTrace)
    ts.traceBuffer().record({trace::Kind::Launch, static_cast<std::uint8_t>(path),
                             HK_REASON_NONE, 0, k.trace_name, t0, nowNs() - t0,
                             plan.total_groups});
}

void noteLongLaunch(LaunchableKernel &k, hk_path path) {
  if (path == HK_PATH_TEAM) {
    if (const std::uint32_t pause = k.background_team_pause.load(std::memory_order_relaxed)) {
      k.background_team_pause.store(pause - 1, std::memory_order_relaxed);
      return;
    }
  }
  if (const std::uint32_t pause = k.background_pause.load(std::memory_order_relaxed)) {
    k.background_pause.store(pause - 1, std::memory_order_relaxed);
    return;
  }
  if (k.plans_valid.load(std::memory_order_relaxed))
    k.plans_valid.store(false, std::memory_order_relaxed);
}

void noteTeamGain(LaunchableKernel &k, const Plan &plan, hk_path path, std::uint64_t wall_ns,
                  std::uint64_t team_serial_ns) {
  const bool on_team = path == HK_PATH_TEAM;
  k.team_gain.note(on_team, wall_ns, on_team ? team_serial_ns : wall_ns, plan.total_groups);
}

SplitProbe runSplitProbe(LaunchableKernel &k, kernel::KernelArgs &args, Plan &plan) {
  // The function the team would run: the probe measures what leaving the team costs.
  const program::KernelImage *specialized = k.specializedFor(plan.pc);
  const LaunchBody body{specialized ? specialized : k.image.load(std::memory_order_acquire),
                        &args, &plan, k.printf_capacity, k.hidden_ndrange, k.unchecked};
  std::uint64_t sampled = 0, sampled_ns = 0, serial_ns = 0;
  switch (runSplit(body, &sampled, &sampled_ns, &serial_ns, k.trace_name, &k.team_choice)) {
    case TeamResult::Ran:
      if (specialized) k.countSpecializedLaunch();
      k.team_gain.note(false, sampled_ns, sampled_ns, sampled);
      return {serial_ns, CL_SUCCESS, HK_PATH_TEAM};
    case TeamResult::OutOfMemory: return {0, CL_OUT_OF_HOST_MEMORY, HK_PATH_INLINE};
    case TeamResult::NotRun: break;
  }
  return {0, CL_SUCCESS, HK_PATH_INLINE};
}

void noteTeamWork(LaunchableKernel &k, std::uint64_t ns) {
  if (k.addTeamWork(ns)) k.plans_valid.store(false, std::memory_order_relaxed);
}

}  // namespace hk::launch
