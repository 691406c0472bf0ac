// Summary statistics over the runs of one path of one case.
//
//   hkbench::Summary s = hkbench::summarize(perLaunchNs);   // s.median, s.min, s.max, s.count
#pragma once

#include <cstddef>
#include <vector>

namespace hkbench {

struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
  std::size_t count = 0;
};

// Median (mean of the two middle values for an even count), min and max of the samples.
// An empty input gives a zero Summary.
Summary summarize(std::vector<double> samples);

}  // namespace hkbench
