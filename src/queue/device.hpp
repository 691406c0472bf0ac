// The devices queues run on, as hostkernel knows them: whether commands and launches may
// run directly there (the probe), and the limits a launch is planned against. One record
// per cl_device_id, made on first use and never freed (devices outlive everything).
//
//   const queue::Device *d = queue::device(handle);
//   if (!d->probe.supported) ... // PoCL's queue only
#pragma once

#include <CL/cl.h>

#include "launch/local_size.hpp"
#include "pocl/probe.hpp"

namespace hk::queue {

struct Device {
  cl_device_id handle = nullptr;
  pocl::DeviceProbe probe;
  launch::DeviceLimits limits{};
};

// The record of `handle`, probed on its first use (logs once when it is not supported).
const Device *device(cl_device_id handle);

}  // namespace hk::queue
