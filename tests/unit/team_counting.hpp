// For the ForeignTeam tests: a job that counts how often each group ran, and the check
// that a team runs every group exactly once under both splits over a range of sizes.
//
//   Counting c(1000);
//   ASSERT_TRUE(team.run(c.job(/*steal=*/false)));
//   EXPECT_EQ(c.wrong(), 0u);
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "team/foreign_team.hpp"

struct Counting {
  explicit Counting(std::uint64_t n) : count(n) {}
  std::vector<std::atomic<int>> count;
  void (*hook)(Counting &, std::uint64_t begin) = nullptr;  // called for every range
  static void run(void *ctx, std::uint64_t b, std::uint64_t e, unsigned) {
    auto &c = *static_cast<Counting *>(ctx);
    if (c.hook) c.hook(c, b);
    for (std::uint64_t g = b; g < e; ++g) c.count[g].fetch_add(1, std::memory_order_relaxed);
  }
  hk::team::Job job(bool steal) { return hk::team::Job{run, this, count.size(), steal}; }
  // Groups that did not run exactly once.
  std::uint64_t wrong() const {
    std::uint64_t n = 0;
    for (const auto &c : count) n += c.load() != 1;
    return n;
  }
};

inline void expectEveryGroupOnce(hk::team::ForeignTeam &team, const std::string &what) {
  for (bool steal : {false, true})
    for (std::uint64_t total : {1u, 2u, 3u, 7u, 64u, 1000u, 4099u}) {
      SCOPED_TRACE(what + " steal=" + std::to_string(steal) + " total=" + std::to_string(total));
      Counting c(total);
      ASSERT_TRUE(team.run(c.job(steal)));
      EXPECT_EQ(c.wrong(), 0u);
    }
}
