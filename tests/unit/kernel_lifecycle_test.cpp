// kernel::DeviceKernel's lifecycle transitions that need no PoCL program: preparation is tried
// once per device and its failure remembered; a kernel without a hidden ndrange has no
// variant to settle, a native one has until its second launch.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "kernel/device_kernel.hpp"

namespace {

cl_device_id fakeDevice(std::uintptr_t n) { return reinterpret_cast<cl_device_id>(n * 64); }

TEST(KernelLifecycle, PreparationFailureIsRememberedPerDevice) {
  hk::kernel::DeviceKernel k;
  k.name = "k";
  int loads = 0;
  auto fail = [&](std::string &error) {
    ++loads;
    error = "no binary";
    return std::shared_ptr<hk::program::ProgramImage>();
  };
  const hk::kernel::ImageLoader none = fail;
  EXPECT_EQ(k.prepare(fakeDevice(1), none), HK_REASON_PREPARE_FAILED);
  EXPECT_EQ(k.prepare(fakeDevice(1), none), HK_REASON_PREPARE_FAILED);
  EXPECT_EQ(loads, 1) << "a failed device is not tried again";
  EXPECT_EQ(k.image.load(), nullptr);
  EXPECT_EQ(k.prepare(fakeDevice(2), none), HK_REASON_PREPARE_FAILED);
  EXPECT_EQ(loads, 2) << "another device is tried";
}

TEST(KernelLifecycle, OnlyNativeKernelsHaveVariantsToSettle) {
  hk::kernel::DeviceKernel plain;
  EXPECT_TRUE(plain.variantsSettled());
  hk::kernel::DeviceKernel native;
  native.hidden_ndrange = true;
  EXPECT_FALSE(native.variantsSettled());
  native.buildVariantIfDue(nullptr, fakeDevice(1));  // first launch: nothing is built
  EXPECT_FALSE(native.variantsSettled());
}

TEST(KernelLifecycle, NoSpecializedFunctionBeforeOneIsTaken) {
  hk::kernel::DeviceKernel k;
  hk::pocl::PoclContext pc{};
  for (int d = 0; d < 3; ++d) pc.local_size[d] = pc.num_groups[d] = 1;
  EXPECT_EQ(k.specializedFor(pc), nullptr);
  EXPECT_FALSE(k.addTeamWork(1'000'000'000)) << "no check is set before the first plan";
}

}  // namespace
