// TeamGain's probe of the calling thread on a large launch is split (launch/team_gain.hpp,
// launch::runSplit): every eighth group of the launch runs on the calling thread alone, the
// others on the team. A kernel that gains from the team thus never has a whole launch on
// one thread, which for a long launch cost twice the team's time. Runs with a team of two
// and no launch in the background (team_probe.cmake): every launch here runs before its
// call returns, on the path the test counts.
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "support/launch_counts.hpp"
#include "support/pocl_context.hpp"
#include "support/slow_fill_kernel.hpp"

namespace {

TEST(TeamProbe, ALongLaunchThatGainsFromTheTeamNeverRunsWholeOnOneThread) {
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device, &ctx));
  cl_int err = CL_SUCCESS;
  cl_command_queue q = hkCreateCommandQueue(ctx, device, 0, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_program program = hkCreateProgramWithSource(ctx, 1, &kSlowFillSource, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(hkBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel kernel = hkCreateKernel(program, "slow_fill", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  // 255 work-groups, each a few µs: not a multiple of the probe's sample stride (8).
  constexpr size_t kItems = 1020, kLocal = 4;
  std::vector<int> host(kItems, -1);
  cl_mem out = hkCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, sizeof(int) * kItems, host.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const int rounds = 2000;
  const cl_uint mask = 0;
  ASSERT_EQ(hkSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(kernel, 1, sizeof rounds, &rounds), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(kernel, 3, sizeof mask, &mask), CL_SUCCESS);
  // Launches with a new value each, each checked: a split launch runs every group.
  auto launch = [&](int value) {
    ASSERT_EQ(hkSetKernelArg(kernel, 2, sizeof value, &value), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, kernel, 1, nullptr, &kItems, &kLocal, 0, nullptr,
                                     nullptr),
              CL_SUCCESS);
    ASSERT_EQ(hkFinish(q), CL_SUCCESS);
    std::vector<int> got(kItems);
    ASSERT_EQ(hkEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(int) * kItems, got.data(), 0,
                                  nullptr, nullptr),
              CL_SUCCESS);
    for (size_t i = 0; i < kItems; ++i)
      ASSERT_EQ(got[i], value + static_cast<int>(i)) << "work-item " << i;
  };
  // The first launch goes where the rule for first launches sends it; from the second on
  // they are direct and long (the sampler's "slow"), so on the team. A probe of the calling
  // thread comes once the team has run kBudget (8) launches and as long as a probe would
  // cost over it: with two threads about the eighth or ninth launch, the next one 16 after.
  for (int value = 0; value < 40; ++value) ASSERT_NO_FATAL_FAILURE(launch(value));
  const hk_launch_counts c = Counts(kernel);
  EXPECT_GE(c.by_path[HK_PATH_TEAM], 39u) << Describe(c);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE], 0u)
      << "a probe of the calling thread ran a whole launch there: " << Describe(c);
  EXPECT_EQ(hkReleaseMemObject(out), CL_SUCCESS);
  EXPECT_EQ(hkReleaseKernel(kernel), CL_SUCCESS);
  EXPECT_EQ(hkReleaseProgram(program), CL_SUCCESS);
  EXPECT_EQ(hkReleaseCommandQueue(q), CL_SUCCESS);
  EXPECT_EQ(hkReleaseContext(ctx), CL_SUCCESS);
}

}  // namespace
