// The persistent cache entry's payload (src/program/cache_payload.hpp): PoCL's binary and
// the kernels' stack estimates round-trip exactly; a payload without the estimates, with
// truncated or inconsistent ones, is refused (the caller rebuilds the entry).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "program/cache_payload.hpp"

namespace {

using hk::program::CachePayload;
using hk::program::joinCachePayload;
using hk::program::splitCachePayload;
using hk::program::StackEstimate;

std::vector<std::uint8_t> binary(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i * 13 + 5);
  return v;
}

std::map<std::string, StackEstimate> estimates() {
  std::map<std::string, StackEstimate> m;
  StackEstimate a;
  a.ok = true;
  a.model.base_bytes = 65536;
  a.model.per_item_bytes = 18496;
  a.model.private_bytes = 16384;
  a.model.context_bytes = 40;
  a.model.has_barrier = true;
  m["private_array"] = a;
  StackEstimate f;  // a kernel blind to its work-group
  f.ok = true;
  f.model.base_bytes = 65536;
  f.model.per_item_bytes = 64;
  f.group_free = true;
  m["axpy"] = f;
  StackEstimate b;  // no answer: the generous model and the reason
  b.model = hk::program::unknownStackModel();
  b.error = "kernel 'vla' has a private array of run-time size";
  m["vla"] = b;
  return m;
}

TEST(CachePayload, RoundTripsBinaryAndEstimates) {
  const auto bin = binary(4099);
  const auto stacks = estimates();
  const auto payload = joinCachePayload(bin, stacks);
  CachePayload p;
  std::string why;
  ASSERT_TRUE(splitCachePayload(payload, p, why)) << why;
  ASSERT_EQ(p.binary_size, bin.size());
  EXPECT_TRUE(std::equal(bin.begin(), bin.end(), payload.begin()));
  ASSERT_EQ(p.stacks.size(), 3u);
  for (const auto &[name, e] : stacks) {
    const StackEstimate &got = p.stacks.at(name);
    EXPECT_EQ(got.ok, e.ok) << name;
    EXPECT_EQ(got.error, e.error) << name;
    EXPECT_EQ(got.model.base_bytes, e.model.base_bytes) << name;
    EXPECT_EQ(got.model.per_item_bytes, e.model.per_item_bytes) << name;
    EXPECT_EQ(got.model.private_bytes, e.model.private_bytes) << name;
    EXPECT_EQ(got.model.context_bytes, e.model.context_bytes) << name;
    EXPECT_EQ(got.model.has_barrier, e.model.has_barrier) << name;
    EXPECT_EQ(got.group_free, e.group_free) << name;
  }
}

TEST(CachePayload, NoKernelsRoundTrips) {
  const auto payload = joinCachePayload(binary(10), {});
  CachePayload p;
  std::string why;
  ASSERT_TRUE(splitCachePayload(payload, p, why)) << why;
  EXPECT_EQ(p.binary_size, 10u);
  EXPECT_TRUE(p.stacks.empty());
}

TEST(CachePayload, BareBinaryIsRefused) {
  // An entry of the earlier layout: the binary alone.
  CachePayload p;
  std::string why;
  EXPECT_FALSE(splitCachePayload(binary(5000), p, why));
  EXPECT_EQ(why, "no stack estimates");
  EXPECT_FALSE(splitCachePayload({}, p, why));
}

TEST(CachePayload, DamagedRecordsAreRefused) {
  const auto good = joinCachePayload(binary(300), estimates());
  const std::size_t footer = 24;
  CachePayload p;
  std::string why;
  // Records cut short (the footer kept): every prefix length refused.
  for (std::size_t cut = 1; cut < good.size() - 300 - footer; ++cut) {
    std::vector<std::uint8_t> bad(good.begin(), good.end() - footer - cut);
    bad.insert(bad.end(), good.end() - footer, good.end());
    // The footer's binary size now points at bytes that are not records: refused either
    // as truncated or (when the cut leaves whole records) as stray bytes.
    EXPECT_FALSE(splitCachePayload(bad, p, why)) << "cut " << cut;
  }
  // A binary size past the records.
  auto big = good;
  big[big.size() - footer] = 0xff;
  big[big.size() - footer + 1] = 0xff;
  EXPECT_FALSE(splitCachePayload(big, p, why));
  // Another layout version.
  auto other = good;
  other[other.size() - footer + 12] ^= 1;
  EXPECT_FALSE(splitCachePayload(other, p, why));
  EXPECT_EQ(why, "stack estimates of another layout");
  // An out-of-range flag byte (ok, has_barrier, group_free) in the first record, axpy's.
  for (std::size_t i = 0; i < 3; ++i) {
    auto flag = good;
    flag[300 + 4 + std::string("axpy").size() + i] = 2;
    EXPECT_FALSE(splitCachePayload(flag, p, why)) << "flag " << i;
  }
}

}  // namespace
