// Test helper: launches that ran directly, on either direct path.
//
//   EXPECT_EQ(Direct(Counts(k)), 1u);
//
// Whether a direct launch runs inline or on the team depends on timing (the sampler
// sends a kernel whose launch took >= 20 us to the team, and a cold or preempted launch
// can), so tests that check "direct, not the queue" count both paths.
#pragma once

#include "hostkernel/hostkernel.h"

inline cl_ulong Direct(const hk_launch_counts &c) {
  return c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM];
}
