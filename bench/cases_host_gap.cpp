// apps/host-gap/x<X>-y<Y> (category "applications"): a program that does X us of its own
// work on the calling thread between launches of a kernel of Y us, X and Y in {2, 20, 200}.
// One op = one step:
//
//   set the kernel's seed argument
//   enqueue the kernel, non-blocking (in-order queue)
//   X us of the caller's own work: a busy loop on the calling thread, timed by the
//     monotonic clock (not a sleep: the caller wants its CPU)
//   blocking read of the kernel's result (64 uints): the step needs it now
//
// A runtime that runs the kernel while the caller works takes about max(X, Y) per step; one
// that runs it inside the enqueue takes X + Y. Paths: `hostkernel` (every call through hk*,
// HkCalls) and `queue` (cl*, ClCalls: PoCL alone, or the layer under OPENCL_LAYERS), as in
// steps/* (bench/step_paths.hpp).
//
// The kernel is one work-group of 64 work-items, so that it runs on one thread on every
// path; each work-item runs a chain of integer operations `iterations` long. The number of
// iterations for Y is calibrated once per process, when the first case with that Y sets up:
// the number for which one launch + finish through hk* on a queue of its own takes Y, so
// that Y holds on the machine that runs the bench (hk*, not PoCL's queue: that adds more to
// every launch than the shortest Y). Every step checks the whole result against the
// host's, and consecutive steps use different seeds: a step whose read did not wait for
// its own kernel stops the case.
#include "case_util.hpp"
#include "cl_calls.hpp"
#include "launch_paths.hpp"
#include "opencl_env.hpp"
#include "report.hpp"
#include "state_path.hpp"
#include "timer.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hkbench {
namespace {

constexpr const char *kSource = R"CLC(
kernel void host_gap_work(global uint *out, uint iterations, uint seed) {
  const uint i = (uint)get_global_id(0);
  uint x = (seed + 1u) * 0x9e3779b9u ^ (i * 0x85ebca6bu);
  for (uint k = 0; k < iterations; ++k) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    x += k;
  }
  out[i] = x;
}
)CLC";
constexpr const char *kKernel = "host_gap_work";

constexpr std::size_t kItems = 64;  // one work-group: one thread on every path
constexpr std::size_t kBytes = kItems * sizeof(cl_uint);
constexpr cl_uint kSeeds = 4;       // step i uses seed i % kSeeds
constexpr std::uint64_t kCheckSteps = 3;

// The kernel's result, computed on the host.
std::vector<cl_uint> hostResult(cl_uint iterations, cl_uint seed) {
  std::vector<cl_uint> out(kItems);
  for (std::size_t w = 0; w < kItems; ++w) {
    std::uint32_t x = (seed + 1u) * 0x9e3779b9u ^ (static_cast<std::uint32_t>(w) * 0x85ebca6bu);
    for (std::uint32_t k = 0; k < iterations; ++k) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      x += k;
    }
    out[w] = x;
  }
  return out;
}

// The caller's own work between launch and read: a busy loop until `us` have passed on the
// monotonic clock. The loop's value goes to a sink so that the compiler keeps the work.
std::atomic<std::uint64_t> callerSink{0};

void callerWork(unsigned us) {
  const Clock::time_point end = Clock::now() + std::chrono::microseconds(us);
  std::uint64_t x = callerSink.load(std::memory_order_relaxed);
  do {
    for (int k = 0; k < 16; ++k) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  } while (Clock::now() < end);
  callerSink.store(x, std::memory_order_relaxed);
}

// The program, built once per process and entry-point set (never released: it lives as
// long as the cases).
template <class Api>
cl_program program(OpenCLEnv &env) {
  static const cl_program built = [&env] {
    cl_int err = CL_SUCCESS;
    const char *src = kSource;
    cl_program p = Api::CreateProgramWithSource(env.context(), 1, &src, nullptr, &err);
    checkCl(err, std::string(Api::kName) + ": create the host-gap program");
    cl_device_id device = env.device();
    checkCl(Api::BuildProgram(p, 1, &device, "", nullptr, nullptr),
            std::string(Api::kName) + ": build the host-gap program");
    return p;
  }();
  return built;
}

// The kernel's work for one Y: shared by the cases with that Y and by both paths, so that
// every path of a case runs the same kernel.
struct Work {
  cl_uint iterations = 1;
  double aloneNs = 0;  // one launch + finish through hk*, the fastest of 5
  std::array<std::vector<cl_uint>, kSeeds> expected;
};

// An in-order queue, the result buffer and the kernel with its first two arguments set,
// made through one path's entry points; released with the object.
template <class Api>
struct KernelObjects {
  KernelObjects(OpenCLEnv &env, cl_uint iterations) {
    cl_int err = CL_SUCCESS;
    queue = Api::CreateCommandQueueWithProperties(env.context(), env.device(), nullptr, &err);
    must(err, "create queue");
    out = Api::CreateBuffer(env.context(), CL_MEM_READ_WRITE, kBytes, nullptr, &err);
    must(err, "create out");
    kernel = Api::CreateKernel(program<Api>(env), kKernel, &err);
    must(err, "create kernel");
    must(Api::SetKernelArg(kernel, 0, sizeof out, &out), "set out");
    setIterations(iterations);
  }
  ~KernelObjects() {
    if (kernel) Api::ReleaseKernel(kernel);
    if (out) Api::ReleaseMemObject(out);
    if (queue) Api::ReleaseCommandQueue(queue);
  }
  KernelObjects(const KernelObjects &) = delete;
  KernelObjects &operator=(const KernelObjects &) = delete;

  void setIterations(cl_uint iterations) {
    must(Api::SetKernelArg(kernel, 1, sizeof iterations, &iterations), "set iterations");
  }
  void setSeed(cl_uint seed) { must(Api::SetKernelArg(kernel, 2, sizeof seed, &seed), "set seed"); }
  void launch() {
    must(Api::EnqueueNDRangeKernel(queue, kernel, 1, nullptr, &kItems, &kItems, 0, nullptr,
                                   nullptr),
         "launch");
  }
  static void must(cl_int err, const char *what) {
    if (err != CL_SUCCESS) [[unlikely]]
      throw ClError(err, std::string(Api::kName) + ": host-gap: " + what);
  }

  cl_command_queue queue = nullptr;
  cl_mem out = nullptr;
  cl_kernel kernel = nullptr;
};

// Times launch + finish of the kernel through hk* on a queue of its own.
class Stopwatch {
 public:
  explicit Stopwatch(OpenCLEnv &env) : k_(env, 1) { k_.setSeed(0); }

  // The fastest of `repeats` launches + finish with `iterations`: a preempted launch does
  // not count.
  double fastestNs(cl_uint iterations, int repeats) {
    k_.setIterations(iterations);
    double best = 1e300;
    for (int r = 0; r < repeats; ++r)
      best = std::min(best, timeNs([&] {
                        k_.launch();
                        k_.must(HkCalls::Finish(k_.queue), "finish");
                      }));
    return best;
  }

 private:
  KernelObjects<HkCalls> k_;
};

// Iterations for which one launch + finish through hk* takes `ns`: the time is not
// proportional to the iterations (short chains of consecutive work-items overlap in the
// CPU, long ones do not), so it is searched for: doubled until the launch takes at least
// `ns`, then bisected to within 2 %. Each probe is the fastest of 5 launches.
cl_uint iterationsFor(Stopwatch &watch, double ns) {
  constexpr int kRepeats = 5;
  cl_uint hi = 1;
  while (hi < (1u << 30) && watch.fastestNs(hi, kRepeats) < ns) hi *= 2;
  cl_uint lo = hi / 2;  // below ns (or 0)
  while (hi - lo > std::max(1u, lo / 50)) {
    const cl_uint mid = lo + (hi - lo) / 2;
    (watch.fastestNs(mid, kRepeats) < ns ? lo : hi) = mid;
  }
  return std::max(1u, hi);
}

// The work of each Y calibrated so far in this process.
std::map<unsigned, std::unique_ptr<Work>> &calibrated() {
  static std::map<unsigned, std::unique_ptr<Work>> works;
  return works;
}

const Work &workFor(OpenCLEnv &env, unsigned yUs) {
  std::unique_ptr<Work> &w = calibrated()[yUs];
  if (w) return *w;
  auto work = std::make_unique<Work>();
  Stopwatch watch(env);
  watch.fastestNs(1, 3);  // the first launches: whatever happens once
  work->iterations = iterationsFor(watch, yUs * 1e3);
  work->aloneNs = watch.fastestNs(work->iterations, 5);
  for (cl_uint s = 0; s < kSeeds; ++s) work->expected[s] = hostResult(work->iterations, s);
  for (cl_uint s = 0; s < kSeeds; ++s)
    if (work->expected[s] == work->expected[(s + 1) % kSeeds])
      throw std::runtime_error("host-gap: two seeds give the same result; a stale read "
                               "would go unnoticed");
  w = std::move(work);
  return *w;
}

template <class Api>
class GapState {
 public:
  GapState(OpenCLEnv &env, unsigned xUs, unsigned yUs) : env_(env), xUs_(xUs), yUs_(yUs) {}

  void setup() {
    work_ = &workFor(env_, yUs_);
    k_.emplace(env_, work_->iterations);
    dst_.assign(kItems, 0);
  }

  void run(std::uint64_t n) {
    for (std::uint64_t k = 0; k < n; ++k) step(next_++);
  }

  Output check() {
    next_ = 0;
    run(kCheckSteps);
    std::vector<int> out(dst_.begin(), dst_.end());
    return outputOf(out, ElemType::I32);
  }

  void mark() { tally_.mark(k_->kernel); }

  // Where the timed launches went, and what the kernel takes alone.
  std::string note() {
    const std::string where = tally_.note(k_->kernel);
    char alone[96];
    std::snprintf(alone, sizeof alone, "kernel alone %s (%u iterations)",
                  formatNs(work_->aloneNs).c_str(), static_cast<unsigned>(work_->iterations));
    return where.empty() ? alone : where + "; " + alone;
  }
  std::optional<std::array<double, 3>> shares() const { return tally_.shares(); }

 private:
  // One step; `i` numbers the steps.
  void step(std::uint64_t i) {
    const cl_uint seed = static_cast<cl_uint>(i % kSeeds);
    k_->setSeed(seed);
    k_->launch();
    callerWork(xUs_);
    k_->must(Api::EnqueueReadBuffer(k_->queue, k_->out, CL_TRUE, 0, kBytes, dst_.data(), 0,
                                    nullptr, nullptr),
             "read");
    if (dst_ != work_->expected[seed]) [[unlikely]] {
      std::size_t at = 0;
      while (dst_[at] == work_->expected[seed][at]) ++at;
      throw std::runtime_error(std::string(Api::kName) + ": step " + std::to_string(i) +
                               ": out[" + std::to_string(at) + "] = " +
                               std::to_string(dst_[at]) + ", want " +
                               std::to_string(work_->expected[seed][at]));
    }
  }

  OpenCLEnv &env_;
  const unsigned xUs_, yUs_;
  const Work *work_ = nullptr;
  std::optional<KernelObjects<Api>> k_;
  std::vector<cl_uint> dst_;  // the host's copy of the result
  std::uint64_t next_ = 0;
  LaunchTally<Api::kCounts> tally_;
};

template <class Api>
Path gapPath(OpenCLEnv &env, unsigned xUs, unsigned yUs) {
  return statePath<Api::kCounts>(Api::kName, std::make_shared<GapState<Api>>(env, xUs, yUs));
}

Case gapCase(unsigned xUs, unsigned yUs) {
  Case c;
  c.name = "apps/host-gap/x" + std::to_string(xUs) + "-y" + std::to_string(yUs);
  c.category = "applications";
  c.description = "one op = set the seed + non-blocking launch of a kernel of ~" +
                  std::to_string(yUs) + " us on one thread (64 work-items, one group) + " +
                  std::to_string(xUs) +
                  " us of the caller's own busy work + blocking read of the kernel's 256 bytes";
  c.make = [xUs, yUs](OpenCLEnv &env) {
    return std::vector<Path>{gapPath<HkCalls>(env, xUs, yUs), gapPath<ClCalls>(env, xUs, yUs)};
  };
  // After the paths' setup, which calibrated the work of this Y.
  c.reference = [yUs] {
    const auto it = calibrated().find(yUs);
    if (it == calibrated().end() || !it->second)
      throw std::runtime_error("host-gap: no calibrated work for the reference");
    const std::vector<cl_uint> &want = it->second->expected[(kCheckSteps - 1) % kSeeds];
    return outputOf(std::vector<int>(want.begin(), want.end()), ElemType::I32);
  };
  return c;
}

// X outer, Y inner: x2-y2, x2-y20, ..., x200-y200.
const bool kRegistered = [] {
  for (unsigned x : {2u, 20u, 200u})
    for (unsigned y : {2u, 20u, 200u}) Register{gapCase(x, y)};
  return true;
}();

}  // namespace
}  // namespace hkbench
