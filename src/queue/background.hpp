// Launches that run while their caller goes on. A direct launch of a kernel whose launches
// take long (launch::decide gives Verdict::Route::Background) is handed to hostkernel's
// background launch thread, which runs it as the caller would have (launch::execute:
// inline, or on the team with the background thread as the team's caller), and the
// enqueue returns at once: the caller's own work between its commands overlaps the
// kernel, as it does with PoCL's queue. One launch runs in the background at a time, in
// the whole process.
//
// The rule that keeps OpenCL's order: whatever must come after the launch waits for it
// (settles it) before anything else.
//   - every command on its queue: launches, buffer commands, commands given to PoCL,
//     clFinish (settleQueue; the launch counts as work held for the queue,
//     Queue::enqueued, so the launch fast path, which needs an idle queue, leaves such a
//     launch to the slow path, which settles);
//   - every command whose wait list holds its event (settleWaitList);
//   - clSetKernelArg of its kernel (settleKernel), and the release of any kernel,
//     program, queue or context (settleAll). Not the release of a memory object: the
//     launch holds references to the buffers its arguments name until it is done;
//   - the next background launch, fork() and exit().
// Its event, if asked for, is a PoCL user event that the background thread completes
// when the work-groups are done (with the launch's times on a profiling queue), so that
// PoCL's own waits (clWaitForEvents, a command of PoCL's queue that waits for it) need
// nothing from hostkernel.
//
//   if (verdict.route == Verdict::Route::Background &&
//       queue::startInBackground(k, plan, q, event, &err))
//     return err;                                  // running; the caller goes on
//   err = launch::execute(k, plan, threadState());  // not taken: run it now
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>

#include "launch/launchable_kernel.hpp"
#include "launch/launcher.hpp"
#include "launch/geometry.hpp"
#include "queue/queue.hpp"

namespace hk::queue {

// What runs in the background now: read without a lock by the settle checks below.
struct BackgroundNow {
  std::atomic<bool> busy{false};
  std::atomic<const Queue *> queue{nullptr};
  std::atomic<const launch::LaunchableKernel *> kernel{nullptr};
  std::atomic<cl_event> event{nullptr};
};
extern constinit BackgroundNow g_background_now;

// Whether launches may run in the background in this process now: HOSTKERNEL_BACKGROUND_US
// is not 0, the process is not exiting, and team launches run on hostkernel's own
// workers (OpenMP's runtime would start a second pool of threads for a launch made from
// the background thread).
launch::BackgroundUse backgroundAvailable();

// Starts the launch of `k` planned as `plan` on queue `q` in the background and returns
// true; with `event`, *event is the launch's event and *err the enqueue's result. False,
// with nothing started, when the background thread is running another queue's launch,
// cannot start, or lacks the stack the plan needs: the caller then runs the launch
// itself. The queue must be idle (nothing of it may still run).
bool startInBackground(launch::LaunchableKernel &k, const launch::Plan &plan, Queue &q,
                       cl_event *event, cl_int *err);

// Waits until the launch in the background, if any, has completed; runs it on this thread
// if the background thread has not started it yet (and this thread's stack has the room).
void settleAll();

// Whether a launch that a settling caller found not started `waited_ns` after its
// hand-over counts as late (docs/background.md): the background thread got no CPU, so
// the launch overlapped nothing. `woken`: the hand-over had to wake the parked background
// thread; `duration_ns`: the kernel's usual duration.
bool startedLate(std::uint64_t waited_ns, bool woken, std::uint64_t duration_ns);

// settleAll() if the running launch is on `q`.
inline void settleQueue(const Queue &q) {
  if (g_background_now.busy.load(std::memory_order_acquire) &&
      g_background_now.queue.load(std::memory_order_relaxed) == &q)
    settleAll();
}
// settleAll() if the running launch is of kernel `k`.
inline void settleKernel(const launch::LaunchableKernel *k) {
  if (g_background_now.busy.load(std::memory_order_acquire) &&
      g_background_now.kernel.load(std::memory_order_relaxed) == k)
    settleAll();
}
// settleAll() if a launch runs in the background at all.
inline void settleAny() {
  if (g_background_now.busy.load(std::memory_order_acquire)) settleAll();
}
// settleAll() if the wait list holds the running launch's event.
inline void settleWaitList(cl_uint num_events, const cl_event *events) {
  if (!num_events || !events || !g_background_now.busy.load(std::memory_order_acquire)) return;
  const cl_event running = g_background_now.event.load(std::memory_order_relaxed);
  for (cl_uint i = 0; running && i < num_events; ++i)
    if (events[i] == running) return settleAll();
}

}  // namespace hk::queue
