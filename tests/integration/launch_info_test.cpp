// hkGetKernelLaunchInfo: a kernel's launch counts one value per query, the same values as
// hkGetKernelLaunchCounts' struct, with clGetKernelWorkGroupInfo's error semantics.
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

#include <cstring>

#include "support/launch_counts.hpp"
#include "support/pocl_test.hpp"

namespace {

const char *kSource = "kernel void one(global int *out) { out[get_global_id(0)] = 1; }";

class LaunchInfo : public PoclTest {
 protected:
  LaunchInfo() : PoclTest(kSource) {}

  void SetUpTestObjects() override {
    cl_int err = CL_SUCCESS;
    kernel_ = Own(hkCreateKernel(program_, "one", &err));
    ASSERT_EQ(err, CL_SUCCESS);
    out_ = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE, 1024 * sizeof(int), nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(kernel_, 0, sizeof out_, &out_), CL_SUCCESS);
  }
  void ReleaseTestObjects() override {
    if (kernel_) hkReleaseKernel(kernel_);
    if (out_) hkReleaseMemObject(out_);
  }

  cl_ulong Info(hk_kernel_launch_info name) {
    cl_ulong value = ~cl_ulong{0};
    EXPECT_EQ(hkGetKernelLaunchInfo(kernel_, name, sizeof value, &value, nullptr), CL_SUCCESS)
        << name;
    return value;
  }

  cl_kernel kernel_ = nullptr;
  cl_mem out_ = nullptr;
};

// One direct launch and two that go to the queue (non-uniform groups): each query
// answers what the struct holds.
TEST_F(LaunchInfo, AnswersWhatTheStructHolds) {
  const size_t uniform = 1024, odd = 1000, local = 64;
  ASSERT_EQ(Launch(queue_, kernel_, 1, nullptr, &uniform, &local, 0, nullptr, nullptr),
            CL_SUCCESS);
  for (int i = 0; i < 2; ++i)
    Launch(queue_, kernel_, 1, nullptr, &odd, &local, 0, nullptr, nullptr);
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  const hk_launch_counts c = Counts(kernel_);
  EXPECT_EQ(Direct(c), 1u) << Describe(c);
  EXPECT_EQ(c.by_reason[HK_REASON_NON_UNIFORM], 2u) << Describe(c);
  for (int p = HK_PATH_INLINE; p <= HK_PATH_QUEUE; ++p)
    EXPECT_EQ(Info(HK_KERNEL_LAUNCHES_ON_PATH(p)), c.by_path[p]) << "path " << p;
  for (int r = HK_REASON_NONE + 1; r < HK_REASON_COUNT; ++r)
    EXPECT_EQ(Info(HK_KERNEL_LAUNCHES_FOR_REASON(r)), c.by_reason[r])
        << hkReasonString(hk_reason(r));
}

TEST_F(LaunchInfo, HasOpenClErrorSemantics) {
  size_t size = 0;
  EXPECT_EQ(hkGetKernelLaunchInfo(kernel_, HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_TEAM), 0, nullptr,
                                  &size),
            CL_SUCCESS);
  EXPECT_EQ(size, sizeof(cl_ulong));
  unsigned char value[sizeof(cl_ulong) + 1];
  std::memset(value, 0xAB, sizeof value);
  EXPECT_EQ(hkGetKernelLaunchInfo(kernel_, HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_TEAM),
                                  sizeof(cl_ulong) - 1, value, nullptr),
            CL_INVALID_VALUE);
  for (unsigned char b : value) EXPECT_EQ(b, 0xAB) << "written although short";
  EXPECT_EQ(hkGetKernelLaunchInfo(kernel_, HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_TEAM),
                                  sizeof value, value, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(value[sizeof(cl_ulong)], 0xAB) << "written past the value";
  cl_ulong count = 0;
  size = 7;
  for (hk_kernel_launch_info bad :
       {HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_QUEUE + 1), HK_KERNEL_LAUNCHES_ON_PATH(0) - 1,
        HK_KERNEL_LAUNCHES_FOR_REASON(HK_REASON_NONE),
        HK_KERNEL_LAUNCHES_FOR_REASON(HK_REASON_COUNT), hk_kernel_launch_info{0}}) {
    EXPECT_EQ(hkGetKernelLaunchInfo(kernel_, bad, sizeof count, &count, &size),
              CL_INVALID_VALUE)
        << bad;
    EXPECT_EQ(size, 7u) << bad << ": size_ret written for an unknown name";
  }
  EXPECT_EQ(hkGetKernelLaunchInfo(nullptr, HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_INLINE),
                                  sizeof count, &count, nullptr),
            CL_INVALID_KERNEL);
}

TEST_F(LaunchInfo, ReleasedKernelIsInvalid) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = hkCreateKernel(program_, "one", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_ulong count = 0;
  EXPECT_EQ(hkGetKernelLaunchInfo(k, HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_INLINE), sizeof count,
                                  &count, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkReleaseKernel(k), CL_SUCCESS);
  EXPECT_EQ(hkGetKernelLaunchInfo(k, HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_INLINE), sizeof count,
                                  &count, nullptr),
            CL_INVALID_KERNEL);
}

}  // namespace
