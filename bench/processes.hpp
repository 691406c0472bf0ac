// One result table from several processes (--processes N).
//
// Some of a run's luck is fixed for the life of a process: where its buffers land in
// physical memory (and so in the shared L3), which vCPUs its threads settle on, which mode
// PoCL's scheduler falls into. On the 2-vCPU VMs, launch/axpy-1e6's hostkernel median is
// 65-80 us in most processes and ~120 us in some, and PoCL's queue is ~200 us in some
// processes and 300-900 us in others; a single process draws one of these. --processes N
// runs the selected cases in N fresh processes, one after the other, and combines them:
//
//   std::vector<hkbench::Results> each = ...;          // one per process (readResultsJson)
//   hkbench::Results all = hkbench::combineProcesses(each);
//   // per case and path: median = median of the per-process medians, spread = their MAD
//   // / median, min/max over all runs, ratio = baseline's combined median / this one,
//   // note += "ratio per process 1.7x-7.7x"
#pragma once

#include "report.hpp"

#include <string>
#include <vector>

namespace hkbench {

// Combines per-process results (same options, different processes). Cases and paths keep
// the order in which they first appear; one missing from some processes (a case that
// failed there) is combined from the others. meta is the first process's, with
// `processes` set and `runs` per process.
Results combineProcesses(const std::vector<Results> &perProcess);

}  // namespace hkbench
