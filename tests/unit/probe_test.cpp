// Which PoCL builds hostkernel accepts: anything but PoCL 3.1's CPU device is queue-only.
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

TEST(Probe, AcceptsOnlyCpuDriverDeviceNames) {
  EXPECT_TRUE(isSupportedDeviceName("pthread-haswell-AMD EPYC"));
  EXPECT_TRUE(isSupportedDeviceName("basic-skylake"));
  EXPECT_FALSE(isSupportedDeviceName("cuda-sm_80"));
  EXPECT_FALSE(isSupportedDeviceName("remote-pthread"));
}

}  // namespace
}  // namespace hk::pocl
