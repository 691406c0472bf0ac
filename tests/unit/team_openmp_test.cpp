// The OpenMP team mode: jobs on the application's OpenMP threads through GOMP_parallel,
// found with dlsym (this test links OpenMP; libhostkernel does not). Every group runs
// exactly once under both splits; a job from inside a parallel region is refused (the
// caller runs it inline), and so never waits on the team it runs in.
#include "team/openmp_runtime.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

#include "team/dispatch.hpp"
#include "unit/team_counting.hpp"

namespace {

using hk::team::ForeignTeam;
using hk::team::Job;

struct OmpCounting {
  explicit OmpCounting(std::uint64_t n) : count(n), on_omp_thread(n) {}
  std::vector<std::atomic<int>> count;
  std::vector<std::atomic<int>> on_omp_thread;  // omp_get_thread_num() + 1 of the runner
  static void run(void *ctx, std::uint64_t b, std::uint64_t e, unsigned) {
    auto &c = *static_cast<OmpCounting *>(ctx);
    for (std::uint64_t g = b; g < e; ++g) {
      c.count[g].fetch_add(1, std::memory_order_relaxed);
      c.on_omp_thread[g].store(omp_get_thread_num() + 1, std::memory_order_relaxed);
    }
  }
  Job job(bool steal) { return Job{run, this, count.size(), steal}; }
  std::uint64_t wrong() const {
    std::uint64_t n = 0;
    for (const auto &c : count) n += c.load() != 1;
    return n;
  }
};

// Not under ThreadSanitizer: libgomp is not instrumented, so TSan does not see its barriers
// order a task's writes before the join and reports races that are not there. The same
// ForeignTeam code runs under TSan in team_foreign_test and team_executor_test, with a
// std::thread pool as the parallel-for.
class OpenMPTeam : public ::testing::Test {
  void SetUp() override {
#if defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "libgomp is not TSan-instrumented";
#endif
  }
};

TEST_F(OpenMPTeam, RuntimeIsFoundInTheProcess) {
  const hk::team::OpenMPRuntime *omp = hk::team::findOpenMP();
  ASSERT_NE(omp, nullptr);
  EXPECT_EQ(omp->parallel_for.threads, static_cast<unsigned>(omp_get_max_threads()));
  EXPECT_GT(omp->stack_bytes, 0u);
  // HOSTKERNEL_TEAM=openmp (ctest) or auto, and OpenMP is loaded: OpenMP's threads.
  EXPECT_STREQ(hk::team::activeTeamName(), "openmp");
}

TEST_F(OpenMPTeam, EveryGroupRunsExactlyOnceStaticAndStealing) {
  const hk::team::OpenMPRuntime *omp = hk::team::findOpenMP();
  ASSERT_NE(omp, nullptr);
  for (unsigned threads : {1u, 2u, 3u, 4u}) {
    hk::team::ParallelFor pf = omp->parallel_for;
    pf.threads = threads;
    ForeignTeam team;
    team.reset(&pf, omp->stack_bytes);
    expectEveryGroupOnce(team, "threads=" + std::to_string(threads));
    team.reset(nullptr, 0);
  }
}

TEST_F(OpenMPTeam, JobsRunOnOpenMPThreads) {
  // Every group runs inside the region (thread 0 is the caller, in its own region).
  const hk::team::OpenMPRuntime *omp = hk::team::findOpenMP();
  ASSERT_NE(omp, nullptr);
  ForeignTeam team;
  team.reset(&omp->parallel_for, omp->stack_bytes);
  OmpCounting c(4096);
  ASSERT_TRUE(team.run(c.job(true)));
  EXPECT_EQ(c.wrong(), 0u);
  for (std::uint64_t g = 0; g < c.count.size(); ++g)
    ASSERT_GE(c.on_omp_thread[g].load(), 1) << "group " << g << " ran outside a region";
  // Through runJob, as launches go: every group once.
  OmpCounting d(4096);
  ASSERT_TRUE(hk::team::runJob(d.job(false)));
  EXPECT_EQ(d.wrong(), 0u);
}

// HOSTKERNEL_TEAM=openmp still sends a job whose groups need more stack than OpenMP's
// threads have to the own workers (PoCL's work-group functions do no stack probing).
TEST_F(OpenMPTeam, AJobTooDeepForOpenMPsStacksRunsOnTheOwnWorkers) {
  const hk::team::OpenMPRuntime *omp = hk::team::findOpenMP();
  ASSERT_NE(omp, nullptr);
  if (omp->parallel_for.threads < 2) GTEST_SKIP() << "one OpenMP thread";
  OmpCounting c(64);
  Job job = c.job(false);
  job.stack_bytes = omp->stack_bytes + 1;
  ASSERT_TRUE(hk::team::runJob(job));
  EXPECT_EQ(c.wrong(), 0u);
  for (const auto &t : c.on_omp_thread)
    EXPECT_EQ(t.load(), 1) << "a group ran on OpenMP thread " << t.load() - 1;
}

TEST_F(OpenMPTeam, JobFromInsideAParallelRegionIsRefused) {
  std::atomic<int> refused{0}, accepted{0};
#pragma omp parallel num_threads(2)
  {
    OmpCounting inner(256);
    if (hk::team::runJob(inner.job(omp_get_thread_num() % 2 == 1))) {
      accepted++;
    } else {
      refused++;
      EXPECT_EQ(inner.wrong(), 256u);  // nothing ran: the caller runs it inline
    }
  }
  EXPECT_EQ(accepted.load(), 0);
  EXPECT_GE(refused.load(), 1);
}

TEST_F(OpenMPTeam, StackSizeParsesLikeOpenMP) {
  using hk::team::parseOmpStackSize;
  EXPECT_EQ(parseOmpStackSize("512"), 512u * 1024);
  EXPECT_EQ(parseOmpStackSize("512K"), 512u * 1024);
  EXPECT_EQ(parseOmpStackSize(" 16 M "), 16u << 20);
  EXPECT_EQ(parseOmpStackSize("2g"), std::uint64_t{2} << 30);
  EXPECT_EQ(parseOmpStackSize("100B"), 100u);
  EXPECT_EQ(parseOmpStackSize("lots"), 0u);
  EXPECT_EQ(parseOmpStackSize("8Q"), 0u);
  EXPECT_EQ(parseOmpStackSize("8M extra"), 0u);
}

// Issue 24: after a fork, the child's first team job on OpenMP's threads never returned
// (libgomp is not fork-safe: its pool's threads are not in the child). The child's jobs
// now run on hostkernel's own workers. The child's alarm ends it only if it hangs.
TEST_F(OpenMPTeam, ForkedChildRunsTeamJobsOnItsOwnWorkers) {
  OmpCounting parent(64);
  ASSERT_TRUE(hk::team::runJob(parent.job(false)));  // OpenMP's pool now has threads
  ASSERT_EQ(parent.wrong(), 0u);
  const pid_t pid = fork();
  if (pid == 0) {
    ::alarm(120);
    int failures = 0;
    for (bool steal : {false, true}) {
      OmpCounting c(64);
      if (!hk::team::runJob(c.job(steal))) OmpCounting::run(&c, 0, 64, 0);
      failures += c.wrong() != 0;
    }
    failures += std::string(hk::team::activeTeamName()) != "own";
    _exit(failures);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child hung (ended by signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent carries on with OpenMP's threads.
  OmpCounting again(64);
  ASSERT_TRUE(hk::team::runJob(again.job(false)));
  EXPECT_EQ(again.wrong(), 0u);
  EXPECT_STREQ(hk::team::activeTeamName(), "openmp");
}

}  // namespace
