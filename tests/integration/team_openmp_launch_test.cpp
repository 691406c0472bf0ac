// The default team mode in a program that uses OpenMP, through the C API: large launches
// run on the team (OpenMP's threads), every work-item once; launches from inside the
// application's parallel region run inline on each launching thread and complete.
#include <omp.h>

#include <atomic>

#include "integration/bump_kernel.hpp"

namespace {

// Not under ThreadSanitizer: libgomp is not instrumented (tests/unit/team_openmp_test.cpp).
class TeamOpenMP : public BumpKernel {
 public:
  void SetUp() override {
#if defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "libgomp is not TSan-instrumented";
#endif
    BumpKernel::SetUp();
  }
};

TEST_F(TeamOpenMP, LaunchesRunOnTheTeamEveryWorkItemOnce) {
  // Host work first, as in a program that uses OpenMP: its threads exist.
  std::atomic<int> seen{0};
#pragma omp parallel
  seen++;
  ASSERT_GE(seen.load(), 1);
  const hk_launch_counts before = counts();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(launch(), CL_SUCCESS);
  const hk_launch_counts after = counts();
  if (omp_get_max_threads() > 1)
    EXPECT_EQ(after.by_path[HK_PATH_TEAM] - before.by_path[HK_PATH_TEAM], 20u)
        << Describe(after);
  EXPECT_EQ(wrongElements(20), 0u);
}

TEST_F(TeamOpenMP, LaunchFromInsideAParallelRegionRunsInline) {
  const hk_launch_counts before = counts();
  std::atomic<int> failures{0}, launches{0};
  // One thread of the region launches (a launch per thread would race on the buffer);
  // the others reach the region's end barrier and wait there.
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    {
      for (int i = 0; i < 5; ++i) {
        if (launch() != CL_SUCCESS) failures++;
        launches++;
      }
    }
  }
  EXPECT_EQ(failures.load(), 0);
  const hk_launch_counts after = counts();
  EXPECT_EQ(after.by_path[HK_PATH_INLINE] - before.by_path[HK_PATH_INLINE],
            static_cast<cl_ulong>(launches.load()))
      << Describe(after);
  EXPECT_EQ(wrongElements(5), 0u);
}

}  // namespace
