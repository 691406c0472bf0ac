// Ordering between direct launches and the commands PoCL holds for a queue.
//
//   if (!q.idle()) err = drainQueue(q);        // before a direct launch
//   noteEnqueued(q, n, waits, blocking);        // after forwarding any command to PoCL
#pragma once

#include <CL/cl.h>

#include "api/entries.hpp"
#include "api/profiling_events.hpp"

namespace hk::api {

// Waits until PoCL has completed every command given so far for the queue.
cl_int drainQueue(QueueEntry &q);

// False for a wait list that PoCL 3.1 crashes on instead of returning
// CL_INVALID_EVENT_WAIT_LIST: a NULL list with a nonzero count.
bool waitListValid(cl_uint num_events, const cl_event *events);

// True if the wait list holds an event that is not complete yet. Waiting for it could
// block forever (it may hang on a user event, directly or through other commands), so
// such a launch goes to PoCL's queue, which waits without blocking the caller.
bool hasIncompleteEvent(cl_uint num_events, const cl_event *events);
// True if the wait list holds an incomplete user event, or an incomplete command of a
// blocked queue (one holding a command that waits for a user event).
bool hasIncompleteUserEvent(cl_uint num_events, const cl_event *events);

// Waits a bounded time (~50 ms) for every event of the list to be submitted by PoCL (so
// that waiting for it to finish cannot deadlock); false if one has not (the launch then
// goes to PoCL's queue, which waits without blocking the caller).
bool awaitWaitList(cl_uint num_events, const cl_event *events);

// Records a command given to PoCL. `blocking`: it has completed when the call returned
// (so, on an in-order queue, has everything before it).
void noteEnqueued(QueueEntry &q, cl_uint num_events, const cl_event *events, bool blocking);

// A complete event for a direct launch (the launch finished before the call returned).
// It reports CL_COMMAND_NDRANGE_KERNEL and `q` (hkGetEventInfo). On a profiling queue its
// timestamps are `times` (QUEUED = SUBMIT, START) and END = COMPLETE = now; with
// `times` null they are all now. With `failed` (a work-item reached `unreachable`,
// pocl::executionFailed) the event ends with PoCL's status for such a launch,
// pocl::kExecutionFailedStatus, as PoCL's queue ends it.
cl_int completeEvent(const QueueEntry &q, cl_event *event, const LaunchTimes *times,
                     bool failed = false);
inline cl_int completeEvent(const QueueEntry &q, cl_event *event) {
  return completeEvent(q, event, nullptr);
}

}  // namespace hk::api
