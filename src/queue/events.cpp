#include "queue/events.hpp"

#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "base/next.hpp"
#include "base/thread_safety.hpp"
#include "pocl/abi.hpp"
#include "pocl/object_id.hpp"

namespace hk::queue {
namespace {

struct DirectEvent {
  cl_command_queue queue = nullptr;
  cl_command_type type = CL_COMMAND_NDRANGE_KERNEL;
  bool timed = false;
  cl_ulong queued = 0, submit = 0, start = 0, end = 0;
  // Set by completeEvent: the event was complete (CL_COMPLETE) when made, so a command
  // that waits for it waits for nothing. Events of background launches get it once they
  // complete (noteEventComplete); those of PoCL's commands never.
  bool complete = false;
  cl_context context = nullptr;  // with `complete`
  std::uint64_t id = 0;          // PoCL's object id, with `complete`: tells a new event
                                 // at the address of one released behind hostkernel's back
  bool spare = false;            // released by the application, kept for reuse
};

// How many released complete events are kept for reuse. A user event costs PoCL an
// allocation and a release a free (and on 7.1 a status change signals a condition
// variable): a program that asks each launch for an event and releases it after the
// next step reuses one or two. Each spare holds a reference to its context.
constexpr std::size_t kMaxSpareEvents = 16;

// Never destroyed: events may be released by atexit handlers after static destructors.
struct EventTable {
  Mutex mutex;
  std::unordered_map<cl_event, DirectEvent> events GUARDED_BY(mutex);
  std::deque<cl_event> spares GUARDED_BY(mutex);  // oldest first
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
  if (it == t.events.end() || it->second.spare) return false;
  out = it->second;
  return true;
}

// A spare event of `context`, taken out of the pool (its record stays), else null.
cl_event takeSpare(EventTable &t, cl_context context) REQUIRES(t.mutex) {
  for (auto it = t.spares.begin(); it != t.spares.end(); ++it) {
    auto rec = t.events.find(*it);
    if (rec == t.events.end() || rec->second.context != context) continue;
    cl_event e = *it;
    t.spares.erase(it);
    return e;
  }
  return nullptr;
}

// Forgets the spare `event` and gives PoCL its last reference.
void dropSpare(EventTable &t, cl_event event) REQUIRES(t.mutex) {
  t.events.erase(event);
  t.count.store(t.events.size(), std::memory_order_release);
  next().clReleaseEvent(event);
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

void recordDirectEvent(EventTable &t, cl_event event, cl_command_queue queue,
                       cl_command_type type, const CommandTimes *times, cl_ulong end)
    REQUIRES(t.mutex) {
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
  // A new event at the address of one that died without hkReleaseEvent replaces it.
  t.events.insert_or_assign(event, e);
  t.count.store(t.events.size(), std::memory_order_release);
}

// Records `event` as completeEvent's: complete, of `q`'s context, with PoCL's id.
void recordCompleteEvent(EventTable &t, cl_event event, const Queue &q, cl_command_type type,
                         const CommandTimes *times, cl_ulong end) REQUIRES(t.mutex) {
  recordDirectEvent(t, event, q.handle, type, times, end);
  DirectEvent &rec = t.events[event];
  rec.complete = true;
  rec.context = q.context;
  rec.id = pocl::objectId(event);
}

}  // namespace

void recordDirectEvent(cl_event event, cl_command_queue queue, cl_command_type type,
                       const CommandTimes *times, cl_ulong end) {
  EventTable &t = table();
  MutexLock lock(t.mutex);
  recordDirectEvent(t, event, queue, type, times, end);
}

void noteEventComplete(cl_event event, const Queue &q) {
  EventTable &t = table();
  MutexLock lock(t.mutex);
  auto it = t.events.find(event);
  if (it == t.events.end() || it->second.spare) return;
  it->second.complete = true;
  it->second.context = q.context;
  it->second.id = pocl::objectId(event);
}

cl_int completeEvent(const Queue &q, cl_event *event, cl_command_type type,
                     const CommandTimes *times, bool failed) {
  const cl_ulong end = q.profiling ? profilingClock() : 0;
  CommandTimes now{end, end};
  const CommandTimes *kept = q.profiling ? (times ? times : &now) : nullptr;
  EventTable &t = table();
  if (!failed && maybeKnown()) {
    MutexLock lock(t.mutex);
    if (cl_event e = takeSpare(t, q.context)) {
      recordCompleteEvent(t, e, q, type, kept, end);
      *event = e;
      return CL_SUCCESS;
    }
  }
  cl_int err = CL_SUCCESS;
  cl_event e = next().clCreateUserEvent(q.context, &err);
  if (err != CL_SUCCESS) return err;
  err = next().clSetUserEventStatus(e, failed ? pocl::kExecutionFailedStatus : CL_COMPLETE);
  if (err != CL_SUCCESS) {
    next().clReleaseEvent(e);
    return err;
  }
  {
    MutexLock lock(t.mutex);
    if (failed)
      recordDirectEvent(t, e, q.handle, type, kept, end);
    else
      recordCompleteEvent(t, e, q, type, kept, end);
  }
  *event = e;
  return CL_SUCCESS;
}

bool allCompleteDirectEvents(cl_context context, cl_uint n, const cl_event *events) {
  if (!events || !maybeKnown()) return false;
  EventTable &t = table();
  MutexLock lock(t.mutex);
  for (cl_uint i = 0; i < n; ++i) {
    auto it = t.events.find(events[i]);
    if (it == t.events.end()) return false;
    const DirectEvent &e = it->second;
    if (!e.complete || e.spare || e.context != context || e.id != pocl::objectId(events[i]))
      return false;
  }
  return true;
}

void releaseSpareEvents(cl_context context) {
  if (!maybeKnown()) return;
  EventTable &t = table();
  MutexLock lock(t.mutex);
  for (auto it = t.spares.begin(); it != t.spares.end();) {
    auto rec = t.events.find(*it);
    if (rec != t.events.end() && context && rec->second.context != context) {
      ++it;
      continue;
    }
    cl_event e = *it;
    it = t.spares.erase(it);
    dropSpare(t, e);
  }
}

cl_int releaseEvent(cl_event event) {
  if (!maybeKnown()) return next().clReleaseEvent(event);
  EventTable &t = table();
  MutexLock lock(t.mutex);
  auto it = t.events.find(event);
  if (it == t.events.end()) return next().clReleaseEvent(event);
  if (it->second.spare) return CL_INVALID_EVENT;  // released already
  // Reading the count and releasing under the table's lock: two threads releasing the
  // last two references cannot both miss the last one.
  cl_uint refs = 0;
  cl_int err = next().clGetEventInfo(event, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs,
                                     nullptr);
  if (err != CL_SUCCESS) return err;
  if (refs == 1 && it->second.complete && it->second.id == pocl::objectId(event)) {
    // The application's last reference: the event stays complete, and its next use is
    // as the event of another direct command of its context.
    it->second.spare = true;
    t.spares.push_back(event);
    if (t.spares.size() > kMaxSpareEvents) {
      cl_event oldest = t.spares.front();
      t.spares.pop_front();
      dropSpare(t, oldest);
    }
    return CL_SUCCESS;
  }
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
