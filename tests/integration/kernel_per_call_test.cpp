// Libraries that create and release a cl_kernel per call from a built program
// (Boost.Compute, CLBlast): the program's loaded code lives as long as the cl_program, so
// a new kernel object finds it without a file read or a dlopen, and the rule "a kernel
// used once compiles once" counts per program, so such a library launches directly from
// its second call. Runs with the default, HOSTKERNEL_FIRST_LAUNCH=queue.
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>
#include "support/pocl_context.hpp"

namespace {

// Whether the process maps a work-group function library hostkernel loaded for `kernel`
// (pocl/loader.cpp names its memfd "hostkernel-<kernel>").
bool LibraryMapped(const std::string &kernel) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("memfd:hostkernel-" + kernel) != std::string::npos) return true;
  return false;
}

const char *kSource = R"CLC(
kernel void scale(global float *x, float s) { x[get_global_id(0)] *= s; }
kernel void never_launched(global float *x) { x[0] = 1.0f; }
kernel void spin(global float *x, int n) {
  float v = x[get_global_id(0)];
  for (int i = 0; i < n; ++i) v = v * 0.999f + 1.0f;
  x[get_global_id(0)] = v;
}
)CLC";

// Each test's device, context and in-order queue.
class KernelPerCall : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device, &ctx));
    q = hkCreateCommandQueue(ctx, device, 0, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (q) hkReleaseCommandQueue(q);
    if (ctx) hkReleaseContext(ctx);
  }
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  cl_int err = CL_SUCCESS;
};

TEST_F(KernelPerCall, AKernelObjectPerCallLaunchesDirectlyFromTheProgramsSecondCall) {
  cl_program program = hkCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(hkBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  constexpr size_t kN = 256;
  std::vector<float> host(kN, 1.0f);
  cl_mem x = hkCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  void *first_fn = nullptr;
  for (int call = 0; call < 4; ++call) {
    SCOPED_TRACE(call);
    cl_kernel k = hkCreateKernel(program, "scale", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    const float s = 2.0f;
    ASSERT_EQ(hkSetKernelArg(k, 0, sizeof x, &x), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(k, 1, sizeof s, &s), CL_SUCCESS);
    const size_t g = kN;
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr),
              CL_SUCCESS);
    hk_launch_counts c{};
    ASSERT_EQ(hkGetKernelLaunchCounts(k, &c), CL_SUCCESS);
    if (call == 0) {
      EXPECT_EQ(c.by_reason[HK_REASON_FIRST_LAUNCH], 1u);
      // PoCL compiles the kernel for that launch; the next call runs PoCL's function
      // directly once it is compiled (docs/first-launch.md, "One kernel compiled"), which
      // on a loaded machine can take longer than hostkernel waits for it.
      ASSERT_EQ(hkFinish(q), CL_SUCCESS);
    } else {
      EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 1u)
          << "call " << call << " did not run directly";
    }
    // Every kernel object after the first runs the same loaded function: nothing was
    // loaded again when the previous kernel object was released.
    void *fn = nullptr;
    ASSERT_EQ(hkGetKernelVariantInfo(k, HK_KERNEL_VARIANT_WORK_GROUP_FUNCTION, sizeof fn, &fn,
                                     nullptr),
              CL_SUCCESS);
    if (call == 1) first_fn = fn;
    if (call > 1) EXPECT_EQ(fn, first_fn);
    ASSERT_EQ(hkReleaseKernel(k), CL_SUCCESS);
    // The program's code outlives its kernel objects.
    if (call > 0) EXPECT_TRUE(LibraryMapped("scale")) << "unloaded with its kernel object";
  }
  ASSERT_EQ(hkEnqueueReadBuffer(q, x, CL_TRUE, 0, kN * sizeof(float), host.data(), 0, nullptr,
                                nullptr),
            CL_SUCCESS);
  EXPECT_EQ(host[0], 16.0f);
  EXPECT_EQ(host[kN - 1], 16.0f);
  hkReleaseMemObject(x);
  hkReleaseProgram(program);
  EXPECT_FALSE(LibraryMapped("scale")) << "still loaded after the program's release";
}

// A kernel and its program released while a launch of the kernel still waits on PoCL's
// queue (behind a user event here): PoCL keeps both alive until that launch ends, but the
// application holds no reference any more, so hostkernel's state for them goes, and with
// it the program's loaded code.
TEST_F(KernelPerCall, ProgramCodeGoesWithTheApplicationsLastReference) {
  const char *source = "kernel void scale_queued(global float *x) { x[get_global_id(0)] *= 2.0f; }";
  cl_program program = hkCreateProgramWithSource(ctx, 1, &source, nullptr, &err);
  ASSERT_EQ(hkBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  std::vector<float> host(16, 1.0f);
  cl_mem x = hkCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(float) * 16, host.data(), &err);
  cl_kernel k = hkCreateKernel(program, "scale_queued", &err);
  ASSERT_EQ(hkRetainKernel(k), CL_SUCCESS);   // the application's second reference
  ASSERT_EQ(hkRetainProgram(program), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(k, 0, sizeof x, &x), CL_SUCCESS);
  const size_t g = 16;
  for (int i = 0; i < 2; ++i)  // PoCL's queue (first launch), then direct: code loaded
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  ASSERT_TRUE(LibraryMapped("scale_queued"));
  cl_event gate = clCreateUserEvent(ctx, &err);
  ASSERT_EQ(hkEnqueueNDRangeKernel(q, k, 1, nullptr, &g, nullptr, 1, &gate, nullptr), CL_SUCCESS);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(hkReleaseKernel(k), CL_SUCCESS);
    ASSERT_EQ(hkReleaseProgram(program), CL_SUCCESS);
  }
  EXPECT_FALSE(LibraryMapped("scale_queued")) << "kept after the application's last release";
  ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueReadBuffer(q, x, CL_TRUE, 0, sizeof(float) * 16, host.data(), 0, nullptr,
                                nullptr),
            CL_SUCCESS);
  EXPECT_EQ(host[15], 8.0f);
  hkReleaseEvent(gate);
  hkReleaseMemObject(x);
}

// A kernel object made per call starts from what the previous one of the same kernel
// learned. A kernel's first direct launch, untimed, tries the team (launch::teamSized);
// a new object of a kernel known to be fast (here: one step per work-item, far below the
// 20 µs of serial work that makes a launch worth splitting) runs its first launch on the
// calling thread instead, not on the team while its sampler learns it again.
TEST_F(KernelPerCall, ANewKernelObjectStartsFromItsPredecessorsTiming) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one CPU: no team";
  cl_program program = hkCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  ASSERT_EQ(hkBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  std::vector<float> host(2, 0.0f);
  cl_mem x = hkCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(float) * 2, host.data(), &err);
  const cl_int n = 1;
  const size_t g = 2, l = 1;
  auto launch = [&](cl_kernel k) {
    ASSERT_EQ(hkSetKernelArg(k, 0, sizeof x, &x), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(k, 1, sizeof n, &n), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr), CL_SUCCESS);
    ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  };
  cl_kernel first = hkCreateKernel(program, "spin", &err);
  launch(first);  // the program's first launch: PoCL's queue
  launch(first);  // the first direct launch, untimed: the team
  hk_launch_counts c{};
  ASSERT_EQ(hkGetKernelLaunchCounts(first, &c), CL_SUCCESS);
  ASSERT_EQ(c.by_path[HK_PATH_TEAM], 1u) << "the first direct launch did not try the team";
  // Then the kernel is known to be fast and stays on its thread: at once on a quiet
  // machine; a launch whose thread lost its CPU looks slow, and its next one goes to the
  // team again, until two in a row were fast (the sampler keeps the lesser of the two).
  for (int i = 0; i < 100 && c.by_path[HK_PATH_INLINE] == 0; ++i) {
    launch(first);
    ASSERT_EQ(hkGetKernelLaunchCounts(first, &c), CL_SUCCESS);
  }
  ASSERT_GE(c.by_path[HK_PATH_INLINE], 1u) << "the fast kernel never ran on its thread";
  ASSERT_EQ(hkReleaseKernel(first), CL_SUCCESS);
  cl_kernel next = hkCreateKernel(program, "spin", &err);
  launch(next);
  ASSERT_EQ(hkGetKernelLaunchCounts(next, &c), CL_SUCCESS);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE], 1u) << "the new kernel object learned its timing again";
  EXPECT_EQ(c.by_path[HK_PATH_TEAM], 0u);
  hkReleaseKernel(next);
  hkReleaseMemObject(x);
  hkReleaseProgram(program);
}

// Arguments hostkernel can check are only recorded: PoCL's kernel does not have them
// (PoCL alone refuses to launch it) until a launch of it goes to PoCL's queue, which then
// runs with them. Arguments it cannot check go to PoCL at once, for PoCL's error.
TEST_F(KernelPerCall, ArgumentsReachPoclOnlyWhenALaunchGoesThere) {
  cl_program program = hkCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  ASSERT_EQ(hkBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  constexpr size_t kN = 64;
  std::vector<float> host(kN, 3.0f);
  cl_mem x = hkCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, kN * sizeof(float), host.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t g = kN;
  const float one = 1.0f, two = 2.0f;
  // Two launches of a first kernel object: the program's image is loaded.
  cl_kernel first = hkCreateKernel(program, "scale", &err);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(hkSetKernelArg(first, 0, sizeof x, &x), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(first, 1, sizeof one, &one), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, first, 1, nullptr, &g, nullptr, 0, nullptr, nullptr),
              CL_SUCCESS);
  }
  cl_kernel k = hkCreateKernel(program, "scale", &err);
  ASSERT_EQ(hkSetKernelArg(k, 0, sizeof x, &x), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(k, 1, sizeof two, &two), CL_SUCCESS);
  EXPECT_EQ(clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr),
            CL_INVALID_KERNEL_ARGS)
      << "PoCL's kernel has the arguments: they were not only recorded";
  // Behind an incomplete user event the launch goes to PoCL's queue, with the arguments.
  cl_event gate = clCreateUserEvent(ctx, &err);
  cl_event done = nullptr;
  ASSERT_EQ(hkEnqueueNDRangeKernel(q, k, 1, nullptr, &g, nullptr, 1, &gate, &done), CL_SUCCESS);
  hk_launch_counts c{};
  ASSERT_EQ(hkGetKernelLaunchCounts(k, &c), CL_SUCCESS);
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 1u);
  ASSERT_EQ(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(hkWaitForEvents(1, &done), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueReadBuffer(q, x, CL_TRUE, 0, kN * sizeof(float), host.data(), 0, nullptr,
                                nullptr),
            CL_SUCCESS);
  EXPECT_EQ(host[0], 6.0f);
  EXPECT_EQ(host[kN - 1], 6.0f);
  // What hostkernel does not check is PoCL's to refuse.
  const double wide = 2.0;
  EXPECT_EQ(hkSetKernelArg(k, 1, sizeof wide, &wide), clSetKernelArg(k, 1, sizeof wide, &wide));
  cl_mem not_a_buffer = reinterpret_cast<cl_mem>(&host[0]);
  EXPECT_EQ(hkSetKernelArg(k, 0, sizeof not_a_buffer, &not_a_buffer),
            clSetKernelArg(k, 0, sizeof not_a_buffer, &not_a_buffer));
  for (cl_event e : {gate, done}) hkReleaseEvent(e);
  hkReleaseKernel(k);
  hkReleaseKernel(first);
  hkReleaseMemObject(x);
  hkReleaseProgram(program);
}

}  // namespace
