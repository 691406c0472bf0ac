#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace hkbench {
namespace {

constexpr const char *kCategoryOrder[] = {"latency", "performance", "applications"};
constexpr const char *kPathOrder[] = {"hostkernel", "queue", "native"};

int categoryRank(const std::string &c) {
  for (int i = 0; i < 3; ++i)
    if (c == kCategoryOrder[i]) return i;
  return 3;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * fraction);
  return buf;
}

std::string allocText(const std::optional<double> &a) {
  if (!a) return "not counted";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", *a);
  return buf;
}

using Key = std::pair<std::string, std::string>;  // case, path

}  // namespace

double categoryMinimum(const std::string &category) {
  if (category == "latency") return 0.05;
  if (category == "performance") return 0.03;
  if (category == "applications") return 0.03;
  return 0.05;
}

int compareResults(const Results &baseline, const std::string &baselineName,
                   const Results &current, std::FILE *out) {
  std::map<Key, const Result *> base, cur;
  for (const Result &r : baseline.results) base[{r.name, r.path}] = &r;
  for (const Result &r : current.results) cur[{r.name, r.path}] = &r;

  std::fprintf(out, "\n# comparison with %s", baselineName.c_str());
  if (!baseline.meta.date.empty()) std::fprintf(out, " (%s)", baseline.meta.date.c_str());
  std::fprintf(out, "\n");
  if (baseline.meta.runs && current.meta.runs &&
      (baseline.meta.quick != current.meta.quick || baseline.meta.runs != current.meta.runs))
    std::fprintf(out,
                 "# note: baseline %d runs%s, current %d runs%s: spreads are not comparable "
                 "one to one\n",
                 baseline.meta.runs, baseline.meta.quick ? " (--quick)" : "", current.meta.runs,
                 current.meta.quick ? " (--quick)" : "");
  if (baseline.meta.runs && baseline.meta.environment != current.meta.environment) {
    std::string b, c;
    for (const std::string &e : baseline.meta.environment) b += " " + e;
    for (const std::string &e : current.meta.environment) c += " " + e;
    std::fprintf(out, "# note: environment differs: baseline [%s ], current [%s ]\n", b.c_str(),
                 c.c_str());
  }
  if (baseline.meta.burner != current.meta.burner)
    std::fprintf(out, "# note: %s ran beside a CPU burner (--burner), %s did not\n",
                 baseline.meta.burner ? "baseline" : "current",
                 baseline.meta.burner ? "current" : "baseline");
  if (!baseline.meta.device.empty() && baseline.meta.device != current.meta.device)
    std::fprintf(out, "# note: different device: baseline '%s'\n", baseline.meta.device.c_str());

  // Geometric means per category and path, over cases present in both.
  struct Acc {
    double logSum = 0;
    int n = 0;
  };
  std::map<std::pair<std::string, std::string>, Acc> means;  // category, path
  std::vector<std::string> categories;
  for (const auto &[key, c] : cur) {
    auto it = base.find(key);
    if (it == base.end() || it->second->perOpNs.median <= 0 || c->perOpNs.median <= 0) continue;
    Acc &a = means[{c->category, key.second}];
    a.logSum += std::log(c->perOpNs.median / it->second->perOpNs.median);
    ++a.n;
    if (std::find(categories.begin(), categories.end(), c->category) == categories.end())
      categories.push_back(c->category);
  }
  std::sort(categories.begin(), categories.end(), [](const std::string &a, const std::string &b) {
    return categoryRank(a) != categoryRank(b) ? categoryRank(a) < categoryRank(b) : a < b;
  });
  std::fprintf(out, "geometric mean of current/baseline medians (negative = faster now):\n");
  std::fprintf(out, "%-13s %6s %12s %18s %18s %9s\n", "category", "cases", "hostkernel",
               "queue (control)", "native (control)", "minimum");
  for (const std::string &cat : categories) {
    std::string cells[3];
    int cases = 0;
    for (int p = 0; p < 3; ++p) {
      auto it = means.find({cat, kPathOrder[p]});
      if (it == means.end() || it->second.n == 0) {
        cells[p] = "-";
        continue;
      }
      cells[p] = percent(std::exp(it->second.logSum / it->second.n) - 1);
      if (p == 0) cases = it->second.n;
    }
    char minimum[16];
    std::snprintf(minimum, sizeof minimum, "%.0f%%", 100 * categoryMinimum(cat));
    std::fprintf(out, "%-13s %6d %12s %18s %18s %9s\n", cat.c_str(), cases, cells[0].c_str(),
                 cells[1].c_str(), cells[2].c_str(), minimum);
  }

  // Unusual cases.
  struct Line {
    int rank;
    std::string name, path, text;
  };
  std::vector<Line> lines;
  for (const auto &[key, c] : cur) {
    auto it = base.find(key);
    if (it == base.end()) continue;
    const Result &b = *it->second;
    const bool bAllocs = b.allocsPerOp && *b.allocsPerOp > 0;
    const bool cAllocs = c->allocsPerOp && *c->allocsPerOp > 0;
    if (b.allocsPerOp && c->allocsPerOp && bAllocs != cAllocs) {
      lines.push_back({categoryRank(c->category), key.first, key.second,
                       std::string(cAllocs ? "starts" : "stops") +
                           " allocating: " + allocText(b.allocsPerOp) + " -> " +
                           allocText(c->allocsPerOp) + " per op"});
    }
    if (key.second != "hostkernel" || b.perOpNs.median <= 0) continue;
    const double change = c->perOpNs.median / b.perOpNs.median - 1;
    const double spread = std::max(b.spread(), c->spread());
    const double threshold = std::max(3 * spread, categoryMinimum(c->category));
    if (std::fabs(change) <= threshold) continue;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%10s -> %10s  %8s  (threshold %.1f%%: spread %.1f%%, %s min %.0f%%)",
                  formatNs(b.perOpNs.median).c_str(), formatNs(c->perOpNs.median).c_str(),
                  percent(change).c_str(), 100 * threshold, 100 * spread, c->category.c_str(),
                  100 * categoryMinimum(c->category));
    lines.push_back({categoryRank(c->category), key.first, key.second, buf});
  }
  std::sort(lines.begin(), lines.end(), [](const Line &a, const Line &b) {
    return std::tie(a.rank, a.name, a.path) < std::tie(b.rank, b.name, b.path);
  });
  if (lines.empty()) {
    std::fprintf(out, "unusual: none\n");
  } else {
    std::fprintf(out, "unusual (%zu):\n", lines.size());
    for (const Line &l : lines)
      std::fprintf(out, "  %-26s %-10s %s\n", l.name.c_str(), l.path.c_str(), l.text.c_str());
  }

  std::vector<std::string> onlyBase, onlyCur;
  for (const auto &[key, b] : base)
    if (!cur.count(key)) onlyBase.push_back(key.first + " [" + key.second + "]");
  for (const auto &[key, c] : cur)
    if (!base.count(key)) onlyCur.push_back(key.first + " [" + key.second + "]");
  auto list = [&](const char *what, const std::vector<std::string> &v) {
    if (v.empty()) return;
    std::fprintf(out, "%s (%zu):", what, v.size());
    for (std::size_t i = 0; i < v.size() && i < 6; ++i) std::fprintf(out, " %s", v[i].c_str());
    std::fprintf(out, v.size() > 6 ? " ...\n" : "\n");
  };
  list("only in the baseline", onlyBase);
  list("only in the current run", onlyCur);
  return static_cast<int>(lines.size());
}

}  // namespace hkbench
