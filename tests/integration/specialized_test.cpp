// Hot kernels get PoCL's work-group function specialized for their geometry
// (docs/specialized.md). Run by ctest twice with one PoCL kernel cache
// (tests/integration/specialized.cmake):
//  - cold (HOSTKERNEL_SPECIALIZE_MS=1): the cache is empty, so one launch goes through
//    PoCL's queue (HK_REASON_SPECIALIZE), which compiles the function; later team launches
//    of that geometry call it;
//  - warm (HK_TEST_SPECIALIZED_WARM=1, HOSTKERNEL_SPECIALIZE_MS=100000): PoCL's cache
//    already has it, so it is taken after 2 ms of team work, long before any compiling,
//    and no launch goes to the queue at all.
// Either way every result is the host's, bit for bit, and a launch of another geometry
// keeps the generic function.
#include <hostkernel/hostkernel.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

// No FMA contraction: the host computes the same bits. The kernel looks at its group
// (a test that always passes), so hostkernel keeps the launch's work-group size instead of
// merging groups (docs/launch.md, "Merged work-groups").
const char *kSource = R"(
#pragma OPENCL FP_CONTRACT OFF
kernel void triad(global float *a, global const float *b, global const float *c, float s) {
  size_t i = get_global_id(0);
  if (get_group_id(0) < get_num_groups(0)) a[i] = b[i] + s * c[i];
}
)";

bool warm() {
  const char *w = std::getenv("HK_TEST_SPECIALIZED_WARM");
  return w && std::string(w) == "1";
}

TEST(Specialized, HotKernelUsesPoclsSpecializedFunction) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Kernel k(hk::Program::fromSource(rt, kSource), "triad");
  constexpr std::size_t n = std::size_t{1} << 18;  // team-sized: 1024 groups of 256
  hk::Buffer<float> a(rt, n), b(rt, n), c(rt, n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<float>(i % 1000) * 0.5f;
    c[i] = static_cast<float>(i % 77) - 3.25f;
  }
  // Team work adds up to 1 ms (cold) or 2 ms (warm) within a few dozen launches.
  int launches = 0;
  for (float s = 1.0f; launches < 4000 && k.variants().specialized_launches < 5; s += 1.0f) {
    k.launch({n}, {256}, a, b, c, s);
    rt.finish();
    ++launches;
    for (std::size_t i = 0; i < n; i += 997) ASSERT_EQ(a[i], b[i] + s * c[i]) << i;
  }
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(a[i], b[i] + static_cast<float>(launches) * c[i]) << i;
  const hk::KernelVariants v = k.variants();
  EXPECT_GE(v.specialized_launches, 5u)
      << launches << " launches, " << k.counts().by_path[HK_PATH_TEAM] << " on the team, "
      << k.counts().by_path[HK_PATH_INLINE] << " on the calling thread";
  EXPECT_EQ(v.specialized_local_size[0], 256u);
  EXPECT_EQ(v.specialized_local_size[1], 1u);
  EXPECT_EQ(v.specialized_local_size[2], 1u);
  const hk_launch_counts counts = k.counts();
  EXPECT_EQ(counts.by_reason[HK_REASON_SPECIALIZE], warm() ? 0u : 1u);
  EXPECT_EQ(counts.by_path[HK_PATH_QUEUE], counts.by_reason[HK_REASON_SPECIALIZE]);

  // Another local size: the generic function, still the same results.
  const cl_ulong before = v.specialized_launches;
  k.launch({n}, {128}, a, b, c, 0.5f);
  rt.finish();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], b[i] + 0.5f * c[i]) << i;
  EXPECT_EQ(k.variants().specialized_launches, before);
  EXPECT_EQ(k.counts().by_path[HK_PATH_QUEUE], counts.by_path[HK_PATH_QUEUE]);
}

// A library that makes a kernel object per call (CLBlast) keeps the specialized function:
// the next kernel object of the same kernel starts with it, and with the team work that
// led to it, so its launches neither go back to the generic function nor through PoCL's
// queue again.
TEST(Specialized, ANewKernelObjectKeepsTheSpecializedFunction) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program program = hk::Program::fromSource(rt, kSource);
  constexpr std::size_t n = std::size_t{1} << 18;
  hk::Buffer<float> a(rt, n), b(rt, n), c(rt, n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<float>(i % 100);
    c[i] = 1.0f;
  }
  {
    hk::Kernel first(program, "triad");
    for (int launches = 0; launches < 4000 && first.variants().specialized_launches < 5;
         ++launches)
      first.launch({n}, {256}, a, b, c, 1.0f);
    rt.finish();
    ASSERT_GE(first.variants().specialized_launches, 5u);
  }
  hk::Kernel next(program, "triad");
  for (int i = 0; i < 3; ++i) next.launch({n}, {256}, a, b, c, 2.0f);
  rt.finish();
  for (std::size_t i = 0; i < n; i += 101) ASSERT_EQ(a[i], b[i] + 2.0f * c[i]) << i;
  EXPECT_EQ(next.variants().specialized_launches, 3u);
  EXPECT_EQ(next.counts().by_path[HK_PATH_QUEUE], 0u);
}

}  // namespace
