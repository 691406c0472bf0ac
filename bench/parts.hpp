// The note "mixed / parts 1.04x (host-alone + hostkernel-alone)" on the paths of a case that
// do the work of other paths together (Case::parts): how much more the combination costs
// than its parts measured alone (1.00x: nothing lost to the mix).
//
//   hkbench::noteParts(outcome.results);   // after the medians are known
#pragma once

#include "report.hpp"

#include <vector>

namespace hkbench {

// Sets the parts note of every result whose case names parts for its path; a note set by
// an earlier call (one process's, before combining) is replaced.
void noteParts(std::vector<Result> &results);

}  // namespace hkbench
