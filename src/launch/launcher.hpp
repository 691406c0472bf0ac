// Where a launch runs: inline on the calling thread, on the thread team, or on PoCL's
// queue. This file decides; queue/launch_command.cpp looks up the kernel and queue,
// checks the queue's order, and carries the verdict out.
//
// A launch whose kernel has a plan for exactly this request runs execute() at once (the
// fast path). Any other goes through decide() first, under the kernel's mutex: it
// prepares the kernel, binds its arguments, plans the launch to fit the stack, stores the
// plan, and gives a Verdict:
//   Direct         execute(): inline, or on the team when the launch is large or the
//                  kernel's launches have been slow;
//   Background     execute() on the background launch thread while the caller goes on
//                  (queue/background.hpp): the kernel's last launch took at least
//                  LaunchableKernel::background_ns;
//   Queue          PoCL's queue, for `reason` (for HK_REASON_STACK with the local size
//                  that fits PoCL's workers when the request gives none; for
//                  HK_REASON_FIRST_LAUNCH the first launch of a kernel whose program
//                  nothing has prepared, docs/first-launch.md);
//   Specialize     PoCL's queue once, which compiles the specialized work-group function,
//                  then DeviceKernel::finishSpecializing;
//   OutOfResources no thread here has the stack for one work-group.
//
//   Verdict v;
//   {
//     MutexLock lock(k.mutex);
//     v = decide(k, target, request, ts.stackRoom(), plan);
//   }
//   if (v.route == Verdict::Route::Direct) err = execute(k, plan, ts);
#pragma once

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "kernel/kernel_args.hpp"
#include "kernel/thread_state.hpp"
#include "launch/geometry.hpp"
#include "launch/launchable_kernel.hpp"
#include "launch/run_groups.hpp"
#include "launch/sampler.hpp"

namespace hk::launch {

// Which launches may run in the background (queue/background.hpp). With the application's
// OpenMP threads or executor as the team, only launches that run on one thread: a team
// job started from the background thread would make the OpenMP runtime start a second
// pool of threads for it.
enum class BackgroundUse : std::uint8_t { None, InlineLaunches, AllLaunches };

// What decide() needs to know about the queue's device and the OpenCL objects.
struct LaunchTarget {
  cl_device_id device;
  cl_context context;
  const DeviceLimits *limits;
  std::size_t printf_capacity;     // the device's printf buffer size
  kernel::ImageLoader image;       // the kernel's program on `device`, compiled if need be
  kernel::ImageLoader found_image; // the same if it exists already (DeviceKernel::prepare's
                                   // `find`)
  kernel::BufferResolver buffers;  // a cl_mem's device pointer
  BackgroundUse background = BackgroundUse::None;  // whether it may run in the background
};

// Where decide() sends a launch: its route. Not the path it takes (hk_path: inline, team
// or PoCL's queue), which execute() chooses for a direct launch and counts.
struct Verdict {
  enum class Route : std::uint8_t { Direct, Background, Queue, Specialize, OutOfResources };
  Route route = Route::Direct;
  hk_reason reason = HK_REASON_NONE;
  // Route::Queue with HK_REASON_STACK: the local size whose group fits PoCL's workers.
  bool fitted_local = false;
  std::size_t local[3] = {1, 1, 1};
};

// Decides where a launch of `r` from a thread with `caller_stack_room` bytes of stack
// runs, and plans it into `plan` (the launch's own: another thread may re-plan the kernel
// meanwhile).
Verdict decide(LaunchableKernel &k, const LaunchTarget &t, const LaunchRequest &r,
               std::uint64_t caller_stack_room, Plan &plan) REQUIRES(k.mutex);

// A native kernel on PoCL's queue: the plan of the request rounded up to whole
// work-groups, without a local size the largest group that fits PoCL's workers. `reqd`
// is the kernel's required work-group size (zeros: none). False when the request cannot
// be planned (PoCL is then given it as it is, for its error).
bool planNativeForQueue(const kernel::DeviceKernel &k, const DeviceLimits &limits,
                        const std::array<std::uint64_t, 3> &reqd, cl_uint dim,
                        const std::size_t *offset, const std::size_t *global,
                        const std::size_t *local, Plan &plan);

// Work-groups by variant (hkGetKernelVariantInfo); like LaunchCounts, no locked
// instruction.
[[gnu::noinline]] void countVariants(LaunchableKernel &k, const Plan &plan);
// The end of a launch whose kernel has k.after_launch set: countVariants for native
// kernels, and with HOSTKERNEL_TRACE the launch's event, from `t0` (every traced launch is
// timed, launch/sampler.hpp), in the thread's trace buffer.
[[gnu::noinline]] void afterLaunch(LaunchableKernel &k, const Plan &plan, kernel::ThreadState &ts,
                                   hk_path path, std::uint64_t t0);
// Adds a team launch's work-group time to the kernel's total; past the kernel's next
// specialization check the next launch takes the slow path.
[[gnu::noinline]] void noteTeamWork(LaunchableKernel &k, std::uint64_t ns);
// A launch took at least k.background_ns: unless the kernel's background launches are
// paused (a team launch: its team launches, `background_team_pause`), its next launch
// takes the slow path, where decide() sends it to the background.
[[gnu::noinline]] void noteLongLaunch(LaunchableKernel &k, hk_path path);

// Whether a launch is large enough for the team: more work-items than
// HOSTKERNEL_INLINE_MAX_ITEMS, or a kernel whose launches have been slow or are not
// timed yet (its first direct launch), and more than one work-group. TeamGain then
// decides whether it runs there.
[[gnu::always_inline]] inline bool teamSized(const Plan &plan, const Sampler &sampler) {
  return plan.total_groups > 1 && (plan.team_sized || sampler.slowOrUnknown());
}
// teamSized() as far as is known now: a kernel not timed yet counts as small.
inline bool knownTeamSized(const Plan &plan, const Sampler &sampler) {
  return plan.total_groups > 1 && (plan.team_sized || sampler.slow());
}

// A timed launch that could have run on the team ran `path`: TeamGain::note.
[[gnu::noinline]] void noteTeamGain(LaunchableKernel &k, const Plan &plan, hk_path path,
                                    std::uint64_t wall_ns, std::uint64_t team_serial_ns);

// TeamGain's probe of the calling thread, split (launch::runSplit): every eighth group on
// the calling thread, noted as the probe, the others on the team. `path` is HK_PATH_TEAM
// when it ran, with `serial_ns` the groups' thread time, HK_PATH_INLINE (nothing run)
// when the caller cannot start a team job; `err` CL_OUT_OF_HOST_MEMORY when a thread's
// buffers cannot grow. Returned in two registers: the launch path's locals never have
// their address taken.
struct SplitProbe {
  std::uint64_t serial_ns;
  cl_int err;
  hk_path path;
};
[[gnu::noinline]] SplitProbe runSplitProbe(LaunchableKernel &k, kernel::KernelArgs &args,
                                            Plan &plan);

// Runs a kernel whose plan is made, with the arguments `args` (the kernel's own, k.args, or
// a launch's copy of them, KernelArgs::copyBound): on the team when the launch is large or
// the kernel's launches have been slow and the team is measured to pay for it (TeamGain),
// else on the calling thread. Counts the path. Returns
// CL_OUT_OF_HOST_MEMORY only if a thread's buffers cannot grow. Inlined: as a function
// of its own, the compiler specialises it for its callers' one `ts` (threadState()) and
// reads the thread_local again inside, a second TLS access per launch.
[[gnu::always_inline]] inline cl_int execute(LaunchableKernel &k, kernel::KernelArgs &args,
                                             Plan &plan, kernel::ThreadState &ts) {
  Sampler &sampler = k.sampler;
  const bool timed = sampler.shouldTime(plan.total_groups);
  const std::uint64_t t0 = timed ? nowNs() : 0;
  std::uint64_t team_serial_ns = 0;
  hk_path path = HK_PATH_INLINE;
  if (teamSized(plan, sampler) && !k.team_gain.team()) {
    // A probe of the calling thread on a large launch runs a part of it there (TeamGain).
    if (__builtin_expect(timed && k.team_gain.splitProbeDue(plan.total_groups), 0)) {
      const SplitProbe probe = runSplitProbe(k, args, plan);
      if (probe.err != CL_SUCCESS) return probe.err;
      path = probe.path;
      team_serial_ns = probe.serial_ns;
    }
  } else if (teamSized(plan, sampler)) {
    // Always stealing: a thread that has not started, or has lost its CPU, never holds
    // the launch up; its block is run by the others. Each thread still starts on its own
    // block, so the same thread touches the same data launch after launch.
    constexpr bool kSteal = true;
    const program::KernelImage *specialized = k.specializedFor(plan.pc);
    // Built here, not for the inline path: its address escapes to the team, which would
    // make the inline path store it to memory.
    const LaunchBody body{specialized ? specialized : k.image.load(std::memory_order_acquire),
                          &args, &plan, k.printf_capacity, k.hidden_ndrange, k.unchecked};
    std::uint64_t serial_ns = 0;
    switch (runOnTeam(body, kSteal, timed, &serial_ns, k.trace_name, &k.team_choice)) {
      case TeamResult::Ran:
        path = HK_PATH_TEAM;
        team_serial_ns = serial_ns;
        if (specialized) k.countSpecializedLaunch();
        break;
      case TeamResult::OutOfMemory: return CL_OUT_OF_HOST_MEMORY;
      case TeamResult::NotRun: break;
    }
  }
  if (path == HK_PATH_INLINE &&
      !runInline(LaunchBody{k.image.load(std::memory_order_acquire), &args, &plan, 0,
                            k.hidden_ndrange, k.unchecked},
                 ts))
    return CL_OUT_OF_HOST_MEMORY;
  if (timed) {
    const std::uint64_t wall = nowNs() - t0;
    sampler.record(wall, path == HK_PATH_TEAM ? team_serial_ns : wall, plan.total_groups);
    if (path == HK_PATH_TEAM) noteTeamWork(k, team_serial_ns);
    // After a split probe (path HK_PATH_TEAM): the launch counts as one of the team's too.
    if (path == HK_PATH_TEAM || teamSized(plan, sampler))
      noteTeamGain(k, plan, path, wall, team_serial_ns);
    if (wall >= k.background_ns.load(std::memory_order_relaxed)) noteLongLaunch(k, path);
  }
  k.counts.add(path, HK_REASON_NONE);
  // One test for what few launches need: counting variants, tracing.
  if (k.after_launch) afterLaunch(k, plan, ts, path, t0);
  return CL_SUCCESS;
}
// execute() with the kernel's own arguments: a launch that runs before its call returns.
[[gnu::always_inline]] inline cl_int execute(LaunchableKernel &k, Plan &plan,
                                             kernel::ThreadState &ts) {
  return execute(k, k.args, plan, ts);
}

}  // namespace hk::launch
