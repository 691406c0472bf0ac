// Runs every work-group of a plan on the calling thread, with the floating-point mode PoCL
// gives kernels. Header-only: it is the launch path.
//
//   FpModeScope fp(image.flush_denorms);
//   runGroups(image.fn, args, pc);
#pragma once

#include <xmmintrin.h>

#include <cstdint>

#include "pocl/abi.hpp"

namespace hk::launch {

// PoCL sets flush-to-zero/denormals-are-zero from the program's build flag and rounds to
// nearest before running work-groups; the caller's mode is restored afterwards so the
// application never sees the kernel's. PoCL resets the rounding mode before each group
// because a kernel could change it; OpenCL C cannot change it, so once per launch is the
// same.
class FpModeScope {
 public:
  static constexpr unsigned kFtzDaz = 0x8040u;    // MXCSR FTZ | DAZ
  static constexpr unsigned kRounding = 0x6000u;  // MXCSR RC (00 = nearest)
  explicit FpModeScope(bool flush_denorms) : saved_(_mm_getcsr()) {
    unsigned want = (saved_ & ~(kFtzDaz | kRounding)) | (flush_denorms ? kFtzDaz : 0u);
    if (want != saved_) _mm_setcsr(want);
  }
  ~FpModeScope() {
    if (_mm_getcsr() != saved_) _mm_setcsr(saved_);
  }
  FpModeScope(const FpModeScope &) = delete;
  FpModeScope &operator=(const FpModeScope &) = delete;

 private:
  unsigned saved_;
};

// Group ids in PoCL's order: x fastest.
[[gnu::always_inline]] inline void runGroups(pocl::WorkGroupFn fn, void **args, pocl::PoclContext &pc,
                      std::uint64_t total_groups) {
  if (total_groups == 1) {  // the common small launch: no loop set-up
    fn(args, &pc, 0, 0, 0);
    return;
  }
  const std::uint64_t nx = pc.num_groups[0], ny = pc.num_groups[1], nz = pc.num_groups[2];
  for (std::uint64_t z = 0; z < nz; ++z)
    for (std::uint64_t y = 0; y < ny; ++y)
      for (std::uint64_t x = 0; x < nx; ++x) fn(args, &pc, x, y, z);
}

// Native kernels: the groups inside [0, full) in every dimension run `unchecked`, the
// boundary groups `checked`; same order, same arguments and context. Rows of x are split
// at full[0] so that the choice costs nothing per group.
inline void runGroupsVariants(pocl::WorkGroupFn checked, pocl::WorkGroupFn unchecked,
                              void **args, pocl::PoclContext &pc,
                              const std::uint16_t pad[3]) {
  const std::uint64_t nx = pc.num_groups[0], ny = pc.num_groups[1], nz = pc.num_groups[2];
  const std::uint64_t full[3] = {nx - (pad[0] != 0), ny - (pad[1] != 0), nz - (pad[2] != 0)};
  for (std::uint64_t z = 0; z < nz; ++z)
    for (std::uint64_t y = 0; y < ny; ++y) {
      const std::uint64_t fx = (z < full[2] && y < full[1]) ? full[0] : 0;
      std::uint64_t x = 0;
      for (; x < fx; ++x) unchecked(args, &pc, x, y, z);
      for (; x < nx; ++x) checked(args, &pc, x, y, z);
    }
}

}  // namespace hk::launch
