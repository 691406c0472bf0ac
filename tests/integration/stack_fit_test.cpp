// A kernel with a 16 KiB private array per work-item (kernels/private_array.cl) and large
// work-groups never crashes: groups that fit the launching thread's stack run directly,
// a NULL local size is capped to a group that fits, an explicit size that does not fit
// goes to PoCL's queue (HK_REASON_STACK), and one that would not fit PoCL's own workers
// either gets CL_OUT_OF_RESOURCES. docs/stack.md.
//
// Every case runs in a child process (gtest death-test machinery, "threadsafe" style: a
// fresh process), so a stack overflow fails that case instead of ending the test binary.
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <atomic>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "support/pocl_device.hpp"

namespace {

constexpr std::size_t kInputs = 4096;

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "%s\n", what.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

void check(bool ok, const std::string &what) {
  if (!ok) fail(what);
}

// What one child sets up: PoCL's CPU device, the kernel (one object for hostkernel, one
// hostkernel never sees for reference results), input and output buffers.
struct Env {
  cl_context ctx = nullptr;
  cl_device_id dev = nullptr;
  cl_command_queue queue = nullptr;
  cl_kernel hk = nullptr, ref = nullptr;
  cl_mem in = nullptr;

  Env() {
    check(FindPoclDevice(nullptr, &dev), "no PoCL CPU device");
    cl_int err;
    ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    queue = clCreateCommandQueue(ctx, dev, 0, &err);
    std::ifstream f(std::string(HK_KERNELS_DIR) + "/private_array.cl");
    std::stringstream s;
    s << f.rdbuf();
    std::string src = s.str();
    const char *p = src.c_str();
    cl_program prog = clCreateProgramWithSource(ctx, 1, &p, nullptr, &err);
    check(clBuildProgram(prog, 1, &dev, "", nullptr, nullptr) == CL_SUCCESS, "build failed");
    hk = hkCreateKernel(prog, "private_array", &err);
    ref = clCreateKernel(prog, "private_array", &err);
    std::vector<float> x(kInputs);
    for (std::size_t i = 0; i < kInputs; ++i) x[i] = float((i * 37) % 101) / 16.0f - 3.0f;
    in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kInputs * 4, x.data(), &err);
  }

  cl_mem output(std::size_t n) {
    cl_int err;
    std::vector<float> init(n, -1.0f);
    return clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, init.data(), &err);
  }
  std::vector<float> read(cl_mem m, std::size_t n) {
    std::vector<float> v(n);
    check(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, n * 4, v.data(), 0, nullptr, nullptr) ==
              CL_SUCCESS, "read failed");
    return v;
  }
  // PoCL's result for n work-items (groups of 64: the result does not depend on the size).
  std::vector<float> reference(std::size_t n) {
    cl_mem out = output(n);
    clSetKernelArg(ref, 0, sizeof in, &in);
    clSetKernelArg(ref, 1, sizeof out, &out);
    const std::size_t local = 64;
    check(clEnqueueNDRangeKernel(queue, ref, 1, nullptr, &n, &local, 0, nullptr, nullptr) ==
              CL_SUCCESS, "reference launch failed");
    auto v = read(out, n);
    clReleaseMemObject(out);
    return v;
  }
  hk_launch_counts counts() {
    hk_launch_counts c{};
    hkGetKernelLaunchCounts(hk, &c);
    return c;
  }
};

// One hostkernel launch of n work-items with local size `local` (0: NULL); checks the
// error code and, on success, the result against PoCL's.
void launch(Env &e, std::size_t n, std::size_t local, cl_int want_err = CL_SUCCESS) {
  cl_mem out = e.output(n);
  check(hkSetKernelArg(e.hk, 0, sizeof e.in, &e.in) == CL_SUCCESS, "arg 0");
  check(hkSetKernelArg(e.hk, 1, sizeof out, &out) == CL_SUCCESS, "arg 1");
  cl_int err = hkEnqueueNDRangeKernel(e.queue, e.hk, 1, nullptr, &n, local ? &local : nullptr, 0,
                                      nullptr, nullptr);
  check(err == want_err, "launch n=" + std::to_string(n) + " local=" + std::to_string(local) +
                             ": error " + std::to_string(err) + ", expected " +
                             std::to_string(want_err));
  if (err == CL_SUCCESS) {
    check(hkFinish(e.queue) == CL_SUCCESS, "finish");
    check(e.read(out, n) == e.reference(n), "result differs from PoCL's");
  }
  clReleaseMemObject(out);
}

// Starts fn on a new thread with a stack of `bytes` (fn must outlive the thread).
pthread_t startThread(std::size_t bytes, const std::function<void()> &fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t t;
  auto body = [](void *p) -> void * {
    (*static_cast<const std::function<void()> *>(p))();
    return nullptr;
  };
  check(pthread_create(&t, &attr, body, const_cast<std::function<void()> *>(&fn)) == 0,
        "pthread_create");
  pthread_attr_destroy(&attr);
  return t;
}

// Runs fn on a new thread with a stack of `bytes`.
void onThread(std::size_t bytes, const std::function<void()> &fn) {
  pthread_join(startThread(bytes, fn), nullptr);
}

std::uint64_t direct(const hk_launch_counts &c) {
  return c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM];
}

// The main thread's stack limit (the tests assume Debian's default 8 MiB or more).
bool mainStackAtLeast8MiB() {
  struct rlimit r;
  return getrlimit(RLIMIT_STACK, &r) == 0 &&
         (r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= (rlim_t{8} << 20));
}

// The default thread stack, which PoCL's workers get.
std::size_t defaultThreadStack() {
  pthread_attr_t attr;
  std::size_t size = 0;
  if (pthread_getattr_default_np(&attr) == 0) {
    pthread_attr_getstacksize(&attr, &size);
    pthread_attr_destroy(&attr);
  }
  return size;
}

template <class F> void inChild(F body) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        body();
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(StackFit, GroupsThatFitRunDirectly) {
  if (!mainStackAtLeast8MiB()) GTEST_SKIP() << "main thread stack below 8 MiB";
  inChild([] {
    Env e;
    launch(e, 128, 64);   // ~1.2 MiB per group
    launch(e, 512, 256);  // ~4.6 MiB per group
    check(direct(e.counts()) == 2 && e.counts().by_path[HK_PATH_QUEUE] == 0,
          "groups of 64 and 256 did not both run directly");
  });
}

TEST(StackFit, NullLocalSizeIsCappedToAGroupThatFits) {
  if (!mainStackAtLeast8MiB()) GTEST_SKIP() << "main thread stack below 8 MiB";
  inChild([] {
    Env e;
    launch(e, 65536, 0);  // PoCL would choose 4096 work-items: 64 MiB of stack
    check(direct(e.counts()) == 1, "the capped launch did not run directly");
  });
}

TEST(StackFit, ExplicitGroupTooLargeForEveryThreadIsRefused) {
  if (defaultThreadStack() >= (std::size_t{20} << 20)) GTEST_SKIP() << "large default stacks";
  inChild([] {
    Env e;
    launch(e, 1024, 1024, CL_OUT_OF_RESOURCES);  // ~18 MiB: PoCL's 8 MiB workers crash
    check(e.counts().by_path[HK_PATH_QUEUE] == 0 && direct(e.counts()) == 0,
          "the refused launch ran somewhere");
  });
}

TEST(StackFit, SmallThreadSendsALargeGroupToPoclsQueue) {
  if (defaultThreadStack() < (std::size_t{6} << 20)) GTEST_SKIP() << "small default stacks";
  inChild([] {
    Env e;
    onThread(std::size_t{2} << 20, [&] {
      launch(e, 256, 64);   // ~1.2 MiB: fits 2 MiB
      launch(e, 512, 256);  // ~4.6 MiB: PoCL's queue
      launch(e, 4096, 0);   // capped
    });
    hk_launch_counts c = e.counts();
    check(direct(c) == 2, "expected 2 direct launches, got " + std::to_string(direct(c)));
    check(c.by_path[HK_PATH_QUEUE] == 1 && c.by_reason[HK_REASON_STACK] == 1,
          "the group of 256 did not go to the queue for its stack");
  });
}

TEST(StackFit, PlanMadeOnALargeStackIsNotReusedOnASmallOne) {
  if (!mainStackAtLeast8MiB() || defaultThreadStack() < (std::size_t{6} << 20))
    GTEST_SKIP() << "stacks below 8 MiB";
  inChild([] {
    Env e;
    cl_mem out = e.output(512);
    hkSetKernelArg(e.hk, 0, sizeof e.in, &e.in);
    hkSetKernelArg(e.hk, 1, sizeof out, &out);
    const std::size_t n = 512, local = 256, small = 64;
    std::atomic<int> phase{0};
    // The small thread launches once (so its launches may take the fast path), then the
    // main thread plans groups of 256 that fit its stack, then the small thread launches
    // exactly that request: the cached plan must not run on its 2 MiB stack.
    const std::function<void()> small_thread = [&] {
      check(hkEnqueueNDRangeKernel(e.queue, e.hk, 1, nullptr, &n, &small, 0, nullptr,
                                   nullptr) == CL_SUCCESS, "small-thread small launch");
      phase.store(1);
      while (phase.load() != 2) sched_yield();
      check(hkEnqueueNDRangeKernel(e.queue, e.hk, 1, nullptr, &n, &local, 0, nullptr,
                                   nullptr) == CL_SUCCESS, "small-thread launch");
    };
    pthread_t t = startThread(std::size_t{2} << 20, small_thread);
    while (phase.load() != 1) sched_yield();
    for (int i = 0; i < 2; ++i)  // the second launch takes the fast path
      check(hkEnqueueNDRangeKernel(e.queue, e.hk, 1, nullptr, &n, &local, 0, nullptr,
                                   nullptr) == CL_SUCCESS, "main thread launch");
    phase.store(2);
    pthread_join(t, nullptr);
    check(hkFinish(e.queue) == CL_SUCCESS, "finish");
    check(e.read(out, n) == e.reference(n), "result differs from PoCL's");
    check(e.counts().by_reason[HK_REASON_STACK] == 1, "the small thread did not use the queue");
  });
}

}  // namespace
