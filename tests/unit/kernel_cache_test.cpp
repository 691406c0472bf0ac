// PoCL's kernel cache layout (src/pocl/kernel_cache.hpp): where PoCL 3.1 keeps the
// work-group functions it specializes, which variant it compiles for a launch, and which
// launches may call a variant.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "pocl/kernel_cache.hpp"

namespace {

using hk::pocl::PoclContext;
using hk::pocl::SpecializedGeometry;

PoclContext context(std::uint64_t lx, std::uint64_t gx, std::uint64_t ly = 1,
                    std::uint64_t gy = 1, std::uint64_t offset = 0) {
  PoclContext pc{};
  pc.local_size[0] = lx;
  pc.num_groups[0] = gx;
  pc.local_size[1] = ly;
  pc.num_groups[1] = gy;
  pc.local_size[2] = 1;
  pc.num_groups[2] = 1;
  pc.global_offset[0] = offset;
  return pc;
}

TEST(KernelCache, VariantPoclCompilesForALaunch) {
  // axpy over 1e6 items in groups of 64: PoCL's directory 64-1-1-goffs0 (the grid is
  // 1e6 wide, not small).
  SpecializedGeometry g = hk::pocl::specializedGeometryOf(context(64, 15625));
  EXPECT_EQ(hk::pocl::specializedDirName(g), "64-1-1-goffs0");
  // A small grid (as seen in PoCL's cache: axpy over 1024 in groups of 64).
  g = hk::pocl::specializedGeometryOf(context(64, 16));
  EXPECT_EQ(hk::pocl::specializedDirName(g), "64-1-1-goffs0-smallgrid");
  // 65535 wide is not small; 65534 is.
  EXPECT_FALSE(hk::pocl::specializedGeometryOf(context(1, 65535)).small_grid);
  EXPECT_TRUE(hk::pocl::specializedGeometryOf(context(1, 65534)).small_grid);
  // Any dimension counts; a global offset drops goffs0.
  g = hk::pocl::specializedGeometryOf(context(16, 4, 8, 10000, 3));
  EXPECT_EQ(hk::pocl::specializedDirName(g), "16-8-1");
}

TEST(KernelCache, WhichLaunchesMayCallAVariant) {
  const SpecializedGeometry big = hk::pocl::specializedGeometryOf(context(256, 65536));
  EXPECT_TRUE(hk::pocl::acceptsLaunch(big, context(256, 65536)));
  EXPECT_TRUE(hk::pocl::acceptsLaunch(big, context(256, 10)));       // smaller grid: fine
  EXPECT_FALSE(hk::pocl::acceptsLaunch(big, context(128, 65536)));   // another local size
  EXPECT_FALSE(hk::pocl::acceptsLaunch(big, context(256, 10, 1, 1, 5)));  // an offset
  const SpecializedGeometry small = hk::pocl::specializedGeometryOf(context(256, 16));
  EXPECT_TRUE(hk::pocl::acceptsLaunch(small, context(256, 255)));
  EXPECT_FALSE(hk::pocl::acceptsLaunch(small, context(256, 256)));   // 65536 wide
  // A variant compiled with an offset serves any offset.
  const SpecializedGeometry offs = hk::pocl::specializedGeometryOf(context(8, 100000, 1, 1, 7));
  EXPECT_TRUE(hk::pocl::acceptsLaunch(offs, context(8, 3, 1, 1, 0)));
  EXPECT_TRUE(hk::pocl::acceptsLaunch(offs, context(8, 3, 1, 1, 9)));
}

class ScopedEnv {
 public:
  ScopedEnv(const char *name, std::optional<std::string> value) : name_(name) {
    if (const char *v = std::getenv(name)) old_ = v;
    if (value) setenv(name, value->c_str(), 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char *name_;
  std::optional<std::string> old_;
};

TEST(KernelCache, TopDirectoryFollowsPoclsRules) {
  ScopedEnv home("HOME", "/home/u");
  {
    ScopedEnv pocl("POCL_CACHE_DIR", "/tmp/pc");
    ScopedEnv xdg("XDG_CACHE_HOME", "/x");
    EXPECT_EQ(hk::pocl::poclCacheTopDir(), "/tmp/pc");
  }
  {
    ScopedEnv pocl("POCL_CACHE_DIR", std::nullopt);
    ScopedEnv xdg("XDG_CACHE_HOME", "/x");
    EXPECT_EQ(hk::pocl::poclCacheTopDir(), "/x/pocl/kcache");
  }
  {
    ScopedEnv pocl("POCL_CACHE_DIR", std::nullopt);
    ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(hk::pocl::poclCacheTopDir(), "/home/u/.cache/pocl/kcache");
  }
  const SpecializedGeometry g = hk::pocl::specializedGeometryOf(context(64, 16));
  EXPECT_EQ(hk::pocl::specializedLibraryPath("/t", "PC/KOPGNA", "axpy", g),
            "/t/PC/KOPGNA/axpy/64-1-1-goffs0-smallgrid/axpy.so");
  EXPECT_EQ(hk::pocl::specializedLibraryPath("", "PC/KOPGNA", "axpy", g), "");
}

}  // namespace
