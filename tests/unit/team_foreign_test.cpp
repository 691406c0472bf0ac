// ForeignTeam: jobs on the application's threads (a parallel-for it hands over). Every job
// counts executions per group atomically, so a split that loses or repeats a group fails,
// under the static split and the stealing one, with pools of several sizes and with
// parallel-fors that run fewer tasks than asked.
#include "team/foreign_team.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "integration/thread_pool.hpp"
#include "team/dispatch.hpp"
#include "unit/team_counting.hpp"
#include "unit/team_parallel_fors.hpp"

namespace {

using hk::team::ForeignTeam;
using hk::team::ParallelFor;

TEST(ForeignTeam, EveryGroupRunsExactlyOnceStaticAndStealing) {
  for (unsigned threads : {1u, 2u, 3u, 4u}) {
    ThreadPool pool(threads);
    HandedTeam team(poolFor(pool));
    expectEveryGroupOnce(team, "threads=" + std::to_string(threads));
  }
}

// Parallel-fors that break the "every task" expectation (team_parallel_fors.hpp): the
// rescue rule covers every group anyway.
TEST(ForeignTeam, ParallelForRunningFewerTasksStillCoversEveryGroup) {
  for (auto fn : {onlyTaskZero, noTask, inTurn, outOfRange}) {
    HandedTeam team(ParallelFor{fn, nullptr, nullptr, 4});
    for (bool steal : {false, true}) {
      Counting c(1001);
      ASSERT_TRUE(team.run(c.job(steal)));
      EXPECT_EQ(c.wrong(), 0u) << "steal=" << steal;
    }
  }
}

// The pool's parallel-for with task 1 delayed: its thread sleeps `before_ms` before the
// task (a late start) and `after_ms` after it (a late join). `forTeam()` is that
// parallel-for, one task per thread of the pool.
struct Delayed {
  ThreadPool *pool;
  int before_ms, after_ms;
  struct Call {
    const Delayed *d;
    void (*task)(void *, unsigned);
    void *ctx;
  };
  static void parallelFor(void *user, unsigned n, void (*task)(void *, unsigned), void *ctx) {
    const auto *d = static_cast<const Delayed *>(user);
    Call call{d, task, ctx};
    d->pool->parallelFor(
        n,
        [](void *p, unsigned i) {
          const Call &c = *static_cast<const Call *>(p);
          if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(c.d->before_ms));
          c.task(c.ctx, i);
          if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(c.d->after_ms));
        },
        &call);
  }
  ParallelFor forTeam() { return ParallelFor{parallelFor, this, nullptr, pool->size()}; }
};

// Task 1's thread is late (it sleeps before its block): the static split's rescue lets
// another task run block 1, and the job still runs every group once.
TEST(ForeignTeam, LateTaskIsRescued) {
  ThreadPool pool(2);
  Delayed late{&pool, 30, 0};
  HandedTeam team(late.forTeam());
  Counting c(256);
  static std::thread::id block1_thread;
  block1_thread = std::thread::id();
  c.hook = [](Counting &, std::uint64_t b) {
    if (b == 128) block1_thread = std::this_thread::get_id();  // block 1 of 2 starts at 128
  };
  ASSERT_TRUE(team.run(c.job(false)));
  EXPECT_EQ(c.wrong(), 0u);
  // The caller (task 0) ran block 1: it did not wait for the late task.
  EXPECT_EQ(block1_thread, std::this_thread::get_id());
}

TEST(ForeignTeam, BusyAndNestedRunsReturnFalse) {
  ThreadPool pool(2);
  HandedTeam team(poolFor(pool));
  static ForeignTeam *g_team;
  static std::atomic<int> nested_true, nested_false;
  g_team = &team;
  nested_true = nested_false = 0;
  Counting c(64);
  // Every range tries a job of its own: the team is busy (and on the pool's threads, a
  // worker): all must return false without running anything.
  c.hook = [](Counting &, std::uint64_t) {
    Counting inner(8);
    (g_team->run(inner.job(false)) ? nested_true : nested_false)++;
    EXPECT_EQ(inner.wrong(), 8u);
  };
  ASSERT_TRUE(team.run(c.job(false)));
  EXPECT_EQ(c.wrong(), 0u);
  EXPECT_EQ(nested_true.load(), 0);
  EXPECT_GT(nested_false.load(), 0);
  team.reset(nullptr, 0);
  Counting after(4);
  EXPECT_FALSE(team.run(after.job(false))) << "no parallel-for after reset(nullptr)";
}

// reset() waits for the job running on the old parallel-for.
TEST(ForeignTeam, ResetWaitsForTheRunningJob) {
  ThreadPool pool(2);
  HandedTeam team(poolFor(pool));
  static std::atomic<bool> in_job, job_done;
  in_job = job_done = false;
  std::thread launcher([&] {
    Counting c(2);
    c.hook = [](Counting &, std::uint64_t b) {
      if (b != 0) return;
      in_job = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      job_done = true;
    };
    EXPECT_TRUE(team.run(c.job(false)));
  });
  while (!in_job) std::this_thread::yield();
  team.reset(nullptr, 0);
  EXPECT_TRUE(job_done.load());
  launcher.join();
}

// Task 1 returns 5 ms after its work (its thread "descheduled" before the join): each job
// is complete; one such job alone is forgiven (a pool waking its threads), the second in
// a row makes the team report itself slow to join.
TEST(ForeignTeam, LateJoinsInARowMakeTheTeamSlow) {
  ThreadPool pool(2);
  Delayed late_join{&pool, 0, 5};
  HandedTeam team(late_join.forTeam());
  EXPECT_FALSE(team.slow());
  // What the team reports after each job: the first late join is forgiven, the second not.
  const struct {
    const char *job;
    bool slow;
    std::uint64_t slow_joins;
  } after_job[] = {{"first job", false, 0}, {"second job", true, 1}};
  for (const auto &want : after_job) {
    SCOPED_TRACE(want.job);
    Counting c(256);
    ASSERT_TRUE(team.run(c.job(false)));
    EXPECT_EQ(c.wrong(), 0u);
    EXPECT_EQ(team.slow(), want.slow);
    EXPECT_EQ(team.slowJoins(), want.slow_joins);
  }
}

// A long job whose join waits for a thread kept from running (task 1 returns 8 ms after
// its work): the job took less than its work would on the caller alone (two 20 ms
// blocks in ~28 ms), but its join added more than an eighth to the time its groups took.
// Two such jobs in a row make the team slow: beside a busy process, each job would wait
// for a time slice.
TEST(ForeignTeam, LongJobsWhoseJoinWaitsLongAreLateToo) {
  ThreadPool pool(2);
  Delayed late_join{&pool, 0, 8};
  HandedTeam team(late_join.forTeam());
  for (int job = 0; job < 2; ++job) {
    Counting c(2);
    c.hook = [](Counting &, std::uint64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    };
    ASSERT_TRUE(team.run(c.job(false)));
    EXPECT_EQ(c.wrong(), 0u);
  }
  EXPECT_TRUE(team.slow());
  EXPECT_EQ(team.slowJoins(), 1u);
}

TEST(ForeignTeam, ExecutorThreadsAreCappedAndDefaultToTheCpus) {
  EXPECT_GE(hk::team::executorThreads(0), 1u);
  EXPECT_EQ(hk::team::executorThreads(3), 3u);  // the tests run without HOSTKERNEL_NUM_THREADS
}

}  // namespace
