// When a background launch that its caller found not started counts as late
// (queue::startedLate, docs/background.md): late launches pause a kernel's background
// launches, so wake-up latency must not count, and a slow kernel must not hide a start
// that never came.
#include <gtest/gtest.h>

#include "queue/background.hpp"

namespace {

using hk::queue::startedLate;

TEST(BackgroundLate, ARunnableThreadThatDidNotStartWithin50usIsLate) {
  EXPECT_TRUE(startedLate(60'000, false, 10'000));
  EXPECT_FALSE(startedLate(40'000, false, 10'000));
}

TEST(BackgroundLate, ALongKernelGetsTwiceItsDuration) {
  EXPECT_FALSE(startedLate(150'000, false, 80'000));
  EXPECT_TRUE(startedLate(170'000, false, 80'000));
}

// Waking a parked thread on an idle virtual CPU can take hundreds of µs: no sign of
// another process. A millisecond is.
TEST(BackgroundLate, AThreadTheHandOverWokeGetsAMillisecond) {
  EXPECT_FALSE(startedLate(300'000, true, 10'000));
  EXPECT_FALSE(startedLate(900'000, true, 10'000));
  EXPECT_TRUE(startedLate(1'500'000, true, 10'000));
}

}  // namespace
