#include "runner.hpp"

#include "alloc_count.hpp"
#include "opencl_env.hpp"
#include "parts.hpp"
#include "timer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <omp.h>
#include <stdexcept>
#include <time.h>

namespace hkbench {
namespace {

constexpr std::uint64_t kMaxBatch = std::uint64_t{1} << 32;

std::uint64_t batchLimit(const Case &c) { return c.maxBatch ? c.maxBatch : kMaxBatch; }

// After every batch, before the next path runs: no thread of this path may still spin.
// OpenMP's pool is ended (libgomp's idle threads spin for milliseconds, and hostkernel's
// team may run on them); a sleep lets hostkernel's and PoCL's workers finish their spin
// and park (hostkernel's default spin is a tenth of it).
void settle() {
  omp_pause_resource_all(omp_pause_soft);
  timespec pause{0, 2'000'000};
  nanosleep(&pause, nullptr);
}

// Runs the first operation, then batches of growing size until warmupMs has passed.
void warmUp(const Case &c, Path &p, double warmupMs) {
  p.run(1);
  double elapsed = 0;
  std::uint64_t n = 1;
  while (elapsed < warmupMs * 1e6) {
    elapsed += timeNs([&] { p.run(n); });
    n = std::min(n * 2, batchLimit(c));
  }
  if (p.quiesce) p.quiesce();
}

// The smallest batch (roughly) that takes at least batchMs.
std::uint64_t calibrate(const Case &c, Path &p, double batchMs) {
  const double target = batchMs * 1e6;
  const std::uint64_t limit = batchLimit(c);
  std::uint64_t n = 1;
  for (;;) {
    // The faster of two batches: one preempted batch must not stop the search early.
    const double t = std::min(timeNs([&] { p.run(n); }), timeNs([&] { p.run(n); }));
    if (p.quiesce) p.quiesce();
    if (t >= target || n >= limit) return n;
    const double estimate = static_cast<double>(n) * target / std::max(t, 1.0) * 1.2;
    const double next = std::clamp(estimate, 2.0 * static_cast<double>(n),
                                   1000.0 * static_cast<double>(n));
    n = std::min(static_cast<std::uint64_t>(next), limit);
  }
}

std::string element(const Output &o, std::size_t i) {
  char buf[64];
  switch (o.type) {
    case ElemType::I32: {
      std::int32_t v;
      std::memcpy(&v, o.bytes.data() + i * 4, 4);
      std::snprintf(buf, sizeof buf, "%d", v);
      break;
    }
    case ElemType::F32: {
      float v;
      std::memcpy(&v, o.bytes.data() + i * 4, 4);
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
      break;
    }
    case ElemType::F64: {
      double v;
      std::memcpy(&v, o.bytes.data() + i * 8, 8);
      std::snprintf(buf, sizeof buf, "%.17g", v);
      break;
    }
    case ElemType::Bytes:
      std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned>(o.bytes[i]));
      break;
  }
  return buf;
}

std::size_t widthOf(ElemType t) {
  switch (t) {
    case ElemType::Bytes: return 1;
    case ElemType::F64: return 8;
    default: return 4;
  }
}

// Distance in units in the last place between two floats of the same width, on the line
// of all finite values (sign-magnitude mapped to a monotonic integer); max for NaNs.
// `Bits` is the signed integer of Float's width; `Wide` is wider, to hold the difference of
// two mapped values (magnitudes below 2^(width - 1): the difference is below 2^width).
template <class Float, class Bits, class Wide>
std::uint64_t ulpDistanceOf(const std::byte *a, const std::byte *b) {
  static_assert(sizeof(Float) == sizeof(Bits) && sizeof(Wide) > sizeof(Bits));
  Float fa, fb;
  std::memcpy(&fa, a, sizeof(Float));
  std::memcpy(&fb, b, sizeof(Float));
  if (std::isnan(fa) || std::isnan(fb)) return std::numeric_limits<std::uint64_t>::max();
  Bits ia, ib;
  std::memcpy(&ia, a, sizeof(Bits));
  std::memcpy(&ib, b, sizeof(Bits));
  constexpr Bits kMagnitude = std::numeric_limits<Bits>::max();  // all but the sign bit
  const Wide la = ia < 0 ? -static_cast<Wide>(ia & kMagnitude) : ia;
  const Wide lb = ib < 0 ? -static_cast<Wide>(ib & kMagnitude) : ib;
  return static_cast<std::uint64_t>(la > lb ? la - lb : lb - la);
}

std::uint64_t ulpDistance(const std::byte *a, const std::byte *b, ElemType t) {
  if (t == ElemType::F32) return ulpDistanceOf<float, std::int32_t, std::int64_t>(a, b);
  return ulpDistanceOf<double, std::int64_t, __int128>(a, b);
}

// Empty if equal (within `ulps` for F32/F64), else
// "2 of 1024 elements differ, first [7]: hostkernel 3 vs queue 4".
std::string compare(const Output &a, const std::string &aName, const Output &b,
                    const std::string &bName, unsigned ulps = 0) {
  if (a.bytes.size() != b.bytes.size())
    return "output sizes differ: " + aName + " " + std::to_string(a.bytes.size()) + " bytes, " +
           bName + " " + std::to_string(b.bytes.size()) + " bytes";
  const std::size_t width = widthOf(a.type);
  const bool tolerant = ulps > 0 && (a.type == ElemType::F32 || a.type == ElemType::F64);
  const std::size_t count = a.bytes.size() / width;
  std::size_t differ = 0, first = 0;
  std::uint64_t worst = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte *pa = a.bytes.data() + i * width, *pb = b.bytes.data() + i * width;
    if (std::memcmp(pa, pb, width) == 0) continue;
    if (tolerant) {
      const std::uint64_t d = ulpDistance(pa, pb, a.type);
      if (d <= ulps) continue;
      worst = std::max(worst, d);
    }
    if (differ++ == 0) first = i;
  }
  if (!differ) return {};
  std::string s = std::to_string(differ) + " of " + std::to_string(count) + " elements differ";
  if (tolerant) s += " by more than " + std::to_string(ulps) + " ulp";
  return s + ", first [" + std::to_string(first) + "]: " + aName + " " + element(a, first) +
         " vs " + bName + " " + element(b, first);
}

}  // namespace

CaseOutcome runCase(const Case &c, OpenCLEnv &env, const RunConfig &cfg) {
  std::vector<Path> all = c.make(env);
  std::vector<Path> paths;
  for (Path &p : all)
    if (std::regex_search(p.name, cfg.paths)) paths.push_back(std::move(p));
  CaseOutcome outcome;
  if (paths.empty()) return outcome;

  auto progress = [&](const char *what) {
    if (cfg.verbose) std::fprintf(stderr, "[%s] %s\n", c.name.c_str(), what);
  };
  progress("setup");
  for (Path &p : paths)
    if (p.setup) p.setup();
  if (c.warmup && !c.once) {
    progress("warm-up");
    for (Path &p : paths) warmUp(c, p, cfg.warmupMs);
  }
  progress("calibrate");
  std::vector<std::uint64_t> batch;
  for (Path &p : paths) batch.push_back(c.once ? 1 : calibrate(c, p, cfg.batchMs));

  progress("timed runs");
  for (Path &p : paths)
    if (p.mark) p.mark();
  std::vector<std::vector<double>> perOp(paths.size());
  std::vector<std::uint64_t> allocations(paths.size(), 0), operations(paths.size(), 0);
  const int runs = c.once && cfg.onceRuns > 0 ? cfg.onceRuns : cfg.runs;
  for (int r = 0; r < runs; ++r) {
    for (std::size_t j = 0; j < paths.size(); ++j) {
      // Odd runs take the paths in reverse order: no path always runs first after the
      // others (a fresh process right after another, caches another path left warm).
      const std::size_t i = r % 2 ? paths.size() - 1 - j : j;
      const std::uint64_t n = batch[i];
      // One untimed operation first: the batch then times back-to-back operations in the
      // steady state, not the wake-up (or start) of threads that parked while the other
      // paths ran — for every path alike (hostkernel's team, PoCL's workers, OpenMP).
      if (cfg.prime && !c.once) paths[i].run(1);
      AllocCounter::start();
      const double t = timeNs([&] { paths[i].run(n); });
      allocations[i] += AllocCounter::stop();
      operations[i] += n;
      perOp[i].push_back(t / static_cast<double>(n));
      if (paths[i].quiesce) paths[i].quiesce();
      settle();
    }
  }
  // Where the timed launches went, before the check adds launches of its own.
  std::vector<std::string> notes(paths.size());
  std::vector<std::optional<std::array<double, 3>>> shares(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].note) notes[i] = paths[i].note();
    if (paths[i].shares) shares[i] = paths[i].shares();
  }

  progress("check");
  const Output reference = c.reference ? c.reference() : Output{};
  const Path *first = nullptr;
  Output firstOut;
  for (Path &p : paths) {
    if (!p.check) continue;
    Output out = p.check();
    if (c.reference) {
      std::string diff = compare(reference, "expected", out, p.name, p.ulps);
      if (!diff.empty()) outcome.problems.push_back(c.name + ": " + p.name + ": " + diff);
    }
    if (!first) {
      first = &p;
      firstOut = std::move(out);
    } else {
      std::string diff =
          compare(firstOut, first->name, out, p.name, std::max(first->ulps, p.ulps));
      if (!diff.empty()) outcome.problems.push_back(c.name + ": " + diff);
    }
  }

  std::size_t base = paths.size();
  for (std::size_t i = 0; i < paths.size(); ++i)
    if (paths[i].name == c.baseline) base = i;
  std::vector<Summary> summaries;
  for (auto &samples : perOp) summaries.push_back(summarize(samples));
  for (std::size_t i = 0; i < paths.size(); ++i) {
    Result r;
    r.name = c.name;
    r.category = c.category;
    r.description = c.description;
    r.path = paths[i].name;
    r.perOpNs = summaries[i];
    r.batch = batch[i];
    if (AllocCounter::available() && operations[i])
      r.allocsPerOp = static_cast<double>(allocations[i]) / static_cast<double>(operations[i]);
    r.shares = shares[i];
    if (base < paths.size() && i != base && summaries[i].median > 0) {
      r.ratio = summaries[base].median / summaries[i].median;
      r.baseline = c.baseline;
    }
    r.note = notes[i];
    outcome.results.push_back(std::move(r));
  }
  noteParts(outcome.results);
  return outcome;
}

void runFixed(const Case &c, const std::string &path, OpenCLEnv &env, std::uint64_t warmup,
              std::uint64_t n) {
  std::vector<Path> paths = c.make(env);
  auto it = std::find_if(paths.begin(), paths.end(), [&](const Path &p) { return p.name == path; });
  if (it == paths.end()) throw std::runtime_error(c.name + " has no path '" + path + "'");
  if (it->setup) it->setup();
  if (warmup) it->run(warmup);
  if (n) it->run(n);
}

}  // namespace hkbench
