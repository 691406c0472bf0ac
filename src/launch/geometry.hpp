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
};

// Filled by planLaunch or PlanCache::lookup. `Plan p;` leaves it uninitialised on purpose:
// the launch path's plan is filled by the lookup, and zeroing it first would cost as much
// as the lookup's copy. `Plan p{}` is all zeros.
struct Plan {
  pocl::PoclContext pc;        // printf fields are filled per thread
  std::uint64_t total_groups;
  std::uint64_t total_items;
  bool team_sized;             // more work-items than HOSTKERNEL_INLINE_MAX_ITEMS
  // Native kernels (planned with round_up): work-items the last work-group of each
  // dimension has beyond the true ndrange (0 for other kernels); the true ndrange and the
  // full groups follow from it (trueNdrange, fullGroups). 16 bits each, so that PlanCache
  // keeps all three in one word.
  std::uint16_t pad[3];
  std::uint32_t stack_kib;     // stack estimate of one group, KiB
};

// Work-groups in dimension d that lie entirely inside the true ndrange: group (x, y, z) is
// full when x < fullGroups(p, 0), y < fullGroups(p, 1) and z < fullGroups(p, 2).
inline std::uint64_t fullGroups(const Plan &p, int d) {
  return p.pc.num_groups[d] - (p.pad[d] != 0 ? 1 : 0);
}
inline std::uint64_t fullTotal(const Plan &p) {
  return fullGroups(p, 0) * fullGroups(p, 1) * fullGroups(p, 2);
}
// The true ndrange (the hidden argument of native kernels, hk_ndrange_t).
inline void trueNdrange(const Plan &p, std::uint64_t out[3]) {
  for (int d = 0; d < 3; ++d) out[d] = p.pc.num_groups[d] * p.pc.local_size[d] - p.pad[d];
}

// Checks the request as PoCL would and computes the plan. Returns HK_REASON_NONE, or
// HK_REASON_INVALID_LAUNCH (PoCL will report the error) / HK_REASON_NON_UNIFORM.
// Without a local size, the group is PoCL's choice capped at `max_local_items` work-items
// (capLocalSize, src/launch/tuning.hpp: the largest group whose stack fits). With round_up
// (native kernels) the grid is the request's global size rounded up to whole work-groups,
// so no size is non-uniform; without a local size, a native kernel gets nativeLocalSize's,
// capped at `max_local_items`.
hk_reason planLaunch(const LaunchRequest &r, const DeviceLimits &dev,
                     const std::array<std::uint64_t, 3> &reqd_wg_size, Plan &plan,
                     std::size_t inline_max_items = 8192,
                     std::uint64_t max_local_items = UINT64_MAX, bool round_up = false);

// A native kernel's work-group when the launch gives none (the grid is rounded up to it,
// so it need not divide the ndrange; PoCL's own choice does, which for a prime size is 1).
// Powers of two: the first dimension gets 16 vectors of `vector_width` work-items (PoCL's
// preferred multiple), or the power of two that covers the ndrange if smaller, so its
// vectorised work-item loop stays long; the other dimensions share the rest of 16
// vectors. Over `max_items` (the stack cap), z and y are halved first, then x down to
// whole vectors, then below that only if nothing else fits.
void nativeLocalSize(const std::size_t global[3], std::size_t local[3],
                     std::size_t vector_width, std::uint64_t max_items);

}  // namespace hk::launch
