// execution_failed (PoCL 7.x, src/pocl/abi.hpp): a work-group function sets it when one of
// its work-items reaches `unreachable`; PoCL's queue then fails the launch's event. A
// direct launch must see the flag whichever group set it, inline (the launch's own
// context) and on the team (each thread's copy of it), and must start with it clear.
// The work-group functions here stand in for PoCL's: they set the flag the way PoCL's
// compiled code does (one 32-bit store of 1 at offset 108).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "kernel/kernel_args.hpp"
#include "kernel/thread_state.hpp"
#include "launch/run_groups.hpp"
#include "pocl/abi.hpp"

namespace {

using hk::pocl::PoclContext;

constexpr std::size_t kFailedOffset = 108;
std::uint64_t g_failing_group = UINT64_MAX;  // group x whose work-item fails

void failInOneGroup(void **, PoclContext *pc, std::size_t x, std::size_t, std::size_t) {
  if (x != g_failing_group) return;
  const std::uint32_t one = 1;
  std::memcpy(reinterpret_cast<unsigned char *>(pc) + kFailedOffset, &one, sizeof one);
}

hk::launch::Plan planOf(std::uint64_t groups) {
  hk::launch::Plan plan{};
  for (int d = 0; d < 3; ++d) plan.pc.num_groups[d] = d == 0 ? groups : 1;
  for (int d = 0; d < 3; ++d) plan.pc.local_size[d] = 1;
  hk::pocl::setWorkDim(plan.pc, 1);
  plan.total_groups = groups;
  plan.total_items = groups;
  return plan;
}

class ExecutionFailed : public ::testing::Test {
 protected:
  void SetUp() override {
    image_.fn = failInOneGroup;
    image_.meta = &meta_;  // a kernel without arguments
    args_.reset(0);
    std::string detail;
    ASSERT_EQ(args_.bind(image_, [](cl_mem, void **) { return false; }, detail),
              HK_REASON_NONE)
        << detail;
    hk::kernel::ThreadState &ts = hk::kernel::threadState();
    if (!ts.ready) ts.setUp(4096);
  }
  bool runInline(std::uint64_t groups, std::uint64_t failing) {
    g_failing_group = failing;
    hk::launch::Plan plan = planOf(groups);
    EXPECT_FALSE(hk::pocl::executionFailed(plan.pc)) << "setWorkDim must clear it";
    EXPECT_TRUE(hk::launch::runInline(hk::launch::LaunchBody{&image_, &args_, &plan, 4096},
                                      hk::kernel::threadState()));
    return hk::pocl::executionFailed(plan.pc);
  }
  hk::pocl::KernelRecord meta_;
  hk::program::KernelImage image_;
  hk::kernel::KernelArgs args_;
};

TEST_F(ExecutionFailed, AnInlineLaunchSeesTheFlagOfAnyGroup) {
  EXPECT_FALSE(runInline(1, UINT64_MAX));
  EXPECT_TRUE(runInline(1, 0));
  EXPECT_FALSE(runInline(16, UINT64_MAX));
  EXPECT_TRUE(runInline(16, 15));
  EXPECT_TRUE(runInline(16, 3));
  EXPECT_EQ(hk::pocl::workDim(planOf(16).pc), 1u) << "the flag shares a word with work_dim";
}

TEST_F(ExecutionFailed, ATeamLaunchSeesTheFlagOfAnyThreadsGroup) {
  for (std::uint64_t failing : {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{4095},
                                UINT64_MAX}) {
    g_failing_group = failing;
    hk::launch::Plan plan = planOf(4096);
    std::uint64_t serial_ns = 0;
    const hk::launch::TeamResult r = hk::launch::runOnTeam(
        hk::launch::LaunchBody{&image_, &args_, &plan, 4096}, false, false, &serial_ns);
    ASSERT_EQ(r, hk::launch::TeamResult::Ran);
    EXPECT_EQ(hk::pocl::executionFailed(plan.pc), failing != UINT64_MAX) << failing;
  }
}

}  // namespace
