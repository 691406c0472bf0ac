// The end of a buffer hostkernel gave memory to (queue::releaseBuffer): its last release
// frees it at once, on the releasing thread, with no destructor callback (on PoCL 7.1 one
// would move the buffer's destruction to PoCL's callback thread); a buffer that a command
// or a sub-buffer still holds then stays whole until PoCL destroys it.
#include <CL/cl.h>
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "queue/buffers.hpp"
#include "support/pocl_context.hpp"

namespace {

using hk::queue::buffersLeftToPocl;
using hk::queue::findBuffer;

class BufferLifetime : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
    cl_int err = CL_SUCCESS;
    q_ = hkCreateCommandQueue(ctx_, device_, 0, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (q_) hkReleaseCommandQueue(q_);
    if (ctx_) clReleaseContext(ctx_);
  }
  cl_mem NewBuffer(size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem m = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    return m;
  }
  // Writes 4 KB of `value` into `m` and reads them back.
  void RoundTrip(cl_mem m, int value) {
    std::vector<int> in(1024, value), out(1024, -1);
    ASSERT_EQ(hkEnqueueWriteBuffer(q_, m, CL_TRUE, 0, 4096, in.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(hkEnqueueReadBuffer(q_, m, CL_TRUE, 0, 4096, out.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(out, in);
  }
  // Waits (up to 10 s) for the record of `m` to go: PoCL 7.1 runs destructor callbacks
  // on its own thread.
  static bool Forgotten(cl_mem m) {
    for (int i = 0; i < 1000 && findBuffer(m); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return findBuffer(m) == nullptr;
  }

  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue q_ = nullptr;
};

TEST_F(BufferLifetime, ALastReleaseFreesTheBufferAtOnce) {
  const std::uint64_t before = buffersLeftToPocl();
  for (int i = 0; i < 8; ++i) {
    cl_mem m = NewBuffer(4096);
    ASSERT_NE(m, nullptr);
    ASSERT_NE(findBuffer(m), nullptr) << "hostkernel gives new buffers their memory";
    ASSERT_NO_FATAL_FAILURE(RoundTrip(m, i));
    ASSERT_EQ(hkReleaseMemObject(m), CL_SUCCESS);
    EXPECT_EQ(findBuffer(m), nullptr) << "forgotten with its last release";
  }
  EXPECT_EQ(buffersLeftToPocl(), before) << "no buffer was left to a destructor callback";
}

TEST_F(BufferLifetime, AReleasedBufferStaysForACommandOfPoclsQueue) {
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(ctx_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem m = NewBuffer(4096);
  ASSERT_NE(m, nullptr);
  std::vector<int> in(1024, 7), out(1024, -1);
  ASSERT_EQ(hkEnqueueWriteBuffer(q_, m, CL_FALSE, 0, 4096, in.data(), 1, &gate, nullptr),
            CL_SUCCESS);
  // The read waits behind the write, which waits for the user event: PoCL's queue holds
  // both, and both hold the buffer.
  ASSERT_EQ(hkEnqueueReadBuffer(q_, m, CL_FALSE, 0, 4096, out.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  const std::uint64_t before = buffersLeftToPocl();
  ASSERT_EQ(hkReleaseMemObject(m), CL_SUCCESS);
  EXPECT_NE(findBuffer(m), nullptr) << "commands still use it";
  EXPECT_EQ(buffersLeftToPocl(), before + 1);
  ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(hkFinish(q_), CL_SUCCESS);
  EXPECT_EQ(out, in);
  EXPECT_TRUE(Forgotten(m)) << "forgotten when PoCL destroyed it";
  clReleaseEvent(gate);
}

TEST_F(BufferLifetime, AParentReleasedBeforeItsSubBufferStaysForIt) {
  cl_mem parent = NewBuffer(8192);
  ASSERT_NE(parent, nullptr);
  const cl_buffer_region region{4096, 4096};
  cl_int err = CL_SUCCESS;
  cl_mem sub = hkCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                 &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NE(findBuffer(sub), nullptr);
  ASSERT_EQ(hkReleaseMemObject(parent), CL_SUCCESS);
  EXPECT_NE(findBuffer(parent), nullptr) << "the sub-buffer holds it";
  ASSERT_NO_FATAL_FAILURE(RoundTrip(sub, 3));
  ASSERT_EQ(hkReleaseMemObject(sub), CL_SUCCESS);
  EXPECT_EQ(findBuffer(sub), nullptr);
  EXPECT_TRUE(Forgotten(parent));
}

}  // namespace
