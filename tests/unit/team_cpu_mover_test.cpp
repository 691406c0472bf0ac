// CpuMover: a thread that shares a CPU with the thread it works for moves off that CPU
// and stays free to run on all its CPUs afterwards; it moves at most once a millisecond,
// never where it has no other CPU, and never undoes a pin set after it was made.

#include "team/cpu_mover.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <thread>

namespace {

using hk::team::CpuMover;

int allowedCount() {
  cpu_set_t s;
  return sched_getaffinity(0, sizeof s, &s) == 0 ? CPU_COUNT(&s) : 0;
}

// Runs `body` on a new thread (each test changes its thread's affinity).
template <typename Body>
void onThread(Body body) {
  std::thread t(body);
  t.join();
}

TEST(CpuMover, MovesOffTheCpuAndKeepsEveryCpuAllowed) {
  if (allowedCount() < 2) GTEST_SKIP() << "needs two allowed CPUs";
  onThread([] {
    cpu_set_t before;
    ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
    CpuMover mover;
      const int cpu = sched_getcpu();
    ASSERT_GE(cpu, 0);
    EXPECT_TRUE(mover.moveOff(cpu));
    EXPECT_NE(sched_getcpu(), cpu);
    EXPECT_EQ(mover.moves(), 1u);
    cpu_set_t after;
    ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
    EXPECT_TRUE(CPU_EQUAL(&before, &after));
  });
}

// An interval no test run reaches (an hour): the second move comes too soon, however slow
// the machine (a sanitizer build beside other jobs).
TEST(CpuMover, MovesAtMostOncePerInterval) {
  if (allowedCount() < 2) GTEST_SKIP() << "needs two allowed CPUs";
  onThread([] {
    CpuMover mover(3'600'000'000'000);
      EXPECT_TRUE(mover.moveOff(sched_getcpu()));
    EXPECT_FALSE(mover.moveOff(sched_getcpu()));
    EXPECT_EQ(mover.moves(), 1u);
  });
}

TEST(CpuMover, StaysWhereItHasNoOtherCpu) {
  onThread([] {
    const int cpu = sched_getcpu();
    ASSERT_GE(cpu, 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    CpuMover mover;
      EXPECT_FALSE(mover.moveOff(cpu));
    EXPECT_EQ(sched_getcpu(), cpu);
  });
}

// The application pins the thread after the mover's first move: a later move keeps the pin
// (the allowed CPUs are read at each move, not remembered).
TEST(CpuMover, KeepsAPinTheApplicationSetsLater) {
  if (allowedCount() < 2) GTEST_SKIP() << "needs two allowed CPUs";
  onThread([] {
    CpuMover mover;
    EXPECT_TRUE(mover.moveOff(sched_getcpu()));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const int cpu = sched_getcpu();
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    EXPECT_FALSE(mover.moveOff(cpu));
    cpu_set_t now;
    ASSERT_EQ(sched_getaffinity(0, sizeof now, &now), 0);
    EXPECT_TRUE(CPU_EQUAL(&now, &one));
    EXPECT_EQ(sched_getcpu(), cpu);
  });
}

}  // namespace
