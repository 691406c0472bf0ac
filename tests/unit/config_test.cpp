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

}  // namespace
