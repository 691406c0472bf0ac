#include "queue/queue.hpp"

#include <memory>

#include "base/config.hpp"
#include "base/exit_guard.hpp"
#include "base/next.hpp"

namespace hk::queue {

constinit ObjectTable<Queue> g_queues;

Queue::~Queue() {
  for (cl_event e : blockers) next().clReleaseEvent(e);
}

void Queue::addBlockers(cl_uint n, const cl_event *events) {
  MutexLock lock(blockers_mutex);
  for (cl_uint i = 0; i < n; ++i) {
    cl_int status = CL_COMPLETE;
    if (events[i] &&
        next().clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                              &status, nullptr) == CL_SUCCESS &&
        status > CL_COMPLETE && next().clRetainEvent(events[i]) == CL_SUCCESS)
      blockers.push_back(events[i]);
  }
  blocked.store(true, std::memory_order_release);
}

bool Queue::stillBlocked() {
  if (!blocked.load(std::memory_order_acquire)) return false;
  MutexLock lock(blockers_mutex);
  std::erase_if(blockers, [](cl_event e) {
    cl_int status = CL_SUBMITTED;
    next().clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                          nullptr);
    if (status > CL_COMPLETE) return false;
    next().clReleaseEvent(e);
    return true;
  });
  if (!blockers.empty()) return true;
  blocked.store(false, std::memory_order_release);
  return false;
}

void Queue::completedUpTo(std::uint64_t upto) {
  std::uint64_t c = completed.load(std::memory_order_relaxed);
  while (c < upto && !completed.compare_exchange_weak(c, upto, std::memory_order_acq_rel)) {
  }
}

namespace {

// Serialises the creation of records (the table serialises its own writes; this makes
// "look up, else insert" one step).
std::mutex &creationMutex() {
  static auto *m = new std::mutex;
  return *m;
}

std::unique_ptr<Queue> describe(cl_command_queue handle, cl_int *err) {
  auto q = std::make_unique<Queue>();
  q->handle = handle;
  cl_device_id device = nullptr;
  cl_command_queue_properties props = 0;
  const auto &cl = next();
  if ((*err = cl.clGetCommandQueueInfo(handle, CL_QUEUE_CONTEXT, sizeof q->context,
                                       &q->context, nullptr)) != CL_SUCCESS ||
      (*err = cl.clGetCommandQueueInfo(handle, CL_QUEUE_DEVICE, sizeof device, &device,
                                       nullptr)) != CL_SUCCESS ||
      (*err = cl.clGetCommandQueueInfo(handle, CL_QUEUE_PROPERTIES, sizeof props, &props,
                                       nullptr)) != CL_SUCCESS)
    return nullptr;
  pocl::checkObjectIds(q->context);
  q->id = pocl::objectId(handle);
  q->device = queue::device(device);
  q->in_order = !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  q->profiling = props & CL_QUEUE_PROFILING_ENABLE;
  if (config().disable) {
    q->reason = HK_REASON_DISABLED;
  } else if (!q->device->probe.supported) {
    q->reason = HK_REASON_DEVICE;
  }
  q->direct = q->reason == HK_REASON_NONE;
  return q;
}

// Puts `q` in the table unless a record of the same queue is there already; returns the
// record in the table, or null when the table has no room (the queue stays unknown).
Queue *publish(std::unique_ptr<Queue> q) {
  std::lock_guard lock(creationMutex());
  if (Queue *other = g_queues.find(q->handle); isEntry(other) && other->id == q->id)
    return other;
  Queue *raw = q.get();
  Queue *old = g_queues.insert(q->handle, raw);
  if (old == raw) return nullptr;
  if (isEntry(old)) delete old;
  q.release();
  return raw;
}

}  // namespace

Queue *find(cl_command_queue handle, cl_int *err) {
  *err = CL_SUCCESS;
  if (Queue *q = g_queues.find(handle); isEntry(q)) {
    if (q->id == pocl::objectId(handle)) return q;
    forget(handle);  // a new queue at a released one's address
  }
  auto q = describe(handle, err);
  return q ? publish(std::move(q)) : nullptr;
}

void created(cl_command_queue handle) {
  waitForCompilesAtThreadExit();  // a thread that creates queues may call exit
  forget(handle);
  cl_int err = CL_SUCCESS;
  auto q = describe(handle, &err);
  if (!q) return;
  q->enqueued.store(0, std::memory_order_relaxed);
  publish(std::move(q));
}

void forget(cl_command_queue handle) {
  delete g_queues.remove(handle, false);
}

}  // namespace hk::queue
