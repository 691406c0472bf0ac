// Benchmark cases and the one list they register in.
//
// A case is a name ("launch/trivial"), a category ("launch") and a list of paths. Every path
// does the same work a different way ("hostkernel", "queue", later "native", ...): `setup`
// runs once, untimed; `run(n)` performs n operations (launches) and returns when they are
// complete — that is the timed part. The runner interleaves the paths run by run, reports
// nanoseconds per operation, and compares the paths' `check` outputs at the end.
//
// A new case registers itself where it is defined, in a cases_*.cpp file:
//
//   namespace {
//   const hkbench::Register kMyCase{[] {
//     hkbench::Case c;
//     c.name = "launch/my-case";
//     c.category = "launch";
//     c.description = "what is launched, with which global/local sizes";
//     c.make = [](hkbench::OpenCLEnv &env) { return std::vector<hkbench::Path>{...}; };
//     return c;
//   }()};
//   }  // namespace
//
// `make` must be cheap and must not touch OpenCL (--list calls it); heavy work belongs in
// each path's `setup`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace hkbench {

class OpenCLEnv;

// How a check output is printed when paths disagree (the comparison is always bitwise).
enum class ElemType { Bytes, I32, F32 };

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
  std::function<std::string()> note;             // optional: e.g. where the launches went
};

struct Case {
  std::string name;         // "category/what", unique; --filter matches it
  std::string category;
  std::string description;  // one line: sizes, work-group sizes, what one operation is
  std::function<std::vector<Path>(OpenCLEnv &)> make;
  std::function<Output()> reference;  // optional: the expected check output of every path
  std::string baseline = "queue";     // ratio column = baseline median / path median
  bool warmup = true;                 // false for cases that measure a cold start
  std::uint64_t maxBatch = 0;         // most operations per timed batch; 0 = no limit
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
