// hkGetPoclDevice: the device hostkernel launches directly on, found once for the C++
// API, the tests and the benchmark. Which device that is, is PoCL's fact and
// pocl/probe.hpp's answer.
#include <hostkernel/hostkernel.h>

#include <vector>

#include "base/next.hpp"
#include "pocl/probe.hpp"

extern "C" {

cl_int hkGetPoclDevice(cl_platform_id *platform, cl_device_id *device) {
  if (!device) return CL_INVALID_VALUE;
  // The library's table (base/next.cpp) lacks the platform list; the loader exports it.
  auto getPlatforms = hk::next().clGetPlatformIDs ? hk::next().clGetPlatformIDs
                                                  : &::clGetPlatformIDs;
  // A supported device first; else PoCL's first CPU device, whose launches then go to
  // PoCL's queue (a PoCL release hostkernel does not know still runs programs).
  bool found_unsupported = false;
  cl_uint n = 0;
  if (getPlatforms(0, nullptr, &n) != CL_SUCCESS) n = 0;
  std::vector<cl_platform_id> platforms(n);
  if (n && getPlatforms(n, platforms.data(), nullptr) != CL_SUCCESS) n = 0;
  for (cl_uint i = 0; i < n; ++i) {
    cl_uint m = 0;
    if (hk::next().clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 0, nullptr, &m) !=
        CL_SUCCESS)
      continue;
    std::vector<cl_device_id> devices(m);
    if (hk::next().clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, m, devices.data(),
                                  nullptr) != CL_SUCCESS)
      continue;
    for (cl_device_id d : devices) {
      const hk::pocl::DeviceProbe probe = hk::pocl::probeDevice(d);
      if (!probe.pocl_cpu || (found_unsupported && !probe.supported)) continue;
      if (platform) *platform = platforms[i];
      *device = d;
      if (probe.supported) return CL_SUCCESS;
      found_unsupported = true;
    }
  }
  return found_unsupported ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
}

}  // extern "C"
