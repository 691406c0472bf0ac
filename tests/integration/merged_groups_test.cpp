// Merged work-groups (docs/launch.md): a kernel whose work-items cannot tell which
// work-group they are in runs with fewer, larger groups along the first dimension, with
// the same results; a kernel that looks at its group keeps the launch's work-group size.
// Results are checked against the host, bit for bit, on the inline and team paths.
// Merging leaves at least one group per team thread, 8 for a launch sized for the team.
#include <hostkernel/hostkernel.hpp>

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace {

// No FMA contraction: the host computes the same bits.
const char *kSource = R"(
#pragma OPENCL FP_CONTRACT OFF
kernel void blind(global float *y, global const float *x, float a) {
  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
  y[i] = a * x[i] + y[i];
}
kernel void sighted(global float *y, global const float *x, float a) {
  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
  if (get_group_id(0) < get_num_groups(0)) y[i] = a * x[i] + y[i];
}
)";

struct Fixture {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program program = hk::Program::fromSource(rt, kSource);
};

Fixture &fixture() {
  static Fixture f;
  return f;
}

// The team's size: merged_groups.cmake sets HOSTKERNEL_NUM_THREADS=2, so 2 unless the
// process may use only one CPU.
unsigned TeamThreads() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::min(2u, static_cast<unsigned>(CPU_COUNT(&set)));
}

// Launches `name` over global x local (2-D when gy > 1) and checks every element.
hk::KernelVariants LaunchAndCheck(const char *name, std::size_t gx, std::size_t gy,
                               std::size_t lx, std::size_t ly) {
  Fixture &f = fixture();
  hk::Kernel k(f.program, name);
  const std::size_t n = gx * gy;
  hk::Buffer<float> x(f.rt, n), y(f.rt, n);
  std::vector<float> expect(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1013) * 0.25f;
    y[i] = static_cast<float>(i % 91) - 7.5f;
    expect[i] = 1.5f * x[i] + y[i];
  }
  if (gy > 1)
    k.launch({gx, gy}, {lx, ly}, y, x, 1.5f);
  else
    k.launch({gx}, {lx}, y, x, 1.5f);
  f.rt.finish();
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(y[i], expect[i]) << name << " element " << i;
  const hk_launch_counts c = k.counts();
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 0u) << name;
  return k.variants();
}

TEST(MergedGroups, GroupFreeKernelRunsWithLargerGroupsOnTheTeam) {
  // 65 536 work-items (team-sized), 1024 groups of 64: merged 32 at a time.
  const hk::KernelVariants v = LaunchAndCheck("blind", 1 << 16, 1, 64, 1);
  EXPECT_TRUE(v.group_free);
  EXPECT_EQ(v.planned_local_size[0], 2048u);
}

TEST(MergedGroups, GroupFreeKernelRunsWithLargerGroupsInline) {
  // 1000 work-items (inline), 125 groups of 8: merged 25 at a time, leaving a group for
  // each of the 2 team threads should the kernel turn out slow (with one thread, all 125).
  const hk::KernelVariants v = LaunchAndCheck("blind", 1000, 1, 8, 1);
  EXPECT_TRUE(v.group_free);
  EXPECT_EQ(v.planned_local_size[0], TeamThreads() == 2 ? 200u : 1000u);
}

TEST(MergedGroups, TeamLaunchKeepsGroupsForEveryThread) {
  // 16 384 work-items (team-sized), 256 groups of 64: merged 16 at a time, not 32, to
  // keep 8 groups per team thread (with one thread: 32 at a time, 2048 work-items).
  const hk::KernelVariants v = LaunchAndCheck("blind", 1 << 14, 1, 64, 1);
  EXPECT_EQ(v.planned_local_size[0], TeamThreads() == 2 ? 1024u : 2048u);
}

TEST(MergedGroups, LargeGroupsMergeToo) {
  // 65 536 work-items in 256 groups of 256: merged 8 at a time.
  const hk::KernelVariants v = LaunchAndCheck("blind", 1 << 16, 1, 256, 1);
  EXPECT_EQ(v.planned_local_size[0], 2048u);
}

TEST(MergedGroups, TwoDimensionalLaunchMergesTheFirstDimensionOnly) {
  // 16 x 16 groups of 16 x 4: the first dimension's 16 groups merge into one.
  const hk::KernelVariants v = LaunchAndCheck("blind", 256, 64, 16, 4);
  EXPECT_EQ(v.planned_local_size[0], 256u);
  EXPECT_EQ(v.planned_local_size[1], 4u);
}

TEST(MergedGroups, LargeTwoDimensionalGroupsMergeAlongY) {
  // 16 x 16 groups of 16 x 16 (256 work-items): rows stay 16 wide, 8 groups merge along y.
  const hk::KernelVariants v = LaunchAndCheck("blind", 256, 256, 16, 16);
  EXPECT_EQ(v.planned_local_size[0], 16u);
  EXPECT_EQ(v.planned_local_size[1], 128u);
}

TEST(MergedGroups, KernelThatSeesItsGroupKeepsTheLaunchsGroups) {
  const hk::KernelVariants v = LaunchAndCheck("sighted", 1 << 16, 1, 64, 1);
  EXPECT_FALSE(v.group_free);
  EXPECT_EQ(v.planned_local_size[0], 64u);
}

}  // namespace
