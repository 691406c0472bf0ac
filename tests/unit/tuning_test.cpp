// capLocalSize: the work-group size of a NULL-local-size launch capped by the stack
// estimate (src/launch/tuning.hpp), and the planner using it (planLaunch); mergeGroups.
#include "launch/tuning.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "launch/geometry.hpp"

namespace {

using hk::launch::capLocalSize;

std::string capped(std::size_t gx, std::size_t gy, std::size_t gz, std::size_t lx,
                   std::size_t ly, std::size_t lz, std::uint64_t max_items) {
  const std::size_t global[3] = {gx, gy, gz};
  std::size_t local[3] = {lx, ly, lz};
  capLocalSize(global, local, max_items, 8);
  for (int d = 0; d < 3; ++d)
    if (global[d] % local[d] != 0) return "not a divisor";
  return std::to_string(local[0]) + "x" + std::to_string(local[1]) + "x" +
         std::to_string(local[2]);
}

TEST(CapLocalSize, KeepsAChoiceThatFits) {
  EXPECT_EQ(capped(65536, 1, 1, 4096, 1, 1, 4096), "4096x1x1");
  EXPECT_EQ(capped(64, 64, 1, 64, 64, 1, 1u << 20), "64x64x1");
}

TEST(CapLocalSize, PowerOfTwoGridGivesTheCap) {
  EXPECT_EQ(capped(65536, 1, 1, 4096, 1, 1, 256), "256x1x1");
  EXPECT_EQ(capped(1 << 20, 1, 1, 4096, 1, 1, 1), "1x1x1");
}

TEST(CapLocalSize, ShrinksTheFirstDimensionToSixteenVectorsBeforeTheOthers) {
  // 16 vectors of 8 = 128 items in x are kept while y and z shrink.
  EXPECT_EQ(capped(1024, 64, 4, 512, 8, 1, 256), "128x2x1");
  EXPECT_EQ(capped(1024, 64, 4, 512, 4, 2, 128), "128x1x1");
  EXPECT_EQ(capped(256, 16, 16, 256, 4, 4, 512), "128x4x1");
}

TEST(CapLocalSize, BelowSixteenVectorsOnlyWholeVectors) {
  // x = 96 = 12 vectors: a cap of 20 gives 16 (two vectors), not 12 or 20.
  EXPECT_EQ(capped(96, 1, 1, 96, 1, 1, 20), "16x1x1");
  EXPECT_EQ(capped(4096, 1, 1, 4096, 1, 1, 64), "64x1x1");
  EXPECT_EQ(capped(1024, 1, 1, 1024, 1, 1, 9), "8x1x1");
}

TEST(CapLocalSize, AnyDivisorWhenNoVectorMultipleFits) {
  EXPECT_EQ(capped(1024, 1, 1, 1024, 1, 1, 4), "4x1x1");
  EXPECT_EQ(capped(1000, 1, 1, 1000, 1, 1, 7), "5x1x1");
}

TEST(CapLocalSize, NonPowerOfTwoGridsStayUniform) {
  EXPECT_EQ(capped(1000, 1, 1, 1000, 1, 1, 256), "250x1x1");
  EXPECT_EQ(capped(3000, 3, 1, 1000, 3, 1, 512), "150x3x1");  // x first, down to 16 vectors
}

TEST(PlanLaunch, NullLocalSizeIsPoclsChoiceCappedByTheStack) {
  const hk::launch::DeviceLimits dev{{4096, 4096, 4096}, 4096, 8, 2};
  const std::size_t global = 65536;
  auto r = hk::launch::LaunchRequest::from(1, nullptr, &global, nullptr);
  hk::launch::Plan plan;
  ASSERT_EQ(hk::launch::planLaunch(r, dev, {0, 0, 0}, plan), HK_REASON_NONE);
  EXPECT_EQ(plan.pc.local_size[0], 4096u);  // PoCL's own choice
  ASSERT_EQ(hk::launch::planLaunch(r, dev, {0, 0, 0}, plan, 8192, 256), HK_REASON_NONE);
  EXPECT_EQ(plan.pc.local_size[0], 256u);
  EXPECT_EQ(plan.pc.num_groups[0], 256u);
  // An explicit local size is never changed (the caller sends it to the queue instead).
  const std::size_t local = 1024;
  r = hk::launch::LaunchRequest::from(1, nullptr, &global, &local);
  ASSERT_EQ(hk::launch::planLaunch(r, dev, {0, 0, 0}, plan, 8192, 256), HK_REASON_NONE);
  EXPECT_EQ(plan.pc.local_size[0], 1024u);
}


// ---- mergeGroups: fewer, larger groups for group-free kernels (docs/launch.md) ----------

hk::launch::LaunchRequest Request(std::uint32_t dim, std::array<std::size_t, 3> global,
                                  std::array<std::size_t, 3> local) {
  return hk::launch::LaunchRequest::from(dim, nullptr, global.data(), local.data());
}

TEST(MergeGroups, TakesTheLargestDivisorOfTheGroupCountThatFits) {
  auto r = Request(1, {1000000, 1, 1}, {64, 1, 1});  // 15625 = 5^6 groups
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
  EXPECT_EQ(r.local[0], 1600u);                     // k = 25
  r = Request(1, {1000000, 1, 1}, {64, 1, 1});
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 512, 4096, 1));
  EXPECT_EQ(r.local[0], 320u);                      // max_x: k = 5
  r = Request(1, {1000, 1, 1}, {8, 1, 1});
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
  EXPECT_EQ(r.local[0], 1000u);                     // all 125 groups in one
  r = Request(2, {256, 64, 1}, {16, 4, 1});         // 16 groups along x, 4 items per x
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
  EXPECT_EQ(r.local[0], 256u);
  EXPECT_EQ(r.local[1], 4u);
  r = Request(1, {65536, 1, 1}, {256, 1, 1});       // groups of 256 merge too
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
  EXPECT_EQ(r.local[0], 2048u);
}

TEST(MergeGroups, KeepsAtLeastMinGroups) {
  auto r = Request(1, {65536, 1, 1}, {256, 1, 1});  // 256 groups
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 16));
  EXPECT_EQ(r.local[0], 2048u);                     // 32 groups
  r = Request(1, {65536, 1, 1}, {256, 1, 1});
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 64));
  EXPECT_EQ(r.local[0], 1024u);                     // 64 groups
  r = Request(1, {65536, 1, 1}, {256, 1, 1});
  EXPECT_FALSE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 256));
  EXPECT_EQ(r.local[0], 256u);
  r = Request(1, {1000000, 1, 1}, {64, 1, 1});      // 15625 groups, at least 1000 left
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1000));
  EXPECT_EQ(r.local[0], 320u);                      // k = 5 (25 would leave 625)
  r = Request(2, {256, 64, 1}, {16, 4, 1});         // 16 x 16 groups
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 64));
  EXPECT_EQ(r.local[0], 64u);                       // 4 x 16 groups: y's count
}

TEST(MergeGroups, MergesLarge2dGroupsAlongY) {
  auto r = Request(2, {1024, 1024, 1}, {16, 16, 1});  // 256 work-items: rows kept
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
  EXPECT_EQ(r.local[0], 16u);
  EXPECT_EQ(r.local[1], 128u);                        // 64 groups along y: k = 8
  r = Request(2, {512, 512, 1}, {64, 4, 1});          // 8 x 128 groups, 16 kept
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 16));
  EXPECT_EQ(r.local[0], 64u);
  EXPECT_EQ(r.local[1], 32u);
  r = Request(2, {1024, 1024, 1}, {16, 16, 1});       // max_y: k = 4
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 64, 1));
  EXPECT_EQ(r.local[1], 64u);
  r = Request(3, {64, 64, 64}, {8, 8, 4});            // 3-D, 256 work-items
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
  EXPECT_EQ(r.local[0], 8u);
  EXPECT_EQ(r.local[1], 64u);
  EXPECT_EQ(r.local[2], 4u);
  r = Request(2, {1024, 1024, 1}, {16, 8, 1});        // 128: merged along x
  ASSERT_TRUE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
  EXPECT_EQ(r.local[0], 256u);
  EXPECT_EQ(r.local[1], 8u);
}

TEST(MergeGroups, LeavesFullGroupsPrimeCountsAndNoLocalSizeAlone) {
  auto r = Request(1, {1 << 20, 1, 1}, {2048, 1, 1});  // as large as merging makes them
  EXPECT_FALSE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
  EXPECT_EQ(r.local[0], 2048u);
  r = Request(1, {64 * 37, 1, 1}, {64, 1, 1});  // 37 groups: no divisor up to 32
  EXPECT_FALSE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
  EXPECT_EQ(r.local[0], 64u);
  const std::size_t global = 4096;
  r = hk::launch::LaunchRequest::from(1, nullptr, &global, nullptr);
  EXPECT_FALSE(hk::launch::mergeGroups(r, 2048, 4096, 4096, 1));
}

}  // namespace
