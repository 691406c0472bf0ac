#include "launch/geometry.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "launch/tuning.hpp"

namespace hk::launch {

LaunchRequest LaunchRequest::from(std::uint32_t dim, const std::size_t *offset,
                                  const std::size_t *global, const std::size_t *local) {
  LaunchRequest r;
  r.dim = dim;
  r.has_local = local != nullptr;
  for (std::uint32_t i = 0; i < dim && i < 3; ++i) {
    r.global[i] = global[i];
    r.offset[i] = offset ? offset[i] : 0;
    r.local[i] = local ? local[i] : 1;
  }
  return r;
}

namespace {
std::size_t nextPow2(std::size_t v) {
  std::size_t p = 1;
  while (p < v && p <= (SIZE_MAX >> 1)) p *= 2;
  return p;
}
}  // namespace

void nativeLocalSize(const std::size_t global[3], std::size_t local[3],
                     std::size_t vector_width, std::uint64_t max_items) {
  // Powers of two throughout: a vector width that is not one (PoCL's CPU device says 8,
  // or 16 with AVX-512) counts as the power of two below it.
  const std::size_t vw = std::bit_floor(vector_width ? vector_width : std::size_t{1});
  const std::size_t target = 16 * vw;
  if (max_items == 0) max_items = 1;
  // The first dimension: 16 vectors, or the power of two that covers the ndrange; the
  // others share what is left of 16 vectors' worth of work-items.
  std::size_t budget = target;
  for (int d = 0; d < 3; ++d) {
    local[d] = std::min(nextPow2(global[d]), std::max<std::size_t>(budget, 1));
    budget /= local[d];
  }
  auto items = [&] { return std::uint64_t{local[0]} * local[1] * local[2]; };
  // Too big for the stack: z, then y, then x. Halving a power of two keeps x a multiple of
  // the vector width down to one vector; below that only when not even that fits.
  for (int d : {2, 1})
    while (items() > max_items && local[d] > 1) local[d] /= 2;
  while (items() > max_items && local[0] > 1) local[0] /= 2;
}

hk_reason planLaunch(const LaunchRequest &r, const DeviceLimits &dev,
                     const std::array<std::uint64_t, 3> &reqd, Plan &plan,
                     std::size_t inline_max_items, std::uint64_t max_local_items,
                     bool round_up) {
  if (r.dim < 1 || r.dim > 3) return HK_REASON_INVALID_LAUNCH;
  for (int i = 0; i < 3; ++i) {
    // Zero sizes (a no-op in OpenCL 2+) and offsets that overflow are PoCL's to judge.
    if (r.global[i] == 0 || r.global[i] + r.offset[i] < r.global[i])
      return HK_REASON_INVALID_LAUNCH;
  }
  std::size_t local[3] = {r.local[0], r.local[1], r.local[2]};
  const bool has_reqd = reqd[0] > 0 && reqd[1] > 0 && reqd[2] > 0;
  if (r.has_local) {
    std::size_t product = 1;
    for (int i = 0; i < 3; ++i) {
      if (local[i] == 0 || local[i] > dev.max_item_sizes[i]) return HK_REASON_INVALID_LAUNCH;
      product *= local[i];
    }
    if (product > dev.max_group_size) return HK_REASON_INVALID_LAUNCH;
    if (has_reqd && (local[0] != reqd[0] || local[1] != reqd[1] || local[2] != reqd[2]))
      return HK_REASON_INVALID_LAUNCH;
    if (!round_up)
      for (int i = 0; i < 3; ++i)
        if (r.global[i] % local[i] != 0) return HK_REASON_NON_UNIFORM;
  } else if (round_up) {
    if (has_reqd)
      for (int i = 0; i < 3; ++i) local[i] = reqd[i];
    else
      nativeLocalSize(r.global, local, dev.preferred_multiple, max_local_items);
  } else {
    if (has_reqd) return HK_REASON_INVALID_LAUNCH;  // PoCL requires the local size then
    choosePoclLocalSize(dev, r.global, local);
    capLocalSize(r.global, local, max_local_items, dev.preferred_multiple);
  }
  plan = Plan{};
  pocl::setWorkDim(plan.pc, r.dim);
  plan.total_groups = 1;
  std::uint64_t grid_items = 1;
  for (int i = 0; i < 3; ++i) {
    plan.pc.num_groups[i] = r.global[i] / local[i];
    if (round_up && r.global[i] % local[i] != 0) {
      ++plan.pc.num_groups[i];
      // The rounded grid must not wrap around, with its offset, as PoCL checks the
      // request's.
      const std::uint64_t end = plan.pc.num_groups[i] * local[i];
      if (end < r.global[i] || end + r.offset[i] < end) return HK_REASON_INVALID_LAUNCH;
      if (end - r.global[i] > 0xffff) return HK_REASON_LIMITS;  // Plan::pad is 16 bits
      plan.pad[i] = static_cast<std::uint16_t>(end - r.global[i]);
    }
    plan.pc.global_offset[i] = r.offset[i];
    plan.pc.local_size[i] = local[i];
    plan.total_groups *= plan.pc.num_groups[i];
    grid_items *= plan.pc.num_groups[i] * local[i];
  }
  plan.total_items = grid_items;
  plan.team_sized = plan.total_groups > 1 && plan.total_items > inline_max_items;
  return HK_REASON_NONE;
}

}  // namespace hk::launch
