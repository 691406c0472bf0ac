// Test helpers for launch counts: a kernel's counts, the launches that ran directly (on
// either direct path), all launches, and the counts as text for failure messages.
//
//   EXPECT_EQ(Direct(Counts(k)), 1u) << Describe(Counts(k));
//
// Whether a direct launch runs inline or on the team depends on timing (the sampler
// sends a kernel whose launch took >= 20 us to the team, and a cold or preempted launch
// can), so tests that check "direct, not the queue" count both paths.
#pragma once

#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

#include <string>

// The kernel's counts; a failed query fails the test (and gives zeros).
inline hk_launch_counts Counts(cl_kernel k) {
  hk_launch_counts c{};
  EXPECT_EQ(hkGetKernelLaunchCounts(k, &c), CL_SUCCESS);
  return c;
}

inline cl_ulong Direct(const hk_launch_counts &c) {
  return c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM];
}

inline cl_ulong Total(const hk_launch_counts &c) {
  return c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM] + c.by_path[HK_PATH_QUEUE];
}

// "inline=1 team=0 queue=2 [non-uniform work-groups]=2"
inline std::string Describe(const hk_launch_counts &c) {
  std::string s = "inline=" + std::to_string(c.by_path[HK_PATH_INLINE]) +
                  " team=" + std::to_string(c.by_path[HK_PATH_TEAM]) +
                  " queue=" + std::to_string(c.by_path[HK_PATH_QUEUE]);
  for (int r = 1; r < HK_REASON_COUNT; ++r)
    if (c.by_reason[r])
      s += std::string(" [") + hkReasonString(static_cast<hk_reason>(r)) +
           "]=" + std::to_string(c.by_reason[r]);
  return s;
}
