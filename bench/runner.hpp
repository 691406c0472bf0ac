// Runs one case: setup every path, warm up, calibrate each path's batch size, then time
// `runs` batches per path interleaved (path A, path B, path A, ...) so that noise on the
// machine hits every path alike, and finally compare the paths' check outputs. Each timed
// batch follows one untimed operation of the same path (threads that parked while other
// paths ran are awake again), counts heap allocations, and is followed by the path's
// `quiesce` (OpenMP threads are released so that they do not spin through the next path's
// batch).
//
//   hkbench::RunConfig cfg;  cfg.runs = 31;
//   hkbench::CaseOutcome o = hkbench::runCase(*hkbench::findCase("launch/trivial"), env, cfg);
//   if (!o.ok()) for (auto &p : o.problems) std::puts(p.c_str());
#pragma once

#include "case_list.hpp"
#include "report.hpp"

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

namespace hkbench {

class OpenCLEnv;

struct RunConfig {
  int runs = 31;            // timed batches per path
  int onceRuns = 0;         // if > 0: timed runs of Case::once cases (--quick: 3)
  double warmupMs = 50;     // per path, after its first (untimed) operation
  double batchMs = 1;       // a timed batch lasts at least this long
  std::regex paths{".*"};   // paths whose name matches (regex_search) run
  bool verbose = false;     // progress on stderr
  bool prime = true;        // one untimed operation before every timed batch
};

struct CaseOutcome {
  std::vector<Result> results;
  std::vector<std::string> problems;  // check failures; empty when all paths agree
  bool ok() const { return problems.empty(); }
};

// Throws on OpenCL or setup errors; check mismatches are reported in `problems`.
CaseOutcome runCase(const Case &c, OpenCLEnv &env, const RunConfig &cfg);

// For instruction counting (scripts/callgrind-launch.sh): setup the named path of the case,
// run `warmup` operations, then `n` operations; no timing, no check. Throws if the path
// does not exist.
void runFixed(const Case &c, const std::string &path, OpenCLEnv &env, std::uint64_t warmup,
              std::uint64_t n);

}  // namespace hkbench
