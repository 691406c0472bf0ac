// OverlapTrial: whether a kernel's long launches run in the background, by the caller's
// time from one launch to the next on each route. The launches here are simulated: each
// test advances a clock by what the caller would spend per launch on the route next()
// chose, as decide() would see it.
#include "launch/overlap_trial.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using hk::launch::OverlapTrial;
using Route = OverlapTrial::Route;

// A caller that spends `background_ns` per launch when its launches run in the
// background and `direct_ns` when they run before their calls return. A pause that the
// trial asks for runs that many launches direct without asking it (decide()'s fast path).
struct Caller {
  std::uint64_t background_ns, direct_ns;
  std::uint64_t now = 1'000'000;
  unsigned background = 0, direct = 0;
  std::uint32_t pause = 0;
  std::uint32_t last_pause = 0;
  void launch(OverlapTrial &t) {
    if (pause) {
      --pause;
      ++direct;
      now += direct_ns;
      return;
    }
    const Route r = t.next(now);
    if (const std::uint32_t p = t.takePause()) pause = last_pause = p;
    if (r == Route::Background) {
      ++background;
      now += background_ns;
    } else {
      ++direct;
      now += direct_ns;
    }
  }
};

// A trial after its warm-up: the warm-up's launches, in the background, have been made.
struct WarmTrial : OverlapTrial {
  WarmTrial() {
    for (std::uint32_t i = 0; i < kWindow; ++i) EXPECT_EQ(next(0), Route::Background);
  }
};

TEST(OverlapTrial, AKernelLaunchedAFewTimesRunsInTheBackground) {
  OverlapTrial t;
  Caller c{30'000, 10'000};  // the background loses, but the trial has not ended
  for (std::uint32_t i = 0; i < 2 * OverlapTrial::kWindow; ++i) c.launch(t);
  EXPECT_EQ(c.background, 2 * OverlapTrial::kWindow);
  EXPECT_EQ(c.direct, 0u);
}

// The first launches in the background pay for what the background thread touches first
// (its stack, the kernel's code and data in its caches): they do not count.
TEST(OverlapTrial, TheWarmUpDoesNotCount) {
  OverlapTrial t;
  Caller c{200'000, 20'000};
  for (std::uint32_t i = 0; i < OverlapTrial::kWindow; ++i) c.launch(t);
  c.background_ns = 10'000;
  for (std::uint32_t i = 0; i < 2 * OverlapTrial::kWindow; ++i) c.launch(t);
  EXPECT_EQ(c.last_pause, 0u);
  EXPECT_EQ(c.direct, OverlapTrial::kWindow);
  EXPECT_EQ(c.background, 2 * OverlapTrial::kWindow);
}

TEST(OverlapTrial, TheBackgroundStaysWhereItIsFaster) {
  WarmTrial t;
  Caller c{10'000, 20'000};
  const std::uint32_t n = 2 * OverlapTrial::kWindow + OverlapTrial::kKeepLaunches;
  for (std::uint32_t i = 0; i < n; ++i) c.launch(t);
  EXPECT_EQ(c.direct, OverlapTrial::kWindow);  // the trial's window only
  EXPECT_EQ(c.background, n - OverlapTrial::kWindow);
  EXPECT_EQ(c.last_pause, 0u);
}

TEST(OverlapTrial, WhereTheBackgroundIsSlowerLaunchesRunDirectAndLongerEachTime) {
  WarmTrial t;
  Caller c{30'000, 20'000};
  for (std::uint32_t i = 0; i < 2 * OverlapTrial::kWindow; ++i) c.launch(t);
  EXPECT_EQ(c.last_pause, OverlapTrial::kKeepLaunches);
  // The pause, then a second trial that the background loses too: twice the pause.
  for (std::uint32_t i = 0; i < OverlapTrial::kKeepLaunches + 2 * OverlapTrial::kWindow; ++i)
    c.launch(t);
  EXPECT_EQ(c.last_pause, 2 * OverlapTrial::kKeepLaunches);
  EXPECT_EQ(c.background, 2 * OverlapTrial::kWindow);
  // Capped: kKeepLaunches << kLongestKeepShift.
  for (int trial = 0; trial < 8; ++trial)
    for (std::uint32_t i = 0; i < c.last_pause + 2 * OverlapTrial::kWindow; ++i) c.launch(t);
  EXPECT_EQ(c.last_pause, OverlapTrial::kKeepLaunches << OverlapTrial::kLongestKeepShift);
}

TEST(OverlapTrial, ABackgroundWinResetsTheLengthOfThePause) {
  WarmTrial t;
  Caller c{30'000, 20'000};
  for (std::uint32_t i = 0; i < 2 * OverlapTrial::kWindow + OverlapTrial::kKeepLaunches; ++i)
    c.launch(t);
  ASSERT_EQ(c.last_pause, OverlapTrial::kKeepLaunches);
  c.background_ns = 10'000;  // the machine got quiet
  for (std::uint32_t i = 0; i < 2 * OverlapTrial::kWindow + OverlapTrial::kKeepLaunches; ++i)
    c.launch(t);
  const unsigned background = c.background;
  c.background_ns = 30'000;
  for (std::uint32_t i = 0; i < 2 * OverlapTrial::kWindow; ++i) c.launch(t);
  EXPECT_GT(c.background, background);
  EXPECT_EQ(c.last_pause, OverlapTrial::kKeepLaunches);  // not twice
}

// A pause of the application between two launches (a garbage collection, a file read)
// says nothing about the route: one second in the background window does not make a
// faster background lose.
TEST(OverlapTrial, ALongPauseOfTheCallerCountsLittle) {
  WarmTrial t;
  Caller c{10'000, 30'000};
  for (std::uint32_t i = 0; i < 10; ++i) c.launch(t);
  c.now += 1'000'000'000;
  for (std::uint32_t i = 10; i < 2 * OverlapTrial::kWindow + 10; ++i) c.launch(t);
  EXPECT_EQ(c.last_pause, 0u);
  EXPECT_EQ(c.direct, OverlapTrial::kWindow);
}

// A benchmark that times the background and something else in batches: each batch
// boundary is a long interval. Three of them in the background window (the mean would be
// 56 us, against 20 direct) do not decide against a background of 10 us.
TEST(OverlapTrial, AFewLongIntervalsDoNotDecide) {
  WarmTrial t;
  Caller c{10'000, 20'000};
  for (std::uint32_t i = 0; i < OverlapTrial::kWindow; ++i) {
    c.launch(t);
    if (i % 20 == 19) c.now += 1'000'000;
  }
  for (std::uint32_t i = 0; i < OverlapTrial::kWindow + 10; ++i) c.launch(t);
  EXPECT_EQ(c.last_pause, 0u);
  EXPECT_EQ(c.direct, OverlapTrial::kWindow);
}

// Beside a busy process the background thread shares a CPU, and a fifth of the caller's
// intervals are long (60 us against 10): the median says the background is faster than
// the direct launches' 15 us, the mean that it is not.
TEST(OverlapTrial, AnOftenLateBackgroundLoses) {
  WarmTrial t;
  std::uint64_t now = 1'000'000;
  std::uint32_t direct = 0, pause = 0;
  for (std::uint32_t i = 0; i < 2 * OverlapTrial::kWindow; ++i) {
    const Route r = t.next(now);
    if (const std::uint32_t p = t.takePause()) pause = p;
    if (r == Route::Direct) {
      ++direct;
      now += 15'000;
    } else {
      now += i % 5 == 4 ? 60'000 : 10'000;
    }
  }
  EXPECT_EQ(direct, OverlapTrial::kWindow);
  EXPECT_EQ(pause, OverlapTrial::kKeepLaunches);
}

// A long kernel launched far apart, the caller's own work between: its intervals count
// in full, and the background's overlap shows.
TEST(OverlapTrial, LongLaunchesFarApartKeepTheirOverlap) {
  WarmTrial t;
  Caller c{20'000'000, 30'000'000};  // a 10 ms kernel and 20 ms of the caller's work
  for (std::uint32_t i = 0; i < 2 * OverlapTrial::kWindow + 10; ++i) c.launch(t);
  EXPECT_EQ(c.last_pause, 0u);
  EXPECT_EQ(c.background, OverlapTrial::kWindow + 10);
}

// Intervals alike: the background stays, as it was before the trial.
TEST(OverlapTrial, ATieKeepsTheBackground) {
  WarmTrial t;
  Caller c{6'000'000, 6'000'000};
  for (std::uint32_t i = 0; i < 2 * OverlapTrial::kWindow + 10; ++i) c.launch(t);
  EXPECT_EQ(c.last_pause, 0u);
}

}  // namespace
