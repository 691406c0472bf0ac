// --plot FILE.svg: one self-contained SVG (no scripts, no external fonts or tools).
//
// One section per category with its own logarithmic time axis; per case a group of
// horizontal bars, one per path (hostkernel, queue, native, in that order), each ending at
// the path's median, with a thin line from min to max, the median as text and, for the
// paths other than the baseline, how many times faster or slower than it.
//
//   hkbench::writePlot("bench.svg", results);   // throws std::runtime_error on I/O errors
#pragma once

#include "report.hpp"

#include <string>

namespace hkbench {

void writePlot(const std::string &file, const Results &results);

}  // namespace hkbench
