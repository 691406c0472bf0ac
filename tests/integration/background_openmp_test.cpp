// Launches in the background when the team is the application's OpenMP threads
// (HOSTKERNEL_TEAM=auto in a process with an OpenMP runtime): launches that run on one
// thread go to the background, team launches stay on the caller, and no OpenMP region is
// ever started from the background thread (the runtime would start a second pool of
// threads for it; queue/background.hpp, launch::BackgroundUse).
//
// The OpenMP runtime is a stand-in (support/stand_in_openmp.hpp) that counts the regions
// started from a thread other than the test's.
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "support/pocl_device.hpp"
#include "support/slow_fill_kernel.hpp"
#include "support/stand_in_openmp.hpp"

namespace {

cl_ulong InBackground(cl_kernel k) {
  cl_ulong n = 0;
  EXPECT_EQ(hkGetKernelLaunchInfo(k, HK_KERNEL_LAUNCHES_IN_BACKGROUND, sizeof n, &n, nullptr),
            CL_SUCCESS);
  return n;
}

// Launches slow_fill on `items` work-items (in one work-group when `one_group`: a launch
// that runs on one thread), `times` times, each followed by 1 ms of the
// caller's own work and a blocking read checked; returns the launches in the background.
cl_ulong LaunchAndRead(size_t items, bool one_group, int rounds, int times) {
  cl_device_id device;
  EXPECT_TRUE(FindPoclDevice(nullptr, &device));
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  cl_command_queue q = hkCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  cl_program program = hkCreateProgramWithSource(ctx, 1, &kSlowFillSource, nullptr, &err);
  EXPECT_EQ(hkBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel kernel = hkCreateKernel(program, "slow_fill", &err);
  cl_mem out = hkCreateBuffer(ctx, CL_MEM_READ_WRITE, items * sizeof(int), nullptr, &err);
  EXPECT_EQ(hkSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
  EXPECT_EQ(hkSetKernelArg(kernel, 1, sizeof rounds, &rounds), CL_SUCCESS);
  const cl_uint mask = 0;
  EXPECT_EQ(hkSetKernelArg(kernel, 3, sizeof mask, &mask), CL_SUCCESS);
  std::vector<int> read(items);
  for (int value = 0; value < times; ++value) {
    EXPECT_EQ(hkSetKernelArg(kernel, 2, sizeof value, &value), CL_SUCCESS);
    EXPECT_EQ(hkEnqueueNDRangeKernel(q, kernel, 1, nullptr, &items, one_group ? &items : nullptr,
                                     0, nullptr, nullptr),
              CL_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(hkEnqueueReadBuffer(q, out, CL_TRUE, 0, items * sizeof(int), read.data(), 0,
                                  nullptr, nullptr),
              CL_SUCCESS);
    for (size_t i = 0; i < items; i += items / 8) EXPECT_EQ(read[i], value + int(i));
  }
  const cl_ulong n = InBackground(kernel);
  hkReleaseKernel(kernel);
  hkReleaseMemObject(out);
  hkReleaseProgram(program);
  hkReleaseCommandQueue(q);
  hkReleaseContext(ctx);
  return n;
}

TEST(BackgroundOpenMP, LaunchesOnOneThreadRunInTheBackground) {
  stand_in_openmp::main_thread = pthread_self();
  // At least one (not every one: on a busy machine a background thread that loses its CPU
  // pauses the kernel's background launches).
  EXPECT_GE(LaunchAndRead(64, true, 20000, 12), 1u);
  EXPECT_EQ(stand_in_openmp::regions_off_main.load(), 0);
}

TEST(BackgroundOpenMP, TeamLaunchesStayOnTheCallerAndItsOpenMPThreads) {
  stand_in_openmp::main_thread = pthread_self();
  const int before = stand_in_openmp::regions.load();
  EXPECT_EQ(LaunchAndRead(1 << 18, false, 200, 12), 0u);
  EXPECT_GT(stand_in_openmp::regions.load(), before);  // the team launches ran on "OpenMP's" threads
  EXPECT_EQ(stand_in_openmp::regions_off_main.load(), 0);
}

}  // namespace
