// A test fixture with PoCL's CPU device, a context and an in-order queue (device_, ctx_,
// queue_), whose TearDown checks what every test must leave true:
// - no PoCL work is left on queue_ after hkFinish (ExpectNoQueuedPoclWork);
// - the counts of the fixture's own kernels (Own()) are consistent: inline + team +
//   queue = the launches made through Launch() or LaunchTask() (hkEnqueueNDRangeKernel
//   and hkEnqueueTask, watched) that took a path, and every queue launch names its reason
//   (the reasons sum to the queue count, HK_REASON_NONE never among them).
// Launch() also checks each launch of an owned kernel as it is made: counted at most
// once, and exactly once if it succeeded (a launch that hostkernel rejects itself, such
// as one with an inconsistent wait list, takes no path).
//
//   class MyTest : public PoclTest {
//    protected:
//     MyTest() : PoclTest(kSource) {}             // program_ built from kSource
//     void SetUpTestObjects() override { kernel_ = Own(hkCreateKernel(program_, "fill", &err)); }
//     void ReleaseTestObjects() override { hkReleaseKernel(kernel_); }
//   };
//   TEST_F(MyTest, Runs) { ASSERT_EQ(Launch(queue_, kernel_, 1, ...), CL_SUCCESS); }
#pragma once

#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

#include <chrono>
#include <map>
#include <thread>

#include "support/launch_counts.hpp"
#include "support/pocl_env.hpp"
#include "support/queue_checks.hpp"

class PoclTest : public ::testing::Test {
 public:
  using EnqueueFn = decltype(&hkEnqueueNDRangeKernel);

  // hkEnqueueNDRangeKernel and hkEnqueueTask, counting the launches of owned kernels.
  static cl_int Launch(cl_command_queue queue, cl_kernel kernel, cl_uint dim,
                       const size_t *offset, const size_t *global, const size_t *local,
                       cl_uint nwait, const cl_event *waits, cl_event *event) {
    const cl_ulong before = CountsSoFar(kernel);
    const cl_int err = hkEnqueueNDRangeKernel(queue, kernel, dim, offset, global, local,
                                              nwait, waits, event);
    Note(kernel, before, err);
    return err;
  }
  static cl_int LaunchTask(cl_command_queue queue, cl_kernel kernel, cl_uint nwait,
                           const cl_event *waits, cl_event *event) {
    const cl_ulong before = CountsSoFar(kernel);
    const cl_int err = hkEnqueueTask(queue, kernel, nwait, waits, event);
    Note(kernel, before, err);
    return err;
  }

 protected:
  // With a `source`, SetUp builds it into program_ through hostkernel.
  explicit PoclTest(QueueBy queue_by = QueueBy::kHostkernel, const char *source = nullptr)
      : queue_by_(queue_by), source_(source) {}
  explicit PoclTest(const char *source) : PoclTest(QueueBy::kHostkernel, source) {}

  // Makes the fixture's objects, then the derived fixture's (SetUpTestObjects) unless that
  // failed fatally.
  void SetUp() final {
    current_ = this;
    ASSERT_TRUE(FindPoclDevice(nullptr, &device_)) << "no PoCL CPU device";
    cl_int err = CL_SUCCESS;
    ctx_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    queue_ = MakeQueue(ctx_, device_, queue_by_, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    if (source_) {
      program_ = BuildProgram(source_);
      ASSERT_NE(program_, nullptr);
    }
    SetUpTestObjects();
  }

  // The derived fixture's objects, made once device_, ctx_, queue_ and program_ are.
  virtual void SetUpTestObjects() {}

  // Checks the invariants, then releases the test's objects and the fixture's.
  void TearDown() final {
    if (queue_) ExpectNoQueuedPoclWork(queue_);
    for (const auto &[kernel, launches] : launches_) ExpectCountsConsistent(kernel, launches);
    ReleaseTestObjects();
    if (program_) hkReleaseProgram(program_);
    if (queue_) hkReleaseCommandQueue(queue_);
    if (ctx_) hkReleaseContext(ctx_);
    current_ = nullptr;
  }

  // The derived fixture's objects, released after the checks and before the program and
  // the context.
  virtual void ReleaseTestObjects() {}

  // A kernel the fixture releases in ReleaseTestObjects(): its launches are checked as
  // they are made through Launch() and LaunchTask(), and its counts at TearDown.
  cl_kernel Own(cl_kernel kernel) {
    if (kernel) launches_.emplace(kernel, 0);
    return kernel;
  }

  // `source` created and built for device_ through hostkernel; null, and a failure that
  // names the error and the build log, if either fails.
  cl_program BuildProgram(const char *source) {
    cl_int err = CL_SUCCESS;
    cl_program program = hkCreateProgramWithSource(ctx_, 1, &source, nullptr, &err);
    if (err == CL_SUCCESS) err = hkBuildProgram(program, 1, &device_, "", nullptr, nullptr);
    if (err == CL_SUCCESS) return program;
    ADD_FAILURE() << "program: error " << err << "; "
                  << (program ? BuildLog(program, device_) : "");
    if (program) hkReleaseProgram(program);
    return nullptr;
  }

  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;  // built from the constructor's source

 private:
  static bool Owned(cl_kernel kernel) {
    return current_ && current_->launches_.count(kernel);
  }
  static cl_ulong CountsSoFar(cl_kernel kernel) {
    return Owned(kernel) ? Total(Counts(kernel)) : 0;
  }
  // Records the launch of `kernel` on `queue` that returned `err`, its counts having been
  // `before`. A launch handed to the background thread (one that took >= 5 us before, as
  // on a loaded machine) is counted by that thread when it ends: a successful launch is
  // found uncounted only after 10 s of waiting for that (not hkFinish: the queue may hold
  // a command that waits for a user event).
  static void Note(cl_kernel kernel, cl_ulong before, cl_int err) {
    if (!Owned(kernel)) return;
    cl_ulong added = Total(Counts(kernel)) - before;
    for (int i = 0; err == CL_SUCCESS && added == 0 && i < 1000; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      added = Total(Counts(kernel)) - before;
    }
    EXPECT_LE(added, 1u) << "one launch counted " << added << " times";
    if (err == CL_SUCCESS) EXPECT_EQ(added, 1u) << "a successful launch was not counted";
    current_->launches_[kernel] += added;
  }

  static void ExpectCountsConsistent(cl_kernel kernel, cl_ulong launches) {
    const hk_launch_counts c = Counts(kernel);
    EXPECT_EQ(Total(c), launches) << "launches by path: " << Describe(c);
    EXPECT_EQ(c.by_reason[HK_REASON_NONE], 0u) << "a queue launch without a reason";
    cl_ulong by_reason = 0;
    for (int r = 0; r < HK_REASON_COUNT; ++r) by_reason += c.by_reason[r];
    EXPECT_EQ(by_reason, c.by_path[HK_PATH_QUEUE]) << Describe(c);
  }

  static inline PoclTest *current_ = nullptr;
  const QueueBy queue_by_;
  const char *const source_;
  std::map<cl_kernel, cl_ulong> launches_;
};
