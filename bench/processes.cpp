#include "processes.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace hkbench {
namespace {

std::string ratioText(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, r >= 100 ? "%.0fx" : "%.2fx", r);
  return buf;
}

// One (case, path)'s results, in process order.
using Gathered = std::vector<const Result *>;

}  // namespace

Results combineProcesses(const std::vector<Results> &perProcess) {
  Results out;
  if (perProcess.empty()) return out;
  out.meta = perProcess.front().meta;
  out.meta.processes = static_cast<int>(perProcess.size());

  std::vector<std::pair<std::string, std::string>> order;  // (case, path), first appearance
  std::vector<Gathered> gathered;
  for (const Results &p : perProcess)
    for (const Result &r : p.results) {
      const auto key = std::make_pair(r.name, r.path);
      auto it = std::find(order.begin(), order.end(), key);
      if (it == order.end()) {
        order.push_back(key);
        gathered.emplace_back();
        it = order.end() - 1;
      }
      gathered[static_cast<std::size_t>(it - order.begin())].push_back(&r);
    }

  for (const Gathered &g : gathered) {
    const Result &first = *g.front();
    Result r;
    r.name = first.name;
    r.category = first.category;
    r.description = first.description;
    r.path = first.path;
    r.baseline = first.baseline;
    std::vector<double> medians, batches;
    double allocs = 0, shares[3] = {0, 0, 0};
    std::size_t nAllocs = 0, nShares = 0;
    double lo = first.perOpNs.min, hi = first.perOpNs.max;
    for (const Result *e : g) {
      medians.push_back(e->perOpNs.median);
      batches.push_back(static_cast<double>(e->batch));
      lo = std::min(lo, e->perOpNs.min);
      hi = std::max(hi, e->perOpNs.max);
      r.perOpNs.count += e->perOpNs.count;
      if (e->allocsPerOp) allocs += *e->allocsPerOp, ++nAllocs;
      if (e->shares) {
        for (int i = 0; i < 3; ++i) shares[i] += (*e->shares)[i];
        ++nShares;
      }
    }
    const Summary m = summarize(medians);
    r.perOpNs.median = m.median;
    r.perOpNs.mad = m.mad;
    r.perOpNs.min = lo;
    r.perOpNs.max = hi;
    r.storedSpread = m.spread();
    r.batch = static_cast<std::uint64_t>(summarize(batches).median + 0.5);
    if (nAllocs) r.allocsPerOp = allocs / static_cast<double>(nAllocs);
    if (nShares)
      r.shares = std::array<double, 3>{shares[0] / nShares, shares[1] / nShares,
                                       shares[2] / nShares};
    r.note = first.note;
    out.results.push_back(std::move(r));
  }

  // Ratios from the combined medians; the per-process range in the note.
  for (std::size_t i = 0; i < out.results.size(); ++i) {
    Result &r = out.results[i];
    if (r.baseline.empty()) continue;
    const auto base = std::find_if(out.results.begin(), out.results.end(), [&](const Result &b) {
      return b.name == r.name && b.path == r.baseline;
    });
    if (base == out.results.end() || r.perOpNs.median <= 0) continue;
    r.ratio = base->perOpNs.median / r.perOpNs.median;
    std::vector<double> ratios;
    for (const Result *e : gathered[i])
      if (e->ratio) ratios.push_back(*e->ratio);
    if (ratios.size() < 2) continue;
    const auto [mn, mx] = std::minmax_element(ratios.begin(), ratios.end());
    r.note += std::string(r.note.empty() ? "" : "; ") + "ratio per process " + ratioText(*mn) +
              "-" + ratioText(*mx);
  }
  return out;
}

}  // namespace hkbench
