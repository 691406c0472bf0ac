// A program of many kernels, of which a few are launched directly, has only those few
// compiled (docs/first-launch.md, "One kernel compiled"): each one's first launch goes to
// PoCL's queue, which compiles its work-group function for that geometry into PoCL's
// kernel cache, and its later launches call that function directly. Run by ctest with a
// private, empty PoCL kernel cache (tests/integration/one_kernel_compiled.cmake), which the
// test then reads: only the launched kernels have a library there. A launch with another
// geometry takes the program's binary, as before: every kernel compiled, the same results.
#include <hostkernel/hostkernel.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr int kKernels = 64;

// kKernels kernels "<prefix><j>" that write v * 3 + j.
std::string source(const std::string &prefix) {
  std::string s;
  for (int j = 0; j < kKernels; ++j)
    s += "kernel void " + prefix + std::to_string(j) +
         "(global int *o, int v) { o[get_global_id(0)] = v * 3 + " + std::to_string(j) +
         "; }\n";
  return s;
}

// The kernels of the program whose kernel names start with `prefix` that have a compiled
// library in PoCL's kernel cache ($POCL_CACHE_DIR/<build hash>/<kernel>/<variant>/*.so).
std::set<std::string> compiledKernels(const std::string &prefix) {
  std::set<std::string> out;
  const char *top = std::getenv("POCL_CACHE_DIR");
  if (!top) return out;
  for (const fs::directory_entry &e : fs::recursive_directory_iterator(top)) {
    if (!e.is_regular_file() || e.path().extension() != ".so") continue;
    const std::string kernel = e.path().parent_path().parent_path().filename().string();
    if (kernel.rfind(prefix, 0) == 0) out.insert(kernel);
  }
  return out;
}

void check(const hk::Buffer<int> &o, std::size_t n, int v, int j) {
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(o[i], v * 3 + j) << i;
}

TEST(OneKernelCompiled, DirectLaunchesCompileOnlyTheirKernels) {
  ASSERT_NE(std::getenv("POCL_CACHE_DIR"), nullptr);
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program program = hk::Program::fromSource(rt, source("one_"));
  constexpr std::size_t n = 1024;
  hk::Buffer<int> o(rt, n);
  for (int j : {5, 17, 40}) {
    hk::Kernel k(program, "one_" + std::to_string(j));
    for (int v = 1; v <= 6; ++v) {
      k.launch({n}, {64}, o, v);
      rt.finish();
      check(o, n, v, j);
    }
    const hk_launch_counts c = k.counts();
    EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 1u) << j;  // the first launch: PoCL compiles it
    EXPECT_EQ(c.by_reason[HK_REASON_FIRST_LAUNCH], 1u) << j;
    EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 5u) << j;
  }
  EXPECT_EQ(compiledKernels("one_"), (std::set<std::string>{"one_5", "one_17", "one_40"}));
}

TEST(OneKernelCompiled, AnotherGeometryTakesTheBinary) {
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program program = hk::Program::fromSource(rt, source("two_"));
  constexpr std::size_t n = 1024;
  hk::Buffer<int> o(rt, n);
  hk::Kernel k(program, "two_9");
  for (int v = 1; v <= 3; ++v) {
    k.launch({n}, {64}, o, v);
    rt.finish();
    check(o, n, v, 9);
  }
  EXPECT_EQ(compiledKernels("two_").size(), 1u);
  // A local size no function at hand was compiled for: the generic function, from the
  // program's binary, which compiles every kernel.
  k.launch({n}, {32}, o, 7);
  rt.finish();
  check(o, n, 7, 9);
  const hk_launch_counts c = k.counts();
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 1u);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 3u);
  EXPECT_EQ(compiledKernels("two_").size(), static_cast<std::size_t>(kKernels));
}

}  // namespace
