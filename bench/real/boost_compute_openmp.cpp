// Boost.Compute on PoCL beside the program's own OpenMP loops: each repetition prepares its
// input on the host in an OpenMP parallel loop over 64K floats (its threads on every CPU,
// as a simulation's host step has them), writes the first 4096 of them to the device,
// then runs two transforms and a reduce there (Boost.Compute creates a kernel object per
// algorithm call) and reads the sum back. PoCL's worker threads, or hostkernel's launches,
// share the CPUs with OpenMP's threads.
//
//   boost-compute-openmp [repetitions]
//
// Inputs are small integers, exact in float: the device's sum must equal the host's, which
// the OpenMP loop computes as a reduction. A wrong result prints "WRONG RESULT" and exits
// 1; the time of the repetitions is printed as "loop_seconds S".
#include "workload.hpp"

#include <omp.h>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/algorithm/transform.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/core.hpp>
#include <boost/compute/functional.hpp>

#include <cmath>
#include <vector>

namespace compute = boost::compute;

namespace {

using workload::wrong;

constexpr int kHost = 65536;  // the host step's floats
constexpr int kN = 4096;      // the device's

}  // namespace

int main(int argc, char **argv) {
  const int reps = workload::repetitions(argc, argv, 3000);
  compute::device device(workload::poclCpu());
  compute::context context(device);
  compute::command_queue queue(context, device);

  std::vector<float> host(kHost), bHost(kN);
  for (int i = 0; i < kN; ++i) bHost[i] = static_cast<float>(i % 9);
  compute::vector<float> a(kN, context), b(kN, context), c(kN, context);
  compute::copy(bHost.begin(), bHost.end(), b.begin(), queue);
  std::vector<float> smooth(kHost);

  // Repetition 0 is untimed: Boost.Compute builds its programs on first use.
  workload::timedRepetitions(reps, [&](int r) {
    // The host step: every float from the repetition's number, through a little
    // arithmetic (a square root, exact for these perfect squares) so that the loop has
    // work for its threads. The device's input is the first kN of them; the loop also
    // sums what the device must find.
    double want = 0;
#pragma omp parallel for reduction(+ : want) schedule(static)
    for (int i = 0; i < kHost; ++i) {
      const int k = (i + r) % 16;
      const float v = std::sqrt(static_cast<float>(k * k));
      host[i] = v;
      smooth[i] = 0.5f * v + 0.25f * static_cast<float>(k);
      if (i < kN) want += static_cast<double>((v + bHost[i]) * bHost[i]);
    }
    compute::copy(host.begin(), host.begin() + kN, a.begin(), queue);
    compute::transform(a.begin(), a.end(), b.begin(), c.begin(), compute::plus<float>(), queue);
    compute::transform(c.begin(), c.end(), b.begin(), c.begin(), compute::multiplies<float>(),
                       queue);
    float sum = 0;
    compute::reduce(c.begin(), c.end(), &sum, queue);
    if (sum != want) wrong("reduce", sum, want);
    if (smooth[kHost - 1] != 0.75f * host[kHost - 1]) wrong("host step", smooth[kHost - 1], 0);
  });
  return 0;
}
