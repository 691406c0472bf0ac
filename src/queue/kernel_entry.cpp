#include "queue/kernel_entry.hpp"

#include "base/thread_safety.hpp"

namespace hk::queue {

void KernelEntry::startOver(cl_kernel kernel, std::uint64_t kernel_id, cl_uint num_args) {
  MutexLock lock(mutex);
  std::lock_guard arg_lock(queue_arg_mutex);
  handle = kernel;
  id = kernel_id;
  app_references.store(-1, std::memory_order_relaxed);
  // The new object's arguments are unset, in hostkernel's record as in PoCL's kernel;
  // plans bound to the old ones are not run until decide() has bound the new ones.
  args.reset(num_args);
  plans_valid.store(false, std::memory_order_relaxed);
  // What hkGetKernelLaunchInfo and hkGetKernelLaunchCounts report is per kernel object
  // (the old object's counts were retired under the kernel's name).
  counts.clear();
  team_gain.reset();
  checked_groups.store(0, std::memory_order_relaxed);
  unchecked_groups.store(0, std::memory_order_relaxed);
  specialized_launches.store(0, std::memory_order_relaxed);
}

}  // namespace hk::queue
