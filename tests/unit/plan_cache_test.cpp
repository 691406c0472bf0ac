// The launch path's plan cache: a lookup hits only for exactly the cached request, fills
// the launch's own plan, and never returns a plan mixed from two stores, even while
// another thread re-plans the kernel.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "launch/plan_cache.hpp"

namespace hk::launch {
namespace {

DeviceLimits cpu() { return DeviceLimits{{4096, 4096, 4096}, 4096, 8, 2}; }
constexpr std::array<std::uint64_t, 3> kNoReqd{0, 0, 0};

Plan planOf(const LaunchRequest &r) {
  Plan p;
  EXPECT_EQ(planLaunch(r, cpu(), kNoReqd, p, 256), HK_REASON_NONE);
  return p;
}

// The fields a lookup fills: everything but the printf fields (filled per thread).
void ExpectSamePlan(const Plan &got, const Plan &want) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(got.pc.num_groups[i], want.pc.num_groups[i]) << i;
    EXPECT_EQ(got.pc.global_offset[i], want.pc.global_offset[i]) << i;
    EXPECT_EQ(got.pc.local_size[i], want.pc.local_size[i]) << i;
  }
  EXPECT_EQ(got.pc.work_dim_and_failed, want.pc.work_dim_and_failed);
  EXPECT_EQ(got.pc.work_dim_96, want.pc.work_dim_96);
  EXPECT_EQ(got.total_groups, want.total_groups);
  EXPECT_EQ(got.total_items, want.total_items);
  EXPECT_EQ(got.team_sized, want.team_sized);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got.pad[i], want.pad[i]) << "pad " << i;
  EXPECT_EQ(got.stack_kib, want.stack_kib);
}

// Stores `want` in `c` for the request made of (`dim`, `offset`, `global`, `local`), then
// looks that request up: it must hit and fill exactly `want`. Call it inside
// ASSERT_NO_FATAL_FAILURE: after a miss there is no plan to check further.
void ExpectStoredPlanHits(PlanCache &c, const Plan &want, std::uint32_t dim,
                          const size_t *offset, const size_t *global, const size_t *local) {
  c.store(LaunchRequest::from(dim, offset, global, local), want);
  Plan got;
  ASSERT_TRUE(c.lookup(dim, offset, global, local, got));
  ExpectSamePlan(got, want);
}

TEST(PlanCache, EmptyCacheMisses) {
  PlanCache c;
  size_t g = 1;
  Plan p;
  EXPECT_FALSE(c.lookup(1, nullptr, &g, nullptr, p));
  EXPECT_FALSE(c.lookup(1, nullptr, &g, &g, p));
}

TEST(PlanCache, HitFillsTheStoredPlan) {
  size_t g[3] = {64, 6, 4}, l[3] = {16, 3, 2}, o[3] = {5, 6, 7};
  const LaunchRequest r = LaunchRequest::from(3, o, g, l);
  PlanCache c;
  ASSERT_NO_FATAL_FAILURE(ExpectStoredPlanHits(c, planOf(r), 3, o, g, l));
}

// Merged work-groups (docs/launch.md): the plan's first local size is larger than the
// request's. The request as asked must still hit (else every such launch would take the
// slow path), and another local size must not.
TEST(PlanCache, MergedGroupsHitForTheRequestedLocalSize) {
  size_t g[2] = {1024, 8}, l[2] = {64, 2};
  const LaunchRequest r = LaunchRequest::from(2, nullptr, g, l);
  LaunchRequest merged = r;
  merged.local[0] = 1024;
  PlanCache c;
  ASSERT_NO_FATAL_FAILURE(ExpectStoredPlanHits(c, planOf(merged), 2, nullptr, g, l));
  Plan got;
  size_t other[2] = {1024, 2};
  EXPECT_FALSE(c.lookup(2, nullptr, g, other, got)) << "the planned size is not the key";
  size_t y[2] = {64, 4};
  EXPECT_FALSE(c.lookup(2, nullptr, g, y, got));
}

TEST(PlanCache, TeamSizedFlagAndDefaultLocalSizeSurvive) {
  size_t g = 4096;
  const LaunchRequest r = LaunchRequest::from(1, nullptr, &g, nullptr);
  const Plan want = planOf(r);
  ASSERT_TRUE(want.team_sized);
  PlanCache c;
  ASSERT_NO_FATAL_FAILURE(ExpectStoredPlanHits(c, want, 1, nullptr, &g, nullptr));
}

// Native kernels' plans (rounded up to whole work-groups) carry how far the last group of
// each dimension reaches past the true ndrange: a hit must bring it back, or full groups
// and boundary groups are told apart wrongly.
TEST(PlanCache, NativePaddingSurvives) {
  size_t g[3] = {1000, 30, 5}, l[3] = {64, 4, 2};
  const LaunchRequest r = LaunchRequest::from(3, nullptr, g, l);
  Plan want;
  ASSERT_EQ(planLaunch(r, cpu(), kNoReqd, want, 256, UINT64_MAX, /*round_up=*/true),
            HK_REASON_NONE);
  want.stack_kib = 1234;  // set by the caller from the kernel's stack model
  ASSERT_EQ(want.pad[0], 24u);
  ASSERT_EQ(want.pad[1], 2u);
  ASSERT_EQ(want.pad[2], 1u);
  PlanCache c;
  ASSERT_NO_FATAL_FAILURE(ExpectStoredPlanHits(c, want, 3, nullptr, g, l));
}

TEST(PlanCache, AnyDifferenceInTheRequestMisses) {
  size_t g[3] = {64, 6, 4}, l[3] = {16, 3, 2}, o[3] = {5, 6, 7}, zero[3] = {0, 0, 0};
  PlanCache c;
  c.store(LaunchRequest::from(3, o, g, l), planOf(LaunchRequest::from(3, o, g, l)));
  Plan p;
  ASSERT_TRUE(c.lookup(3, o, g, l, p));
  EXPECT_FALSE(c.lookup(2, o, g, l, p)) << "dimension";
  EXPECT_FALSE(c.lookup(3, o, g, nullptr, p)) << "no local size";
  EXPECT_FALSE(c.lookup(3, nullptr, g, l, p)) << "no offset";
  EXPECT_FALSE(c.lookup(3, zero, g, l, p)) << "zero offset";
  for (int d = 0; d < 3; ++d) {
    size_t g2[3] = {g[0], g[1], g[2]}, l2[3] = {l[0], l[1], l[2]}, o2[3] = {o[0], o[1], o[2]};
    g2[d] *= 2;
    EXPECT_FALSE(c.lookup(3, o, g2, l, p)) << "global, dimension " << d;
    l2[d] = 1;
    EXPECT_FALSE(c.lookup(3, o, g, l2, p)) << "local, dimension " << d;
    o2[d] += 1;
    EXPECT_FALSE(c.lookup(3, o2, g, l, p)) << "offset, dimension " << d;
  }
  // A request without a local size does not hit a plan stored with one, even when PoCL
  // would have chosen the same local size.
  size_t g1 = 64, l1 = 64;
  PlanCache c1;
  c1.store(LaunchRequest::from(1, nullptr, &g1, &l1),
           planOf(LaunchRequest::from(1, nullptr, &g1, &l1)));
  EXPECT_FALSE(c1.lookup(1, nullptr, &g1, nullptr, p));
  EXPECT_TRUE(c1.lookup(1, nullptr, &g1, &l1, p));
}

TEST(PlanCache, NullOffsetEqualsZeroOffset) {
  size_t g = 64, l = 8, zero = 0;
  PlanCache c;
  c.store(LaunchRequest::from(1, nullptr, &g, &l), planOf(LaunchRequest::from(1, nullptr, &g, &l)));
  Plan p;
  EXPECT_TRUE(c.lookup(1, &zero, &g, &l, p));
}

// One thread re-plans the kernel between two requests over and over while others look
// both up: every hit must be exactly its own request's plan, never a mix of the two
// (the sequence count must reject a lookup that overlapped a store). The writer keeps
// going until both readers have had many hits, so the test never passes vacuously.
TEST(PlanCache, ConcurrentStoresNeverYieldAMixedPlan) {
  size_t ga[2] = {64, 8}, la[2] = {8, 2}, oa[2] = {1, 2};
  size_t gb[2] = {64, 8}, lb[2] = {32, 4}, ob[2] = {1000, 2000};
  const LaunchRequest ra = LaunchRequest::from(2, oa, ga, la);
  const LaunchRequest rb = LaunchRequest::from(2, ob, gb, lb);
  const Plan pa = planOf(ra), pb = planOf(rb);
  PlanCache c;
  c.store(ra, pa);
  constexpr long kHitsWanted = 2'000'000;
  std::atomic<bool> stop{false};
  std::atomic<long> hits[2] = {0, 0}, mixed{0};
  auto reader = [&](int id, const size_t *o, const size_t *g, const size_t *l, const Plan &want) {
    long bad = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      Plan got;
      if (!c.lookup(2, o, g, l, got)) continue;
      hits[id].fetch_add(1, std::memory_order_relaxed);
      if (got.pc.num_groups[0] != want.pc.num_groups[0] ||
          got.pc.num_groups[1] != want.pc.num_groups[1] ||
          got.pc.global_offset[0] != want.pc.global_offset[0] ||
          got.pc.global_offset[1] != want.pc.global_offset[1] ||
          got.pc.local_size[0] != want.pc.local_size[0] ||
          got.pc.local_size[1] != want.pc.local_size[1] || got.total_groups != want.total_groups)
        ++bad;
    }
    mixed += bad;
  };
  std::thread t1(reader, 0, oa, ga, la, std::cref(pa));
  std::thread t2(reader, 1, ob, gb, lb, std::cref(pb));
  // Bounded by a count, not a clock: a reader that never runs fails the hit check below.
  // The bound is far above what the wanted hits take (the loop ends when both have them):
  // how many stores a reader's hits need depends on the compiler and on the scheduler.
  // Between stores, a pause of a few hundred instructions: readers then both hit (in the
  // pause) and overlap stores (at its ends).
  auto pause = [] {
    for (int n = 0; n < 100; ++n) asm volatile("");
  };
  for (long i = 0; i < 200'000'000; ++i) {
    c.store(ra, pa);
    pause();
    c.store(rb, pb);
    pause();
    if ((i & 1023) == 0 && hits[0].load() >= kHitsWanted && hits[1].load() >= kHitsWanted) break;
  }
  stop = true;
  t1.join();
  t2.join();
  EXPECT_GE(hits[0].load(), kHitsWanted);
  EXPECT_GE(hits[1].load(), kHitsWanted);
  EXPECT_EQ(mixed.load(), 0) << "of " << hits[0].load() + hits[1].load() << " hits";
}

}  // namespace
}  // namespace hk::launch
