#include "pocl/kernel_cache.hpp"

#include <algorithm>
#include <cstdlib>

namespace hk::pocl {
namespace {

std::string nonEmptyEnv(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? std::string(v) : std::string();
}

}  // namespace

std::string poclCacheTopDir() {
  if (std::string d = nonEmptyEnv("POCL_CACHE_DIR"); !d.empty()) return d;
  if (std::string x = nonEmptyEnv("XDG_CACHE_HOME"); !x.empty()) return x + "/pocl/kcache";
  if (std::string h = nonEmptyEnv("HOME"); !h.empty()) return h + "/.cache/pocl/kcache";
  return {};
}

SpecializedGeometry specializedGeometryOf(const PoclContext &pc) {
  SpecializedGeometry g;
  std::uint64_t widest = 0;
  for (int d = 0; d < 3; ++d) {
    g.local[d] = pc.local_size[d];
    widest = std::max(widest, pc.local_size[d] * pc.num_groups[d]);
  }
  g.zero_offset =
      pc.global_offset[0] == 0 && pc.global_offset[1] == 0 && pc.global_offset[2] == 0;
  g.small_grid = widest < kSmallGridLimit;
  return g;
}

bool acceptsLaunch(const SpecializedGeometry &g, const PoclContext &pc) {
  const SpecializedGeometry l = specializedGeometryOf(pc);
  return l.local[0] == g.local[0] && l.local[1] == g.local[1] && l.local[2] == g.local[2] &&
         (l.zero_offset || !g.zero_offset) && (l.small_grid || !g.small_grid);
}

std::string specializedDirName(const SpecializedGeometry &g) {
  std::string s = std::to_string(g.local[0]) + "-" + std::to_string(g.local[1]) + "-" +
                  std::to_string(g.local[2]);
  if (g.zero_offset) s += "-goffs0";
  if (g.small_grid) s += "-smallgrid";
  return s;
}

std::string specializedLibraryPath(const std::string &top, const std::string &build_hash,
                                   const std::string &kernel, const SpecializedGeometry &g) {
  if (top.empty() || build_hash.empty()) return {};
  return top + "/" + build_hash + "/" + kernel + "/" + specializedDirName(g) + "/" + kernel +
         ".so";
}

}  // namespace hk::pocl
