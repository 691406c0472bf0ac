#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace hkbench {
namespace {

double medianOfSorted(const std::vector<double> &v) {
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

}  // namespace

Summary summarize(std::vector<double> samples) {
  Summary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.median = medianOfSorted(samples);
  s.min = samples.front();
  s.max = samples.back();
  for (double &x : samples) x = std::fabs(x - s.median);
  std::sort(samples.begin(), samples.end());
  s.mad = medianOfSorted(samples);
  return s;
}

}  // namespace hkbench
