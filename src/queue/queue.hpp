// A command queue as hostkernel knows it: whether its commands may run directly, and
// what PoCL still holds for it. The ordering rule (queue/ordering.hpp) reads and updates
// this state; every command entry point finds its queue here first.
//
// PoCL holds work for a queue from the moment a command is given to it until that command
// is known complete: `enqueued` counts the commands given, `completed` the prefix known
// complete. A queue with the two equal and no launch in the background is *idle*: a
// command may then run directly on the calling thread, and its effects are ordered after
// everything before it because nothing before it is still running.
//
//   cl_int err;
//   queue::Queue *q = queue::find(handle, &err);   // slow path: creates on first use
//   queue::Queue *q = queue::findKnown(handle);    // launch path: lock-free, or null
#pragma once

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "base/object_table.hpp"
#include "base/thread_safety.hpp"
#include "pocl/object_id.hpp"
#include "queue/device.hpp"

namespace hk::queue {

struct Queue {
  cl_command_queue handle = nullptr;
  std::uint64_t id = 0;  // PoCL's object id: tells a new queue at the same address
  cl_context context = nullptr;
  const Device *device = nullptr;
  bool direct = false;                // commands on this queue may run directly
  hk_reason reason = HK_REASON_NONE;  // why not, when !direct
  bool in_order = true;
  bool profiling = false;
  // Commands given to PoCL and those known complete: equal means PoCL holds no work for
  // this queue. A queue first seen after it was created (not through hostkernel) starts
  // with one command assumed pending, so that the first command waits for whatever the
  // application gave PoCL before.
  std::atomic<std::uint64_t> enqueued{1};
  std::atomic<std::uint64_t> completed{0};
  // Launches of this queue running in the background (queue/background.hpp). Not counted
  // in `enqueued`: a drain or a blocking command of another thread, which claims a prefix
  // of `enqueued` as complete, would claim one of them while it runs.
  std::atomic<std::uint32_t> in_background{0};
  // Set when PoCL holds a command waiting for an incomplete user event: waiting for the
  // queue could then block forever, so commands go to PoCL until it has drained.
  std::atomic<bool> blocked{false};
  Mutex blockers_mutex;
  // The user events behind `blocked` (retained).
  std::vector<cl_event> blockers GUARDED_BY(blockers_mutex);

  // Clears `blocked` once every user event behind it has completed.
  bool stillBlocked();
  void addBlockers(cl_uint num_events, const cl_event *events);
  ~Queue();

  bool idle() const {
    return enqueued.load(std::memory_order_acquire) ==
               completed.load(std::memory_order_acquire) &&
           in_background.load(std::memory_order_acquire) == 0;
  }
  // Whether PoCL may still hold commands of this queue.
  bool holdsPoclWork() const {
    return enqueued.load(std::memory_order_acquire) != completed.load(std::memory_order_acquire);
  }
  // Records that every command enqueued up to `upto` has completed.
  void completedUpTo(std::uint64_t upto);
};

// The launch path's table: a plain global, constant-initialised.
extern constinit ObjectTable<Queue> g_queues;

// The record of a queue hostkernel has seen and that is still the same object; null
// otherwise. Lock-free.
inline Queue *findKnown(cl_command_queue handle) {
  Queue *q = g_queues.find(handle);
  return isEntry(q) && q->id == pocl::objectId(handle) ? q : nullptr;
}

// Existing or new record; null (with *err set to PoCL's error, or CL_SUCCESS when the
// queue is valid but cannot be tracked) if PoCL does not know the queue.
Queue *find(cl_command_queue handle, cl_int *err);

// A queue just created through hostkernel: its record is made now, with no pending
// command (nothing can have been given to PoCL for it yet).
void created(cl_command_queue handle);

// Forgets the queue (its last release).
void forget(cl_command_queue handle);

}  // namespace hk::queue
