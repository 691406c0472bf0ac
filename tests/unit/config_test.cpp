// parseConfig: HOSTKERNEL_* variables given through a fake environment.
#include "base/config.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

std::map<std::string, std::string> g_env;

const char *fakeGetenv(const char *name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

hk::Config parse(std::map<std::string, std::string> env) {
  g_env = std::move(env);
  return hk::parseConfig(fakeGetenv);
}

TEST(Config, DefaultsWithAnEmptyEnvironment) {
  const hk::Config c = parse({});
  EXPECT_FALSE(c.disable);
  EXPECT_EQ(c.num_threads, 0u);
  EXPECT_EQ(c.pin, hk::PinMode::None);
  EXPECT_EQ(c.spin_us, 100u);
  EXPECT_EQ(c.inline_max_items, 8192u);
  EXPECT_EQ(c.specialize_ms, 200u);
}

TEST(Config, ReadsNumbersAndKeepsTheDefaultForMalformedOnes) {
  hk::Config c = parse({{"HOSTKERNEL_NUM_THREADS", "3"},
                        {"HOSTKERNEL_SPIN_US", "0"},
                        {"HOSTKERNEL_INLINE_MAX_ITEMS", "1024"}});
  EXPECT_EQ(c.num_threads, 3u);
  EXPECT_EQ(c.spin_us, 0u);
  EXPECT_EQ(c.inline_max_items, 1024u);
  c = parse({{"HOSTKERNEL_NUM_THREADS", "two"}, {"HOSTKERNEL_SPIN_US", "-5"}});
  EXPECT_EQ(c.num_threads, 0u);
  EXPECT_EQ(c.spin_us, 100u);
}

TEST(Config, SpinIsCappedAtOneSecond) {
  EXPECT_EQ(parse({{"HOSTKERNEL_SPIN_US", "250"}}).spin_us, 250u);
  EXPECT_EQ(parse({{"HOSTKERNEL_SPIN_US", "1000000"}}).spin_us, hk::kMaxSpinUs);
  // Larger than 32 bits: must not wrap around to a short spin.
  EXPECT_EQ(parse({{"HOSTKERNEL_SPIN_US", "8589934592"}}).spin_us, hk::kMaxSpinUs);
}

TEST(Config, PinModes) {
  EXPECT_EQ(parse({{"HOSTKERNEL_PIN", "cores"}}).pin, hk::PinMode::Cores);
  EXPECT_EQ(parse({{"HOSTKERNEL_PIN", "pus"}}).pin, hk::PinMode::Pus);
  EXPECT_EQ(parse({{"HOSTKERNEL_PIN", "sockets"}}).pin, hk::PinMode::None);
}

// Issue 24: strtoull took " -1" and "1e23" (read as 1) and wrapped 4294967297 to 1 thread.
TEST(Config, OutOfRangeAndMalformedNumbersKeepTheDefaultWithAWarning) {
  for (const char *bad : {"4294967297", " -1", "-1", "1e23", "+3", "3 ", "0x10",
                          "99999999999999999999999"}) {
    ::testing::internal::CaptureStderr();
    const hk::Config c = parse({{"HOSTKERNEL_NUM_THREADS", bad},
                                {"HOSTKERNEL_INLINE_MAX_ITEMS", bad},
                                {"HOSTKERNEL_SPECIALIZE_MS", bad}});
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(c.num_threads, 0u) << bad;
    if (std::string(bad) != "4294967297") {  // within range of the 64-bit settings
      EXPECT_EQ(c.inline_max_items, 8192u) << bad;
      EXPECT_EQ(c.specialize_ms, 200u) << bad;
    }
    EXPECT_NE(err.find("ignoring HOSTKERNEL_NUM_THREADS="), std::string::npos) << bad;
  }
  EXPECT_EQ(parse({{"HOSTKERNEL_NUM_THREADS", "4294967295"}}).num_threads, 4294967295u);
}

// Issue 24: any word but 0/false/no/off counted as true ("HOSTKERNEL_DISABLE=nope"
// disabled hostkernel) and an unknown log level was ignored silently.
TEST(Config, UnknownWordsAreRefusedWithAWarning) {
  ::testing::internal::CaptureStderr();
  hk::Config c = parse({{"HOSTKERNEL_DISABLE", "nope"},
                        {"HOSTKERNEL_REPORT", "sure"},
                        {"HOSTKERNEL_PERF_MAP", "2"},
                        {"HOSTKERNEL_LOG", "verbose"},
                        {"HOSTKERNEL_TEAM", "mine"},
                        {"HOSTKERNEL_FIRST_LAUNCH", "later"}});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(c.disable);
  EXPECT_FALSE(c.report);
  EXPECT_FALSE(c.perf_map);
  EXPECT_EQ(c.log_level, hk::LogLevel::Warn);
  EXPECT_EQ(c.team, hk::TeamMode::Auto);
  EXPECT_TRUE(c.first_launch_on_queue);
  for (const char *name : {"HOSTKERNEL_DISABLE=nope", "HOSTKERNEL_REPORT=sure",
                           "HOSTKERNEL_PERF_MAP=2", "HOSTKERNEL_LOG=verbose",
                           "HOSTKERNEL_TEAM=mine", "HOSTKERNEL_FIRST_LAUNCH=later"})
    EXPECT_NE(err.find(std::string("ignoring ") + name), std::string::npos) << name << "\n" << err;
}

TEST(Config, KnownWordsAreTaken) {
  for (const char *yes : {"1", "true", "TRUE", "yes", "on"})
    EXPECT_TRUE(parse({{"HOSTKERNEL_DISABLE", yes}}).disable) << yes;
  for (const char *no : {"0", "false", "No", "off", ""})
    EXPECT_FALSE(parse({{"HOSTKERNEL_DISABLE", no}}).disable) << no;
  EXPECT_EQ(parse({{"HOSTKERNEL_LOG", "debug"}}).log_level, hk::LogLevel::Debug);
  EXPECT_EQ(parse({{"HOSTKERNEL_LOG", "error"}}).log_level, hk::LogLevel::Error);
  EXPECT_EQ(parse({{"HOSTKERNEL_TEAM", "own"}}).team, hk::TeamMode::Own);
  EXPECT_FALSE(parse({{"HOSTKERNEL_FIRST_LAUNCH", "direct"}}).first_launch_on_queue);
}

}  // namespace
