// Regression (found by fuzz/spirv_fuzz): on some malformed modules LLVMSPIRVLib 15
// allocates without bound. fuzz/regressions/spirv_fuzz/translator-huge-allocation.spv, a
// 4.6 KB module, made the translator child grow to 16.8 GB of resident memory before the
// 60 s timeout stopped it: enough to push a machine into swap or make the kernel's OOM
// killer pick a process (possibly the application itself). The translator child must have
// a memory limit and fail fast.
//
// The test gives the translation a 10 s timeout (so that an unfixed build hurts the
// machine less) and checks the child's peak resident memory (RUSAGE_CHILDREN: this test
// binary has no other children).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "program/spirv.hpp"

namespace {

namespace fs = std::filesystem;

TEST(SpirvMemory, MalformedModuleCannotMakeTheTranslatorUseUnboundedMemory) {
  const fs::path input = fs::path(HK_KERNELS_DIR) / ".." / "fuzz" / "regressions" /
                         "spirv_fuzz" / "translator-huge-allocation.spv";
  std::ifstream f(input, std::ios::binary);
  ASSERT_TRUE(f) << input;
  const std::vector<std::uint8_t> module{std::istreambuf_iterator<char>(f),
                                         std::istreambuf_iterator<char>()};
  hk::program::SpirvTranslateOptions options;
  options.timeout = std::chrono::seconds(10);
  std::vector<std::uint8_t> bitcode;
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(hk::program::spirvToSpirBitcode(module, bitcode, error, options));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  struct rusage ru {};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &ru), 0);
  const double peak_gib = double(ru.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB
  std::printf("translation failed after %.1f s, child peak RSS %.2f GiB: %s\n", seconds,
              peak_gib, error.c_str());
  EXPECT_LT(peak_gib, 3.0) << "the translator child used " << peak_gib << " GiB";
  EXPECT_LT(seconds, 9.0) << "the translation ran into the timeout instead of failing";
}

}  // namespace
