// Steps of numerical solvers: a heat-equation stencil and a discontinuous-Galerkin
// element. Only spirv_corpus_test runs them so far.
#include "integration/corpus_cases/cases.hpp"

#include <cstddef>
#include <vector>

#include "support/corpus_table.hpp"
#include "support/random.hpp"

namespace corpus {

std::vector<Case> solver_cases() {
  Table t;
  // One explicit step of the 2-D heat equation, r = 0.1.
  t.spirv_only("heat2d.cl", "heat2d_step", {geo({32, 16}, {8, 4})}, [](const Geometry &g) {
    Resources s;
    s.buffers = {input(floats(g.items(), 30, 0.0f, 100.0f), Elem::f32),
                 sentinel(g.items() * 4, Elem::f32)};
    s.args = {mem(0), mem(1), val((cl_uint)g.g(0)), val((cl_uint)g.g(1)), val(0.1f)};
    return s;
  });

  // 8 elements of 32 nodes, one work-group an element.
  t.spirv_only("dg_element.cl", "dg_element", {geo({32 * 8}, {32})}, [](const Geometry &g) {
    size_t e = g.items() / 32;
    Resources s;
    s.buffers = {input(doubles(e * 32, 31, -1.0, 1.0), Elem::f64),
                 input(doubles(32 * 32, 32, -1.0, 1.0), Elem::f64),
                 input(doubles(32 * 32, 33, -1.0, 1.0), Elem::f64),
                 input(doubles(e, 34, 0.5, 2.0), Elem::f64),
                 sentinel(e * 32 * 8, Elem::f64)};
    s.args = {mem(0), mem(1), mem(2), mem(3), mem(4), val(1.5)};
    return s;
  });

  return t.cases();
}

}  // namespace corpus
