// The release descriptions (src/pocl/release.hpp): which platform strings select which
// description, PoCL's clipping of long kernel names, and the one pocl_context layout that
// serves the 96-byte and the 112-byte struct.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "pocl/abi.hpp"
#include "pocl/release.hpp"
#include "pocl/sha1.hpp"

namespace hk::pocl {
namespace {

TEST(PoclRelease, PlatformVersionSelectsTheDescription) {
  const Release *r31 = findRelease("OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, RELOC, SPIR");
  const Release *r60 = findRelease("OpenCL 3.0 PoCL 6.0+debian  Linux, RELOC, SPIR-V, LLVM 18.1.8");
  const Release *r71 = findRelease("OpenCL 3.0 PoCL 7.1+debian  Linux, RELOC, SPIR-V, LLVM 21.1.8");
  ASSERT_TRUE(r31 && r60 && r71);
  EXPECT_EQ(r31->context_size, 96u);
  EXPECT_EQ(r31->binary_version, 9u);
  EXPECT_EQ(r31->object_id_offset, 8u);
  EXPECT_STREQ(r31->device_prefix, "pthread");
  EXPECT_FALSE(r31->takes_il);
  EXPECT_EQ(r60->context_size, 112u);
  EXPECT_EQ(r60->binary_version, 11u);
  EXPECT_EQ(r60->dir_clip, 64u);
  EXPECT_EQ(r60->file_clip, 59u);
  EXPECT_EQ(r60->printf_mode, PrintfMode::KernelWrites);
  EXPECT_TRUE(r60->has_program_scope_variables);
  EXPECT_EQ(r71->object_id_offset, 16u);
  EXPECT_TRUE(r71->has_execution_failed);
  EXPECT_EQ(r71->printf_mode, PrintfMode::BinaryRecords);
  EXPECT_EQ(&baselineRelease(), r31);
  for (const char *v : {"OpenCL 3.0 PoCL 5.0", "OpenCL 3.0 PoCL 7.2+debian", "PoCL 8.0",
                        "OpenCL 3.0 PoCL 3.10", "OpenCL 3.0 PoCL 6", "OpenCL 3.0 pocl 6.0",
                        "OpenCL 3.0 PoCL 7.1.1", ""})
    EXPECT_EQ(findRelease(v), nullptr) << v;
  EXPECT_EQ(findRelease("OpenCL 3.0 PoCL 6.0-RC2  Linux"), r60);
  EXPECT_EQ(supportedReleases().find("3.1"), 0u);
}

TEST(PoclRelease, Sha1OfKnownMessages) {
  auto hex = [](std::string_view s) {
    std::string out;
    for (std::uint8_t b : sha1(s)) {
      out += "0123456789abcdef"[b >> 4];
      out += "0123456789abcdef"[b & 15];
    }
    return out;
  };
  EXPECT_EQ(hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  // 56 bytes: the padding needs a second block.
  EXPECT_EQ(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

// The names PoCL 6.0 and 7.1 wrote for these kernels (docs/pocl-releases.md).
TEST(PoclRelease, LongKernelNamesAreClippedAsPoclClipsThem) {
  const std::string longer = "a_kernel_name_that_is_much_longer_than_sixty_four_characters_in_total_x";
  const std::string sixty = "name_of_exactly_sixty_characters_for_the_clipping_rule_aaaaa";
  ASSERT_EQ(longer.size(), 71u);
  ASSERT_EQ(sixty.size(), 60u);
  const std::string d64 = clippedName(longer, 64);
  EXPECT_EQ(d64.size(), 64u);
  EXPECT_EQ(d64.rfind("a_kernel_name_that_is_m.IBFE", 0), 0u) << d64;
  EXPECT_EQ(d64.substr(60), "FECG") << d64;
  const std::string f59 = clippedName(longer, 59);
  EXPECT_EQ(f59.rfind("a_kernel_name_that.IBFE", 0), 0u) << f59;
  EXPECT_EQ(clippedName(sixty, 64), sixty);
  const std::string s59 = clippedName(sixty, 59);
  EXPECT_EQ(s59.rfind("name_of_exactly_si.NIPJ", 0), 0u) << s59;
  EXPECT_EQ(s59.substr(s59.size() - 5), "DOMPO") << s59;
  EXPECT_EQ(clippedName(longer, 0), longer);
  EXPECT_EQ(clippedName("axpy", 59), "axpy");
}

// 3.1's compiled code reads the first 96 bytes: its fields must be where it expects them,
// and the 112-byte layout's work_dim and execution_failed where 4.0 and later expect them.
TEST(PoclRelease, OneContextServesBothLayouts) {
  PoclContext pc{};
  std::memset(&pc, 0xff, sizeof pc);
  setWorkDim(pc, 2);
  unsigned char raw[sizeof pc];
  std::memcpy(raw, &pc, sizeof pc);
  std::uint32_t at92, at104, at108;
  std::memcpy(&at92, raw + 92, 4);
  std::memcpy(&at104, raw + 104, 4);
  std::memcpy(&at108, raw + 108, 4);
  EXPECT_EQ(at92, 2u);   // 3.1: work_dim
  EXPECT_EQ(at104, 2u);  // 4.0 and later: work_dim
  EXPECT_EQ(at108, 0u);  // 7.0 and later: execution_failed, cleared
  EXPECT_EQ(workDim(pc), 2u);
  EXPECT_FALSE(executionFailed(pc));
  at108 = 1;
  std::memcpy(reinterpret_cast<unsigned char *>(&pc) + 108, &at108, 4);
  EXPECT_TRUE(executionFailed(pc));
  EXPECT_EQ(workDim(pc), 2u);
}

}  // namespace
}  // namespace hk::pocl
