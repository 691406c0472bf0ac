// HOSTKERNEL_TEAM=auto in a process with OpenMP, when one of OpenMP's threads is kept from
// running (another process on its CPU): after two late joins in a row, jobs go to the own
// workers for a while, not to the caller alone (team/dispatch.cpp).
//
// The OpenMP runtime here is a stand-in defined by this program (dlsym(RTLD_DEFAULT) finds
// it, as it would find libgomp): GOMP_parallel runs the region on n threads, and thread 1
// returns 5 ms after the region's function, as a thread that lost its CPU would.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "team/dispatch.hpp"
#include "team/team.hpp"
#include "unit/team_counting.hpp"

namespace {
thread_local int t_thread_num = 0;
thread_local int t_level = 0;
std::atomic<int> g_regions{0};
}  // namespace

extern "C" {
__attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void *), void *data,
                                                          unsigned n, unsigned) {
  g_regions.fetch_add(1);
  if (n == 0) n = 2;
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < n; ++i)
    threads.emplace_back([fn, data, i] {
      t_thread_num = static_cast<int>(i);
      t_level = 1;
      fn(data);
      if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a late join
    });
  t_level = 1;
  fn(data);
  t_level = 0;
  for (auto &t : threads) t.join();
}
__attribute__((visibility("default"))) int omp_get_thread_num() { return t_thread_num; }
__attribute__((visibility("default"))) int omp_get_level() { return t_level; }
__attribute__((visibility("default"))) int omp_get_max_threads() { return 2; }
}

namespace {

std::atomic<int> g_on_own_workers{0};

TEST(BusyOpenMP, LateJoinsSendJobsToTheOwnWorkersNotToTheCallerAlone) {
  ASSERT_STREQ(hk::team::activeTeamName(), "openmp");
  // Jobs whose joins come 5 ms after their groups. The first two are the team's
  // hand-over (team_choice.hpp: not judged); the next two are late in a row and make
  // OpenMP's team slow.
  for (int i = 0; i < 4; ++i) {
    Counting c(64);
    ASSERT_TRUE(hk::team::runJob(c.job(false)));
    EXPECT_EQ(c.wrong(), 0u);
  }
  ASSERT_EQ(g_regions.load(), 4);
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
  EXPECT_EQ(g_regions.load(), 4);
  if (hk::team::Team::instance().size() > 1) EXPECT_GT(g_on_own_workers.load(), 0);
}

}  // namespace
