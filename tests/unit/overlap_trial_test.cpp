// OverlapTrial: whether long launches run in the background, by the caller's time from one
// launch to the next on each route. The launches here are simulated: each test advances a
// clock by what the caller would spend per launch on the route next() chose, as decide()
// would see it.
#include "launch/overlap_trial.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

namespace {

using hk::launch::OverlapTrial;
using Route = OverlapTrial::Route;

// A caller that spends `background_ns` per launch when its launches run in the
// background and `direct_ns` when they run before their calls return. A pause that the
// trial gives runs that many launches direct without asking it (decide()'s fast path).
struct Caller {
  std::uint64_t background_ns, direct_ns;
  std::uint64_t now = 1'000'000;
  std::uint64_t background = 0, direct = 0;
  // The cost of the i-th launch in the background, when set (else background_ns).
  std::function<std::uint64_t(std::uint64_t)> background_cost;
  // What the first direct launch after launches in the background waits for: the work
  // still pending there, which the background launches' caller did not wait for.
  std::uint64_t drain_ns = 0;
  bool pending = false;
  // The caller's own time before its i-th launch on either route, when set.
  std::function<std::uint64_t(std::uint64_t)> own_cost;
  std::uint64_t launched = 0;
  std::uint32_t pause = 0;
  void launch(OverlapTrial &t) {
    if (own_cost) now += own_cost(launched);
    ++launched;
    if (pause) {
      --pause;
      runDirect();
      return;
    }
    const OverlapTrial::Decision d = t.next(now);
    if (d.route == Route::Background) {
      now += background_cost ? background_cost(background) : background_ns;
      ++background;
      pending = true;
    } else {
      pause = d.pause;
      runDirect();
    }
  }
  void runDirect() {
    if (pending) now += drain_ns;
    pending = false;
    ++direct;
    now += direct_ns;
  }
  // Launches until the trial decides against the background (true), at most n.
  bool untilLost(OverlapTrial &t, std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      const bool paused = pause != 0;
      launch(t);
      if (!paused && pause) return true;
    }
    return false;
  }
  // Whether the trial's verdict holds for the next 1000 launches: none of them on the
  // other route.
  bool keepsBackground(OverlapTrial &t) {
    const std::uint64_t before = direct;
    launches(t, 1000);
    return direct == before;
  }
  bool keepsDirect(OverlapTrial &t) {
    const std::uint64_t before = background;
    launches(t, 1000);
    return background == before;
  }
  void launches(OverlapTrial &t, std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) launch(t);
  }
};

// A trial after its warm-up: the warm-up's launches, in the background, have been made.
struct WarmTrial : OverlapTrial {
  WarmTrial() {
    for (std::uint32_t i = 0; i < kWindow; ++i)
      EXPECT_EQ(next(0).route, Route::Background);
  }
};

// Launches enough for a trial of launches `per_launch_ns` apart: each route needs its
// kWindow intervals and the trial kTrialNs.
std::uint64_t TrialLaunches(std::uint64_t per_launch_ns) {
  return std::max<std::uint64_t>(4 * OverlapTrial::kWindow,
                                 OverlapTrial::kTrialNs / per_launch_ns + 2 * OverlapTrial::kChunk);
}

TEST(OverlapTrial, AFewLaunchesRunInTheBackground) {
  OverlapTrial t;
  Caller c{30'000, 10'000};  // the background loses, but no trial has begun
  c.launches(t, OverlapTrial::kWindow);
  EXPECT_EQ(c.background, OverlapTrial::kWindow);
  EXPECT_EQ(c.direct, 0u);
}

// The first launches in the background pay for what the background thread touches first
// (its stack, the kernels' code and data in its caches): they do not count.
TEST(OverlapTrial, TheWarmUpDoesNotCount) {
  OverlapTrial t;
  Caller c{10'000, 20'000};
  c.background_cost = [](std::uint64_t i) -> std::uint64_t {
    return i < OverlapTrial::kWindow ? 200'000 : 10'000;
  };
  c.launches(t, OverlapTrial::kWindow + TrialLaunches(15'000));
  EXPECT_GE(c.direct, OverlapTrial::kWindow);
  EXPECT_TRUE(c.keepsBackground(t));  // the background won
}

// The trial alternates chunks of launches between the routes, so that both see the same
// phases of the program.
TEST(OverlapTrial, TheTrialAlternatesChunks) {
  WarmTrial t;
  Caller c{10'000, 20'000};
  c.launches(t, OverlapTrial::kChunk);
  EXPECT_EQ(c.background, OverlapTrial::kChunk);
  c.launches(t, OverlapTrial::kChunk);
  EXPECT_EQ(c.direct, OverlapTrial::kChunk);
  c.launches(t, OverlapTrial::kChunk);
  EXPECT_EQ(c.background, 2 * OverlapTrial::kChunk);
}

// A trial lasts kTrialNs at least: a scheduler's time slice is milliseconds, and a
// shorter trial may see no contention at all.
TEST(OverlapTrial, ATrialLastsItsTime) {
  WarmTrial t;
  Caller c{10'000, 20'000};
  const std::uint64_t start = c.now;
  c.launches(t, 4 * OverlapTrial::kWindow);  // 3.8 ms: windows full, the trial goes on
  const std::uint64_t direct = c.direct;
  c.launches(t, 2 * OverlapTrial::kChunk);
  EXPECT_EQ(c.direct, direct + OverlapTrial::kChunk);
  while (c.now - start < OverlapTrial::kTrialNs) c.launch(t);
  c.launches(t, 2 * OverlapTrial::kChunk);
  // Decided for the background: every launch since in the background.
  const std::uint64_t background = c.background;
  c.launches(t, 1000);
  EXPECT_EQ(c.background, background + 1000);
}

TEST(OverlapTrial, TheBackgroundStaysWhereItIsFaster) {
  WarmTrial t;
  Caller c{10'000, 20'000};
  const std::uint64_t n = TrialLaunches(15'000);
  c.launches(t, n);
  const std::uint64_t direct = c.direct;
  EXPECT_GE(direct, OverlapTrial::kWindow);
  c.launches(t, OverlapTrial::kKeepLaunches - 2 * OverlapTrial::kChunk);
  EXPECT_EQ(c.direct, direct);  // kept in the background
}

// A trial of fast launches takes a thousand of them, half direct: the background is kept
// kKeepPerTrial times as long as its trial took, not just kKeepLaunches launches.
TEST(OverlapTrial, TheBackgroundIsKeptLongerThanItsTrial) {
  WarmTrial t;
  Caller c{10'000, 20'000};
  c.launches(t, TrialLaunches(15'000));
  const std::uint64_t direct = c.direct;
  c.launches(t, 4 * OverlapTrial::kKeepLaunches);  // 164 ms; the trial took 20
  EXPECT_EQ(c.direct, direct);
  c.launches(t, 40 * OverlapTrial::kKeepLaunches);
  EXPECT_GT(c.direct, direct);  // a new trial
}

TEST(OverlapTrial, WhereTheBackgroundIsSlowerLaunchesRunDirectAndLongerEachTime) {
  WarmTrial t;
  Caller c{30'000, 20'000};
  ASSERT_TRUE(c.untilLost(t, TrialLaunches(20'000)));
  const std::uint64_t background = c.background;
  // Lost: the next kKeepLaunches launches direct.
  c.launches(t, OverlapTrial::kKeepLaunches - OverlapTrial::kPauseChunk);
  EXPECT_EQ(c.background, background);
  // Then a new trial, lost too: twice as long.
  for (int i = 0; i < 1000 && c.background == background; ++i) c.launch(t);
  ASSERT_TRUE(c.untilLost(t, OverlapTrial::kKeepLaunches + TrialLaunches(20'000)));
  const std::uint64_t second = c.background;
  EXPECT_GT(second, background);
  c.launches(t, 2 * OverlapTrial::kKeepLaunches - OverlapTrial::kPauseChunk);
  EXPECT_EQ(c.background, second);
}

// A background kept to the end of its keep resets the length of the pause; one that loses
// before its end does not.
TEST(OverlapTrial, ABackgroundKeptToItsEndResetsTheLengthOfThePause) {
  WarmTrial t;
  Caller c{30'000, 20'000};
  c.launches(t, TrialLaunches(20'000) + OverlapTrial::kKeepLaunches);  // lost once
  c.background_ns = 10'000;  // the machine got quiet
  // Won, and kept to its end: kKeepPerTrial times the trial's 20 ms.
  c.launches(t, 2 * TrialLaunches(15'000) + 40 * OverlapTrial::kKeepLaunches);
  c.background_ns = 30'000;
  c.launches(t, 2 * TrialLaunches(20'000));  // lost again: a pause of kKeepLaunches
  const std::uint64_t background = c.background;
  c.launches(t, OverlapTrial::kKeepLaunches + 2 * OverlapTrial::kPauseChunk);
  EXPECT_GT(c.background, background);  // not twice as long
}

// A pause of the application between two launches (a garbage collection, a file read)
// says nothing about the route: one second in a background chunk does not make a faster
// background lose.
TEST(OverlapTrial, ALongPauseOfTheCallerCountsLittle) {
  WarmTrial t;
  Caller c{10'000, 30'000};
  c.launches(t, 10);
  c.now += 1'000'000'000;
  c.launches(t, TrialLaunches(20'000));
  EXPECT_TRUE(c.keepsBackground(t));
}

// A benchmark that times the background and something else in batches: each batch
// boundary is a long interval, on either route (1 ms every 20 launches; the background's
// mean is 60 us, against 70 direct). Its means decide, not the few long intervals in the
// background's chunks, neither in the trial nor while the background is kept.
TEST(OverlapTrial, AFewLongIntervalsDoNotDecide) {
  WarmTrial t;
  Caller c{10'000, 20'000};
  c.own_cost = [](std::uint64_t i) -> std::uint64_t { return i % 20 == 19 ? 1'000'000 : 0; };
  c.launches(t, TrialLaunches(20'000));
  EXPECT_TRUE(c.keepsBackground(t));
  c.launches(t, 2 * OverlapTrial::kKeepCheck);
  EXPECT_TRUE(c.keepsBackground(t));
}

// Beside a busy process the background thread shares a CPU, and a fifth of the caller's
// intervals are long (60 us against 10): the median says the background is faster than
// the direct launches' 15 us, the mean that it is not.
TEST(OverlapTrial, AnOftenLateBackgroundLoses) {
  WarmTrial t;
  Caller c{10'000, 15'000};
  c.background_cost = [](std::uint64_t i) -> std::uint64_t {
    return i % 5 == 4 ? 60'000 : 10'000;
  };
  c.launches(t, TrialLaunches(15'000));
  EXPECT_TRUE(c.keepsDirect(t));
}

// A long kernel launched far apart, the caller's own work between: its intervals count
// in full, and the background's overlap shows.
TEST(OverlapTrial, LongLaunchesFarApartKeepTheirOverlap) {
  WarmTrial t;
  Caller c{20'000'000, 30'000'000};  // a 10 ms kernel and 20 ms of the caller's work
  c.launches(t, 4 * OverlapTrial::kWindow + 10);
  const std::uint64_t direct = c.direct;
  c.launches(t, 100);
  EXPECT_EQ(c.direct, direct);
}

// A background that cannot keep up with its caller: the caller's launches return after
// 10 us, but each chunk of them leaves 640 us of work in the background, which the next
// direct launch waits for: 20 us a launch in all, against 15 direct. Counted for the
// direct launch that waits, the wait would make the background look faster (10 against
// 16.9 us); it is the background's.
TEST(OverlapTrial, TheWorkPendingInTheBackgroundCountsForIt) {
  WarmTrial t;
  Caller c{10'000, 15'000};
  c.drain_ns = OverlapTrial::kChunk * 10'000;
  c.launches(t, TrialLaunches(15'000));
  EXPECT_TRUE(c.keepsDirect(t));
}

// A background that keeps up leaves nothing to wait for: the interval after a chunk's end
// costs it nothing.
TEST(OverlapTrial, ABackgroundThatKeepsUpPaysNothingAtItsChunksEnd) {
  WarmTrial t;
  Caller c{14'000, 15'000};
  c.launches(t, TrialLaunches(15'000));
  EXPECT_TRUE(c.keepsBackground(t));
}

// Beside a busy process a background launch's caller gets a fair share of a CPU only in
// the long run: in the trial's short chunks the background thread, which has just
// slept, and the caller run first, and the background looks faster (10 us against 15
// direct); kept, it is slower (20 us, among them waits for the launches pending in the
// background, longer than the trial's cap), and loses at its next check.
TEST(OverlapTrial, ABackgroundSlowerWhenKeptLosesWhileKept) {
  WarmTrial t;
  Caller c{10'000, 15'000};
  c.launches(t, TrialLaunches(12'500));
  ASSERT_TRUE(c.keepsBackground(t));
  c.background_cost = [](std::uint64_t i) -> std::uint64_t {
    return i % 16 == 15 ? 170'000 : 10'000;  // the ring of 16 full: a wait for all
  };
  EXPECT_TRUE(c.untilLost(t, 2 * OverlapTrial::kKeepCheck));
}

// Intervals alike: the background stays, as it was before the trial.
TEST(OverlapTrial, ATieKeepsTheBackground) {
  WarmTrial t;
  Caller c{20'000, 20'000};
  c.launches(t, TrialLaunches(20'000));
  EXPECT_TRUE(c.keepsBackground(t));
}

}  // namespace
