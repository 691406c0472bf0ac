// The kernel-corpus cases, one table per family of kernels/ (corpus_cases/<family>.cpp),
// each case marked for the test that runs it (corpus_test or spirv_corpus_test).
//
//   ::testing::ValuesIn(corpus::cases_for(corpus::Suite::Corpus))
#pragma once

#include <vector>

#include "support/corpus_case.hpp"

namespace corpus {

std::vector<Case> work_item_cases();   // ids, sizes and offsets of the launch
std::vector<Case> memory_cases();      // global memory: buffers, sub-buffers, SVM, atomics
std::vector<Case> argument_cases();    // by-value structs, many arguments
std::vector<Case> work_group_cases();  // __local memory, barriers, private arrays
std::vector<Case> math_cases();        // integer and floating-point math, denormals
std::vector<Case> solver_cases();      // steps of numerical solvers
std::vector<Case> printf_cases();      // printf output

// Every family's cases that `suite` runs, family by family.
inline std::vector<Case> cases_for(Suite suite) {
  std::vector<Case> cases;
  for (auto family : {work_item_cases, memory_cases, argument_cases, work_group_cases,
                      math_cases, solver_cases, printf_cases})
    for (Case &c : family())
      if (c.suite == suite) cases.push_back(std::move(c));
  return cases;
}

}  // namespace corpus
