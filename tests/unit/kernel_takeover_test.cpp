// A kernel object made after the program's last object of the same kernel was released
// takes over that object's entry (queue::Registry::keepReleased): prepared, planned and
// timed already, with its own arguments (unset) and counts (zero). A rebuilt or another
// program's kernel of the same name never does.
#include <CL/cl.h>
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

#include <vector>

#include "queue/registry.hpp"
#include "support/launch_counts.hpp"
#include "support/pocl_context.hpp"

namespace {

const char *kSource = R"CLC(
kernel void scale(global float *x) { x[get_global_id(0)] *= VAL; }
)CLC";
constexpr size_t kItems = 256;

class KernelTakeover : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
    cl_int err = CL_SUCCESS;
    q_ = hkCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    program_ = hkCreateProgramWithSource(ctx_, 1, &kSource, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    buf_ = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE, kItems * sizeof(float), nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (buf_) hkReleaseMemObject(buf_);
    if (program_) hkReleaseProgram(program_);
    if (q_) hkReleaseCommandQueue(q_);
    if (ctx_) hkReleaseContext(ctx_);
  }
  void Build(const char *options) {
    ASSERT_EQ(hkBuildProgram(program_, 1, &device_, options, nullptr, nullptr), CL_SUCCESS);
  }
  cl_kernel NewKernel() {
    cl_int err = CL_SUCCESS;
    cl_kernel k = hkCreateKernel(program_, "scale", &err);
    EXPECT_EQ(err, CL_SUCCESS);
    return k;
  }
  cl_int Launch(cl_kernel k) {
    const size_t global = kItems;
    return hkEnqueueNDRangeKernel(q_, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
  }
  // Fills the buffer with ones, runs `launches` launches of `k` and returns x[0].
  float Run(cl_kernel k, int launches) {
    const float one = 1.0f;
    EXPECT_EQ(hkEnqueueFillBuffer(q_, buf_, &one, sizeof one, 0, kItems * sizeof(float), 0,
                                  nullptr, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(hkSetKernelArg(k, 0, sizeof buf_, &buf_), CL_SUCCESS);
    for (int i = 0; i < launches; ++i) EXPECT_EQ(Launch(k), CL_SUCCESS);
    std::vector<float> x(kItems);
    EXPECT_EQ(hkEnqueueReadBuffer(q_, buf_, CL_TRUE, 0, kItems * sizeof(float), x.data(), 0,
                                  nullptr, nullptr),
              CL_SUCCESS);
    for (float v : x) EXPECT_EQ(v, x[0]);
    return x[0];
  }
  // A new kernel object of "scale", `launches` launches of it (Run), then its release.
  float RunNewKernel(int launches) {
    cl_kernel k = NewKernel();
    const float x = Run(k, launches);
    EXPECT_EQ(hkReleaseKernel(k), CL_SUCCESS);
    return x;
  }
  static hk::queue::KernelEntry *Entry(cl_kernel k) {
    hk::queue::KernelEntry *e = hk::queue::registry().kernels.find(k);
    return hk::isEntry(e) ? e : nullptr;
  }

  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue q_ = nullptr;
  cl_program program_ = nullptr;
  cl_mem buf_ = nullptr;
};

TEST_F(KernelTakeover, ANewKernelObjectFindsItsKernelPrepared) {
  ASSERT_NO_FATAL_FAILURE(Build("-DVAL=2.0f"));
  cl_kernel first = NewKernel();
  EXPECT_EQ(Run(first, 3), 8.0f);
  ASSERT_NE(Entry(first), nullptr);
  ASSERT_NE(Entry(first)->image.load(), nullptr) << "its launches ran directly";
  ASSERT_EQ(hkReleaseKernel(first), CL_SUCCESS);

  cl_kernel second = NewKernel();
  hk::queue::KernelEntry *e = Entry(second);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->image.load(), nullptr) << "the released object's entry was not taken over";
  const hk_launch_counts fresh = Counts(second);
  EXPECT_EQ(Total(fresh), 0u) << "counts are per kernel object: " << Describe(fresh);
  // Its arguments are its own: unset, PoCL's answer.
  EXPECT_EQ(Launch(second), CL_INVALID_KERNEL_ARGS);
  EXPECT_EQ(Run(second, 2), 4.0f);
  const hk_launch_counts after = Counts(second);
  EXPECT_EQ(Direct(after), 2u) << Describe(after);
  ASSERT_EQ(hkReleaseKernel(second), CL_SUCCESS);
}

TEST_F(KernelTakeover, ARebuiltProgramsKernelStartsAfresh) {
  ASSERT_NO_FATAL_FAILURE(Build("-DVAL=2.0f"));
  EXPECT_EQ(RunNewKernel(3), 8.0f);
  ASSERT_NO_FATAL_FAILURE(Build("-DVAL=3.0f"));  // the same program object, new code
  EXPECT_EQ(RunNewKernel(3), 27.0f);
}

TEST_F(KernelTakeover, AnotherProgramsKernelOfTheSameNameStartsAfresh) {
  ASSERT_NO_FATAL_FAILURE(Build("-DVAL=2.0f"));
  EXPECT_EQ(RunNewKernel(3), 8.0f);
  ASSERT_EQ(hkReleaseProgram(program_), CL_SUCCESS);  // its address may come back
  cl_int err = CL_SUCCESS;
  program_ = hkCreateProgramWithSource(ctx_, 1, &kSource, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(Build("-DVAL=5.0f"));
  EXPECT_EQ(RunNewKernel(2), 25.0f);
}

}  // namespace
