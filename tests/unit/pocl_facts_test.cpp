// The PoCL facts of src/pocl/ that need no PoCL device: which environment variables key
// the program cache, the profiling time base, the poclbinary magic, PoCL's names for
// per-group state and the room on PoCL's worker stacks.
#include <gtest/gtest.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <cstdint>
#include <string>

#include "pocl/binary.hpp"
#include "pocl/compiler_names.hpp"
#include "pocl/environment.hpp"
#include "pocl/time_base.hpp"
#include "pocl/worker_stack.hpp"

namespace {

TEST(PoclFacts, CompilerEnvironmentKeepsOnlyVariablesThatChangeCompiledCode) {
  setenv("POCL_WORK_GROUP_METHOD", "cbs", 1);
  setenv("POCL_EXTRA_BUILD_FLAGS", "-O1", 1);
  setenv("POCL_CACHE_DIR", "/tmp/elsewhere", 1);
  setenv("POCL_DEBUG", "all", 1);
  setenv("POCL_MAX_PTHREAD_COUNT", "2", 1);
  setenv("POCL_AFFINITY", "1", 1);
  const std::string env = hk::pocl::compilerEnvironment();
  const auto flags = env.find("POCL_EXTRA_BUILD_FLAGS=-O1;");
  const auto method = env.find("POCL_WORK_GROUP_METHOD=cbs;");
  ASSERT_NE(flags, std::string::npos) << env;
  ASSERT_NE(method, std::string::npos) << env;
  EXPECT_LT(flags, method) << "sorted, so that the key does not depend on the order";
  for (const char *ignored : {"POCL_CACHE_DIR", "POCL_DEBUG", "POCL_MAX_PTHREAD_COUNT",
                              "POCL_AFFINITY"})
    EXPECT_EQ(env.find(ignored), std::string::npos) << ignored << " in " << env;
  for (const char *name : {"POCL_WORK_GROUP_METHOD", "POCL_EXTRA_BUILD_FLAGS", "POCL_CACHE_DIR",
                           "POCL_DEBUG", "POCL_MAX_PTHREAD_COUNT", "POCL_AFFINITY"})
    unsetenv(name);
}

TEST(PoclFacts, TimeBaseIsClockMonotonicRaw) {
  auto raw = [] {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
           static_cast<std::uint64_t>(ts.tv_nsec);
  };
  const std::uint64_t before = raw();
  const std::uint64_t t = hk::pocl::timeBaseNs();
  const std::uint64_t after = raw();
  EXPECT_LE(before, t);
  EXPECT_LE(t, after);
}

TEST(PoclFacts, PoclBinaryNeedsTheWholeMagic) {
  const std::uint8_t good[] = {'p', 'o', 'c', 'l', 'b', 'i', 'n', '\0', 9};
  const std::uint8_t wrong[] = {'p', 'o', 'c', 'l', 'b', 'i', 'x', '\0', 9};
  EXPECT_TRUE(hk::pocl::isPoclBinary(good, sizeof good));
  EXPECT_FALSE(hk::pocl::isPoclBinary(good, 7)) << "truncated magic";
  EXPECT_FALSE(hk::pocl::isPoclBinary(wrong, sizeof wrong));
  EXPECT_FALSE(hk::pocl::isPoclBinary(nullptr, 16));
}

TEST(PoclFacts, WorkGroupStateNamesAreTold) {
  for (const char *name : {"_local_id_x", "_local_size_y", "_group_id_z"})
    EXPECT_TRUE(hk::pocl::isWorkGroupStateName(name)) << name;
  for (const char *name : {"_Z13get_global_idj", "axpy", "llvm.fmuladd.f32"})
    EXPECT_FALSE(hk::pocl::isWorkGroupStateName(name)) << name;
}

TEST(PoclFacts, WorkerStackRoomIsTheDefaultThreadStackLessAReserve) {
  std::size_t size = 0;
  pthread_attr_t attr;
  ASSERT_EQ(pthread_getattr_default_np(&attr), 0);
  pthread_attr_getstacksize(&attr, &size);
  pthread_attr_destroy(&attr);
  const std::uint64_t room = hk::pocl::workerStackRoom();
  EXPECT_GT(room, 0u);
  EXPECT_LT(room, size);
  EXPECT_EQ(room, hk::pocl::workerStackRoom()) << "read once";
}

}  // namespace
