// hkFinish, hkFlush, hkWaitForEvents: a queue that holds no PoCL work has nothing to wait
// for (every direct command completed before its call returned); otherwise PoCL's. Each
// settles the launches in the background it must come after first.
#include <hostkernel/hostkernel.h>

#include "base/next.hpp"
#include "queue/background.hpp"
#include "queue/ordering.hpp"
#include "queue/queue.hpp"

using hk::next;
namespace queue = hk::queue;

extern "C" {

cl_int hkFinish(cl_command_queue handle) {
  if (!handle) return CL_INVALID_COMMAND_QUEUE;
  if (queue::Queue *q = queue::findKnown(handle)) {
    queue::settleQueue(*q);
    if (q->idle()) return CL_SUCCESS;
    return queue::drainQueue(*q);
  }
  cl_int err = CL_SUCCESS;
  queue::Queue *q = queue::find(handle, &err);
  if (!q) return next().clFinish(handle);
  return queue::drainQueue(*q);
}

cl_int hkFlush(cl_command_queue handle) {
  if (!handle) return CL_INVALID_COMMAND_QUEUE;
  // Launches in the background need no flush: they run already.
  if (queue::Queue *q = queue::findKnown(handle); q && !q->holdsPoclWork()) return CL_SUCCESS;
  return next().clFlush(handle);
}

// A callback on the event of a launch in the background runs on the thread that completes
// the launch, where a command it enqueues on the launch's queue would come before the
// queue's later launches in the background: the launch is settled first, and PoCL calls
// the callback of the complete event now.
cl_int hkSetEventCallback(cl_event event, cl_int type,
                          void(CL_CALLBACK *notify)(cl_event, cl_int, void *), void *user) {
  if (queue::inFlight(event)) queue::settleAll();
  return next().clSetEventCallback(event, type, notify, user);
}

cl_int hkWaitForEvents(cl_uint n, const cl_event *events) {
  if (n == 0 || !events) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; ++i)
    if (!events[i]) return CL_INVALID_EVENT;
  // A launch in the background that is waited for is settled here, as a command waiting
  // for it would be: the caller runs it on the whole team if it has not started, and the
  // rules that keep launches waited for at once from the background see the wait. Left
  // to PoCL's wait, silx's convolutions (a row pass and a column pass, then a wait for the
  // second) stayed in the background and ran there on one thread fewer, 0.85x PoCL 6.0.
  queue::settleWaitList(n, events);
  return next().clWaitForEvents(n, events);
}

}  // extern "C"
