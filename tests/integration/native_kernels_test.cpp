// Native kernels (include/hostkernel/kernel.h, hk::Program::native): launches over sizes
// that no work-group size divides give, in 1, 2 and 3 dimensions, the host's results bit
// for bit and the same bytes as PoCL's queue; the first launch runs the checked variant
// everywhere and builds nothing else; later launches run full work-groups unchecked and
// boundary work-groups checked (seen through markers the kernel writes, which cannot come
// out right if all groups ran checked or if a boundary group ran unchecked); SPIR-V native
// programs have the same two variants.
#include <hostkernel/hostkernel.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "support/file_text.hpp"
#include "support/variant_groups.hpp"

#ifndef HK_KERNELS_DIR
#error "HK_KERNELS_DIR must name the kernels/ directory"
#endif
#ifndef HK_SPIRV_NATIVE_DIR
#error "HK_SPIRV_NATIVE_DIR must name the native kernels' SPIR-V directory"
#endif

namespace {

std::string nativeSource() {
  return FileText(std::string(HK_KERNELS_DIR) + "/native/native_variants.cl");
}
std::vector<std::uint8_t> nativeSpirv() {
  return FileBytes(std::string(HK_SPIRV_NATIVE_DIR) + "/native_variants.spv");
}

struct Shape {
  cl_uint dims;
  std::size_t global[3];
  std::size_t local[3];
  std::size_t groups(int d) const { return (global[d] + local[d] - 1) / local[d]; }
  std::size_t items() const { return global[0] * global[1] * global[2]; }
  std::size_t totalGroups() const { return groups(0) * groups(1) * groups(2); }
  std::size_t roundedItems() const {
    return groups(0) * local[0] * groups(1) * local[1] * groups(2) * local[2];
  }
  bool fullGroup(std::size_t gx, std::size_t gy, std::size_t gz) const {
    return (gx + 1) * local[0] <= global[0] && (gy + 1) * local[1] <= global[1] &&
           (gz + 1) * local[2] <= global[2];
  }
  std::size_t fullGroups() const {
    return (global[0] / local[0]) * (global[1] / local[1]) * (global[2] / local[2]);
  }
  hk::NDRange grid() const {
    return dims == 1 ? hk::NDRange(global[0])
         : dims == 2 ? hk::NDRange(global[0], global[1])
                     : hk::NDRange(global[0], global[1], global[2]);
  }
  hk::NDRange group() const {
    return dims == 1 ? hk::NDRange(local[0])
         : dims == 2 ? hk::NDRange(local[0], local[1])
                     : hk::NDRange(local[0], local[1], local[2]);
  }
  std::string str() const { return grid().str() + " in " + group().str(); }
};

// The native_marks kernel's buffers and its expected results.
struct Marks {
  static constexpr float kScale = 1.5f;
  Shape s;
  hk::Buffer<float> in, out;
  hk::Buffer<int> index, group_variant, seen;

  Marks(hk::Runtime &rt, const Shape &shape)
      : s(shape), in(rt, shape.items()), out(rt, shape.items()), index(rt, shape.items()),
        group_variant(rt, shape.totalGroups()), seen(rt, shape.roundedItems()) {
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1000) * 0.25f;
    reset();
  }
  void reset() {
    std::memset(out.data(), 0xff, out.bytes());
    std::memset(index.data(), 0xff, index.bytes());
    std::memset(group_variant.data(), 0xff, group_variant.bytes());
    std::memset(seen.data(), 0, seen.bytes());
  }
  void launch(hk::Kernel &k) {
    const hk::NDRange grid = s.grid(), group = s.group();
    k.launch(grid, group, kScale, in, out, index, group_variant, seen);
  }

  // The host's results, bit for bit, and the bounds every item saw.
  void expectResults() const {
    for (std::size_t i = 0; i < s.items(); ++i) {
      const float want = in[i] * kScale;
      ASSERT_EQ(std::memcmp(&out[i], &want, sizeof want), 0) << s.str() << " item " << i;
      ASSERT_EQ(index[i], static_cast<int>(i)) << s.str();
    }
    const std::size_t rx = s.groups(0) * s.local[0], ry = s.groups(1) * s.local[1],
                      rz = s.groups(2) * s.local[2];
    for (std::size_t z = 0; z < rz; ++z)
      for (std::size_t y = 0; y < ry; ++y)
        for (std::size_t x = 0; x < rx; ++x) {
          const bool inside = x < s.global[0] && y < s.global[1] && z < s.global[2];
          ASSERT_EQ(seen[(z * ry + y) * rx + x], inside ? 1 : 2)
              << s.str() << " item " << x << "," << y << "," << z
              << (inside ? "" : ": an item outside the ndrange ran unchecked");
        }
  }
  // Which variant ran each group: all checked, or unchecked exactly for the full ones.
  void expectVariants(bool mixed) const {
    for (std::size_t gz = 0; gz < s.groups(2); ++gz)
      for (std::size_t gy = 0; gy < s.groups(1); ++gy)
        for (std::size_t gx = 0; gx < s.groups(0); ++gx) {
          const int want = mixed && s.fullGroup(gx, gy, gz) ? 0 : 1;
          ASSERT_EQ(group_variant[(gz * s.groups(1) + gy) * s.groups(0) + gx], want)
              << s.str() << " group " << gx << "," << gy << "," << gz;
        }
  }
};

class NativeKernels : public ::testing::TestWithParam<Shape> {
 protected:
  hk::Runtime &rt = hk::Runtime::get();
};

// First launch: checked throughout, nothing else built. Second: the unchecked variant is
// built and runs exactly the full groups. Both equal the host; then hostkernel's queue
// path (a launch held by a user event) gives the same bytes.
void runVariantSequence(hk::Runtime &rt, hk::Program program, const Shape &s) {
  hk::Kernel k(program, "native_marks");
  ASSERT_TRUE(k.isNative());
  ASSERT_EQ(k.numArgs(), 6u);
  Marks m(rt, s);

  m.launch(k);
  rt.finish();
  m.expectResults();
  m.expectVariants(false);
  hk::KernelVariants v = k.variants();
  EXPECT_TRUE(v.native);
  EXPECT_FALSE(v.unchecked_built) << "the first launch built the unchecked variant";
  EXPECT_EQ(v.checked_groups, s.totalGroups());
  EXPECT_EQ(v.unchecked_groups, 0u);
  const std::vector<float> direct(m.out.begin(), m.out.end());

  m.reset();
  m.launch(k);
  rt.finish();
  m.expectResults();
  m.expectVariants(true);
  v = k.variants();
  EXPECT_TRUE(v.unchecked_built);
  EXPECT_TRUE(v.unchecked_used);
  EXPECT_EQ(v.unchecked_groups, s.fullGroups());
  EXPECT_EQ(v.checked_groups, 2 * s.totalGroups() - s.fullGroups());
  ASSERT_EQ(std::memcmp(direct.data(), m.out.data(), m.out.bytes()), 0);

  // The queue path: the checked variant on the rounded grid, argument 0 set for PoCL.
  m.reset();
  hk_launch_counts before = k.counts();
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(rt.context(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  float scale = Marks::kScale;
  cl_mem bufs[5] = {m.in.get(), m.out.get(), m.index.get(), m.group_variant.get(), m.seen.get()};
  ASSERT_EQ(hkSetKernelArg(k.get(), 1, sizeof scale, &scale), CL_SUCCESS);
  for (cl_uint i = 0; i < 5; ++i)
    ASSERT_EQ(hkSetKernelArg(k.get(), 2 + i, sizeof(cl_mem), &bufs[i]), CL_SUCCESS);
  ASSERT_EQ(hkEnqueueNDRangeKernel(rt.queue(), k.get(), s.dims, nullptr, s.global, s.local, 1,
                                   &gate, nullptr),
            CL_SUCCESS);
  clSetUserEventStatus(gate, CL_COMPLETE);
  rt.finish();
  clReleaseEvent(gate);
  EXPECT_EQ(k.counts().by_reason[HK_REASON_USER_EVENT],
            before.by_reason[HK_REASON_USER_EVENT] + 1);
  m.expectResults();
  m.expectVariants(false);
  EXPECT_EQ(std::memcmp(direct.data(), m.out.data(), m.out.bytes()), 0)
      << "direct launches differ from PoCL's queue";
}

TEST_P(NativeKernels, PartialGroupsMatchHostAndQueueAndRunTheRightVariant) {
  runVariantSequence(rt, hk::Program::native(rt, nativeSource()), GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, NativeKernels,
    ::testing::Values(Shape{1, {1000, 1, 1}, {64, 1, 1}},      // 15 full, 1 partial
                      Shape{1, {37, 1, 1}, {64, 1, 1}},        // one partial group only
                      Shape{2, {37, 23, 1}, {8, 4, 1}},
                      Shape{3, {13, 7, 5}, {4, 2, 2}},
                      Shape{2, {300, 70, 1}, {16, 4, 1}}),     // large: the team splits it
    [](const ::testing::TestParamInfo<Shape> &info) {
      std::string n = "d" + std::to_string(info.param.dims);
      for (cl_uint d = 0; d < info.param.dims; ++d) n += "_" + std::to_string(info.param.global[d]);
      return n;
    });

TEST(NativeKernelsSpirv, SpirvProgramHasBothVariants) {
  hk::Runtime &rt = hk::Runtime::get();
  std::vector<std::uint8_t> spv = nativeSpirv();
  ASSERT_FALSE(spv.empty());
  runVariantSequence(rt, hk::Program::nativeSpirv(rt, spv), Shape{2, {37, 23, 1}, {8, 4, 1}});
}

TEST(NativeKernelsTeam, LargeLaunchRunsOnTheTeamWithBothVariants) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Kernel k(hk::Program::native(rt, nativeSource()), "native_marks");
  Marks m(rt, Shape{2, {300, 70, 1}, {16, 4, 1}});
  m.launch(k);
  m.reset();
  m.launch(k);
  rt.finish();
  m.expectResults();
  m.expectVariants(true);
  EXPECT_GE(k.counts().by_path[HK_PATH_TEAM], 1u) << "the team's group split is not tested";
}

TEST(NativeKernelsOnce, AKernelLaunchedOnceCompilesOnlyTheCheckedProgram) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program p = hk::Program::native(rt, nativeSource());
  hk::Kernel k(p, "native_triad");
  hk::Buffer<float> a(rt, 256), b(rt, 256), c(rt, 256);
  for (std::size_t i = 0; i < 256; ++i) b[i] = c[i] = static_cast<float>(i);
  k.launch({256}, {64}, a, b, c, 2.0f);  // uniform: no partial group at all
  rt.finish();
  EXPECT_FALSE(k.variants().unchecked_built);
  for (std::size_t i = 0; i < 256; ++i) ASSERT_EQ(a[i], b[i] + 2.0f * c[i]);
  // Another kernel of the program shares the program's unchecked variant once built.
  hk::Kernel other(p, "native_marks");
  Marks m(rt, Shape{1, {100, 1, 1}, {32, 1, 1}});
  m.launch(other);
  EXPECT_FALSE(other.variants().unchecked_built);
  m.launch(other);
  EXPECT_TRUE(other.variants().unchecked_built);
  EXPECT_TRUE(k.variants().unchecked_built);  // the program's, shared
}

TEST(NativeKernelsBarrier, GuardedCodeBetweenBarriersMatchesTheHost) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Kernel k(hk::Program::native(rt, nativeSource()), "native_smooth");
  const std::size_t n = 1000, l = 64;
  hk::Buffer<float> in(rt, n), out(rt, n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i) * 0.5f;
  for (int round = 0; round < 2; ++round) {  // checked throughout, then both variants
    std::fill(out.begin(), out.end(), -1.0f);
    k.launch({n}, {l}, in, out, hk::Local<float>(l));
    rt.finish();
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t next = i / l * l + (i % l + 1) % l;
      ASSERT_EQ(out[i], in[i] + (next < n ? in[next] : 0.0f)) << "round " << round << " item " << i;
    }
  }
  EXPECT_GT(k.variants().unchecked_groups, 0u);
}

TEST(NativeKernelsPlain, PlainKernelOfANativeProgramHasNoHiddenArgument) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Kernel k(hk::Program::native(rt, nativeSource()), "plain_scale");
  EXPECT_FALSE(k.isNative());
  hk::Buffer<float> x(rt, {1.0f, 2.0f, 3.0f, 4.0f});
  k.launch({4}, 3.0f, x);
  rt.finish();
  EXPECT_EQ(x[3], 12.0f);
  EXPECT_EQ(k.counts().by_path[HK_PATH_QUEUE], 0u);
}

TEST(NativeKernelsDefaults, NoWorkGroupSizeGivenStillCoversAPrimeSize) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Kernel k(hk::Program::native(rt, nativeSource()), "native_triad");
  const std::size_t n = 1009;  // prime: PoCL's own choice would be work-groups of 1
  hk::Buffer<float> a(rt, n), b(rt, n), c(rt, n);
  for (std::size_t i = 0; i < n; ++i) b[i] = c[i] = static_cast<float>(i);
  k.launch({n}, a, b, c, 2.0f);
  k.launch({n}, a, b, c, 2.0f);
  rt.finish();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], b[i] + 2.0f * c[i]);
  hk::KernelVariants v = k.variants();
  EXPECT_EQ(v.checked_groups + v.unchecked_groups, 2u * 8u);  // 128-item groups (16 vectors)
  EXPECT_EQ(k.counts().by_path[HK_PATH_QUEUE], 0u);
}

}  // namespace

namespace {

// The C API: arguments from index 1, any global size; errors as OpenCL reports them.
TEST(NativeKernelsCApi, ArgumentsFromIndexOneAndErrors) {
  hk::Runtime &rt = hk::Runtime::get();
  const std::string source = nativeSource();
  const char *text = source.c_str();
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(hkCreateNativeProgramWithSource(rt.context(), 0, &text, nullptr, &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE);
  cl_program p = hkCreateNativeProgramWithSource(rt.context(), 1, &text, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_device_id device = rt.device();
  ASSERT_EQ(hkBuildProgram(p, 1, &device, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel k = hkCreateKernel(p, "native_triad", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t n = 997, wg = 32;
  hk::Buffer<float> a(rt, n), b(rt, n), c(rt, n);
  for (size_t i = 0; i < n; ++i) b[i] = c[i] = static_cast<float>(i);
  const float s = 2.0f;
  cl_mem mems[3] = {a.get(), b.get(), c.get()};
  for (cl_uint i = 0; i < 3; ++i)
    ASSERT_EQ(hkSetKernelArg(k, 1 + i, sizeof(cl_mem), &mems[i]), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(k, 4, sizeof s, &s), CL_SUCCESS);
  for (int round = 0; round < 3; ++round)
    ASSERT_EQ(hkEnqueueNDRangeKernel(rt.queue(), k, 1, nullptr, &n, &wg, 0, nullptr, nullptr),
              CL_SUCCESS);
  ASSERT_EQ(hkFinish(rt.queue()), CL_SUCCESS);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], b[i] + 2.0f * c[i]);
  cl_bool native = CL_FALSE;
  ASSERT_EQ(hkGetKernelVariantInfo(k, HK_KERNEL_VARIANT_NATIVE, sizeof native, &native, nullptr),
            CL_SUCCESS);
  EXPECT_TRUE(native);
  const VariantGroups groups = GroupsByVariant(k);
  EXPECT_EQ(groups.unchecked, 2u * 31u);  // launches 2 and 3: 31 full groups each
  EXPECT_EQ(groups.checked, 32u + 2u);    // launch 1 entirely, then the boundary group
  EXPECT_EQ(hkGetKernelVariantInfo(k, HK_KERNEL_VARIANT_NATIVE, sizeof native - 1, &native,
                                   nullptr),
            CL_INVALID_VALUE);
  hkReleaseKernel(k);
  hkReleaseProgram(p);
}

// hkGetKernelVariantInfo answers as clGetKernelWorkGroupInfo does: the size of every value,
// the value only where it fits, CL_INVALID_VALUE for names it does not know or short
// sizes (leaving the caller's memory alone), CL_INVALID_KERNEL without a kernel.
TEST(NativeKernelsCApi, VariantQueriesHaveOpenClErrorSemantics) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Kernel k(hk::Program::native(rt, R"(
      HK_KERNEL(scale, float a, global float *x) {
        if (hk_in_bounds()) x[hk_global_id(0)] *= a;
      })"),
               "scale");
  const struct {
    hk_kernel_variant_info name;
    size_t size;
  } kQueries[] = {
      {HK_KERNEL_VARIANT_NATIVE, sizeof(cl_bool)},
      {HK_KERNEL_VARIANT_UNCHECKED_BUILT, sizeof(cl_bool)},
      {HK_KERNEL_VARIANT_UNCHECKED_USED, sizeof(cl_bool)},
      {HK_KERNEL_VARIANT_CHECKED_GROUPS, sizeof(cl_ulong)},
      {HK_KERNEL_VARIANT_UNCHECKED_GROUPS, sizeof(cl_ulong)},
      {HK_KERNEL_VARIANT_SPECIALIZED_LOCAL_SIZE, 3 * sizeof(size_t)},
      {HK_KERNEL_VARIANT_SPECIALIZED_LAUNCHES, sizeof(cl_ulong)},
      {HK_KERNEL_VARIANT_GROUP_FREE, sizeof(cl_bool)},
      {HK_KERNEL_VARIANT_PLANNED_LOCAL_SIZE, 3 * sizeof(size_t)},
  };
  for (const auto &q : kQueries) {
    size_t size = 0;
    EXPECT_EQ(hkGetKernelVariantInfo(k.get(), q.name, 0, nullptr, &size), CL_SUCCESS) << q.name;
    EXPECT_EQ(size, q.size) << q.name;
    unsigned char value[3 * sizeof(size_t) + 1];
    std::memset(value, 0xAB, sizeof value);
    EXPECT_EQ(hkGetKernelVariantInfo(k.get(), q.name, q.size - 1, value, nullptr),
              CL_INVALID_VALUE)
        << q.name;
    for (unsigned char b : value) EXPECT_EQ(b, 0xAB) << q.name << ": written although short";
    size = 0;
    EXPECT_EQ(hkGetKernelVariantInfo(k.get(), q.name, sizeof value, value, &size), CL_SUCCESS)
        << q.name;
    EXPECT_EQ(size, q.size) << q.name;
    EXPECT_EQ(value[q.size], 0xAB) << q.name << ": written past the value";
  }
  cl_bool native = CL_FALSE;
  ASSERT_EQ(hkGetKernelVariantInfo(k.get(), HK_KERNEL_VARIANT_NATIVE, sizeof native, &native,
                                   nullptr),
            CL_SUCCESS);
  EXPECT_EQ(native, CL_TRUE);
  size_t size = 7;
  EXPECT_EQ(hkGetKernelVariantInfo(k.get(), 0x4B00, sizeof native, &native, &size),
            CL_INVALID_VALUE);
  EXPECT_EQ(hkGetKernelVariantInfo(k.get(), HK_KERNEL_VARIANT_PLANNED_LOCAL_SIZE + 1,
                                   sizeof native, &native, &size),
            CL_INVALID_VALUE);
  EXPECT_EQ(hkGetKernelVariantInfo(k.get(), CL_KERNEL_WORK_GROUP_SIZE, sizeof native, &native,
                                   &size),
            CL_INVALID_VALUE);
  EXPECT_EQ(size, 7u) << "size_ret written for an unknown name";
  EXPECT_EQ(hkGetKernelVariantInfo(nullptr, HK_KERNEL_VARIANT_NATIVE, sizeof native, &native,
                                   nullptr),
            CL_INVALID_KERNEL);
}

// A plain program's kernel is never native, even with a first parameter of that type.
TEST(NativeKernelsCApi, PlainProgramsAreNeverNative) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program p = hk::Program::fromSource(rt, R"(
      typedef struct hk_ndrange_t { ulong size[3]; } hk_ndrange_t;
      kernel void k(const hk_ndrange_t r, global ulong *out) { out[0] = r.size[0]; })");
  hk::Kernel k(p, "k");
  EXPECT_FALSE(k.isNative());
  EXPECT_EQ(k.numArgs(), 2u);
  EXPECT_FALSE(k.variants().native);
}

}  // namespace

namespace {

// An unchecked variant that does not build: the checked one runs every work-group, with
// the same results, and the launch never fails.
TEST(NativeKernelsFallback, UncheckedVariantThatDoesNotBuildLeavesTheCheckedOne) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program p = hk::Program::native(rt, R"(
      #if !HK_CHECKED
      #error this program has no unchecked variant
      #endif
      HK_KERNEL(fill, global int *out) {
        if (hk_in_bounds()) out[hk_global_id(0)] = (int)hk_global_id(0) + 100 * hk_checked();
      })");
  hk::Kernel k(p, "fill");
  hk::Buffer<int> out(rt, 100);
  for (int round = 0; round < 3; ++round) {
    std::fill(out.begin(), out.end(), -1);
    k.launch({100}, {16}, out);
    rt.finish();
    for (int i = 0; i < 100; ++i) ASSERT_EQ(out[i], i + 100) << "round " << round;
  }
  hk::KernelVariants v = k.variants();
  EXPECT_FALSE(v.unchecked_built);
  EXPECT_FALSE(v.unchecked_used);
  EXPECT_EQ(v.unchecked_groups, 0u);
  EXPECT_EQ(v.checked_groups, 3u * 7u);
  EXPECT_EQ(k.counts().by_path[HK_PATH_QUEUE], 0u);
}

}  // namespace
