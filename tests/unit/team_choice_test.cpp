// auto's choice between OpenMP's threads and the own workers (team/team_choice.hpp),
// driven with chosen cycle times on a simulated clock: no test here depends on how fast
// the machine is.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "team/team_choice.hpp"

namespace hk::team {
namespace {

using Pick = TeamChoice::Pick;

struct Loop {
  std::uint64_t launches = 0, own = 0, openmp = 0;
  std::uint64_t now = 1;  // the simulated clock
};

// `launches` launches, each followed by the cycle `cost` gives for the team it ran on.
void drive(TeamChoice &c, Loop &r, std::uint64_t launches,
           const std::function<std::uint64_t(Pick)> &cost) {
  for (std::uint64_t i = 0; i < launches; ++i) {
    const Pick p = c.pick(r.now).team;
    (p == Pick::Own ? r.own : r.openmp) += 1;
    r.now += cost(p);
    ++r.launches;
  }
}

// A loop of launches and nothing else: the own workers' dispatch is cheaper.
std::uint64_t launchesOnly(Pick p) { return p == Pick::Own ? 930 : 1290; }
// A loop of OpenMP work and launches: the own workers fight OpenMP's for the CPUs.
std::uint64_t betweenOpenMPLoops(Pick p) { return p == Pick::Own ? 125'000 : 7'000; }

TEST(TeamChoice, StartsOnOpenMPsThreads) {
  TeamChoice c;
  EXPECT_EQ(c.pick(1).team, Pick::OpenMP);
  EXPECT_EQ(c.settled(), Pick::OpenMP);
}

TEST(TeamChoice, SwitchesToTheOwnWorkersWhenTheyMakeTheLoopFaster) {
  TeamChoice c;
  Loop r;
  drive(c, r, 100'000, launchesOnly);  // 93 ms of the loop
  EXPECT_EQ(c.settled(), Pick::Own);
  EXPECT_EQ(c.switches(), 1u);
  // The first trial comes after one measured window: the loop ran on the own workers
  // from its 21st launch on, except in the trials of OpenMP's threads that came after.
  EXPECT_LE(r.openmp, 200u) << r.openmp << " of " << r.launches << " on OpenMP's threads";
  EXPECT_GE(c.trials(), 2u);  // OpenMP's threads were tried again, and lost
}

TEST(TeamChoice, StaysOnOpenMPsThreadsBetweenOpenMPLoops) {
  TeamChoice c;
  Loop r;
  drive(c, r, 1'000'000, betweenOpenMPLoops);  // 7 s of the loop
  EXPECT_EQ(c.settled(), Pick::OpenMP);
  EXPECT_EQ(c.switches(), 0u);
  // Each lost trial waits twice as long for the next, up to kLongestProbeNs; a trial of
  // the own workers ends after kHurtsInRow cycles that cost many times OpenMP's.
  const std::uint64_t per_trial = TeamChoice::kSkip + TeamChoice::kHurtsInRow;
  EXPECT_LE(c.trials(), 12u);
  EXPECT_LE(r.own, c.trials() * per_trial);
  EXPECT_GE(c.trials(), 3u);  // still tried, as the application may change
}

TEST(TeamChoice, LongCyclesNeverTryTheOwnWorkers) {
  TeamChoice c;
  Loop r;
  // 130 µs launches (axpy on 1e6 floats): the own workers' cheaper dispatch is far less
  // than the eighth a trial must win by, so no trial is made.
  drive(c, r, 100'000, [](Pick) -> std::uint64_t { return 130'000; });
  EXPECT_EQ(c.trials(), 0u);
  EXPECT_EQ(r.own, 0u);
}

TEST(TeamChoice, TheFirstJobsAfterASwitchAreHandingOver) {
  TeamChoice c;
  Loop r;
  std::uint64_t handing_over = 0, after_switch = 0;
  Pick last = Pick::OpenMP;
  for (int i = 0; i < 100'000; ++i) {
    const TeamChoice::Picked p = c.pick(r.now);
    if (p.team != last) after_switch = TeamChoice::kSkip;
    if (after_switch) {
      handing_over += p.handing_over;
      --after_switch;
    }
    last = p.team;
    r.now += launchesOnly(p.team);
  }
  ASSERT_GE(c.trials(), 2u);
  EXPECT_GE(handing_over, c.trials() * TeamChoice::kSkip);
}

TEST(TeamChoice, AGainWithinAnEighthIsNoSwitch) {
  TeamChoice c;
  Loop r;
  drive(c, r, 200'000, [](Pick p) -> std::uint64_t { return p == Pick::Own ? 900 : 1000; });
  EXPECT_EQ(c.switches(), 0u);
  EXPECT_EQ(c.settled(), Pick::OpenMP);
}

TEST(TeamChoice, OneSlowCycleAtATimeDoesNotKeepTheOwnWorkersOut) {
  TeamChoice c;
  Loop r;
  std::uint64_t n = 0;
  // The own workers are faster, but every 20th cycle lost a time slice to another process.
  drive(c, r, 100'000, [&](Pick p) -> std::uint64_t {
    if (++n % 20 == 0) return 3'000'000;
    return launchesOnly(p);
  });
  EXPECT_EQ(c.settled(), Pick::Own);
  EXPECT_EQ(c.switches(), 1u);
}

TEST(TeamChoice, GoesBackToOpenMPsThreadsAtOnceWhenTheApplicationStartsOpenMPWork) {
  TeamChoice c;
  Loop r;
  drive(c, r, 10'000, launchesOnly);
  ASSERT_EQ(c.settled(), Pick::Own);
  const std::uint64_t switched = c.switches();
  const std::uint64_t own_before = r.own;
  drive(c, r, 100, betweenOpenMPLoops);
  EXPECT_EQ(c.settled(), Pick::OpenMP);
  EXPECT_EQ(c.switches(), switched + 1);
  // After kHurtsInRow such steps, not after a window or the probe interval that had
  // grown meanwhile.
  EXPECT_LE(r.own - own_before, TeamChoice::kHurtsInRow);
}

TEST(TeamChoice, ThreadsPickingAtOnceGetATeam) {
  TeamChoice c;
  std::atomic<std::uint64_t> clock{1};
  std::vector<std::thread> threads;
  std::atomic<std::uint64_t> picks{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20'000; ++i) {
        const Pick p = c.pick(clock.fetch_add(1000)).team;
        picks.fetch_add(p == Pick::Own || p == Pick::OpenMP);
      }
    });
  for (auto &t : threads) t.join();
  EXPECT_EQ(picks.load(), 80'000u);
}

}  // namespace
}  // namespace hk::team
