// A fixture for team tests through the C API: bump(c) adds 1 to every element of a
// buffer, on a grid large enough for the team, so a work-item that ran twice or not at all
// shows in the buffer.
//
//   TEST_F(BumpKernel, Something) { ASSERT_EQ(launch(), CL_SUCCESS); EXPECT_EQ(wrongElements(1), 0u); }
#pragma once

#include <hostkernel/executor.h>
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <vector>

#include "support/launch_counts.hpp"
#include "support/pocl_context.hpp"

inline const char *kBumpSource = R"CLC(
kernel void bump(global int *c) { c[get_global_id(0)] += 1; }
)CLC";

inline constexpr size_t kItems = 65536;  // more than the inline limit: a team launch
inline constexpr size_t kLocal = 256;

class BumpKernel : public ::testing::Test {
 public:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
    cl_int err = CL_SUCCESS;
    program_ = clCreateProgramWithSource(ctx_, 1, &kBumpSource, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(clBuildProgram(program_, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
    kernel_ = hkCreateKernel(program_, "bump", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    queue_ = hkCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<int> zeros(kItems, 0);
    buf_ = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kItems * sizeof(int),
                          zeros.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(kernel_, 0, sizeof(cl_mem), &buf_), CL_SUCCESS);
  }
  void TearDown() override {
    hkSetTeamExecutor(nullptr);  // tests may have set one
    if (buf_) hkReleaseMemObject(buf_);
    if (queue_) hkReleaseCommandQueue(queue_);
    if (kernel_) hkReleaseKernel(kernel_);
    if (program_) hkReleaseProgram(program_);
    if (ctx_) hkReleaseContext(ctx_);
  }

  cl_int launch() {
    const size_t g = kItems, l = kLocal;
    const cl_int e = hkEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &g, &l, 0, nullptr,
                                            nullptr);
    return e != CL_SUCCESS ? e : hkFinish(queue_);
  }
  // Elements that are not `want`.
  size_t wrongElements(int want) {
    std::vector<int> host(kItems);
    EXPECT_EQ(hkEnqueueReadBuffer(queue_, buf_, CL_TRUE, 0, kItems * sizeof(int), host.data(),
                                  0, nullptr, nullptr),
              CL_SUCCESS);
    size_t wrong = 0;
    for (int v : host) wrong += v != want;
    return wrong;
  }
  hk_launch_counts counts() { return Counts(kernel_); }

  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_mem buf_ = nullptr;
};

