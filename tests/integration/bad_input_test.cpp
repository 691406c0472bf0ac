// Misuse of the hk* C API that tests/integration/errors_test.cpp does not try: offsets near
// SIZE_MAX, zero and huge local sizes, released kernels in every call that takes one,
// NULL wait lists in commands other than launches, corrupt program binaries, NULL output
// pointers, out-of-range enum values. The rule is errors_test.cpp's: hostkernel answers
// with the code PoCL 3.1 gives for the same misuse (compared on the same objects), never
// crashes, and a rejected launch runs nothing. docs/bad-input.md lists every misuse tried,
// here and in errors_test.cpp, with the answer.
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "support/launch_counts.hpp"
#include "support/pocl_test.hpp"

namespace {

// `rel` writes relative to the global offset, so that a launch with any offset writes
// only out[0 .. global size).
const char *kSource = R"CLC(
kernel void rel(global int *out, int v) {
  size_t i = get_global_id(0) - get_global_offset(0);
  out[i] = v + (int)i;
}
kernel void rel2d(global int *out, int v) {
  size_t x = get_global_id(0) - get_global_offset(0);
  size_t y = get_global_id(1) - get_global_offset(1);
  out[y * get_global_size(0) + x] = v + (int)(y * get_global_size(0) + x);
}
__attribute__((reqd_work_group_size(8, 1, 1)))
kernel void fixed8(global int *out, int v) {
  out[get_global_id(0)] = v + (int)get_global_id(0);
}
kernel void scalar_only(global int *out, int v, float f) {
  out[get_global_id(0)] = v + (int)f;
}
)CLC";

constexpr size_t kElems = 4096;
constexpr int kSentinel = -7;

class BadInput : public PoclTest {
 protected:
  BadInput() : PoclTest(kSource) {}

  void SetUpTestObjects() override {
    rel_ = Own(NewKernel("rel"));
    cl_int err = CL_SUCCESS;
    std::vector<int> init(kElems, kSentinel);
    out_ = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kElems * sizeof(int),
                          init.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    SetArgs(rel_, 1);
  }

  void ReleaseTestObjects() override {
    if (rel_) hkReleaseKernel(rel_);
    if (out_) hkReleaseMemObject(out_);
  }

  cl_kernel NewKernel(const char *name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = hkCreateKernel(program_, name, &err);
    EXPECT_EQ(err, CL_SUCCESS) << name;
    return k;
  }

  void SetArgs(cl_kernel k, int v) {
    ASSERT_EQ(hkSetKernelArg(k, 0, sizeof(cl_mem), &out_), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(k, 1, sizeof v, &v), CL_SUCCESS);
  }

  std::vector<int> Read() {
    std::vector<int> host(kElems, 12345);
    EXPECT_EQ(hkEnqueueReadBuffer(queue_, out_, CL_TRUE, 0, kElems * sizeof(int), host.data(),
                                  0, nullptr, nullptr),
              CL_SUCCESS);
    return host;
  }

  void Reset() {
    std::vector<int> init(kElems, kSentinel);
    ASSERT_EQ(hkEnqueueWriteBuffer(queue_, out_, CL_TRUE, 0, kElems * sizeof(int), init.data(),
                                   0, nullptr, nullptr),
              CL_SUCCESS);
  }

  void ExpectUntouched(const char *what) {
    std::vector<int> host = Read();
    size_t changed = 0;
    for (int v : host) changed += v != kSentinel;
    EXPECT_EQ(changed, 0u) << what << ": a rejected launch wrote " << changed << " elements";
  }

  // `n` elements hold v + i, the rest the sentinel.
  void ExpectWritten(size_t n, int v, const char *what) {
    std::vector<int> host = Read();
    for (size_t i = 0; i < kElems; ++i)
      ASSERT_EQ(host[i], i < n ? v + int(i) : kSentinel) << what << ": element " << i;
  }

  // The misuse through PoCL, then through hostkernel (each on a reset buffer): the same
  // code and the same buffer contents afterwards. Returns the code.
  template <class Misuse>
  cl_int ExpectLikePocl(const char *what, Misuse misuse) {
    Reset();
    const cl_int pocl = misuse(&clEnqueueNDRangeKernel);
    clFinish(queue_);
    const std::vector<int> after_pocl = Read();
    Reset();
    const cl_int hk = misuse(&Launch);
    hkFinish(queue_);
    EXPECT_EQ(hk, pocl) << what << ": hostkernel returns " << hk << ", PoCL returns " << pocl;
    const std::vector<int> after_hk = Read();
    size_t differ = 0;
    for (size_t i = 0; i < kElems; ++i) differ += after_hk[i] != after_pocl[i];
    EXPECT_EQ(differ, 0u) << what << ": " << differ << " elements differ from PoCL's result";
    return hk;
  }

  cl_kernel rel_ = nullptr;
  cl_mem out_ = nullptr;
};

// ---- global offsets near SIZE_MAX -------------------------------------------------------

// The specification's answer is CL_INVALID_GLOBAL_OFFSET; PoCL 3.1 accepts such a launch
// (CL_SUCCESS) and runs it with wrapped-around ids. hostkernel does not run it directly
// (HK_REASON_INVALID_LAUNCH): PoCL gets it, so code and result are PoCL's.
TEST_F(BadInput, OffsetWhoseSumWithTheGlobalSizeOverflowsGetsPoclsAnswer) {
  const size_t g = 64, l = 8;
  int n = 0;
  for (size_t off : {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 62, SIZE_MAX - 63}) {
    const std::string what = "offset SIZE_MAX-" + std::to_string(SIZE_MAX - off);
    ExpectLikePocl(what.c_str(), [&](EnqueueFn fn) {
      return fn(queue_, rel_, 1, &off, &g, &l, 0, nullptr, nullptr);
    });
    ++n;
  }
  const hk_launch_counts c = Counts(rel_);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 0u);
  EXPECT_EQ(c.by_reason[HK_REASON_INVALID_LAUNCH], cl_ulong(n));
}

// offset + global == SIZE_MAX exactly (and below): valid, and the ids are right.
TEST_F(BadInput, OffsetJustBelowOverflowRunsDirectlyWithTheRightIds) {
  const size_t g = 64, l = 8;
  for (size_t off : {SIZE_MAX - 64, SIZE_MAX - 1000, (SIZE_MAX >> 1) + 5}) {
    const std::string what = "offset " + std::to_string(off);
    EXPECT_EQ(ExpectLikePocl(what.c_str(),
                             [&](EnqueueFn fn) {
                               return fn(queue_, rel_, 1, &off, &g, &l, 0, nullptr, nullptr);
                             }),
              CL_SUCCESS)
        << what;
    ExpectWritten(g, 1, what.c_str());
  }
  EXPECT_EQ(Direct(Counts(rel_)), 3u);
}

TEST_F(BadInput, OffsetOverflowInTheSecondDimensionGetsPoclsAnswer) {
  cl_kernel k = NewKernel("rel2d");
  SetArgs(k, 2);
  const size_t g[2] = {16, 16}, l[2] = {8, 8}, off[2] = {0, SIZE_MAX - 3};
  ExpectLikePocl("2D offset overflow", [&](EnqueueFn fn) {
    return fn(queue_, k, 2, off, g, l, 0, nullptr, nullptr);
  });
  EXPECT_EQ(Direct(Counts(k)), 0u);
  // Offsets of dimensions beyond work_dim are not read: a 1D launch with a huge offset[1].
  const size_t off1[2] = {0, SIZE_MAX};
  const size_t g1 = 64, l1 = 8;
  EXPECT_EQ(ExpectLikePocl("offset[1] ignored by a 1D launch",
                           [&](EnqueueFn fn) {
                             return fn(queue_, rel_, 1, off1, &g1, &l1, 0, nullptr, nullptr);
                           }),
            CL_SUCCESS);
  ExpectWritten(g1, 1, "offset[1] ignored");
  hkReleaseKernel(k);
}

// ---- local sizes ----------------------------------------------------------------------

TEST_F(BadInput, HugeLocalSizesGetPoclsAnswer) {
  cl_kernel k2 = NewKernel("rel2d");
  SetArgs(k2, 3);
  struct Case {
    const char *what;
    cl_kernel k;
    cl_uint dim;
    size_t g[3], l[3];
  };
  const size_t big = size_t(1) << 32;
  const Case cases[] = {
      {"local SIZE_MAX", rel_, 1, {64}, {SIZE_MAX}},
      {"local 2^32 = global", rel_, 1, {big}, {big}},
      {"local {2^32, 2^32}: product overflows 32 bits", k2, 2, {big, big}, {big, big}},
      {"local {65536, 65536}: product 2^32", k2, 2, {65536, 65536}, {65536, 65536}},
      {"local larger than global", rel_, 1, {8}, {16}},
  };
  for (const Case &c : cases) {
    const cl_int code = ExpectLikePocl(c.what, [&](EnqueueFn fn) {
      return fn(queue_, c.k, c.dim, nullptr, c.g, c.l, 0, nullptr, nullptr);
    });
    EXPECT_NE(code, CL_SUCCESS) << c.what;
    ExpectUntouched(c.what);
  }
  for (cl_kernel k : {rel_, k2}) {
    const hk_launch_counts c = Counts(k);
    EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 0u);
  }
  hkReleaseKernel(k2);
}

// A zero local size in any dimension is no work-group size: the global size is not a
// multiple of it, so the answer is CL_INVALID_WORK_GROUP_SIZE. PoCL itself crashes on it
// (SIGFPE or SIGSEGV when it divides by it, at the enqueue or in its worker): 3.1 in a
// later dimension, 6.0 in the first one too (3.1 takes a zero there as "no local size").
// hostkernel must answer with the error instead of handing the launch to PoCL (DESIGN.md,
// "Errors": it never aborts the process), and run nothing. Each case runs in a child
// process.
TEST_F(BadInput, ZeroLocalSizeInAnyDimensionReturnsAnErrorInsteadOfCrashing) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  struct Case {
    const char *what;
    cl_uint dim;
    size_t g[3], l[3];
  };
  const Case cases[] = {
      {"local {0}", 1, {64, 1, 1}, {0, 1, 1}},
      {"local {0, 8}", 2, {16, 16, 1}, {0, 8, 1}},
      {"local {8, 0}", 2, {16, 16, 1}, {8, 0, 1}},
      {"local {0, 0}", 2, {16, 16, 1}, {0, 0, 1}},
      {"local {8, 1, 0}", 3, {8, 8, 8}, {8, 1, 0}},
  };
  for (const Case &c : cases) {
    auto child = [&] {
      Reset();
      cl_kernel k = c.dim == 2 ? NewKernel("rel2d") : NewKernel("rel");
      int v = 1;
      hkSetKernelArg(k, 0, sizeof(cl_mem), &out_);
      hkSetKernelArg(k, 1, sizeof v, &v);
      const cl_int code =
          Launch(queue_, k, c.dim, nullptr, c.g, c.l, 0, nullptr, nullptr);
      std::fprintf(stderr, "%s: returned %d\n", c.what, code);
      hkFinish(queue_);  // a launch PoCL accepted crashes when its worker runs it
      std::vector<int> host = Read();
      size_t changed = 0;
      for (int x : host) changed += x != kSentinel;
      std::fprintf(stderr, "%s: %zu elements written\n", c.what, changed);
      std::_Exit(code == CL_INVALID_WORK_GROUP_SIZE && changed == 0 ? 0 : 1);
    };
    EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "") << c.what;
  }
}

TEST_F(BadInput, RequiredWorkGroupSizeMismatchGetsPoclsAnswer) {
  cl_kernel k = NewKernel("fixed8");
  SetArgs(k, 4);
  const size_t g = 64, l4 = 4, l8 = 8;
  EXPECT_EQ(ExpectLikePocl("local 4 for reqd 8",
                           [&](EnqueueFn fn) {
                             return fn(queue_, k, 1, nullptr, &g, &l4, 0, nullptr, nullptr);
                           }),
            CL_INVALID_WORK_GROUP_SIZE);
  ExpectUntouched("local 4 for reqd 8");
  ExpectLikePocl("NULL local for reqd 8", [&](EnqueueFn fn) {
    return fn(queue_, k, 1, nullptr, &g, nullptr, 0, nullptr, nullptr);
  });
  ExpectLikePocl("task on a reqd 8 kernel", [&](EnqueueFn fn) {
    const size_t one = 1;
    return fn(queue_, k, 1, nullptr, &one, &one, 0, nullptr, nullptr);
  });
  EXPECT_EQ(ExpectLikePocl("local 8 for reqd 8",
                           [&](EnqueueFn fn) {
                             return fn(queue_, k, 1, nullptr, &g, &l8, 0, nullptr, nullptr);
                           }),
            CL_SUCCESS);
  ExpectWritten(g, 4, "local 8 for reqd 8");
  EXPECT_EQ(Direct(Counts(k)), 1u);
  hkReleaseKernel(k);
}

// ---- released kernels -------------------------------------------------------------------

TEST_F(BadInput, EveryCallOnAReleasedKernelReturnsInvalidKernel) {
  cl_kernel k = NewKernel("rel");
  SetArgs(k, 5);
  const size_t g = 64, l = 8;
  ASSERT_EQ(Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ASSERT_EQ(hkReleaseKernel(k), CL_SUCCESS);
  // Nothing is created in between, so the address cannot have been reused.
  int v = 1;
  EXPECT_EQ(hkSetKernelArg(k, 1, sizeof v, &v), CL_INVALID_KERNEL);
  EXPECT_EQ(hkSetKernelArgSVMPointer(k, 0, nullptr), CL_INVALID_KERNEL);
  hk_launch_counts c{};
  EXPECT_EQ(hkGetKernelLaunchCounts(k, &c), CL_INVALID_KERNEL);
  EXPECT_EQ(hkReleaseKernel(k), CL_INVALID_KERNEL);  // a second release
  cl_event ev = nullptr;
  EXPECT_EQ(Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, &ev),
            CL_INVALID_KERNEL);
  EXPECT_EQ(ev, nullptr) << "a failed launch must not return an event";
}

// ---- NULL and invalid pointers and values -----------------------------------------------

TEST_F(BadInput, NullOutputPointersAreRejectedOrIgnored) {
  EXPECT_EQ(hkGetKernelLaunchCounts(rel_, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(hkFinish(nullptr), CL_INVALID_COMMAND_QUEUE);
  EXPECT_EQ(hkFlush(nullptr), CL_INVALID_COMMAND_QUEUE);
  EXPECT_EQ(hkWaitForEvents(0, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(hkWaitForEvents(1, nullptr), CL_INVALID_VALUE);
  cl_event null_event = nullptr;
  EXPECT_EQ(hkWaitForEvents(1, &null_event), CL_INVALID_EVENT);
  EXPECT_EQ(hkReleaseEvent(nullptr), CL_INVALID_EVENT);
  EXPECT_EQ(hkReleaseKernel(nullptr), CL_INVALID_KERNEL);
  EXPECT_EQ(hkReleaseProgram(nullptr), CL_INVALID_PROGRAM);
  EXPECT_EQ(hkReleaseMemObject(nullptr), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(hkReleaseCommandQueue(nullptr), CL_INVALID_COMMAND_QUEUE);
  EXPECT_EQ(hkReleaseContext(nullptr), CL_INVALID_CONTEXT);
  EXPECT_EQ(hkSetKernelArgSVMPointer(nullptr, 0, nullptr), CL_INVALID_KERNEL);
  // A NULL err pointer is allowed in every create call.
  cl_kernel k = hkCreateKernel(program_, "rel", nullptr);
  EXPECT_NE(k, nullptr);
  if (k) hkReleaseKernel(k);
  EXPECT_EQ(hkCreateKernel(program_, "no_such_kernel", nullptr), nullptr);
}

TEST_F(BadInput, OutOfRangeReasonGetsAString) {
  for (int r : {-1, int(HK_REASON_COUNT), 1000, INT32_MIN}) {
    const char *s = hkReasonString(static_cast<hk_reason>(r));
    ASSERT_NE(s, nullptr) << r;
    EXPECT_STREQ(s, "unknown") << r;
  }
  for (int r = 0; r < HK_REASON_COUNT; ++r)
    EXPECT_STRNE(hkReasonString(static_cast<hk_reason>(r)), "unknown") << r;
}

TEST_F(BadInput, NullValueForAScalarArgumentGetsPoclsAnswer) {
  cl_kernel k = NewKernel("scalar_only");
  const cl_int pocl = clSetKernelArg(k, 1, sizeof(int), nullptr);
  EXPECT_EQ(hkSetKernelArg(k, 1, sizeof(int), nullptr), pocl);
  EXPECT_EQ(pocl, CL_INVALID_ARG_VALUE);
  hkReleaseKernel(k);
}

// A NULL cl_mem for a global pointer argument is valid OpenCL (the kernel sees NULL).
TEST_F(BadInput, NullBufferArgumentRunsWithANullPointer) {
  const char *src = R"CLC(
kernel void maybe(global int *p, global int *out) { out[get_global_id(0)] = p ? 1 : 2; }
)CLC";
  cl_int err = CL_SUCCESS;
  cl_program p = hkCreateProgramWithSource(ctx_, 1, &src, nullptr, &err);
  ASSERT_EQ(hkBuildProgram(p, 1, &device_, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel k = hkCreateKernel(p, "maybe", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem none = nullptr;
  ASSERT_EQ(hkSetKernelArg(k, 0, sizeof(cl_mem), &none), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(k, 1, sizeof(cl_mem), &out_), CL_SUCCESS);
  const size_t g = 32, l = 8;
  ASSERT_EQ(Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  std::vector<int> host = Read();
  for (size_t i = 0; i < g; ++i) ASSERT_EQ(host[i], 2) << "element " << i;
  // NULL value pointer (instead of a pointer to a NULL cl_mem) means the same.
  ASSERT_EQ(hkSetKernelArg(k, 0, sizeof(cl_mem), nullptr), CL_SUCCESS);
  ASSERT_EQ(Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  host = Read();
  for (size_t i = 0; i < g; ++i) ASSERT_EQ(host[i], 2) << "element " << i;
  EXPECT_EQ(Direct(Counts(k)), 2u);
  hkReleaseKernel(k);
  hkReleaseProgram(p);
}

// ---- wait lists in commands other than launches ------------------------------------------

TEST_F(BadInput, WaitListCountWithNullListIsRejectedByEveryCommand) {
  std::vector<int> host(16);
  int pattern = 0;
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(hkEnqueueReadBuffer(queue_, out_, CL_TRUE, 0, 64, host.data(), 1, nullptr, nullptr),
            CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(hkEnqueueWriteBuffer(queue_, out_, CL_TRUE, 0, 64, host.data(), 2, nullptr, nullptr),
            CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(hkEnqueueFillBuffer(queue_, out_, &pattern, sizeof pattern, 0, 64, 1, nullptr,
                                nullptr),
            CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(hkEnqueueMarkerWithWaitList(queue_, 1, nullptr, nullptr), CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(hkEnqueueBarrierWithWaitList(queue_, 1, nullptr, nullptr),
            CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(hkEnqueueMapBuffer(queue_, out_, CL_TRUE, CL_MAP_READ, 0, 64, 1, nullptr, nullptr,
                               &err),
            nullptr);
  EXPECT_EQ(err, CL_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(LaunchTask(queue_, rel_, 1, nullptr, nullptr), CL_INVALID_EVENT_WAIT_LIST);
  ExpectUntouched("commands with a NULL wait list");
  // The queue is still usable, and direct launches still run directly.
  const size_t g = 64, l = 8;
  ASSERT_EQ(Launch(queue_, rel_, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ExpectWritten(g, 1, "after the rejected commands");
  EXPECT_EQ(Direct(Counts(rel_)), 1u);
}

// A count of 0 with a non-NULL list: PoCL answers CL_INVALID_EVENT_WAIT_LIST in its
// commands other than launches (the OpenCL CTS checks it for the marker:
// api negative_enqueue_marker_with_wait_list), and hostkernel must answer the same
// instead of running the command directly.
TEST_F(BadInput, WaitListOfCountZeroWithAListGetsPoclsAnswerInEveryCommand) {
  cl_event done = nullptr;
  ASSERT_EQ(hkEnqueueMarkerWithWaitList(queue_, 0, nullptr, &done), CL_SUCCESS);
  ASSERT_EQ(hkWaitForEvents(1, &done), CL_SUCCESS);
  std::vector<int> host(16, 5);
  const int pattern = 3;
  cl_int err = CL_SUCCESS;
  // Each command with PoCL's entry (pocl: true) or hostkernel's; the list is {done}.
  struct Case {
    const char *what;
    std::function<cl_int(bool)> call;
  };
  const Case cases[] = {
      {"read", [&](bool pocl) {
         return (pocl ? clEnqueueReadBuffer : hkEnqueueReadBuffer)(
             queue_, out_, CL_TRUE, 0, 64, host.data(), 0, &done, nullptr);
       }},
      {"write", [&](bool pocl) {
         return (pocl ? clEnqueueWriteBuffer : hkEnqueueWriteBuffer)(
             queue_, out_, CL_TRUE, 0, 64, host.data(), 0, &done, nullptr);
       }},
      {"fill", [&](bool pocl) {
         return (pocl ? clEnqueueFillBuffer : hkEnqueueFillBuffer)(
             queue_, out_, &pattern, sizeof pattern, 0, 64, 0, &done, nullptr);
       }},
      {"copy", [&](bool pocl) {
         return (pocl ? clEnqueueCopyBuffer : hkEnqueueCopyBuffer)(queue_, out_, out_, 0, 64,
                                                                   64, 0, &done, nullptr);
       }},
      {"marker", [&](bool pocl) {
         cl_event e = nullptr;
         const cl_int r = (pocl ? clEnqueueMarkerWithWaitList : hkEnqueueMarkerWithWaitList)(
             queue_, 0, &done, &e);
         EXPECT_EQ(r == CL_SUCCESS, e != nullptr) << "an event only on success";
         if (e) hkReleaseEvent(e);
         return r;
       }},
      {"barrier", [&](bool pocl) {
         return (pocl ? clEnqueueBarrierWithWaitList : hkEnqueueBarrierWithWaitList)(
             queue_, 0, &done, nullptr);
       }},
      {"map", [&](bool pocl) {
         void *p = (pocl ? clEnqueueMapBuffer : hkEnqueueMapBuffer)(
             queue_, out_, CL_TRUE, CL_MAP_READ, 0, 64, 0, &done, nullptr, &err);
         if (p) EXPECT_EQ(hkEnqueueUnmapMemObject(queue_, out_, p, 0, nullptr, nullptr),
                          CL_SUCCESS);
         return err;
       }},
      {"migrate", [&](bool pocl) {
         return (pocl ? clEnqueueMigrateMemObjects : hkEnqueueMigrateMemObjects)(
             queue_, 1, &out_, CL_MIGRATE_MEM_OBJECT_HOST, 0, &done, nullptr);
       }},
  };
  for (const Case &c : cases) {
    const cl_int pocl = c.call(true);
    ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
    EXPECT_EQ(c.call(false), pocl) << c.what;
    ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
  }
  EXPECT_EQ(cases[4].call(true), CL_INVALID_EVENT_WAIT_LIST) << "PoCL's answer for the marker";
  hkReleaseEvent(done);
}

// A failed PoCL command (bad region) is not counted as pending work that a direct launch
// would wait for forever, and does not change what later launches do.
TEST_F(BadInput, FailedCommandsLeaveTheQueueUsable) {
  std::vector<int> host(16);
  EXPECT_NE(hkEnqueueReadBuffer(queue_, out_, CL_TRUE, kElems * sizeof(int), 64, host.data(), 0,
                                nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_NE(hkEnqueueWriteBuffer(queue_, out_, CL_FALSE, 0, kElems * sizeof(int) + 4,
                                 host.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  const size_t g = 64, l = 8;
  ASSERT_EQ(Launch(queue_, rel_, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ExpectWritten(g, 1, "after failed commands");
  ASSERT_EQ(hkFinish(queue_), CL_SUCCESS);
}

// ---- program binaries -------------------------------------------------------------------

class BadBinary : public BadInput {
 protected:
  std::vector<unsigned char> RealBinary() {
    size_t size = 0;
    EXPECT_EQ(clGetProgramInfo(program_, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
              CL_SUCCESS);
    std::vector<unsigned char> bin(size);
    unsigned char *ptr = bin.data();
    EXPECT_EQ(clGetProgramInfo(program_, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr),
              CL_SUCCESS);
    return bin;
  }

  // Creates (and builds, if PoCL accepts it) a program from `bin` through PoCL and through
  // hostkernel; expects the same codes. Returns hostkernel's program or null.
  cl_program FromBinary(const std::vector<unsigned char> &bin, const char *what) {
    const unsigned char *ptr = bin.data();
    const size_t len = bin.size();
    cl_int pocl_status = 1, pocl_err = 1, hk_status = 1, hk_err = 1;
    cl_program ref = clCreateProgramWithBinary(ctx_, 1, &device_, &len, &ptr, &pocl_status,
                                               &pocl_err);
    cl_program p = hkCreateProgramWithBinary(ctx_, 1, &device_, &len, &ptr, &hk_status, &hk_err);
    EXPECT_EQ(hk_err, pocl_err) << what;
    EXPECT_EQ(hk_status, pocl_status) << what;
    EXPECT_EQ(p != nullptr, ref != nullptr) << what;
    if (ref && p) {
      const cl_int pocl_build = clBuildProgram(ref, 1, &device_, "", nullptr, nullptr);
      EXPECT_EQ(hkBuildProgram(p, 1, &device_, "", nullptr, nullptr), pocl_build) << what;
      if (pocl_build != CL_SUCCESS) {
        hkReleaseProgram(p);
        p = nullptr;
      }
    } else if (p) {
      hkReleaseProgram(p);
      p = nullptr;
    }
    if (ref) clReleaseProgram(ref);
    return p;
  }
};

TEST_F(BadBinary, GarbageBinariesGetPoclsAnswer) {
  const std::vector<unsigned char> real = RealBinary();
  ASSERT_GT(real.size(), 200u);
  struct Case {
    std::string what;
    std::vector<unsigned char> bin;
  };
  std::vector<unsigned char> bad_magic = real;
  bad_magic[0] ^= 0xff;
  std::vector<unsigned char> bad_version = real;
  bad_version[16] = 8;
  const std::vector<Case> cases = {
      {"1 byte", {0}},
      {"garbage", std::vector<unsigned char>(4096, 0x5a)},
      {"wrong magic", bad_magic},
      {"format version 8", bad_version},
  };
  for (const Case &c : cases) {
    cl_program p = FromBinary(c.bin, c.what.c_str());
    EXPECT_EQ(p, nullptr) << c.what << ": PoCL accepted it";
    if (p) hkReleaseProgram(p);
  }
}

// A poclbinary cut short (or with a corrupt length) makes PoCL 3.1 abort in
// clCreateProgramWithBinary (assertions in pocl_binary_deserialize and
// recursively_deserialize_path). hostkernel has a bounds-checked reader for exactly this
// format (src/pocl/binary.hpp, fuzzed) and must answer CL_INVALID_BINARY instead of
// handing PoCL a binary that kills the process (DESIGN.md, "Errors"). Each case runs in a
// child process.
TEST_F(BadBinary, TruncatedPoclBinaryReturnsInvalidBinaryInsteadOfAborting) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<unsigned char> real = RealBinary();
  ASSERT_GT(real.size(), 1000u);
  struct Case {
    std::string what;
    std::vector<unsigned char> bin;
  };
  // The first file record's content length: after the header (77 bytes, and the u64
  // program-scope size when flags bit 1 is set, format 11), the root entry's u64 size,
  // the path's u32 length and the path (docs/pocl-releases.md, "poclbinary").
  std::uint64_t flags = 0;
  std::memcpy(&flags, real.data() + 24, sizeof flags);
  const size_t header = 77 + ((flags & 2) ? 8 : 0);
  std::uint32_t path_length = 0;
  std::memcpy(&path_length, real.data() + header + 8, sizeof path_length);
  const size_t content_length_at = header + 8 + 4 + path_length;
  ASSERT_LT(content_length_at + 4, real.size());
  std::vector<unsigned char> bad_length = real;
  bad_length[content_length_at] ^= 0xff;
  const std::vector<Case> cases = {
      {"header only (77 bytes)", std::vector<unsigned char>(real.begin(), real.begin() + 77)},
      {"first 200 bytes", std::vector<unsigned char>(real.begin(), real.begin() + 200)},
      {"first half", std::vector<unsigned char>(real.begin(), real.begin() + real.size() / 2)},
      {"a corrupt content length in the first file record", bad_length},
  };
  for (const Case &c : cases) {
    auto child = [&] {
      const unsigned char *ptr = c.bin.data();
      const size_t len = c.bin.size();
      cl_int status = 1, err = 1;
      cl_program p = hkCreateProgramWithBinary(ctx_, 1, &device_, &len, &ptr, &status, &err);
      const cl_int build = p ? hkBuildProgram(p, 1, &device_, "", nullptr, nullptr) : err;
      std::fprintf(stderr, "%s: create %d, status %d, build %d\n", c.what.c_str(), err, status,
                   build);
      std::_Exit(!p && err == CL_INVALID_BINARY ? 0 : 1);
    };
    EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "") << c.what;
  }
}

// A poclbinary taken from a built program, given back: the program works, and its
// launches run directly (hostkernel reads the binary PoCL serializes again).
TEST_F(BadBinary, ProgramFromItsOwnBinaryLaunchesDirectly) {
  const std::vector<unsigned char> real = RealBinary();
  cl_program p = FromBinary(real, "the program's own binary");
  ASSERT_NE(p, nullptr);
  cl_int err = CL_SUCCESS;
  cl_kernel k = hkCreateKernel(p, "rel", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  SetArgs(k, 6);
  const size_t g = 128, l = 16;
  ASSERT_EQ(Launch(queue_, k, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  ExpectWritten(g, 6, "program from binary");
  EXPECT_EQ(Direct(Counts(k)), 1u);
  hkReleaseKernel(k);
  hkReleaseProgram(p);
}

// ---- buffers ------------------------------------------------------------------------------

TEST_F(BadInput, ZeroSizeBufferGetsPoclsAnswer) {
  cl_int pocl = CL_SUCCESS, hk = CL_SUCCESS;
  cl_mem a = clCreateBuffer(ctx_, CL_MEM_READ_WRITE, 0, nullptr, &pocl);
  cl_mem b = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE, 0, nullptr, &hk);
  EXPECT_EQ(hk, pocl);
  EXPECT_EQ(pocl, CL_INVALID_BUFFER_SIZE);
  if (a) clReleaseMemObject(a);
  if (b) hkReleaseMemObject(b);
}

}  // namespace
