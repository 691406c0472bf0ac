// Job::work_ns: a team given it adds the time its threads spent running groups, for the
// own team and for ForeignTeam (a pool, and parallel-fors that run fewer tasks, or tasks
// out of range, so that the caller's and stray tasks' groups are counted too). Every range
// times itself; each team thread's timing encloses its ranges, so the team's sum can be
// neither zero nor less than the ranges' own sum, whatever the machine's speed.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "base/clock.hpp"
#include "integration/thread_pool.hpp"
#include "team/foreign_team.hpp"
#include "team/team.hpp"
#include "unit/team_parallel_fors.hpp"

namespace {

using hk::team::Job;
using hk::team::ParallelFor;
using hk::team::Team;

struct TimedRanges {
  std::atomic<std::uint64_t> inner_ns{0};    // what the ranges measured themselves
  std::atomic<std::uint64_t> reported_ns{0}; // what the team adds (Job::work_ns)
  std::atomic<std::uint64_t> groups{0};
  static void run(void *ctx, std::uint64_t b, std::uint64_t e, unsigned) {
    auto &t = *static_cast<TimedRanges *>(ctx);
    const std::uint64_t t0 = hk::nowNs();
    volatile std::uint64_t sink = 0;
    for (std::uint64_t g = b; g < e; ++g)
      for (int i = 0; i < 2000; ++i) sink = sink + g;
    t.groups.fetch_add(e - b);
    t.inner_ns.fetch_add(hk::nowNs() - t0);
  }
  Job job(std::uint64_t total, bool steal, bool timed) {
    Job j{run, this, total, steal};
    j.work_ns = timed ? &reported_ns : nullptr;
    return j;
  }
};

template <class TeamT>
void expectWorkTimeReported(TeamT &team, const std::string &what) {
  for (bool steal : {false, true})
    for (std::uint64_t total : {1u, 2u, 7u, 64u, 1000u}) {
      SCOPED_TRACE(what + " steal=" + std::to_string(steal) + " total=" + std::to_string(total));
      TimedRanges t;
      ASSERT_TRUE(team.run(t.job(total, steal, true)));
      EXPECT_EQ(t.groups.load(), total);
      EXPECT_GT(t.reported_ns.load(), 0u);
      EXPECT_GE(t.reported_ns.load(), t.inner_ns.load());
      TimedRanges untimed;  // without work_ns nothing is written, and every group runs
      ASSERT_TRUE(team.run(untimed.job(total, steal, false)));
      EXPECT_EQ(untimed.groups.load(), total);
      EXPECT_EQ(untimed.reported_ns.load(), 0u);
    }
}

TEST(TeamWorkTime, OwnTeamAddsItsThreadsTimeInGroups) {
  expectWorkTimeReported(Team::instance(), "instance");
  hk::team::TeamOptions o;
  o.threads = 3;
  o.spin_ns = 2000;
  Team three(o);
  expectWorkTimeReported(three, "three");
}

TEST(TeamWorkTime, ForeignTeamAddsItsTasksTimeInGroups) {
  for (unsigned threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    HandedTeam team(poolFor(pool));
    expectWorkTimeReported(team, "pool of " + std::to_string(threads));
  }
}

TEST(TeamWorkTime, ForeignTeamCountsTheCallersAndStrayTasksGroups) {
  for (auto fn : {onlyTaskZero, noTask, outOfRange}) {
    HandedTeam team(ParallelFor{fn, nullptr, nullptr, 4});
    expectWorkTimeReported(team, "odd parallel-for");
  }
}

}  // namespace
