// Which PoCL builds hostkernel accepts: only the CPU devices of the releases that
// release.hpp describes with direct launches; anything else is queue-only.
#include <gtest/gtest.h>

#include "pocl/probe.hpp"

namespace hk::pocl {
namespace {

TEST(Probe, AcceptsPocl31PlatformVersions) {
  EXPECT_TRUE(isSupportedPoclVersion(
      "OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, RELOC, SPIR, LLVM 15.0.6, SLEEF"));
  EXPECT_TRUE(isSupportedPoclVersion("OpenCL 3.0 PoCL 3.1 Linux"));
}

TEST(Probe, RefusesOtherPoclVersions) {
  EXPECT_FALSE(isSupportedPoclVersion("OpenCL 3.0 PoCL 3.0+debian Linux"));
  EXPECT_FALSE(isSupportedPoclVersion("OpenCL 3.0 PoCL 4.0 Linux"));
  EXPECT_FALSE(isSupportedPoclVersion("OpenCL 3.0 PoCL 3.10 Linux"));
  EXPECT_FALSE(isSupportedPoclVersion("OpenCL 3.0 CUDA 12.0"));
  EXPECT_FALSE(isSupportedPoclVersion(""));
}

TEST(Probe, AcceptsPocl60PlatformVersions) {
  EXPECT_TRUE(isSupportedPoclVersion(
      "OpenCL 3.0 PoCL 6.0+debian  Linux, None+Asserts, RELOC, SPIR-V, LLVM 18.1.8, SLEEF"));
  EXPECT_FALSE(isSupportedPoclVersion("OpenCL 3.0 PoCL 5.0 Linux"));
  EXPECT_FALSE(isSupportedPoclVersion("OpenCL 3.0 PoCL 7.2 Linux"));
  EXPECT_FALSE(isSupportedPoclVersion("OpenCL 3.0 PoCL 8.0 Linux"));
}

TEST(Probe, AcceptsOnlyEachReleasesCpuDriverDeviceNames) {
  const Release &r31 = *findRelease("OpenCL 3.0 PoCL 3.1");
  const Release &r60 = *findRelease("OpenCL 3.0 PoCL 6.0");
  EXPECT_TRUE(isReleaseDeviceName(r31, "pthread-haswell-AMD EPYC"));
  EXPECT_TRUE(isReleaseDeviceName(r31, "basic-skylake"));
  EXPECT_FALSE(isReleaseDeviceName(r31, "cpu-skylake"));
  EXPECT_FALSE(isReleaseDeviceName(r31, "cuda-sm_80"));
  EXPECT_FALSE(isReleaseDeviceName(r31, "remote-pthread"));
  EXPECT_TRUE(isReleaseDeviceName(r60, "cpu-skylake"));
  EXPECT_TRUE(isReleaseDeviceName(r60, "cpu-minimal-skylake"));
  EXPECT_FALSE(isReleaseDeviceName(r60, "pthread-skylake"));
  EXPECT_FALSE(isReleaseDeviceName(r60, "remote-cpu"));
}

}  // namespace
}  // namespace hk::pocl
