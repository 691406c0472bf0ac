// The fuzz targets' inputs, replayed in the normal (and sanitizer) test builds: every seed
// of fuzz/corpus/<target>/ and every input a fuzzer ever found a problem with,
// fuzz/regressions/<target>/ (none so far: scripts/fuzz-short.sh and 10-minute runs of
// each target found nothing), through the same entry points and checks as the targets.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pocl/binary.hpp"
#include "program/spirv.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kFuzzDir = fs::path(HK_KERNELS_DIR) / ".." / "fuzz";

std::vector<fs::path> inputsOf(const std::string &target) {
  std::vector<fs::path> out;
  for (const char *kind : {"corpus", "regressions"}) {
    const fs::path dir = kFuzzDir / kind / target;
    if (!fs::is_directory(dir)) continue;
    for (const auto &e : fs::directory_iterator(dir))
      if (e.is_regular_file()) out.push_back(e.path());
  }
  return out;
}

std::vector<std::uint8_t> readFile(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

bool inside(std::span<const std::uint8_t> s, const std::vector<std::uint8_t> &buf) {
  return s.empty() || (s.data() >= buf.data() && s.data() + s.size() <= buf.data() + buf.size());
}

TEST(FuzzRegressions, PoclBinaryInputsParseOrFailCleanly) {
  const auto inputs = inputsOf("poclbinary_fuzz");
  ASSERT_FALSE(inputs.empty()) << "no inputs under " << kFuzzDir;
  for (const auto &path : inputs) {
    const std::vector<std::uint8_t> bytes = readFile(path);
    hk::pocl::PoclBinary bin;
    std::string error;
    const bool ok = hk::pocl::parsePoclBinary(bytes.data(), bytes.size(), bin, error);
    if (path.parent_path().parent_path().filename() == "corpus") {
      EXPECT_TRUE(ok) << path << ": a seed must parse: " << error;
    }
    if (!ok) {
      EXPECT_EQ(error.rfind("poclbinary: ", 0), 0u) << path;
      EXPECT_TRUE(bin.kernels.empty()) << path;
      continue;
    }
    for (const auto &f : bin.program_files) EXPECT_TRUE(inside(f.bytes, bytes)) << path;
    for (const auto &k : bin.kernels) {
      EXPECT_EQ(k.args.size(), k.num_args) << path;
      EXPECT_EQ(k.local_sizes.size(), k.num_locals) << path;
      for (const auto &f : k.files) {
        EXPECT_EQ(f.path.rfind(k.name + "/", 0), 0u) << path << ": " << f.path;
        EXPECT_TRUE(inside(f.bytes, bytes)) << path << ": " << f.path;
      }
    }
  }
}

TEST(FuzzRegressions, SpirvInputsPassOrFailTheStructureCheckCleanly) {
  for (const char *target : {"spirv_fuzz", "spirv_structure_fuzz"}) {
    const auto inputs = inputsOf(target);
    ASSERT_FALSE(inputs.empty()) << "no inputs for " << target << " under " << kFuzzDir;
    for (const auto &path : inputs) {
      const std::vector<std::uint8_t> bytes = readFile(path);
      std::string error;
      const bool ok = hk::program::checkSpirvStructure(bytes, error);
      if (path.parent_path().parent_path().filename() == "corpus")
        EXPECT_TRUE(ok) << path << ": a seed must pass: " << error;
      if (!ok) EXPECT_FALSE(error.empty()) << path;
    }
  }
}

}  // namespace
