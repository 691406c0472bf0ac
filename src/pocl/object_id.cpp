#include "pocl/object_id.hpp"

#include <mutex>

#include "base/log.hpp"
#include "base/next.hpp"
#include "pocl/release.hpp"

namespace hk::pocl {

namespace detail {
std::atomic<std::size_t> g_object_id_offset{0};
}

void checkObjectIds(cl_context context) {
  static std::once_flag once;
  std::call_once(once, [context] {
    const Release *release = currentRelease();
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
