#include "queue/launch_command.hpp"

#include <hostkernel/hostkernel.h>

#include <array>
#include <mutex>
#include <string>

#include "base/next.hpp"
#include "base/thread_safety.hpp"
#include "kernel/thread_state.hpp"
#include "launch/launcher.hpp"
#include "pocl/object_id.hpp"
#include "queue/background.hpp"
#include "queue/buffers.hpp"
#include "queue/events.hpp"
#include "queue/ordering.hpp"
#include "queue/queue.hpp"
#include "queue/registry.hpp"
#include "trace/recorder.hpp"

namespace hk::queue {
namespace {

// HOSTKERNEL_TRACE: a launch given to PoCL's queue, from `t0` to now (the enqueue call:
// PoCL runs the work-groups later, on its own threads). Its work-groups as the request
// gives them; 0 when PoCL chooses the local size. The thread's state is looked up again
// (a second TLS access, on this path only when tracing).
[[gnu::noinline]] void traceQueueLaunch(KernelEntry *k, hk_reason reason, std::uint64_t t0,
                                        cl_uint dim, const size_t *global, const size_t *local) {
  std::uint64_t groups = local && global && dim >= 1 && dim <= 3 ? 1 : 0;
  for (cl_uint d = 0; groups && d < dim; ++d)
    groups *= local[d] ? (global[d] + local[d] - 1) / local[d] : 0;
  const std::uint32_t name = trace::internName(k ? k->name : std::string("(unknown kernel)"));
  kernel::threadState().traceBuffer().record({trace::Kind::Launch, HK_PATH_QUEUE,
                                              static_cast<std::uint8_t>(reason), 0, name, t0,
                                              hk::nowNs() - t0, groups});
}

// Gives PoCL's kernel the arguments hostkernel only recorded (args_api.cpp). Under
// k.queue_arg_mutex, up to the enqueue that uses them.
cl_int giveArgsToPocl(KernelEntry &k, cl_kernel kernel) {
  return k.args.takePendingForPocl([&](cl_uint i, size_t size, const void *value) {
    return next().clSetKernelArg(kernel, i, size, value);
  });
}

// One clEnqueueNDRangeKernel call, as the application made it: what the slow path passes
// on, and what goes to PoCL, with its sizes replaced where hostkernel chose them.
struct LaunchCall {
  cl_command_queue queue;
  cl_kernel kernel;
  cl_uint dim;
  const size_t *offset;
  const size_t *global;
  const size_t *local;
  cl_uint nwait;
  const cl_event *waits;
  cl_event *event;

  // The same call without its wait list, once every event of it is known complete.
  LaunchCall withoutWaits() const {
    LaunchCall c = *this;
    c.nwait = 0;
    c.waits = nullptr;
    return c;
  }

  // The same call with other sizes.
  LaunchCall withSizes(const size_t *new_global, const size_t *new_local) const {
    LaunchCall c = *this;
    c.global = new_global;
    c.local = new_local;
    return c;
  }
};

// Gives the launch to PoCL and records why. PoCL knows nothing of the queue's launches in
// the background: they are settled first.
cl_int launchOnQueue(KernelEntry *k, Queue *q, hk_reason reason, const LaunchCall &c) {
  if (Queue *known = q ? q : findKnown(c.queue)) settleQueue(*known);
  std::unique_lock<std::recursive_mutex> args_lock;
  if (k) {
    args_lock = std::unique_lock(k->queue_arg_mutex);
    if (cl_int err = giveArgsToPocl(*k, c.kernel); err != CL_SUCCESS) return err;
  }
  const bool traced = trace::enabled();
  const std::uint64_t t0 = traced ? hk::nowNs() : 0;
  cl_int err = next().clEnqueueNDRangeKernel(c.queue, c.kernel, c.dim, c.offset, c.global,
                                             c.local, c.nwait, c.waits, c.event);
  if (traced) traceQueueLaunch(k, reason, t0, c.dim, c.global, c.local);
  if (k) k->counts.add(HK_PATH_QUEUE, reason);
  if (q && err == CL_SUCCESS) noteEnqueued(*q, c.nwait, c.waits);
  return err;
}

// A native kernel on PoCL's queue: the checked variant (the application's program) over
// the grid rounded up to whole work-groups, with the true ndrange as argument 0. Requests
// that cannot be planned go to PoCL as they are, for its error.
cl_int launchNativeOnQueue(KernelEntry &k, Queue &q, hk_reason reason, const LaunchCall &c) {
  launch::Plan plan;
  std::array<std::uint64_t, 3> reqd{};
  size_t compiled[3] = {};
  if (next().clGetKernelWorkGroupInfo(c.kernel, q.device->handle,
                                      CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled,
                                      compiled, nullptr) == CL_SUCCESS)
    for (int i = 0; i < 3; ++i) reqd[i] = compiled[i];
  if (!launch::planNativeForQueue(k, q.device->limits, reqd, c.dim, c.offset, c.global,
                                  c.local, plan))
    return launchOnQueue(&k, &q, reason, c);
  size_t grid[3], wg[3];
  for (cl_uint i = 0; i < c.dim; ++i) {
    wg[i] = plan.pc.local_size[i];
    grid[i] = plan.pc.num_groups[i] * wg[i];
  }
  std::uint64_t ndrange[3];
  launch::trueNdrange(plan, ndrange);
  // PoCL copies argument values when the command is enqueued: set and enqueue together.
  std::lock_guard lock(k.queue_arg_mutex);
  cl_int err = next().clSetKernelArg(c.kernel, 0, sizeof ndrange, ndrange);
  if (err != CL_SUCCESS) return err;
  return launchOnQueue(&k, &q, reason, c.withSizes(grid, wg));
}

// A launch hostkernel gives to PoCL's queue for `why`: native kernels as
// launchNativeOnQueue makes them, others as the application made them.
cl_int toQueue(KernelEntry &k, Queue &q, hk_reason why, const LaunchCall &c) {
  return k.hidden_ndrange ? launchNativeOnQueue(k, q, why, c) : launchOnQueue(&k, &q, why, c);
}

// The launch launch::decide chose for specialization: through PoCL's queue with the
// plan's local size, so that PoCL compiles (and runs) its specialized function; waits for
// it, then the kernel loads the function for the team launches that follow.
cl_int specializeOnQueue(KernelEntry &k, Queue &q, const launch::Plan &plan,
                         const LaunchCall &c) {
  const size_t local[3] = {plan.pc.local_size[0], plan.pc.local_size[1],
                           plan.pc.local_size[2]};
  cl_event own = nullptr;
  LaunchCall call = c.withSizes(c.global, local);
  if (!call.event) call.event = &own;
  cl_int err = launchOnQueue(&k, &q, HK_REASON_SPECIALIZE, call);
  const bool ran = err == CL_SUCCESS && next().clWaitForEvents(1, call.event) == CL_SUCCESS;
  if (own) next().clReleaseEvent(own);
  k.finishSpecializing(ran);
  return err;
}

// Where launch::decide sends this launch, with the kernel prepared for the queue's device
// and `plan` made for the request. Under k.mutex, which serialises the kernel's
// preparation and planning across threads.
launch::Verdict decideRoute(KernelEntry &k, Queue &q, kernel::ThreadState &ts,
                            const LaunchCall &c, launch::Plan &plan) REQUIRES(k.mutex) {
  Registry &reg = registry();
  const Device &device = *q.device;
  auto load = [&](std::string &error) {
    return reg.programImage(k.program, device.handle, error);
  };
  auto found = [&](std::string &error) {
    return reg.existingImage(k.program, device.handle, error);
  };
  auto resolve = [&](cl_mem m, void **out) { return bufferPointer(m, q, out); };
  const launch::LaunchTarget target{device.handle, q.context, &device.limits,
                                    device.probe.printf_buffer_size, load, found, resolve,
                                    backgroundAvailable()};
  const launch::Verdict verdict = launch::decide(
      k, target, launch::LaunchRequest::from(c.dim, c.offset, c.global, c.local),
      ts.stackRoom(), plan);
  if (k.device != q.device) k.device = q.device;  // prepared for it, or failed on it
  return verdict;
}

// A launch the queue's ordering rule lets run directly: decided (decideRoute), then run
// where the verdict says. The route to PoCL's queue is taken under k.mutex, as decided.
cl_int launchAdmitted(KernelEntry &k, Queue &q, const LaunchCall &c, CommandTimes &times) {
  kernel::ThreadState &ts = kernel::threadState();
  if (!ts.ready) ts.setUp(q.device->probe.printf_buffer_size);
  launch::Plan plan;  // this launch's own: another thread may re-plan the kernel meanwhile
  launch::Verdict verdict;
  {
    MutexLock lock(k.mutex);
    verdict = decideRoute(k, q, ts, c, plan);
    switch (verdict.route) {
      case launch::Verdict::Route::Queue:
        if (verdict.fitted_local)
          return launchOnQueue(&k, &q, verdict.reason,
                               c.withSizes(c.global, c.local ? c.local : verdict.local));
        return toQueue(k, q, verdict.reason, c);
      case launch::Verdict::Route::OutOfResources: return CL_OUT_OF_RESOURCES;
      case launch::Verdict::Route::Specialize:
      case launch::Verdict::Route::Background:
      case launch::Verdict::Route::Direct: break;
    }
  }
  if (verdict.route == launch::Verdict::Route::Specialize)
    return specializeOnQueue(k, q, plan, c);
  cl_int err = CL_SUCCESS;
  if (c.nwait) {
    // Events of PoCL's commands (or of earlier direct launches, already complete).
    if (next().clWaitForEvents(c.nwait, c.waits) != CL_SUCCESS)
      return toQueue(k, q, HK_REASON_INVALID_LAUNCH, c);
  }
  // PoCL's work for the queue first; its launches in the background only if this one
  // does not follow them there.
  if (q.holdsPoclWork() && (err = drainQueue(q)) != CL_SUCCESS) return err;
  if (verdict.route == launch::Verdict::Route::Background &&
      startInBackground(k, plan, q, c.event, &err))
    return err;
  settleQueue(q);
  if (c.event) times.start = profilingClock();
  if ((err = launch::execute(k, plan, ts)) != CL_SUCCESS) return err;
  return c.event ? completeEvent(q, c.event, CL_COMMAND_NDRANGE_KERNEL, &times,
                                 pocl::executionFailed(plan.pc))
                 : CL_SUCCESS;
}

// The longest wait list whose events of launches in the background launchSlow leaves out.
constexpr cl_uint kMaxWaitsKept = 16;

// The slow path (launch_command.hpp): finds the kernel's and the queue's records, and
// gives PoCL every launch it must run (unknown objects, queues that run nothing
// directly, invalid requests, wait lists that hold user events) before launchAdmitted.
// Takes the entry point's parameters as they are: making the LaunchCall in the caller
// would cost the fast path instructions.
[[gnu::noinline]] cl_int launchSlow(cl_command_queue queue, cl_kernel kernel, cl_uint dim,
                                    const size_t *offset, const size_t *global,
                                    const size_t *local, cl_uint nwait, const cl_event *waits,
                                    cl_event *event) {
  LaunchCall c{queue, kernel, dim, offset, global, local, nwait, waits, event};
  if (!waitListValid(c.nwait, c.waits)) return CL_INVALID_EVENT_WAIT_LIST;
  // The launch comes after the launches in the background it waits for. Those of its own
  // in-order queue it follows anyway, and need not wait for: it may follow them into the
  // background (launchAdmitted settles them otherwise, launchOnQueue before PoCL).
  std::array<cl_event, kMaxWaitsKept> kept;
  if (Queue *known = findKnown(c.queue); known && c.nwait && c.nwait <= kMaxWaitsKept) {
    cl_uint n = 0;
    for (cl_uint i = 0; i < c.nwait; ++i)
      if (!inFlightOn(*known, c.waits[i])) kept[n++] = c.waits[i];
    if (n < c.nwait) {
      c.nwait = n;
      c.waits = n ? kept.data() : nullptr;
    }
  }
  settleWaitList(c.nwait, c.waits);
  // A zero local size is no work-group size (CL_INVALID_WORK_GROUP_SIZE: the global size
  // is not a multiple of it). PoCL divides by it: 3.1 in dimensions 2 and 3, 6.0 in
  // every one, so such a launch never reaches PoCL.
  if (c.local && c.dim >= 1 && c.dim <= 3 && c.global)
    for (cl_uint i = 0; i < c.dim; ++i)
      if (c.local[i] == 0) return CL_INVALID_WORK_GROUP_SIZE;
  CommandTimes times;
  if (c.event) times = CommandTimes::begin();
  cl_int err = CL_SUCCESS;
  KernelEntry *k = registry().kernelEntry(c.kernel, &err);
  if (!k) {
    if (err == CL_INVALID_KERNEL) return err;  // released, or not a kernel
    return launchOnQueue(nullptr, nullptr, HK_REASON_LIMITS, c);
  }
  Queue *q = find(c.queue, &err);
  if (!q) {
    if (err == CL_INVALID_COMMAND_QUEUE) return err;
    return launchOnQueue(k, nullptr, HK_REASON_LIMITS, c);
  }
  if (!q->direct) return toQueue(*k, *q, q->reason, c);
  if (k->context != q->context) return toQueue(*k, *q, HK_REASON_INVALID_LAUNCH, c);
  if (c.dim < 1 || c.dim > 3 || !c.global) return toQueue(*k, *q, HK_REASON_INVALID_LAUNCH, c);
  // Complete direct events (a chain of direct launches) are nothing to wait for.
  const bool waits_done = c.nwait && allCompleteDirectEvents(q->context, c.nwait, c.waits);
  if (c.nwait && !waits_done && !waitListOfContext(q->context, c.nwait, c.waits))
    return toQueue(*k, *q, HK_REASON_POCL_CHECKS, c);  // for PoCL's error
  if (!waits_done && (hasIncompleteUserEvent(c.nwait, c.waits) ||
                      (c.nwait && !awaitWaitList(c.nwait, c.waits)))) {
    q->addBlockers(c.nwait, c.waits);  // PoCL will hold this launch until they complete
    return toQueue(*k, *q, HK_REASON_USER_EVENT, c);
  }
  if (q->stillBlocked()) return toQueue(*k, *q, HK_REASON_USER_EVENT, c);
  return launchAdmitted(*k, *q, waits_done ? c.withoutWaits() : c, times);
}

// A wait list of complete direct events (a chain of launches, each waiting for the
// last one's event): nothing to wait for, and PoCL's checks of the list pass (same
// context, valid events). Out of line: the fast path without a list pays nothing.
[[gnu::noinline]] bool waitsDone(const Queue &q, cl_uint nwait, const cl_event *waits) {
  return allCompleteDirectEvents(q.context, nwait, waits);
}

}  // namespace

cl_int enqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dim,
                            const size_t *offset, const size_t *global, const size_t *local,
                            cl_uint nwait, const cl_event *waits, cl_event *event) {
  if (!kernel) return CL_INVALID_KERNEL;  // PoCL 3.1 would crash
  if (!queue) return CL_INVALID_COMMAND_QUEUE;
  KernelEntry *k = g_kernels.find(kernel);
  Queue *q = g_queues.find(queue);
  launch::Plan plan;
  if (isEntry(k) && isEntry(q) && k->plans_valid.load(std::memory_order_acquire) &&
      k->id == pocl::objectId(kernel) && q->id == pocl::objectId(queue) &&
      q->device == k->device && q->idle() && global &&
      (nwait == 0 || waitsDone(*q, nwait, waits)) &&
      k->plans.lookup(dim, offset, global, local, plan)) {
    kernel::ThreadState &ts = kernel::threadState();
    // The plan may come from a thread with a larger stack: its group must fit this one.
    if (ts.ready && plan.stack_kib <= (ts.stackRoom() >> 10)) {
      if (!event) return launch::execute(*k, plan, ts);
      // QUEUED now; START just before the groups.
      CommandTimes times = CommandTimes::begin();
      times.start = profilingClock();
      if (cl_int err = launch::execute(*k, plan, ts); err != CL_SUCCESS) return err;
      return completeEvent(*q, event, CL_COMMAND_NDRANGE_KERNEL, &times,
                           pocl::executionFailed(plan.pc));
    }
  }
  return launchSlow(queue, kernel, dim, offset, global, local, nwait, waits, event);
}

}  // namespace hk::queue
