// TeamGain: whether a kernel's team-sized launches run on the team or on the calling
// thread, by measurement. The launches here are simulated: each test feeds note() the
// times a launch of either way would take and runs the way team() chooses.
#include "launch/team_gain.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using hk::launch::TeamGain;

constexpr std::uint64_t kGroups = 1024;

// A kernel whose launch takes team_ns on the team (team_ns * threads of thread time) and
// inline_ns on the calling thread. Returns how many of `launches` ran inline.
struct Simulated {
  std::uint64_t team_ns, inline_ns, threads = 2;
  unsigned inline_runs = 0, team_runs = 0;
  void launch(TeamGain &g) {
    if (g.team()) {
      ++team_runs;
      g.note(true, team_ns, team_ns * threads, kGroups);
    } else {
      ++inline_runs;
      g.note(false, inline_ns, inline_ns, kGroups);
    }
  }
};

// Atomics on shared words (a histogram): 20 ms on two threads, 3.5 ms on one. The first
// inline launch is a probe; it wins, and the kernel stays on the calling thread.
TEST(TeamGain, AKernelFasterOnOneThreadMovesToTheCallingThread) {
  TeamGain g;
  Simulated k{20'000'000, 3'500'000};
  for (int i = 0; i < 40; ++i) k.launch(g);
  EXPECT_TRUE(g.prefersInline());
  EXPECT_EQ(g.switches(), 1u);
  // The team ran until the first probe, and then only as a rare probe of its own.
  EXPECT_LE(k.team_runs, TeamGain::kBudget + 3);
  EXPECT_GE(k.inline_runs, 30u);
}

// A kernel the team runs twice as fast: probes lose, come ever more rarely, and the
// team stays.
TEST(TeamGain, AKernelFasterOnTheTeamStaysThereAndProbesGetRarer) {
  TeamGain g;
  Simulated k{1'000'000, 2'000'000};
  for (int i = 0; i < 2000; ++i) k.launch(g);
  EXPECT_FALSE(g.prefersInline());
  EXPECT_EQ(g.switches(), 0u);
  // Budgets 4, 8, 16, ..., 1024 launches between probes: at most 9 probes in 2000.
  EXPECT_GE(k.inline_runs, 1u);
  EXPECT_LE(k.inline_runs, 9u);
}

// The first probe waits until the team has run kBudget times what the probe could cost
// over it: the team's thread time minus its wall time, per probe. With 64 threads a
// probe may cost 63 launches, so the first comes after kBudget * 63 of them.
TEST(TeamGain, TheFirstProbeWaitsForItsBudgetOfTime) {
  TeamGain g;
  Simulated k{1'000'000, 64'000'000, 64};
  unsigned first_probe = 0;
  for (unsigned i = 1; i <= 1000 && first_probe == 0; ++i) {
    if (!g.team()) first_probe = i;
    k.launch(g);
  }
  EXPECT_GE(first_probe, TeamGain::kBudget * 63u);
  EXPECT_LE(first_probe, TeamGain::kBudget * 63u + 2);
}

// A launch of two groups (sasmodels' cylinder model: two of 17 ms) cannot be split: its
// probe of the calling thread runs it whole, at twice its time on two threads, so it
// comes kWholeProbeWait times later than a split one would.
TEST(TeamGain, AWholeProbeOfASmallLaunchWaitsLonger) {
  TeamGain g;
  unsigned first_probe = 0;
  for (unsigned i = 1; i <= 1000 && first_probe == 0; ++i) {
    if (!g.team()) {
      first_probe = i;
      g.note(false, 34'000'000, 34'000'000, 2);
    } else {
      g.note(true, 17'000'000, 34'000'000, 2);
    }
  }
  EXPECT_GE(first_probe, TeamGain::kBudget * TeamGain::kWholeProbeWait);
  EXPECT_LE(first_probe, TeamGain::kBudget * TeamGain::kWholeProbeWait + 2);
}

// Beside a busy process one team launch in a few waits for a worker: the probe is
// judged against the team's best launch since the last probe, not its last one.
TEST(TeamGain, OneLateTeamLaunchDoesNotLetAProbeWin) {
  TeamGain g;
  unsigned inline_runs = 0;
  for (int i = 0; i < 200; ++i) {
    const bool late = i % 4 == 3;  // every fourth team launch takes 3x as long
    if (g.team()) {
      g.note(true, late ? 3'000'000 : 1'000'000, 2'000'000, kGroups);
    } else {
      ++inline_runs;
      g.note(false, 1'800'000, 1'800'000, kGroups);
    }
  }
  EXPECT_FALSE(g.prefersInline());
  EXPECT_EQ(g.switches(), 0u);
  EXPECT_GE(inline_runs, 1u);
}

// When the machine changes (the team now pays), a probe of the team wins and the kernel
// goes back to it.
TEST(TeamGain, AKernelOnTheCallingThreadGoesBackToTheTeamWhenItPays) {
  TeamGain g;
  Simulated k{20'000'000, 3'500'000};
  for (int i = 0; i < 40; ++i) k.launch(g);
  ASSERT_TRUE(g.prefersInline());
  k.team_ns = 1'000'000;  // the team is now 3.5 times faster
  for (int i = 0; i < 200; ++i) k.launch(g);
  EXPECT_FALSE(g.prefersInline());
  EXPECT_EQ(g.switches(), 2u);
}

// A launch the team refused (another thread had it) runs inline without being a probe:
// it is not judged, and the team stays preferred.
TEST(TeamGain, AnInlineLaunchThatIsNoProbeChangesNothing) {
  TeamGain g;
  g.note(true, 1'000'000, 2'000'000, kGroups);
  ASSERT_TRUE(g.team());
  g.note(false, 10, 10, kGroups);  // absurdly fast, but no probe was due
  EXPECT_FALSE(g.prefersInline());
  EXPECT_TRUE(g.team());
}

}  // namespace

namespace {

// A probe of the calling thread on a launch of at least kSplitMinGroups groups runs every
// kSplitShare-th group there (launch::runSplit) and is noted for those groups alone; a
// smaller launch's probe is a whole launch, and nothing is split while no probe is due.
TEST(TeamGain, AProbeOfTheCallingThreadOnALargeLaunchIsSplit) {
  TeamGain g;
  EXPECT_FALSE(g.splitProbeDue(kGroups));  // the team, no probe due
  unsigned launches = 0;
  while (g.team() && launches < 100) {
    ++launches;
    g.note(true, 20'000'000, 40'000'000, kGroups);
  }
  ASSERT_FALSE(g.team()) << "no probe came";
  EXPECT_TRUE(g.splitProbeDue(kGroups));
  EXPECT_FALSE(g.splitProbeDue(TeamGain::kSplitMinGroups - 1));
  // The sampled groups on one thread cost 3.5 ms per 1024 (a histogram's atomics): the
  // probe wins against the team's 20 ms, as a whole one would.
  const std::uint64_t sampled = kGroups / TeamGain::kSplitShare;
  g.note(false, 3'500'000 / TeamGain::kSplitShare, 3'500'000 / TeamGain::kSplitShare, sampled);
  EXPECT_TRUE(g.prefersInline());
  EXPECT_FALSE(g.splitProbeDue(kGroups));  // the calling thread now, no probe due
}

}  // namespace
