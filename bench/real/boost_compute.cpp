// Boost.Compute on PoCL: transform and reduce on small vectors, repeated. Boost.Compute
// keeps built programs in a cache per context and creates a kernel object for every
// algorithm call, so each operation here creates a kernel, sets its arguments, launches
// it and releases it (reduce also reads its result back).
//
//   boost-compute [repetitions]
//
// One element of the input changes per repetition. Inputs are small integers, exact in
// float: every result must equal the host's. A wrong
// result prints "WRONG RESULT" and exits 1; the time of the repetitions is printed as
// "loop_seconds S".
#include "workload.hpp"

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/algorithm/transform.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/core.hpp>
#include <boost/compute/functional.hpp>

#include <vector>

namespace compute = boost::compute;

namespace {

using workload::wrong;

constexpr std::size_t kN = 4096;

}  // namespace

int main(int argc, char **argv) {
  const int reps = workload::repetitions(argc, argv, 5000);
  compute::device device(workload::poclCpu());
  compute::context context(device);
  compute::command_queue queue(context, device);

  std::vector<float> aHost(kN), bHost(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    aHost[i] = static_cast<float>(i % 16);
    bHost[i] = static_cast<float>(i % 9);
  }
  compute::vector<float> a(kN, context), b(kN, context), c(kN, context);
  compute::copy(aHost.begin(), aHost.end(), a.begin(), queue);
  compute::copy(bHost.begin(), bHost.end(), b.begin(), queue);

  double wantSum = 0;
  for (std::size_t i = 0; i < kN; ++i) wantSum += (aHost[i] + bHost[i]) * bHost[i];

  // Repetition 0 is untimed: Boost.Compute builds its programs on first use.
  workload::timedRepetitions(reps, [&](int r) {
    // One element of a changes per repetition (a write), so a lost or stale operation
    // shows in the sum.
    const std::size_t at = static_cast<std::size_t>(r) % kN;
    const float v = static_cast<float>((r * 5) % 16);
    wantSum += static_cast<double>((v + bHost[at]) * bHost[at]) -
               static_cast<double>((aHost[at] + bHost[at]) * bHost[at]);
    aHost[at] = v;
    a[at] = v;
    compute::transform(a.begin(), a.end(), b.begin(), c.begin(), compute::plus<float>(), queue);
    compute::transform(c.begin(), c.end(), b.begin(), c.begin(), compute::multiplies<float>(),
                       queue);
    float sum = 0;
    compute::reduce(c.begin(), c.end(), &sum, queue);
    if (sum != wantSum) wrong("reduce", sum, wantSum);
  });

  std::vector<float> cHost(kN);
  compute::copy(c.begin(), c.end(), cHost.begin(), queue);
  for (std::size_t i = 0; i < kN; ++i) {
    const float want = (aHost[i] + bHost[i]) * bHost[i];
    if (cHost[i] != want) wrong("transform", cHost[i], want);
  }
  return 0;
}
