#include "launch/tuning.hpp"

#include <algorithm>

#include "team/team.hpp"

namespace hk::launch {
namespace {

constexpr int X = 0, Y = 1, Z = 2;
constexpr std::uint64_t kWorkerReserve = 256 * 1024;  // team frames above the group's

// Sets local[d] to the largest divisor t of global[d] with floor <= t < local[d], t a
// multiple of `multiple`, and t * (other dimensions) <= max_items; if none is small
// enough, to the smallest such t. False when no t qualifies (local[d] unchanged).
bool shrinkDimension(const std::size_t global[3], std::size_t local[3], int d,
                     std::size_t floor, std::size_t multiple, std::uint64_t max_items) {
  const std::uint64_t others = std::uint64_t{local[0]} * local[1] * local[2] / local[d];
  std::size_t smallest = 0;
  for (std::size_t t = local[d] - 1; t >= std::max<std::size_t>(floor, 1); --t) {
    if (global[d] % t != 0 || t % multiple != 0) continue;
    if (others * t <= max_items) {
      local[d] = t;
      return true;
    }
    smallest = t;
  }
  if (smallest == 0) return false;
  local[d] = smallest;
  return true;
}

std::uint64_t items(const std::size_t local[3]) {
  return std::uint64_t{local[0]} * local[1] * local[2];
}

}  // namespace

void capLocalSize(const std::size_t global[3], std::size_t local[3], std::uint64_t max_items,
                  std::size_t vector_width) {
  if (max_items == 0) max_items = 1;
  const std::size_t vw = vector_width ? vector_width : 1;
  const std::size_t sixteen_vectors = 16 * vw;
  if (items(local) <= max_items) return;
  // 1. The first dimension, keeping at least 16 vectors: vector loops stay long.
  if (local[X] > sixteen_vectors) shrinkDimension(global, local, X, sixteen_vectors, 1, max_items);
  // 2. The other dimensions (z first, as PoCL reduces them).
  for (int d : {Z, Y})
    while (items(local) > max_items && local[d] > 1)
      if (!shrinkDimension(global, local, d, 1, 1, max_items)) break;
  // 3. The first dimension below 16 vectors, in whole vectors.
  while (items(local) > max_items && local[X] > vw)
    if (!shrinkDimension(global, local, X, vw, vw, max_items)) break;
  // 4. Anything that divides the grid.
  while (items(local) > max_items && local[X] > 1)
    if (!shrinkDimension(global, local, X, 1, 1, max_items)) break;
}

bool mergeGroups(LaunchRequest &r, std::uint64_t max_items, std::uint64_t max_x,
                 std::uint64_t max_y, std::uint64_t min_groups) {
  if (!r.has_local) return false;
  const std::uint64_t items = std::uint64_t{r.local[0]} * r.local[1] * r.local[2];
  if (items == 0) return false;
  // Large 2-D and 3-D groups keep their rows and grow along y (kMerge2dBelowItems).
  const int d = items >= kMerge2dBelowItems && items > r.local[0] ? 1 : 0;
  if (r.global[d] % r.local[d] != 0) return false;
  const std::uint64_t groups = r.global[d] / r.local[d];
  std::uint64_t all = 1;  // every dimension's groups count towards min_groups
  for (int i = 0; i < 3; ++i) all *= r.local[i] ? r.global[i] / r.local[i] : 1;
  const std::uint64_t most =
      std::min({groups, max_items / items, (d == 0 ? max_x : max_y) / r.local[d],
                all / std::max<std::uint64_t>(min_groups, 1)});
  for (std::uint64_t k = most; k > 1; --k) {
    if (groups % k == 0) {
      r.local[d] *= k;
      return true;
    }
  }
  return false;
}

std::uint64_t stackRoomForLaunch(std::uint64_t caller_room) {
  const std::uint64_t worker = team::Team::instance().workerStackBytes();
  const std::uint64_t worker_room = worker > kWorkerReserve ? worker - kWorkerReserve : 0;
  return std::min(caller_room, worker_room);
}

}  // namespace hk::launch
