// PoCL's CPU device for tests: hkGetPoclDevice, the one place that knows which device
// hostkernel runs kernels on directly.
//
//   cl_platform_id platform;
//   cl_device_id device;
//   ASSERT_TRUE(FindPoclDevice(&platform, &device));   // platform may be nullptr
//
// A test built without libhostkernel (-DHK_QUEUE_ONLY, run through the OpenCL layer) gets
// hkGetPoclDevice from the layer (clGetExtensionFunctionAddressForPlatform, which the
// layer answers for any platform); without the layer either, it takes the first
// platform's CPU device, as a plain OpenCL program would.
#pragma once

#include <hostkernel/hostkernel_ext.h>

inline bool FindPoclDevice(cl_platform_id *platform, cl_device_id *device) {
#ifdef HK_QUEUE_ONLY
  using Lookup = cl_int (*)(cl_platform_id *, cl_device_id *);
  cl_platform_id first = nullptr;
  if (clGetPlatformIDs(1, &first, nullptr) != CL_SUCCESS) return false;
  if (auto lookup = reinterpret_cast<Lookup>(
          clGetExtensionFunctionAddressForPlatform(first, "hkGetPoclDevice")))
    return lookup(platform, device) == CL_SUCCESS;
  if (clGetDeviceIDs(first, CL_DEVICE_TYPE_CPU, 1, device, nullptr) != CL_SUCCESS) return false;
  if (platform) *platform = first;
  return true;
#else
  return hkGetPoclDevice(platform, device) == CL_SUCCESS;
#endif
}
