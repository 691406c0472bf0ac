// hkSetTeamExecutor through the C API, with the example pool (thread_pool.hpp): large
// launches run on the pool's threads, every work-item exactly once; a launch made from
// inside one of the pool's tasks runs inline and completes (no wait on the pool it runs
// in); NULL restores the default team.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "integration/bump_kernel.hpp"
#include "integration/thread_pool.hpp"

namespace {

using TeamExecutor = BumpKernel;

TEST_F(TeamExecutor, LaunchesRunOnThePoolEveryWorkItemOnce) {
  for (unsigned threads : {2u, 3u}) {
    ThreadPool pool(threads);
    hk_team_executor e = pool.executor();
    ASSERT_EQ(hkSetTeamExecutor(&e), CL_SUCCESS);
    const hk_launch_counts before = counts();
    for (int i = 0; i < 20; ++i) ASSERT_EQ(launch(), CL_SUCCESS);
    const hk_launch_counts after = counts();
    EXPECT_EQ(after.by_path[HK_PATH_TEAM] - before.by_path[HK_PATH_TEAM], 20u)
        << Describe(after);
    EXPECT_GE(pool.tasksRun(), 20u * threads) << "the launches did not reach the pool";
    ASSERT_EQ(hkSetTeamExecutor(nullptr), CL_SUCCESS);
  }
  EXPECT_EQ(wrongElements(40), 0u);
}

TEST_F(TeamExecutor, LaunchFromInsideAPoolTaskRunsInline) {
  ThreadPool pool(2);
  hk_team_executor e = pool.executor();
  ASSERT_EQ(hkSetTeamExecutor(&e), CL_SUCCESS);
  const hk_launch_counts before = counts();
  // The application's own parallel work launches a kernel from task 0 (the caller of
  // parallelFor, inside the pool): it must not wait on the pool.
  struct Ctx {
    BumpKernel *test;
    cl_int result = CL_SUCCESS;
  } ctx{this};
  pool.parallelFor(
      2,
      [](void *p, unsigned i) {
        if (i == 0) static_cast<Ctx *>(p)->result = static_cast<Ctx *>(p)->test->launch();
      },
      &ctx);
  EXPECT_EQ(ctx.result, CL_SUCCESS);
  const hk_launch_counts after = counts();
  EXPECT_EQ(after.by_path[HK_PATH_INLINE] - before.by_path[HK_PATH_INLINE], 1u)
      << Describe(after);
  EXPECT_EQ(wrongElements(1), 0u);
}

TEST_F(TeamExecutor, InvalidArgumentsAndRestore) {
  hk_team_executor e{};
  EXPECT_EQ(hkSetTeamExecutor(&e), CL_INVALID_VALUE);  // no parallel_for
  EXPECT_EQ(hkSetTeamExecutor(nullptr), CL_SUCCESS);
  EXPECT_EQ(launch(), CL_SUCCESS);  // the default team again
  EXPECT_EQ(wrongElements(1), 0u);
}

// Issue 24: a child forked after hkSetTeamExecutor gave its team launches to the pool,
// whose threads are not in the child: the launch never returned. The child's launches
// run on the own workers; its alarm ends it only if it hangs.
TEST_F(TeamExecutor, ForkedChildLaunchesWithoutThePoolOfItsParent) {
#if defined(__SANITIZE_THREAD__)
  // TSan ends a child that starts threads after a multi-threaded fork (die_after_fork),
  // and the child's launch starts the own workers.
  GTEST_SKIP() << "ThreadSanitizer does not support threads started after fork";
#endif
  ThreadPool pool(2);
  hk_team_executor e = pool.executor();
  ASSERT_EQ(hkSetTeamExecutor(&e), CL_SUCCESS);
  ASSERT_EQ(launch(), CL_SUCCESS);
  const pid_t pid = fork();
  if (pid == 0) {
    ::alarm(120);
    // A direct launch only: PoCL's own commands (hkFinish, reads) need PoCL's threads,
    // which are not in the child either (as on PoCL alone).
    const hk_launch_counts before = counts();
    const size_t g = kItems, l = kLocal;
    int failures =
        hkEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &g, &l, 0, nullptr, nullptr) != 0;
    failures += counts().by_path[HK_PATH_TEAM] != before.by_path[HK_PATH_TEAM] + 1;
    _exit(failures);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child hung (ended by signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSERT_EQ(launch(), CL_SUCCESS);  // the parent keeps its pool
  ASSERT_EQ(hkSetTeamExecutor(nullptr), CL_SUCCESS);
  EXPECT_EQ(wrongElements(2), 0u);
}

// A pool whose parallel_for holds its caller until released, then runs every task on
// it: a launch that stays on the pool for as long as a test needs.
struct HeldPool {
  std::atomic<bool> entered{false};
  std::atomic<bool> released{false};
  static void parallelFor(void *user, unsigned n, void (*task)(void *, unsigned), void *ctx) {
    auto *self = static_cast<HeldPool *>(user);
    self->entered.store(true);
    while (!self->released.load()) std::this_thread::yield();
    for (unsigned i = 0; i < n; ++i) task(ctx, i);
  }
};

// Issue 24: fork() while another thread's launch ran on the application's executor left
// the child with the executor's busy flag set and no thread to clear it:
// hkSetTeamExecutor there (which waits for the flag) never returned. In the child the
// flag is free; its alarm ends it only if it hangs.
TEST_F(TeamExecutor, ForkedDuringAPoolLaunchChildCanReplaceTheExecutor) {
  HeldPool held;
  hk_team_executor e = {};
  e.parallel_for = &HeldPool::parallelFor;
  e.threads = 2;
  e.user = &held;
  ASSERT_EQ(hkSetTeamExecutor(&e), CL_SUCCESS);
  cl_int launched = CL_INVALID_VALUE;
  std::thread launcher([&] { launched = launch(); });
  while (!held.entered.load()) std::this_thread::yield();
  const pid_t pid = fork();
  if (pid == 0) {
    ::alarm(20);
    _exit(hkSetTeamExecutor(nullptr) == CL_SUCCESS ? 0 : 1);
  }
  held.released.store(true);
  launcher.join();
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child hung (ended by signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(launched, CL_SUCCESS);
  ASSERT_EQ(hkSetTeamExecutor(nullptr), CL_SUCCESS);
  EXPECT_EQ(wrongElements(1), 0u);
}

}  // namespace
