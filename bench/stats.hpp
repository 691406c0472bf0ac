// Summary statistics over the runs of one path of one case.
//
//   hkbench::Summary s = hkbench::summarize(perLaunchNs);   // s.median, s.min, s.max, s.count
//   double spread = s.spread();                              // MAD / median
#pragma once

#include <cstddef>
#include <vector>

namespace hkbench {

struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
  double mad = 0;  // median absolute deviation from the median
  std::size_t count = 0;

  // The typical run-to-run change relative to the median (mad / median; 0 if median is 0).
  double spread() const { return median > 0 ? mad / median : 0; }
};

// Median (mean of the two middle values for an even count), min, max and median absolute
// deviation of the samples. An empty input gives a zero Summary.
Summary summarize(std::vector<double> samples);

}  // namespace hkbench
