// Events of direct launches. A direct launch has completed when hkEnqueueNDRangeKernel
// returns, so the event it hands out is a complete user event made by PoCL; this table
// remembers what PoCL cannot know about it: the queue, the command type and, on a queue
// with CL_QUEUE_PROFILING_ENABLE, the launch's timestamps. hkGetEventInfo and
// hkGetEventProfilingInfo answer from it, hkReleaseEvent forgets an event with its last
// reference. Only launches that ask for an event touch the table (a mutex and a map).
//
//   LaunchTimes t = LaunchTimes::begin();        // on entry, when an event is requested
//   t.start = profilingClock();                  // just before the work-group loop
//   ... run ...
//   completeEvent(q, event, &t);                 // END = now; see queue_sync.hpp
#pragma once

#include <CL/cl.h>

#include "pocl/time_base.hpp"

namespace hk::api {

// The time base of event timestamps: PoCL's (pocl/time_base.hpp), so that timestamps
// of direct launches and of PoCL's commands compare.
inline cl_ulong profilingClock() { return pocl::timeBaseNs(); }

// When a direct launch was asked for (QUEUED = SUBMIT) and when its work-group loop began
// (START). END and COMPLETE are taken when the launch's event is made.
struct LaunchTimes {
  cl_ulong queued = 0;
  cl_ulong start = 0;
  static LaunchTimes begin() {
    LaunchTimes t;
    t.queued = profilingClock();
    return t;
  }
};

// Remembers `event`, a complete user event standing for a direct launch on `queue`.
// `times` (with `end`) is kept when the queue profiles; null: profiling info is not
// available, as for PoCL's events on a queue without CL_QUEUE_PROFILING_ENABLE.
void recordLaunchEvent(cl_event event, cl_command_queue queue, cl_command_type type,
                       const LaunchTimes *times, cl_ulong end);

// hkReleaseEvent's work: releases `event`, forgetting it with its last reference.
cl_int releaseEvent(cl_event event);

}  // namespace hk::api
