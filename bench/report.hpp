// Results: a table on a stream as cases finish, and a JSON file at the end (schema in
// docs/benchmarks.md; readResultsJson reads it back for --compare and --plot).
//
//   hkbench::Table table(stdout);
//   table.header();
//   for (const hkbench::Result &r : caseResults) table.row(r);
//   hkbench::writeJson("out.json", meta, allResults);
//   hkbench::Results back = hkbench::readResultsJson("out.json");
#pragma once

#include "stats.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace hkbench {

struct Result {
  std::string name;      // case
  std::string category;  // latency | performance | applications
  std::string description;
  std::string path;
  Summary perOpNs;       // over runs, nanoseconds per operation
  std::uint64_t batch = 0;        // operations per timed run
  std::optional<double> ratio;    // baseline median / this median, same invocation
  std::string baseline;           // the path the ratio is relative to
  std::optional<double> allocsPerOp;  // heap allocations per operation (timed runs)
  std::optional<std::array<double, 3>> shares;  // hostkernel: inline, team, queue fractions
  std::string note;
  // Read back from JSON (not measured): the stored spread, since perOpNs.mad is not stored.
  std::optional<double> storedSpread;

  double spread() const { return storedSpread ? *storedSpread : perOpNs.spread(); }
};

// About the run as a whole.
struct RunMeta {
  std::string device;
  std::string date;          // UTC, ISO 8601
  unsigned cpus = 0;
  std::string loadAverage;   // 1-minute load average at the start
  int runs = 0;              // per path (per process with `processes`)
  int processes = 1;         // --processes: results combined over this many processes
  double batchMs = 0;
  double warmupMs = 0;
  bool quick = false;
  bool burner = false;       // --burner: one CPU-burning process ran beside the cases
  bool allocCounting = false;
  // Environment variables that change what a path does (HOSTKERNEL_*, OMP_*, GOMP_*,
  // POCL_*, OPENCL_LAYERS), as "NAME=value", sorted.
  std::vector<std::string> environment;
};

struct Results {
  RunMeta meta;
  std::vector<Result> results;
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

// Writes the JSON file; throws std::runtime_error if the file cannot be written.
void writeJson(const std::string &file, const RunMeta &meta, const std::vector<Result> &results);

// Reads a file writeJson wrote (also the older {"results":[...]} files without meta,
// spread or allocations); throws std::runtime_error with the reason.
Results readResultsJson(const std::string &file);

}  // namespace hkbench
