// Launches that run while their caller goes on. A direct launch of a kernel whose launches
// take long (launch::decide gives Verdict::Route::Background) is handed to hostkernel's
// background launch thread, which runs it as the caller would have (launch::execute:
// inline, or on the team with the background thread as the team's caller), and the
// enqueue returns at once: the caller's own work between its commands overlaps the
// kernel, as it does with PoCL's queue. Up to kBackgroundDepth launches of one in-order
// queue may be handed over at once (one of any other queue); they run one after another,
// in the order of their enqueues, each with its own copy of its kernel's arguments
// (KernelArgs::copyBound), so the caller may set the kernel's arguments and launch it
// again at once.
//
// The rule that keeps OpenCL's order: whatever must come after a launch in the background
// waits for it (settles it) before anything else.
//   - every command on its queue other than the next background launch: launches that
//     run directly or on PoCL's queue, buffer commands, commands given to PoCL, clFinish
//     (settleQueue; the launches count as work held for the queue, Queue::in_background,
//     so the launch fast path, which needs an idle queue, leaves them to the slow path);
//   - every command whose wait list holds its event (settleWaitList), but a launch of the
//     same in-order queue, which comes after it anyway (inFlightOn);
//   - an event callback registered through hostkernel on its event (the callback then
//     runs when it is registered, hkSetEventCallback), and the release of any kernel,
//     program, queue or context (settleAll). Not clSetKernelArg (the launch has its own
//     copy of the arguments), nor the release of a memory object: the launch holds
//     references to the buffers its arguments name until it is done;
//   - fork() and exit().
// Its event, if asked for, is a PoCL user event that the thread running it completes
// when the work-groups are done (with the launch's times on a profiling queue), so that
// PoCL's own waits (clWaitForEvents, a command of PoCL's queue that waits for it) need
// nothing from hostkernel.
//
//   if (verdict.route == Verdict::Route::Background &&
//       queue::startInBackground(k, plan, q, event, &err))
//     return err;                                  // handed over; the caller goes on
//   queue::settleQueue(q);                         // not taken: the queue's others first,
//   err = launch::execute(k, plan, threadState());  // then run it now
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>

#include "launch/launchable_kernel.hpp"
#include "launch/launcher.hpp"
#include "launch/geometry.hpp"
#include "queue/queue.hpp"

namespace hk::queue {

// How many launches may be in the background at once (all of one queue).
inline constexpr std::uint32_t kBackgroundDepth = 16;

// What runs in the background now: read without a lock by the settle checks below.
// `posted` counts the launches handed over, `done` those completed: launches are pending
// while they differ, and all of them are of `queue`. `events[n % kBackgroundDepth]` is the
// event of pending launch n, or null.
struct BackgroundNow {
  std::atomic<std::uint32_t> posted{0};
  std::atomic<std::uint32_t> done{0};
  std::atomic<const Queue *> queue{nullptr};
  std::atomic<cl_event> events[kBackgroundDepth] = {};

  bool busy() const {
    return posted.load(std::memory_order_acquire) != done.load(std::memory_order_acquire);
  }
};
extern constinit BackgroundNow g_background_now;

// Whether launches may run in the background in this process now: HOSTKERNEL_BACKGROUND_US
// is not 0, the process is not exiting, and team launches run on hostkernel's own
// workers (OpenMP's runtime would start a second pool of threads for a launch made from
// the background thread).
launch::BackgroundUse backgroundAvailable();

// Hands the launch of `k` planned as `plan` on queue `q` to the background and returns
// true; with `event`, *event is the launch's event and *err the enqueue's result. False,
// with nothing handed over, when launches of another queue (or of an out-of-order queue)
// are pending, kBackgroundDepth are, the background thread cannot start, or it lacks the
// stack the plan needs: the caller then settles `q` and runs the launch itself. `q` must
// hold no PoCL work, and nothing of it may run but its launches in the background.
bool startInBackground(launch::LaunchableKernel &k, const launch::Plan &plan, Queue &q,
                       cl_event *event, cl_int *err);

// Waits until every launch in the background has completed; runs those the background
// thread has not started yet on this thread, in their order, when its stack has the room.
void settleAll();

// Whether a launch that a settling caller found not started `waited_ns` after its
// hand-over counts as late (docs/background.md): the background thread got no CPU, so
// the launch overlapped nothing. `woken`: the hand-over had to wake the parked background
// thread; `duration_ns`: the kernel's usual duration.
bool startedLate(std::uint64_t waited_ns, bool woken, std::uint64_t duration_ns);

// settleAll() if the pending launches are of `q`.
inline void settleQueue(const Queue &q) {
  if (g_background_now.busy() && g_background_now.queue.load(std::memory_order_relaxed) == &q)
    settleAll();
}
// settleAll() if a launch runs in the background at all.
inline void settleAny() {
  if (g_background_now.busy()) settleAll();
}
// Whether `e` is the event of a launch pending in the background.
inline bool inFlight(cl_event e) {
  for (const auto &pending : g_background_now.events)
    if (e && pending.load(std::memory_order_relaxed) == e) return true;
  return false;
}
// settleAll() if the wait list holds a pending launch's event.
inline void settleWaitList(cl_uint num_events, const cl_event *events) {
  if (!num_events || !events || !g_background_now.busy()) return;
  for (cl_uint i = 0; i < num_events; ++i)
    if (inFlight(events[i])) return settleAll();
}
// Whether `e` is the event of a launch pending in the background on `q`, an in-order
// queue: a later command of `q` comes after it without waiting for it.
inline bool inFlightOn(const Queue &q, cl_event e) {
  return q.in_order && g_background_now.busy() &&
         g_background_now.queue.load(std::memory_order_relaxed) == &q && inFlight(e);
}

}  // namespace hk::queue
