#include "step_paths.hpp"

#include "case_util.hpp"
#include "cl_calls.hpp"
#include "launch_paths.hpp"
#include "opencl_env.hpp"
#include "state_path.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

namespace hkbench {
namespace {

constexpr const char *kFile = "guarded_copy.cl";
constexpr const char *kKernel = "guarded_copy";
constexpr std::uint64_t kCheckSteps = 3;

// What `in` holds after step i, so the host knows what `out` must hold.
enum class Input {
  kVaries,  // the host array with element i % items set to value(i) is written
  kFill,    // every element is value(i)
  kCopy,    // source A (even steps) or source B (odd steps)
  kFixed,   // written once in setup
};

Input inputOf(Step s) {
  switch (s) {
    case Step::kFillLaunchRead: return Input::kFill;
    case Step::kCopyLaunchRead: return Input::kCopy;
    case Step::kArgsLaunchFinish:
    case Step::kNewBuffer:
    case Step::kNewKernel: return Input::kFixed;
    default: return Input::kVaries;
  }
}

// Inputs are small non-negative integers; every output (2x + 1) is odd, so 0 in the host's
// result array is never a result.
int value(std::uint64_t i) { return static_cast<int>((i * 7 + 3) % 1000); }
int sourceA(std::size_t k) { return static_cast<int>(k % 1000); }
int sourceB(std::size_t k) { return static_cast<int>((k * 3 + 500) % 1000); }

// `in` after `steps` steps from the start.
std::vector<int> inputAfter(Step s, std::size_t items, std::uint64_t steps) {
  std::vector<int> in(items);
  for (std::size_t k = 0; k < items; ++k) in[k] = sourceA(k);
  if (steps == 0) return in;
  const std::uint64_t last = steps - 1;
  switch (inputOf(s)) {
    case Input::kVaries:
      for (std::uint64_t i = 0; i < steps; ++i) in[i % items] = value(i);
      break;
    case Input::kFill:
      for (int &v : in) v = value(last);
      break;
    case Input::kCopy:
      if (last & 1)
        for (std::size_t k = 0; k < items; ++k) in[k] = sourceB(k);
      break;
    case Input::kFixed:
      break;
  }
  return in;
}

[[noreturn]] void wrongResult(const char *path, std::uint64_t step, std::size_t at, int got,
                              int want) {
  throw std::runtime_error(std::string(path) + ": step " + std::to_string(step) + ": out[" +
                           std::to_string(at) + "] = " + std::to_string(got) + ", want " +
                           std::to_string(want));
}

template <class Api>
class StepState {
 public:
  StepState(OpenCLEnv &env, Step step, std::size_t items)
      : env_(env), step_(step), items_(items), bytes_(items * sizeof(int)),
        global_(items), local_(items > 8192 ? 256 : 64), n_(static_cast<cl_uint>(items)) {}

  ~StepState() {
    if (kernel_) Api::ReleaseKernel(kernel_);
    for (cl_mem m : {in_, out_, sourceA_, sourceB_})
      if (m) Api::ReleaseMemObject(m);
    for (void *p : {svmIn_, svmOut_})
      if (p) Api::SVMFree(env_.context(), p);
    if (queue_) Api::ReleaseCommandQueue(queue_);
  }
  StepState(const StepState &) = delete;
  StepState &operator=(const StepState &) = delete;

  void setup() {
    cl_context ctx = env_.context();
    program_ = env_.program(kFile);
    cl_int err = CL_SUCCESS;
    const cl_queue_properties outOfOrder[] = {CL_QUEUE_PROPERTIES,
                                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    queue_ = Api::CreateCommandQueueWithProperties(
        ctx, env_.device(), step_ == Step::kOutOfOrder ? outOfOrder : nullptr, &err);
    must(err, "create queue");
    src_.resize(items_);
    dst_.resize(items_);
    if (step_ == Step::kSvmLaunch) {
      svmIn_ = Api::SVMAlloc(ctx, CL_MEM_READ_WRITE, bytes_, 0);
      svmOut_ = Api::SVMAlloc(ctx, CL_MEM_READ_WRITE, bytes_, 0);
      if (!svmIn_ || !svmOut_) throw std::runtime_error(std::string(Api::kName) + ": SVM alloc");
    } else {
      in_ = createBuffer("create in");
      if (step_ != Step::kNewBuffer) out_ = createBuffer("create out");
    }
    if (step_ == Step::kCopyLaunchRead) {
      std::vector<int> a(items_), b(items_);
      for (std::size_t k = 0; k < items_; ++k) a[k] = sourceA(k), b[k] = sourceB(k);
      sourceA_ = createBuffer("create source A");
      sourceB_ = createBuffer("create source B");
      must(Api::EnqueueWriteBuffer(queue_, sourceA_, CL_TRUE, 0, bytes_, a.data(), 0, nullptr,
                                   nullptr), "write source A");
      must(Api::EnqueueWriteBuffer(queue_, sourceB_, CL_TRUE, 0, bytes_, b.data(), 0, nullptr,
                                   nullptr), "write source B");
    }
    if (step_ != Step::kNewKernel) {
      kernel_ = Api::CreateKernel(program_, kKernel, &err);
      must(err, "create kernel");
      if (step_ == Step::kSvmLaunch) {
        must(Api::SetKernelArgSVMPointer(kernel_, 0, svmIn_), "set in");
        must(Api::SetKernelArgSVMPointer(kernel_, 1, svmOut_), "set out");
      } else {
        must(Api::SetKernelArg(kernel_, 0, sizeof(cl_mem), &in_), "set in");
        if (out_) must(Api::SetKernelArg(kernel_, 1, sizeof(cl_mem), &out_), "set out");
      }
      must(Api::SetKernelArg(kernel_, 2, sizeof n_, &n_), "set n");
    }
    reset();
  }

  // The timed part: n steps, each complete when the next starts.
  void run(std::uint64_t n) {
    for (std::uint64_t k = 0; k < n; ++k) stepOnce(next_++);
  }

  Output check() {
    reset();
    run(kCheckSteps);
    std::vector<int> out(items_);
    if (svmOut_)
      must(Api::EnqueueSVMMemcpy(queue_, CL_TRUE, out.data(), svmOut_, bytes_, 0, nullptr,
                                 nullptr), "check: read out");
    else if (out_)
      must(Api::EnqueueReadBuffer(queue_, out_, CL_TRUE, 0, bytes_, out.data(), 0, nullptr,
                                  nullptr), "check: read out");
    else
      out = dst_;  // kNewBuffer: `out` is gone; the last step read all of it
    must(Api::Finish(queue_), "check: finish");
    return outputOf(out, ElemType::I32);
  }

  void mark() {
    probed_ = std::nullopt;
    if (kernel_) tally_.mark(kernel_);
  }

  // Where the timed launches went (on the queue path: through the layer, if the process
  // runs with it). With a kernel object per step, where the launch of one more step went
  // (its object is asked before the step releases it).
  std::string note() {
    if (kernel_) return tally_.note(kernel_);
    probe_ = true;
    stepOnce(next_++);
    probe_ = false;
    if (!probed_ || probed_->empty()) return {};
    return "next step's launch: " + *probed_;
  }
  std::optional<std::array<double, 3>> shares() const {
    if (kernel_) return tally_.shares();
    return std::nullopt;
  }

 private:
  cl_mem createBuffer(const char *what) {
    cl_int err = CL_SUCCESS;
    cl_mem m = Api::CreateBuffer(env_.context(), CL_MEM_READ_WRITE, bytes_, nullptr, &err);
    must(err, what);
    return m;
  }

  void must(cl_int err, const char *what) const {
    if (err != CL_SUCCESS) [[unlikely]]
      throw ClError(err, std::string(Api::kName) + ": " + what);
  }

  // The starting state: `in` and the host arrays as inputAfter(0), `out` all zero.
  void reset() {
    next_ = 0;
    for (std::size_t k = 0; k < items_; ++k) src_[k] = sourceA(k);
    std::memset(dst_.data(), 0, bytes_);
    const std::vector<int> zero(items_, 0);
    if (svmIn_) {
      must(Api::EnqueueSVMMemcpy(queue_, CL_TRUE, svmIn_, src_.data(), bytes_, 0, nullptr,
                                 nullptr), "reset in");
      must(Api::EnqueueSVMMemcpy(queue_, CL_TRUE, svmOut_, zero.data(), bytes_, 0, nullptr,
                                 nullptr), "reset out");
    } else {
      must(Api::EnqueueWriteBuffer(queue_, in_, CL_TRUE, 0, bytes_, src_.data(), 0, nullptr,
                                   nullptr), "reset in");
      if (out_)
        must(Api::EnqueueWriteBuffer(queue_, out_, CL_TRUE, 0, bytes_, zero.data(), 0, nullptr,
                                     nullptr), "reset out");
    }
    must(Api::Finish(queue_), "reset: finish");
  }

  cl_int launch(cl_kernel k, cl_uint waits = 0, const cl_event *wait = nullptr,
                cl_event *done = nullptr) {
    return Api::EnqueueNDRangeKernel(queue_, k, 1, nullptr, &global_, &local_, waits, wait,
                                     done);
  }

  cl_int writeIn(cl_event *done = nullptr) {
    return Api::EnqueueWriteBuffer(queue_, in_, CL_FALSE, 0, bytes_, src_.data(), 0, nullptr,
                                   done);
  }
  cl_int readOut(cl_mem out, cl_uint waits = 0, const cl_event *wait = nullptr) {
    return Api::EnqueueReadBuffer(queue_, out, CL_TRUE, 0, bytes_, dst_.data(), waits, wait,
                                  nullptr);
  }

  // One step. `i` numbers the steps from the last reset.
  void stepOnce(std::uint64_t i) {
    const std::size_t at = i % items_;
    int want = 0;
    switch (inputOf(step_)) {
      case Input::kVaries: src_[at] = value(i); want = value(i); break;
      case Input::kFill: want = value(i); break;
      case Input::kCopy: want = (i & 1) ? sourceB(at) : sourceA(at); break;
      case Input::kFixed: want = sourceA(at); break;
    }
    want = want * 2 + 1;
    dst_[at] = 0;
    const int got = runStep(i, at);
    if (step_ != Step::kArgsLaunchFinish && got != want) [[unlikely]]
      wrongResult(Api::kName, i, at, got, want);
  }

  // The commands of one step; returns out[at] as the step saw it (0 if it reads nothing).
  int runStep(std::uint64_t i, std::size_t at) {
    cl_int err = CL_SUCCESS;
    switch (step_) {
      case Step::kArgsLaunchFinish:
        must(Api::SetKernelArg(kernel_, 0, sizeof(cl_mem), &in_), "set in");
        must(Api::SetKernelArg(kernel_, 1, sizeof(cl_mem), &out_), "set out");
        must(Api::SetKernelArg(kernel_, 2, sizeof n_, &n_), "set n");
        must(launch(kernel_), "launch");
        must(Api::Finish(queue_), "finish");
        return 0;
      case Step::kWriteLaunchRead:
        must(writeIn(), "write");
        must(launch(kernel_), "launch");
        must(readOut(out_), "read");
        return dst_[at];
      case Step::kFillLaunchRead: {
        const int v = value(i);
        must(Api::EnqueueFillBuffer(queue_, in_, &v, sizeof v, 0, bytes_, 0, nullptr, nullptr),
             "fill");
        must(launch(kernel_), "launch");
        must(readOut(out_), "read");
        return dst_[at];
      }
      case Step::kCopyLaunchRead:
        must(Api::EnqueueCopyBuffer(queue_, (i & 1) ? sourceB_ : sourceA_, in_, 0, 0, bytes_, 0,
                                    nullptr, nullptr), "copy");
        must(launch(kernel_), "launch");
        must(readOut(out_), "read");
        return dst_[at];
      case Step::kWriteLaunchMap: {
        must(writeIn(), "write");
        must(launch(kernel_), "launch");
        const int *mapped = static_cast<const int *>(Api::EnqueueMapBuffer(
            queue_, out_, CL_TRUE, CL_MAP_READ, 0, bytes_, 0, nullptr, nullptr, &err));
        must(err, "map");
        const int got = mapped[at];
        must(Api::EnqueueUnmapMemObject(queue_, out_, const_cast<int *>(mapped), 0, nullptr,
                                        nullptr), "unmap");
        must(Api::Finish(queue_), "finish");
        return got;
      }
      case Step::kEventChain:
      case Step::kOutOfOrder: {
        cl_event written = nullptr, launched = nullptr, read = nullptr;
        must(writeIn(&written), "write");
        must(launch(kernel_, 1, &written, &launched), "launch");
        must(Api::EnqueueReadBuffer(queue_, out_, CL_TRUE, 0, bytes_, dst_.data(), 1, &launched,
                                    step_ == Step::kEventChain ? &read : nullptr), "read");
        must(Api::ReleaseEvent(written), "release write event");
        must(Api::ReleaseEvent(launched), "release launch event");
        if (read) must(Api::ReleaseEvent(read), "release read event");
        return dst_[at];
      }
      case Step::kSvmLaunch:
        must(Api::EnqueueSVMMemcpy(queue_, CL_FALSE, svmIn_, src_.data(), bytes_, 0, nullptr,
                                   nullptr), "SVM memcpy in");
        must(launch(kernel_), "launch");
        must(Api::EnqueueSVMMemcpy(queue_, CL_TRUE, dst_.data(), svmOut_, bytes_, 0, nullptr,
                                   nullptr), "SVM memcpy out");
        return dst_[at];
      case Step::kNewBuffer: {
        cl_mem out = createBuffer("create out");
        must(Api::SetKernelArg(kernel_, 1, sizeof out, &out), "set out");
        must(launch(kernel_), "launch");
        must(readOut(out), "read");
        must(Api::ReleaseMemObject(out), "release out");
        return dst_[at];
      }
      case Step::kNewKernel: {
        cl_kernel k = Api::CreateKernel(program_, kKernel, &err);
        must(err, "create kernel");
        must(Api::SetKernelArg(k, 0, sizeof(cl_mem), &in_), "set in");
        must(Api::SetKernelArg(k, 1, sizeof(cl_mem), &out_), "set out");
        must(Api::SetKernelArg(k, 2, sizeof n_, &n_), "set n");
        must(launch(k), "launch");
        must(readOut(out_), "read");
        if (probe_) [[unlikely]] {
          if constexpr (Api::kCounts)
            probed_ = hostkernelLaunchNote(k);
          else
            probed_ = layerLaunchNote(k, {});
        }
        must(Api::ReleaseKernel(k), "release kernel");
        return dst_[at];
      }
    }
    return 0;
  }

  OpenCLEnv &env_;
  const Step step_;
  const std::size_t items_, bytes_;
  const std::size_t global_, local_;
  const cl_uint n_;
  cl_program program_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_kernel kernel_ = nullptr;  // none with kNewKernel: one per step
  cl_mem in_ = nullptr, out_ = nullptr, sourceA_ = nullptr, sourceB_ = nullptr;
  void *svmIn_ = nullptr, *svmOut_ = nullptr;
  std::vector<int> src_, dst_;  // the host's input and result arrays
  std::uint64_t next_ = 0;      // the next step's number
  LaunchTally<Api::kCounts> tally_;
  bool probe_ = false;
  std::optional<std::string> probed_;
};

template <class Api>
Path makeStepPath(OpenCLEnv &env, Step step, std::size_t items) {
  return statePath<Api::kCounts>(Api::kName, std::make_shared<StepState<Api>>(env, step, items));
}

}  // namespace

Case stepCase(std::string name, std::string description, Step step, std::size_t items) {
  Case c;
  c.name = std::move(name);
  c.category = "applications";
  c.description = std::move(description);
  c.make = [step, items](OpenCLEnv &env) {
    return std::vector<Path>{makeStepPath<HkCalls>(env, step, items),
                             makeStepPath<ClCalls>(env, step, items)};
  };
  c.reference = [step, items] {
    std::vector<int> out = inputAfter(step, items, kCheckSteps);
    for (int &v : out) v = v * 2 + 1;
    return outputOf(out, ElemType::I32);
  };
  return c;
}

}  // namespace hkbench
