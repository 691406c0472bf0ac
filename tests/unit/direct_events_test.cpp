// Events of direct commands (queue/events.hpp): a released one is kept and handed out
// again as the event of the next direct command of its context, with that command's
// answers; a wait list of such events is nothing to wait for, and a launch behind it
// runs directly; spare events never keep a released context alive.
#include <CL/cl.h>
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "pocl/object_id.hpp"
#include "support/launch_counts.hpp"
#include "support/pocl_context.hpp"

namespace {

const char *kAddOne = "kernel void add_one(global int *a) { a[get_global_id(0)] += 1; }";
constexpr size_t kItems = 64;

class DirectEvents : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
    cl_int err = CL_SUCCESS;
    const cl_queue_properties profiling[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    q_ = hkCreateCommandQueueWithProperties(ctx_, device_, profiling, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    program_ = clCreateProgramWithSource(ctx_, 1, &kAddOne, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(clBuildProgram(program_, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
    kernel_ = hkCreateKernel(program_, "add_one", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    buf_ = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE, kItems * sizeof(int), nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(kernel_, 0, sizeof buf_, &buf_), CL_SUCCESS);
    // A kernel's first launch may go to PoCL's queue (docs/first-launch.md).
    ASSERT_EQ(Launch(0, nullptr, nullptr), CL_SUCCESS);
    ASSERT_EQ(hkFinish(q_), CL_SUCCESS);
  }
  void TearDown() override {
    if (buf_) hkReleaseMemObject(buf_);
    if (kernel_) hkReleaseKernel(kernel_);
    if (program_) hkReleaseProgram(program_);
    if (q_) hkReleaseCommandQueue(q_);
    if (ctx_) hkReleaseContext(ctx_);
  }
  cl_int Launch(cl_uint nwait, const cl_event *waits, cl_event *event) {
    const size_t global = kItems;
    return hkEnqueueNDRangeKernel(q_, kernel_, 1, nullptr, &global, nullptr, nwait, waits,
                                  event);
  }
  int First() {
    int v = -1;
    EXPECT_EQ(hkEnqueueReadBuffer(q_, buf_, CL_TRUE, 0, sizeof v, &v, 0, nullptr, nullptr),
              CL_SUCCESS);
    return v;
  }
  template <typename T>
  T Info(cl_event e, cl_event_info name) {
    T v{};
    EXPECT_EQ(hkGetEventInfo(e, name, sizeof v, &v, nullptr), CL_SUCCESS);
    return v;
  }

  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue q_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  cl_mem buf_ = nullptr;
};

TEST_F(DirectEvents, AReleasedEventIsTheNextCommandsEvent) {
  const int zero = 0;
  cl_event fill = nullptr;
  ASSERT_EQ(hkEnqueueFillBuffer(q_, buf_, &zero, sizeof zero, 0, kItems * sizeof(int), 0,
                                nullptr, &fill),
            CL_SUCCESS);
  ASSERT_EQ(Info<cl_command_type>(fill, CL_EVENT_COMMAND_TYPE), CL_COMMAND_FILL_BUFFER);
  const std::uint64_t id = hk::pocl::objectId(fill);
  cl_ulong fill_end = 0;
  ASSERT_EQ(hkGetEventProfilingInfo(fill, CL_PROFILING_COMMAND_END, sizeof fill_end, &fill_end,
                                    nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkReleaseEvent(fill), CL_SUCCESS);

  cl_event launch = nullptr;
  ASSERT_EQ(Launch(0, nullptr, &launch), CL_SUCCESS);
  if (id) EXPECT_EQ(hk::pocl::objectId(launch), id) << "the released event was not reused";
  EXPECT_EQ(Info<cl_command_type>(launch, CL_EVENT_COMMAND_TYPE), CL_COMMAND_NDRANGE_KERNEL);
  EXPECT_EQ(Info<cl_command_queue>(launch, CL_EVENT_COMMAND_QUEUE), q_);
  EXPECT_EQ(Info<cl_context>(launch, CL_EVENT_CONTEXT), ctx_);
  EXPECT_EQ(Info<cl_int>(launch, CL_EVENT_COMMAND_EXECUTION_STATUS), CL_COMPLETE);
  EXPECT_EQ(Info<cl_uint>(launch, CL_EVENT_REFERENCE_COUNT), 1u);
  cl_ulong queued = 0, end = 0;
  ASSERT_EQ(hkGetEventProfilingInfo(launch, CL_PROFILING_COMMAND_QUEUED, sizeof queued,
                                    &queued, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkGetEventProfilingInfo(launch, CL_PROFILING_COMMAND_END, sizeof end, &end,
                                    nullptr),
            CL_SUCCESS);
  EXPECT_GE(queued, fill_end) << "the launch's own times";
  EXPECT_GE(end, queued);
  // A callback set on it runs at once: it is complete.
  std::atomic<int> called{0};
  ASSERT_EQ(clSetEventCallback(
                launch, CL_COMPLETE,
                [](cl_event, cl_int, void *n) { static_cast<std::atomic<int> *>(n)->fetch_add(1); },
                &called),
            CL_SUCCESS);
  for (int i = 0; i < 1000 && !called.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(called.load(), 1);
  ASSERT_EQ(hkReleaseEvent(launch), CL_SUCCESS);
  EXPECT_EQ(First(), 1);
}

TEST_F(DirectEvents, ALaunchBehindCompleteDirectEventsRunsDirectly) {
  const hk_launch_counts before = Counts(kernel_);
  cl_event last = nullptr;
  constexpr int kChain = 20;
  for (int i = 0; i < kChain; ++i) {
    cl_event next = nullptr;
    ASSERT_EQ(Launch(last ? 1 : 0, last ? &last : nullptr, &next), CL_SUCCESS);
    if (last) ASSERT_EQ(hkReleaseEvent(last), CL_SUCCESS);
    last = next;
  }
  ASSERT_EQ(hkWaitForEvents(1, &last), CL_SUCCESS);
  ASSERT_EQ(hkReleaseEvent(last), CL_SUCCESS);
  const hk_launch_counts after = Counts(kernel_);
  EXPECT_EQ(Direct(after) - Direct(before), static_cast<cl_ulong>(kChain)) << Describe(after);
  EXPECT_EQ(First(), 1 + kChain);
}

TEST_F(DirectEvents, AnEventOfAnotherContextGetsPoclsAnswer) {
  cl_context other = nullptr;
  cl_int err = CL_SUCCESS;
  other = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_command_queue oq = hkCreateCommandQueueWithProperties(other, device_, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem ob = hkCreateBuffer(other, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const int zero = 0;
  cl_event foreign = nullptr;
  ASSERT_EQ(hkEnqueueFillBuffer(oq, ob, &zero, sizeof zero, 0, 64, 0, nullptr, &foreign),
            CL_SUCCESS);
  // PoCL's answer, whatever its release says (3.1 accepts the launch).
  const size_t global = kItems;
  const cl_int pocl = clEnqueueNDRangeKernel(q_, kernel_, 1, nullptr, &global, nullptr, 1,
                                             &foreign, nullptr);
  EXPECT_EQ(Launch(1, &foreign, nullptr), pocl);
  int v = 0;
  EXPECT_EQ(hkEnqueueReadBuffer(q_, buf_, CL_TRUE, 0, sizeof v, &v, 1, &foreign, nullptr),
            CL_INVALID_CONTEXT);
  EXPECT_EQ(hkFinish(q_), CL_SUCCESS);
  hkReleaseEvent(foreign);
  hkReleaseMemObject(ob);
  hkReleaseCommandQueue(oq);
  hkReleaseContext(other);
}

// Spare events hold their context: releasing the context gives them back to PoCL, whose
// context then dies with the application's last reference (its destructor callback
// runs; PoCL 7.1 runs it on its callback thread, hence the wait).
TEST(DirectEventsContext, KeptEventsDoNotKeepTheirContextAlive) {
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device, &ctx));
  std::atomic<int> destroyed{0};
  ASSERT_EQ(clSetContextDestructorCallback(
                ctx, [](cl_context, void *n) { static_cast<std::atomic<int> *>(n)->store(1); },
                &destroyed),
            CL_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_command_queue q = hkCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem b = hkCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const int zero = 0;
  for (int i = 0; i < 4; ++i) {
    cl_event e = nullptr;
    ASSERT_EQ(hkEnqueueFillBuffer(q, b, &zero, sizeof zero, 0, 64, 0, nullptr, &e), CL_SUCCESS);
    ASSERT_EQ(hkReleaseEvent(e), CL_SUCCESS);
  }
  ASSERT_EQ(hkReleaseMemObject(b), CL_SUCCESS);
  ASSERT_EQ(hkReleaseCommandQueue(q), CL_SUCCESS);
  ASSERT_EQ(hkReleaseContext(ctx), CL_SUCCESS);
  for (int i = 0; i < 1000 && !destroyed.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(destroyed.load(), 1) << "the context outlived its last release";
}

}  // namespace
