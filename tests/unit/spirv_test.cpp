// SPIR-V → SPIR bitcode (program/spirv.hpp) and hkCreateProgramWithSPIRV's error codes.
//
// Bad input of every kind (empty, not SPIR-V, LLVM bitcode, big-endian, truncated at every
// length, zero word counts, wrong memory model, random corruption) must give false and a
// message, never crash or hang the test process: the translator (Debian's LLVMSPIRVLib 15
// is built with assertions) runs in a forked child.
//
// Inputs: the corpus's SPIR-V (build/spirv, target spirv_kernels) and test-only kernels
// (build/spirv-test, tests/unit/spirv_kernels).
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "pocl/release_checks.hpp"
#include "program/spirv.hpp"
#include "support/pocl_device.hpp"

#ifndef HK_SPIRV_DIR
#error "HK_SPIRV_DIR must name the corpus's SPIR-V directory"
#endif
#ifndef HK_SPIRV_TEST_DIR
#error "HK_SPIRV_TEST_DIR must name the test kernels' SPIR-V directory"
#endif

namespace {

using hk::program::SpirvTranslateOptions;
using hk::program::spirvToSpirBitcode;
using Bytes = std::vector<std::uint8_t>;

Bytes readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

Bytes corpus(const std::string &name) { return readFile(std::string(HK_SPIRV_DIR) + "/" + name); }

std::uint32_t wordAt(const Bytes &b, std::size_t i) {
  std::uint32_t w;
  std::memcpy(&w, &b[4 * i], 4);
  return w;
}
void setWord(Bytes &b, std::size_t i, std::uint32_t w) { std::memcpy(&b[4 * i], &w, 4); }

// Word offsets of the module's instructions, in order.
std::vector<std::size_t> instructions(const Bytes &b) {
  std::vector<std::size_t> at;
  for (std::size_t i = 5; i < b.size() / 4; i += wordAt(b, i) >> 16) {
    at.push_back(i);
    if ((wordAt(b, i) >> 16) == 0) break;
  }
  return at;
}

// The first instruction with opcode `op` (word offset), or 0.
std::size_t findOp(const Bytes &b, std::uint16_t op) {
  for (std::size_t i : instructions(b))
    if ((wordAt(b, i) & 0xFFFF) == op) return i;
  return 0;
}

// The module without its OpName instructions (as a producer that strips names makes it).
Bytes withoutNames(const Bytes &b) {
  Bytes out(b.begin(), b.begin() + 20);
  for (std::size_t i : instructions(b)) {
    std::uint32_t count = wordAt(b, i) >> 16;
    if ((wordAt(b, i) & 0xFFFF) == 5 /*OpName*/) continue;
    out.insert(out.end(), b.begin() + 4 * i, b.begin() + 4 * (i + count));
  }
  return out;
}

// A structurally valid module the library's decoder asserts on: an OpReturn before the
// first function (no block to belong to).
Bytes returnOutsideFunction(const Bytes &spv) {
  std::size_t fn = findOp(spv, 54 /*OpFunction*/);
  Bytes bad(spv.begin(), spv.begin() + 4 * fn);
  bad.insert(bad.end(), {0xFD, 0x00, 0x01, 0x00});  // word count 1, opcode 253 (OpReturn)
  bad.insert(bad.end(), spv.begin() + 4 * fn, spv.end());
  return bad;
}

// The module with an OpExtension the library does not know inserted after its
// capabilities: the library reports it by calling exit().
Bytes withUnknownExtension(const Bytes &spv) {
  std::size_t at = findOp(spv, 11 /*OpExtInstImport*/);
  std::string name = "SPV_HK_not_an_extension";
  Bytes text(name.begin(), name.end());
  text.resize((text.size() / 4 + 1) * 4, 0);  // NUL-terminated, whole words
  std::uint32_t head = static_cast<std::uint32_t>(1 + text.size() / 4) << 16 | 10 /*OpExtension*/;
  Bytes bad(spv.begin(), spv.begin() + 4 * at);
  bad.insert(bad.end(), reinterpret_cast<const std::uint8_t *>(&head),
             reinterpret_cast<const std::uint8_t *>(&head) + 4);
  bad.insert(bad.end(), text.begin(), text.end());
  bad.insert(bad.end(), spv.begin() + 4 * at, spv.end());
  return bad;
}

bool isBitcode(const Bytes &b) {
  return b.size() > 4 && b[0] == 'B' && b[1] == 'C' && b[2] == 0xC0 && b[3] == 0xDE;
}

struct Result {
  bool ok;
  Bytes bitcode;
  std::string error;
};

Result translate(const Bytes &spirv, SpirvTranslateOptions options = {}) {
  Result r;
  r.bitcode = {1, 2, 3};  // must be cleared on failure
  r.ok = spirvToSpirBitcode(spirv, r.bitcode, r.error, options);
  return r;
}

// Expects a clean failure whose message contains `what`.
void expectRejected(const Bytes &spirv, const std::string &what) {
  Result r = translate(spirv);
  EXPECT_FALSE(r.ok) << "accepted; expected an error containing '" << what << "'";
  EXPECT_TRUE(r.bitcode.empty());
  EXPECT_NE(r.error.find(what), std::string::npos) << "message: " << r.error;
}

TEST(SpirvTranslate, CorpusModuleBecomesSpirBitcode) {
  Bytes spv = corpus("axpy.spv");
  ASSERT_GT(spv.size(), 20u) << "build/spirv/axpy.spv missing (target spirv_kernels)";
  Result r = translate(spv);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(isBitcode(r.bitcode));
  EXPECT_EQ(r.error, "");
}

TEST(SpirvTranslate, InProcessAndIsolatedGiveTheSameBitcode) {
  Bytes spv = corpus("local_mixed.spv");
  Result a = translate(spv);
  SpirvTranslateOptions in_process;
  in_process.isolate = false;
  Result b = translate(spv, in_process);
  ASSERT_TRUE(a.ok) << a.error;
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_EQ(a.bitcode, b.bitcode);
}

TEST(SpirvTranslate, RejectsEmptyInput) { expectRejected({}, "empty"); }

TEST(SpirvTranslate, RejectsText) {
  std::string text = "kernel void f(global int *p) { *p = 1; }\n";
  expectRejected(Bytes(text.begin(), text.end()), "not SPIR-V: bad magic number");
}

TEST(SpirvTranslate, RejectsLlvmBitcode) {
  Bytes bc = readFile(std::string(HK_SPIRV_DIR) + "/axpy.bc");  // hk_add_spirv_kernels' by-product
  ASSERT_TRUE(isBitcode(bc));
  expectRejected(bc, "LLVM bitcode");
}

TEST(SpirvTranslate, RejectsBigEndianModules) {
  Bytes spv = corpus("axpy.spv");
  for (std::size_t i = 0; i < spv.size(); i += 4) std::swap(spv[i], spv[i + 3]), std::swap(spv[i + 1], spv[i + 2]);
  expectRejected(spv, "big-endian");
}

TEST(SpirvTranslate, RejectsSizesThatAreNotWholeWords) {
  Bytes spv = corpus("axpy.spv");
  spv.pop_back();
  expectRejected(spv, "not a multiple of 4");
}

TEST(SpirvTranslate, RejectsHeaderOnlyAndShortHeaders) {
  Bytes spv = corpus("axpy.spv");
  expectRejected(Bytes(spv.begin(), spv.begin() + 20), "no instructions");
  expectRejected(Bytes(spv.begin(), spv.begin() + 12), "shorter than the 20-byte header");
}

TEST(SpirvTranslate, RejectsBadHeaderFields) {
  Bytes spv = corpus("axpy.spv");
  Bytes v = spv;
  setWord(v, 1, 0x00020000);  // SPIR-V 2.0
  expectRejected(v, "version");
  Bytes bound = spv;
  setWord(bound, 3, 0);
  expectRejected(bound, "id bound");
  Bytes schema = spv;
  setWord(schema, 4, 7);
  expectRejected(schema, "schema");
}

TEST(SpirvTranslate, RejectsZeroWordCounts) {
  Bytes spv = corpus("axpy.spv");
  auto at = instructions(spv);
  ASSERT_GT(at.size(), 10u);
  setWord(spv, at[5], wordAt(spv, at[5]) & 0xFFFF);
  expectRejected(spv, "word count of 0");
}

TEST(SpirvTranslate, RejectsWordCountsPastTheEnd) {
  Bytes spv = corpus("axpy.spv");
  auto at = instructions(spv);
  std::size_t last = at.back();
  setWord(spv, last, (wordAt(spv, last) & 0xFFFF) | (0x1000u << 16));
  expectRejected(spv, "truncated SPIR-V");
}

TEST(SpirvTranslate, RejectsNonKernelModules) {
  Bytes spv = corpus("axpy.spv");
  std::size_t mm = findOp(spv, 14 /*OpMemoryModel*/);
  ASSERT_NE(mm, 0u);
  Bytes glsl = spv;
  setWord(glsl, mm + 1, 0);  // Logical
  setWord(glsl, mm + 2, 1);  // GLSL450
  expectRejected(glsl, "not an OpenCL kernel module");
  Bytes p32 = spv;
  setWord(p32, mm + 1, 1);  // Physical32
  expectRejected(p32, "32-bit SPIR-V");
  Bytes shader = spv;
  std::size_t ep = findOp(spv, 15 /*OpEntryPoint*/);
  ASSERT_NE(ep, 0u);
  setWord(shader, ep + 1, 5);  // GLCompute
  expectRejected(shader, "execution model 5");
}

// Truncated at every instruction boundary, the stream is structurally fine but incomplete:
// the translator (in the child) must fail or abort, and the caller gets a message.
TEST(SpirvTranslate, TruncatedAtEveryInstructionFailsCleanly) {
  Bytes spv = corpus("axpy.spv");
  auto at = instructions(spv);
  int crashed = 0;
  for (std::size_t k = 1; k < at.size(); ++k) {
    Bytes cut(spv.begin(), spv.begin() + 4 * at[k]);
    Result r = translate(cut);
    if (r.ok) {
      // A prefix can be a valid module (e.g. one without functions); it must be bitcode.
      EXPECT_TRUE(isBitcode(r.bitcode)) << "cut at instruction " << k;
      continue;
    }
    EXPECT_TRUE(r.bitcode.empty());
    EXPECT_FALSE(r.error.empty()) << "cut at instruction " << k;
    if (r.error.find("translator crashed") != std::string::npos) ++crashed;
  }
  // The library asserts on most of these: the isolation is what kept this test alive.
  EXPECT_GT(crashed, 0) << "no truncation crashed the translator: is it still needed?";
  RecordProperty("translator_crashes", crashed);
}

// The first input that makes the translator abort: a return outside any function
// (LLVMSPIRVLib 15 and 18 assert on it; 21 reads past it), else the first truncation that
// does.
TEST(SpirvTranslate, CrashOfTheTranslatorIsReportedWithItsAssertion) {
  const Bytes spv = corpus("axpy.spv");
  std::vector<Bytes> inputs{returnOutsideFunction(spv)};
  const auto at = instructions(spv);
  for (std::size_t k = 1; k < at.size(); ++k)
    inputs.emplace_back(spv.begin(), spv.begin() + 4 * at[k]);
  for (const Bytes &input : inputs) {
    Result r = translate(input);
    if (r.error.find("the translator crashed (SIGABRT)") == std::string::npos) continue;
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.bitcode.empty());
    EXPECT_NE(r.error.find("malformed SPIR-V: the translator crashed (SIGABRT)"),
              std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find("Assertion"), std::string::npos) << r.error;
    return;
  }
  FAIL() << "no input made the translator abort";
}

// LLVMSPIRVLib reports ordinary errors by calling exit(): in the child that is an error
// result with the library's message.
TEST(SpirvTranslate, LibraryCallingExitIsAnError) {
  Result r = translate(withUnknownExtension(corpus("axpy.spv")));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.bitcode.empty());
  EXPECT_NE(r.error.find("SPIR-V translation failed"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("unknown extension 'SPV_HK_not_an_extension'"), std::string::npos)
      << r.error;
}

TEST(SpirvTranslate, RandomCorruptionNeverCrashesTheCaller) {
  Bytes spv = corpus("axpy.spv");
  std::mt19937 rng(20240611);
  SpirvTranslateOptions options;
  options.timeout = std::chrono::milliseconds(3000);  // a few mutations make it loop
  int ok = 0, failed = 0;
  for (int n = 0; n < 60; ++n) {
    Bytes m = spv;
    std::size_t byte = 20 + rng() % (m.size() - 20);
    if (n % 3 == 0)
      setWord(m, byte / 4, static_cast<std::uint32_t>(rng()));
    else
      m[byte] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    Result r = translate(m, options);
    if (r.ok) {
      ++ok;
      EXPECT_TRUE(isBitcode(r.bitcode));
    } else {
      ++failed;
      EXPECT_TRUE(r.bitcode.empty());
      EXPECT_FALSE(r.error.empty());
    }
  }
  EXPECT_GT(failed, 0);
  RecordProperty("accepted", ok);
  RecordProperty("rejected", failed);
}

TEST(SpirvTranslate, ChildOverrunningTheTimeLimitIsStopped) {
  SpirvTranslateOptions options;
  options.timeout = std::chrono::milliseconds(0);
  Result r = translate(corpus("axpy.spv"), options);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("did not finish"), std::string::npos) << r.error;
}

TEST(SpirvTranslate, WorksWhenTheApplicationIgnoresSigchld) {
  struct sigaction old{}, ign{};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGCHLD, &ign, &old);
  Result good = translate(corpus("axpy.spv"));
  Bytes bad = corpus("axpy.spv");
  bad.resize(bad.size() / 2 / 4 * 4);
  Result r = translate(bad);
  sigaction(SIGCHLD, &old, nullptr);
  EXPECT_TRUE(good.ok) << good.error;
  EXPECT_FALSE(r.ok);
}

// The child must not flush the parent's stdio buffers (it ends with _exit, also when it
// crashes or the library calls exit()): output pending in the caller's buffer appears once.
TEST(SpirvTranslate, ChildDoesNotDuplicatePendingOutput) {
  FILE *f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  static char buf[4096];
  setvbuf(f, buf, _IOFBF, sizeof buf);
  std::fputs("pending;", f);
  Bytes bad = corpus("axpy.spv");
  bad.resize(bad.size() / 2 / 4 * 4);
  translate(corpus("axpy.spv"));                             // success: _exit
  translate(bad);                                            // abort
  translate(withUnknownExtension(corpus("axpy.spv")));       // the library's exit()
  std::fflush(f);
  std::rewind(f);
  char text[64] = {};
  std::size_t n = std::fread(text, 1, sizeof text - 1, f);
  std::fclose(f);
  EXPECT_EQ(std::string(text, n), "pending;");
}

// ---- what PoCL makes of the bitcode --------------------------------------------------

struct Pocl {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  Pocl() {
    if (!FindPoclDevice(nullptr, &device)) {
      device = nullptr;
      return;
    }
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
    queue = clCreateCommandQueueWithProperties(context, device, nullptr, nullptr);
  }
  static Pocl &get() {
    static Pocl *p = new Pocl();
    return *p;
  }
  // A built program from SPIR-V through hkCreateProgramWithSPIRV, or null.
  cl_program fromSpirv(const Bytes &spv, std::string &error) {
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateProgramWithSPIRV(context, spv.data(), spv.size(), &err);
    if (!p) {
      error = "hkCreateProgramWithSPIRV: " + std::to_string(err) + " " + hkGetLastSPIRVError();
      return nullptr;
    }
    // PoCL answers clGetKernelArgInfo only for programs built with -cl-kernel-arg-info.
    err = clBuildProgram(p, 1, &device, "-x spir -spir-std=1.2 -cl-kernel-arg-info", nullptr,
                         nullptr);
    if (err != CL_SUCCESS) {
      error = "clBuildProgram: " + std::to_string(err);
      clReleaseProgram(p);
      return nullptr;
    }
    return p;
  }
};

cl_ulong localMemSize(cl_program p, const char *kernel) {
  cl_kernel k = clCreateKernel(p, kernel, nullptr);
  cl_ulong size = ~cl_ulong{0};
  if (k) {
    clGetKernelWorkGroupInfo(k, Pocl::get().device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof size, &size,
                             nullptr);
    clReleaseKernel(k);
  }
  return size;
}

// Runs with_tile on PoCL's queue over 4 work-groups of 64 and checks the reversal.
void expectWithTileWorks(cl_program p) {
  Pocl &cl = Pocl::get();
  constexpr size_t n = 256, l = 64;
  std::vector<float> in(n), out(n, -1.0f);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i);
  cl_mem a = clCreateBuffer(cl.context, CL_MEM_COPY_HOST_PTR, n * 4, in.data(), nullptr);
  cl_mem b = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, n * 4, nullptr, nullptr);
  cl_kernel k = clCreateKernel(p, "with_tile", nullptr);
  ASSERT_NE(k, nullptr);
  clSetKernelArg(k, 0, sizeof a, &a);
  clSetKernelArg(k, 1, sizeof b, &b);
  ASSERT_EQ(clEnqueueNDRangeKernel(cl.queue, k, 1, nullptr, &n, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  clEnqueueReadBuffer(cl.queue, b, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], in[i / l * l + (l - 1 - i % l)]) << i;
  clReleaseKernel(k);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
}

std::string argName(cl_program p, const char *kernel, cl_uint index) {
  cl_kernel k = clCreateKernel(p, kernel, nullptr);
  char name[64] = {};
  if (k) {
    clGetKernelArgInfo(k, index, CL_KERNEL_ARG_NAME, sizeof name, name, nullptr);
    clReleaseKernel(k);
  }
  return name;
}

class SpirvPocl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Pocl::get().device) GTEST_SKIP() << "no PoCL CPU device";
  }
  // Whether PoCL reads the SPIR-V itself (clCreateProgramWithIL): then the SPIR route's
  // fixes for locals and argument names are not hostkernel's, and PoCL's own reader
  // decides what its queries answer.
  static bool poclReadsSpirv() {
    const hk::pocl::Release *r = hk::pocl::runningRelease(Pocl::get().device);
    return r && r->takes_il;
  }
  // Builds locals_two_kernels.spv, as read or with `edit` applied, and checks that each
  // kernel has only its own local memory and that with_tile works.
  static void ExpectLocalsOfTheirKernelOnly(Bytes (*edit)(const Bytes &)) {
    Bytes spv = readFile(std::string(HK_SPIRV_TEST_DIR) + "/locals_two_kernels.spv");
    if (edit) spv = edit(spv);
    ASSERT_GT(spv.size(), 20u);
    std::string error;
    cl_program p = Pocl::get().fromSpirv(spv, error);
    ASSERT_NE(p, nullptr) << error;
    EXPECT_EQ(localMemSize(p, "without_locals"), 0u);
    if (!poclReadsSpirv()) EXPECT_GE(localMemSize(p, "with_tile"), 256u * 4);
    expectWithTileWorks(p);
    clReleaseProgram(p);
  }
};

// PoCL 3.1 gives every addrspace(3) global of a module with !spirv.Source to every
// kernel; the translation must leave each local with its own kernel only.
TEST_F(SpirvPocl, KernelScopeLocalsBelongToTheirKernelOnly) {
  ExpectLocalsOfTheirKernelOnly(nullptr);
}

// Without OpName the local has no "<kernel>." name for PoCL to recognise: the translation
// names it after the kernel that uses it.
TEST_F(SpirvPocl, UnnamedLocalsAreNamedAfterTheirKernel) {
  ExpectLocalsOfTheirKernelOnly(withoutNames);
}

TEST_F(SpirvPocl, ArgumentNamesSurvive) {
  if (poclReadsSpirv()) GTEST_SKIP() << "PoCL's own SPIR-V reader keeps no argument names";
  std::string error;
  cl_program p = Pocl::get().fromSpirv(corpus("axpy.spv"), error);
  ASSERT_NE(p, nullptr) << error;
  EXPECT_EQ(argName(p, "axpy", 0), "a");
  EXPECT_EQ(argName(p, "axpy", 1), "x");
  EXPECT_EQ(argName(p, "axpy", 2), "y");
  clReleaseProgram(p);
}

TEST_F(SpirvPocl, CreateProgramErrorCodes) {
  Pocl &cl = Pocl::get();
  Bytes spv = corpus("axpy.spv");
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(hkCreateProgramWithSPIRV(nullptr, spv.data(), spv.size(), &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_CONTEXT);
  EXPECT_EQ(hkCreateProgramWithSPIRV(cl.context, nullptr, spv.size(), &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  EXPECT_EQ(hkCreateProgramWithSPIRV(cl.context, spv.data(), 0, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  const char text[] = "not spir-v at all";
  EXPECT_EQ(hkCreateProgramWithSPIRV(cl.context, text, sizeof text - 1, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  EXPECT_NE(std::string(hkGetLastSPIRVError()).find("not SPIR-V"), std::string::npos);
  Bytes bad = withUnknownExtension(spv);  // a well-formed stream the translator rejects
  EXPECT_EQ(hkCreateProgramWithSPIRV(cl.context, bad.data(), bad.size(), &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_BINARY);
  EXPECT_STRNE(hkGetLastSPIRVError(), "");
  cl_program p = hkCreateProgramWithSPIRV(cl.context, spv.data(), spv.size(), nullptr);
  EXPECT_NE(p, nullptr);
  EXPECT_STREQ(hkGetLastSPIRVError(), "");
  if (p) hkReleaseProgram(p);
}

}  // namespace
