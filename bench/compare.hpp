// --compare: this run (or a second JSON file) against a baseline JSON file.
//
// Per category, the geometric mean of current/baseline medians of the hostkernel path
// (queue and native alongside, as controls: when they moved as much, the machine did).
// Then the unusual cases:
//   - a hostkernel median that changed by more than both 3x the case's typical run-to-run
//     change (max of the two files' `spread`, the MAD of the runs relative to their
//     median) and the category's minimum (latency 5 %, performance 3 %, applications 3 %);
//   - any path that starts or stops allocating (allocations per operation 0 <-> > 0).
// Cases in only one of the files are listed, but are not unusual.
//
//   hkbench::Results base = hkbench::readResultsJson("baseline.json");
//   int unusual = hkbench::compareResults(base, "baseline.json", current, stdout);
#pragma once

#include "report.hpp"

#include <cstdio>
#include <string>

namespace hkbench {

// The smallest change that counts in a category (fraction).
double categoryMinimum(const std::string &category);

// Prints the comparison; returns the number of unusual cases.
int compareResults(const Results &baseline, const std::string &baselineName,
                   const Results &current, std::FILE *out);

}  // namespace hkbench
