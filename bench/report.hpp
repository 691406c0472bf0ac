// Results: a table on a stream as cases finish, and a JSON file at the end.
//
//   hkbench::Table table(stdout);
//   table.header();
//   for (const hkbench::Result &r : caseResults) table.row(r);
//   hkbench::writeJson("out.json", allResults);   // {"results":[{...}, ...]}
#pragma once

#include "stats.hpp"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace hkbench {

struct Result {
  std::string name;      // case
  std::string category;
  std::string path;
  Summary perOpNs;       // over runs, nanoseconds per operation
  std::uint64_t batch = 0;        // operations per timed run
  std::optional<double> ratio;    // baseline median / this median, same invocation
  std::string baseline;           // the path the ratio is relative to
  std::string note;
};

// "3.12 ns", "17.4 us", "1.20 ms", "2.50 s".
std::string formatNs(double ns);

class Table {
 public:
  explicit Table(std::FILE *out) : out_(out) {}
  void header();
  void row(const Result &r);

 private:
  std::FILE *out_;
};

// Writes {"results":[{"name","category","path","median_ns","min_ns","max_ns","runs"}...]};
// throws std::runtime_error if the file cannot be written.
void writeJson(const std::string &file, const std::vector<Result> &results);

}  // namespace hkbench
