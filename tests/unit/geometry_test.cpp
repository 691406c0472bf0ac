// Launch planning: PoCL's rules for sizes, and the plan the work-group function gets.
#include <gtest/gtest.h>

#include <array>

#include "launch/geometry.hpp"

namespace hk::launch {
namespace {

DeviceLimits cpu() { return DeviceLimits{{4096, 4096, 4096}, 4096, 8, 2}; }
constexpr std::array<std::uint64_t, 3> kNoReqd{0, 0, 0};

TEST(Geometry, UniformLaunchPlansGroupsOffsetsAndLocalSize) {
  size_t g[3] = {64, 6, 4}, l[3] = {16, 3, 2}, o[3] = {5, 6, 7};
  Plan p;
  ASSERT_EQ(planLaunch(LaunchRequest::from(3, o, g, l), cpu(), kNoReqd, p), HK_REASON_NONE);
  EXPECT_EQ(pocl::workDim(p.pc), 3u);
  EXPECT_EQ(p.pc.work_dim_96, 3u);
  EXPECT_EQ(p.pc.num_groups[0], 4u);
  EXPECT_EQ(p.pc.num_groups[1], 2u);
  EXPECT_EQ(p.pc.num_groups[2], 2u);
  EXPECT_EQ(p.pc.global_offset[2], 7u);
  EXPECT_EQ(p.pc.local_size[1], 3u);
  EXPECT_EQ(p.total_groups, 16u);
  EXPECT_EQ(p.total_items, 64u * 6 * 4);
}

TEST(Geometry, UnusedDimensionsHaveOneGroupOfOne) {
  size_t g = 100;
  Plan p;
  ASSERT_EQ(planLaunch(LaunchRequest::from(1, nullptr, &g, nullptr), cpu(), kNoReqd, p),
            HK_REASON_NONE);
  EXPECT_EQ(p.pc.num_groups[1], 1u);
  EXPECT_EQ(p.pc.local_size[2], 1u);
  EXPECT_EQ(p.pc.num_groups[0] * p.pc.local_size[0], 100u);
}

TEST(Geometry, NonUniformGroupsAreSentToTheQueue) {
  size_t g = 100, l = 8;
  Plan p;
  EXPECT_EQ(planLaunch(LaunchRequest::from(1, nullptr, &g, &l), cpu(), kNoReqd, p),
            HK_REASON_NON_UNIFORM);
}

TEST(Geometry, SizesPoclRejectsAreLeftToPocl) {
  Plan p;
  size_t zero = 0, g = 64, big = 8192, l0 = 0;
  EXPECT_EQ(planLaunch(LaunchRequest::from(1, nullptr, &zero, nullptr), cpu(), kNoReqd, p),
            HK_REASON_INVALID_LAUNCH);
  EXPECT_EQ(planLaunch(LaunchRequest::from(1, nullptr, &big, &big), cpu(), kNoReqd, p),
            HK_REASON_INVALID_LAUNCH);
  EXPECT_EQ(planLaunch(LaunchRequest::from(1, nullptr, &g, &l0), cpu(), kNoReqd, p),
            HK_REASON_INVALID_LAUNCH);
  size_t off = SIZE_MAX - 10;
  EXPECT_EQ(planLaunch(LaunchRequest::from(1, &off, &g, nullptr), cpu(), kNoReqd, p),
            HK_REASON_INVALID_LAUNCH);
  size_t g2[2] = {64, 64}, l2[2] = {64, 128};  // 8192 items per group > 4096
  EXPECT_EQ(planLaunch(LaunchRequest::from(2, nullptr, g2, l2), cpu(), kNoReqd, p),
            HK_REASON_INVALID_LAUNCH);
}

TEST(Geometry, RequiredWorkGroupSizeMustBeGivenExactly) {
  Plan p;
  size_t g[2] = {32, 8}, ok[2] = {8, 4}, wrong[2] = {4, 4};
  std::array<std::uint64_t, 3> reqd{8, 4, 1};
  EXPECT_EQ(planLaunch(LaunchRequest::from(2, nullptr, g, ok), cpu(), reqd, p), HK_REASON_NONE);
  EXPECT_EQ(planLaunch(LaunchRequest::from(2, nullptr, g, wrong), cpu(), reqd, p),
            HK_REASON_INVALID_LAUNCH);
  EXPECT_EQ(planLaunch(LaunchRequest::from(2, nullptr, g, nullptr), cpu(), reqd, p),
            HK_REASON_INVALID_LAUNCH);
}


// Native kernels: the grid is rounded up to whole work-groups; the plan keeps the true
// ndrange (the hidden argument) and how many groups per dimension lie inside it.
TEST(Geometry, RoundUpPlansFullAndBoundaryGroups) {
  const size_t g[3] = {1000, 23, 5}, l[3] = {64, 4, 5};
  Plan p;
  ASSERT_EQ(planLaunch(LaunchRequest::from(3, nullptr, g, l), cpu(), kNoReqd, p, 8192, UINT64_MAX, true),
            HK_REASON_NONE);
  EXPECT_EQ(p.pc.num_groups[0], 16u);
  EXPECT_EQ(p.pc.num_groups[1], 6u);
  EXPECT_EQ(p.pc.num_groups[2], 1u);
  EXPECT_EQ(fullGroups(p, 0), 15u);
  EXPECT_EQ(fullGroups(p, 1), 5u);
  EXPECT_EQ(fullGroups(p, 2), 1u);
  EXPECT_EQ(fullTotal(p), 75u);
  EXPECT_EQ(p.total_groups, 96u);
  std::uint64_t nd[3];
  trueNdrange(p, nd);
  EXPECT_EQ(nd[0], 1000u);
  EXPECT_EQ(nd[1], 23u);
  EXPECT_EQ(nd[2], 5u);
  EXPECT_EQ(p.total_items, 1024u * 24u * 5u);
  // Without round_up the same request is non-uniform.
  EXPECT_EQ(planLaunch(LaunchRequest::from(3, nullptr, g, l), cpu(), kNoReqd, p),
            HK_REASON_NON_UNIFORM);
}

// Native kernels without a local size (issue rule "16 vectors"): powers of two, the first
// dimension 16 vectors of the preferred multiple (8 here) unless the ndrange is smaller.
TEST(Geometry, RoundUpWithoutLocalSizePicksPowersOfTwo) {
  const size_t prime = 1009;
  Plan p;
  ASSERT_EQ(planLaunch(LaunchRequest::from(1, nullptr, &prime, nullptr), cpu(), kNoReqd, p,
                       8192, UINT64_MAX, true),
            HK_REASON_NONE);
  EXPECT_EQ(p.pc.local_size[0], 128u);
  EXPECT_EQ(p.pc.num_groups[0], 8u);
  EXPECT_EQ(fullGroups(p, 0), 7u);
  const size_t g2[2] = {3, 100};
  ASSERT_EQ(planLaunch(LaunchRequest::from(2, nullptr, g2, nullptr), cpu(), kNoReqd, p, 8192,
                       UINT64_MAX, true),
            HK_REASON_NONE);
  EXPECT_EQ(p.pc.local_size[0], 4u);
  EXPECT_EQ(p.pc.local_size[1], 32u);
}

TEST(Geometry, NativeLocalSizeFollowsTheVectorRule) {
  auto pick = [](std::array<size_t, 3> g, size_t vw, std::uint64_t cap) {
    std::array<size_t, 3> l{};
    nativeLocalSize(g.data(), l.data(), vw, cap);
    return l;
  };
  using A = std::array<size_t, 3>;
  EXPECT_EQ(pick({1000000, 1, 1}, 8, UINT64_MAX), (A{128, 1, 1}));
  EXPECT_EQ(pick({1000000, 1, 1}, 16, UINT64_MAX), (A{256, 1, 1}));  // AVX-512: 16 lanes
  EXPECT_EQ(pick({10, 1, 1}, 8, UINT64_MAX), (A{16, 1, 1}));          // covers the ndrange
  EXPECT_EQ(pick({1000, 1000, 1}, 8, UINT64_MAX), (A{128, 1, 1}));
  EXPECT_EQ(pick({40, 1000, 7}, 8, UINT64_MAX), (A{64, 2, 1}));
  EXPECT_EQ(pick({5, 6, 7}, 8, UINT64_MAX), (A{8, 8, 2}));
  // The stack cap: z and y go first, then x in whole vectors, then below a vector.
  EXPECT_EQ(pick({5, 6, 7}, 8, 32), (A{8, 4, 1}));
  EXPECT_EQ(pick({1000000, 1, 1}, 8, 100), (A{64, 1, 1}));
  EXPECT_EQ(pick({1000000, 1, 1}, 8, 8), (A{8, 1, 1}));
  EXPECT_EQ(pick({1000000, 1, 1}, 8, 3), (A{2, 1, 1}));
  EXPECT_EQ(pick({1000000, 1, 1}, 8, 0), (A{1, 1, 1}));
  for (auto l : {pick({77, 33, 9}, 8, UINT64_MAX), pick({3, 3, 3}, 8, 5)})
    for (size_t v : l) EXPECT_EQ(v & (v - 1), 0u) << v;  // powers of two
}

TEST(Geometry, UniformPlansHaveEveryGroupFull) {
  const size_t g = 1024, l = 64;
  Plan p;
  ASSERT_EQ(planLaunch(LaunchRequest::from(1, nullptr, &g, &l), cpu(), kNoReqd, p),
            HK_REASON_NONE);
  EXPECT_EQ(fullTotal(p), p.total_groups);
  EXPECT_EQ(fullGroups(p, 0), 16u);
}

}  // namespace
}  // namespace hk::launch
