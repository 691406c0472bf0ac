#include "queue/ordering.hpp"

#include <unistd.h>

#include "base/next.hpp"
#include "queue/background.hpp"
#include "queue/events.hpp"
#include "pocl/abi.hpp"

namespace hk::queue {

cl_int drainQueue(Queue &q) {
  settleQueue(q);  // PoCL's clFinish does not wait for a background launch
  std::uint64_t upto = q.enqueued.load(std::memory_order_acquire);
  cl_int err = next().clFinish(q.handle);
  if (err != CL_SUCCESS) return err;
  q.completedUpTo(upto);
  q.stillBlocked();  // every user event behind a block has completed: let it go
  return CL_SUCCESS;
}

bool waitListValid(cl_uint num_events, const cl_event *events) {
  // Other odd lists (a count of 0 with a list, NULL events) PoCL answers itself.
  return !(num_events > 0 && events == nullptr);
}

namespace {

// Whether the command of an incomplete event may wait for a user event: its queue holds a
// command that does. That is how `blocked` spreads from queue to queue: a command that
// waits for a blocked queue's command blocks its own queue too.
bool queueOfEventBlocked(cl_event e) {
  cl_command_queue eq = nullptr;
  if (next().clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, nullptr) !=
          CL_SUCCESS ||
      !eq)
    return false;
  cl_int err = CL_SUCCESS;
  Queue *q = find(eq, &err);
  return q && q->stillBlocked();
}

// -1: an event failed; 0: some not complete; 1: all complete. `user_only`: count only
// the incomplete events that may wait for a user event (user events, and commands of
// blocked queues).
int waitListState(cl_uint n, const cl_event *events, bool user_only) {
  int state = 1;
  for (cl_uint i = 0; i < n; ++i) {
    cl_int status = CL_COMPLETE;
    cl_command_type type = CL_COMMAND_USER;
    if (!events[i] ||
        next().clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                              &status, nullptr) != CL_SUCCESS)
      continue;  // PoCL reports invalid events
    if (user_only && status > CL_COMPLETE &&
        next().clGetEventInfo(events[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type,
                              nullptr) == CL_SUCCESS &&
        type != CL_COMMAND_USER && !queueOfEventBlocked(events[i]))
      continue;
    if (status < 0) return -1;
    if (status > CL_COMPLETE) state = 0;
  }
  return state;
}

}  // namespace

bool hasIncompleteUserEvent(cl_uint num_events, const cl_event *events) {
  return events && waitListState(num_events, events, true) == 0;
}

namespace {

// 1: every event has completed or been submitted; 0: one is still CL_QUEUED; -1: one
// failed. PoCL 3.1 submits a command only once every event it waits for has completed
// (pocl_command_is_ready), and a submitted command runs to its end, so waiting for a
// submitted one cannot deadlock. A queued one may wait for a user event, directly,
// through other commands or through another queue.
int submittedState(cl_uint n, const cl_event *events) {
  int state = 1;
  for (cl_uint i = 0; i < n; ++i) {
    cl_int status = CL_COMPLETE;
    if (!events[i] ||
        next().clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                              &status, nullptr) != CL_SUCCESS)
      continue;  // PoCL reports invalid events
    if (status < 0) return -1;
    if (status == CL_QUEUED) state = 0;
  }
  return state;
}

}  // namespace

bool awaitWaitList(cl_uint num_events, const cl_event *events) {
  // Commands normally leave CL_QUEUED within microseconds (when what they wait for
  // completes); one held back by a user event never does while this thread waits. Poll
  // with growing pauses for up to ~50 ms, then give up. Once submitted, however long a
  // command runs, the caller waits for it (clWaitForEvents).
  for (unsigned pause_us = 1, waited = 0; waited < 50'000; waited += pause_us, pause_us *= 2) {
    if (submittedState(num_events, events) != 0) return true;
    if (pause_us > 10'000) pause_us = 10'000;
    usleep(pause_us);
  }
  return submittedState(num_events, events) != 0;
}

bool waitListOfContext(cl_context context, cl_uint num_events, const cl_event *events) {
  for (cl_uint i = 0; i < num_events; ++i) {
    cl_context c = nullptr;
    if (!events[i] || next().clGetEventInfo(events[i], CL_EVENT_CONTEXT, sizeof c, &c,
                                            nullptr) != CL_SUCCESS || c != context)
      return false;
  }
  return true;
}

std::uint64_t givenSoFar(const Queue &q) { return q.enqueued.load(std::memory_order_acquire); }

void noteEnqueued(Queue &q, cl_uint num_events, const cl_event *events) {
  q.enqueued.fetch_add(1, std::memory_order_acq_rel);
  if (num_events && hasIncompleteUserEvent(num_events, events)) q.addBlockers(num_events, events);
}

void noteCompleted(Queue &q, std::uint64_t given_before) {
  if (q.in_order) q.completedUpTo(given_before);
}

Admission admit(Queue &q, cl_uint num_events, const cl_event *events, bool blocking) {
  if (!q.direct) return {false, q.reason};
  if (q.stillBlocked()) return {false, HK_REASON_USER_EVENT};
  if (!q.idle()) return {false, HK_REASON_QUEUE_BUSY};
  // A count of 0 with a list is an error (CL_INVALID_EVENT_WAIT_LIST) PoCL reports for
  // these commands: run directly, the command would succeed instead.
  if (num_events == 0) return events ? Admission{false, HK_REASON_POCL_CHECKS} : Admission{true};
  if (allCompleteDirectEvents(q.context, num_events, events)) return {true};
  // PoCL's errors for a bad list are its own.
  if (!waitListOfContext(q.context, num_events, events)) return {false, HK_REASON_POCL_CHECKS};
  switch (waitListState(num_events, events, false)) {
    case 1: return {true};
    case -1: return {false, HK_REASON_POCL_CHECKS};
    default: break;
  }
  if (hasIncompleteUserEvent(num_events, events)) return {false, HK_REASON_USER_EVENT};
  if (!blocking) return {false, HK_REASON_QUEUE_BUSY};
  if (!awaitWaitList(num_events, events) ||
      next().clWaitForEvents(num_events, events) != CL_SUCCESS)
    return {false, HK_REASON_USER_EVENT};
  return {true};
}

}  // namespace hk::queue
