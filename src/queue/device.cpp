#include "queue/device.hpp"

#include <map>
#include <memory>
#include <mutex>

#include "base/log.hpp"
#include "base/thread_safety.hpp"

namespace hk::queue {

const Device *device(cl_device_id handle) {
  // Never destroyed: queues and kernels may use their device while the process exits.
  static auto *mutex = new Mutex;
  static auto *devices GUARDED_BY(*mutex) = new std::map<cl_device_id, std::unique_ptr<Device>>;
  MutexLock lock(*mutex);
  auto &slot = (*devices)[handle];
  if (!slot) {
    auto d = std::make_unique<Device>();
    d->handle = handle;
    d->probe = pocl::probeDevice(handle);
    for (int i = 0; i < 3; ++i) d->limits.max_item_sizes[i] = d->probe.max_item_sizes[i];
    d->limits.max_group_size = d->probe.max_group_size;
    d->limits.preferred_multiple = d->probe.preferred_multiple;
    d->limits.compute_units = d->probe.compute_units;
    if (!d->probe.supported)
      logf(LogLevel::Warn, "commands on '%s' use PoCL's queue: %s", d->probe.name.c_str(),
           d->probe.reason.c_str());
    slot = std::move(d);
  }
  return slot.get();
}

}  // namespace hk::queue
