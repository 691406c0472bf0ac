// hkGetPoclDevice: the device that the C++ API, the tests and the benchmark run on is the
// one whose launches hostkernel runs directly, found in one place.
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

#include "support/launch_counts.hpp"

namespace {

const char *kSource = "kernel void one(global int *out) { out[get_global_id(0)] = 1; }";

TEST(PoclDevice, IsACpuDeviceOfItsPlatform) {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  ASSERT_EQ(hkGetPoclDevice(&platform, &device), CL_SUCCESS);
  ASSERT_NE(platform, nullptr);
  ASSERT_NE(device, nullptr);
  cl_platform_id of_device = nullptr;
  ASSERT_EQ(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof of_device, &of_device, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(of_device, platform);
  cl_device_type type = 0;
  ASSERT_EQ(clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
  EXPECT_TRUE(type & CL_DEVICE_TYPE_CPU);
}

TEST(PoclDevice, PlatformMayBeNullDeviceMayNot) {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr, again = nullptr;
  ASSERT_EQ(hkGetPoclDevice(&platform, &device), CL_SUCCESS);
  EXPECT_EQ(hkGetPoclDevice(nullptr, &again), CL_SUCCESS);
  EXPECT_EQ(again, device);
  platform = nullptr;
  EXPECT_EQ(hkGetPoclDevice(&platform, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(platform, nullptr) << "written although the call failed";
}

// The point of the lookup: a uniform launch on the device it finds runs directly.
TEST(PoclDevice, LaunchesOnItRunDirectly) {
  cl_device_id device = nullptr;
  ASSERT_EQ(hkGetPoclDevice(nullptr, &device), CL_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_command_queue queue = hkCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_program program = hkCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(hkBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel kernel = hkCreateKernel(program, "one", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t n = 64;
  cl_mem out = hkCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(int), nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &n, &n, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkFinish(queue), CL_SUCCESS);
  EXPECT_EQ(Direct(Counts(kernel)), 1u) << Describe(Counts(kernel));
  hkReleaseMemObject(out);
  hkReleaseKernel(kernel);
  hkReleaseProgram(program);
  hkReleaseCommandQueue(queue);
  hkReleaseContext(ctx);
}

}  // namespace
