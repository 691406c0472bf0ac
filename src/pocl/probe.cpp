#include "pocl/probe.hpp"

#include <vector>

#include "base/next.hpp"

namespace hk::pocl {
namespace {

// A string of clGetDeviceInfo or clGetPlatformInfo, `get(size, value, size_ret)` with the
// object and the query bound; empty when the query fails.
template <class Get>
std::string infoString(Get get) {
  size_t n = 0;
  if (get(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (get(n, s.data(), nullptr) != CL_SUCCESS) return {};
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

std::string deviceString(cl_device_id d, cl_device_info what) {
  return infoString([&](size_t n, void *v, size_t *ret) {
    return next().clGetDeviceInfo(d, what, n, v, ret);
  });
}

std::string platformString(cl_platform_id p, cl_platform_info what) {
  return infoString([&](size_t n, void *v, size_t *ret) {
    return next().clGetPlatformInfo(p, what, n, v, ret);
  });
}

template <typename T>
bool deviceValue(cl_device_id d, cl_device_info what, T &out) {
  return next().clGetDeviceInfo(d, what, sizeof(T), &out, nullptr) == CL_SUCCESS;
}

}  // namespace

bool isSupportedPoclVersion(const std::string &v) {
  const Release *r = findRelease(v);
  return r && r->direct_launches;
}

// CL_DEVICE_NAME is "<driver>-<cpu model>" (lib/CL/devices/cpuinfo.c), the driver
// "pthread" or "basic" in PoCL 3.1 (lib/CL/devices/pthread/pthread.c, basic/basic.c) and
// "cpu" or "cpu-minimal" from PoCL 4.0 on.
bool isReleaseDeviceName(const Release &r, const std::string &n) {
  // The basic driver is named "basic" next to "pthread", "cpu-minimal" next to "cpu".
  const std::string prefix = r.device_prefix;
  return n.rfind(prefix + "-", 0) == 0 || (prefix == "pthread" && n.rfind("basic-", 0) == 0);
}

DeviceProbe probeDevice(cl_device_id device) {
  DeviceProbe p;
  cl_device_type type = 0;
  cl_platform_id platform = nullptr;
  if (!deviceValue(device, CL_DEVICE_TYPE, type) ||
      !deviceValue(device, CL_DEVICE_PLATFORM, platform)) {
    p.reason = "device info unavailable";
    return p;
  }
  p.name = deviceString(device, CL_DEVICE_NAME);
  std::string vendor = platformString(platform, CL_PLATFORM_NAME);
  std::string version = platformString(platform, CL_PLATFORM_VERSION);
  p.pocl_cpu = vendor == kPlatformName && (type & CL_DEVICE_TYPE_CPU);
  if (vendor != kPlatformName) {
    p.reason = "platform '" + vendor + "' is not PoCL";
  } else if (!(p.release = findRelease(version))) {
    p.reason = "unsupported PoCL version '" + version + "' (hostkernel supports PoCL " +
               supportedReleases() + ")";
  } else if (!p.release->direct_launches) {
    p.reason = std::string("PoCL ") + p.release->version +
               ": direct launches are not verified on this release";
  } else if (!(type & CL_DEVICE_TYPE_CPU) || !isReleaseDeviceName(*p.release, p.name)) {
    p.reason = "device '" + p.name + "' is not PoCL's CPU (pthread/basic) device";
  }
  if (p.reason.empty()) setCurrentRelease(p.release);
  cl_uint cus = 1;
  deviceValue(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, p.max_item_sizes);
  deviceValue(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, p.max_group_size);
  deviceValue(device, CL_DEVICE_MAX_COMPUTE_UNITS, cus);
  deviceValue(device, CL_DEVICE_PRINTF_BUFFER_SIZE, p.printf_buffer_size);
  p.compute_units = cus;
  // PoCL reports its device-wide preferred multiple as the kernel query's answer too; the
  // device query (OpenCL 3.0) gives the same value without needing a kernel.
  std::size_t pref = 0;
  if (deviceValue(device, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, pref) && pref)
    p.preferred_multiple = pref;
  p.supported = p.reason.empty();
  return p;
}

}  // namespace hk::pocl
