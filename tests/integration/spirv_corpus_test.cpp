// SPIR-V corpus test: every kernel of kernels/, compiled to SPIR-V at build time
// (hk_add_spirv_kernels → build/spirv/<file>.spv), made into a program with
// hkCreateProgramWithSPIRV and launched through hostkernel, must compute exactly what the
// same kernel built from its OpenCL C source computes on PoCL's own queue.
//
// For each case (one kernel, one geometry):
//   1. reference: the source program, clSetKernelArg + clEnqueueNDRangeKernel + clFinish
//      on a kernel hostkernel never sees; every buffer is read back, and checked against
//      what the kernel computes where the case has a check;
//   2. SPIR-V: the same buffers reset, a kernel of the SPIR-V program from hkCreateKernel,
//      hkSetKernelArg + hkEnqueueNDRangeKernel, launched twice, each time compared with
//      memcmp against the reference (printf output compared as text);
//   3. hkGetKernelLaunchCounts: the first launch ran inline and no launch went to PoCL's
//      queue (the second may run on the team if the first was slow, as the design says).
// Geometry edge cases are corpus_test's job; here each kernel gets one or two ordinary
// geometries, chosen in the tables of corpus_cases/ (Row::spirv). EveryCorpusKernelHasACase
// fails when a kernel is added to kernels/ without such a case (or a reason in
// kNotThroughSpirv).
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "integration/corpus_cases/cases.hpp"
#include "support/corpus_compare.hpp"
#include "support/corpus_harness.hpp"
#include "support/corpus_support.hpp"

#ifndef HK_SPIRV_DIR
#error "HK_SPIRV_DIR must name the corpus's SPIR-V directory"
#endif

// hostkernel makes its queue, as the C++ API does.
corpus::Cl &corpus::Cl::get() {
  static Cl *cl = new Cl(QueueBy::kHostkernel);
  return *cl;
}

namespace {

using namespace corpus;

const Sides kSides{"the source program", "SPIR-V"};

// Kernels of kernels/ that do not go through SPIR-V, with the reason. (None so far:
// printf, program-scope constants, SVM pointers in structs, by-value structs, vector
// arguments, reqd_work_group_size and automatic locals all translate.)
const std::map<std::string, std::string> kNotThroughSpirv = {};

// build/spirv/<stem of file>.spv through hkCreateProgramWithSPIRV, built with `options`.
const Built &spirv_program(Cl &cl, const std::string &file, const std::string &options) {
  std::string stem = std::filesystem::path(file).stem().string();
  std::string path = std::string(HK_SPIRV_DIR) + "/" + stem + ".spv";
  return cl.build(path, "-x spir -spir-std=1.2 " + options,
                  [&](std::string &error) -> cl_program {
                    std::string bytes = read_file(path);
                    if (bytes.empty()) {
                      error = "cannot read " + path;
                      return nullptr;
                    }
                    cl_int err = CL_SUCCESS;
                    cl_program p = hkCreateProgramWithSPIRV(cl.context, bytes.data(),
                                                            bytes.size(), &err);
                    if (!p)
                      error = "hkCreateProgramWithSPIRV(" + path + "): " +
                              std::to_string(err) + ": " + hkGetLastSPIRVError();
                    return p;
                  });
}

// ---- the test ---------------------------------------------------------------------------
class SpirvCorpus : public CaseTest {};

TEST_P(SpirvCorpus, MatchesSourceProgramOnPoclQueueBitForBit) {
  const Case &c = GetParam();
  Cl &cl = Cl::get();
  ASSERT_EQ(cl.error, "");
  const Built &source = cl.program(c.file, c.options);
  ASSERT_NE(source.program, nullptr) << source.error;
  const Built &spirv = spirv_program(cl, c.file, c.options);
  ASSERT_NE(spirv.program, nullptr) << spirv.error;

  const Geometry &g = c.geometry;
  Resources r = c.setup(g);
  Instance inst(cl, r);
  ASSERT_EQ(inst.error(), "");

  // 1. Reference: the source program on PoCL's queue.
  Reference ref;
  ASSERT_NO_FATAL_FAILURE(launch_reference(cl, inst, source.program, c, ref));
  // PoCL 7.1 fails its own launch of the source workitem_builtins (it cannot load the
  // library it compiled, docs/pocl-releases.md): no reference to compare with.
  if (ref.status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    GTEST_SKIP() << "PoCL's own queue fails the source program's " << c.kernel << " "
                 << g.str() << " (its event ends with an error)";
  ASSERT_EQ(ref.status, CL_SUCCESS) << "clWaitForEvents on PoCL's launch";
  ASSERT_NO_FATAL_FAILURE(read_reference(cl, inst, c, ref));

  // 2. The SPIR-V program through hostkernel, twice.
  cl_int err = CL_SUCCESS;
  cl_kernel kh = hkCreateKernel(spirv.program, c.kernel.c_str(), &err);
  ASSERT_EQ(err, CL_SUCCESS) << "hkCreateKernel(SPIR-V) " << c.kernel;
  ASSERT_EQ(inst.set_args(kh, true), CL_SUCCESS);
  hk_launch_counts before{}, first{}, after{};
  hkGetKernelLaunchCounts(kh, &before);
  bool printing = c.printf_mode != PrintfMode::None;
  StdoutCapture capture;
  constexpr int kRuns = 2;
  for (int run = 0; run < kRuns; ++run) {
    SCOPED_TRACE("SPIR-V launch " + std::to_string(run + 1));
    ASSERT_EQ(inst.reset(cl.hk_queue, true), CL_SUCCESS);
    if (printing) capture.start();
    err = hkEnqueueNDRangeKernel(cl.hk_queue, kh, g.dim, g.offset_or_null(), g.global,
                                 g.local_or_null(), 0, nullptr, nullptr);
    cl_int finish = hkFinish(cl.hk_queue);
    std::string got_text = printing ? capture.stop() : "";
    if (run == 0) hkGetKernelLaunchCounts(kh, &first);
    ASSERT_EQ(err, CL_SUCCESS) << "hkEnqueueNDRangeKernel";
    ASSERT_EQ(finish, CL_SUCCESS);
    Outputs got;
    ASSERT_EQ(inst.read(cl.hk_queue, true, got), CL_SUCCESS);
    expect_same_outputs(ref.outputs, got, r, c, kSides);
    expect_same_printf(ref.text, got_text, c, kSides);
  }

  // 3. Direct launches, the first one included; none on PoCL's queue.
  ASSERT_EQ(hkGetKernelLaunchCounts(kh, &after), CL_SUCCESS);
  EXPECT_EQ(first.by_path[HK_PATH_INLINE] + first.by_path[HK_PATH_TEAM] -
                before.by_path[HK_PATH_INLINE] - before.by_path[HK_PATH_TEAM],
            1u);
  EXPECT_EQ(after.by_path[HK_PATH_QUEUE] - before.by_path[HK_PATH_QUEUE], 0u)
      << "a launch of the SPIR-V program went to PoCL's queue";
  EXPECT_EQ(after.by_path[HK_PATH_INLINE] + after.by_path[HK_PATH_TEAM] -
                before.by_path[HK_PATH_INLINE] - before.by_path[HK_PATH_TEAM],
            cl_ulong{kRuns});
  hkReleaseKernel(kh);
}

INSTANTIATE_TEST_SUITE_P(Kernels, SpirvCorpus, ::testing::ValuesIn(cases_for(Suite::Spirv)),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.name;
                         });

// Every kernel of every kernels/*.cl (as PoCL lists them) has a SPIR-V case, or a reason in
// kNotThroughSpirv; and every such file has its SPIR-V.
TEST(SpirvCorpusCoverage, EveryCorpusKernelHasACase) {
  Cl &cl = Cl::get();
  ASSERT_EQ(cl.error, "");
  std::set<std::string> covered;
  for (const Case &c : cases_for(Suite::Spirv)) covered.insert(c.kernel);
  for (const auto &entry : std::filesystem::directory_iterator(HK_KERNELS_DIR)) {
    if (entry.path().extension() != ".cl") continue;
    std::string file = entry.path().filename().string();
    SCOPED_TRACE(file);
    EXPECT_TRUE(std::filesystem::exists(std::string(HK_SPIRV_DIR) + "/" +
                                        entry.path().stem().string() + ".spv"))
        << "no SPIR-V built for it (target spirv_kernels)";
    const Built &built = cl.program(file, "");
    ASSERT_NE(built.program, nullptr) << built.error;
    size_t size = 0;
    clGetProgramInfo(built.program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size);
    std::string names(size, '\0');
    clGetProgramInfo(built.program, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr);
    names.resize(std::strlen(names.c_str()));
    std::istringstream list(names);
    for (std::string k; std::getline(list, k, ';');)
      EXPECT_TRUE(covered.count(k) || kNotThroughSpirv.count(k))
          << "kernel " << k << " has no SPIR-V case in the tables of corpus_cases/";
  }
}

}  // namespace
