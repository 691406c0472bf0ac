// hostkernel's record of a kernel object. The launch path reads a KernelEntry through a
// lock-free table (queue/registry.hpp); all changes to an entry happen under its mutex
// on slow paths.
#pragma once

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "launch/launchable_kernel.hpp"
#include "launch/local_size.hpp"
#include "queue/device.hpp"

namespace hk::queue {

// A kernel as hostkernel knows it: the OpenCL handles and the device it is prepared for,
// on top of its launch state (launch/launchable_kernel.hpp) and its lifecycle
// (kernel/device_kernel.hpp).
struct KernelEntry : launch::LaunchableKernel {
  cl_kernel handle = nullptr;
  std::uint64_t id = 0;  // PoCL's object id: tells a new kernel at the same address
  cl_program program = nullptr;
  std::uint64_t program_id = 0;  // PoCL's id of `program`, read while the kernel holds it
  // References the application holds (hkCreateKernel: 1, +1 per retain, -1 per release);
  // -1 for a kernel made elsewhere, whose last release PoCL's count tells.
  std::atomic<int> app_references{-1};
  cl_context context = nullptr;
  const Device *device = nullptr;  // the device `image` is for, once prepared
  // Held while arguments go to PoCL's kernel and a launch is given to PoCL (PoCL copies
  // the values when the command is enqueued), and while an argument is recorded. Taken
  // after `mutex` when both are held; recursive: a native kernel's queue launch sets its
  // hidden argument, then enqueues like any other.
  std::recursive_mutex queue_arg_mutex;
  // What hkSetKernelArg checks arguments against, once known: this kernel's record in
  // its program's image, which `arg_meta_owner` keeps alive. Null: PoCL checks every
  // argument (Registry::findArgMeta).
  std::atomic<const pocl::KernelRecord *> arg_meta{nullptr};
  std::shared_ptr<program::ProgramImage> arg_meta_owner;

  // Makes this entry, kept from a released kernel object of the same program and kernel
  // (Registry::keepReleased), the entry of the new kernel object `kernel`: what the entry
  // learned about the kernel's function stays (its prepared image, plans, timing,
  // specialization, team choice), what belongs to the object goes (its arguments, all
  // unset, its counts, and TeamGain's verdict, learned again as by a new object). Before the entry is published: no other thread knows it.
  void startOver(cl_kernel kernel, std::uint64_t kernel_id, cl_uint num_args);
};

}  // namespace hk::queue
