// Object lifetimes and ordering through the hk* C API.
//
// Lifecycle: programs (from binaries or from source), kernels (created, created in bulk,
// cloned), buffers (plain, COPY_HOST_PTR, USE_HOST_PTR, sub-buffers), queues and contexts
// are created and released round after round, one test per way of making them (its name
// says which, e.g. Lifecycle/Objects.NeverSeeStaleState/PoclCalls_Source_Clone_...), so
// new objects keep reusing the addresses of released ones; any state hostkernel cached for
// a released object (a work-group function, a device pointer, a host pointer, argument
// values) shows up as a wrong result. Every launch must still run directly.
//
// Ordering: direct launches mixed with non-blocking PoCL commands (write, copy, map/unmap,
// read) on in-order queues (implicit order) and out-of-order queues (events in wait lists).
// The buffers are 16 MiB and the kernels read or write their *tail*, so a launch that does
// not wait for a front-to-back copy still in flight sees old data. Some rounds gate the
// PoCL command on a user event completed by another thread after a delay, which makes a
// missing wait fail deterministically.
//
// User events: a launch must never block on an incomplete user event (the application may
// complete it only after the enqueue returns); such launches go to PoCL's queue.
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>
#include "support/launch_counts.hpp"
#include "support/pocl_context.hpp"
#include "support/profiling_timestamps.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Zero for a kernel not launched yet (hkGetKernelLaunchCounts's answer for a kernel that
// was created but never used is checked in errors_test).
hk_launch_counts CountsSoFar(cl_kernel k) {
  hk_launch_counts c{};
  if (hkGetKernelLaunchCounts(k, &c) != CL_SUCCESS) c = hk_launch_counts{};
  return c;
}

cl_device_id CpuDevice() {
  cl_device_id device = nullptr;
  EXPECT_TRUE(FindPoclDevice(nullptr, &device));
  return device;
}

cl_program Build(cl_context ctx, cl_device_id device, const char *src) {
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  EXPECT_EQ(err, CL_SUCCESS);
  err = clBuildProgram(p, 1, &device, "", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    char log[4096] = {};
    clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
    ADD_FAILURE() << "build failed: " << err << "\n" << log;
  }
  return p;
}

cl_int Status(cl_event e) {
  cl_int s = -999;
  EXPECT_EQ(hkGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr),
            CL_SUCCESS);
  return s;
}

// Completes a user event from another thread after `delay` (a command gated on it cannot
// run before then).
class DelayedCompletion {
 public:
  DelayedCompletion(cl_event user_event, std::chrono::milliseconds delay)
      : thread_([user_event, delay] {
          std::this_thread::sleep_for(delay);
          clSetUserEventStatus(user_event, CL_COMPLETE);
        }) {}
  ~DelayedCompletion() { thread_.join(); }

 private:
  std::thread thread_;
};

// Completes a user event if the test thread has not called ReturnedInTime() within
// `limit`, so that a launch blocking on the event fails the test instead of hanging it.
class Watchdog {
 public:
  Watchdog(cl_event user_event, std::chrono::milliseconds limit)
      : thread_([this, user_event, limit] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!cv_.wait_for(lock, limit, [this] { return returned_; })) {
            fired_ = true;
            clSetUserEventStatus(user_event, CL_COMPLETE);
          }
        }) {}
  ~Watchdog() {
    ReturnedInTime();
    thread_.join();
  }
  // Called once the calls under watch have returned: true if they did so by themselves,
  // false if the watchdog had to complete the user event first.
  bool ReturnedInTime() {
    std::lock_guard<std::mutex> lock(mutex_);
    returned_ = true;
    cv_.notify_all();
    return !fired_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool returned_ = false;
  bool fired_ = false;
  std::thread thread_;
};

// ======================================================================================
// Lifecycle
// ======================================================================================

// Two programs with kernels of the same names and signatures but different arithmetic: a
// work-group function cached for a released program and found again through a reused
// cl_program or cl_kernel address computes the other formula.
const char *kOpSources[2] = {R"CLC(
kernel void op(global const int *a, global const int *b, global int *c, global int *s, int k) {
  size_t i = get_global_id(0);
  int v = a[i] + b[i] * k;
  c[i] = v;
  s[i] = v + 1;
}
kernel void aux(global int *x) { x[get_global_id(0)] = 0; }
)CLC",
                             R"CLC(
kernel void op(global const int *a, global const int *b, global int *c, global int *s, int k) {
  size_t i = get_global_id(0);
  int v = a[i] - b[i] * k;
  c[i] = v;
  s[i] = v - 1;
}
kernel void aux(global int *x) { x[get_global_id(0)] = 1; }
)CLC"};

int Expected(int which, int a, int b, int k) { return which == 0 ? a + b * k : a - b * k; }
int ExpectedSub(int which, int v) { return which == 0 ? v + 1 : v - 1; }

std::string KernelName(cl_kernel k) {
  char name[64] = {};
  clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, nullptr);
  return name;
}

// One way of making and releasing the objects of a lifecycle round; the test's name says
// it, e.g. Lifecycle/Objects.NeverSeeStaleState/HkCalls_Binary_Clone_ProgramReleasedFirst.
enum class KernelMade { Create, AllInProgram, Clone };
struct Recipe {
  bool hk_calls;         // queue and program made through hostkernel's create calls, else
                         // through PoCL's (hostkernel then meets them first at a launch)
  bool from_source;      // program compiled from source, else created from a binary
  KernelMade kernel;     // hkCreateKernel, hkCreateKernelsInProgram or hkCloneKernel
  bool program_first;    // program released while its kernel is still alive
};

std::string RecipeName(const Recipe &r) {
  static const char *kKernel[] = {"Create", "AllInProgram", "Clone"};
  return std::string(r.hk_calls ? "HkCalls" : "PoclCalls") +
         (r.from_source ? "_Source_" : "_Binary_") + kKernel[static_cast<int>(r.kernel)] +
         (r.program_first ? "_ProgramReleasedFirst" : "_KernelReleasedFirst");
}

void PrintTo(const Recipe &r, std::ostream *os) { *os << RecipeName(r); }

// What changes from round to round within one recipe: the program (the two sources
// alternate, so stale code computes the other formula), the storage and geometry.
struct Round {
  int index;
  int which;                // kOpSources[which]
  bool aligned;             // USE_HOST_PTR storage page-aligned, else a plain heap block
  bool local_64;            // local size 64, else NULL
  bool sub_buffer_first;    // the sub-buffer released before its parent
  size_t n;                 // work-items and ints per buffer
  size_t origin;            // the sub-buffer's offset in its parent, in bytes

  explicit Round(int r)
      : index(r), which(r % 2), aligned((r / 2) % 2 == 0), local_64((r / 4) % 2 == 1),
        sub_buffer_first(which == (aligned ? 1 : 0)), n(64 * (1 + r % 5)),
        origin((r % 4) * 128) {}  // CL_DEVICE_MEM_BASE_ADDR_ALIGN is 1024 bits

  std::string Describe() const {
    return "round " + std::to_string(index) + ": program " + std::to_string(which) +
           (aligned ? ", page-aligned" : ", heap") + " host storage, local size " +
           (local_64 ? "64" : "NULL") +
           (sub_buffer_first ? ", sub-buffer released first, " : ", parent released first, ") +
           std::to_string(n) + " items, sub-buffer at byte " + std::to_string(origin);
  }
};

// Lifecycle: every recipe runs kRounds rounds in a context of its own. Each round makes a
// queue, a program, its kernel and five buffers, launches twice and releases everything,
// so new objects keep reusing the addresses of released ones, across rounds and across
// recipes; any state hostkernel cached for a released object (a work-group function, a
// device pointer, a host pointer, argument values) shows up as a wrong result. Every
// launch must run directly.
class Objects : public ::testing::TestWithParam<Recipe> {
 protected:
  static constexpr int kRounds = 8;  // every (program, storage, local size) once
  static constexpr int kSentinel = -555;

  // The two programs' binaries, built once in a context that is gone before any round.
  static void SetUpTestSuite() {
    cl_device_id device = nullptr;
    cl_context c0 = nullptr;
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device, &c0));
    for (int w = 0; w < 2; ++w) {
      cl_program p = Build(c0, device, kOpSources[w]);
      size_t size = 0;
      ASSERT_EQ(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
                CL_SUCCESS);
      binaries_[w].resize(size);
      unsigned char *dst = binaries_[w].data();
      ASSERT_EQ(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof dst, &dst, nullptr),
                CL_SUCCESS);
      hkReleaseProgram(p);
    }
    hkReleaseContext(c0);
  }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
    cl_int err = CL_SUCCESS;
  }
  void TearDown() override {
    if (ctx_) { EXPECT_EQ(hkReleaseContext(ctx_), CL_SUCCESS); }
  }

  cl_program MakeProgram(const Recipe &recipe, int which) {
    cl_int err = CL_SUCCESS;
    cl_program prog = nullptr;
    if (recipe.from_source) {
      if (!recipe.hk_calls) return Build(ctx_, device_, kOpSources[which]);
      prog = hkCreateProgramWithSource(ctx_, 1, &kOpSources[which], nullptr, &err);
      EXPECT_EQ(err, CL_SUCCESS);
      EXPECT_EQ(hkBuildProgram(prog, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
      return prog;
    }
    const unsigned char *bin = binaries_[which].data();
    const size_t size = binaries_[which].size();
    cl_int status = CL_SUCCESS;
    prog = recipe.hk_calls
               ? hkCreateProgramWithBinary(ctx_, 1, &device_, &size, &bin, &status, &err)
               : clCreateProgramWithBinary(ctx_, 1, &device_, &size, &bin, &status, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    EXPECT_EQ(recipe.hk_calls ? hkBuildProgram(prog, 1, &device_, "", nullptr, nullptr)
                              : clBuildProgram(prog, 1, &device_, "", nullptr, nullptr),
              CL_SUCCESS);
    return prog;
  }

  // The kernel `op`, and in `extra` any other kernel object the recipe made.
  cl_kernel MakeKernel(KernelMade how, cl_program prog, cl_kernel *extra) {
    cl_int err = CL_SUCCESS;
    *extra = nullptr;
    switch (how) {
      case KernelMade::Create: {
        cl_kernel k = hkCreateKernel(prog, "op", &err);
        EXPECT_EQ(err, CL_SUCCESS);
        return k;
      }
      case KernelMade::AllInProgram: {
        cl_kernel ks[2] = {};
        cl_uint n = 0;
        EXPECT_EQ(hkCreateKernelsInProgram(prog, 2, ks, &n), CL_SUCCESS);
        EXPECT_EQ(n, 2u);
        const bool op_first = KernelName(ks[0]) == "op";
        *extra = op_first ? ks[1] : ks[0];
        return op_first ? ks[0] : ks[1];
      }
      case KernelMade::Clone: {
        cl_kernel original = hkCreateKernel(prog, "op", &err);
        EXPECT_EQ(err, CL_SUCCESS);
        cl_kernel k = hkCloneKernel(original, &err);
        EXPECT_EQ(err, CL_SUCCESS);
        EXPECT_EQ(hkReleaseKernel(original), CL_SUCCESS);  // the clone lives on
        return k;
      }
    }
    return nullptr;
  }

  void RunRound(const Recipe &recipe, const Round &round);

  static std::vector<unsigned char> binaries_[2];
  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
};

std::vector<unsigned char> Objects::binaries_[2];

void Objects::RunRound(const Recipe &recipe, const Round &round) {
  cl_int err = CL_SUCCESS;
  const int r = round.index;
  cl_command_queue q =
      recipe.hk_calls ? hkCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err)
                      : clCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_program prog = MakeProgram(recipe, round.which);
  ASSERT_FALSE(HasFailure());
  cl_kernel extra = nullptr;
  cl_kernel k = MakeKernel(recipe.kernel, prog, &extra);
  ASSERT_FALSE(HasFailure());
  if (recipe.program_first) { ASSERT_EQ(hkReleaseProgram(prog), CL_SUCCESS); }

  const size_t n = round.n, bytes = n * sizeof(int);
  std::vector<int> ha(n);
  for (size_t j = 0; j < n; ++j) ha[j] = r * 7 + int(j);
  int *hb = round.aligned
                ? static_cast<int *>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096))
                : static_cast<int *>(std::malloc(bytes));
  ASSERT_NE(hb, nullptr);
  for (size_t j = 0; j < n; ++j) hb[j] = int(j) * 3 - r;

  cl_mem a = hkCreateBuffer(ctx_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, ha.data(),
                            &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem b = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, hb, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem c = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t pad = 4 * 128 / sizeof(int);  // room for origins 0..384 bytes
  std::vector<int> hp(n + pad, kSentinel);
  cl_mem parent = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 hp.size() * sizeof(int), hp.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_buffer_region region{round.origin, bytes};
  cl_mem sub = hkCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                 &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);

  const size_t local = 64;
  const size_t *local_ptr = round.local_64 ? &local : nullptr;
  auto run_and_check = [&](cl_mem first, const int *hfirst, cl_mem second,
                           const int *hsecond, int kval) {
    ASSERT_EQ(hkSetKernelArg(k, 0, sizeof(cl_mem), &first), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(k, 1, sizeof(cl_mem), &second), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(k, 2, sizeof(cl_mem), &c), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(k, 3, sizeof(cl_mem), &sub), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(k, 4, sizeof(int), &kval), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, k, 1, nullptr, &n, local_ptr, 0, nullptr, nullptr),
              CL_SUCCESS);
    std::vector<int> hc(n, 0), hpar(n + pad, 0);
    ASSERT_EQ(hkEnqueueReadBuffer(q, c, CL_FALSE, 0, bytes, hc.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(hkEnqueueReadBuffer(q, parent, CL_TRUE, 0, hpar.size() * sizeof(int),
                                  hpar.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    const size_t first_sub = round.origin / sizeof(int);
    for (size_t j = 0; j < n; ++j) {
      const int v = Expected(round.which, hfirst[j], hsecond[j], kval);
      ASSERT_EQ(hc[j], v) << "c[" << j << "]";
      ASSERT_EQ(hpar[first_sub + j], ExpectedSub(round.which, v)) << "sub-buffer element " << j;
    }
    for (size_t j = 0; j < hpar.size(); ++j)
      if (j < first_sub || j >= first_sub + n) {
        ASSERT_EQ(hpar[j], kSentinel) << "parent element " << j << " outside the sub-buffer";
      }
  };
  run_and_check(a, ha.data(), b, hb, r + 1);
  if (HasFatalFailure()) return;
  run_and_check(b, hb, a, ha.data(), 2);  // same kernel, arguments swapped
  if (HasFatalFailure()) return;

  // Both launches ran directly: inline for grids this small, or on the team when the
  // sampler saw a slow (e.g. cold) launch.
  const hk_launch_counts counts = Counts(k);
  EXPECT_EQ(Direct(counts), 2u) << Describe(counts);

  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  // A sub-buffer keeps its parent's storage alive, whichever is released first.
  cl_mem first = round.sub_buffer_first ? sub : parent;
  cl_mem second = round.sub_buffer_first ? parent : sub;
  ASSERT_EQ(hkReleaseMemObject(first), CL_SUCCESS);
  ASSERT_EQ(hkReleaseMemObject(second), CL_SUCCESS);
  ASSERT_EQ(hkReleaseMemObject(a), CL_SUCCESS);
  ASSERT_EQ(hkReleaseMemObject(b), CL_SUCCESS);
  ASSERT_EQ(hkReleaseMemObject(c), CL_SUCCESS);
  std::free(hb);
  ASSERT_EQ(hkReleaseKernel(k), CL_SUCCESS);
  if (extra) { ASSERT_EQ(hkReleaseKernel(extra), CL_SUCCESS); }
  if (!recipe.program_first) { ASSERT_EQ(hkReleaseProgram(prog), CL_SUCCESS); }
  ASSERT_EQ(hkReleaseCommandQueue(q), CL_SUCCESS);
}

TEST_P(Objects, NeverSeeStaleState) {
  for (int r = 0; r < kRounds; ++r) {
    const Round round(r);
    SCOPED_TRACE(round.Describe());
    RunRound(GetParam(), round);
    if (HasFatalFailure()) return;
  }
}

std::vector<Recipe> AllRecipes() {
  std::vector<Recipe> all;
  for (bool hk_calls : {true, false})
    for (bool from_source : {false, true})
      for (KernelMade kernel : {KernelMade::Create, KernelMade::AllInProgram, KernelMade::Clone})
        for (bool program_first : {false, true})
          all.push_back(Recipe{hk_calls, from_source, kernel, program_first});
  return all;
}

INSTANTIATE_TEST_SUITE_P(Lifecycle, Objects, ::testing::ValuesIn(AllRecipes()),
                         [](const ::testing::TestParamInfo<Recipe> &info) {
                           return RecipeName(info.param);
                         });

// clCloneKernel copies the argument values: the clone must run directly without setting
// them again, and must not depend on the original staying alive.
TEST(Lifecycle, ClonedKernelKeepsArgumentsAndRunsInline) {
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device, &ctx));
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_program prog = Build(ctx, device, kOpSources[0]);
  cl_kernel k = hkCreateKernel(prog, "op", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t n = 256, bytes = n * sizeof(int);
  std::vector<int> ha(n), hb(n);
  for (size_t j = 0; j < n; ++j) ha[j] = int(j), hb[j] = 1000 - int(j);
  cl_mem a = hkCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, bytes, ha.data(), &err);
  cl_mem b = hkCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, bytes, hb.data(), &err);
  cl_mem c = hkCreateBuffer(ctx, 0, bytes, nullptr, &err);
  cl_mem s = hkCreateBuffer(ctx, 0, bytes, nullptr, &err);
  int kval = 3;
  cl_mem args[4] = {a, b, c, s};
  for (cl_uint i = 0; i < 4; ++i)
    ASSERT_EQ(hkSetKernelArg(k, i, sizeof(cl_mem), &args[i]), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(k, 4, sizeof kval, &kval), CL_SUCCESS);
  cl_kernel clone = hkCloneKernel(k, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(hkReleaseKernel(k), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueNDRangeKernel(q, clone, 1, nullptr, &n, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  std::vector<int> hc(n);
  ASSERT_EQ(hkEnqueueReadBuffer(q, c, CL_TRUE, 0, bytes, hc.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  for (size_t j = 0; j < n; ++j) ASSERT_EQ(hc[j], ha[j] + hb[j] * kval) << "element " << j;
  hk_launch_counts counts = Counts(clone);
  EXPECT_EQ(Direct(counts), 1u) << Describe(counts);
  for (cl_mem m : args) hkReleaseMemObject(m);
  hkReleaseKernel(clone);
  hkReleaseProgram(prog);
  hkReleaseCommandQueue(q);
  hkReleaseContext(ctx);
}

// The C API's own example uses hostkernel for arguments and launches only. A program that
// creates and releases its buffers and kernels with PoCL's calls reuses addresses
// hostkernel has state for: that state must never be used for the new object (a stale
// device pointer writes into freed memory, a stale kernel runs another kernel's code).
// Each case runs in a child process, so that a crash fails only that test.
const char *kPlainSources[2] = {
    "kernel void op(global int *c, int k) { c[get_global_id(0)] = k + 1; }",
    "kernel void op(global int *c, int k) { c[get_global_id(0)] = k - 1; }"};

// The children's device, context and in-order queue, made with plain OpenCL calls.
struct PlainQueue {
  cl_device_id device = CpuDevice();
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, nullptr);
};

// Round `i` of a child: op(b, i) launched over 64 work-items through hostkernel, then
// element 0 read back. A launch that fails or does not give `want` is counted in `wrong`;
// the first three are printed.
void LaunchOp(const PlainQueue &cl, cl_kernel k, cl_mem b, int i, int want, int &wrong) {
  hkSetKernelArg(k, 0, sizeof b, &b);
  hkSetKernelArg(k, 1, sizeof i, &i);
  size_t g = 64;
  cl_int launch = hkEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr);
  int out = 0;
  hkEnqueueReadBuffer(cl.q, b, CL_TRUE, 0, sizeof out, &out, 0, nullptr, nullptr);
  if (launch != CL_SUCCESS || out != want) {
    if (wrong++ < 3)
      fprintf(stderr, "iteration %d: launch %d, element 0 is %d, expected %d\n", i, launch,
              out, want);
  }
}

TEST(Lifecycle, BuffersMadeAndReleasedWithPlainOpenCLNeverLeaveStalePointers) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto child = [] {
    PlainQueue cl;
    cl_int err = CL_SUCCESS;
    cl_program prog = Build(cl.ctx, cl.device, kPlainSources[0]);
    cl_kernel k = clCreateKernel(prog, "op", &err);
    int wrong = 0;
    for (int i = 0; i < 200; ++i) {
      std::vector<int> host(64 + (i % 7) * 64, -1);  // new USE_HOST_PTR storage each time
      cl_mem b = clCreateBuffer(cl.ctx, CL_MEM_USE_HOST_PTR, host.size() * sizeof(int),
                                host.data(), &err);
      LaunchOp(cl, k, b, i, i + 1, wrong);
      clReleaseMemObject(b);
    }
    std::_Exit(wrong ? 1 : 0);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "");
}

TEST(Lifecycle, KernelsMadeAndReleasedWithPlainOpenCLNeverRunStaleCode) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto child = [] {
    PlainQueue cl;
    cl_int err = CL_SUCCESS;
    cl_program progs[2] = {Build(cl.ctx, cl.device, kPlainSources[0]),
                           Build(cl.ctx, cl.device, kPlainSources[1])};
    cl_mem b = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), nullptr, &err);
    int wrong = 0;
    for (int i = 0; i < 200; ++i) {
      const int which = i % 2;
      cl_kernel k = clCreateKernel(progs[which], "op", &err);
      LaunchOp(cl, k, b, i, which ? i - 1 : i + 1, wrong);
      clReleaseKernel(k);
    }
    if (wrong) fprintf(stderr, "%d of 200 launches wrong\n", wrong);
    std::_Exit(wrong ? 1 : 0);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "");
}

// ======================================================================================
// Ordering with PoCL's queue
// ======================================================================================

const char *kOrderSource = R"CLC(
kernel void tail(global const int *src, global int *dst, int n, int add) {
  size_t i = get_global_id(0);
  dst[i] = src[n - 1 - (int)i] + add;
}
kernel void scale(global const int *in, global int *out, int m) {
  size_t i = get_global_id(0);
  out[i] = in[i] * m;
}
kernel void stamp_tail(global int *buf, int n, int v) {
  size_t i = get_global_id(0);
  buf[n - 1 - (int)i] = v + (int)i;
}
kernel void fill(global int *out, int v) {
  size_t i = get_global_id(0);
  out[i] = v + (int)i;
}
// One work-item, a long dependent chain (a few hundred ms for 2^28 steps), then n results.
kernel void spin(global uint *out, uint steps, int n) {
  uint x = 1;
  for (uint s = 0; s < steps; ++s) x = x * 1103515245u + 12345u;
  for (int j = 0; j < n; ++j) out[j] = x + (uint)j;
}
)CLC";

// spin's x after `steps` steps, by composing the step with itself (x -> a x + c).
std::uint32_t SpinValue(std::uint32_t steps) {
  std::uint32_t a = 1103515245u, c = 12345u;  // the step raised to 2^k
  std::uint32_t ra = 1, rc = 0;                // the composition so far
  for (; steps; steps >>= 1) {
    if (steps & 1) {
      ra = a * ra;
      rc = a * rc + c;
    }
    c = a * c + c;
    a = a * a;
  }
  return ra * 1u + rc;
}

constexpr int kBig = 4 << 20;  // ints: 16 MiB buffers
constexpr size_t kItems = 1024;
constexpr size_t kLocal = 64;

class Ordering : public ::testing::TestWithParam<bool> {
 protected:
  bool OutOfOrder() const { return GetParam(); }

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
    cl_int err = CL_SUCCESS;
    cl_queue_properties props[] = {
        CL_QUEUE_PROPERTIES,
        OutOfOrder() ? cl_queue_properties(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) : 0, 0};
    q_ = clCreateCommandQueueWithProperties(ctx_, device_, props, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    prog_ = Build(ctx_, device_, kOrderSource);
    tail_ = hkCreateKernel(prog_, "tail", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    scale_ = hkCreateKernel(prog_, "scale", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    stamp_ = hkCreateKernel(prog_, "stamp_tail", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    fill_ = hkCreateKernel(prog_, "fill", &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (q_) hkFinish(q_);
    if (other_) {
      hkFinish(other_);
      hkReleaseCommandQueue(other_);
    }
    for (cl_kernel k : {tail_, scale_, stamp_, fill_})
      if (k) hkReleaseKernel(k);
    if (prog_) hkReleaseProgram(prog_);
    if (q_) hkReleaseCommandQueue(q_);
    if (ctx_) hkReleaseContext(ctx_);
  }

  cl_mem NewBuffer(size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem m = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    return m;
  }

  // A second in-order queue made through hostkernel, for the tests across queues; released
  // by TearDown once its commands are done.
  cl_command_queue OtherQueue() {
    cl_int err = CL_SUCCESS;
    other_ = hkCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    return other_;
  }

  // A wait list for the out-of-order queue; an in-order queue gets none (implicit order).
  struct WaitList {
    std::vector<cl_event> events;
    cl_uint count() const { return cl_uint(events.size()); }
    const cl_event *data() const { return events.empty() ? nullptr : events.data(); }
  };
  WaitList Deps(std::initializer_list<cl_event> events) const {
    WaitList w;
    if (OutOfOrder())
      for (cl_event e : events)
        if (e) w.events.push_back(e);
    return w;
  }

  // A wait list for either queue: an event of another queue, which the queue's own order
  // does not cover.
  static WaitList Always(std::initializer_list<cl_event> events) { return {events}; }

  void Launch(cl_kernel k, std::initializer_list<std::pair<size_t, const void *>> args,
              const WaitList &wait, cl_event *event) {
    cl_uint i = 0;
    for (const auto &a : args) ASSERT_EQ(hkSetKernelArg(k, i++, a.first, a.second), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(q_, k, 1, nullptr, &kItems, &kLocal, wait.count(),
                                     wait.data(), event),
              CL_SUCCESS);
  }

  // Completes `gate` (unless a watchdog did already), waits for `launched`, and reads
  // kItems ints of `dst`.
  std::vector<int> OpenGateAndRead(cl_event gate, cl_event launched, cl_mem dst) {
    clSetUserEventStatus(gate, CL_COMPLETE);  // CL_INVALID_OPERATION if the watchdog did it
    EXPECT_EQ(hkWaitForEvents(1, &launched), CL_SUCCESS);
    std::vector<int> out(kItems);
    EXPECT_EQ(hkEnqueueReadBuffer(q_, dst, CL_TRUE, 0, kItems * sizeof(int), out.data(), 0,
                                  nullptr, nullptr),
              CL_SUCCESS);
    return out;
  }

  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue q_ = nullptr;
  cl_command_queue other_ = nullptr;  // OtherQueue()
  cl_program prog_ = nullptr;
  cl_kernel tail_ = nullptr, scale_ = nullptr, stamp_ = nullptr, fill_ = nullptr;
};

TEST_P(Ordering, DirectLaunchesOrderWithWriteCopyMapAndReadCommands) {
  const size_t big = size_t(kBig) * sizeof(int);
  cl_mem src = NewBuffer(big), mid = NewBuffer(big), dst = NewBuffer(kItems * sizeof(int)),
         dst2 = NewBuffer(kItems * sizeof(int)), out3 = NewBuffer(kItems * sizeof(int));
  std::vector<int> h(kBig), hsnap(kBig);
  int n = kBig;
  constexpr int kRounds = 8;
  for (int r = 0; r < kRounds; ++r) {
    SCOPED_TRACE("round " + std::to_string(r));
    for (int j = 0; j < kBig; ++j) h[j] = r * 1000003 + j;
    const hk_launch_counts before[3] = {CountsSoFar(tail_), CountsSoFar(scale_),
                                        CountsSoFar(stamp_)};
    // Odd rounds: the write cannot start before another thread completes a user event.
    // Launches behind it may wait for it or go to PoCL's queue; in even rounds (nothing
    // gated) every launch must run directly.
    cl_event gate = nullptr;
    if (r % 2 == 1) {
      cl_int err = CL_SUCCESS;
      gate = clCreateUserEvent(ctx_, &err);
      ASSERT_EQ(err, CL_SUCCESS);
    }
    cl_event ev_w = nullptr, ev_k = nullptr, ev_c = nullptr, ev_k2 = nullptr, ev_m = nullptr,
             ev_u = nullptr, ev_k3 = nullptr, ev_r = nullptr, ev_s = nullptr;
    {
      std::unique_ptr<DelayedCompletion> completer;
      ASSERT_EQ(hkEnqueueWriteBuffer(q_, src, CL_FALSE, 0, big, h.data(), gate ? 1 : 0,
                                     gate ? &gate : nullptr, &ev_w),
                CL_SUCCESS);
      if (gate)
        completer = std::make_unique<DelayedCompletion>(gate, std::chrono::milliseconds(40));
      // 1. dst[i] = src[n-1-i] + r: must see the write.
      int add = r;
      Launch(tail_, {{sizeof(cl_mem), &src}, {sizeof(cl_mem), &dst}, {sizeof n, &n},
                     {sizeof add, &add}},
             Deps({ev_w}), &ev_k);
      if (HasFatalFailure()) return;
    }
    // 2. copy src -> mid (non-blocking), then dst2[i] = mid[n-1-i] + r + 1.
    ASSERT_EQ(hkEnqueueCopyBuffer(q_, src, mid, 0, 0, big, Deps({ev_w}).count(),
                                  Deps({ev_w}).data(), &ev_c),
              CL_SUCCESS);
    int add2 = r + 1;
    Launch(tail_, {{sizeof(cl_mem), &mid}, {sizeof(cl_mem), &dst2}, {sizeof n, &n},
                   {sizeof add2, &add2}},
           Deps({ev_c}), &ev_k2);
    if (HasFatalFailure()) return;
    // 3. map dst2 (non-blocking), check and double it through the map, unmap
    //    (non-blocking), then out3 = dst2 * 3.
    cl_int err = CL_SUCCESS;
    WaitList wm = Deps({ev_k2});
    int *p = static_cast<int *>(hkEnqueueMapBuffer(q_, dst2, CL_FALSE,
                                                   CL_MAP_READ | CL_MAP_WRITE, 0,
                                                   kItems * sizeof(int), wm.count(), wm.data(),
                                                   &ev_m, &err));
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(hkWaitForEvents(1, &ev_m), CL_SUCCESS);
    for (size_t i = 0; i < kItems; ++i) {
      ASSERT_EQ(p[i], h[kBig - 1 - i] + r + 1) << "mapped dst2[" << i << "]";
      p[i] *= 2;
    }
    ASSERT_EQ(hkEnqueueUnmapMemObject(q_, dst2, p, 0, nullptr, &ev_u), CL_SUCCESS);
    int m = 3;
    Launch(scale_, {{sizeof(cl_mem), &dst2}, {sizeof(cl_mem), &out3}, {sizeof m, &m}},
           Deps({ev_u}), &ev_k3);
    if (HasFatalFailure()) return;
    // 4. write-after-read: a non-blocking read of all of src, then a launch that
    //    overwrites src's tail; the read must return the values from before the launch.
    WaitList wr = Deps({ev_w});
    ASSERT_EQ(hkEnqueueReadBuffer(q_, src, CL_FALSE, 0, big, hsnap.data(), wr.count(),
                                  wr.data(), &ev_r),
              CL_SUCCESS);
    int stamp = -1000 * (r + 1);
    Launch(stamp_, {{sizeof(cl_mem), &src}, {sizeof n, &n}, {sizeof stamp, &stamp}},
           Deps({ev_r, ev_c, ev_k}), &ev_s);
    if (HasFatalFailure()) return;
    // 5. read the results back (non-blocking, after the launches' events) and check.
    std::vector<int> hdst(kItems), hout3(kItems), htail(kItems);
    cl_event reads[3] = {};
    WaitList w1 = Deps({ev_k}), w3 = Deps({ev_k3}), ws = Deps({ev_s});
    ASSERT_EQ(hkEnqueueReadBuffer(q_, dst, CL_FALSE, 0, kItems * sizeof(int), hdst.data(),
                                  w1.count(), w1.data(), &reads[0]),
              CL_SUCCESS);
    ASSERT_EQ(hkEnqueueReadBuffer(q_, out3, CL_FALSE, 0, kItems * sizeof(int), hout3.data(),
                                  w3.count(), w3.data(), &reads[1]),
              CL_SUCCESS);
    ASSERT_EQ(hkEnqueueReadBuffer(q_, src, CL_FALSE, (kBig - kItems) * sizeof(int),
                                  kItems * sizeof(int), htail.data(), ws.count(), ws.data(),
                                  &reads[2]),
              CL_SUCCESS);
    ASSERT_EQ(hkWaitForEvents(3, reads), CL_SUCCESS);
    ASSERT_EQ(hkWaitForEvents(1, &ev_r), CL_SUCCESS);
    for (size_t i = 0; i < kItems; ++i) {
      ASSERT_EQ(hdst[i], h[kBig - 1 - i] + r) << "launch 1 ran before the write finished, i=" << i;
      ASSERT_EQ(hout3[i], (h[kBig - 1 - i] + r + 1) * 2 * 3)
          << "launch after copy/map/unmap saw old data, i=" << i;
      // htail[j] holds src[kBig - kItems + j] == stamp + (kItems - 1 - j)
      ASSERT_EQ(htail[kItems - 1 - i], stamp + int(i)) << "stamp_tail result, i=" << i;
    }
    for (int j = kBig - int(kItems); j < kBig; ++j)
      ASSERT_EQ(hsnap[j], h[j]) << "a launch overwrote src before an earlier read finished, j="
                                << j;
    ASSERT_EQ(hkFinish(q_), CL_SUCCESS);
    for (cl_event e : {ev_w, ev_k, ev_c, ev_k2, ev_m, ev_u, ev_k3, ev_r, ev_s, reads[0],
                       reads[1], reads[2], gate})
      if (e) hkReleaseEvent(e);
    if (!gate) {
      const cl_kernel kernels[3] = {tail_, scale_, stamp_};
      const cl_ulong launches[3] = {2, 1, 1};
      for (int i = 0; i < 3; ++i) {
        hk_launch_counts c = Counts(kernels[i]);
        // Direct (inline or team), except a launch whose wait list was still running after
        // hostkernel's bounded wait (a loaded machine): that one goes to PoCL's queue with
        // reason USER_EVENT. Which one happens depends on timing; the results above do not.
        const cl_ulong direct = c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM] -
                                before[i].by_path[HK_PATH_INLINE] -
                                before[i].by_path[HK_PATH_TEAM];
        const cl_ulong queued = c.by_path[HK_PATH_QUEUE] - before[i].by_path[HK_PATH_QUEUE];
        const cl_ulong waited = c.by_reason[HK_REASON_USER_EVENT] -
                                before[i].by_reason[HK_REASON_USER_EVENT];
        EXPECT_EQ(direct + queued, launches[i]) << "kernel " << i << ": " << Describe(c);
        EXPECT_EQ(queued, waited)
            << "kernel " << i << ": " << Describe(c);
      }
    }
  }
  for (cl_mem b : {src, mid, dst, dst2, out3}) hkReleaseMemObject(b);
}

// A launch whose wait list holds an incomplete user event cannot run now, and must not
// block (the application completes the event after the enqueue returns): it goes to PoCL's
// queue and runs when the event completes.
TEST_P(Ordering, UserEventInWaitListSendsLaunchToQueue) {
  cl_mem out = NewBuffer(kItems * sizeof(int));
  cl_int err = CL_SUCCESS;
  cl_event user = clCreateUserEvent(ctx_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  int v = 77;
  cl_event ev = nullptr;
  {
    Watchdog watchdog(user, std::chrono::milliseconds(3000));
    ASSERT_EQ(hkSetKernelArg(fill_, 0, sizeof(cl_mem), &out), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(fill_, 1, sizeof v, &v), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(q_, fill_, 1, nullptr, &kItems, &kLocal, 1, &user, &ev),
              CL_SUCCESS);
    ASSERT_TRUE(watchdog.ReturnedInTime())
        << "hkEnqueueNDRangeKernel blocked on an incomplete user event (an application "
           "would deadlock)";
  }
  ASSERT_NE(ev, nullptr);
  EXPECT_NE(Status(ev), CL_COMPLETE) << "the launch completed before its user event";
  hk_launch_counts c = Counts(fill_);
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 1u) << Describe(c);
  EXPECT_EQ(c.by_reason[HK_REASON_USER_EVENT], 1u) << Describe(c);
  ASSERT_EQ(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
  ASSERT_EQ(hkWaitForEvents(1, &ev), CL_SUCCESS);
  EXPECT_EQ(Status(ev), CL_COMPLETE);
  std::vector<int> host(kItems);
  ASSERT_EQ(hkEnqueueReadBuffer(q_, out, CL_TRUE, 0, kItems * sizeof(int), host.data(), 0,
                                nullptr, nullptr),
            CL_SUCCESS);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(host[i], v + int(i)) << "element " << i;
  // With the event complete, the same launch runs directly again.
  v = 78;
  ASSERT_EQ(hkSetKernelArg(fill_, 1, sizeof v, &v), CL_SUCCESS);
  cl_event ev2 = nullptr;
  ASSERT_EQ(hkEnqueueNDRangeKernel(q_, fill_, 1, nullptr, &kItems, &kLocal, 1, &user, &ev2),
            CL_SUCCESS);
  WaitList after = Deps({ev2});
  ASSERT_EQ(hkEnqueueReadBuffer(q_, out, CL_TRUE, 0, kItems * sizeof(int), host.data(),
                                after.count(), after.data(), nullptr),
            CL_SUCCESS);
  hkReleaseEvent(ev2);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(host[i], v + int(i)) << "element " << i;
  c = Counts(fill_);
  EXPECT_EQ(Direct(c), 1u) << Describe(c);
  hkReleaseEvent(ev);
  hkReleaseEvent(user);
  hkReleaseMemObject(out);
}

// The same, one step removed: the launch depends (in-order: implicitly; out-of-order:
// through the wait list) on PoCL commands that wait for an incomplete user event: a write,
// and a launch that went to the queue. Waiting for them on the calling thread would
// deadlock an application that completes the user event after enqueueing everything.
TEST_P(Ordering, LaunchBehindCommandsGatedByUserEventDoesNotBlock) {
  const size_t big = size_t(kBig) * sizeof(int);
  cl_mem src = NewBuffer(big), dst = NewBuffer(kItems * sizeof(int)),
         out = NewBuffer(kItems * sizeof(int)), out2 = NewBuffer(kItems * sizeof(int));
  std::vector<int> h(kBig);
  for (int j = 0; j < kBig; ++j) h[j] = 3 * j + 1;
  cl_int err = CL_SUCCESS;
  cl_event user = clCreateUserEvent(ctx_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_event ev_w = nullptr, ev_k = nullptr, ev_f = nullptr, ev_s = nullptr;
  int n = kBig, add = 5, v = 40, m = 2;
  {
    Watchdog watchdog(user, std::chrono::milliseconds(3000));
    ASSERT_EQ(hkEnqueueWriteBuffer(q_, src, CL_FALSE, 0, big, h.data(), 1, &user, &ev_w),
              CL_SUCCESS);
    // Depends on the gated write.
    Launch(tail_, {{sizeof(cl_mem), &src}, {sizeof(cl_mem), &dst}, {sizeof n, &n},
                   {sizeof add, &add}},
           Deps({ev_w}), &ev_k);
    // Goes to the queue (user event in its own wait list) ...
    ASSERT_EQ(hkSetKernelArg(fill_, 0, sizeof(cl_mem), &out), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(fill_, 1, sizeof v, &v), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(q_, fill_, 1, nullptr, &kItems, &kLocal, 1, &user, &ev_f),
              CL_SUCCESS);
    // ... and this one reads its output.
    Launch(scale_, {{sizeof(cl_mem), &out}, {sizeof(cl_mem), &out2}, {sizeof m, &m}},
           Deps({ev_f}), &ev_s);
    EXPECT_TRUE(watchdog.ReturnedInTime())
        << "a launch blocked on PoCL commands gated by an incomplete user event (an "
           "application that completes the event after enqueueing would deadlock)";
  }
  clSetUserEventStatus(user, CL_COMPLETE);  // CL_INVALID_OPERATION if the watchdog did it
  cl_event all[4] = {ev_w, ev_k, ev_f, ev_s};
  ASSERT_EQ(hkWaitForEvents(4, all), CL_SUCCESS);
  std::vector<int> hdst(kItems), hout2(kItems);
  ASSERT_EQ(hkEnqueueReadBuffer(q_, dst, CL_TRUE, 0, kItems * sizeof(int), hdst.data(), 0,
                                nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkEnqueueReadBuffer(q_, out2, CL_TRUE, 0, kItems * sizeof(int), hout2.data(), 0,
                                nullptr, nullptr),
            CL_SUCCESS);
  for (size_t i = 0; i < kItems; ++i) {
    ASSERT_EQ(hdst[i], h[kBig - 1 - i] + add) << "launch ran before the gated write, i=" << i;
    ASSERT_EQ(hout2[i], (v + int(i)) * m) << "launch ran before the queued launch, i=" << i;
  }
  for (cl_event e : all) hkReleaseEvent(e);
  hkReleaseEvent(user);
  for (cl_mem b : {src, dst, out, out2}) hkReleaseMemObject(b);
}

// A wait-list event may belong to another queue, whose PoCL commands draining this queue
// does not cover: the launch must wait for the event itself. The write on the other queue
// is gated on a user event completed by another thread 40 ms later, so a launch that does
// not wait reads old data.
TEST_P(Ordering, LaunchWaitsForEventsOfAnotherQueue) {
  const size_t big = size_t(kBig) * sizeof(int);
  cl_int err = CL_SUCCESS;
  cl_command_queue other = OtherQueue();
  ASSERT_NE(other, nullptr);
  cl_mem src = NewBuffer(big), dst = NewBuffer(kItems * sizeof(int));
  std::vector<int> h(kBig);
  int n = kBig;
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    for (int j = 0; j < kBig; ++j) h[j] = round * 7919 + j;
    cl_event gate = clCreateUserEvent(ctx_, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_event written = nullptr, launched = nullptr;
    ASSERT_EQ(hkEnqueueWriteBuffer(other, src, CL_FALSE, 0, big, h.data(), 1, &gate, &written),
              CL_SUCCESS);
    int add = round;
    {
      // Completed late, from another thread: the launch may block until then, or go to
      // PoCL's queue, but must not run before the write.
      DelayedCompletion completer(gate, std::chrono::milliseconds(40));
      ASSERT_NO_FATAL_FAILURE(Launch(tail_, {{sizeof(cl_mem), &src}, {sizeof(cl_mem), &dst},
                                             {sizeof n, &n}, {sizeof add, &add}},
                                     Always({written}), &launched));
    }
    std::vector<int> out(kItems);
    WaitList after = Deps({launched});
    ASSERT_EQ(hkEnqueueReadBuffer(q_, dst, CL_TRUE, 0, kItems * sizeof(int), out.data(),
                                  after.count(), after.data(), nullptr),
              CL_SUCCESS);
    for (size_t i = 0; i < kItems; ++i)
      ASSERT_EQ(out[i], h[kBig - 1 - i] + add) << "the launch ran before the write, i=" << i;
    ASSERT_EQ(hkFinish(other), CL_SUCCESS);
    hkReleaseEvent(written);
    hkReleaseEvent(launched);
    hkReleaseEvent(gate);
  }
  for (cl_mem b : {src, dst}) hkReleaseMemObject(b);
}

// As LaunchBehindCommandsGatedByUserEventDoesNotBlock, across queues: the wait list holds
// the event of a write on another queue that waits for an incomplete user event.
TEST_P(Ordering, LaunchWaitingOnAnotherQueuesGatedCommandDoesNotBlock) {
  const size_t big = size_t(kBig) * sizeof(int);
  cl_int err = CL_SUCCESS;
  cl_command_queue other = OtherQueue();
  ASSERT_NE(other, nullptr);
  cl_mem src = NewBuffer(big), dst = NewBuffer(kItems * sizeof(int));
  std::vector<int> h(kBig);
  for (int j = 0; j < kBig; ++j) h[j] = 5 * j - 3;
  cl_event gate = clCreateUserEvent(ctx_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_event written = nullptr, launched = nullptr;
  int n = kBig, add = 11;
  {
    Watchdog watchdog(gate, std::chrono::milliseconds(3000));
    ASSERT_EQ(hkEnqueueWriteBuffer(other, src, CL_FALSE, 0, big, h.data(), 1, &gate, &written),
              CL_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(Launch(tail_, {{sizeof(cl_mem), &src}, {sizeof(cl_mem), &dst},
                                           {sizeof n, &n}, {sizeof add, &add}},
                                   Always({written}), &launched));
    EXPECT_TRUE(watchdog.ReturnedInTime())
        << "a launch blocked on another queue's command gated by an incomplete user event "
           "(an application that completes the event after enqueueing would deadlock)";
  }
  const std::vector<int> out = OpenGateAndRead(gate, launched, dst);
  for (size_t i = 0; i < kItems; ++i)
    ASSERT_EQ(out[i], h[kBig - 1 - i] + add) << "the launch ran before the write, i=" << i;
  hkFinish(other);
  for (cl_event e : {written, launched, gate}) hkReleaseEvent(e);
  for (cl_mem b : {src, dst}) hkReleaseMemObject(b);
}

// One step further: this queue holds a PoCL command (a copy) that waits for a write on
// another queue, and the write waits for an incomplete user event. A launch with no wait
// list of its own must not wait for this queue's commands (that would deadlock an
// application that completes the event after enqueueing): it goes to PoCL's queue, after
// the copy.
TEST_P(Ordering, LaunchBehindCommandWaitingOnAnotherQueuesGatedCommandDoesNotBlock) {
  cl_int err = CL_SUCCESS;
  cl_command_queue other = OtherQueue();
  ASSERT_NE(other, nullptr);
  cl_mem src = NewBuffer(kItems * sizeof(int)), mid = NewBuffer(kItems * sizeof(int)),
         dst = NewBuffer(kItems * sizeof(int));
  std::vector<int> h(kItems);
  for (size_t j = 0; j < kItems; ++j) h[j] = 7 * int(j) + 2;
  cl_event gate = clCreateUserEvent(ctx_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_event written = nullptr, copied = nullptr, launched = nullptr;
  int m = 5;
  {
    Watchdog watchdog(gate, std::chrono::milliseconds(3000));
    ASSERT_EQ(hkEnqueueWriteBuffer(other, src, CL_FALSE, 0, kItems * sizeof(int), h.data(), 1,
                                   &gate, &written),
              CL_SUCCESS);
    ASSERT_EQ(hkEnqueueCopyBuffer(q_, src, mid, 0, 0, kItems * sizeof(int), 1, &written,
                                  &copied),
              CL_SUCCESS);
    Launch(scale_, {{sizeof(cl_mem), &mid}, {sizeof(cl_mem), &dst}, {sizeof m, &m}},
           Deps({copied}), &launched);
    EXPECT_TRUE(watchdog.ReturnedInTime())
        << "a launch blocked on a command waiting for another queue's command gated by an "
           "incomplete user event (an application that completes the event after "
           "enqueueing would deadlock)";
  }
  const std::vector<int> out = OpenGateAndRead(gate, launched, dst);
  for (size_t i = 0; i < kItems; ++i)
    ASSERT_EQ(out[i], h[i] * m) << "the launch ran before the copy, i=" << i;
  hkFinish(other);
  for (cl_event e : {written, copied, launched, gate}) hkReleaseEvent(e);
  for (cl_mem b : {src, mid, dst}) hkReleaseMemObject(b);
}

// A wait-list event of a PoCL command that runs for a long time (here a kernel of a few
// hundred ms on another queue, launched through PoCL itself): the command is submitted,
// so it will finish; the launch waits for it and still runs directly, after it.
TEST_P(Ordering, LaunchWaitsForLongRunningCommandAndRunsDirectly) {
  cl_int err = CL_SUCCESS;
  cl_command_queue other = clCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_kernel spin = clCreateKernel(prog_, "spin", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem in = NewBuffer(kItems * sizeof(int)), out = NewBuffer(kItems * sizeof(int));
  const cl_uint steps = 1u << 28;
  const int n = int(kItems);
  ASSERT_EQ(clSetKernelArg(spin, 0, sizeof(cl_mem), &in), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(spin, 1, sizeof steps, &steps), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(spin, 2, sizeof n, &n), CL_SUCCESS);
  const size_t one = 1;
  cl_event spun = nullptr, scaled = nullptr;
  const auto t0 = Clock::now();
  ASSERT_EQ(clEnqueueNDRangeKernel(other, spin, 1, nullptr, &one, &one, 0, nullptr, &spun),
            CL_SUCCESS);
  const hk_launch_counts before = CountsSoFar(scale_);
  int m = 3;
  ASSERT_EQ(hkSetKernelArg(scale_, 0, sizeof(cl_mem), &in), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(scale_, 1, sizeof(cl_mem), &out), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(scale_, 2, sizeof m, &m), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueNDRangeKernel(q_, scale_, 1, nullptr, &kItems, &kLocal, 1, &spun, &scaled),
            CL_SUCCESS);
  const double waited_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_EQ(Status(scaled), CL_COMPLETE) << "a direct launch's event is complete on return";
  const hk_launch_counts c = Counts(scale_);
  EXPECT_EQ(Direct(c) - Direct(before), 1u)
      << Describe(c) << " (the spin kernel took ~" << waited_ms << " ms)";
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], before.by_path[HK_PATH_QUEUE]) << Describe(c);
  std::vector<std::uint32_t> host(kItems);
  ASSERT_EQ(hkEnqueueReadBuffer(q_, out, CL_TRUE, 0, kItems * sizeof(int), host.data(), 0,
                                nullptr, nullptr),
            CL_SUCCESS);
  const std::uint32_t x = SpinValue(steps);
  for (size_t i = 0; i < kItems; ++i)
    ASSERT_EQ(host[i], (x + std::uint32_t(i)) * 3u) << "the launch ran before the spin, i=" << i;
  for (cl_event e : {spun, scaled}) hkReleaseEvent(e);
  clReleaseKernel(spin);
  for (cl_mem b : {in, out}) hkReleaseMemObject(b);
  hkReleaseCommandQueue(other);
}

TEST_P(Ordering, DirectLaunchReturnsCompleteEvent) {
  cl_mem out = NewBuffer(kItems * sizeof(int));
  int v = 9;
  cl_event ev = nullptr;
  Launch(fill_, {{sizeof(cl_mem), &out}, {sizeof v, &v}}, WaitList{}, &ev);
  ASSERT_NE(ev, nullptr);
  EXPECT_EQ(Status(ev), CL_COMPLETE) << "event of a direct launch not complete on return";
  hk_launch_counts c = Counts(fill_);
  EXPECT_EQ(Direct(c), 1u) << Describe(c);
  cl_context ectx = nullptr;
  ASSERT_EQ(hkGetEventInfo(ev, CL_EVENT_CONTEXT, sizeof ectx, &ectx, nullptr), CL_SUCCESS);
  EXPECT_EQ(ectx, ctx_);
  // The event describes the launch (asked through hkGetEventInfo, as replace.h maps
  // clGetEventInfo): its queue and command type, as PoCL's would.
  cl_command_queue eq = nullptr;
  ASSERT_EQ(hkGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, nullptr), CL_SUCCESS);
  EXPECT_EQ(eq, q_) << "CL_EVENT_COMMAND_QUEUE of a direct launch's event";
  cl_command_type type = 0;
  ASSERT_EQ(hkGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(type, cl_command_type(CL_COMMAND_NDRANGE_KERNEL))
      << "CL_EVENT_COMMAND_TYPE of a direct launch's event";
  // Usable in a wait list, on this queue and on another one.
  cl_int err = CL_SUCCESS;
  cl_command_queue other = clCreateCommandQueueWithProperties(ctx_, device_, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<int> host(kItems, 0);
  ASSERT_EQ(hkEnqueueReadBuffer(other, out, CL_TRUE, 0, kItems * sizeof(int), host.data(), 1,
                                &ev, nullptr),
            CL_SUCCESS);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(host[i], v + int(i)) << "element " << i;
  ASSERT_EQ(hkWaitForEvents(1, &ev), CL_SUCCESS);
  // A second launch waiting on the first one's event still runs directly.
  v = 10;
  cl_event ev2 = nullptr;
  Launch(fill_, {{sizeof(cl_mem), &out}, {sizeof v, &v}}, Deps({ev}), &ev2);
  EXPECT_EQ(Status(ev2), CL_COMPLETE);
  c = Counts(fill_);
  EXPECT_EQ(Direct(c), 2u) << Describe(c);
  ASSERT_EQ(hkReleaseEvent(ev), CL_SUCCESS);
  ASSERT_EQ(hkReleaseEvent(ev2), CL_SUCCESS);
  hkReleaseCommandQueue(other);
  hkReleaseMemObject(out);
}

// Applications time kernels with profiling events (clpeak does): a direct launch's event
// on a profiling queue must carry ordered timestamps.
TEST_P(Ordering, DirectLaunchEventOnProfilingQueueHasTimestamps) {
  cl_int err = CL_SUCCESS;
  cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES,
      cl_queue_properties(CL_QUEUE_PROFILING_ENABLE |
                          (OutOfOrder() ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0)),
      0};
  cl_command_queue pq = clCreateCommandQueueWithProperties(ctx_, device_, props, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem out = NewBuffer(kItems * sizeof(int));
  int v = 1;
  ASSERT_EQ(hkSetKernelArg(fill_, 0, sizeof(cl_mem), &out), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(fill_, 1, sizeof v, &v), CL_SUCCESS);
  cl_event ev = nullptr;
  ASSERT_EQ(hkEnqueueNDRangeKernel(pq, fill_, 1, nullptr, &kItems, &kLocal, 0, nullptr, &ev),
            CL_SUCCESS);
  EXPECT_EQ(Direct(Counts(fill_)), 1u) << Describe(Counts(fill_));
  cl_ulong t[kProfilingTimestamps];
  ReadOrderedTimestamps(ev, t);
  hkReleaseEvent(ev);
  hkReleaseMemObject(out);
  hkReleaseCommandQueue(pq);
}

INSTANTIATE_TEST_SUITE_P(Queues, Ordering, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? std::string("OutOfOrder")
                                             : std::string("InOrder");
                         });

}  // namespace
