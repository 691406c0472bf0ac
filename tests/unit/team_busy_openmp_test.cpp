// HOSTKERNEL_TEAM=auto in a process with OpenMP, when one of OpenMP's threads is kept from
// running (another process on its CPU): after two late joins in a row, jobs go to the own
// workers for a while, not to the caller alone (team/dispatch.cpp).
//
// The OpenMP runtime is a stand-in (support/stand_in_openmp.hpp) whose thread 1 returns 5 ms
// after the region's function, as a thread that lost its CPU would.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "support/stand_in_openmp.hpp"
#include "team/dispatch.hpp"
#include "team/team.hpp"
#include "unit/team_counting.hpp"

namespace {

std::atomic<int> g_on_own_workers{0};

TEST(BusyOpenMP, LateJoinsSendJobsToTheOwnWorkersNotToTheCallerAlone) {
  stand_in_openmp::late_join_ms = 5;
  ASSERT_STREQ(hk::team::activeTeamName(), "openmp");
  // Jobs whose joins come 5 ms after their groups. The first two are the team's
  // hand-over (team_choice.hpp: not judged); the next two are late in a row and make
  // OpenMP's team slow.
  for (int i = 0; i < 4; ++i) {
    Counting c(64);
    ASSERT_TRUE(hk::team::runJob(c.job(false)));
    EXPECT_EQ(c.wrong(), 0u);
  }
  ASSERT_EQ(stand_in_openmp::regions.load(), 4);
  // Now, for 50 ms, jobs run on the own workers: the team ran them (true), and no
  // OpenMP region was made. A worker of the own team runs a block of a static split of
  // two threads, unless it came too late for every one of ten jobs.
  g_on_own_workers = 0;
  for (int i = 0; i < 10; ++i) {
    Counting c(64);
    c.hook = [](Counting &, std::uint64_t) {
      if (hk::team::Team::onTeamThread()) g_on_own_workers.fetch_add(1);
    };
    ASSERT_TRUE(hk::team::runJob(c.job(false))) << "job " << i << " ran on the caller alone";
    EXPECT_EQ(c.wrong(), 0u);
  }
  EXPECT_EQ(stand_in_openmp::regions.load(), 4);
  if (hk::team::Team::instance().size() > 1) EXPECT_GT(g_on_own_workers.load(), 0);
}

}  // namespace
