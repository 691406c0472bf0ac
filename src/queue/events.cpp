#include "queue/events.hpp"

#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstring>
#include <unordered_map>

#include "base/next.hpp"
#include "base/thread_safety.hpp"
#include "pocl/abi.hpp"

namespace hk::queue {
namespace {

struct DirectEvent {
  cl_command_queue queue = nullptr;
  cl_command_type type = CL_COMMAND_NDRANGE_KERNEL;
  bool timed = false;
  cl_ulong queued = 0, submit = 0, start = 0, end = 0;
};

// Never destroyed: events may be released by atexit handlers after static destructors.
struct EventTable {
  Mutex mutex;
  std::unordered_map<cl_event, DirectEvent> events GUARDED_BY(mutex);
  // events.size(), readable without the lock: programs that never ask a direct launch
  // for an event pay one relaxed load per event call.
  std::atomic<std::size_t> count{0};
};

EventTable &table() {
  static EventTable *t = new EventTable();
  return *t;
}

bool maybeKnown() {
  return table().count.load(std::memory_order_acquire) != 0;
}

// A copy of the record of `event`, if it stands for a direct launch.
bool lookup(cl_event event, DirectEvent &out) {
  if (!event || !maybeKnown()) return false;
  EventTable &t = table();
  MutexLock lock(t.mutex);
  auto it = t.events.find(event);
  if (it == t.events.end()) return false;
  out = it->second;
  return true;
}

// clGetXxxInfo's contract for a fixed-size value, as PoCL implements it.
template <typename T>
cl_int returnInfo(const T &v, size_t size, void *value, size_t *size_ret) {
  if (value) {
    if (size < sizeof(T)) return CL_INVALID_VALUE;
    std::memcpy(value, &v, sizeof(T));
  }
  if (size_ret) *size_ret = sizeof(T);
  return CL_SUCCESS;
}

}  // namespace

void recordDirectEvent(cl_event event, cl_command_queue queue, cl_command_type type,
                       const CommandTimes *times, cl_ulong end) {
  DirectEvent e;
  e.queue = queue;
  e.type = type;
  if (times) {
    e.timed = true;
    e.queued = e.submit = times->queued;
    // Times must not run backwards even if a caller passes a START taken before QUEUED.
    e.start = times->start < e.queued ? e.queued : times->start;
    e.end = end < e.start ? e.start : end;
  }
  EventTable &t = table();
  MutexLock lock(t.mutex);
  // A new event at the address of one that died without hkReleaseEvent replaces it.
  t.events.insert_or_assign(event, e);
  t.count.store(t.events.size(), std::memory_order_release);
}

cl_int completeEvent(const Queue &q, cl_event *event, cl_command_type type,
                     const CommandTimes *times, bool failed) {
  const cl_ulong end = q.profiling ? profilingClock() : 0;
  cl_int err = CL_SUCCESS;
  cl_event e = next().clCreateUserEvent(q.context, &err);
  if (err != CL_SUCCESS) return err;
  err = next().clSetUserEventStatus(e, failed ? pocl::kExecutionFailedStatus : CL_COMPLETE);
  if (err != CL_SUCCESS) {
    next().clReleaseEvent(e);
    return err;
  }
  CommandTimes now{end, end};
  recordDirectEvent(e, q.handle, type, q.profiling ? (times ? times : &now) : nullptr, end);
  *event = e;
  return CL_SUCCESS;
}

cl_int releaseEvent(cl_event event) {
  if (!maybeKnown()) return next().clReleaseEvent(event);
  EventTable &t = table();
  MutexLock lock(t.mutex);
  auto it = t.events.find(event);
  if (it == t.events.end()) return next().clReleaseEvent(event);
  // Reading the count and releasing under the table's lock: two threads releasing the
  // last two references cannot both miss the last one.
  cl_uint refs = 0;
  cl_int err = next().clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs,
                                     nullptr);
  if (err != CL_SUCCESS) return err;
  err = next().clReleaseEvent(event);
  if (err == CL_SUCCESS && refs <= 1) {
    t.events.erase(it);
    t.count.store(t.events.size(), std::memory_order_release);
  }
  return err;
}

}  // namespace hk::queue

using namespace hk::queue;
using hk::next;

extern "C" {

cl_int hkGetEventProfilingInfo(cl_event event, cl_profiling_info name, size_t size,
                               void *value, size_t *size_ret) {
  DirectEvent e;
  if (!lookup(event, e)) return next().clGetEventProfilingInfo(event, name, size, value, size_ret);
  // PoCL's order of checks: availability, then the size, then the name.
  if (!e.timed) return CL_PROFILING_INFO_NOT_AVAILABLE;
  if (value) {
    if (size < sizeof(cl_ulong)) return CL_INVALID_VALUE;
    cl_ulong v = 0;
    switch (name) {
      case CL_PROFILING_COMMAND_QUEUED: v = e.queued; break;
      case CL_PROFILING_COMMAND_SUBMIT: v = e.submit; break;
      case CL_PROFILING_COMMAND_START: v = e.start; break;
      case CL_PROFILING_COMMAND_END:
      case CL_PROFILING_COMMAND_COMPLETE: v = e.end; break;
      default: return CL_INVALID_VALUE;
    }
    std::memcpy(value, &v, sizeof v);
  }
  if (size_ret) *size_ret = sizeof(cl_ulong);
  return CL_SUCCESS;
}

cl_int hkGetEventInfo(cl_event event, cl_event_info name, size_t size, void *value,
                      size_t *size_ret) {
  DirectEvent e;
  if ((name == CL_EVENT_COMMAND_TYPE || name == CL_EVENT_COMMAND_QUEUE) && lookup(event, e))
    return name == CL_EVENT_COMMAND_TYPE ? returnInfo(e.type, size, value, size_ret)
                                         : returnInfo(e.queue, size, value, size_ret);
  return next().clGetEventInfo(event, name, size, value, size_ret);
}

}  // extern "C"
