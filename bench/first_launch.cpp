#include "first_launch.hpp"

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace hkbench {
namespace {

// The OpenCL calls that differ between the paths.
struct Api {
  bool hostkernel = false;
  decltype(&clCreateProgramWithSource) createProgram;
  decltype(&clBuildProgram) build;
  decltype(&clCreateKernel) createKernel;
  decltype(&clSetKernelArg) setArg;
  decltype(&clEnqueueNDRangeKernel) launch;
  decltype(&clFinish) finish;
  decltype(&clEnqueueReadBuffer) read;
  decltype(&clReleaseKernel) releaseKernel;
  decltype(&clReleaseProgram) releaseProgram;

  static Api of(const std::string &path) {
    if (path == "hostkernel")
      return {true, hkCreateProgramWithSource, hkBuildProgram, hkCreateKernel, hkSetKernelArg,
              hkEnqueueNDRangeKernel, hkFinish, hkEnqueueReadBuffer, hkReleaseKernel,
              hkReleaseProgram};
    if (path == "queue")
      return {false, clCreateProgramWithSource, clBuildProgram, clCreateKernel, clSetKernelArg,
              clEnqueueNDRangeKernel, clFinish, clEnqueueReadBuffer, clReleaseKernel,
              clReleaseProgram};
    throw std::runtime_error("unknown path " + path);
  }
};

void ok(cl_int err, const char *what) {
  if (err != CL_SUCCESS) throw std::runtime_error(std::string(what) + " failed: " + std::to_string(err));
}

std::string readText(const std::string &file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr std::size_t kMaxItems = 8 * 4096;  // new-workgroupsize: global = 8 * local

// axpy(2, x, y) on the first `global` elements, launched through one path; the host keeps
// a mirror of y to check the device's copy.
class Axpy {
 public:
  Axpy(const std::string &path, const std::string &kernelsDir)
      : api_(Api::of(path)), source_(readText(kernelsDir + "/axpy.cl")) {
    cl_platform_id platform;
    ok(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
    ok(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device_, nullptr), "clGetDeviceIDs");
    cl_int err = CL_SUCCESS;
    ctx_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    ok(err, "clCreateContext");
    queue_ = clCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err);
    ok(err, "clCreateCommandQueue");
    x_host_.resize(kMaxItems);
    mirror_.resize(kMaxItems);
    for (std::size_t i = 0; i < kMaxItems; ++i) {
      x_host_[i] = static_cast<float>(i % 1000);
      mirror_[i] = static_cast<float>(1000 - static_cast<int>(i % 1000));
    }
    x_ = clCreateBuffer(ctx_, CL_MEM_COPY_HOST_PTR, kMaxItems * 4, x_host_.data(), &err);
    ok(err, "clCreateBuffer");
    y_ = clCreateBuffer(ctx_, CL_MEM_COPY_HOST_PTR, kMaxItems * 4, mirror_.data(), &err);
    ok(err, "clCreateBuffer");
  }

  // Builds axpy.cl (with `nonce`, a program PoCL has not seen) and creates the kernel.
  void build(long nonce) {
    std::string src = source_;
    if (nonce >= 0) src += "\nconstant int hkbench_nonce = " + std::to_string(nonce) + ";\n";
    const char *text = src.c_str();
    cl_int err = CL_SUCCESS;
    program_ = api_.createProgram(ctx_, 1, &text, nullptr, &err);
    ok(err, "clCreateProgramWithSource");
    ok(api_.build(program_, 1, &device_, "", nullptr, nullptr), "clBuildProgram");
    kernel_ = api_.createKernel(program_, "axpy", &err);
    ok(err, "clCreateKernel");
    const float a = 2.0f;
    ok(api_.setArg(kernel_, 0, sizeof a, &a), "clSetKernelArg");
    ok(api_.setArg(kernel_, 1, sizeof x_, &x_), "clSetKernelArg");
    ok(api_.setArg(kernel_, 2, sizeof y_, &y_), "clSetKernelArg");
  }

  // One launch + finish; true when hostkernel ran it directly.
  bool launch(std::size_t global, std::size_t local) {
    hk_launch_counts before{};
    if (api_.hostkernel) hkGetKernelLaunchCounts(kernel_, &before);
    ok(api_.launch(queue_, kernel_, 1, nullptr, &global, &local, 0, nullptr, nullptr),
       "clEnqueueNDRangeKernel");
    ok(api_.finish(queue_), "clFinish");
    for (std::size_t i = 0; i < global; ++i) mirror_[i] = 2.0f * x_host_[i] + mirror_[i];
    if (!api_.hostkernel) return false;
    hk_launch_counts after{};
    hkGetKernelLaunchCounts(kernel_, &after);
    return after.by_path[HK_PATH_QUEUE] == before.by_path[HK_PATH_QUEUE];
  }

  void release() {
    if (kernel_) api_.releaseKernel(kernel_);
    if (program_) api_.releaseProgram(program_);
    kernel_ = nullptr;
    program_ = nullptr;
  }

  // y read back; throws unless it equals the host mirror.
  std::vector<float> checked() {
    std::vector<float> y(kMaxItems);
    ok(api_.read(queue_, y_, CL_TRUE, 0, kMaxItems * 4, y.data(), 0, nullptr, nullptr),
       "clEnqueueReadBuffer");
    for (std::size_t i = 0; i < kMaxItems; ++i)
      if (y[i] != mirror_[i])
        throw std::runtime_error("wrong result at [" + std::to_string(i) + "]: " +
                                 std::to_string(y[i]) + ", expected " + std::to_string(mirror_[i]));
    return y;
  }

 private:
  Api api_;
  std::string source_;
  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_mem x_ = nullptr, y_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  std::vector<float> x_host_, mirror_;
};

int firstKernel(const std::string &path, const std::string &kernelsDir) {
  Axpy axpy(path, kernelsDir);
  const auto t0 = std::chrono::steady_clock::now();
  axpy.build(-1);
  const auto t1 = std::chrono::steady_clock::now();
  const bool direct = axpy.launch(1024, 64);
  const auto t2 = std::chrono::steady_clock::now();
  axpy.checked();
  auto ns = [](auto d) {
    return static_cast<long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
  };
  std::printf("ok %lld %d %lld %lld\n", ns(t2 - t0), direct ? 1 : 0, ns(t1 - t0), ns(t2 - t1));
  return 0;
}

// Kernel k of the script: y = (k + 2) * y + k, in a program of its own.
std::string scriptSource(int k) {
  return "kernel void step" + std::to_string(k) +
         "(global uint *y) { size_t i = get_global_id(0); y[i] = " + std::to_string(k + 2) +
         "u * y[i] + " + std::to_string(k) + "u; }\n";
}

int scriptKernels(const std::string &path) {
  const Api api = Api::of(path);
  constexpr std::size_t kItems = 4096, kLocal = 64;
  cl_platform_id platform;
  cl_device_id device;
  ok(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
  ok(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr), "clGetDeviceIDs");
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  ok(err, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  ok(err, "clCreateCommandQueue");
  std::vector<cl_uint> mirror(kItems);
  for (std::size_t i = 0; i < kItems; ++i) mirror[i] = static_cast<cl_uint>(i);
  cl_mem y = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, kItems * 4, mirror.data(), &err);
  ok(err, "clCreateBuffer");
  using Clock = std::chrono::steady_clock;
  Clock::duration build{}, launch{};
  int direct = 0;
  const auto t0 = Clock::now();
  for (int k = 0; k < kScriptKernels; ++k) {
    const auto b0 = Clock::now();
    const std::string src = scriptSource(k);
    const char *text = src.c_str();
    cl_program program = api.createProgram(ctx, 1, &text, nullptr, &err);
    ok(err, "clCreateProgramWithSource");
    ok(api.build(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
    cl_kernel kernel = api.createKernel(program, ("step" + std::to_string(k)).c_str(), &err);
    ok(err, "clCreateKernel");
    ok(api.setArg(kernel, 0, sizeof y, &y), "clSetKernelArg");
    const auto b1 = Clock::now();
    ok(api.launch(queue, kernel, 1, nullptr, &kItems, &kLocal, 0, nullptr, nullptr),
       "clEnqueueNDRangeKernel");
    launch += Clock::now() - b1;
    build += b1 - b0;
    if (api.hostkernel) {
      hk_launch_counts c{};
      hkGetKernelLaunchCounts(kernel, &c);
      direct += c.by_path[HK_PATH_QUEUE] == 0;
    }
    for (cl_uint &v : mirror) v = static_cast<cl_uint>(k + 2) * v + static_cast<cl_uint>(k);
    api.releaseKernel(kernel);
    api.releaseProgram(program);
  }
  const auto f0 = Clock::now();
  ok(api.finish(queue), "clFinish");
  const auto t1 = Clock::now();
  launch += t1 - f0;
  std::vector<cl_uint> out(kItems);
  ok(api.read(queue, y, CL_TRUE, 0, kItems * 4, out.data(), 0, nullptr, nullptr),
     "clEnqueueReadBuffer");
  if (out != mirror) throw std::runtime_error("script-kernels: wrong result");
  auto ns = [](auto d) {
    return static_cast<long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
  };
  std::printf("ok %lld %d %lld %lld\n", ns(t1 - t0), direct, ns(build), ns(launch));
  clReleaseMemObject(y);
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return 0;
}

std::string hex(const std::vector<float> &v) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(v.size() * 8);
  const auto *b = reinterpret_cast<const unsigned char *>(v.data());
  for (std::size_t i = 0; i < v.size() * 4; ++i) {
    s += digits[b[i] >> 4];
    s += digits[b[i] & 15];
  }
  return s;
}

int worker(const std::string &mode, const std::string &path, const std::string &kernelsDir) {
  if (mode != "new-kernel" && mode != "new-workgroupsize") {
    std::printf("error unknown mode %s\n", mode.c_str());
    return 2;
  }
  std::unique_ptr<Axpy> axpy;
  long nonce = static_cast<long>(std::chrono::system_clock::now().time_since_epoch().count() % 1000000000);
  std::size_t next_local = 1;
  std::string line;
  while (std::getline(std::cin, line)) {
    try {
      if (line == "setup") {
        axpy = std::make_unique<Axpy>(path, kernelsDir);
        if (mode == "new-workgroupsize") {
          axpy->build(-1);
          axpy->launch(512, 64);
        }
        std::printf("ok\n");
      } else if (line.rfind("run ", 0) == 0 && axpy) {
        const unsigned long n = std::stoul(line.substr(4));
        unsigned long direct = 0;
        for (unsigned long i = 0; i < n; ++i) {
          if (mode == "new-kernel") {
            axpy->build(nonce++);
            direct += axpy->launch(1024, 64);
            axpy->release();
          } else {
            if (next_local == 64) ++next_local;
            if (next_local > kMaxItems / 8) throw std::runtime_error("out of new local sizes");
            direct += axpy->launch(8 * next_local, next_local);
            ++next_local;
          }
        }
        std::printf("ok %lu\n", direct);
      } else if (line == "check" && axpy) {
        std::printf("ok %s\n", hex(axpy->checked()).c_str());
      } else {
        std::printf("error bad request '%s'\n", line.c_str());
      }
    } catch (const std::exception &e) {
      std::printf("error %s\n", e.what());
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int childMain(int argc, char **argv) {
  std::vector<std::string> a(argv + 2, argv + argc);
  try {
    if (a.size() == 3 && a[0] == "first-kernel") return firstKernel(a[1], a[2]);
    if (a.size() == 3 && a[0] == "script-kernels") return scriptKernels(a[1]);
    if (a.size() == 4 && a[0] == "worker") return worker(a[1], a[2], a[3]);
  } catch (const std::exception &e) {
    std::printf("error %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "pocl-launch-bench --internal-child: bad arguments\n");
  return 2;
}

}  // namespace hkbench
