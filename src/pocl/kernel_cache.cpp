#include "pocl/kernel_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "base/fd_io.hpp"
#include "pocl/release.hpp"

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
  const Release *r = currentRelease();
  if (!r) r = &baselineRelease();
  return top + "/" + build_hash + "/" + clippedName(kernel, r->dir_clip) + "/" +
         specializedDirName(g) + "/" + clippedName(kernel, r->file_clip) + ".so";
}

std::vector<SpecializedGeometry> acceptingVariants(const SpecializedGeometry &g) {
  std::vector<SpecializedGeometry> out;
  for (int drop = 0; drop < 4; ++drop) {
    SpecializedGeometry v = g;
    if (drop & 1) v.small_grid = false;
    if (drop & 2) v.zero_offset = false;
    bool seen = false;
    for (const SpecializedGeometry &o : out)
      seen |= o.zero_offset == v.zero_offset && o.small_grid == v.small_grid;
    if (!seen) out.push_back(v);
  }
  return out;
}

bool readPoclCacheFile(const std::string &path, std::uint64_t max_bytes,
                       std::vector<std::uint8_t> &out, std::string &why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = errno == ENOENT ? "no file " + path : path + ": cannot be opened";
    return false;
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0;
  if (!ok || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
      static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    why = path + " is not a regular file of this user, writable by no one else, of at most " +
          std::to_string(max_bytes) + " bytes";
    ::close(fd);
    return false;
  }
  out.resize(static_cast<std::size_t>(st.st_size));
  const std::size_t done = readUpTo(fd, out.data(), out.size());
  ::close(fd);
  if (done != out.size()) {
    why = path + ": short read";
    return false;
  }
  return true;
}

}  // namespace hk::pocl
