// The work-groups that a kernel's direct launches ran by variant (hkGetKernelVariantInfo),
// for tests of native kernels' checked and unchecked variants.
//
//   const VariantGroups g = GroupsByVariant(k);
//   EXPECT_EQ(g.unchecked, 2u * 15u);
#pragma once

#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

struct VariantGroups {
  cl_ulong checked = 0;
  cl_ulong unchecked = 0;
};

inline VariantGroups GroupsByVariant(cl_kernel k) {
  VariantGroups g;
  EXPECT_EQ(hkGetKernelVariantInfo(k, HK_KERNEL_VARIANT_CHECKED_GROUPS, sizeof g.checked,
                                   &g.checked, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(hkGetKernelVariantInfo(k, HK_KERNEL_VARIANT_UNCHECKED_GROUPS, sizeof g.unchecked,
                                   &g.unchecked, nullptr),
            CL_SUCCESS);
  return g;
}
