// The lock-free handle table: lookups, released handles, reuse of an address.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "base/object_table.hpp"

namespace hk {
namespace {

using Table = ObjectTable<int, 10>;

TEST(ObjectTable, FindsWhatWasInsertedAndNothingElse) {
  static Table t;
  int a = 1, b = 2;
  EXPECT_EQ(t.insert(&a, &a), nullptr);
  EXPECT_EQ(t.insert(&b, &b), nullptr);
  EXPECT_EQ(t.find(&a), &a);
  EXPECT_EQ(t.find(&b), &b);
  int c = 3;
  EXPECT_EQ(t.find(&c), nullptr);
}

TEST(ObjectTable, ReleasedHandleIsRememberedUntilReplaced) {
  static Table t;
  int a = 1, fresh = 2;
  t.insert(&a, &a);
  EXPECT_EQ(t.remove(&a, true), &a);
  EXPECT_EQ(t.find(&a), Table::released());
  EXPECT_FALSE(isEntry(t.find(&a)));
  EXPECT_EQ(t.insert(&a, &fresh), Table::released());  // a new object at the same address
  EXPECT_EQ(t.find(&a), &fresh);
}

TEST(ObjectTable, RemovedSlotsAreReusedSoTheTableNeverFillsUp) {
  static Table t;
  std::vector<long> keys(5000);
  for (int round = 0; round < 20; ++round)
    for (std::size_t i = round * 200; i < round * 200 + 200; ++i) {
      int *v = reinterpret_cast<int *>(&keys[i]);
      ASSERT_EQ(t.insert(&keys[i], v), nullptr) << "insert " << i;
      ASSERT_EQ(t.find(&keys[i]), v);
      ASSERT_EQ(t.remove(&keys[i], false), v);
    }
}

TEST(ObjectTable, ConcurrentReadersSeeStableEntriesWhileWritersChurn) {
  static Table t;
  static int stable[16];
  for (int &s : stable) t.insert(&s, &s);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    std::vector<long> churn(64);
    while (!stop.load()) {
      for (long &c : churn) t.insert(&c, reinterpret_cast<int *>(&c));
      for (long &c : churn) t.remove(&c, false);
    }
  });
  for (int i = 0; i < 200000; ++i) ASSERT_EQ(t.find(&stable[i % 16]), &stable[i % 16]);
  stop = true;
  writer.join();
}

}  // namespace
}  // namespace hk
