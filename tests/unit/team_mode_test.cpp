// HOSTKERNEL_TEAM: whose threads run the team's work-groups (parseConfig, given a fake
// environment).
#include "base/config.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

const char *g_value = nullptr;
const char *fakeGetenv(const char *name) {
  return std::string(name) == "HOSTKERNEL_TEAM" ? g_value : nullptr;
}
hk::TeamMode parseTeam(const char *value) {
  g_value = value;
  return hk::parseConfig(fakeGetenv).team;
}

TEST(TeamMode, AutoByDefaultAndEachNamedMode) {
  EXPECT_EQ(parseTeam(nullptr), hk::TeamMode::Auto);
  EXPECT_EQ(parseTeam("auto"), hk::TeamMode::Auto);
  EXPECT_EQ(parseTeam("own"), hk::TeamMode::Own);
  EXPECT_EQ(parseTeam("openmp"), hk::TeamMode::OpenMP);
  EXPECT_EQ(parseTeam("tbb"), hk::TeamMode::Auto);  // unknown: warned about, the default
}

}  // namespace
