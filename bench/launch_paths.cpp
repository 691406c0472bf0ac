#include "launch_paths.hpp"

#include "cl_calls.hpp"
#include "opencl_env.hpp"
#include "state_path.hpp"

#include <hostkernel/hostkernel.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <new>

namespace hkbench {
namespace {

using Bytes = std::unique_ptr<std::byte[], void (*)(void *)>;

// 64-byte aligned, uninitialised.
Bytes alignedBytes(std::size_t size) {
  const std::size_t rounded = (size + 63) / 64 * 64;
  void *p = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!p) throw std::bad_alloc();
  return Bytes(static_cast<std::byte *>(p), std::free);
}

// An output of the launch's type, sized for its output argument: what check() fills.
Output emptyOutput(const KernelLaunch &l) {
  Output out;
  out.type = l.outputType;
  out.bytes.resize(l.args.at(l.outputArg).size);
  return out;
}

// Whether the check's output is one of the double-buffered pair: then the buffer holding it
// alternates from launch to launch.
bool outputSwaps(const KernelLaunch &l) {
  return l.swapArgs && (l.outputArg == (*l.swapArgs)[0] || l.outputArg == (*l.swapArgs)[1]);
}

// How a path runs a native kernel (KernelLaunch::nativeKernel); kPlain for other kernels.
enum class Variant { kPlain, kNative, kChecked };

template <class Api>
class LaunchState {
 public:
  LaunchState(OpenCLEnv &env, std::shared_ptr<const KernelLaunch> launch,
              Variant variant = Variant::kPlain,
              std::optional<std::array<std::size_t, 3>> global = std::nullopt)
      : env_(env), launch_(std::move(launch)), variant_(variant) {
    global_ = global ? *global : launch_->global;
    ndrange_ = {global_[0], global_[1], global_[2]};
    if (variant_ == Variant::kChecked)  // the grid rounded up to whole work-groups
      for (int d = 0; d < 3; ++d)
        global_[d] = (global_[d] + launch_->local[d] - 1) / launch_->local[d] * launch_->local[d];
    first_ = variant_ == Variant::kPlain ? 0 : 1;
  }

  ~LaunchState() {
    if (kernel_) Api::ReleaseKernel(kernel_);
    for (cl_mem m : buffers_)
      if (m) Api::ReleaseMemObject(m);
    if (queue_) Api::ReleaseCommandQueue(queue_);
  }
  LaunchState(const LaunchState &) = delete;
  LaunchState &operator=(const LaunchState &) = delete;

  void setup() {
    const KernelLaunch &l = *launch_;
    initial_ = l.initial();
    cl_program program =
        variant_ == Variant::kPlain ? env_.program(l.file, l.buildOptions)
        : variant_ == Variant::kNative
            ? env_.program(l.file, l.buildOptions, OpenCLEnv::Kind::kNative)
            : env_.program(l.file, "-DHK_CHECKED=1 " + l.buildOptions,
                           OpenCLEnv::Kind::kPrelude);
    cl_int err = CL_SUCCESS;
    kernel_ = Api::CreateKernel(program, l.kernel.c_str(), &err);
    checkCl(err, std::string(Api::kName) + ": create kernel " + l.kernel);
    if (variant_ == Variant::kChecked)  // hk_ndrange_t: the true ndrange
      checkCl(Api::SetKernelArg(kernel_, 0, sizeof ndrange_, ndrange_.data()),
              std::string(Api::kName) + ": set the ndrange argument");
    queue_ = Api::CreateCommandQueueWithProperties(env_.context(), env_.device(), nullptr, &err);
    checkCl(err, std::string(Api::kName) + ": create queue");
    buffers_.assign(l.args.size(), nullptr);
    for (std::size_t i = 0; i < l.args.size(); ++i) {
      const LaunchArg &a = l.args[i];
      const std::string what = std::string(Api::kName) + ": argument " + std::to_string(i);
      const cl_uint index = static_cast<cl_uint>(i + first_);
      switch (a.kind) {
        case LaunchArg::Kind::Buffer:
          buffers_[i] = Api::CreateBuffer(env_.context(), CL_MEM_READ_WRITE, a.size, nullptr, &err);
          checkCl(err, what + ": create buffer");
          checkCl(Api::SetKernelArg(kernel_, index, sizeof(cl_mem), &buffers_[i]), what + ": set");
          break;
        case LaunchArg::Kind::Scalar:
          checkCl(Api::SetKernelArg(kernel_, index, a.size, a.bytes.data()), what + ": set");
          break;
        case LaunchArg::Kind::Local:
          checkCl(Api::SetKernelArg(kernel_, index, a.size, nullptr), what + ": set");
          break;
      }
    }
    resetBuffers();
  }

  // The timed part: n launches, each finished before the next.
  void run(std::uint64_t n) {
    cl_command_queue q = queue_;
    cl_kernel k = kernel_;
    const cl_uint dim = launch_->workDim;
    const std::size_t *g = global_.data();
    const std::size_t *l = launch_->localNull ? nullptr : launch_->local.data();
    if (launch_->swapArgs) {
      const cl_uint a = static_cast<cl_uint>((*launch_->swapArgs)[0] + first_);
      const cl_uint b = static_cast<cl_uint>((*launch_->swapArgs)[1] + first_);
      const cl_mem pair[2] = {buffers_[a - first_], buffers_[b - first_]};
      for (std::uint64_t i = 0; i < n; ++i) {
        const cl_int e0 = Api::SetKernelArg(k, a, sizeof(cl_mem), &pair[flip_]);
        const cl_int e1 = Api::SetKernelArg(k, b, sizeof(cl_mem), &pair[flip_ ^ 1]);
        const cl_int e2 = Api::EnqueueNDRangeKernel(q, k, dim, nullptr, g, l, 0, nullptr, nullptr);
        const cl_int e3 = Api::Finish(q);
        flip_ ^= 1;
        if (e0 != CL_SUCCESS || e1 != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS)
            [[unlikely]] {
          checkCl(e0, std::string(Api::kName) + ": set argument " + std::to_string(a));
          checkCl(e1, std::string(Api::kName) + ": set argument " + std::to_string(b));
          checkCl(e2, std::string(Api::kName) + ": enqueue " + launch_->kernel);
          checkCl(e3, std::string(Api::kName) + ": finish");
        }
      }
      return;
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      const cl_int e1 = Api::EnqueueNDRangeKernel(q, k, dim, nullptr, g, l, 0, nullptr, nullptr);
      const cl_int e2 = Api::Finish(q);
      if (e1 != CL_SUCCESS || e2 != CL_SUCCESS) [[unlikely]] {
        checkCl(e1, std::string(Api::kName) + ": enqueue " + launch_->kernel);
        checkCl(e2, std::string(Api::kName) + ": finish");
      }
    }
  }

  Output check() {
    const KernelLaunch &l = *launch_;
    resetBuffers();
    run(l.checkLaunches);
    Output out = emptyOutput(l);
    checkCl(Api::EnqueueReadBuffer(queue_, outputBuffer(), CL_TRUE, 0, out.bytes.size(),
                                   out.bytes.data(), 0, nullptr, nullptr),
            std::string(Api::kName) + ": read output");
    return out;
  }

  void mark() { tally_.mark(kernel_); }
  std::string note() { return tally_.note(kernel_); }
  std::optional<std::array<double, 3>> shares() const { return tally_.shares(); }

 private:
  // The buffer holding the check's result: with double buffering and outputArg one of the
  // pair, the one the last step wrote (now bound first: flip_ has advanced).
  cl_mem outputBuffer() const {
    const KernelLaunch &l = *launch_;
    if (outputSwaps(l)) return buffers_[(*l.swapArgs)[flip_]];
    return buffers_.at(l.outputArg);
  }

  void resetBuffers() {
    const KernelLaunch &l = *launch_;
    for (std::size_t i = 0; i < l.args.size(); ++i)
      if (buffers_[i])
        checkCl(Api::EnqueueWriteBuffer(queue_, buffers_[i], CL_TRUE, 0, l.args[i].size,
                                         initial_->buffers[i].get(), 0, nullptr, nullptr),
                std::string(Api::kName) + ": write buffer " + std::to_string(i));
    checkCl(Api::Finish(queue_), std::string(Api::kName) + ": finish");
    flip_ = 0;
  }

  OpenCLEnv &env_;
  std::shared_ptr<const KernelLaunch> launch_;
  Variant variant_;
  std::array<std::size_t, 3> global_;          // the grid this path launches
  std::array<cl_ulong, 3> ndrange_;            // kChecked: argument 0 (hk_ndrange_t)
  cl_uint first_ = 0;                          // kernel index of args[0]
  std::shared_ptr<const KernelLaunch::Initial> initial_;
  cl_kernel kernel_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::vector<cl_mem> buffers_;
  unsigned flip_ = 0;
  LaunchTally<Api::kCounts> tally_;
};

template <class Api>
Path makePath(OpenCLEnv &env, std::shared_ptr<const KernelLaunch> launch,
              Variant variant = Variant::kPlain, std::string name = Api::kName,
              std::optional<std::array<std::size_t, 3>> global = std::nullopt) {
  return statePath<Api::kCounts>(
      std::move(name),
      std::make_shared<LaunchState<Api>>(env, std::move(launch), variant, global));
}

std::string percent(cl_ulong part, cl_ulong total) {
  char buf[32];
  const double pct = 100.0 * static_cast<double>(part) / static_cast<double>(total);
  if (part == total || pct >= 99.95 || pct < 0.05)
    std::snprintf(buf, sizeof buf, "%.0f%%", pct);
  else
    std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  return buf;
}

}  // namespace

// The native path: host arrays (64-byte aligned copies of the initial contents) and the
// case's function.
class NativeState {
 public:
  explicit NativeState(std::shared_ptr<const KernelLaunch> launch) : launch_(std::move(launch)) {}

  void setup() {
    const KernelLaunch &l = *launch_;
    initial_ = l.initial();
    arrays_.clear();
    args_.ptr_.assign(l.args.size(), nullptr);
    for (std::size_t i = 0; i < l.args.size(); ++i) {
      const LaunchArg &a = l.args[i];
      if (a.kind == LaunchArg::Kind::Buffer) {
        arrays_.push_back(alignedBytes(a.size));
        args_.ptr_[i] = arrays_.back().get();
      } else if (a.kind == LaunchArg::Kind::Scalar) {
        args_.ptr_[i] = const_cast<std::byte *>(a.bytes.data());
      }
    }
    if (l.swapArgs) {
      pair_[0] = args_.ptr_[(*l.swapArgs)[0]];
      pair_[1] = args_.ptr_[(*l.swapArgs)[1]];
    }
    reset();
  }

  void run(std::uint64_t n) {
    const KernelLaunch &l = *launch_;
    if (l.swapArgs) {
      const std::size_t a = (*l.swapArgs)[0], b = (*l.swapArgs)[1];
      for (std::uint64_t i = 0; i < n; ++i) {
        args_.ptr_[a] = pair_[flip_];
        args_.ptr_[b] = pair_[flip_ ^ 1];
        l.native(args_);
        flip_ ^= 1;
      }
      return;
    }
    for (std::uint64_t i = 0; i < n; ++i) l.native(args_);
  }

  Output check() {
    const KernelLaunch &l = *launch_;
    reset();
    run(l.checkLaunches);
    Output out = emptyOutput(l);
    const std::byte *src = outputSwaps(l) ? pair_[flip_] : args_.ptr_.at(l.outputArg);
    std::memcpy(out.bytes.data(), src, out.bytes.size());
    return out;
  }

 private:
  void reset() {
    const KernelLaunch &l = *launch_;
    flip_ = 0;
    if (l.swapArgs) {
      args_.ptr_[(*l.swapArgs)[0]] = pair_[0];
      args_.ptr_[(*l.swapArgs)[1]] = pair_[1];
    }
    for (std::size_t i = 0; i < l.args.size(); ++i)
      if (l.args[i].kind == LaunchArg::Kind::Buffer)
        std::memcpy(args_.ptr_[i], initial_->buffers[i].get(), l.args[i].size);
  }

  std::shared_ptr<const KernelLaunch> launch_;
  std::shared_ptr<const KernelLaunch::Initial> initial_;
  std::vector<Bytes> arrays_;
  NativeArgs args_;
  std::byte *pair_[2] = {nullptr, nullptr};
  unsigned flip_ = 0;
};

std::shared_ptr<const KernelLaunch::Initial> KernelLaunch::initial() const {
  if (auto existing = initial_.lock()) return existing;
  auto made = std::make_shared<Initial>();
  for (const LaunchArg &a : args) {
    made->buffers.emplace_back(nullptr, std::free);
    if (a.kind != LaunchArg::Kind::Buffer) continue;
    made->buffers.back() = alignedBytes(a.size);
    if (a.fill)
      a.fill(made->buffers.back().get());
    else
      std::memset(made->buffers.back().get(), 0, a.size);
  }
  std::shared_ptr<const Initial> shared = std::move(made);
  initial_ = shared;
  return shared;
}

static std::vector<Path> launchPathsWithoutHostStep(OpenCLEnv &env,
                                             std::shared_ptr<const KernelLaunch> launch) {
  std::vector<Path> paths;
  if (launch->nativeKernel) {
    paths.push_back(makePath<HkCalls>(env, launch, Variant::kNative));
    paths.push_back(makePath<ClCalls>(env, launch, Variant::kChecked));
    for (const KernelLaunch::ExtraPath &e : launch->extraPaths)
      paths.push_back(makePath<HkCalls>(
          env, launch, e.checkedOnly ? Variant::kChecked : Variant::kNative, e.name, e.global));
  } else {
    paths.push_back(makePath<HkCalls>(env, launch));
    paths.push_back(makePath<ClCalls>(env, launch));
  }
  if (launch->native) {
    auto state = std::make_shared<NativeState>(launch);
    Path p;
    p.name = "native";
    p.setup = [state] { state->setup(); };
    p.run = [state](std::uint64_t n) { state->run(n); };
    p.check = [state] { return state->check(); };
    p.ulps = launch->nativeUlps;
    paths.push_back(std::move(p));
  }
  return paths;
}

// The host step before every operation of `p`.
static void addHostStep(Path &p, const std::function<void()> &step) {
  p.run = [run = std::move(p.run), step](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      step();
      run(1);
    }
  };
}

std::vector<Path> launchPaths(OpenCLEnv &env, std::shared_ptr<const KernelLaunch> launch) {
  std::vector<Path> paths = launchPathsWithoutHostStep(env, launch);
  if (!launch->hostStep) return paths;
  // The alone paths have state of their own: the same paths made a second time.
  std::vector<Path> alone = launchPathsWithoutHostStep(env, launch);
  for (Path &p : paths) addHostStep(p, launch->hostStep);
  Path host;
  host.name = "host-alone";
  host.run = [step = launch->hostStep](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) step();
  };
  paths.push_back(std::move(host));
  for (Path &p : alone) {
    p.name += "-alone";
    p.check = nullptr;  // the same launches as the mixed path's check
    paths.push_back(std::move(p));
  }
  return paths;
}

Case launchCase(std::string name, std::string category, std::string description,
                KernelLaunch launch, std::function<Output()> reference) {
  Case c;
  if (launch.hostStep)
    for (const char *p : {"hostkernel", "queue", "native"})
      c.parts.push_back({p, {"host-alone", std::string(p) + "-alone"}});
  c.category = std::move(category);
  c.name = std::move(name);
  c.description = std::move(description);
  auto shared = std::make_shared<const KernelLaunch>(std::move(launch));
  c.make = [shared](OpenCLEnv &env) { return launchPaths(env, shared); };
  c.reference = std::move(reference);
  return c;
}

std::string hostkernelLaunchNote(cl_kernel kernel) {
  return hostkernelLaunchNote(kernel, std::array<cl_ulong, 3>{});
}

std::array<cl_ulong, 3> hostkernelLaunchCounts(cl_kernel kernel) {
  hk_launch_counts c{};
  if (hkGetKernelLaunchCounts(kernel, &c) != CL_SUCCESS) return {};
  return {c.by_path[0], c.by_path[1], c.by_path[2]};
}

namespace {

using LaunchCountsFn = cl_int (*)(cl_kernel, hk_launch_counts *);

// The layer's hkGetKernelLaunchCounts, looked up once through the ICD loader (which asks
// the layer first); null when the process runs without the layer. libhostkernel does not
// replace clGetExtensionFunctionAddressForPlatform, so this never finds its own function.
LaunchCountsFn layerCountsFunction() {
  static const LaunchCountsFn fn = []() -> LaunchCountsFn {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    if (hkGetPoclDevice(&platform, &device) != CL_SUCCESS) return nullptr;
    return reinterpret_cast<LaunchCountsFn>(
        clGetExtensionFunctionAddressForPlatform(platform, "hkGetKernelLaunchCounts"));
  }();
  return fn;
}

// "team 0% inline 100%", "queue 100% (reason)": the launches counted in `c` after `since`.
std::string countsNote(const hk_launch_counts &c, const std::array<cl_ulong, 3> &since,
                       std::array<double, 3> *shares) {
  cl_ulong by[3];
  for (int p = 0; p < 3; ++p) by[p] = c.by_path[p] >= since[p] ? c.by_path[p] - since[p] : 0;
  const cl_ulong total = by[0] + by[1] + by[2];
  if (total == 0) return "no launches counted";
  if (shares)
    for (int p = 0; p < 3; ++p)
      (*shares)[p] = static_cast<double>(by[p]) / static_cast<double>(total);
  // The team share always, first (whether large launches reached the team is what this
  // column is read for), then the other paths that were taken.
  static constexpr int kOrder[3] = {HK_PATH_TEAM, HK_PATH_INLINE, HK_PATH_QUEUE};
  static constexpr const char *kPathNames[3] = {"inline", "team", "queue"};
  std::string s;
  for (int p : kOrder) {
    if (!by[p] && p != HK_PATH_TEAM) continue;
    if (!s.empty()) s += ' ';
    s += kPathNames[p];
    s += ' ';
    s += percent(by[p], total);
  }
  if (by[HK_PATH_QUEUE]) {
    // Reasons are counted since the kernel was created (no snapshot of them is kept).
    std::string reasons;
    for (int r = 1; r < HK_REASON_COUNT; ++r) {
      if (!c.by_reason[r]) continue;
      if (!reasons.empty()) reasons += ", ";
      const char *why = hkReasonString(static_cast<hk_reason>(r));
      reasons += why ? why : "?";
    }
    if (!reasons.empty()) s += " (" + reasons + ")";
  }
  return s;
}

}  // namespace

std::array<cl_ulong, 3> layerLaunchCounts(cl_kernel kernel) {
  hk_launch_counts c{};
  const LaunchCountsFn fn = layerCountsFunction();
  if (!fn || fn(kernel, &c) != CL_SUCCESS) return {};
  return {c.by_path[0], c.by_path[1], c.by_path[2]};
}

std::string layerLaunchNote(cl_kernel kernel, const std::array<cl_ulong, 3> &since) {
  const LaunchCountsFn fn = layerCountsFunction();
  if (!fn) return {};
  hk_launch_counts c{};
  if (fn(kernel, &c) != CL_SUCCESS) return "layer: no launch counts";
  return "layer: " + countsNote(c, since, nullptr);
}

std::string hostkernelLaunchNote(cl_kernel kernel, const std::array<cl_ulong, 3> &since,
                                 std::array<double, 3> *shares) {
  hk_launch_counts c{};
  if (hkGetKernelLaunchCounts(kernel, &c) != CL_SUCCESS) return "no launch counts";
  return countsNote(c, since, shares);
}

}  // namespace hkbench
