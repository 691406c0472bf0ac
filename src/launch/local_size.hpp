// Default work-group size for launches made with a NULL local_work_size.
//
// A kernel whose result depends on the work-group size (reductions through local memory,
// get_local_size, barriers) must give the same bits through hostkernel as through
// clEnqueueNDRangeKernel. So when the user leaves the local size to the implementation we
// must pick exactly what PoCL 3.1's CPU (pthread/basic) device picks, i.e. reproduce the
// decision procedure of its default local-size optimizer. This is an independent
// implementation of that procedure; the unit test compares it with PoCL itself.
//
// Not handled here: kernels with reqd_work_group_size. PoCL rejects a NULL local size for
// them (CL_INVALID_WORK_GROUP_SIZE); callers send such launches down the queue path.
//
// Runs when a kernel's launch geometry changes, not on every launch. When PoCL's choice
// would not fit the launching thread's stack, capLocalSize (launch/tuning.hpp) shrinks it.
#pragma once

#include <cstddef>

namespace hk::launch {

// The device properties PoCL's choice depends on, as reported by clGetDeviceInfo:
// CL_DEVICE_MAX_WORK_ITEM_SIZES, CL_DEVICE_MAX_WORK_GROUP_SIZE, the preferred work-group
// size multiple (CL_DEVICE_/CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: both report the
// same per-device value in PoCL, 8 for the CPU device) and CL_DEVICE_MAX_COMPUTE_UNITS.
struct DeviceLimits {
  std::size_t max_item_sizes[3];
  std::size_t max_group_size;
  std::size_t preferred_multiple;
  unsigned compute_units;
};

// global[i] for unused dimensions is 1. All global[i] > 0.
// On return local[i] divides global[i], local[i] <= max_item_sizes[i] and the product of
// the local sizes is <= max_group_size (for any device limits PoCL itself accepts, i.e.
// max_item_sizes[i] >= preferred_multiple).
void choosePoclLocalSize(const DeviceLimits &dev, const std::size_t global[3], std::size_t local[3]);

}  // namespace hk::launch
