// Work-group size for launches with a NULL local size, and whether a work-group fits the
// stack of the thread that runs it. Decided when a kernel's launch geometry changes (the
// kernel's PlanCache keeps the decision), never on the launch path.
//
// The size is PoCL's own choice (choosePoclLocalSize) whenever its stack estimate fits:
// results that depend on the work-group size are then bit-identical to PoCL's queue. When
// it does not fit, capLocalSize shrinks it to the largest power of two of work-items whose
// estimate fits (docs/stack.md):
//
//   std::uint64_t cap = image.stack.largestPow2Fitting(stackRoomForLaunch(ts.stackRoom()));
//   std::size_t local[3];
//   choosePoclLocalSize(dev, global, local);
//   capLocalSize(global, local, cap, dev.preferred_multiple);
#pragma once

#include <cstddef>
#include <cstdint>

#include "launch/geometry.hpp"

namespace hk::launch {

// Shrinks `local` (a valid uniform local size for `global`) until it has at most
// `max_items` work-items (>= 1), keeping it a divisor of `global` in every dimension:
//   1. the first dimension, down to no less than 16 vectors of `vector_width` items;
//   2. the third, then the second dimension, down to 1;
//   3. the first dimension below 16 vectors, only to multiples of `vector_width`;
//   4. the first dimension to any divisor (only when nothing else fits).
// In each step the largest size that fits is taken. Unchanged if it already fits.
void capLocalSize(const std::size_t global[3], std::size_t local[3], std::uint64_t max_items,
                  std::size_t vector_width);

// Work-items per merged work-group (mergeGroups): a call of the work-group function costs
// little next to a group of a thousand work-items, so larger groups save only a few
// percent more while leaving fewer groups to spread over the team.
constexpr std::uint64_t kMergedGroupItems = 2048;
// A launch for the team keeps at least this many groups per team thread after merging,
// so that the static split stays even and stealing has something to take.
constexpr std::uint64_t kMergedGroupsPerThread = 8;
// 2-D and 3-D groups of this many work-items or more merge along y, not x: such a group
// is often a tile chosen for the caches (a transpose's 16x16), and a wider row breaks the
// tile (transpose_naive merged along x ran twice as long), while rows that stay whole
// keep it. Smaller groups, and 1-D ones, merge along x, where the work-group function's
// loop is longest.
constexpr std::uint64_t kMerge2dBelowItems = 256;

// For a kernel whose results do not depend on its work-group size (group-free,
// docs/launch.md): merges the work-groups along one dimension, k at a time, k the largest
// divisor of the group count there such that the group stays within max_items
// work-items and within max_x (or max_y) along that dimension, and at least
// `min_groups` groups are left in all. The dimension is x, or y for 2-D and 3-D groups of
// kMerge2dBelowItems work-items or more. The launch stays uniform. False (r unchanged)
// when no k > 1 fits or r has no local size.
//   LaunchRequest r = ...;   // global 1e6, local 64: 15625 groups
//   mergeGroups(r, 2048, 4096, 4096, 16);   // local 1600: 625 groups
//   LaunchRequest s = ...;   // global 512x512, local 64x4: 8x128 groups
//   mergeGroups(s, 2048, 4096, 4096, 16);   // local 64x32: 8x16 groups
bool mergeGroups(LaunchRequest &r, std::uint64_t max_items, std::uint64_t max_x,
                 std::uint64_t max_y, std::uint64_t min_groups);

// Stack a work-group may use on a launch from a thread with `caller_room` bytes left:
// the team's workers run groups of the same launch, so their (fixed) stacks bound it too.
std::uint64_t stackRoomForLaunch(std::uint64_t caller_room);

}  // namespace hk::launch
