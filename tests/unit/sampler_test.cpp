// The sampler's rule: always time a launch with no estimate, a changed group count or a
// slow last launch; otherwise one launch in kPeriod. Driven with chosen durations: no
// test here depends on how fast the machine is.
#include <gtest/gtest.h>

#include <cstdio>

#include "launch/sampler.hpp"

namespace hk::launch {
namespace {

constexpr std::uint64_t kFast = 1'000;
constexpr std::uint64_t kSlowNs = 50'000;  // a launch well past every threshold

int TimedOf(Sampler &s, std::uint64_t groups, int launches) {
  int timed = 0;
  for (int i = 0; i < launches; ++i) timed += s.shouldTime(groups);
  return timed;
}

TEST(Sampler, NoEstimateTimesEveryLaunch) {
  Sampler s(kFast);
  EXPECT_EQ(TimedOf(s, 1, 50), 50);
}

TEST(Sampler, FastLaunchesAreTimedOneInPeriod) {
  Sampler s(kFast);
  s.record(kFast - 1, kFast - 1, 4);
  EXPECT_EQ(TimedOf(s, 4, 64 * Sampler::kPeriod), 64);
}

TEST(Sampler, SlowLaunchesAreAllTimed) {
  Sampler s(kFast);
  s.record(kFast, kFast, 4);
  EXPECT_EQ(TimedOf(s, 4, 100), 100);
}

TEST(Sampler, ChangedGroupCountIsAlwaysTimed) {
  Sampler s(kFast);
  s.record(10, 10, 4);
  EXPECT_EQ(TimedOf(s, 5, 20), 20);
  EXPECT_LT(TimedOf(s, 4, 20), 20);
}

TEST(Sampler, SlowAfterFastTimesEveryLaunchAgain) {
  Sampler s(kFast);
  s.record(10, 10, 4);
  s.record(5 * kFast, 5 * kFast, 4);
  EXPECT_EQ(TimedOf(s, 4, 40), 40);
}

TEST(Sampler, TeamEstimates) {
  Sampler s(kFast);
  EXPECT_FALSE(s.slow());
  s.record(kSlowNs, Sampler::kTeamSerialNs, 8);
  EXPECT_TRUE(s.slow());
  EXPECT_EQ(s.lastNs(), kSlowNs);
  s.record(10, 0, 8);
  EXPECT_FALSE(s.slow());
  EXPECT_EQ(s.serialNs(), 1u) << "a measured 0 is still an estimate";
}

// One slow launch among fast ones (its thread lost the CPU) does not make the kernel slow;
// two in a row do.
TEST(Sampler, OneSlowLaunchAmongFastOnesIsNotSlow) {
  Sampler s(kFast);
  s.record(10, 10, 8);
  s.record(kSlowNs, Sampler::kTeamSerialNs, 8);
  EXPECT_FALSE(s.slow());
  EXPECT_EQ(s.lastNs(), kSlowNs) << "the last launch's own duration";
  s.record(kSlowNs, Sampler::kTeamSerialNs, 8);
  EXPECT_TRUE(s.slow());
  s.record(10, 10, 8);
  EXPECT_FALSE(s.slow());
}

TEST(Sampler, FastThresholdIsAtLeastOneMicrosecond) {
  EXPECT_GE(Sampler::fastNs(), Sampler::kMinFastNs);
  EXPECT_EQ(Sampler::fastNs(), Sampler::fastNs()) << "measured once per process";
  std::printf("fast threshold here: %llu ns\n", static_cast<unsigned long long>(Sampler::fastNs()));
}

}  // namespace
}  // namespace hk::launch
