// A kernel's first launch with the default HOSTKERNEL_FIRST_LAUNCH=queue
// (docs/first-launch.md): when
// neither an earlier launch nor the persistent cache has prepared its program, it goes to
// PoCL's queue (HK_REASON_FIRST_LAUNCH), which compiles the kernel's function for its
// geometry, and PoCL's binary query, which compiles every kernel's generic work-group
// function, is not made; the kernel's next launches run that function directly. Only a
// launch whose geometry no compiled function accepts makes the binary query. The queries
// are counted through a wrapped dispatch table (next()), not by timing.
//
// Each run starts with an empty persistent cache of its own (tests/CMakeLists.txt);
// tests/unit/first_launch.cmake runs WarmCache.* once more with a cache kept across runs.
#include <CL/cl.h>
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/config.hpp"
#include "base/next.hpp"
#include "support/launch_counts.hpp"
#include "support/pocl_context.hpp"

namespace {

// clGetProgramInfo(CL_PROGRAM_BINARIES) calls that reached PoCL.
std::atomic<int> g_binary_queries{0};
decltype(cl_icd_dispatch::clGetProgramInfo) g_real_program_info = nullptr;

cl_int CL_API_CALL countingProgramInfo(cl_program program, cl_program_info param, size_t size,
                                       void *value, size_t *size_ret) {
  if (param == CL_PROGRAM_BINARIES) g_binary_queries.fetch_add(1);
  return g_real_program_info(program, param, size, value, size_ret);
}

void wrapDispatchOnce() {
  static cl_icd_dispatch table = [] {
    cl_icd_dispatch t = hk::next();
    g_real_program_info = t.clGetProgramInfo;
    t.clGetProgramInfo = countingProgramInfo;
    return t;
  }();
  hk::setNextDispatch(&table);
}

// f(x) = 3x + 1 and g(x) = 2x + 5 do not commute: a launch run out of order changes the
// result.
const char *kTriple = R"CLC(
kernel void triple(global uint *x) { size_t i = get_global_id(0); x[i] = 3u * x[i] + 1u; }
kernel void unused(global uint *x) { x[get_global_id(0)] = 0u; }
)CLC";
const char *kDouble = R"CLC(
kernel void twice(global uint *x) { size_t i = get_global_id(0); x[i] = 2u * x[i] + 5u; }
)CLC";

constexpr size_t kItems = 256;

class FirstLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    wrapDispatchOnce();
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
    cl_int err = CL_SUCCESS;
    queue_ = hkCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<cl_uint> init(kItems);
    for (size_t i = 0; i < kItems; ++i) init[i] = static_cast<cl_uint>(i);
    buf_ = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kItems * 4,
                          init.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    for (cl_kernel k : kernels_) hkReleaseKernel(k);
    for (cl_program p : programs_) hkReleaseProgram(p);
    if (buf_) hkReleaseMemObject(buf_);
    if (queue_) hkReleaseCommandQueue(queue_);
    if (ctx_) clReleaseContext(ctx_);
  }

  // A program PoCL has not built in this process: `source` with a constant of its own.
  cl_program build(const char *source) {
    static int nonce = 0;
    const std::string text = std::string(source) + "\nconstant int first_launch_nonce = " +
                             std::to_string(++nonce) + ";\n";
    const char *src = text.c_str();
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateProgramWithSource(ctx_, 1, &src, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    EXPECT_EQ(hkBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
    programs_.push_back(p);
    return p;
  }
  cl_kernel kernel(cl_program p, const char *name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = hkCreateKernel(p, name, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    EXPECT_EQ(hkSetKernelArg(k, 0, sizeof buf_, &buf_), CL_SUCCESS);
    kernels_.push_back(k);
    return k;
  }
  cl_int launch(cl_kernel k, size_t local = 64) {
    const size_t global = kItems;
    return hkEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  }
  std::vector<cl_uint> read() {
    std::vector<cl_uint> out(kItems);
    EXPECT_EQ(hkEnqueueReadBuffer(queue_, buf_, CL_TRUE, 0, kItems * 4, out.data(), 0, nullptr,
                                  nullptr),
              CL_SUCCESS);
    return out;
  }

  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_mem buf_ = nullptr;
  std::vector<cl_program> programs_;
  std::vector<cl_kernel> kernels_;
};

TEST_F(FirstLaunch, KernelLaunchedOnceNeverQueriesTheBinary) {
  const int before = g_binary_queries.load();
  cl_kernel k = kernel(build(kTriple), "triple");
  ASSERT_EQ(launch(k), CL_SUCCESS);
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(g_binary_queries.load(), before) << "the first launch compiled the program";
  const hk_launch_counts c = Counts(k);
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 1u) << Describe(c);
  EXPECT_EQ(c.by_reason[HK_REASON_FIRST_LAUNCH], 1u) << Describe(c);
  const std::vector<cl_uint> x = read();
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(x[i], 3u * i + 1u) << "at " << i;
}

TEST_F(FirstLaunch, KernelLaunchedManyTimesRunsDirectly) {
  const int before = g_binary_queries.load();
  cl_program p = build(kTriple);
  cl_kernel k = kernel(p, "triple");
  constexpr int kLaunches = 10;
  for (int i = 0; i < kLaunches; ++i) ASSERT_EQ(launch(k), CL_SUCCESS);
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  const hk_launch_counts c = Counts(k);
  EXPECT_EQ(c.by_reason[HK_REASON_FIRST_LAUNCH], 1u) << Describe(c);
  EXPECT_EQ(Direct(c), cl_ulong(kLaunches - 1)) << Describe(c);
  EXPECT_EQ(g_binary_queries.load(), before) << "the kernel's own function only";
  // Another kernel of the program: its first launch goes to PoCL's queue, which compiles
  // its function, and its next one runs directly (both run directly when PoCL's kernel
  // cache has the function from an earlier process); still no binary query.
  cl_kernel other = kernel(p, "unused");
  ASSERT_EQ(launch(other), CL_SUCCESS);
  ASSERT_EQ(launch(other), CL_SUCCESS);
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  const hk_launch_counts o = Counts(other);
  EXPECT_LE(o.by_reason[HK_REASON_FIRST_LAUNCH], 1u) << Describe(o);
  EXPECT_EQ(Direct(o) + o.by_reason[HK_REASON_FIRST_LAUNCH], 2u) << Describe(o);
  EXPECT_EQ(g_binary_queries.load(), before);
  // A local size no compiled function accepts: the generic function, queried once.
  ASSERT_EQ(launch(k, 32), CL_SUCCESS);
  ASSERT_EQ(launch(k, 16), CL_SUCCESS);
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(Direct(Counts(k)), cl_ulong(kLaunches + 1)) << Describe(Counts(k));
  EXPECT_EQ(g_binary_queries.load(), before + 1) << "the program is queried once";
  std::vector<cl_uint> x(kItems);
  for (size_t i = 0; i < kItems; ++i) x[i] = static_cast<cl_uint>(i);
  for (int i = 0; i < kLaunches; ++i)
    for (cl_uint &v : x) v = 3u * v + 1u;
  for (cl_uint &v : x) v = 0u;  // `unused`
  for (int i = 0; i < 2; ++i)
    for (cl_uint &v : x) v = 3u * v + 1u;
  EXPECT_EQ(read(), x);
}

TEST_F(FirstLaunch, DependentLaunchesKeepTheirOrderAcrossTheSwitch) {
  // Each kernel's first launch goes to PoCL's queue, its later ones run directly; every
  // launch reads what the one before it wrote, and nothing waits in between.
  cl_kernel f = kernel(build(kTriple), "triple");
  cl_kernel g = kernel(build(kDouble), "twice");
  std::vector<cl_uint> expect(kItems);
  for (size_t i = 0; i < kItems; ++i) expect[i] = static_cast<cl_uint>(i);
  for (int round = 0; round < 6; ++round) {
    ASSERT_EQ(launch(f), CL_SUCCESS);
    ASSERT_EQ(launch(g), CL_SUCCESS);
    for (cl_uint &v : expect) v = 2u * (3u * v + 1u) + 5u;
  }
  EXPECT_EQ(read(), expect);
  for (cl_kernel k : {f, g}) {
    const hk_launch_counts c = Counts(k);
    EXPECT_EQ(c.by_reason[HK_REASON_FIRST_LAUNCH], 1u) << Describe(c);
    EXPECT_EQ(Direct(c), 5u) << Describe(c);
  }
}

TEST_F(FirstLaunch, ProgramReleasedWhileItsPreparationIsPending) {
  // The first launch leaves the kernel waiting for preparation; the application then
  // releases the program (the kernel keeps it alive in OpenCL) and launches again.
  cl_program p = build(kTriple);
  cl_kernel k = kernel(p, "triple");
  ASSERT_EQ(launch(k), CL_SUCCESS);
  programs_.clear();
  ASSERT_EQ(hkReleaseProgram(p), CL_SUCCESS);
  ASSERT_EQ(launch(k), CL_SUCCESS);
  ASSERT_EQ(launch(k), CL_SUCCESS);
  std::vector<cl_uint> expect(kItems);
  for (size_t i = 0; i < kItems; ++i) expect[i] = 3u * (3u * (3u * i + 1u) + 1u) + 1u;
  EXPECT_EQ(read(), expect);
  EXPECT_EQ(Direct(Counts(k)), 2u) << Describe(Counts(k));
  // Released, kernel and program, while the queue launch of a new one may still run.
  cl_program q = build(kDouble);
  programs_.pop_back();
  cl_kernel once = kernel(q, "twice");
  kernels_.pop_back();
  ASSERT_EQ(launch(once), CL_SUCCESS);
  ASSERT_EQ(hkReleaseKernel(once), CL_SUCCESS);
  ASSERT_EQ(hkReleaseProgram(q), CL_SUCCESS);
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  for (cl_uint &v : expect) v = 2u * v + 5u;
  EXPECT_EQ(read(), expect);
}

TEST_F(FirstLaunch, ConcurrentFirstLaunchesOfOneProgram) {
  // Several threads, each with its own kernel of one new program, queue and buffer: the
  // kernels' preparations meet in the registry's program entry.
  constexpr int kThreads = 4, kLaunches = 5;
  cl_program p = build(kTriple);
  struct Lane {
    cl_command_queue queue = nullptr;
    cl_mem buf = nullptr;
    cl_kernel kernel = nullptr;
  };
  std::vector<Lane> lanes(kThreads);
  std::vector<cl_uint> zeros(kItems, 0);
  for (Lane &l : lanes) {
    cl_int err = CL_SUCCESS;
    l.queue = hkCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    l.buf = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kItems * 4,
                           zeros.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    l.kernel = hkCreateKernel(p, "triple", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(l.kernel, 0, sizeof l.buf, &l.buf), CL_SUCCESS);
  }
  std::vector<std::thread> threads;
  for (Lane &l : lanes)
    threads.emplace_back([&l] {
      const size_t global = kItems, local = 64;
      for (int i = 0; i < kLaunches; ++i)
        hkEnqueueNDRangeKernel(l.queue, l.kernel, 1, nullptr, &global, &local, 0, nullptr,
                               nullptr);
      hkFinish(l.queue);
    });
  for (std::thread &t : threads) t.join();
  cl_uint expect = 0;
  for (int i = 0; i < kLaunches; ++i) expect = 3u * expect + 1u;
  for (Lane &l : lanes) {
    std::vector<cl_uint> out(kItems);
    ASSERT_EQ(hkEnqueueReadBuffer(l.queue, l.buf, CL_TRUE, 0, kItems * 4, out.data(), 0,
                                  nullptr, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(out, std::vector<cl_uint>(kItems, expect));
    const hk_launch_counts c = Counts(l.kernel);
    EXPECT_LE(c.by_reason[HK_REASON_FIRST_LAUNCH], 1u) << Describe(c);
    EXPECT_GE(Direct(c), cl_ulong(kLaunches - 1)) << Describe(c);
    hkReleaseKernel(l.kernel);
    hkReleaseMemObject(l.buf);
    hkReleaseCommandQueue(l.queue);
  }
}

// With a persistent cache (HOSTKERNEL_CACHE_DIR set by first_launch.cmake): a program
// found there runs directly from its first launch.
using WarmCache = FirstLaunch;
TEST_F(WarmCache, ProgramRunsDirectlyFromItsFirstLaunch) {
  if (const char *dir = std::getenv("HOSTKERNEL_CACHE_DIR"); !dir || !*dir || !std::strcmp(dir, "off"))
    GTEST_SKIP() << "needs HOSTKERNEL_CACHE_DIR";
  const std::string unique =
      std::string(kDouble) + "\nconstant long warm_cache_nonce = " +
      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + ";\n";
  const char *src = unique.c_str();
  auto fresh = [&] {  // a new cl_program of the same source: not in the registry
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateProgramWithSource(ctx_, 1, &src, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    EXPECT_EQ(hkBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
    programs_.push_back(p);
    return kernel(p, "twice");
  };
  cl_kernel cold = fresh();
  ASSERT_EQ(launch(cold), CL_SUCCESS);
  ASSERT_EQ(launch(cold), CL_SUCCESS);  // PoCL's function for its geometry
  ASSERT_EQ(launch(cold, 32), CL_SUCCESS);  // the binary query, which fills the cache
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(Counts(cold).by_reason[HK_REASON_FIRST_LAUNCH], 1u) << Describe(Counts(cold));
  const int before = g_binary_queries.load();
  cl_kernel warm = fresh();
  ASSERT_EQ(launch(warm), CL_SUCCESS);
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  EXPECT_EQ(Direct(Counts(warm)), 1u) << Describe(Counts(warm));
  EXPECT_EQ(g_binary_queries.load(), before);
}

TEST(FirstLaunchConfig, QueueUnlessDirectIsAsked) {
  static const char *value = nullptr;
  auto env = [](const char *name) -> const char * {
    return std::strcmp(name, "HOSTKERNEL_FIRST_LAUNCH") ? nullptr : value;
  };
  EXPECT_TRUE(hk::parseConfig(env).first_launch_on_queue);
  value = "queue";
  EXPECT_TRUE(hk::parseConfig(env).first_launch_on_queue);
  value = "direct";
  EXPECT_FALSE(hk::parseConfig(env).first_launch_on_queue);
  value = "sometimes";  // ignored, with a warning
  EXPECT_TRUE(hk::parseConfig(env).first_launch_on_queue);
}

}  // namespace
