// Bad input to the hk* C API gives the OpenCL error code that PoCL 3.1 gives for the same
// misuse, and never crashes. The general pattern: perform the misuse through PoCL
// (clEnqueueNDRangeKernel / clSetKernelArg) and through hostkernel on the same objects and
// compare the codes. The codes PoCL 3.1 returns are also spelled out, as documentation:
// where they differ from the OpenCL specification (NULL global size, non-uniform groups)
// hostkernel follows PoCL, as DESIGN.md ("Errors") asks.
//
// The few misuses on which PoCL 3.1 itself crashes (NULL kernel, num_events > 0 with a
// NULL wait list) are checked against the specification's code only.
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "support/launch_counts.hpp"
#include "support/pocl_test.hpp"

namespace {

const char *kSource = R"CLC(
kernel void fill(global int *out, int v) {
  size_t i = get_global_id(0);
  out[i] = v + (int)i;
}
kernel void fill2d(global int *out, int v) {
  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
  out[i] = v + (int)i;
}
kernel void reverse_local(global int *out, local int *tmp) {
  size_t l = get_local_id(0);
  tmp[l] = (int)get_global_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tmp[get_local_size(0) - 1 - l];
}
)CLC";

constexpr size_t kElems = 4096;
constexpr int kSentinel = -7;

using EnqueueFn = PoclTest::EnqueueFn;
using SetArgFn = cl_int (*)(cl_kernel, cl_uint, size_t, const void *);

EnqueueFn PoclEnqueue() { return &clEnqueueNDRangeKernel; }
EnqueueFn HkEnqueue() { return &PoclTest::Launch; }

// The queue and the program are made by OpenCL: hostkernel first sees them when they are
// used through it.
class HkErrors : public PoclTest {
 protected:
  HkErrors() : PoclTest(QueueBy::kOpenCL) {}

  void SetUpTestObjects() override {
    cl_int err = CL_SUCCESS;
    program_ = clCreateProgramWithSource(ctx_, 1, &kSource, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(clBuildProgram(program_, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
    fill_ = Own(hkCreateKernel(program_, "fill", &err));
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<int> init(kElems, kSentinel);
    out_ = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kElems * sizeof(int),
                          init.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    other_ = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            kElems * sizeof(int), init.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }

  void ReleaseTestObjects() override {
    if (fill_) hkReleaseKernel(fill_);
    if (out_) hkReleaseMemObject(out_);
    if (other_) hkReleaseMemObject(other_);
  }

  cl_kernel NewKernel(const char *name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = hkCreateKernel(program_, name, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    return k;
  }

  void SetFillArgs(cl_kernel k, cl_mem buf, int v) {
    ASSERT_EQ(hkSetKernelArg(k, 0, sizeof(cl_mem), &buf), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(k, 1, sizeof(int), &v), CL_SUCCESS);
  }

  std::vector<int> Read(cl_mem buf) {
    std::vector<int> host(kElems, 12345);
    EXPECT_EQ(hkEnqueueReadBuffer(queue_, buf, CL_TRUE, 0, kElems * sizeof(int), host.data(),
                                  0, nullptr, nullptr),
              CL_SUCCESS);
    return host;
  }

  // fill wrote v + i to the elements of [begin, end) of `buf`, and nothing else: the rest
  // still hold the sentinel. The first element that differs is a fatal failure.
  void AssertFilled(cl_mem buf, int v, size_t begin, size_t end) {
    std::vector<int> host = Read(buf);
    for (size_t i = 0; i < kElems; ++i)
      ASSERT_EQ(host[i], (i >= begin && i < end) ? v + int(i) : kSentinel) << "element " << i;
  }

  // The buffer still holds only the sentinel: a rejected launch ran nothing.
  void ExpectUntouched(cl_mem buf, const char *what) {
    std::vector<int> host = Read(buf);
    size_t changed = 0;
    for (int v : host) changed += v != kSentinel;
    EXPECT_EQ(changed, 0u) << what << ": a rejected launch wrote " << changed << " elements";
  }

  // Performs `misuse` through PoCL and through hostkernel and expects the same code. PoCL's
  // code is also compared with `pocl_code`, the value PoCL 3.1 is known to return.
  template <class Misuse>
  void ExpectLikePocl(const char *what, cl_int pocl_code, Misuse misuse) {
    cl_int pocl = misuse(PoclEnqueue());
    clFinish(queue_);  // if PoCL accepted it, let it finish before hostkernel's attempt
    cl_int hk = misuse(HkEnqueue());
    hkFinish(queue_);
    EXPECT_EQ(hk, pocl) << what << ": hostkernel returns " << hk << ", PoCL returns " << pocl;
    EXPECT_EQ(pocl, pocl_code) << what << ": PoCL 3.1 was expected to return " << pocl_code;
  }

  cl_kernel fill_ = nullptr;
  cl_mem out_ = nullptr;
  cl_mem other_ = nullptr;
};

// ---- a valid launch, for reference -------------------------------------------------

TEST_F(HkErrors, ValidUniformLaunchRunsInlineWithCorrectResults) {
  SetFillArgs(fill_, out_, 100);
  size_t g = 1024, l = 64;
  ASSERT_EQ(Launch(queue_, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(AssertFilled(out_, 100, 0, g));
  hk_launch_counts c = Counts(fill_);
  EXPECT_EQ(Direct(c), 1u) << Describe(c);
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 0u) << Describe(c);
}

TEST_F(HkErrors, NullLocalSizeWithOddGlobalSizeRunsInline) {
  SetFillArgs(fill_, out_, 5);
  size_t g = 97;  // prime: only local size 1 or 97 divides it
  ASSERT_EQ(Launch(queue_, fill_, 1, nullptr, &g, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(AssertFilled(out_, 5, 0, g));
  hk_launch_counts c = Counts(fill_);
  EXPECT_EQ(Direct(c), 1u) << Describe(c);
}

TEST_F(HkErrors, GlobalOffsetIsHonouredInline) {
  SetFillArgs(fill_, out_, 3);
  size_t off = 256, g = 512, l = 32;
  ASSERT_EQ(Launch(queue_, fill_, 1, &off, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(AssertFilled(out_, 3, off, off + g));
  EXPECT_EQ(Direct(Counts(fill_)), 1u) << Describe(Counts(fill_));
}

TEST_F(HkErrors, EnqueueTaskRunsOneWorkItemInline) {
  SetFillArgs(fill_, out_, 42);
  ASSERT_EQ(LaunchTask(queue_, fill_, 0, nullptr, nullptr), CL_SUCCESS);
  std::vector<int> host = Read(out_);
  EXPECT_EQ(host[0], 42);
  EXPECT_EQ(host[1], kSentinel);
  EXPECT_EQ(Direct(Counts(fill_)), 1u) << Describe(Counts(fill_));
}

// ---- arguments ---------------------------------------------------------------------

TEST_F(HkErrors, UnsetArgumentsReturnInvalidKernelArgsLikePocl) {
  size_t g = 64, l = 8;
  ExpectLikePocl("no argument set", CL_INVALID_KERNEL_ARGS, [&](EnqueueFn fn) {
    return fn(queue_, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  });
  ASSERT_EQ(hkSetKernelArg(fill_, 0, sizeof(cl_mem), &out_), CL_SUCCESS);
  ExpectLikePocl("argument 1 unset", CL_INVALID_KERNEL_ARGS, [&](EnqueueFn fn) {
    return fn(queue_, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  });
  ExpectUntouched(out_, "unset arguments");
  hk_launch_counts c = Counts(fill_);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 0u) << Describe(c);
}

TEST_F(HkErrors, WrongArgumentSizeReturnsInvalidArgSizeLikePocl) {
  struct Case {
    const char *what;
    cl_kernel kernel;
    cl_uint index;
    size_t size;
    const void *value;
  };
  cl_kernel local_kernel = NewKernel("reverse_local");
  int v = 1;
  const Case cases[] = {
      {"3 bytes for a global pointer", fill_, 0, 3, &out_},
      {"16 bytes for a global pointer", fill_, 0, 16, &out_},
      {"2 bytes for an int", fill_, 1, 2, &v},
      {"8 bytes for an int", fill_, 1, 8, &v},
      {"0 bytes for an int", fill_, 1, 0, &v},
      {"0 bytes for a __local pointer", local_kernel, 1, 0, nullptr},
  };
  for (const Case &c : cases) {
    cl_int pocl = clSetKernelArg(c.kernel, c.index, c.size, c.value);
    cl_int hk = hkSetKernelArg(c.kernel, c.index, c.size, c.value);
    EXPECT_EQ(hk, pocl) << c.what;
    EXPECT_EQ(pocl, CL_INVALID_ARG_SIZE) << c.what;
  }
  // A value for a __local argument is an error too (the size alone is given).
  cl_int pocl = clSetKernelArg(local_kernel, 1, 64, &v);
  cl_int hk = hkSetKernelArg(local_kernel, 1, 64, &v);
  EXPECT_EQ(hk, pocl) << "non-NULL value for a __local argument";
  EXPECT_EQ(pocl, CL_INVALID_ARG_VALUE);
  hkReleaseKernel(local_kernel);
}

TEST_F(HkErrors, RejectedSetKernelArgLeavesArgumentUnset) {
  int v = 1;
  ASSERT_EQ(hkSetKernelArg(fill_, 0, 3, &out_), CL_INVALID_ARG_SIZE);
  ASSERT_EQ(hkSetKernelArg(fill_, 1, sizeof v, &v), CL_SUCCESS);
  size_t g = 64, l = 8;
  EXPECT_EQ(Launch(queue_, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_INVALID_KERNEL_ARGS);
  ExpectUntouched(out_, "argument 0 was never validly set");
}

TEST_F(HkErrors, RejectedSetKernelArgKeepsPreviousValue) {
  SetFillArgs(fill_, out_, 9);
  // Wrong sizes for both arguments: neither may replace the values set above.
  ASSERT_EQ(hkSetKernelArg(fill_, 0, 3, &other_), CL_INVALID_ARG_SIZE);
  short small = 77;
  ASSERT_EQ(hkSetKernelArg(fill_, 1, sizeof small, &small), CL_INVALID_ARG_SIZE);
  size_t g = 128, l = 16;
  ASSERT_EQ(Launch(queue_, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(AssertFilled(out_, 9, 0, g));
  ExpectUntouched(other_, "rejected buffer argument");
  EXPECT_EQ(Direct(Counts(fill_)), 1u) << Describe(Counts(fill_));
}

TEST_F(HkErrors, ArgIndexOutOfRangeReturnsInvalidArgIndexLikePocl) {
  int v = 1;
  for (cl_uint index : {2u, 3u, 1000u, 0xffffffffu}) {
    cl_int pocl = clSetKernelArg(fill_, index, sizeof v, &v);
    cl_int hk = hkSetKernelArg(fill_, index, sizeof v, &v);
    EXPECT_EQ(hk, pocl) << "index " << index;
    EXPECT_EQ(pocl, CL_INVALID_ARG_INDEX) << "index " << index;
  }
}

TEST_F(HkErrors, NullKernelInSetKernelArgReturnsInvalidKernel) {
  int v = 1;
  EXPECT_EQ(hkSetKernelArg(nullptr, 0, sizeof v, &v), CL_INVALID_KERNEL);
}

// Arguments set through plain clSetKernelArg are invisible to hostkernel: the launch must
// still work (through PoCL, which knows them) and say why it went there.
TEST_F(HkErrors, ArgumentsSetBehindHostkernelsBackGoToTheQueue) {
  int v = 11;
  ASSERT_EQ(clSetKernelArg(fill_, 0, sizeof(cl_mem), &out_), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(fill_, 1, sizeof v, &v), CL_SUCCESS);
  size_t g = 256, l = 32;
  ASSERT_EQ(Launch(queue_, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(AssertFilled(out_, 11, 0, g));
  hk_launch_counts c = Counts(fill_);
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 1u) << Describe(c);
  EXPECT_EQ(c.by_reason[HK_REASON_ARG_UNSET], 1u) << Describe(c);
  // Once hostkernel has seen every argument, launches run directly again.
  SetFillArgs(fill_, out_, 12);
  ASSERT_EQ(Launch(queue_, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(AssertFilled(out_, 12, 0, g));
  c = Counts(fill_);
  EXPECT_EQ(Direct(c), 1u) << Describe(c);
}

// ---- geometry ------------------------------------------------------------------------

TEST_F(HkErrors, WorkDimZeroAndFourReturnInvalidWorkDimensionLikePocl) {
  SetFillArgs(fill_, out_, 1);
  size_t g[4] = {16, 1, 1, 1}, l[4] = {8, 1, 1, 1};
  for (cl_uint dim : {0u, 4u}) {
    ExpectLikePocl(dim == 0 ? "work_dim 0" : "work_dim 4", CL_INVALID_WORK_DIMENSION,
                   [&](EnqueueFn fn) {
                     return fn(queue_, fill_, dim, nullptr, g, l, 0, nullptr, nullptr);
                   });
  }
  ExpectUntouched(out_, "bad work_dim");
  hk_launch_counts c = Counts(fill_);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 0u) << Describe(c);
}

// OpenCL 1.x returns CL_INVALID_GLOBAL_WORK_SIZE for a NULL global size or a zero entry;
// since 2.1 that is deprecated and PoCL 3.1 accepts both as an empty launch (CL_SUCCESS).
// hostkernel must return what PoCL returns and must not read through the NULL pointer.
TEST_F(HkErrors, NullOrZeroGlobalSizeReturnsWhatPoclReturnsAndRunsNothing) {
  SetFillArgs(fill_, out_, 1);
  size_t l = 8;
  ExpectLikePocl("global_work_size NULL", CL_SUCCESS, [&](EnqueueFn fn) {
    return fn(queue_, fill_, 1, nullptr, nullptr, &l, 0, nullptr, nullptr);
  });
  ExpectLikePocl("global_work_size NULL, local NULL", CL_SUCCESS, [&](EnqueueFn fn) {
    return fn(queue_, fill_, 1, nullptr, nullptr, nullptr, 0, nullptr, nullptr);
  });
  size_t zero = 0;
  ExpectLikePocl("global_work_size {0}", CL_SUCCESS, [&](EnqueueFn fn) {
    return fn(queue_, fill_, 1, nullptr, &zero, &l, 0, nullptr, nullptr);
  });
  size_t g2[2] = {16, 0}, l2[2] = {8, 1};
  ExpectLikePocl("global_work_size {16, 0}", CL_SUCCESS, [&](EnqueueFn fn) {
    return fn(queue_, fill_, 2, nullptr, g2, l2, 0, nullptr, nullptr);
  });
  ExpectUntouched(out_, "empty launch");
}

TEST_F(HkErrors, BadLocalSizesReturnWhatPoclReturns) {
  SetFillArgs(fill_, out_, 1);
  cl_kernel k2 = NewKernel("fill2d");
  SetFillArgs(k2, out_, 1);
  size_t max_wg = 0;
  ASSERT_EQ(clGetDeviceInfo(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg,
                            nullptr),
            CL_SUCCESS);
  struct Case {
    const char *what;
    cl_kernel k;
    cl_uint dim;
    size_t g[3], l[3];
    cl_int pocl;
  };
  const Case cases[] = {
      {"local 3 does not divide global 16", fill_, 1, {16}, {3}, CL_INVALID_WORK_GROUP_SIZE},
      {"local 2*max_wg", fill_, 1, {2 * max_wg}, {2 * max_wg}, CL_INVALID_WORK_GROUP_SIZE},
      {"local 5000 > max work-item size 4096", fill_, 1, {5000}, {5000},
       CL_INVALID_WORK_GROUP_SIZE},
      {"local 64x128: product > max_wg", k2, 2, {64, 128}, {64, 128},
       CL_INVALID_WORK_GROUP_SIZE},
      {"2D local {8,3} does not divide {16,16}", k2, 2, {16, 16}, {8, 3},
       CL_INVALID_WORK_GROUP_SIZE},
  };
  for (const Case &c : cases) {
    ExpectLikePocl(c.what, c.pocl, [&](EnqueueFn fn) {
      return fn(queue_, c.k, c.dim, nullptr, c.g, c.l, 0, nullptr, nullptr);
    });
  }
  ExpectUntouched(out_, "bad local sizes");
  for (cl_kernel k : {fill_, k2}) {
    hk_launch_counts c = Counts(k);
    EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 0u) << Describe(c);
  }
  hkReleaseKernel(k2);
}

// OpenCL 2.0+ allows non-uniform work-groups (global 100, local 8). PoCL 3.1's CPU device
// does not support them (CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT is false, whatever
// -cl-std) and returns CL_INVALID_WORK_GROUP_SIZE. hostkernel must hand such a launch to
// PoCL (reason HK_REASON_NON_UNIFORM) and return PoCL's answer: never run the complete
// groups directly. On a device that does support them, the launch must work through PoCL.
TEST_F(HkErrors, NonUniformWorkGroupsGoToPoclAndGetPoclsAnswer) {
  cl_int err = CL_SUCCESS;
  const char *opts = "-cl-std=CL3.0";
  cl_program p = clCreateProgramWithSource(ctx_, 1, &kSource, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clBuildProgram(p, 1, &device_, opts, nullptr, nullptr), CL_SUCCESS);
  cl_kernel k = hkCreateKernel(p, "fill", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  SetFillArgs(k, out_, 20);
  cl_bool non_uniform = CL_FALSE;
  ASSERT_EQ(clGetDeviceInfo(device_, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT,
                            sizeof non_uniform, &non_uniform, nullptr),
            CL_SUCCESS);
  size_t g = 100, l = 8;
  cl_int pocl = clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  clFinish(queue_);
  std::vector<int> reset(kElems, kSentinel);
  ASSERT_EQ(hkEnqueueWriteBuffer(queue_, out_, CL_TRUE, 0, kElems * sizeof(int), reset.data(),
                                 0, nullptr, nullptr),
            CL_SUCCESS);
  cl_int hk = Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  hkFinish(queue_);
  EXPECT_EQ(hk, pocl);
  hk_launch_counts c = Counts(k);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 0u) << Describe(c);
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 1u) << Describe(c);
  EXPECT_EQ(c.by_reason[HK_REASON_NON_UNIFORM], 1u) << Describe(c);
  if (non_uniform) {
    EXPECT_EQ(hk, CL_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(AssertFilled(out_, 20, 0, g));
  } else {
    EXPECT_EQ(pocl, CL_INVALID_WORK_GROUP_SIZE);
    ExpectUntouched(out_, "non-uniform launch rejected by PoCL");
  }
  hkReleaseKernel(k);
  hkReleaseProgram(p);
}

// ---- objects -------------------------------------------------------------------------

TEST_F(HkErrors, NullKernelReturnsInvalidKernel) {
  // PoCL 3.1 itself crashes on a NULL kernel in clEnqueueNDRangeKernel: not compared.
  size_t g = 16, l = 8;
  EXPECT_EQ(Launch(queue_, nullptr, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_INVALID_KERNEL);
  EXPECT_EQ(LaunchTask(queue_, nullptr, 0, nullptr, nullptr), CL_INVALID_KERNEL);
}

// hostkernel.h: "CL_INVALID_KERNEL if hostkernel has never seen the kernel".
TEST_F(HkErrors, LaunchCountsOfNullKernelReturnInvalidKernel) {
  hk_launch_counts c{};
  EXPECT_EQ(hkGetKernelLaunchCounts(nullptr, &c), CL_INVALID_KERNEL);
}

TEST_F(HkErrors, NullQueueReturnsInvalidCommandQueueLikePocl) {
  SetFillArgs(fill_, out_, 1);
  size_t g = 16, l = 8;
  ExpectLikePocl("NULL queue", CL_INVALID_COMMAND_QUEUE, [&](EnqueueFn fn) {
    return fn(nullptr, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  });
  ExpectUntouched(out_, "NULL queue");
}

TEST_F(HkErrors, QueueOfAnotherContextReturnsInvalidContextLikePocl) {
  SetFillArgs(fill_, out_, 1);
  cl_int err = CL_SUCCESS;
  cl_context ctx2 = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx2, device_, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  size_t g = 16, l = 8;
  cl_int pocl = clEnqueueNDRangeKernel(q2, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  cl_int hk = Launch(q2, fill_, 1, nullptr, &g, &l, 0, nullptr, nullptr);
  hkFinish(q2);
  EXPECT_EQ(hk, pocl);
  EXPECT_EQ(pocl, CL_INVALID_CONTEXT);
  ExpectUntouched(out_, "queue of another context");
  hkReleaseCommandQueue(q2);
  hkReleaseContext(ctx2);
}

// A kernel made by hkCreateKernel has been seen: zero counts, not an error.
TEST_F(HkErrors, KernelCreatedThroughHostkernelStartsWithZeroCounts) {
  hk_launch_counts c;
  std::memset(&c, 0xff, sizeof c);
  ASSERT_EQ(hkGetKernelLaunchCounts(fill_, &c), CL_SUCCESS);
  for (int p = 0; p < 3; ++p) EXPECT_EQ(c.by_path[p], 0u) << "path " << p;
  for (int r = 0; r < HK_REASON_COUNT; ++r) EXPECT_EQ(c.by_reason[r], 0u) << "reason " << r;
}

TEST_F(HkErrors, KernelNeverSeenByHostkernelHasNoCounts) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program_, "fill", &err);  // plain PoCL, not hkCreateKernel
  ASSERT_EQ(err, CL_SUCCESS);
  hk_launch_counts c{};
  EXPECT_EQ(hkGetKernelLaunchCounts(k, &c), CL_INVALID_KERNEL);
  clReleaseKernel(k);
}

TEST_F(HkErrors, LaunchAfterReleaseKernelReturnsInvalidKernel) {
  cl_kernel k = NewKernel("fill");
  SetFillArgs(k, out_, 1);
  size_t g = 16, l = 8;
  ASSERT_EQ(Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  ASSERT_EQ(hkReleaseKernel(k), CL_SUCCESS);
  // Nothing is created in between, so the address cannot have been reused.
  EXPECT_EQ(Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_INVALID_KERNEL);
  EXPECT_EQ(LaunchTask(queue_, k, 0, nullptr, nullptr), CL_INVALID_KERNEL);
}

// ---- wait lists ------------------------------------------------------------------------

TEST_F(HkErrors, WaitListCountWithNullListReturnsInvalidEventWaitList) {
  // PoCL 3.1 crashes here (it reads the NULL list): not compared.
  SetFillArgs(fill_, out_, 1);
  size_t g = 16, l = 8;
  EXPECT_EQ(Launch(queue_, fill_, 1, nullptr, &g, &l, 1, nullptr, nullptr),
            CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(Launch(queue_, fill_, 1, nullptr, &g, &l, 3, nullptr, nullptr),
            CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(LaunchTask(queue_, fill_, 2, nullptr, nullptr), CL_INVALID_EVENT_WAIT_LIST);
  ExpectUntouched(out_, "NULL wait list");
  hk_launch_counts c = Counts(fill_);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 0u) << Describe(c);
}

// Misuses PoCL 3.1's clEnqueueNDRangeKernel accepts (CL_SUCCESS) although the
// specification says CL_INVALID_EVENT_WAIT_LIST. hostkernel must not crash on them; it may
// return PoCL's code (and run the launch) or the specification's (and run nothing).
TEST_F(HkErrors, OddWaitListsGetPoclsOrTheSpecsAnswerWithoutCrashing) {
  SetFillArgs(fill_, out_, 1);
  size_t g = 16, l = 8;
  cl_event marker = nullptr;
  ASSERT_EQ(hkEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker), CL_SUCCESS);
  ASSERT_EQ(hkWaitForEvents(1, &marker), CL_SUCCESS);
  cl_event null_event = nullptr;
  struct Case {
    const char *what;
    cl_uint n;
    const cl_event *list;
  };
  const Case cases[] = {{"num_events 0 with a non-NULL list", 0, &marker},
                        {"a NULL event in the list", 1, &null_event}};
  for (const Case &c : cases) {
    cl_int pocl = clEnqueueNDRangeKernel(queue_, fill_, 1, nullptr, &g, &l, c.n, c.list,
                                         nullptr);
    clFinish(queue_);
    EXPECT_EQ(pocl, CL_SUCCESS) << c.what << ": PoCL 3.1 was expected to accept it";
    std::vector<int> reset(kElems, kSentinel);
    ASSERT_EQ(hkEnqueueWriteBuffer(queue_, out_, CL_TRUE, 0, kElems * sizeof(int),
                                   reset.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    cl_int hk = Launch(queue_, fill_, 1, nullptr, &g, &l, c.n, c.list, nullptr);
    hkFinish(queue_);
    EXPECT_TRUE(hk == pocl || hk == CL_INVALID_EVENT_WAIT_LIST)
        << c.what << ": hostkernel returns " << hk << ", PoCL " << pocl;
    if (hk != CL_SUCCESS) {
      ExpectUntouched(out_, c.what);
    } else {
      std::vector<int> host = Read(out_);
      for (size_t i = 0; i < g; ++i) ASSERT_EQ(host[i], 1 + int(i)) << c.what << " " << i;
    }
  }
  hkReleaseEvent(marker);
}

// ---- local memory ----------------------------------------------------------------------

TEST_F(HkErrors, LocalArgumentRunsInlineWithCorrectResults) {
  cl_kernel k = NewKernel("reverse_local");
  ASSERT_EQ(hkSetKernelArg(k, 0, sizeof(cl_mem), &out_), CL_SUCCESS);
  size_t g = 1024, l = 128;
  ASSERT_EQ(hkSetKernelArg(k, 1, l * sizeof(int), nullptr), CL_SUCCESS);
  ASSERT_EQ(Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  std::vector<int> host = Read(out_);
  for (size_t i = 0; i < g; ++i)
    ASSERT_EQ(host[i], int((i / l) * l + (l - 1 - i % l))) << "element " << i;
  EXPECT_EQ(Direct(Counts(k)), 1u) << Describe(Counts(k));
  hkReleaseKernel(k);
}

// PoCL 3.1 does not check __local sizes against CL_DEVICE_LOCAL_MEM_SIZE: its worker
// aborts on an assertion. hostkernel must not crash: either it returns an error code, or
// the launch succeeds with correct results. Run in a child process so that a crash fails
// this test only.
TEST_F(HkErrors, LocalMemoryBeyondDeviceLimitDoesNotCrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  cl_ulong local_mem = 0;
  ASSERT_EQ(clGetDeviceInfo(device_, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem,
                            nullptr),
            CL_SUCCESS);
  auto child = [&] {
    cl_kernel k = NewKernel("reverse_local");
    hkSetKernelArg(k, 0, sizeof(cl_mem), &out_);
    cl_int set = hkSetKernelArg(k, 1, 2 * local_mem, nullptr);
    size_t g = 64, l = 64;
    cl_int launch =
        Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr);
    hkFinish(queue_);
    if (set == CL_SUCCESS && launch == CL_SUCCESS) {
      std::vector<int> host = Read(out_);
      for (size_t i = 0; i < g; ++i)
        if (host[i] != int(l - 1 - i)) {
          fprintf(stderr, "launch succeeded but element %zu is %d\n", i, host[i]);
          std::_Exit(2);
        }
    }
    fprintf(stderr, "set=%d launch=%d\n", set, launch);
    std::_Exit(0);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
