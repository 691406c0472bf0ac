// The geometry of one launch: what the caller asked for (LaunchRequest) and what the
// work-group function is given (Plan). Planning divides; the launch path does not: a
// kernel keeps its last plan, and a launch with the same request reuses it.
//
//   LaunchRequest r = LaunchRequest::from(dim, offset, global, local);
//   Plan p;
//   if (planLaunch(r, limits, reqd, p) == HK_REASON_NONE) runInline(p, ...);
#pragma once

#include <hostkernel/hostkernel.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "launch/local_size.hpp"
#include "pocl/abi.hpp"

namespace hk::launch {

struct LaunchRequest {
  std::uint32_t dim = 0;
  bool has_local = false;
  std::size_t global[3] = {1, 1, 1};
  std::size_t offset[3] = {0, 0, 0};
  std::size_t local[3] = {1, 1, 1};

  // Copies what the pointers give for `dim` dimensions (dim must be 1..3 and global
  // non-null: checked by the caller).
  static LaunchRequest from(std::uint32_t dim, const std::size_t *offset,
                            const std::size_t *global, const std::size_t *local);

  // True when this call asks for exactly `r` (the launch path's cache check).
  bool sameAs(std::uint32_t d, const std::size_t *off, const std::size_t *glob,
              const std::size_t *loc) const {
    if (d != dim || (loc != nullptr) != has_local) return false;
    for (std::uint32_t i = 0; i < d; ++i) {
      if (glob[i] != global[i]) return false;
      if ((off ? off[i] : 0) != offset[i]) return false;
      if (loc && loc[i] != local[i]) return false;
    }
    return true;
  }
};

struct Plan {
  pocl::PoclContext pc{};      // printf fields are filled per thread
  std::uint64_t total_groups = 0;
  std::uint64_t total_items = 0;
  bool team_sized = false;     // more work-items than HOSTKERNEL_INLINE_MAX_ITEMS
  std::uint32_t stack_kib = 0; // stack estimate of one group, KiB (fills padding: no
                               // extra word for PlanCache to copy)
};

// Checks the request as PoCL would and computes the plan. Returns HK_REASON_NONE, or
// HK_REASON_INVALID_LAUNCH (PoCL will report the error) / HK_REASON_NON_UNIFORM.
// Without a local size, the group is PoCL's choice capped at `max_local_items` work-items
// (capLocalSize, src/launch/tuning.hpp: the largest group whose stack fits).
hk_reason planLaunch(const LaunchRequest &r, const DeviceLimits &dev,
                     const std::array<std::uint64_t, 3> &reqd_wg_size, Plan &plan,
                     std::size_t inline_max_items = 8192,
                     std::uint64_t max_local_items = UINT64_MAX);

}  // namespace hk::launch
