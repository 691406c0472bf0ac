// Regression: the first launches of several kernels of one freshly built program, made at
// the same moment from several application threads, each take the program's binary
// (ProgramImage::create, called outside the registry's lock). PoCL 3.1 serializes the
// binary at the first CL_PROGRAM_BINARY_SIZES query and, while it does, answers a
// concurrent query of the same program with a bogus size (268435456, its maximum binary
// size): that thread then allocates 256 MiB, gets a binary followed by zeros, the
// (correct) parse fails with "unexpected trailing bytes", and its kernel goes to PoCL's
// queue for good (HK_REASON_PREPARE_FAILED). Found by tests/soak (hk_soak), where it
// happened in about one run out of four.
//
// hostkernel must not query a program's binary from two threads at once.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "program/program_image.hpp"
#include "support/pocl_context.hpp"

namespace {

const char *kSource = R"CLC(
kernel void a(global int *o) { o[get_global_id(0)] = 1; }
kernel void b(global int *o, int s) { o[get_global_id(0)] = s; }
kernel void c(global float *o, float f) { o[get_global_id(0)] = f * 2.0f; }
)CLC";

TEST(ProgramImageRace, ConcurrentFirstBinaryQueriesOfOneProgramAllSucceed) {
  ScopedPoclContext cl;
  ASSERT_NE(cl.context, nullptr) << cl.error;
  constexpr int kRounds = 16, kThreads = 4;
  int failures = 0;
  std::string first_error;
  for (int round = 0; round < kRounds; ++round) {
    // A new program object each round: PoCL serializes a program's binary once.
    cl_program program = cl.buildProgram(kSource);
    ASSERT_NE(program, nullptr) << cl.error;
    std::atomic<int> ready{0};
    std::vector<std::string> errors(kThreads);
    // Not vector<bool>: its elements share words, and the threads write theirs at once.
    std::vector<char> ok(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        std::string error;
        auto img = hk::program::ProgramImage::create(program, cl.device, error);
        ok[t] = img && img->binary().kernels.size() == 3 && img->kernel("b", error);
        errors[t] = error;
      });
    for (auto &th : threads) th.join();
    for (int t = 0; t < kThreads; ++t)
      if (!ok[t]) {
        ++failures;
        if (first_error.empty())
          first_error = "round " + std::to_string(round) + ", thread " + std::to_string(t) +
                        ": " + errors[t];
      }
    clReleaseProgram(program);
  }
  EXPECT_EQ(failures, 0) << failures << " of " << kRounds * kThreads
                         << " concurrent binary queries failed; first: " << first_error;
}

}  // namespace
