#include "pocl/object_id.hpp"

#include <mutex>
#include <vector>

#include "base/log.hpp"
#include "base/next.hpp"
#include "pocl/release.hpp"
#include "pocl/release_checks.hpp"

namespace hk::pocl {

namespace detail {
std::atomic<std::size_t> g_object_id_offset{0};
}

namespace {

const Release *contextRelease(cl_context context) {
  std::size_t bytes = 0;
  if (next().clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, nullptr, &bytes) != CL_SUCCESS ||
      bytes < sizeof(cl_device_id))
    return nullptr;
  std::vector<cl_device_id> devices(bytes / sizeof(cl_device_id));
  if (next().clGetContextInfo(context, CL_CONTEXT_DEVICES, bytes, devices.data(), nullptr) !=
      CL_SUCCESS)
    return nullptr;
  return runningRelease(devices[0]);
}

}  // namespace

void checkObjectIds(cl_context context) {
  static std::once_flag once;
  std::call_once(once, [context] {
    // The first context can come before any device probe: its device's platform then
    // says which release made it (7.1 keeps ids after two pointers, older ones after one).
    const Release *release = currentRelease();
    if (!release) release = contextRelease(context);
    const std::size_t at = (release ? *release : baselineRelease()).object_id_offset;
    // Three user events made in a row: cheap objects with POCL_OBJECT headers.
    cl_event e[3] = {};
    std::uint64_t id[3] = {};
    bool ok = true;
    for (int i = 0; i < 3 && ok; ++i) {
      cl_int err = CL_SUCCESS;
      e[i] = next().clCreateUserEvent(context, &err);
      ok = err == CL_SUCCESS && e[i];
      if (ok) std::memcpy(&id[i], reinterpret_cast<char *>(e[i]) + at, 8);
    }
    ok = ok && id[0] != 0 && id[0] < id[1] && id[1] < id[2] && id[2] - id[0] < 1024;
    for (cl_event ev : e)
      if (ev) {
        next().clSetUserEventStatus(ev, CL_COMPLETE);
        next().clReleaseEvent(ev);
      }
    detail::g_object_id_offset.store(ok ? at : 0);
    if (!ok)
      logf(LogLevel::Warn, "PoCL object ids not found where expected: stale-handle checks "
                           "rely on hostkernel seeing every create and release");
  });
}

}  // namespace hk::pocl
