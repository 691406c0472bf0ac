// Launches in the background (src/queue/background.hpp): a direct launch of a kernel whose
// launches take long returns before its work-groups have run, and whatever must come
// after it waits for it. Each test launches a kernel that takes about a millisecond on a
// buffer over the test's own memory (CL_MEM_USE_HOST_PTR), so that it can look at the
// memory without an OpenCL command: the launch is complete exactly when every element
// holds its final value. The kernel's first launches teach hostkernel how long it takes;
// HK_KERNEL_LAUNCHES_IN_BACKGROUND says that the launches under test ran in the
// background.
#include <hostkernel/hostkernel.h>

#include <dirent.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>
#include "support/pocl_context.hpp"
#include "support/slow_fill_kernel.hpp"

namespace {

// slow_fill (support/slow_fill_kernel.hpp), and a kernel that takes no time.
const char *kQuickFillSource = R"CLC(
kernel void quick_fill(global int *out, int value) { out[get_global_id(0)] = value; }
)CLC";

constexpr size_t kItems = 64;
constexpr int kRounds = 200000;  // about a millisecond for the 64 work-items

bool Filled(const int *p, int value) {
  for (size_t i = 0; i < kItems; ++i)
    if (p[i] != value + static_cast<int>(i)) return false;
  return true;
}

// The caller's CPU time (CLOCK_THREAD_CPUTIME_ID): what the thread ran, whatever the
// machine's load did to its wall time.
std::chrono::nanoseconds ThreadCpu() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

cl_ulong InBackground(cl_kernel k) {
  cl_ulong n = 0;
  EXPECT_EQ(hkGetKernelLaunchInfo(k, HK_KERNEL_LAUNCHES_IN_BACKGROUND, sizeof n, &n, nullptr),
            CL_SUCCESS);
  return n;
}

// The caller's own work between a launch and the command that needs it: half the kernel's
// duration, long enough that hostkernel sees the launch overlap a good part of itself
// (queue/background.cpp, kMinGapNs: a caller that needs the result within a quarter of
// it gains too little), shorter than the launch.
std::chrono::nanoseconds g_own_work{50'000};
void OwnWork() { std::this_thread::sleep_for(g_own_work); }

class Background : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device, &ctx));
    const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    q = hkCreateCommandQueueWithProperties(ctx, device, props, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    const char *sources[] = {kSlowFillSource, kQuickFillSource};
    program = hkCreateProgramWithSource(ctx, 2, sources, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(hkBuildProgram(program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
    kernel = hkCreateKernel(program, "slow_fill", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    memory = Memory();
    out = hkCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, kItems * sizeof(int), memory, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(kernel, 1, sizeof kRounds, &kRounds), CL_SUCCESS);
    const cl_uint mask = 0;
    ASSERT_EQ(hkSetKernelArg(kernel, 3, sizeof mask, &mask), CL_SUCCESS);
    // Launches that teach hostkernel the kernel's duration (and the test: g_own_work);
    // each waited for.
    for (int i = 0; i < 3; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      Launch(-1);
      ASSERT_EQ(hkFinish(q), CL_SUCCESS);
      g_own_work = std::max<std::chrono::nanoseconds>(
          (std::chrono::steady_clock::now() - t0) / 2, std::chrono::microseconds(50));
    }
  }
  void TearDown() override {
    if (kernel) EXPECT_EQ(hkReleaseKernel(kernel), CL_SUCCESS);
    if (out) hkReleaseMemObject(out);
    if (program) hkReleaseProgram(program);
    if (q) hkReleaseCommandQueue(q);
    if (ctx) hkReleaseContext(ctx);
  }
  // The memory the buffer uses: the test's own, unless a test shares it with a child.
  virtual int *Memory() { return own.data(); }
  // The buffer's contents into `read`, by a blocking read on q; a failed read is fatal.
  void ReadOut(std::vector<int> &read) {
    read.assign(kItems, -7);
    ASSERT_EQ(hkEnqueueReadBuffer(q, out, CL_TRUE, 0, kItems * sizeof(int), read.data(), 0,
                                  nullptr, nullptr),
              CL_SUCCESS);
  }
  // Launches slow_fill with `value` (the kernel's argument set first), as one work-group:
  // a launch on one thread, whose background rules these tests are about (a team launch
  // has its own, ATeamLaunchWaitedForAtOnceIsPausedAfterOne).
  void Launch(int value, cl_event *event = nullptr, cl_command_queue queue = nullptr) {
    ASSERT_EQ(hkSetKernelArg(kernel, 2, sizeof value, &value), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(queue ? queue : q, kernel, 1, nullptr, &kItems, &kItems, 0,
                                     nullptr, event),
              CL_SUCCESS);
  }

  // A kernel object of slow_fill of its own over `items` work-items of its own memory
  // (`memory`, in `out`), its arguments set: `rounds` and `value`. Released by
  // ReleaseWide.
  struct Wide {
    cl_kernel kernel = nullptr;
    cl_mem out = nullptr;
    std::vector<int> memory;
  };
  void MakeWide(size_t items, int rounds, int value, Wide &w) {
    w.kernel = hkCreateKernel(program, "slow_fill", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    w.memory.assign(items, 0);
    w.out = hkCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, items * sizeof(int), w.memory.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    const cl_uint mask = 0;
    ASSERT_EQ(hkSetKernelArg(w.kernel, 0, sizeof w.out, &w.out), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(w.kernel, 1, sizeof rounds, &rounds), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(w.kernel, 2, sizeof value, &value), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(w.kernel, 3, sizeof mask, &mask), CL_SUCCESS);
  }
  // Checks that every element of `w` holds its value, then releases it.
  void ReleaseWide(Wide &w, int value) {
    for (size_t i = 0; i < w.memory.size(); ++i)
      EXPECT_EQ(w.memory[i], value + static_cast<int>(i)) << i;
    EXPECT_EQ(hkReleaseMemObject(w.out), CL_SUCCESS);
    EXPECT_EQ(hkReleaseKernel(w.kernel), CL_SUCCESS);
  }
  // The caller's CPU time around the team launches of the wide kernel, 16 groups of 16
  // of `rounds` each: `launches` enqueued back to back, then, once the background thread
  // has surely started the first it took, hkFinish. The first launch runs from the caller
  // (the kernel's duration is not known yet). Also the launches in the background and on
  // the team, and whether the last was complete before hkFinish (a release whose
  // kernel runs faster may finish it within the sleep: nothing is left to wait for).
  struct TeamWait {
    std::chrono::nanoseconds first_cpu{0}, wait_cpu{0};
    cl_ulong in_background = 0, on_team = 0;
    bool done_before_wait = false;
  };
  void LaunchWideAndFinish(int launches, int rounds, int value, TeamWait &t) {
    constexpr size_t kTeamItems = 16 * 16;
    constexpr size_t kLocal = 16;
    Wide w;
    ASSERT_NO_FATAL_FAILURE(MakeWide(kTeamItems, rounds, value, w));
    cl_event last = nullptr;
    for (int i = 0; i < launches; ++i) {
      const std::chrono::nanoseconds c0 = ThreadCpu();
      ASSERT_EQ(hkEnqueueNDRangeKernel(q, w.kernel, 1, nullptr, &kTeamItems, &kLocal, 0,
                                       nullptr, i + 1 == launches ? &last : nullptr),
                CL_SUCCESS);
      if (i == 0) t.first_cpu = ThreadCpu() - c0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    cl_int status = CL_QUEUED;
    EXPECT_EQ(hkGetEventInfo(last, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                             nullptr),
              CL_SUCCESS);
    t.done_before_wait = status == CL_COMPLETE;
    const std::chrono::nanoseconds c0 = ThreadCpu();
    ASSERT_EQ(hkFinish(q), CL_SUCCESS);
    t.wait_cpu = ThreadCpu() - c0;
    EXPECT_EQ(hkReleaseEvent(last), CL_SUCCESS);
    t.in_background = InBackground(w.kernel);
    EXPECT_EQ(hkGetKernelLaunchInfo(w.kernel, HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_TEAM),
                                    sizeof t.on_team, &t.on_team, nullptr),
              CL_SUCCESS);
    ReleaseWide(w, value);
  }

  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem out = nullptr;
  std::vector<int> own = std::vector<int>(kItems, 0);
  int *memory = nullptr;
  cl_int err = CL_SUCCESS;
};

TEST_F(Background, AReadAfterTheLaunchSeesItsResult) {
  const cl_ulong before = InBackground(kernel);
  for (int value = 0; value < 8; ++value) {
    SCOPED_TRACE(value);
    Launch(value * 1000);
    OwnWork();
    std::vector<int> read;
    ASSERT_NO_FATAL_FAILURE(ReadOut(read));
    EXPECT_TRUE(Filled(read.data(), value * 1000));
  }
  // Not all of them on a busy machine: a background thread that loses its CPU pauses the
  // kernel's background launches (queue/background.cpp, noteWaited).
  EXPECT_GE(InBackground(kernel) - before, 1u);
}

TEST_F(Background, ALaunchAfterTheLaunchComesAfterIt) {
  // A short launch of another kernel on the same buffer, right after: it must run after
  // the long one, so its value is the one left.
  cl_kernel quick = hkCreateKernel(program, "quick_fill", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const int value = 200;
  ASSERT_EQ(hkSetKernelArg(quick, 0, sizeof out, &out), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(quick, 1, sizeof value, &value), CL_SUCCESS);
  const cl_ulong before = InBackground(kernel);
  Launch(100);
  ASSERT_EQ(hkEnqueueNDRangeKernel(q, quick, 1, nullptr, &kItems, nullptr, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(memory[i], value) << i;
  EXPECT_EQ(InBackground(kernel) - before, 1u);
  EXPECT_EQ(hkReleaseKernel(quick), CL_SUCCESS);
}

// A caller that waits for each launch's event at once (clWaitForEvents) gains nothing
// from the background: the wait settles the launch, and after a few such waits the
// kernel's launches run before their calls return again.
TEST_F(Background, WaitingForItsEventAtOnceEndsItsBackgroundLaunches) {
  const cl_ulong before = InBackground(kernel);
  constexpr int kLaunches = 12;
  for (int value = 0; value < kLaunches; ++value) {
    SCOPED_TRACE(value);
    cl_event event = nullptr;
    Launch(value + 300, &event);
    ASSERT_NE(event, nullptr);
    ASSERT_EQ(hkWaitForEvents(1, &event), CL_SUCCESS);
    EXPECT_TRUE(Filled(memory, value + 300));
    EXPECT_EQ(hkReleaseEvent(event), CL_SUCCESS);
  }
  // 4 misses in a row pause them (queue/background.cpp, noteSettled); one more only if
  // the caller lost its CPU between an enqueue and its wait.
  EXPECT_LE(InBackground(kernel) - before, 5u);
}

TEST_F(Background, FinishWaitsForIt) {
  const cl_ulong before = InBackground(kernel);
  Launch(5);
  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  EXPECT_TRUE(Filled(memory, 5));
  EXPECT_EQ(InBackground(kernel) - before, 1u);
}

TEST_F(Background, ItsEventCompletesWhenItsWorkDoes) {
  cl_event e = nullptr;
  Launch(6, &e);
  ASSERT_NE(e, nullptr);
  cl_command_type type = 0;
  ASSERT_EQ(hkGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr), CL_SUCCESS);
  EXPECT_EQ(type, static_cast<cl_command_type>(CL_COMMAND_NDRANGE_KERNEL));
  cl_command_queue eq = nullptr;
  ASSERT_EQ(hkGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, nullptr), CL_SUCCESS);
  EXPECT_EQ(eq, q);
  ASSERT_EQ(hkWaitForEvents(1, &e), CL_SUCCESS);
  EXPECT_TRUE(Filled(memory, 6));
  cl_int status = 1;
  ASSERT_EQ(hkGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                           nullptr),
            CL_SUCCESS);
  EXPECT_EQ(status, CL_COMPLETE);
  cl_ulong queued = 0, start = 0, end = 0;
  ASSERT_EQ(hkGetEventProfilingInfo(e, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued,
                                    nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                    nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
            CL_SUCCESS);
  EXPECT_LE(queued, start);
  EXPECT_LT(start, end);  // the work-groups took about a millisecond
  EXPECT_EQ(hkReleaseEvent(e), CL_SUCCESS);
}

TEST_F(Background, ACommandOfAnotherQueueWaitsForItsEvent) {
  cl_command_queue other = hkCreateCommandQueue(ctx, device, 0, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_event e = nullptr;
  Launch(7, &e);
  std::vector<int> read(kItems, -7);
  // Not blocking: hostkernel or PoCL's queue must still order it after the launch.
  ASSERT_EQ(hkEnqueueReadBuffer(other, out, CL_FALSE, 0, kItems * sizeof(int), read.data(), 1,
                                &e, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkFinish(other), CL_SUCCESS);
  EXPECT_TRUE(Filled(read.data(), 7));
  EXPECT_EQ(hkReleaseEvent(e), CL_SUCCESS);
  EXPECT_EQ(hkReleaseCommandQueue(other), CL_SUCCESS);
}

TEST_F(Background, ALaunchOnAnotherQueueWaitsForItsEvent) {
  cl_command_queue other = hkCreateCommandQueue(ctx, device, 0, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_kernel copy = hkCreateKernel(program, "quick_fill", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<int> second(kItems, 0);
  cl_mem dst = hkCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, kItems * sizeof(int), second.data(),
                              &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const int marker = 9;
  ASSERT_EQ(hkSetKernelArg(copy, 0, sizeof dst, &dst), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(copy, 1, sizeof marker, &marker), CL_SUCCESS);
  cl_event e = nullptr;
  Launch(8, &e);
  ASSERT_EQ(hkEnqueueNDRangeKernel(other, copy, 1, nullptr, &kItems, nullptr, 1, &e, nullptr),
            CL_SUCCESS);
  // The second launch waited for the first: when it has run, so has the first.
  ASSERT_EQ(hkFinish(other), CL_SUCCESS);
  EXPECT_EQ(second[0], marker);
  EXPECT_TRUE(Filled(memory, 8));
  EXPECT_EQ(hkReleaseEvent(e), CL_SUCCESS);
  EXPECT_EQ(hkReleaseMemObject(dst), CL_SUCCESS);
  EXPECT_EQ(hkReleaseKernel(copy), CL_SUCCESS);
  EXPECT_EQ(hkReleaseCommandQueue(other), CL_SUCCESS);
}

// An event callback of the launch that reads on the launch's queue: it runs while the
// launch completes and comes after it, so it must neither wait for it nor see old data.
struct CallbackRead {
  cl_command_queue queue;
  cl_mem buffer;
  std::vector<int> data = std::vector<int>(kItems, -7);
  std::atomic<int> result{1};
};

// The callback: a blocking read of the buffer on the queue, its result in `result`.
void CL_CALLBACK ReadInCallback(cl_event, cl_int, void *user) {
  auto *r = static_cast<CallbackRead *>(user);
  r->result = hkEnqueueReadBuffer(r->queue, r->buffer, CL_TRUE, 0, kItems * sizeof(int),
                                  r->data.data(), 0, nullptr, nullptr);
}

TEST_F(Background, AnEventCallbackMayUseTheQueue) {
  CallbackRead read{q, out};
  cl_event e = nullptr;
  Launch(15, &e);
  ASSERT_EQ(clSetEventCallback(
                e, CL_COMPLETE,
                ReadInCallback,
                &read),
            CL_SUCCESS);
  ASSERT_EQ(hkWaitForEvents(1, &e), CL_SUCCESS);
  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  for (int i = 0; i < 2000 && read.result == 1; ++i)  // PoCL may call it on its own thread
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(read.result, CL_SUCCESS);
  EXPECT_TRUE(Filled(read.data.data(), 15));
  EXPECT_EQ(hkReleaseEvent(e), CL_SUCCESS);
}

// An event callback of the launch that forks: it runs on the thread that ran the launch,
// which lets go of the launch (its buffers) only after the callback, so the fork must not
// wait for that. Was a hang.
TEST_F(Background, AnEventCallbackMayFork) {
  std::atomic<int> child_exit{-1};
  cl_event e = nullptr;
  Launch(16, &e);
  ASSERT_EQ(clSetEventCallback(
                e, CL_COMPLETE,
                [](cl_event, cl_int, void *user) {
                  auto *exit_code = static_cast<std::atomic<int> *>(user);
                  const pid_t pid = fork();
                  if (pid == 0) std::_Exit(0);
                  int status = 0;
                  *exit_code = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)
                                   ? WEXITSTATUS(status)
                                   : 2;
                },
                &child_exit),
            CL_SUCCESS);
  ASSERT_EQ(hkWaitForEvents(1, &e), CL_SUCCESS);
  for (int i = 0; i < 2000 && child_exit == -1; ++i)  // PoCL may call it on its own thread
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(child_exit, 0);
  EXPECT_TRUE(Filled(memory, 16));
  EXPECT_EQ(hkReleaseEvent(e), CL_SUCCESS);
}

TEST_F(Background, SettingAnArgumentOfItsKernelLeavesItTheValueItWasGiven) {
  Launch(10);
  const int value = 11;
  ASSERT_EQ(hkSetKernelArg(kernel, 2, sizeof value, &value), CL_SUCCESS);
  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  EXPECT_TRUE(Filled(memory, 10));  // the launch ran with the value it was given
}

// More launches than may be in the background at once (kBackgroundDepth, 16), each with
// its own value, on one queue: each runs with its own arguments, in their order.
TEST_F(Background, ManyLaunchesInARowRunInTheirOrderWithTheirOwnArguments) {
  // 18 launches: few enough to leave the process's overlap trial (launch/overlap_trial.hpp)
  // in its warm-up, which BackgroundWithoutCpu below needs.
  constexpr int kLaunches = 6;
  std::vector<std::vector<int>> memories(kLaunches, std::vector<int>(kItems, -1));
  std::vector<cl_mem> buffers;
  for (auto &m : memories) {
    buffers.push_back(hkCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, kItems * sizeof(int), m.data(),
                                     &err));
    ASSERT_EQ(err, CL_SUCCESS);
  }
  const cl_ulong before = InBackground(kernel);
  for (int i = 0; i < kLaunches; ++i) {
    ASSERT_EQ(hkSetKernelArg(kernel, 0, sizeof(cl_mem), &buffers[i]), CL_SUCCESS);
    Launch(1000 * i);  // into its own buffer
    Launch(1000 * i + 7, nullptr);  // and again on the shared one: the last value stays
    ASSERT_EQ(hkSetKernelArg(kernel, 0, sizeof out, &out), CL_SUCCESS);
    Launch(1000 * i + 1);
  }
  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  for (int i = 0; i < kLaunches; ++i) EXPECT_TRUE(Filled(memories[i].data(), 1000 * i + 7)) << i;
  EXPECT_TRUE(Filled(memory, 1000 * (kLaunches - 1) + 1));
  EXPECT_GE(InBackground(kernel) - before, 1u);
  for (cl_mem b : buffers) EXPECT_EQ(hkReleaseMemObject(b), CL_SUCCESS);
}

// A kernel that runs until the host sets a flag (or for `max_rounds` rounds, at least
// `min_rounds`), then writes the flag it saw: a launch in the background that must still
// be running when the caller's next calls return, whatever this machine's speed. If one
// of those calls waited for it, it would see no flag (and take its max_rounds).
const char *kAwaitFlagSource = R"CLC(
kernel void await_flag(global volatile int *flag, global int *seen, int min_rounds,
                       int max_rounds) {
  int r = 0;
  while (r < max_rounds && (r < min_rounds || flag[0] == 0)) ++r;
  seen[get_global_id(0)] = flag[0];
}
)CLC";

class BackgroundInFlight : public Background {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Background::SetUp());
    awaiting_program = hkCreateProgramWithSource(ctx, 1, &kAwaitFlagSource, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(hkBuildProgram(awaiting_program, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
    awaiting = hkCreateKernel(awaiting_program, "await_flag", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    flag_buffer = hkCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, sizeof(int), &flag, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    for (int i = 0; i < 2; ++i) {
      seen_buffers[i] = hkCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, sizeof(int), &seen[i], &err);
      ASSERT_EQ(err, CL_SUCCESS);
    }
    const int min_rounds = 200000, max_rounds = 400'000'000;
    ASSERT_EQ(hkSetKernelArg(awaiting, 0, sizeof flag_buffer, &flag_buffer), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(awaiting, 2, sizeof min_rounds, &min_rounds), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(awaiting, 3, sizeof max_rounds, &max_rounds), CL_SUCCESS);
    // Launches with the flag set, each about as long as min_rounds: they teach hostkernel
    // that the kernel's launches take long.
    __atomic_store_n(&flag, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 3; ++i) {
      ASSERT_NO_FATAL_FAILURE(LaunchAwaiting(0));
      ASSERT_EQ(hkFinish(q), CL_SUCCESS);
    }
    __atomic_store_n(&flag, 0, __ATOMIC_SEQ_CST);
    seen[0] = seen[1] = -1;
  }
  void TearDown() override {
    __atomic_store_n(&flag, 1, __ATOMIC_SEQ_CST);  // nothing may still wait for it
    if (q) EXPECT_EQ(hkFinish(q), CL_SUCCESS);
    for (cl_mem b : seen_buffers)
      if (b) EXPECT_EQ(hkReleaseMemObject(b), CL_SUCCESS);
    if (flag_buffer) EXPECT_EQ(hkReleaseMemObject(flag_buffer), CL_SUCCESS);
    if (awaiting) EXPECT_EQ(hkReleaseKernel(awaiting), CL_SUCCESS);
    if (awaiting_program) EXPECT_EQ(hkReleaseProgram(awaiting_program), CL_SUCCESS);
    Background::TearDown();
  }
  // await_flag writing what it saw into seen[i].
  void LaunchAwaiting(int i, cl_uint nwait = 0, const cl_event *waits = nullptr,
                      cl_event *event = nullptr) {
    ASSERT_EQ(hkSetKernelArg(awaiting, 1, sizeof(cl_mem), &seen_buffers[i]), CL_SUCCESS);
    const size_t one = 1;
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, awaiting, 1, nullptr, &one, &one, nwait, waits, event),
              CL_SUCCESS);
  }
  // Both launches saw the flag, set after the second one's enqueue returned, and ran in
  // the background; else the calls in between waited for the first.
  void ExpectBothSawTheFlag(cl_ulong before) {
    __atomic_store_n(&flag, 1, __ATOMIC_SEQ_CST);
    ASSERT_EQ(hkFinish(q), CL_SUCCESS);
    if (InBackground(awaiting) - before < 2)
      GTEST_SKIP() << "a launch ran on its caller (the background paused on a busy machine)";
    EXPECT_EQ(seen[0], 1);
    EXPECT_EQ(seen[1], 1);
  }

  cl_program awaiting_program = nullptr;
  cl_kernel awaiting = nullptr;
  cl_mem flag_buffer = nullptr;
  cl_mem seen_buffers[2] = {nullptr, nullptr};
  int flag = 0;
  int seen[2] = {-1, -1};
};

// A program that sets its kernel's arguments and launches it again at once (PyOpenCL's
// array code) keeps both launches in the background: the second neither waits for the
// first nor changes its arguments.
TEST_F(BackgroundInFlight, ALaunchOfItsQueueAfterNewArgumentsDoesNotWaitForIt) {
  const cl_ulong before = InBackground(awaiting);
  ASSERT_NO_FATAL_FAILURE(LaunchAwaiting(0));
  ASSERT_NO_FATAL_FAILURE(LaunchAwaiting(1));
  ExpectBothSawTheFlag(before);
}

// Each command waits for the last one's event (PyOpenCL's shape): on the same in-order
// queue that is no reason to wait.
TEST_F(BackgroundInFlight, ALaunchOfItsQueueWaitingForItsEventDoesNotWaitForIt) {
  const cl_ulong before = InBackground(awaiting);
  cl_event first = nullptr, second = nullptr;
  ASSERT_NO_FATAL_FAILURE(LaunchAwaiting(0, 0, nullptr, &first));
  ASSERT_NO_FATAL_FAILURE(LaunchAwaiting(1, 1, &first, &second));
  ExpectBothSawTheFlag(before);
  cl_int status = 1;
  ASSERT_EQ(hkGetEventInfo(second, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                           nullptr),
            CL_SUCCESS);
  EXPECT_EQ(status, CL_COMPLETE);
  EXPECT_EQ(hkReleaseEvent(first), CL_SUCCESS);
  EXPECT_EQ(hkReleaseEvent(second), CL_SUCCESS);
}

// A callback registered through hostkernel on a launch's event while a later launch of
// its queue is pending: the callback's read must see the first launch's result and come
// after the second (settled at the registration).
TEST_F(Background, ACallbackRegisteredThroughHostkernelComesAfterTheQueuesLaunches) {
  cl_event e = nullptr;
  Launch(17, &e);
  Launch(18);
  CallbackRead read{q, out};
  ASSERT_EQ(hkSetEventCallback(e, CL_COMPLETE, ReadInCallback, &read), CL_SUCCESS);
  for (int i = 0; i < 2000 && read.result == 1; ++i)  // PoCL may call it on its own thread
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(read.result, CL_SUCCESS);
  EXPECT_TRUE(Filled(read.data.data(), 18));
  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  EXPECT_EQ(hkReleaseEvent(e), CL_SUCCESS);
}

TEST_F(Background, ReleasingItsKernelWaitsForIt) {
  Launch(12);
  ASSERT_EQ(hkReleaseKernel(kernel), CL_SUCCESS);
  kernel = nullptr;
  EXPECT_TRUE(Filled(memory, 12));
}

// The application releases its last reference to the launch's buffer while the launch
// runs, as it may with a command on PoCL's queue: the release returns at once, and the
// buffer lives (PoCL destroys it, calling its destructor callback) only once the launch
// has written all of it.
TEST_F(Background, ReleasingABufferItUsesKeepsTheBufferForIt) {
  const cl_ulong before = InBackground(kernel);
  static std::atomic<int> filled_at_destruction;
  filled_at_destruction = -1;
  Launch(13);
  ASSERT_EQ(clSetMemObjectDestructorCallback(
                out,
                [](cl_mem, void *memory) {
                  filled_at_destruction = Filled(static_cast<int *>(memory), 13) ? 1 : 0;
                },
                memory),
            CL_SUCCESS);
  ASSERT_EQ(hkReleaseMemObject(out), CL_SUCCESS);
  out = nullptr;
  ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  EXPECT_TRUE(Filled(memory, 13));
  // The launch's own reference goes just after it counts done, on the thread that ran it.
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (filled_at_destruction.load() == -1 && std::chrono::steady_clock::now() < limit)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  EXPECT_EQ(filled_at_destruction.load(), 1);
  EXPECT_EQ(InBackground(kernel) - before, 1u);
}

// A team launch waited for at once (a benchmark's clFinish after each launch) loses in
// the background: it runs there on one thread fewer than from its caller. One such launch
// pauses the kernel's background team launches (queue/background.cpp, noteSettled), where a
// launch on one thread, which loses only the hand-over, is given four; its launches on one
// thread keep the background.
TEST_F(Background, ATeamLaunchWaitedForAtOnceIsPausedAfterOne) {
  constexpr size_t kTeamItems = 16 * kItems;
  constexpr size_t kLocal = 16;
  const int value = 5;
  Wide w;
  ASSERT_NO_FATAL_FAILURE(MakeWide(kTeamItems, kRounds / 4, value, w));
  const cl_kernel wide = w.kernel;
  for (int i = 0; i < 16; ++i) {
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, wide, 1, nullptr, &kTeamItems, &kLocal, 0, nullptr,
                                     nullptr),
              CL_SUCCESS);
    ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  }
  cl_ulong on_team = 0;
  EXPECT_EQ(hkGetKernelLaunchInfo(wide, HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_TEAM),
                                  sizeof on_team, &on_team, nullptr),
            CL_SUCCESS);
  const cl_ulong in_background = InBackground(wide);
  // The pause is its team launches': its launches on one thread, the caller's own work
  // after each, still go to the background.
  const int full_rounds = kRounds;
  ASSERT_EQ(hkSetKernelArg(wide, 1, sizeof full_rounds, &full_rounds), CL_SUCCESS);
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, wide, 1, nullptr, &kItems, &kItems, 0, nullptr,
                                     nullptr),
              CL_SUCCESS);
    OwnWork();
    ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  }
  const cl_ulong one_thread_in_background = InBackground(wide) - in_background;
  ReleaseWide(w, value);
  if (on_team < 8) GTEST_SKIP() << "the kernel ran on the team " << on_team << " times of 16";
  EXPECT_GE(in_background, 1u);
  // 1; 2 only if the caller lost its CPU between an enqueue and its clFinish.
  EXPECT_LE(in_background, 2u);
  EXPECT_GE(one_thread_in_background, 1u);
}

// Team launches enqueued back to back and then waited for (clpeak's bandwidth kernels:
// sixteen launches and a clFinish): the background thread runs one, and the caller,
// whose CPU would idle in the wait, runs the others on the whole team (settleAll,
// reserve). Had the background thread run them all, each on one thread fewer than the
// team has, the caller's CPU time in the wait would be that of spinning and parking; it
// is at least that of its share of the one launch it ran from its own thread first.
TEST_F(Background, TeamLaunchesWaitedForRunOnTheirCallersTeam) {
  constexpr int kLaunches = 8;
  TeamWait t;
  ASSERT_NO_FATAL_FAILURE(LaunchWideAndFinish(kLaunches, kRounds / 4, 9, t));
  if (t.in_background < 3 || t.on_team < kLaunches)
    GTEST_SKIP() << t.in_background << " launches in the background, " << t.on_team
                 << " on the team, of " << kLaunches;
  EXPECT_GE(t.wait_cpu, t.first_cpu) << "the caller ran no launch while it waited: "
                                     << t.wait_cpu.count() << " ns of CPU, the first launch "
                                     << t.first_cpu.count() << " ns";
}

// A team launch the background thread has started runs there on one thread fewer than the
// team has; a caller that then waits for it takes the left-out thread's share
// (Team::help()). Without that, the caller's CPU time in the wait would be that of
// spinning and parking; with it, about half the launch's work: at least a quarter of what
// the caller ran of the first launch on the whole team (its half, or all of it when the
// worker started late). A kernel's first two launches run from the caller; the third
// goes to the background.
TEST_F(Background, ACallerWaitingForATeamLaunchRunningInTheBackgroundHelpsIt) {
  TeamWait t;
  ASSERT_NO_FATAL_FAILURE(LaunchWideAndFinish(3, kRounds, 5, t));
  if (t.in_background != 1 || t.on_team != 3)
    GTEST_SKIP() << t.in_background << " launches in the background, " << t.on_team
                 << " on the team, of 3";
  if (t.done_before_wait) GTEST_SKIP() << "the launch was complete before the wait";
  EXPECT_GE(t.wait_cpu, t.first_cpu / 4)
      << "the caller did not help the launch it waited for: " << t.wait_cpu.count()
      << " ns of CPU, the first launch " << t.first_cpu.count() << " ns";
}

// "Short" is below HOSTKERNEL_BACKGROUND_US (5 us): a build or a machine where quick_fill's
// launch call itself takes longer (ThreadSanitizer's, about 10 times slower) is not one
// to test it on, and says so.
TEST_F(Background, ShortLaunchesRunBeforeTheirCallsReturn) {
  cl_kernel quick = hkCreateKernel(program, "quick_fill", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(quick, 0, sizeof out, &out), CL_SUCCESS);
  auto fastest = std::chrono::nanoseconds::max();
  // A kernel's first two launches run before their calls return, whatever they take.
  for (int value = -2; value < 0; ++value) {
    ASSERT_EQ(hkSetKernelArg(quick, 1, sizeof value, &value), CL_SUCCESS);
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, quick, 1, nullptr, &kItems, nullptr, 0, nullptr,
                                     nullptr),
              CL_SUCCESS);
    fastest = std::min<std::chrono::nanoseconds>(fastest, std::chrono::steady_clock::now() - t0);
    ASSERT_EQ(hkFinish(q), CL_SUCCESS);
  }
  if (fastest >= std::chrono::microseconds(4)) {
    EXPECT_EQ(hkReleaseKernel(quick), CL_SUCCESS);
    GTEST_SKIP() << "a quick_fill launch takes " << fastest.count()
                 << " ns here: not short next to the 5 us threshold";
  }
  for (int value = 0; value < 50; ++value) {
    ASSERT_EQ(hkSetKernelArg(quick, 1, sizeof value, &value), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(q, quick, 1, nullptr, &kItems, nullptr, 0, nullptr,
                                     nullptr),
              CL_SUCCESS);
    EXPECT_EQ(memory[kItems - 1], value);  // complete on return, no command needed
  }
  EXPECT_EQ(InBackground(quick), 0u);
  EXPECT_EQ(hkReleaseKernel(quick), CL_SUCCESS);
}

// Sets the CPU affinity of every thread of the process (the background thread, PoCL's
// workers); false if any refuses.
bool SetEveryThread(const cpu_set_t &set) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return false;
  bool ok = true;
  while (dirent *e = readdir(d))
    if (e->d_name[0] != '.')
      ok = sched_setaffinity(std::atoi(e->d_name), sizeof set, &set) == 0 && ok;
  closedir(d);
  return ok;
}

// Whether every thread of the process has the affinity `set`.
bool EveryThreadHas(const cpu_set_t &set) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return false;
  bool ok = true;
  while (dirent *e = readdir(d)) {
    cpu_set_t now;
    if (e->d_name[0] != '.')
      ok = sched_getaffinity(std::atoi(e->d_name), sizeof now, &now) == 0 &&
           CPU_EQUAL(&now, &set) && ok;
  }
  closedir(d);
  return ok;
}

// Pins every thread of the process to `set`, and checks that the pin holds once the
// threads have parked. A thread that moves itself off a CPU (team::CpuMover: the
// background thread spinning for its next job) restores the affinity it read before the
// move, undoing a pin that lands in between; the background thread would then run its
// launches on another CPU. So: pin, let the threads park, check, again if needed.
bool PinEveryThread(const cpu_set_t &set) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (!SetEveryThread(set)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (EveryThreadHas(set)) return true;
  }
  return false;
}

// A background thread that loses its CPU, made certain: the whole process on one CPU, and
// a real-time thread that busy-works (without a system call) for ten times the
// kernel's duration. `started_first`: the background thread starts the launch (the caller
// sleeps a millisecond), then a new real-time thread keeps it from finishing while the
// caller waits for the result: the wait lasts far longer than running the launch would
// have. Else the caller itself busy-works as a real-time thread between launch and read,
// and the background thread never starts the launch: the caller runs it long after the
// hand-over. Either is what another process on the CPU does. Two such launches in a row
// pause the kernel's background launches: the next ones run before their calls return.
class BackgroundWithoutCpu : public Background {
 protected:
  void Run(bool started_first) {
    cpu_set_t all, one;
    ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &all)) {
        CPU_SET(c, &one);
        break;
      }
    auto t0 = std::chrono::steady_clock::now();
    Launch(-1);
    ASSERT_EQ(hkFinish(q), CL_SUCCESS);
    auto took = std::chrono::steady_clock::now() - t0;
    // The launch must outlast the caller's 1 ms sleep by far (PoCL releases compile the
    // kernel to different speeds): at least 5 ms.
    if (took < std::chrono::milliseconds(5)) {
      const int rounds = kRounds * static_cast<int>(std::chrono::milliseconds(5) / took + 1);
      ASSERT_EQ(hkSetKernelArg(kernel, 1, sizeof rounds, &rounds), CL_SUCCESS);
      // One launch only: each one waited for at once counts as a miss (4 in a row pause).
      t0 = std::chrono::steady_clock::now();
      Launch(-1);
      ASSERT_EQ(hkFinish(q), CL_SUCCESS);
      took = std::chrono::steady_clock::now() - t0;
    }
    const auto busy = 10 * took + std::chrono::milliseconds(1);
    static const sched_param rt{1}, normal{0};
    if (sched_setscheduler(0, SCHED_FIFO, &rt) != 0) GTEST_SKIP() << "no SCHED_FIFO here";
    sched_setscheduler(0, SCHED_OTHER, &normal);
    ASSERT_TRUE(PinEveryThread(one));
    auto busy_work = [busy] {
      const auto until = std::chrono::steady_clock::now() + busy;
      while (std::chrono::steady_clock::now() < until) {
      }
    };
    const cl_ulong before = InBackground(kernel);
    cl_ulong after_two = 0;
    for (int value = 0; value < 4; ++value) {
      SCOPED_TRACE(value);
      pthread_t other_process{};
      if (started_first) {
        Launch(value * 1000);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        // Real-time from its start: it takes the CPU from the background thread at once.
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
        pthread_attr_setschedparam(&attr, &rt);
        ASSERT_EQ(pthread_create(
                      &other_process, &attr,
                      [](void *work) -> void * {
                        (*static_cast<decltype(busy_work) *>(work))();
                        return nullptr;
                      },
                      &busy_work),
                  0);
        pthread_attr_destroy(&attr);
      } else {
        ASSERT_EQ(sched_setscheduler(0, SCHED_FIFO, &rt), 0);
        Launch(value * 1000);
        busy_work();
      }
      std::vector<int> read;
      ASSERT_NO_FATAL_FAILURE(ReadOut(read));
      sched_setscheduler(0, SCHED_OTHER, &normal);
      if (started_first) pthread_join(other_process, nullptr);
      // Real-time threads get at most 95 % of each second (sched_rt_runtime_us): past it,
      // the background thread would run and finish the launch after all. A machine busy
      // with other work makes `busy` hundreds of ms; sleeping as long keeps the real-time
      // share of any second near half.
      std::this_thread::sleep_for(busy);
      EXPECT_TRUE(Filled(read.data(), value * 1000));
      if (value == 1) after_two = InBackground(kernel);
    }
    ASSERT_TRUE(PinEveryThread(all));
    // Handed over (one only if the fixture's launch was late too, on a busy machine).
    EXPECT_GE(after_two - before, 1u);
    EXPECT_LE(after_two - before, 2u);
    EXPECT_EQ(InBackground(kernel) - after_two, 0u);  // paused
  }
};

TEST_F(BackgroundWithoutCpu, LaunchesItNeverStartsArePaused) { Run(false); }
TEST_F(BackgroundWithoutCpu, LaunchesItStartsButCannotFinishArePaused) { Run(true); }

// A program that exits with a launch still running: this test runs itself again as such a
// program, whose buffer is over memory it shares with this process (a memfd it inherits;
// HK_BACKGROUND_EXIT_FD names it). The child's exit must wait for the launch.
class BackgroundAtExit : public Background {
 protected:
  int *Memory() override { return shared; }
  void SetUp() override {
    const char *fd = std::getenv("HK_BACKGROUND_EXIT_FD");
    if (!fd) return;  // the parent
    shared = static_cast<int *>(mmap(nullptr, kItems * sizeof(int), PROT_READ | PROT_WRITE,
                                     MAP_SHARED, std::atoi(fd), 0));
    ASSERT_NE(shared, MAP_FAILED);
    Background::SetUp();
  }
  void TearDown() override {}  // the child exits in the test; the parent has nothing
  int *shared = nullptr;
};

TEST_F(BackgroundAtExit, AProgramThatExitsWithOneRunningEndsAfterIt) {
  if (shared) {  // the child
    Launch(13);
    std::exit(0);  // with the launch still running
  }
  const int fd = memfd_create("hk-background-exit", 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, kItems * sizeof(int)), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string fd_text = std::to_string(fd);
    setenv("HK_BACKGROUND_EXIT_FD", fd_text.c_str(), 1);
    execl("/proc/self/exe", "background_test",
          "--gtest_filter=BackgroundAtExit.AProgramThatExitsWithOneRunningEndsAfterIt",
          static_cast<char *>(nullptr));
    std::_Exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto *p = static_cast<int *>(
      mmap(nullptr, kItems * sizeof(int), PROT_READ, MAP_SHARED, fd, 0));
  ASSERT_NE(p, MAP_FAILED);
  EXPECT_TRUE(Filled(p, 13));
  munmap(p, kItems * sizeof(int));
  close(fd);
}

TEST_F(Background, ForkWaitsForIt) {
  Launch(14);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) std::_Exit(Filled(memory, 14) ? 0 : 1);  // the child's copy of the memory
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
