// pocl-launch-bench --processes: combining the results of several processes
// (bench/processes.hpp), and the JSON field that records it.
#include "processes.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <unistd.h>

namespace hkbench {
namespace {

Result result(const std::string &name, const std::string &path, double median, double min,
              double max, std::size_t runs, std::optional<double> ratio = std::nullopt) {
  Result r;
  r.name = name;
  r.category = "latency";
  r.path = path;
  r.perOpNs.median = median;
  r.perOpNs.min = min;
  r.perOpNs.max = max;
  r.perOpNs.count = runs;
  r.batch = 10;
  if (ratio) {
    r.ratio = ratio;
    r.baseline = "queue";
  }
  return r;
}

Results process(std::vector<Result> rs) {
  Results p;
  p.meta.runs = 5;
  p.meta.device = "dev";
  p.results = std::move(rs);
  return p;
}

const Result &find(const Results &all, const std::string &name, const std::string &path) {
  for (const Result &r : all.results)
    if (r.name == name && r.path == path) return r;
  throw std::runtime_error("no result " + name + " " + path);
}

TEST(CombineProcesses, MedianOfMediansAndRatioOfCombinedMedians) {
  Result hk1 = result("a", "hostkernel", 10, 8, 12, 5, 10.0);
  hk1.note = "inline 100%";
  hk1.allocsPerOp = 0;
  const std::vector<Results> each{
      process({hk1, result("a", "queue", 100, 90, 400, 5)}),
      process({result("a", "hostkernel", 30, 25, 70, 5, 200.0 / 30),
               result("a", "queue", 200, 150, 300, 5)}),
      process({result("a", "hostkernel", 20, 19, 21, 5, 300.0 / 20),
               result("a", "queue", 300, 280, 900, 5)}),
  };
  const Results all = combineProcesses(each);
  EXPECT_EQ(all.meta.processes, 3);
  EXPECT_EQ(all.meta.runs, 5);
  ASSERT_EQ(all.results.size(), 2u);
  EXPECT_EQ(all.results[0].path, "hostkernel");  // first-seen order
  const Result &hk = find(all, "a", "hostkernel");
  const Result &q = find(all, "a", "queue");
  EXPECT_DOUBLE_EQ(hk.perOpNs.median, 20);
  EXPECT_DOUBLE_EQ(hk.perOpNs.min, 8);
  EXPECT_DOUBLE_EQ(hk.perOpNs.max, 70);
  EXPECT_EQ(hk.perOpNs.count, 15u);
  EXPECT_DOUBLE_EQ(hk.spread(), 0.5);  // medians 10, 20, 30: MAD 10
  EXPECT_DOUBLE_EQ(q.perOpNs.median, 200);
  ASSERT_TRUE(hk.ratio.has_value());
  EXPECT_DOUBLE_EQ(*hk.ratio, 10.0);  // 200 / 20, not a mean of the per-process ratios
  EXPECT_FALSE(q.ratio.has_value());
  EXPECT_EQ(hk.note, "inline 100%; ratio per process 6.67x-15.00x");
  ASSERT_TRUE(hk.allocsPerOp.has_value());
  EXPECT_DOUBLE_EQ(*hk.allocsPerOp, 0);
}

TEST(CombineProcesses, CaseMissingFromAProcessIsCombinedFromTheOthers) {
  const std::vector<Results> each{
      process({result("a", "hostkernel", 10, 10, 10, 5)}),
      process({result("b", "hostkernel", 7, 7, 7, 5), result("a", "hostkernel", 30, 30, 30, 5)}),
  };
  const Results all = combineProcesses(each);
  ASSERT_EQ(all.results.size(), 2u);
  EXPECT_EQ(all.results[0].name, "a");
  EXPECT_EQ(all.results[1].name, "b");
  EXPECT_DOUBLE_EQ(find(all, "a", "hostkernel").perOpNs.median, 20);
  EXPECT_DOUBLE_EQ(find(all, "b", "hostkernel").perOpNs.median, 7);
  EXPECT_EQ(find(all, "b", "hostkernel").perOpNs.count, 5u);
}

TEST(CombineProcesses, ProcessCountSurvivesJson) {
  Results all = combineProcesses({process({result("a", "queue", 1, 1, 1, 1)}),
                                  process({result("a", "queue", 3, 3, 3, 1)})});
  char path[] = "/tmp/hk-processes-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  writeJson(path, all.meta, all.results);
  const Results back = readResultsJson(path);
  std::remove(path);
  EXPECT_EQ(back.meta.processes, 2);
  ASSERT_EQ(back.results.size(), 1u);
  EXPECT_DOUBLE_EQ(back.results[0].perOpNs.median, 2);
  EXPECT_EQ(back.results[0].perOpNs.count, 2u);
}

}  // namespace
}  // namespace hkbench
