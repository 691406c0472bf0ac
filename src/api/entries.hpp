// hostkernel's records of the OpenCL objects it has seen: devices, queues and kernels.
// The launch path reads a KernelEntry and a QueueEntry through lock-free tables; all
// changes to an entry happen under its mutex on slow paths.
#pragma once

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernel/kernel_args.hpp"
#include "launch/geometry.hpp"
#include "launch/plan_cache.hpp"
#include "launch/sampler.hpp"
#include "launch/local_size.hpp"
#include "pocl/probe.hpp"
#include "program/native_program.hpp"
#include "program/program_image.hpp"

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

// Counters that only their kernel's launching thread writes (relaxed load + store: no
// locked instruction on the launch path); readers may see slightly old values.
struct LaunchCounts {
  std::atomic<std::uint64_t> by_path[3] = {};
  std::atomic<std::uint64_t> by_reason[HK_REASON_COUNT] = {};
  void add(hk_path path, hk_reason reason) {
    auto &p = by_path[path];
    p.store(p.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (path == HK_PATH_QUEUE) {
      auto &r = by_reason[reason];
      r.store(r.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
  }
};

struct KernelEntry {
  cl_kernel handle = nullptr;
  std::uint64_t id = 0;  // PoCL's object id: tells a new kernel at the same address
  cl_program program = nullptr;
  cl_context context = nullptr;
  std::string name;
  std::mutex mutex;  // serialises preparation, binding and planning

  // Preparation (once per kernel and device).
  enum class Prep : std::uint8_t { NotYet, Ready, Failed };
  Prep prep = Prep::NotYet;
  std::string prep_error;
  const DeviceEntry *device = nullptr;
  std::shared_ptr<program::ProgramImage> program_image;
  const program::KernelImage *image = nullptr;

  kernel::KernelArgs args;

  // Native kernels (HK_KERNEL in a native program; docs/native-kernels.md): argument 0 is
  // the hidden true ndrange, which every launch fills in, and full work-groups run the
  // unchecked variant once it is built (on the kernel's second launch).
  std::shared_ptr<program::NativeProgram> native;  // null for other kernels
  bool hidden_ndrange = false;
  bool launched_before = false;  // a launch was planned: the next one builds the variant
  enum class Unchecked : std::uint8_t { NotYet, Ready, Failed };
  Unchecked unchecked_state = Unchecked::NotYet;
  std::shared_ptr<program::ProgramImage> unchecked_program;
  const program::KernelImage *unchecked = nullptr;  // set only with Ready
  std::mutex queue_arg_mutex;  // the hidden argument set on PoCL's kernel, then enqueue
  std::atomic<std::uint64_t> checked_groups{0};    // direct launches' work-groups by variant
  std::atomic<std::uint64_t> unchecked_groups{0};

  // PoCL's work-group function specialized for one hot geometry (docs/specialized.md).
  // Team launches add their work-group time to `team_ns` (written by launching threads,
  // like LaunchCounts). Past `special_check_ns` the next launch takes the slow path and
  // looks in PoCL's kernel cache; past config().specialize_ms it goes through PoCL's queue
  // once, which compiles the specialized function into that cache. Team launches of that
  // geometry then call it.
  enum class Special : std::uint8_t { Idle, Compiling, Ready, Unavailable };
  std::atomic<Special> special_state{Special::Idle};
  std::atomic<std::uint64_t> team_ns{0};
  std::atomic<std::uint64_t> special_check_ns{0};  // 0: not set yet (config not read)
  pocl::SpecializedGeometry special_geometry;             // written before `special`
  std::atomic<const program::KernelImage *> special{nullptr};
  std::atomic<std::uint64_t> special_launches{0};

  // The launch path's cache: valid while `fast` is set.
  std::atomic<bool> fast{false};
  launch::PlanCache plans;
  launch::LaunchRequest request;  // the last planned request (slow path, under mutex)
  std::size_t planned_local[3] = {0, 0, 0};  // its plan's local size (merged groups: larger)
  launch::Sampler sampler;
  std::atomic<bool> grid_changed{true};  // since the previous launch: the team may steal

  LaunchCounts counts;
};

}  // namespace hk::api
