// What hostkernel tells about a kernel: its variants (hkGetKernelVariantInfo), its launch
// counts by path and reason (hkGetKernelLaunchInfo, hkGetKernelLaunchCounts), per kernel
// on request and for all kernels at exit with HOSTKERNEL_REPORT=1.
#include <hostkernel/hostkernel.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/config.hpp"
#include "base/thread_safety.hpp"
#include "program/native_program.hpp"
#include "queue/command_counts.hpp"
#include "queue/registry.hpp"

using hk::queue::KernelEntry;
using hk::queue::Registry;
using hk::queue::registry;

namespace {

// One kernel's launches by path; `background` of the inline and team ones ran in the
// background (docs/background.md).
void printCounts(const char *name, const std::uint64_t *by_path, const std::uint64_t *by_reason,
                 std::uint64_t background) {
  std::fprintf(stderr, "  %-32s inline %-10llu team %-10llu queue %-10llu background %llu\n",
               name, (unsigned long long)by_path[HK_PATH_INLINE],
               (unsigned long long)by_path[HK_PATH_TEAM],
               (unsigned long long)by_path[HK_PATH_QUEUE], (unsigned long long)background);
  for (int r = 1; r < HK_REASON_COUNT; ++r)
    if (by_reason[r])
      std::fprintf(stderr, "  %-32s   queue: %llu x %s\n", "", (unsigned long long)by_reason[r],
                   hkReasonString(static_cast<hk_reason>(r)));
}

// The commands other than launches that ran, by type: direct and queue, with reasons.
void printCommandCounts() {
  bool header = false;
  for (cl_command_type t = CL_COMMAND_NDRANGE_KERNEL; t < CL_COMMAND_NDRANGE_KERNEL + 32; ++t) {
    hk_command_counts c{};
    if (t == CL_COMMAND_NDRANGE_KERNEL || !hk::queue::commandCounts(t, &c) ||
        c.direct + c.queue == 0)
      continue;
    if (!header) std::fprintf(stderr, "hostkernel report: other commands (direct, queue)\n");
    header = true;
    char name[32];
    std::snprintf(name, sizeof name, "command 0x%04x", static_cast<unsigned>(t));
    std::fprintf(stderr, "  %-32s direct %-10llu queue %-10llu\n", name,
                 (unsigned long long)c.direct, (unsigned long long)c.queue);
    for (int r = 1; r < HK_REASON_COUNT; ++r)
      if (c.by_reason[r])
        std::fprintf(stderr, "  %-32s   queue: %llu x %s\n", "",
                     (unsigned long long)c.by_reason[r],
                     hkReasonString(static_cast<hk_reason>(r)));
  }
}

// Registered on the first use of the registry, so that it runs before the registry's
// users' own atexit handlers are gone.
struct ReportAtExit {
  ReportAtExit() {
    if (hk::config().report) std::atexit([] { hkPrintReport(); });
  }
} g_report_at_exit;

// Answers a get-info query as OpenCL does: the size always, the value if there is room
// for all of it (CL_INVALID_VALUE otherwise).
cl_int answer(const void *value, size_t size, size_t param_value_size, void *param_value,
              size_t *param_value_size_ret) {
  if (param_value) {
    if (param_value_size < size) return CL_INVALID_VALUE;
    std::memcpy(param_value, value, size);
  }
  if (param_value_size_ret) *param_value_size_ret = size;
  return CL_SUCCESS;
}

// The kernel's entry if hostkernel has seen the kernel and it is not released.
KernelEntry *countedKernel(cl_kernel kernel) {
  if (!kernel) return nullptr;
  KernelEntry *k = registry().kernels.find(kernel);
  return k && k != registry().kernels.released() ? k : nullptr;
}

}  // namespace

extern "C" {

cl_int hkGetKernelVariantInfo(cl_kernel kernel, hk_kernel_variant_info param_name,
                              size_t param_value_size, void *param_value,
                              size_t *param_value_size_ret) {
  cl_int err = CL_SUCCESS;
  KernelEntry *k = kernel ? registry().kernelEntry(kernel, &err) : nullptr;
  if (!k) return err != CL_SUCCESS ? err : CL_INVALID_KERNEL;
  hk::MutexLock lock(k->mutex);
  const auto flag = [&](bool b) {
    const cl_bool v = b ? CL_TRUE : CL_FALSE;
    return answer(&v, sizeof v, param_value_size, param_value, param_value_size_ret);
  };
  const auto count = [&](const std::atomic<std::uint64_t> &c) {
    const cl_ulong v = c.load(std::memory_order_relaxed);
    return answer(&v, sizeof v, param_value_size, param_value, param_value_size_ret);
  };
  size_t sizes[3] = {0, 0, 0};
  const hk::program::KernelImage *image = k->image.load(std::memory_order_acquire);
  switch (param_name) {
    case HK_KERNEL_VARIANT_NATIVE:
      return flag(k->hidden_ndrange);
    case HK_KERNEL_VARIANT_UNCHECKED_BUILT:
      return flag(k->native && k->native->uncheckedBuilt());
    case HK_KERNEL_VARIANT_UNCHECKED_USED:
      return flag(k->unchecked != nullptr);
    case HK_KERNEL_VARIANT_CHECKED_GROUPS:
      return count(k->checked_groups);
    case HK_KERNEL_VARIANT_UNCHECKED_GROUPS:
      return count(k->unchecked_groups);
    case HK_KERNEL_VARIANT_SPECIALIZED_LOCAL_SIZE:
      if (k->specialized_image.load(std::memory_order_acquire))
        for (int d = 0; d < 3; ++d)
          sizes[d] = static_cast<size_t>(k->specialized_geometry.local[d]);
      return answer(sizes, sizeof sizes, param_value_size, param_value, param_value_size_ret);
    case HK_KERNEL_VARIANT_SPECIALIZED_LAUNCHES:
      return count(k->specialized_launches);
    case HK_KERNEL_VARIANT_GROUP_FREE:
      return flag(image && image->group_free);
    case HK_KERNEL_VARIANT_PLANNED_LOCAL_SIZE:
      for (int d = 0; d < 3; ++d) sizes[d] = k->planned_local[d];
      return answer(sizes, sizeof sizes, param_value_size, param_value, param_value_size_ret);
    case HK_KERNEL_VARIANT_WORK_GROUP_FUNCTION: {
      void *fn = image ? reinterpret_cast<void *>(image->fn) : nullptr;
      return answer(&fn, sizeof fn, param_value_size, param_value, param_value_size_ret);
    }
    default:
      return CL_INVALID_VALUE;
  }
}

const char *hkReasonString(hk_reason reason) {
  switch (reason) {
    case HK_REASON_NONE: return "direct";
    case HK_REASON_DISABLED: return "HOSTKERNEL_DISABLE is set";
    case HK_REASON_DEVICE: return "not the CPU device of a supported PoCL";
    case HK_REASON_PREPARE_FAILED: return "kernel could not be prepared";
    case HK_REASON_NON_UNIFORM: return "non-uniform work-groups";
    case HK_REASON_ARG_KIND: return "image, sampler or pipe argument";
    case HK_REASON_ARG_UNSET: return "argument not set through hostkernel";
    case HK_REASON_INVALID_LAUNCH: return "invalid launch (PoCL reports the error)";
    case HK_REASON_USER_EVENT: return "waits for an event not yet complete";
    case HK_REASON_STACK: return "work-group too large for the thread's stack";
    case HK_REASON_LIMITS: return "beyond hostkernel's limits";
    case HK_REASON_SPECIALIZE: return "PoCL compiles the specialized work-group function";
    case HK_REASON_FIRST_LAUNCH: return "while the kernel was being prepared (first launch)";
    case HK_REASON_QUEUE_BUSY: return "PoCL held work for the queue or the wait list";
    case HK_REASON_POCL_CHECKS: return "arguments PoCL checks (or reports as an error)";
    case HK_REASON_MEM_KIND: return "image, pipe, native kernel or unknown memory object";
    default: return "unknown";
  }
}

cl_int hkGetKernelLaunchInfo(cl_kernel kernel, hk_kernel_launch_info param_name,
                             size_t param_value_size, void *param_value,
                             size_t *param_value_size_ret) {
  KernelEntry *k = countedKernel(kernel);
  if (!k) return CL_INVALID_KERNEL;
  const std::atomic<std::uint64_t> *count = nullptr;
  if (param_name >= HK_KERNEL_LAUNCHES_ON_PATH(0) && param_name < HK_KERNEL_LAUNCHES_ON_PATH(3))
    count = &k->counts.by_path[param_name - HK_KERNEL_LAUNCHES_ON_PATH(0)];
  else if (param_name >= HK_KERNEL_LAUNCHES_FOR_REASON(1) &&
           param_name < HK_KERNEL_LAUNCHES_FOR_REASON(HK_REASON_COUNT))
    count = &k->counts.by_reason[param_name - HK_KERNEL_LAUNCHES_FOR_REASON(0)];
  else if (param_name == HK_KERNEL_LAUNCHES_IN_BACKGROUND)
    count = &k->counts.background;
  if (!count) return CL_INVALID_VALUE;
  const cl_ulong value = count->load();
  return answer(&value, sizeof value, param_value_size, param_value, param_value_size_ret);
}

cl_int hkGetKernelLaunchCounts(cl_kernel kernel, hk_launch_counts *counts) {
  if (!kernel) return CL_INVALID_KERNEL;
  if (!counts) return CL_INVALID_VALUE;
  KernelEntry *k = countedKernel(kernel);
  if (!k) return CL_INVALID_KERNEL;
  for (int p = 0; p < 3; ++p) counts->by_path[p] = k->counts.by_path[p].load();
  for (int r = 0; r < HK_REASON_COUNT; ++r) counts->by_reason[r] = k->counts.by_reason[r].load();
  return CL_SUCCESS;
}

cl_int hkGetCommandCounts(cl_command_type type, hk_command_counts *counts) {
  if (!counts) return CL_INVALID_VALUE;
  return hk::queue::commandCounts(type, counts) ? CL_SUCCESS : CL_INVALID_VALUE;
}

void hkPrintReport(void) {
  std::fprintf(stderr, "hostkernel report: launches by path\n");
  registry().kernels.forEach([](const void *, KernelEntry *k) {
    std::uint64_t p[3], r[HK_REASON_COUNT];
    for (int i = 0; i < 3; ++i) p[i] = k->counts.by_path[i].load();
    for (int i = 0; i < HK_REASON_COUNT; ++i) r[i] = k->counts.by_reason[i].load();
    printCounts(k->name.c_str(), p, r, k->counts.background.load());
  });
  registry().forEachRetired([](const std::string &name, const Registry::RetiredCounts &c) {
    printCounts((name + " (released)").c_str(), c.by_path, c.by_reason, c.background);
  });
  printCommandCounts();
}

}  // extern "C"
