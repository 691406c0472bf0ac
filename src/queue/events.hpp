// Events of direct commands. A direct launch or command has completed when its call
// returns, so the event it hands out is a complete user event made by PoCL (no command of
// PoCL's queue); this table remembers what PoCL cannot know about it: the queue, the
// command type and, on a queue with CL_QUEUE_PROFILING_ENABLE, the command's timestamps.
// hkGetEventInfo and hkGetEventProfilingInfo answer from it, hkReleaseEvent forgets an
// event with its last reference. Only commands that ask for an event touch the table (a
// mutex and a map).
// Events the application releases are kept for reuse (releaseEvent).
//
//   CommandTimes t = CommandTimes::begin();      // on entry, when an event is requested
//   t.start = profilingClock();                  // just before the work
//   ... run ...
//   completeEvent(q, event, CL_COMMAND_READ_BUFFER, &t);   // END = now
#pragma once

#include <CL/cl.h>

#include "pocl/time_base.hpp"
#include "queue/queue.hpp"

namespace hk::queue {

// The time base of event timestamps: PoCL's (pocl/time_base.hpp), so that timestamps
// of direct launches and of PoCL's commands compare.
inline cl_ulong profilingClock() { return pocl::timeBaseNs(); }

// When a direct command was asked for (QUEUED = SUBMIT) and when its work began (START).
// END and COMPLETE are taken when the command's event is made.
struct CommandTimes {
  cl_ulong queued = 0;
  cl_ulong start = 0;
  static CommandTimes begin() {
    CommandTimes t;
    t.queued = profilingClock();
    return t;
  }
};

// Remembers `event`, a complete user event standing for a direct command on `queue`.
// `times` (with `end`) is kept when the queue profiles; null: profiling info is not
// available, as for PoCL's events on a queue without CL_QUEUE_PROFILING_ENABLE.
void recordDirectEvent(cl_event event, cl_command_queue queue, cl_command_type type,
                       const CommandTimes *times, cl_ulong end);

// A complete event for a direct command of `type` (it finished before its call returned),
// recorded above. On a profiling queue its timestamps are `times` (QUEUED = SUBMIT, START)
// and END = COMPLETE = now; with `times` null they are all now. With `failed` (a
// work-item reached `unreachable`, pocl::executionFailed) the event ends with PoCL's
// status for such a launch, pocl::kExecutionFailedStatus, as PoCL's queue ends it.
cl_int completeEvent(const Queue &q, cl_event *event, cl_command_type type,
                     const CommandTimes *times, bool failed = false);

// Records that `event`, recorded before (recordDirectEvent) for a launch that ran after its
// call returned, has completed without failure on `q`: a command that waits for it then
// waits for nothing (allCompleteDirectEvents), and the event may be kept as a spare.
void noteEventComplete(cl_event event, const Queue &q);

// hkReleaseEvent's work: releases `event`, forgetting it with its last reference. A
// complete event of a direct command (completeEvent) is not given back to PoCL then but
// kept as a spare (at most 16, the oldest go first), which completeEvent hands out again
// for its context: the same cl_event, complete, with a new record.
cl_int releaseEvent(cl_event event);

// True if every event of the list is one completeEvent made, complete without failure,
// of `context`: a command that waits for them waits for nothing and may run directly
// without asking PoCL about them. False for an empty or null list.
bool allCompleteDirectEvents(cl_context context, cl_uint n, const cl_event *events);

// Gives PoCL back the spare events of `context` (every spare for null). Each holds a
// reference to its context: a program that releases its context expects it destroyed
// once nothing of its own holds it (its destructor callbacks run then).
void releaseSpareEvents(cl_context context);

}  // namespace hk::queue
