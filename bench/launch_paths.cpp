#include "launch_paths.hpp"

#include "opencl_env.hpp"

#include <hostkernel/hostkernel.h>

#include <cstdio>

namespace hkbench {
namespace {

// The OpenCL entry points a path uses. Static functions, so the timed loop calls the
// library directly (no indirection added by the benchmark).
struct HostkernelApi {
  static constexpr const char *kName = "hostkernel";
  static constexpr bool kCounts = true;
  static cl_kernel createKernel(cl_program p, const char *name, cl_int *err) {
    return hkCreateKernel(p, name, err);
  }
  static cl_command_queue createQueue(cl_context c, cl_device_id d, cl_int *err) {
    return hkCreateCommandQueueWithProperties(c, d, nullptr, err);
  }
  static cl_mem createBuffer(cl_context c, cl_mem_flags f, std::size_t size, cl_int *err) {
    return hkCreateBuffer(c, f, size, nullptr, err);
  }
  static cl_int setArg(cl_kernel k, cl_uint i, std::size_t size, const void *value) {
    return hkSetKernelArg(k, i, size, value);
  }
  static cl_int enqueue(cl_command_queue q, cl_kernel k, cl_uint dim, const std::size_t *g,
                        const std::size_t *l) {
    return hkEnqueueNDRangeKernel(q, k, dim, nullptr, g, l, 0, nullptr, nullptr);
  }
  static cl_int finish(cl_command_queue q) { return hkFinish(q); }
  static cl_int write(cl_command_queue q, cl_mem m, std::size_t size, const void *src) {
    return hkEnqueueWriteBuffer(q, m, CL_TRUE, 0, size, src, 0, nullptr, nullptr);
  }
  static cl_int read(cl_command_queue q, cl_mem m, std::size_t size, void *dst) {
    return hkEnqueueReadBuffer(q, m, CL_TRUE, 0, size, dst, 0, nullptr, nullptr);
  }
  static void release(cl_kernel k) { hkReleaseKernel(k); }
  static void release(cl_mem m) { hkReleaseMemObject(m); }
  static void release(cl_command_queue q) { hkReleaseCommandQueue(q); }
};

struct QueueApi {
  static constexpr const char *kName = "queue";
  static constexpr bool kCounts = false;
  static cl_kernel createKernel(cl_program p, const char *name, cl_int *err) {
    return clCreateKernel(p, name, err);
  }
  static cl_command_queue createQueue(cl_context c, cl_device_id d, cl_int *err) {
    return clCreateCommandQueueWithProperties(c, d, nullptr, err);
  }
  static cl_mem createBuffer(cl_context c, cl_mem_flags f, std::size_t size, cl_int *err) {
    return clCreateBuffer(c, f, size, nullptr, err);
  }
  static cl_int setArg(cl_kernel k, cl_uint i, std::size_t size, const void *value) {
    return clSetKernelArg(k, i, size, value);
  }
  static cl_int enqueue(cl_command_queue q, cl_kernel k, cl_uint dim, const std::size_t *g,
                        const std::size_t *l) {
    return clEnqueueNDRangeKernel(q, k, dim, nullptr, g, l, 0, nullptr, nullptr);
  }
  static cl_int finish(cl_command_queue q) { return clFinish(q); }
  static cl_int write(cl_command_queue q, cl_mem m, std::size_t size, const void *src) {
    return clEnqueueWriteBuffer(q, m, CL_TRUE, 0, size, src, 0, nullptr, nullptr);
  }
  static cl_int read(cl_command_queue q, cl_mem m, std::size_t size, void *dst) {
    return clEnqueueReadBuffer(q, m, CL_TRUE, 0, size, dst, 0, nullptr, nullptr);
  }
  static void release(cl_kernel k) { clReleaseKernel(k); }
  static void release(cl_mem m) { clReleaseMemObject(m); }
  static void release(cl_command_queue q) { clReleaseCommandQueue(q); }
};

template <class Api>
class LaunchState {
 public:
  LaunchState(OpenCLEnv &env, std::shared_ptr<const KernelLaunch> launch)
      : env_(env), launch_(std::move(launch)) {}

  ~LaunchState() {
    if (kernel_) Api::release(kernel_);
    for (cl_mem m : buffers_)
      if (m) Api::release(m);
    if (queue_) Api::release(queue_);
  }
  LaunchState(const LaunchState &) = delete;
  LaunchState &operator=(const LaunchState &) = delete;

  void setup() {
    const KernelLaunch &l = *launch_;
    cl_program program = env_.program(l.file, l.buildOptions);
    cl_int err = CL_SUCCESS;
    kernel_ = Api::createKernel(program, l.kernel.c_str(), &err);
    checkCl(err, std::string(Api::kName) + ": create kernel " + l.kernel);
    queue_ = Api::createQueue(env_.context(), env_.device(), &err);
    checkCl(err, std::string(Api::kName) + ": create queue");
    buffers_.assign(l.args.size(), nullptr);
    for (std::size_t i = 0; i < l.args.size(); ++i) {
      const LaunchArg &a = l.args[i];
      if (a.kind == LaunchArg::Kind::Buffer) {
        buffers_[i] = Api::createBuffer(env_.context(), CL_MEM_READ_WRITE, a.bytes.size(), &err);
        checkCl(err, std::string(Api::kName) + ": create buffer for argument " +
                         std::to_string(i));
        checkCl(Api::setArg(kernel_, static_cast<cl_uint>(i), sizeof(cl_mem), &buffers_[i]),
                std::string(Api::kName) + ": set argument " + std::to_string(i));
      } else {
        checkCl(Api::setArg(kernel_, static_cast<cl_uint>(i), a.bytes.size(), a.bytes.data()),
                std::string(Api::kName) + ": set argument " + std::to_string(i));
      }
    }
    resetBuffers();
  }

  // The timed part: n launches, each finished before the next.
  void run(std::uint64_t n) {
    cl_command_queue q = queue_;
    cl_kernel k = kernel_;
    const cl_uint dim = launch_->workDim;
    const std::size_t *g = launch_->global.data();
    const std::size_t *l = launch_->localNull ? nullptr : launch_->local.data();
    for (std::uint64_t i = 0; i < n; ++i) {
      const cl_int e1 = Api::enqueue(q, k, dim, g, l);
      const cl_int e2 = Api::finish(q);
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
    Output out;
    out.type = l.outputType;
    out.bytes.resize(l.args.at(l.outputArg).bytes.size());
    checkCl(Api::read(queue_, buffers_.at(l.outputArg), out.bytes.size(), out.bytes.data()),
            std::string(Api::kName) + ": read output");
    return out;
  }

  std::string note() const {
    if constexpr (Api::kCounts) return hostkernelLaunchNote(kernel_);
    return {};
  }

 private:
  void resetBuffers() {
    const KernelLaunch &l = *launch_;
    for (std::size_t i = 0; i < l.args.size(); ++i)
      if (buffers_[i])
        checkCl(Api::write(queue_, buffers_[i], l.args[i].bytes.size(), l.args[i].bytes.data()),
                std::string(Api::kName) + ": write buffer " + std::to_string(i));
    checkCl(Api::finish(queue_), std::string(Api::kName) + ": finish");
  }

  OpenCLEnv &env_;
  std::shared_ptr<const KernelLaunch> launch_;
  cl_kernel kernel_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::vector<cl_mem> buffers_;
};

template <class Api>
Path makePath(OpenCLEnv &env, std::shared_ptr<const KernelLaunch> launch) {
  auto state = std::make_shared<LaunchState<Api>>(env, std::move(launch));
  Path p;
  p.name = Api::kName;
  p.setup = [state] { state->setup(); };
  p.run = [state](std::uint64_t n) { state->run(n); };
  p.check = [state] { return state->check(); };
  p.note = [state] { return state->note(); };
  return p;
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

std::vector<Path> launchPaths(OpenCLEnv &env, std::shared_ptr<const KernelLaunch> launch) {
  std::vector<Path> paths;
  paths.push_back(makePath<HostkernelApi>(env, launch));
  paths.push_back(makePath<QueueApi>(env, launch));
  return paths;
}

Case launchCase(std::string name, std::string description, KernelLaunch launch,
                std::function<Output()> reference) {
  Case c;
  c.category = name.substr(0, name.find('/'));
  c.name = std::move(name);
  c.description = std::move(description);
  auto shared = std::make_shared<const KernelLaunch>(std::move(launch));
  c.make = [shared](OpenCLEnv &env) { return launchPaths(env, shared); };
  c.reference = std::move(reference);
  return c;
}

std::string hostkernelLaunchNote(cl_kernel kernel) {
  hk_launch_counts c{};
  if (hkGetKernelLaunchCounts(kernel, &c) != CL_SUCCESS) return "no launch counts";
  const cl_ulong total = c.by_path[0] + c.by_path[1] + c.by_path[2];
  if (total == 0) return "no launches counted";
  static constexpr const char *kPathNames[3] = {"inline", "team", "queue"};
  std::string s;
  for (int p = 0; p < 3; ++p) {
    if (!c.by_path[p]) continue;
    if (!s.empty()) s += ' ';
    s += kPathNames[p];
    s += ' ';
    s += percent(c.by_path[p], total);
  }
  if (c.by_path[HK_PATH_QUEUE]) {
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

}  // namespace hkbench
