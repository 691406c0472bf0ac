// Programs with program-scope (__global file-scope) variables stay on PoCL's queue with a
// reason, and hostkernel's look at them leaves PoCL's own launches their initial values:
// ProgramImage::create must ask CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE before the
// binary query, which on PoCL 6.0 would allocate the variables' storage and never
// initialise it (docs/pocl-releases.md, "Program-scope variables"). Runs on the releases
// whose description has program-scope variables (6.0) and that build the program.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <string>

#include "pocl/release_checks.hpp"
#include "program/program_image.hpp"
#include "support/pocl_device.hpp"

namespace {

const char *kSource = R"CLC(
__global int counter = 5;
__global float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};
kernel void read_vars(global float *o) { o[0] = (float)counter + table[2]; }
)CLC";

TEST(ProgramScopeVars, StayOnThePoclQueueWithTheirInitialValues) {
  cl_device_id device = nullptr;
  ASSERT_TRUE(FindPoclDevice(nullptr, &device));
  const hk::pocl::Release *release = hk::pocl::runningRelease(device);
  ASSERT_NE(release, nullptr);
  if (!release->has_program_scope_variables)
    GTEST_SKIP() << "PoCL " << release->version << " is not described with them";
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_program program = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  if (clBuildProgram(program, 1, &device, "-cl-std=CL3.0", nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(program);
    clReleaseContext(ctx);
    GTEST_SKIP() << "this PoCL does not build program-scope variables";
  }
  std::string error;
  auto img = hk::program::ProgramImage::create(program, device, error);
  EXPECT_EQ(img, nullptr);
  // 20 bytes of variables; PoCL reports their total storage, which its build may pad
  // (Debian 13's PoCL 6.0 reports 32).
  const std::size_t at = error.find(" bytes of program-scope variables");
  ASSERT_NE(at, std::string::npos) << error;
  const std::size_t digits = error.find_last_not_of("0123456789", at - 1) + 1;
  EXPECT_GE(std::stoul(error.substr(digits, at - digits)), 20u) << error;

  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(float), nullptr, &err);
  cl_kernel k = clCreateKernel(program, "read_vars", &err);
  ASSERT_NE(k, nullptr);
  clSetKernelArg(k, 0, sizeof out, &out);
  const size_t one = 1;
  ASSERT_EQ(clEnqueueNDRangeKernel(q, k, 1, nullptr, &one, &one, 0, nullptr, nullptr),
            CL_SUCCESS);
  float got = 0;
  clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, &got, 0, nullptr, nullptr);
  EXPECT_EQ(got, 8.0f);  // counter 5 + table[2] 3
  clReleaseKernel(k);
  clReleaseMemObject(out);
  clReleaseCommandQueue(q);
  clReleaseProgram(program);
  clReleaseContext(ctx);
}

}  // namespace
