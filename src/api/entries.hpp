// hostkernel's records of the OpenCL objects it has seen: devices, queues and kernels.
// The launch path reads a KernelEntry and a QueueEntry through lock-free tables; all
// changes to an entry happen under its mutex on slow paths.
#pragma once

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "launch/launchable_kernel.hpp"
#include "launch/local_size.hpp"
#include "pocl/probe.hpp"

namespace hk::api {

struct DeviceEntry {
  cl_device_id handle = nullptr;
  pocl::DeviceProbe probe;
  launch::DeviceLimits limits{};
};

struct QueueEntry {
  cl_command_queue handle = nullptr;
  std::uint64_t id = 0;  // PoCL's object id: tells a new queue at the same address
  cl_context context = nullptr;
  const DeviceEntry *device = nullptr;
  bool direct = false;             // launches on this queue may run directly
  hk_reason reason = HK_REASON_NONE;  // why not, when !direct
  bool in_order = true;
  bool profiling = false;
  // Commands given to PoCL and those known complete: equal means PoCL holds no work
  // for this queue, so a direct launch need not wait and hkFinish need not call PoCL.
  std::atomic<std::uint64_t> enqueued{1};  // unknown history: assume one pending command
  std::atomic<std::uint64_t> completed{0};
  // Set when PoCL holds a command waiting for an incomplete user event: waiting for the
  // queue could then block forever, so launches go to the queue until it is finished.
  std::atomic<bool> blocked{false};
  std::mutex blockers_mutex;
  std::vector<cl_event> blockers;  // the user events behind `blocked` (retained)

  // Clears `blocked` once every user event behind it has completed.
  bool stillBlocked();
  void addBlockers(cl_uint num_events, const cl_event *events);
  ~QueueEntry();

  bool idle() const {
    return enqueued.load(std::memory_order_acquire) ==
           completed.load(std::memory_order_acquire);
  }
  // Records that every command enqueued up to `upto` has completed.
  void completedUpTo(std::uint64_t upto);
};

// A kernel as hostkernel knows it: the OpenCL handles and the device it is prepared for,
// on top of its launch state (launch/launchable_kernel.hpp) and its lifecycle
// (kernel/kernel.hpp).
struct KernelEntry : launch::LaunchableKernel {
  cl_kernel handle = nullptr;
  std::uint64_t id = 0;  // PoCL's object id: tells a new kernel at the same address
  cl_program program = nullptr;
  cl_context context = nullptr;
  const DeviceEntry *device = nullptr;  // the device `image` is for, once prepared
  std::mutex queue_arg_mutex;  // native kernels: the hidden argument set, then enqueue
};

}  // namespace hk::api
