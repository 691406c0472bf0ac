// Where a thread's stack ends (src/kernel/thread_state.hpp): the main thread's end read
// from AT_EXECFN and RLIMIT_STACK is the one glibc finds in /proc/self/maps, and that rule
// never claims another thread's stack; ThreadState::setUp keeps its reserve above it.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>

#include "kernel/thread_state.hpp"

namespace {

using hk::kernel::mainThreadStackEnd;
using hk::kernel::pthreadStackEnd;

std::uintptr_t here() { return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)); }

TEST(ThreadStackEnd, MainThreadRuleAgreesWithGlibc) {
  struct rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &rl), 0);
  if (rl.rlim_cur == RLIM_INFINITY) GTEST_SKIP() << "unlimited stack: the rule does not apply";
  std::uintptr_t fast = 0, glibc = 0;
  ASSERT_TRUE(mainThreadStackEnd(here(), fast));
  ASSERT_TRUE(pthreadStackEnd(here(), glibc));
  EXPECT_EQ(fast, glibc);
  EXPECT_LT(fast, here());
}

TEST(ThreadStackEnd, MainThreadRuleRefusesOtherThreads) {
  std::uintptr_t fast = 1, glibc = 0, sp = 0;
  bool claimed = true, known = false;
  std::thread([&] {
    sp = here();
    claimed = mainThreadStackEnd(sp, fast);
    known = pthreadStackEnd(sp, glibc);
  }).join();
  EXPECT_FALSE(claimed);
  ASSERT_TRUE(known);
  EXPECT_LT(glibc, sp);
}

TEST(ThreadStackEnd, SetUpLeavesRoomOnBothKindsOfThread) {
  auto room = [] {
    hk::kernel::ThreadState &ts = hk::kernel::threadState();
    if (!ts.ready) ts.setUp(4096);
    return ts.stackRoom();
  };
  // The main thread: 8 MiB by default, less the reserve and what the test runner uses.
  struct rlimit rl;
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &rl), 0);
  const std::uint64_t main_room = room();
  EXPECT_GT(main_room, 0u);
  if (rl.rlim_cur != RLIM_INFINITY) EXPECT_LT(main_room, rl.rlim_cur);
  std::uint64_t thread_room = 0;
  std::thread([&] { thread_room = room(); }).join();
  EXPECT_GT(thread_room, 0u);
}

}  // namespace
