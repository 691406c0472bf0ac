// Reproduces the default local size PoCL 3.1 gives a NULL local_work_size on its CPU
// devices. The procedure has three phases:
//
//   1. Per dimension, the largest size that divides the global size, is a multiple of the
//      dimension's "grain" (gcd of the preferred multiple and the global size, so SIMD lanes
//      stay full where the global size allows it) and is within the per-dimension limit.
//   2. While the group is larger than the device maximum, shrink it: halve a dimension if
//      the result still honours the grain and divides the global size, else reset to 1 the
//      dimension with the coarsest-to-vectorise (smallest) grain, else any dimension.
//   3. While there are fewer groups than compute units, split the group so each unit gets
//      one, but never below a minimum group size (4 * preferred multiple).
//
// Dimensions are always considered z first, then y, then x: x is assumed to vary fastest
// and be the best vectorisation candidate, so it is the last one to be reduced.
//
// The order of every tie-break below matters: a different but equally "good" choice would
// change the results of kernels that depend on the group size.

#include "launch/local_size.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace hk::launch {

namespace {

constexpr int X = 0, Y = 1, Z = 2;

// The reduction order of phases 2 and 3.
constexpr int kReduceOrder[3] = {Z, Y, X};

// Largest divisor of n that is <= limit (limit >= 1). Counts down from limit, as PoCL
// does; the limit is a per-dimension work-item limit (4096 on PoCL's CPU device), so
// this is quick even when n is a large prime.
std::size_t largestDivisorAtMost(std::size_t n, std::size_t limit) {
  if (n <= limit) return n;
  std::size_t d = limit;
  while (n % d != 0) --d;
  return d;
}

struct Geometry {
  std::size_t global[3];
  std::size_t grain[3];
  std::size_t local[3];

  std::size_t groupSize() const { return local[X] * local[Y] * local[Z]; }

  // A candidate local size must stay a multiple of the grain and a divisor of the global
  // size (OpenCL 1.x uniform work-groups).
  bool acceptable(int d, std::size_t candidate) const {
    return candidate % grain[d] == 0 && global[d] % candidate == 0;
  }

  // Number of work-groups, saturated at SIZE_MAX. (Only matters for grids of more than
  // 2^64 work-items, which cannot be launched anyway.)
  std::size_t groupCount() const {
    std::size_t count = 1;
    for (int d = 0; d < 3; ++d) {
      std::size_t n = global[d] / local[d];
      if (count > std::numeric_limits<std::size_t>::max() / n)
        return std::numeric_limits<std::size_t>::max();
      count *= n;
    }
    return count;
  }
};

// Phase 1: the largest grain-multiple divisor of the global size within the limit.
std::size_t initialLocalSize(const Geometry &g, int d, std::size_t max_item_size) {
  const std::size_t max_local = std::min(max_item_size, g.global[d]);
  // PoCL only searches y and z when they can exceed 1. (For x the search gives 1 anyway
  // when max_local is 1, given sane limits.)
  if (d != X && max_local <= 1) return 1;
  // Local = k * grain with k dividing global/grain and k * grain <= max_local. PoCL
  // asserts the bound max_local/grain is non-zero (max item size >= preferred multiple);
  // we clamp it to 1 rather than divide by zero.
  const std::size_t bound = std::max<std::size_t>(max_local / g.grain[d], 1);
  return g.grain[d] * largestDivisorAtMost(g.global[d] / g.grain[d], bound);
}

// Phase 2, first choice: halve the first dimension (z, y, x) where that keeps it a
// grain multiple that divides the global size.
bool halveOneDimension(Geometry &g) {
  for (int d : kReduceOrder) {
    const std::size_t l = g.local[d];
    if (l % 2 == 0 && g.acceptable(d, l / 2)) {
      g.local[d] = l / 2;
      return true;
    }
  }
  return false;
}

// The other two dimensions, in the order PoCL compares against them (irrelevant for the
// comparisons themselves, kept for readability): z -> (x, y), y -> (z, x), x -> (y, z).
void otherDimensions(int d, int &a, int &b) {
  a = (d + 1) % 3;
  b = (d + 2) % 3;
}

// Phase 2, second choice: reset to 1 the first dimension (z, y, x) that is > 1 and whose
// grain is no larger than the other two: it is the poorest vectorisation candidate.
bool dropSmallestGrainDimension(Geometry &g) {
  for (int d : kReduceOrder) {
    int a, b;
    otherDimensions(d, a, b);
    if (g.local[d] > 1 && g.grain[d] <= g.grain[a] && g.grain[d] <= g.grain[b]) {
      g.local[d] = 1;
      return true;
    }
  }
  return false;
}

// Phase 2, last resort: reset to 1 the first dimension (z, y, x) that is > 1.
bool dropAnyDimension(Geometry &g) {
  for (int d : kReduceOrder) {
    if (g.local[d] > 1) {
      g.local[d] = 1;
      return true;
    }
  }
  return false;
}

void fitMaxGroupSize(Geometry &g, std::size_t max_group_size) {
  while (g.groupSize() > max_group_size) {
    // Each step strictly shrinks the group, so this terminates; only a zero
    // max_group_size could leave nothing to shrink (PoCL would spin forever).
    if (!halveOneDimension(g) && !dropSmallestGrainDimension(g) && !dropAnyDimension(g))
      break;
  }
}

// Phase 3, first choice: divide one dimension's local size by `wanted` so there are
// `wanted` times more groups; if no dimension (z, y, x) allows that while staying a grain
// multiple that divides the global size, try wanted-1, ... down to 2. Note the loop
// nesting: every dimension is tried with a factor before the factor is lowered.
bool splitOneDimension(Geometry &g, std::size_t wanted) {
  for (std::size_t factor = wanted; factor > 1; --factor) {
    for (int d : kReduceOrder) {
      const std::size_t l = g.local[d];
      if (l % factor == 0 && g.acceptable(d, l / factor)) {
        g.local[d] = l / factor;
        return true;
      }
    }
  }
  return false;
}

// Phase 3, second choice: reset to 1 the first dimension (z, y, x) that is > 1, is no
// larger than the other two, and whose removal leaves at least min_group_size items.
bool dropSmallestDimension(Geometry &g, std::size_t min_group_size) {
  for (int d : kReduceOrder) {
    int a, b;
    otherDimensions(d, a, b);
    if (g.local[d] > 1 && g.local[d] <= g.local[a] && g.local[d] <= g.local[b] &&
        g.local[a] * g.local[b] >= min_group_size) {
      g.local[d] = 1;
      return true;
    }
  }
  return false;
}

void spreadOverComputeUnits(Geometry &g, unsigned compute_units, std::size_t min_group_size) {
  for (;;) {
    // How many times more groups we would need for one group per compute unit.
    const std::size_t splits = compute_units / g.groupCount();
    if (splits <= 1) return;
    // Splitting by `splits` would go below the minimum group size: stay as we are.
    // (This check uses the full factor even though the split may end up smaller.)
    if (g.groupSize() < splits * min_group_size) return;
    // Each step either multiplies the group count or shrinks the group, so this ends.
    if (!splitOneDimension(g, splits) && !dropSmallestDimension(g, min_group_size)) return;
  }
}

}  // namespace

void choosePoclLocalSize(const DeviceLimits &dev, const std::size_t global[3], std::size_t local[3]) {
  const std::size_t preferred = dev.preferred_multiple ? dev.preferred_multiple : 1;

  Geometry g{};
  for (int d = 0; d < 3; ++d) {
    g.global[d] = global[d];
    g.grain[d] = std::gcd(preferred, global[d]);
  }
  for (int d = 0; d < 3; ++d) g.local[d] = initialLocalSize(g, d, dev.max_item_sizes[d]);

  fitMaxGroupSize(g, dev.max_group_size);

  // Below 4 preferred multiples per group a compute unit is assumed not to have enough
  // work, so we do not split further to occupy more units.
  const std::size_t min_group_size = std::min(4 * preferred, dev.max_group_size);
  spreadOverComputeUnits(g, dev.compute_units, min_group_size);

  for (int d = 0; d < 3; ++d) local[d] = g.local[d];
}

}  // namespace hk::launch
