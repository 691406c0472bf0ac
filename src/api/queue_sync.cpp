#include "api/queue_sync.hpp"

#include "base/next.hpp"

namespace hk::api {

cl_int drainQueue(QueueEntry &q) {
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

bool hasPendingUserEvent(cl_uint num_events, const cl_event *events) {
  if (!events) return false;
  for (cl_uint i = 0; i < num_events; ++i) {
    cl_command_type type = 0;
    cl_int status = CL_COMPLETE;
    if (next().clGetEventInfo(events[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type,
                              nullptr) != CL_SUCCESS)
      continue;  // an invalid event: PoCL reports it
    if (type != CL_COMMAND_USER) continue;
    if (next().clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                              &status, nullptr) == CL_SUCCESS &&
        status > CL_COMPLETE)
      return true;
  }
  return false;
}

void noteEnqueued(QueueEntry &q, cl_uint num_events, const cl_event *events,
                  bool blocking) {
  std::uint64_t mine = q.enqueued.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (num_events && hasPendingUserEvent(num_events, events)) q.addBlockers(num_events, events);
  if (blocking && q.in_order) q.completedUpTo(mine);
}

cl_int completeEvent(const QueueEntry &q, cl_event *event, const LaunchTimes *times) {
  const cl_ulong end = q.profiling ? profilingClock() : 0;
  cl_int err = CL_SUCCESS;
  cl_event e = next().clCreateUserEvent(q.context, &err);
  if (err != CL_SUCCESS) return err;
  err = next().clSetUserEventStatus(e, CL_COMPLETE);
  if (err != CL_SUCCESS) {
    next().clReleaseEvent(e);
    return err;
  }
  LaunchTimes now{end, end};
  recordLaunchEvent(e, q.handle, CL_COMMAND_NDRANGE_KERNEL,
                    q.profiling ? (times ? times : &now) : nullptr, end);
  *event = e;
  return CL_SUCCESS;
}

}  // namespace hk::api
