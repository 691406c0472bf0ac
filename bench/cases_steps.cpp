// Step cases (category "applications"): the steps a real OpenCL program takes around a
// launch, each one whole step timed through hostkernel's entry points against PoCL's
// queue in the same run (bench/step_paths.hpp). One kernel throughout:
// guarded_copy(in, out, n), out[i] = in[i] * 2 + 1, on 1024 ints (4 KB, local 64, one
// inline launch) or 262144 ints (1 MB, local 256: above the inline limit, a launch of
// team size; the hostkernel note says where it ran).
#include "step_paths.hpp"

namespace hkbench {
namespace {

struct StepSpec {
  const char *name;
  Step step;
  std::size_t items;
  const char *description;
};

constexpr StepSpec kSteps[] = {
    {"steps/args-launch-finish/4k", Step::kArgsLaunchFinish, kSmallItems,
     "one op = 3 x set argument (in, out, n) + launch + finish; 4 KB of ints, local 64"},
    {"steps/write-launch-read/4k", Step::kWriteLaunchRead, kSmallItems,
     "one op = non-blocking write of in + launch + blocking read of out; 4 KB, local 64"},
    {"steps/write-launch-read/1m", Step::kWriteLaunchRead, kLargeItems,
     "one op = non-blocking write of in + launch of team size + blocking read of out; "
     "1 MB of ints, local 256"},
    {"steps/fill-launch-read/4k", Step::kFillLaunchRead, kSmallItems,
     "one op = fill in with one int + launch + blocking read of out; 4 KB, local 64"},
    {"steps/copy-launch-read/4k", Step::kCopyLaunchRead, kSmallItems,
     "one op = copy one of two source buffers to in + launch + blocking read of out; "
     "4 KB, local 64"},
    {"steps/write-launch-map/4k", Step::kWriteLaunchMap, kSmallItems,
     "one op = non-blocking write + launch + blocking map of out (read) + unmap + finish; "
     "4 KB, local 64"},
    {"steps/event-chain/4k", Step::kEventChain, kSmallItems,
     "one op = write -> event, launch waiting for it -> event, blocking read waiting for "
     "that -> event, the three events released (PyOpenCL's shape); 4 KB, local 64"},
    {"steps/svm-launch/4k", Step::kSvmLaunch, kSmallItems,
     "one op = non-blocking SVM memcpy host -> in + launch + blocking SVM memcpy out -> "
     "host (coarse-grained SVM); 4 KB, local 64"},
    {"steps/out-of-order/4k", Step::kOutOfOrder, kSmallItems,
     "out-of-order queue; one op = write -> event, launch waiting for it -> event, "
     "blocking read waiting for that, events released; 4 KB, local 64"},
    {"steps/new-buffer/4k", Step::kNewBuffer, kSmallItems,
     "one op = create the result buffer + set it + launch + blocking read + release it "
     "(a result per operation, as without a memory pool); 4 KB, local 64"},
    {"steps/new-kernel/4k", Step::kNewKernel, kSmallItems,
     "one op = create the kernel object from the built program + set its 3 arguments + "
     "launch + blocking read + release it (a kernel object per call); 4 KB, local 64"},
};

// In table order, during static initialisation like every other case.
const bool kRegistered = [] {
  for (const StepSpec &s : kSteps) Register{stepCase(s.name, s.description, s.step, s.items)};
  return true;
}();

}  // namespace
}  // namespace hkbench
