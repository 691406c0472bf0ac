// printf from kernels: the output must be the same text on both paths.
#include "integration/corpus_cases/cases.hpp"

#include <vector>

#include "support/corpus_table.hpp"
#include "support/random.hpp"

namespace corpus {

std::vector<Case> printf_cases() {
  Table t;
  // printf: one work-group (ordered) and several (each group's lines may interleave
  // differently on PoCL's threads, so compared sorted).
  auto printf_setup = [](const Geometry &g) {
    Resources s;
    s.buffers = {input(ints<cl_int>(g.g(0), 7, 2000000), Elem::i32),
                 input(floats(g.g(0), 8, -100.0f, 100.0f), Elem::f32)};
    s.args = {mem(0), mem(1)};
    return s;
  };
  t.add("printf_lines", "printf_lines.cl", "printf_lines", {geo({12}, {12})}, printf_setup)
      .printf_mode(PrintfMode::Ordered)
      .spirv({geo({12}, {12})});
  t.add("printf_lines", "printf_lines.cl", "printf_lines",
      {geo({24}, {6}), geo({40}), geo({96}, {32})}, printf_setup)
      .printf_mode(PrintfMode::Sorted)
      .spirv({geo({24}, {6})});

  return t.cases();
}

}  // namespace corpus
