// "Is this the CPU device (pthread or basic driver) of a PoCL release that release.hpp
// describes?" Everything hostkernel knows about work-group functions holds only there;
// any other device is queue-only.
//
//   hk::pocl::DeviceProbe p = hk::pocl::probeDevice(device);
//   if (!p.supported) log(p.reason);
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <string>

#include "pocl/release.hpp"

namespace hk::pocl {

struct DeviceProbe {
  bool supported = false;
  bool pocl_cpu = false;           // a CPU device of a PoCL platform, supported or not
  std::string reason;              // why not, when !supported
  const Release *release = nullptr;  // the platform's release, when described
  std::string name;                // CL_DEVICE_NAME
  std::size_t max_item_sizes[3] = {1, 1, 1};
  std::size_t max_group_size = 1;
  std::size_t preferred_multiple = 1;  // PoCL's preferred work-group size multiple
  unsigned compute_units = 1;
  std::size_t printf_buffer_size = 0;
};

DeviceProbe probeDevice(cl_device_id device);

// PoCL's CL_PLATFORM_NAME (lib/CL/clGetPlatformInfo.c at PoCL 3.1): how a PoCL platform
// is told from others.
inline constexpr char kPlatformName[] = "Portable Computing Language";

// The platform/driver strings that identify a supported PoCL; exposed for tests.
bool isSupportedPoclVersion(const std::string &platform_version);
// Whether `device_name` is the CPU driver's name in `release`.
bool isReleaseDeviceName(const Release &release, const std::string &device_name);

}  // namespace hk::pocl
