// Corpus test: the kernels of kernels/ run through PoCL's own queue and through
// hostkernel's direct path, and the two must agree bit for bit. The cases are the tables
// of corpus_cases/, one file per family of kernels.
//
// For each case (one kernel, one geometry):
//   1. PoCL:       clSetKernelArg + clEnqueueNDRangeKernel + clFinish on a cl_kernel that
//                  hostkernel never sees; all buffers (and SVM allocations) are read back.
//   2. hostkernel: the same buffers reset to the same initial contents, a second cl_kernel
//                  from hkCreateKernel, hkSetKernelArg/hkSetKernelArgSVMPointer,
//                  hkEnqueueNDRangeKernel, hkEnqueueReadBuffer, hkFinish. Launched twice
//                  (the first launch of a kernel may use a different variant than later
//                  ones), each time compared with memcmp against PoCL's bytes.
//   3. hkGetKernelLaunchCounts must show that both launches ran inline: if the direct
//      path breaks and everything silently falls back to PoCL's queue, this test fails.
// printf output is captured from fd 1 on both paths and compared as text. The caller's
// MXCSR control bits (FTZ/DAZ/rounding) must be the same after a direct launch as before.
//
// Build with -DHK_QUEUE_ONLY (no libhostkernel; the hk* calls become plain OpenCL calls)
// to check the harness and the corpus against PoCL alone:
//   g++ -std=c++20 -DHK_QUEUE_ONLY -DHK_KERNELS_DIR='"kernels"' -Iinclude -Itests
//       tests/integration/corpus_test.cpp tests/integration/corpus_cases/*.cpp -lOpenCL
//       -lgtest -lgtest_main -pthread
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <map>
#include <sstream>
#include <string>

#include "integration/corpus_cases/cases.hpp"
#include "support/corpus_compare.hpp"
#include "support/corpus_harness.hpp"
#include "support/corpus_support.hpp"

// hostkernel first sees its queue at the queue's first command, as in an unmodified
// OpenCL program.
corpus::Cl &corpus::Cl::get() {
  static Cl *cl = new Cl(QueueBy::kOpenCL);
  return *cl;
}

namespace {

using namespace corpus;

const Sides kSides{"PoCL", "hostkernel"};

std::string reasons(const hk_launch_counts &before, const hk_launch_counts &after) {
  std::ostringstream os;
  os << "inline " << after.by_path[HK_PATH_INLINE] - before.by_path[HK_PATH_INLINE] << ", team "
     << after.by_path[HK_PATH_TEAM] - before.by_path[HK_PATH_TEAM] << ", queue "
     << after.by_path[HK_PATH_QUEUE] - before.by_path[HK_PATH_QUEUE];
  for (int r = 0; r < HK_REASON_COUNT; ++r) {
    cl_ulong n = after.by_reason[r] - before.by_reason[r];
    if (n) os << "; queue reason '" << hkReasonString(static_cast<hk_reason>(r)) << "' x" << n;
  }
  return os.str();
}

constexpr unsigned kMxcsrControl = 0xFFC0;  // DAZ, exception masks, rounding, FTZ
constexpr unsigned kMxcsrHostile = 0x8000 /*FTZ*/ | 0x4000 /*round up*/ | 0x0040 /*DAZ*/;

// ---------------------------------------------------------------------------------------
class Corpus : public CaseTest {};

TEST_P(Corpus, MatchesPoclQueueBitForBit) {
  const Case &c = GetParam();
  Cl &cl = Cl::get();
  ASSERT_EQ(cl.error, "");
  const Built &built = cl.program(c.file, c.options);
  ASSERT_NE(built.program, nullptr) << built.error;
  cl_program program = built.program;

  const Geometry &g = c.geometry;
  Resources setup = c.setup(g);
  Instance inst(cl, setup);
  ASSERT_EQ(inst.error(), "");

  // 1. PoCL's queue, on a kernel object hostkernel never sees.
  Reference ref;
  ASSERT_NO_FATAL_FAILURE(launch_reference(cl, inst, program, c, ref));
  cl_int err = CL_SUCCESS;
  if (ref.status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
    // PoCL's queue fails this launch itself (its event ends with an error; PoCL 7.1
    // cannot load the library it compiled for workitem_builtins, docs/pocl-releases.md).
    // There is no result to compare: hostkernel must fail it the same way. (Through the
    // layer, whose report must list no queue launch, the case ends here.)
#ifdef HK_QUEUE_ONLY
    GTEST_SKIP() << "PoCL's own queue fails " << c.kernel << " " << g.str();
#endif
    cl_kernel kh = hkCreateKernel(program, c.kernel.c_str(), &err);
    ASSERT_EQ(err, CL_SUCCESS) << "hkCreateKernel " << c.kernel;
    ASSERT_EQ(inst.reset(cl.hk_queue, true), CL_SUCCESS);
    ASSERT_EQ(inst.set_args(kh, true), CL_SUCCESS);
    cl_event event = nullptr;
    ASSERT_EQ(hkEnqueueNDRangeKernel(cl.hk_queue, kh, g.dim, g.offset_or_null(), g.global,
                                     g.local_or_null(), 0, nullptr, &event),
              CL_SUCCESS);
    ASSERT_NE(event, nullptr);
    EXPECT_EQ(hkWaitForEvents(1, &event), ref.status) << "PoCL's queue fails this launch";
    hkReleaseEvent(event);
    EXPECT_EQ(hkFinish(cl.hk_queue), CL_SUCCESS);
    hkReleaseKernel(kh);
    GTEST_SKIP() << "PoCL's own queue fails " << c.kernel << " " << g.str()
                 << " (its event ends with an error); hostkernel's event does too";
  }
  ASSERT_EQ(ref.status, CL_SUCCESS) << "clWaitForEvents on PoCL's launch";
  ASSERT_NO_FATAL_FAILURE(read_reference(cl, inst, c, ref));

  // 2. hostkernel, twice, on its own kernel object.
  cl_kernel kh = hkCreateKernel(program, c.kernel.c_str(), &err);
  ASSERT_EQ(err, CL_SUCCESS) << "hkCreateKernel " << c.kernel;
  ASSERT_EQ(inst.set_args(kh, true), CL_SUCCESS);
  hk_launch_counts before{}, after{};
  if (hkGetKernelLaunchCounts(kh, &before) != CL_SUCCESS) before = hk_launch_counts{};

  bool printing = c.printf_mode != PrintfMode::None;
  StdoutCapture capture;
  constexpr int kRuns = 2;
  for (int run = 0; run < kRuns; ++run) {
    SCOPED_TRACE("hostkernel launch " + std::to_string(run + 1) + " of " + std::to_string(kRuns));
    ASSERT_EQ(inst.reset(cl.hk_queue, true), CL_SUCCESS);
    if (printing) capture.start();
    cl_event event = nullptr;
    unsigned csr = _mm_getcsr();
    if (c.hostile_fpenv) _mm_setcsr((csr & ~0x6000u) | kMxcsrHostile);
    unsigned csr_in = _mm_getcsr();
    err = hkEnqueueNDRangeKernel(cl.hk_queue, kh, g.dim, g.offset_or_null(), g.global,
                                 g.local_or_null(), 0, nullptr, run == 1 ? &event : nullptr);
    unsigned csr_out = _mm_getcsr();
    _mm_setcsr(csr);
    cl_int wait = CL_SUCCESS;
    if (event) {
      wait = hkWaitForEvents(1, &event);
      hkReleaseEvent(event);
    }
    cl_int finish = hkFinish(cl.hk_queue);
    std::string got_text = printing ? capture.stop() : "";
    ASSERT_EQ(err, CL_SUCCESS) << "hkEnqueueNDRangeKernel";
    EXPECT_EQ(wait, CL_SUCCESS) << "hkWaitForEvents";
    EXPECT_EQ(finish, CL_SUCCESS) << "hkFinish";
    EXPECT_EQ(csr_out & kMxcsrControl, csr_in & kMxcsrControl)
        << std::hex << "the launch changed the caller's MXCSR control bits: 0x" << csr_in
        << " -> 0x" << csr_out;

    Outputs got;
    ASSERT_EQ(inst.read(cl.hk_queue, true, got), CL_SUCCESS);
    expect_same_outputs(ref.outputs, got, setup, c, kSides);
    expect_same_printf(ref.text, got_text, c, kSides);
  }

  // 3. Both launches must have run directly (on this thread, or split over the team when
  //    the kernel's launches were slow).
  ASSERT_EQ(hkGetKernelLaunchCounts(kh, &after), CL_SUCCESS);
  EXPECT_EQ(after.by_path[HK_PATH_INLINE] + after.by_path[HK_PATH_TEAM] -
                before.by_path[HK_PATH_INLINE] - before.by_path[HK_PATH_TEAM],
            cl_ulong{kRuns})
      << "launch paths: " << reasons(before, after);
  EXPECT_EQ(after.by_path[HK_PATH_QUEUE] - before.by_path[HK_PATH_QUEUE], cl_ulong{0})
      << "launch paths: " << reasons(before, after);
  hkReleaseKernel(kh);
}

// Every launch of the corpus has at most 8192 work-items and uniform work-groups, so that
// hostkernel's direct path must run it inline.
INSTANTIATE_TEST_SUITE_P(Kernels, Corpus, ::testing::ValuesIn(cases_for(Suite::Corpus)),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.name;
                         });

}  // namespace

// ---------------------------------------------------------------------------------------
// -DHK_QUEUE_ONLY: hk* become plain OpenCL calls (every launch counted as inline), so the
// harness and the corpus can be checked against PoCL alone before libhostkernel exists.
#ifdef HK_QUEUE_ONLY
#include <mutex>
namespace {
std::mutex g_counts_mutex;
std::map<cl_kernel, hk_launch_counts> g_counts;
}  // namespace
extern "C" {
cl_int hkEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *o,
                              const size_t *g, const size_t *l, cl_uint n, const cl_event *w,
                              cl_event *e) {
  cl_int err = clEnqueueNDRangeKernel(q, k, dim, o, g, l, n, w, e);
  if (err == CL_SUCCESS) {
    std::lock_guard<std::mutex> lock(g_counts_mutex);
    g_counts[k].by_path[HK_PATH_INLINE]++;
  }
  return err;
}
cl_int hkSetKernelArg(cl_kernel k, cl_uint i, size_t s, const void *v) {
  return clSetKernelArg(k, i, s, v);
}
cl_int hkSetKernelArgSVMPointer(cl_kernel k, cl_uint i, const void *v) {
  return clSetKernelArgSVMPointer(k, i, v);
}
cl_int hkFinish(cl_command_queue q) { return clFinish(q); }
cl_command_queue hkCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                    const cl_queue_properties *p, cl_int *e) {
  return clCreateCommandQueueWithProperties(c, d, p, e);
}
cl_int hkEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w,
                                   cl_event *e) {
  return clEnqueueMarkerWithWaitList(q, n, w, e);
}
cl_int hkWaitForEvents(cl_uint n, const cl_event *e) { return clWaitForEvents(n, e); }
cl_int hkEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, void *p,
                           cl_uint n, const cl_event *w, cl_event *e) {
  return clEnqueueReadBuffer(q, m, b, o, s, p, n, w, e);
}
cl_int hkEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
                            const void *p, cl_uint n, const cl_event *w, cl_event *e) {
  return clEnqueueWriteBuffer(q, m, b, o, s, p, n, w, e);
}
cl_mem hkCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *p, cl_int *e) {
  return clCreateBuffer(c, f, s, p, e);
}
cl_mem hkCreateSubBuffer(cl_mem m, cl_mem_flags f, cl_buffer_create_type t, const void *i,
                         cl_int *e) {
  return clCreateSubBuffer(m, f, t, i, e);
}
cl_kernel hkCreateKernel(cl_program p, const char *n, cl_int *e) { return clCreateKernel(p, n, e); }
cl_int hkReleaseKernel(cl_kernel k) {
  {
    std::lock_guard<std::mutex> lock(g_counts_mutex);
    g_counts.erase(k);
  }
  return clReleaseKernel(k);
}
cl_int hkReleaseProgram(cl_program p) { return clReleaseProgram(p); }
cl_int hkReleaseMemObject(cl_mem m) { return clReleaseMemObject(m); }
cl_int hkReleaseCommandQueue(cl_command_queue q) { return clReleaseCommandQueue(q); }
cl_int hkReleaseContext(cl_context c) { return clReleaseContext(c); }
cl_int hkReleaseEvent(cl_event e) { return clReleaseEvent(e); }
cl_int hkGetKernelLaunchCounts(cl_kernel k, hk_launch_counts *c) {
  std::lock_guard<std::mutex> lock(g_counts_mutex);
  *c = g_counts[k];
  return CL_SUCCESS;
}
const char *hkReasonString(hk_reason) { return "queue-only build"; }
}
#endif
