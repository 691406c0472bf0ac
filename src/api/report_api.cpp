// Launch counts by path and reason: per kernel on request, for all kernels at exit with
// HOSTKERNEL_REPORT=1.
#include <hostkernel/hostkernel.h>

#include <cstdio>
#include <cstdlib>

#include "api/registry.hpp"
#include "base/config.hpp"

using namespace hk::api;

namespace {

void printCounts(const char *name, const std::uint64_t *by_path, const std::uint64_t *by_reason) {
  std::fprintf(stderr, "  %-32s inline %-10llu team %-10llu queue %-10llu\n", name,
               (unsigned long long)by_path[HK_PATH_INLINE],
               (unsigned long long)by_path[HK_PATH_TEAM],
               (unsigned long long)by_path[HK_PATH_QUEUE]);
  for (int r = 1; r < HK_REASON_COUNT; ++r)
    if (by_reason[r])
      std::fprintf(stderr, "  %-32s   queue: %llu x %s\n", "", (unsigned long long)by_reason[r],
                   hkReasonString(static_cast<hk_reason>(r)));
}

// Registered on the first use of the registry, so that it runs before the registry's
// users' own atexit handlers are gone.
struct ReportAtExit {
  ReportAtExit() {
    if (hk::config().report) std::atexit([] { hkPrintReport(); });
  }
} g_report_at_exit;

}  // namespace

extern "C" {

const char *hkReasonString(hk_reason reason) {
  switch (reason) {
    case HK_REASON_NONE: return "direct";
    case HK_REASON_DISABLED: return "HOSTKERNEL_DISABLE is set";
    case HK_REASON_DEVICE: return "not PoCL 3.1's CPU device";
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
    default: return "unknown";
  }
}

cl_int hkGetKernelLaunchCounts(cl_kernel kernel, hk_launch_counts *counts) {
  if (!kernel) return CL_INVALID_KERNEL;
  if (!counts) return CL_INVALID_VALUE;
  KernelEntry *k = registry().kernels.find(kernel);
  if (!k || k == registry().kernels.released()) return CL_INVALID_KERNEL;
  for (int p = 0; p < 3; ++p) counts->by_path[p] = k->counts.by_path[p].load();
  for (int r = 0; r < HK_REASON_COUNT; ++r) counts->by_reason[r] = k->counts.by_reason[r].load();
  return CL_SUCCESS;
}

void hkPrintReport(void) {
  std::fprintf(stderr, "hostkernel report: launches by path\n");
  registry().kernels.forEach([](const void *, KernelEntry *k) {
    std::uint64_t p[3], r[HK_REASON_COUNT];
    for (int i = 0; i < 3; ++i) p[i] = k->counts.by_path[i].load();
    for (int i = 0; i < HK_REASON_COUNT; ++i) r[i] = k->counts.by_reason[i].load();
    printCounts(k->name.c_str(), p, r);
  });
  registry().forEachRetired([](const std::string &name, const Registry::RetiredCounts &c) {
    printCounts((name + " (released)").c_str(), c.by_path, c.by_reason);
  });
}

}  // extern "C"
