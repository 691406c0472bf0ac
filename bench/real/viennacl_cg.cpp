// ViennaCL on PoCL: a small conjugate-gradient solve and vector expressions whose results
// are new vectors, repeated. ViennaCL allocates a buffer for every new vector, so most
// operations here create a buffer, launch on it and (for norms and the solve's scalars)
// read a result back.
//
//   viennacl-cg [repetitions]
//
// The system is the 1-D Poisson matrix tridiag(-1, 2.05, -1) of size 1024 (diagonally
// dominant: CG converges in a few dozen iterations). The check recomputes the residual
// ||A x - b|| / ||b|| on the host in double and requires < 1e-4; the vector expressions
// use small integers, exact in float, and must match the host bit for bit. A wrong result
// prints "WRONG RESULT" and exits 1; the time of the repetitions is printed as
// "loop_seconds S".
#define VIENNACL_WITH_OPENCL
#include "workload.hpp"

#include <viennacl/compressed_matrix.hpp>
#include <viennacl/linalg/cg.hpp>
#include <viennacl/linalg/norm_2.hpp>
#include <viennacl/linalg/prod.hpp>
#include <viennacl/vector.hpp>

#include <cmath>
#include <map>
#include <vector>

namespace {

using workload::wrong;

constexpr std::size_t kN = 1024;

}  // namespace

int main(int argc, char **argv) {
  const int reps = workload::repetitions(argc, argv, 80);
  viennacl::ocl::set_context_device_type(0, viennacl::ocl::cpu_tag());

  std::vector<std::map<unsigned int, float>> rows(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    rows[i][static_cast<unsigned>(i)] = 2.05f;
    if (i > 0) rows[i][static_cast<unsigned>(i - 1)] = -1.0f;
    if (i + 1 < kN) rows[i][static_cast<unsigned>(i + 1)] = -1.0f;
  }
  viennacl::compressed_matrix<float> A(kN, kN);
  viennacl::copy(rows, A);
  std::vector<float> bHost(kN), uHost(kN), wHost(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    bHost[i] = static_cast<float>(i % 13) - 6.0f;
    uHost[i] = static_cast<float>(i % 16);
    wHost[i] = static_cast<float>(i % 5);
  }
  viennacl::vector<float> b(kN), u(kN), w(kN);
  viennacl::copy(bHost, b);
  viennacl::copy(uHost, u);
  viennacl::copy(wHost, w);

  // Repetition 0 is untimed: ViennaCL builds its programs on first use.
  std::vector<float> x(kN), t(kN);
  workload::timedRepetitions(reps, [&](int r) {
    viennacl::vector<float> xs = viennacl::linalg::solve(A, b, viennacl::linalg::cg_tag(1e-6, 500));
    // New vectors per expression, as application code writes them.
    for (int k = 0; k < 20; ++k) {
      // r * w: each repetition's vectors differ, so a stale result shows at the end.
      viennacl::vector<float> s = u + static_cast<float>(r) * w;
      viennacl::vector<float> d = s - 2.0f * w;
      viennacl::vector<float> p = viennacl::linalg::element_prod(d, w);
      const float n2 = viennacl::linalg::norm_2(p);
      if (!(n2 >= 0.0f)) wrong("norm_2", n2, 0.0);
      if (k == 19 && r == reps) viennacl::copy(p, t);
    }
    if (r == reps) viennacl::copy(xs, x);
  });

  double res = 0, nb = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    double ax = 2.05 * x[i];
    if (i > 0) ax -= x[i - 1];
    if (i + 1 < kN) ax -= x[i + 1];
    res += (ax - bHost[i]) * (ax - bHost[i]);
    nb += static_cast<double>(bHost[i]) * bHost[i];
  }
  if (!(std::sqrt(res / nb) < 1e-4)) wrong("relative residual", std::sqrt(res / nb), 1e-4);
  for (std::size_t i = 0; i < kN; ++i) {
    const float s = uHost[i] + static_cast<float>(reps) * wHost[i];
    const float want = (s - 2.0f * wHost[i]) * wHost[i];
    if (t[i] != want) wrong("element_prod", t[i], want);
  }
  return 0;
}
