// An unmodified OpenCL program for the layer tests: plain cl* calls, linked with
// libOpenCL only (never with libhostkernel), run by ctest with
// OPENCL_LAYERS=libhostkernel-layer.so (see layer.cmake).
//
// It checks results, ordering between launches and non-blocking reads, writes, copies and
// maps (in-order and out-of-order queues), the events of launches (command type, queue,
// profiling timestamps), and that the launches ran directly. For the last it asks the
// layer, through the standard extension mechanism, for hkGetKernelLaunchCounts
// (clGetExtensionFunctionAddressForPlatform): without the layer that lookup fails, and
// so does every test that expects direct launches. hostkernel_ext.h is included for the
// hk_launch_counts type only; no hk* function is linked.
#include <CL/cl.h>
#include <gtest/gtest.h>
#include <hostkernel/hostkernel_ext.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#ifndef HK_KERNELS_DIR
#error "HK_KERNELS_DIR must name the kernels/ directory"
#endif

namespace {

using LaunchCountsFn = cl_int (*)(cl_kernel, hk_launch_counts *);
using ReasonStringFn = const char *(*)(hk_reason);

#define CL_OK(expr) ASSERT_EQ((expr), CL_SUCCESS) << #expr

// One platform, PoCL's CPU device, one context, programs built once.
struct Env {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  std::map<std::string, cl_program> programs;
  LaunchCountsFn launch_counts = nullptr;
  ReasonStringFn reason_string = nullptr;
  std::string error;

  static Env &get() {
    static Env *env = new Env();  // outlives the tests; released at exit by the driver
    return *env;
  }

  Env() {
    cl_uint n = 0;
    if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0) {
      error = "no OpenCL platform";
      return;
    }
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) != CL_SUCCESS) {
      error = "no CPU device";
      return;
    }
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) error = "clCreateContext: " + std::to_string(err);
    launch_counts = reinterpret_cast<LaunchCountsFn>(
        clGetExtensionFunctionAddressForPlatform(platform, "hkGetKernelLaunchCounts"));
    reason_string = reinterpret_cast<ReasonStringFn>(
        clGetExtensionFunctionAddressForPlatform(platform, "hkReasonString"));
  }

  cl_program program(const std::string &file, const char *options = "") {
    auto &p = programs[file];
    if (p) return p;
    std::ifstream in(std::string(HK_KERNELS_DIR) + "/" + file);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string src = ss.str();
    const char *s = src.c_str();
    cl_int err = CL_SUCCESS;
    p = clCreateProgramWithSource(context, 1, &s, nullptr, &err);
    if (err != CL_SUCCESS || clBuildProgram(p, 1, &device, options, nullptr, nullptr) !=
                                 CL_SUCCESS) {
      ADD_FAILURE() << "cannot build " << file;
      return nullptr;
    }
    return p;
  }

  cl_kernel kernel(const std::string &file, const char *name) {
    cl_program p = program(file);
    if (!p) return nullptr;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, name, &err);
    EXPECT_EQ(err, CL_SUCCESS) << "clCreateKernel " << name;
    return k;
  }

  cl_command_queue queue(cl_command_queue_properties props = 0) {
    cl_int err = CL_SUCCESS;
    cl_queue_properties p[] = {CL_QUEUE_PROPERTIES, props, 0};
    cl_command_queue q =
        clCreateCommandQueueWithProperties(context, device, props ? p : nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS) << "clCreateCommandQueueWithProperties";
    return q;
  }

  cl_mem buffer(size_t bytes, const void *init = nullptr) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes, const_cast<void *>(init), &err);
    EXPECT_EQ(err, CL_SUCCESS) << "clCreateBuffer";
    return m;
  }
};

// Launch counts as the layer has them; all zero (and a failure) without the layer.
hk_launch_counts countsOf(cl_kernel k) {
  hk_launch_counts c{};
  Env &env = Env::get();
  if (!env.launch_counts) {
    ADD_FAILURE() << "hkGetKernelLaunchCounts is not available: is the layer loaded "
                     "(OPENCL_LAYERS=.../libhostkernel-layer.so)?";
    return c;
  }
  EXPECT_EQ(env.launch_counts(k, &c), CL_SUCCESS);
  return c;
}

std::string describe(const hk_launch_counts &c) {
  std::string s = "inline " + std::to_string(c.by_path[HK_PATH_INLINE]) + ", team " +
                  std::to_string(c.by_path[HK_PATH_TEAM]) + ", queue " +
                  std::to_string(c.by_path[HK_PATH_QUEUE]);
  for (int r = 1; r < HK_REASON_COUNT; ++r)
    if (c.by_reason[r])
      s += "; " + std::to_string(c.by_reason[r]) + " x " +
           (Env::get().reason_string ? Env::get().reason_string(static_cast<hk_reason>(r))
                                     : std::to_string(r));
  return s;
}

// Every launch of `k` so far ran directly (inline or team), and there were `n` of them.
void expectDirect(cl_kernel k, cl_ulong n) {
  hk_launch_counts c = countsOf(k);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], n) << describe(c);
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 0u) << describe(c);
}

// The tests make their kernels, queues and buffers through the fixture, which releases
// them after the test (buffers first, queues last). A test that leaves non-blocking
// commands behind finishes its queues itself (FinishAtExit), before its host memory goes.
class Layer : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(Env::get().error, ""); }
  void TearDown() override {
    for (cl_mem m : buffers_) clReleaseMemObject(m);
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    for (cl_command_queue q : queues_) clReleaseCommandQueue(q);
  }

  cl_kernel kernel(const std::string &file, const char *name) {
    return kept(kernels_, env.kernel(file, name));
  }
  cl_command_queue queue(cl_command_queue_properties props = 0) {
    return kept(queues_, env.queue(props));
  }
  cl_mem buffer(size_t bytes, const void *init = nullptr) {
    return kept(buffers_, env.buffer(bytes, init));
  }

  // trivial.cl's kernel (out[i] = i) with a new one-int buffer, holding -1, as its
  // argument.
  void trivialOnOneInt(cl_kernel *k, cl_mem *m) {
    *k = kernel("trivial.cl", "trivial");
    const int init = -1;
    *m = buffer(sizeof init, &init);
    CL_OK(clSetKernelArg(*k, 0, sizeof *m, m));
  }

  // axpy.cl's arguments: y = a * x + y.
  static void setAxpyArgs(cl_kernel k, float a, cl_mem x, cl_mem y) {
    CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
    CL_OK(clSetKernelArg(k, 1, sizeof x, &x));
    CL_OK(clSetKernelArg(k, 2, sizeof y, &y));
  }

  Env &env = Env::get();

 private:
  template <class T> static T kept(std::vector<T> &made, T object) {
    if (object) made.push_back(object);
    return object;
  }
  std::vector<cl_mem> buffers_;
  std::vector<cl_kernel> kernels_;
  std::vector<cl_command_queue> queues_;
};

// ---------------------------------------------------------------------------------------
TEST_F(Layer, IsLoadedAndAnswersLaunchCounts) {
  ASSERT_NE(env.launch_counts, nullptr)
      << "the layer is not loaded: run with OPENCL_LAYERS=<path>/libhostkernel-layer.so";
  ASSERT_NE(env.reason_string, nullptr);
  EXPECT_STREQ(env.reason_string(HK_REASON_NONE), "direct");
  // Names the layer does not know are forwarded to the loader and PoCL.
  EXPECT_EQ(clGetExtensionFunctionAddressForPlatform(env.platform, "hkNoSuchFunction"),
            nullptr);
}

// A program that does not link hostkernel finds the device hostkernel runs on through the
// layer.
TEST_F(Layer, AnswersHkGetPoclDevice) {
  using GetPoclDeviceFn = cl_int (*)(cl_platform_id *, cl_device_id *);
  const auto get_pocl_device = reinterpret_cast<GetPoclDeviceFn>(
      clGetExtensionFunctionAddressForPlatform(env.platform, "hkGetPoclDevice"));
  ASSERT_NE(get_pocl_device, nullptr) << "the layer is not loaded";
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  ASSERT_EQ(get_pocl_device(&platform, &device), CL_SUCCESS);
  EXPECT_EQ(platform, env.platform);
  EXPECT_EQ(device, env.device);
}

TEST_F(Layer, TrivialRunsDirectly) {
  cl_kernel k = kernel("trivial.cl", "trivial");
  cl_command_queue q = queue();
  std::vector<int> out(256, -1);
  cl_mem m = buffer(out.size() * sizeof(int), out.data());
  CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g = out.size(), l = 16;
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));
  CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, out.size() * sizeof(int), out.data(), 0,
                            nullptr, nullptr));
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], static_cast<int>(i)) << i;
  expectDirect(k, 1);
}

// The count-by-count query answers through the layer too, as the struct does.
TEST_F(Layer, AnswersHkGetKernelLaunchInfo) {
  using LaunchInfoFn = cl_int (*)(cl_kernel, hk_kernel_launch_info, size_t, void *, size_t *);
  const auto launch_info = reinterpret_cast<LaunchInfoFn>(
      clGetExtensionFunctionAddressForPlatform(env.platform, "hkGetKernelLaunchInfo"));
  ASSERT_NE(launch_info, nullptr) << "the layer is not loaded";
  cl_kernel k;
  cl_mem m;
  ASSERT_NO_FATAL_FAILURE(trivialOnOneInt(&k, &m));
  cl_command_queue q = queue();
  const size_t one = 1;
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &one, &one, 0, nullptr, nullptr));
  CL_OK(clFinish(q));
  const hk_launch_counts c = countsOf(k);
  for (int p = HK_PATH_INLINE; p <= HK_PATH_QUEUE; ++p) {
    cl_ulong n = ~cl_ulong{0};
    CL_OK(launch_info(k, HK_KERNEL_LAUNCHES_ON_PATH(p), sizeof n, &n, nullptr));
    EXPECT_EQ(n, c.by_path[p]) << "path " << p << ": " << describe(c);
  }
}

TEST_F(Layer, TaskRunsDirectly) {
  cl_kernel k;
  cl_mem m;
  ASSERT_NO_FATAL_FAILURE(trivialOnOneInt(&k, &m));
  cl_command_queue q = queue();
  CL_OK(clEnqueueTask(q, k, 0, nullptr, nullptr));
  int out = -1;
  CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof out, &out, 0, nullptr, nullptr));
  EXPECT_EQ(out, 0);
  expectDirect(k, 1);
}

TEST_F(Layer, AxpyRepeatedWithChangingArguments) {
  cl_kernel k = kernel("axpy.cl", "axpy");
  cl_command_queue q = queue();
  const size_t n = 4096;
  std::vector<float> x(n), y(n), want(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97);
    y[i] = static_cast<float>(i % 13);
  }
  want = y;
  cl_mem mx = buffer(n * sizeof(float), x.data());
  cl_mem my = buffer(n * sizeof(float), y.data());
  CL_OK(clSetKernelArg(k, 1, sizeof mx, &mx));
  CL_OK(clSetKernelArg(k, 2, sizeof my, &my));
  size_t g = n, l = 64;
  const int launches = 10;
  for (int r = 0; r < launches; ++r) {
    float a = static_cast<float>(r + 1);
    CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));
    for (size_t i = 0; i < n; ++i) want[i] = a * x[i] + want[i];
  }
  CL_OK(clFinish(q));
  std::vector<float> got(n);
  CL_OK(clEnqueueReadBuffer(q, my, CL_TRUE, 0, n * sizeof(float), got.data(), 0, nullptr,
                            nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << i;
  expectDirect(k, launches);
}

TEST_F(Layer, LocalArgumentReduction) {
  cl_kernel k = kernel("reduce_local_arg.cl", "reduce_sum");
  cl_command_queue q = queue();
  const size_t n = 2048, l = 128, groups = n / l;
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 7);
  cl_mem mi = buffer(n * sizeof(float), in.data());
  cl_mem mp = buffer(groups * sizeof(float));
  CL_OK(clSetKernelArg(k, 0, sizeof mi, &mi));
  CL_OK(clSetKernelArg(k, 1, sizeof mp, &mp));
  CL_OK(clSetKernelArg(k, 2, l * sizeof(float), nullptr));
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &l, 0, nullptr, nullptr));
  std::vector<float> part(groups);
  CL_OK(clEnqueueReadBuffer(q, mp, CL_TRUE, 0, groups * sizeof(float), part.data(), 0,
                            nullptr, nullptr));
  for (size_t gi = 0; gi < groups; ++gi) {
    float s = 0;
    for (size_t i = gi * l; i < (gi + 1) * l; ++i) s += in[i];
    ASSERT_EQ(part[gi], s) << gi;
  }
  expectDirect(k, 1);
}

TEST_F(Layer, TwoDimensionsWithOffset) {
  cl_kernel k = kernel("index_2d.cl", "index_2d");
  cl_command_queue q = queue();
  const size_t g[2] = {64, 32}, l[2] = {8, 4}, off[2] = {3, 5};
  std::vector<int> out(g[0] * g[1], -1);
  cl_mem m = buffer(out.size() * sizeof(int), out.data());
  CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_OK(clEnqueueNDRangeKernel(q, k, 2, off, g, l, 0, nullptr, nullptr));
  CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, out.size() * sizeof(int), out.data(), 0,
                            nullptr, nullptr));
  for (size_t y = 0; y < g[1]; ++y)
    for (size_t x = 0; x < g[0]; ++x)
      ASSERT_EQ(out[y * g[0] + x], static_cast<int>((x + off[0]) + 10000 * (y + off[1])));
  expectDirect(k, 1);
}

// A launch waiting for an incomplete user event goes to PoCL's queue (and says why);
// launches after it on the same queue are ordered after it, and once the queue is
// finished launches run directly again.
TEST_F(Layer, UserEventWaitFallsBackAndStaysOrdered) {
  cl_kernel k = kernel("axpy.cl", "axpy");
  cl_command_queue q = queue();
  const size_t n = 1024, l = 64;
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  cl_mem mx = buffer(n * sizeof(float), x.data());
  cl_mem my = buffer(n * sizeof(float), y.data());
  float a = 2.0f;
  ASSERT_NO_FATAL_FAILURE(setAxpyArgs(k, a, mx, my));
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(env.context, &err);
  CL_OK(err);
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &l, 1, &gate, nullptr));  // y = 2
  a = 3.0f;
  CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
  CL_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &l, 0, nullptr, nullptr));  // y = 5
  CL_OK(clFinish(q));
  a = 4.0f;
  CL_OK(clSetKernelArg(k, 0, sizeof a, &a));
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &l, 0, nullptr, nullptr));  // y = 9
  std::vector<float> got(n);
  CL_OK(clEnqueueReadBuffer(q, my, CL_TRUE, 0, n * sizeof(float), got.data(), 0, nullptr,
                            nullptr));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 9.0f) << i;
  hk_launch_counts c = countsOf(k);
  EXPECT_GE(c.by_path[HK_PATH_QUEUE], 1u) << describe(c);
  EXPECT_GE(c.by_reason[HK_REASON_USER_EVENT], 1u) << describe(c);
  EXPECT_GE(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 1u) << describe(c);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM] + c.by_path[HK_PATH_QUEUE],
            3u)
      << describe(c);
  clReleaseEvent(gate);
}

// ---------------------------------------------------------------------------------------
// Ordering. Big buffers, so that PoCL's copies take long enough for a launch that does not
// wait for them to see stale data.
constexpr size_t kBig = 1 << 20;

// Finishes a queue when a test leaves, also by a failed assertion: non-blocking commands
// must not write into host vectors that are gone. Declare it after those vectors.
struct FinishAtExit {
  cl_command_queue q;
  ~FinishAtExit() {
    if (q) clFinish(q);
  }
};

struct AxpyBuffers {
  cl_mem x = nullptr, y = nullptr, z = nullptr;
};

// In-order queue: every command is ordered after the previous one; no events needed.
// Per round: write x and y (non-blocking) -> launch y = a*x + y -> copy y to z
// (non-blocking) -> launch z = a*x + z -> map z (non-blocking; wait for its event) and
// check -> write through the map, unmap (non-blocking) -> launch z = a*x + z -> read z
// (non-blocking) -> finish -> check.
TEST_F(Layer, InOrderQueueOrdersLaunchesWithNonBlockingCommands) {
  cl_kernel k = kernel("axpy.cl", "axpy");
  cl_command_queue q = queue();
  const AxpyBuffers b{buffer(kBig * sizeof(float)), buffer(kBig * sizeof(float)),
                      buffer(kBig * sizeof(float))};
  const size_t l = 64, g = 8192;  // the launches touch the first g elements
  std::vector<float> hx(kBig), hy(kBig), out(kBig);
  FinishAtExit finish{q};
  for (int round = 0; round < 12; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const float base = static_cast<float>(round * 10);
    for (size_t i = 0; i < kBig; ++i) {
      hx[i] = base + static_cast<float>(i % 5);
      hy[i] = static_cast<float>(i % 3);
    }
    float a = 2.0f;
    CL_OK(clEnqueueWriteBuffer(q, b.x, CL_FALSE, 0, kBig * sizeof(float), hx.data(), 0,
                               nullptr, nullptr));
    CL_OK(clEnqueueWriteBuffer(q, b.y, CL_FALSE, 0, kBig * sizeof(float), hy.data(), 0,
                               nullptr, nullptr));
    ASSERT_NO_FATAL_FAILURE(setAxpyArgs(k, a, b.x, b.y));
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));  // y1
    CL_OK(clEnqueueCopyBuffer(q, b.y, b.z, 0, 0, kBig * sizeof(float), 0, nullptr, nullptr));
    CL_OK(clSetKernelArg(k, 2, sizeof b.z, &b.z));
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));  // z = 2x+y1
    cl_int err = CL_SUCCESS;
    cl_event mapped = nullptr;
    auto *p = static_cast<float *>(clEnqueueMapBuffer(q, b.z, CL_FALSE,
                                                      CL_MAP_READ | CL_MAP_WRITE, 0,
                                                      kBig * sizeof(float), 0, nullptr,
                                                      &mapped, &err));
    CL_OK(err);
    CL_OK(clWaitForEvents(1, &mapped));
    clReleaseEvent(mapped);
    for (size_t i = 0; i < g; ++i) {
      const float y1 = a * hx[i] + hy[i];
      ASSERT_EQ(p[i], a * hx[i] + y1) << "after map, element " << i;
    }
    ASSERT_EQ(p[g], hy[g]) << "element past the grid";
    for (size_t i = 0; i < g; ++i) p[i] = 1.0f;  // written through the map
    CL_OK(clEnqueueUnmapMemObject(q, b.z, p, 0, nullptr, nullptr));
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr));  // z = 2x+1
    CL_OK(clEnqueueReadBuffer(q, b.z, CL_FALSE, 0, kBig * sizeof(float), out.data(), 0,
                              nullptr, nullptr));
    CL_OK(clFinish(q));
    for (size_t i = 0; i < g; ++i) ASSERT_EQ(out[i], a * hx[i] + 1.0f) << "element " << i;
  }
  expectDirect(k, 12 * 3);
}

// Out-of-order queue: the program orders commands with events, including the events of
// launches in the wait lists of PoCL's commands and the reverse.
TEST_F(Layer, OutOfOrderQueueOrdersByEvents) {
  cl_kernel k = kernel("axpy.cl", "axpy");
  cl_command_queue q = queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  const AxpyBuffers b{buffer(kBig * sizeof(float)), buffer(kBig * sizeof(float)),
                      buffer(kBig * sizeof(float))};
  const size_t l = 64, g = 8192;
  std::vector<float> hx(kBig), hy(kBig), out(kBig);
  FinishAtExit finish{q};
  for (int round = 0; round < 12; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    for (size_t i = 0; i < kBig; ++i) {
      hx[i] = static_cast<float>(round + static_cast<int>(i % 7));
      hy[i] = static_cast<float>(i % 3);
    }
    float a = 3.0f;
    cl_event wx, wy, launch1, copied, launch2, mapped, unmapped, launch3, read;
    CL_OK(clEnqueueWriteBuffer(q, b.x, CL_FALSE, 0, kBig * sizeof(float), hx.data(), 0,
                               nullptr, &wx));
    CL_OK(clEnqueueWriteBuffer(q, b.y, CL_FALSE, 0, kBig * sizeof(float), hy.data(), 0,
                               nullptr, &wy));
    ASSERT_NO_FATAL_FAILURE(setAxpyArgs(k, a, b.x, b.y));
    cl_event writes[2] = {wx, wy};
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 2, writes, &launch1));
    CL_OK(clEnqueueCopyBuffer(q, b.y, b.z, 0, 0, kBig * sizeof(float), 1, &launch1, &copied));
    CL_OK(clSetKernelArg(k, 2, sizeof b.z, &b.z));
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 1, &copied, &launch2));
    cl_int err = CL_SUCCESS;
    auto *p = static_cast<float *>(clEnqueueMapBuffer(q, b.z, CL_FALSE,
                                                      CL_MAP_READ | CL_MAP_WRITE, 0,
                                                      kBig * sizeof(float), 1, &launch2,
                                                      &mapped, &err));
    CL_OK(err);
    CL_OK(clWaitForEvents(1, &mapped));
    for (size_t i = 0; i < g; ++i)
      ASSERT_EQ(p[i], a * hx[i] + (a * hx[i] + hy[i])) << "after map, element " << i;
    for (size_t i = 0; i < g; ++i) p[i] = 2.0f;
    CL_OK(clEnqueueUnmapMemObject(q, b.z, p, 0, nullptr, &unmapped));
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 1, &unmapped, &launch3));
    CL_OK(clEnqueueReadBuffer(q, b.z, CL_FALSE, 0, kBig * sizeof(float), out.data(), 1,
                              &launch3, &read));
    CL_OK(clWaitForEvents(1, &read));
    for (size_t i = 0; i < g; ++i) ASSERT_EQ(out[i], a * hx[i] + 2.0f) << "element " << i;
    for (cl_event e : {wx, wy, launch1, copied, launch2, mapped, unmapped, launch3, read})
      clReleaseEvent(e);
  }
  CL_OK(clFinish(q));
  expectDirect(k, 12 * 3);
}

// Two queues on the same buffers: the program orders them with an event across queues.
TEST_F(Layer, EventOrdersAcrossQueues) {
  cl_kernel k = kernel("axpy.cl", "axpy");
  cl_command_queue q1 = queue(), q2 = queue();
  const AxpyBuffers b{buffer(kBig * sizeof(float)), buffer(kBig * sizeof(float))};
  const size_t l = 64, g = 4096;
  std::vector<float> hx(kBig, 4.0f), hy(kBig, 1.0f), out(g);
  FinishAtExit finish1{q1}, finish2{q2};
  ASSERT_NO_FATAL_FAILURE(setAxpyArgs(k, 0.5f, b.x, b.y));
  cl_event wx, wy;
  CL_OK(clEnqueueWriteBuffer(q1, b.x, CL_FALSE, 0, kBig * sizeof(float), hx.data(), 0, nullptr,
                             &wx));
  CL_OK(clEnqueueWriteBuffer(q1, b.y, CL_FALSE, 0, kBig * sizeof(float), hy.data(), 0, nullptr,
                             &wy));
  cl_event w[2] = {wx, wy};
  CL_OK(clEnqueueNDRangeKernel(q2, k, 1, nullptr, &g, &l, 2, w, nullptr));
  CL_OK(clEnqueueReadBuffer(q2, b.y, CL_TRUE, 0, g * sizeof(float), out.data(), 0, nullptr,
                            nullptr));
  for (size_t i = 0; i < g; ++i) ASSERT_EQ(out[i], 3.0f) << i;
  expectDirect(k, 1);
  clReleaseEvent(wx);
  clReleaseEvent(wy);
}

// ---------------------------------------------------------------------------------------
// Events of launches.
cl_ulong profile(cl_event e, cl_profiling_info what) {
  cl_ulong v = 0;
  EXPECT_EQ(clGetEventProfilingInfo(e, what, sizeof v, &v, nullptr), CL_SUCCESS) << what;
  return v;
}

TEST_F(Layer, ProfilingQueueGivesLaunchTimestamps) {
  cl_kernel k = kernel("axpy.cl", "axpy");
  cl_command_queue q = queue(CL_QUEUE_PROFILING_ENABLE);
  const size_t n = 8192, l = 64;
  std::vector<float> x(n, 1.0f), y(n, 1.0f);
  cl_mem mx = buffer(n * sizeof(float), x.data());
  cl_mem my = buffer(n * sizeof(float), y.data());
  ASSERT_NO_FATAL_FAILURE(setAxpyArgs(k, 1.0f, mx, my));
  for (int run = 0; run < 3; ++run) {  // first launch prepares, later ones are cached
    SCOPED_TRACE("launch " + std::to_string(run));
    cl_event e = nullptr, w = nullptr;
    CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &n, &l, 0, nullptr, &e));
    ASSERT_NE(e, nullptr);
    // A PoCL command after the launch, with the launch's event in its wait list.
    float one = 1.0f;
    CL_OK(clEnqueueFillBuffer(q, mx, &one, sizeof one, 0, sizeof one, 1, &e, &w));
    CL_OK(clWaitForEvents(1, &w));

    cl_int status = -1;
    CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                         nullptr));
    EXPECT_EQ(status, CL_COMPLETE);
    cl_command_type type = 0;
    CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
    EXPECT_EQ(type, static_cast<cl_command_type>(CL_COMMAND_NDRANGE_KERNEL));
    cl_command_queue eq = nullptr;
    size_t size = 0;
    CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, &size));
    EXPECT_EQ(eq, q);
    EXPECT_EQ(size, sizeof(cl_command_queue));
    cl_context ec = nullptr;
    CL_OK(clGetEventInfo(e, CL_EVENT_CONTEXT, sizeof ec, &ec, nullptr));
    EXPECT_EQ(ec, env.context);
    EXPECT_EQ(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, 1, &type, nullptr), CL_INVALID_VALUE);

    cl_ulong queued = profile(e, CL_PROFILING_COMMAND_QUEUED);
    cl_ulong submit = profile(e, CL_PROFILING_COMMAND_SUBMIT);
    cl_ulong start = profile(e, CL_PROFILING_COMMAND_START);
    cl_ulong end = profile(e, CL_PROFILING_COMMAND_END);
    cl_ulong complete = profile(e, CL_PROFILING_COMMAND_COMPLETE);
    EXPECT_GT(queued, 0u);
    EXPECT_LE(queued, submit);
    EXPECT_LE(submit, start);
    EXPECT_LE(start, end);
    EXPECT_GT(end - start, 0u) << "8192 work-items take more than a nanosecond";
    EXPECT_LE(end, complete);
    EXPECT_LT(end - queued, 10'000'000'000ull) << "timestamps of one launch, ns";
    // Same time base as PoCL: the fill was queued after the launch ended.
    cl_ulong fill_queued = profile(w, CL_PROFILING_COMMAND_QUEUED);
    cl_ulong fill_end = profile(w, CL_PROFILING_COMMAND_END);
    EXPECT_LE(end, fill_queued);
    EXPECT_LE(fill_queued, fill_end);
    // The query's own contract.
    size_t ret = 0;
    CL_OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, 0, nullptr, &ret));
    EXPECT_EQ(ret, sizeof(cl_ulong));
    cl_uint small = 0;
    EXPECT_EQ(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof small, &small,
                                      nullptr),
              CL_INVALID_VALUE);
    EXPECT_EQ(clGetEventProfilingInfo(e, 0x1234, sizeof queued, &queued, nullptr),
              CL_INVALID_VALUE);
    clReleaseEvent(w);
    clReleaseEvent(e);
  }
  expectDirect(k, 3);
}

TEST_F(Layer, NonProfilingQueueEventHasNoProfilingInfo) {
  cl_kernel k;
  cl_mem m;
  ASSERT_NO_FATAL_FAILURE(trivialOnOneInt(&k, &m));
  cl_command_queue q = queue();
  size_t one = 1;
  cl_event e = nullptr;
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &one, &one, 0, nullptr, &e));
  cl_ulong t = 0;
  EXPECT_EQ(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t, &t, nullptr),
            CL_PROFILING_INFO_NOT_AVAILABLE);
  cl_command_type type = 0;
  CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  EXPECT_EQ(type, static_cast<cl_command_type>(CL_COMMAND_NDRANGE_KERNEL));
  // PoCL's own events on such a queue answer the same.
  cl_event r = nullptr;
  int out = -1;
  CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof out, &out, 0, nullptr, &r));
  EXPECT_EQ(out, 0);
  EXPECT_EQ(clGetEventProfilingInfo(r, CL_PROFILING_COMMAND_START, sizeof t, &t, nullptr),
            CL_PROFILING_INFO_NOT_AVAILABLE);
  // Reference counting is PoCL's: retain, then two releases.
  cl_uint refs = 0;
  CL_OK(clRetainEvent(e));
  CL_OK(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr));
  EXPECT_EQ(refs, 2u);
  CL_OK(clReleaseEvent(e));
  CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  EXPECT_EQ(type, static_cast<cl_command_type>(CL_COMMAND_NDRANGE_KERNEL));
  CL_OK(clReleaseEvent(e));
  clReleaseEvent(r);
  expectDirect(k, 1);
}

// Events released and made again many times (addresses are reused): each new event is
// answered for itself.
TEST_F(Layer, EventsAreForgottenWhenReleased) {
  cl_kernel k;
  cl_mem m;
  ASSERT_NO_FATAL_FAILURE(trivialOnOneInt(&k, &m));
  cl_command_queue qp = queue(CL_QUEUE_PROFILING_ENABLE);
  size_t one = 1;
  for (int i = 0; i < 200; ++i) {
    cl_event e = nullptr;
    CL_OK(clEnqueueNDRangeKernel(qp, k, 1, nullptr, &one, &one, 0, nullptr, &e));
    cl_ulong q0 = profile(e, CL_PROFILING_COMMAND_QUEUED);
    cl_ulong s0 = profile(e, CL_PROFILING_COMMAND_START);
    ASSERT_LE(q0, s0);
    clReleaseEvent(e);
    // A user event, likely at a just-freed address, is not a launch.
    cl_int err = CL_SUCCESS;
    cl_event u = clCreateUserEvent(env.context, &err);
    CL_OK(err);
    cl_command_type type = 0;
    CL_OK(clGetEventInfo(u, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
    ASSERT_EQ(type, static_cast<cl_command_type>(CL_COMMAND_USER));
    CL_OK(clSetUserEventStatus(u, CL_COMPLETE));
    clReleaseEvent(u);
  }
  expectDirect(k, 200);
}

}  // namespace
