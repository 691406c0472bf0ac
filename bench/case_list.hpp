// Benchmark cases and the one list they register in.
//
// A case is a name ("launch/trivial"), a category ("latency") and a list of paths. Every path
// does the same work a different way ("hostkernel", "queue", "native"): `setup` runs once,
// untimed; `run(n)` performs n operations (launches) and returns when they are complete —
// that is the timed part. The runner interleaves the paths run by run, reports nanoseconds
// and heap allocations per operation, and compares the paths' `check` outputs at the end.
//
// The category is one of "latency" (one small launch: the cost of launching),
// "performance" (enough work that throughput matters) and "applications" (a time step or
// element loop of a real code); --compare uses a different threshold for each.
//
// A new case registers itself where it is defined, in a cases_*.cpp file:
//
//   namespace {
//   const hkbench::Register kMyCase{[] {
//     hkbench::Case c;
//     c.name = "launch/my-case";
//     c.category = "latency";
//     c.description = "what is launched, with which global/local sizes";
//     c.make = [](hkbench::OpenCLEnv &env) { return std::vector<hkbench::Path>{...}; };
//     return c;
//   }()};
//   }  // namespace
//
// `make` must be cheap and must not touch OpenCL (--list calls it); heavy work belongs in
// each path's `setup`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hkbench {

class OpenCLEnv;

// How a check output is compared and printed: bitwise, except that F32/F64 outputs of a
// path with `ulps > 0` may differ by that many units in the last place.
enum class ElemType { Bytes, I32, F32, F64 };

// What a path produced from a fixed starting state (compared across paths).
struct Output {
  std::vector<std::byte> bytes;
  ElemType type = ElemType::Bytes;
};

struct Path {
  std::string name;
  std::function<void()> setup;                   // once, untimed
  std::function<void(std::uint64_t n)> run;      // timed: n operations, complete on return
  std::function<Output()> check;                 // optional, untimed, after the timed runs
  std::function<std::string()> note;             // optional: e.g. where the launches went;
                                                 // asked after the timed runs, before check
  std::function<void()> mark;                    // optional, just before the timed runs
  std::function<void()> quiesce;                 // optional, untimed, after every batch
  // Optional, after the timed runs: fractions of the timed launches that ran inline, on the
  // team and through PoCL's queue (hostkernel paths).
  std::function<std::optional<std::array<double, 3>>()> shares;
  unsigned ulps = 0;  // this path's F32/F64 check output may differ by this many ulps
};

struct Case {
  std::string name;         // "group/what" (e.g. "stream/copy/dram"), unique; --filter matches it
  std::string category;     // "latency", "performance" or "applications"
  std::string description;  // one line: sizes, work-group sizes, what one operation is
  std::function<std::vector<Path>(OpenCLEnv &)> make;
  std::function<Output()> reference;  // optional: the expected check output of every path
  std::string baseline = "queue";     // ratio column = baseline median / path median
  bool warmup = true;                 // false for cases that measure a cold start
  std::uint64_t maxBatch = 0;         // most operations per timed batch; 0 = no limit
  // Every timed run is one operation, with no warm-up, calibration or untimed operation
  // before it: for operations that take long or measure a first time (compile/*,
  // first-kernel/*; the path's `quiesce` restores the starting state between runs).
  bool once = false;
  // Paths that do the work of other paths together (apps/omp-mixed): the note of `path`
  // gives its median / the sum of the medians of `parts` (noteParts in runner.hpp).
  struct Parts {
    std::string path;
    std::vector<std::string> parts;
  };
  std::vector<Parts> parts;
};

// All registered cases, in registration order.
const std::vector<Case> &cases();

// The case with this name, or nullptr.
const Case *findCase(std::string_view name);

// Adds a case to the list; use as a namespace-scope constant (see above).
struct Register {
  explicit Register(Case c);
};

}  // namespace hkbench
