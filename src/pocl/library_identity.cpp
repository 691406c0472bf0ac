#include "pocl/library_identity.hpp"

#include <dirent.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

namespace hk::pocl {

std::string fileIdentity(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return path + " missing";
  return path + " size " + std::to_string(st.st_size) + " mtime " +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) +
         " dev " + std::to_string(st.st_dev) + " ino " + std::to_string(st.st_ino);
}

namespace {

// The GNU build id note of a loaded object, in hex; empty when it has none.
std::string buildId(const dl_phdr_info *info) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto *p = reinterpret_cast<const std::uint8_t *>(info->dlpi_addr + ph.p_vaddr);
    const auto *end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const auto *n = reinterpret_cast<const ElfW(Nhdr) *>(p);
      const std::uint8_t *name = p + sizeof *n;
      const std::uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
      const std::uint8_t *next = desc + ((n->n_descsz + 3) & ~3u);
      if (next > end) break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        std::string s;
        for (std::uint32_t k = 0; k < n->n_descsz; ++k) {
          s += digits[desc[k] >> 4];
          s += digits[desc[k] & 15];
        }
        return s;
      }
      p = next;
    }
  }
  return {};
}

struct Found {
  std::vector<std::string> lines;
  std::set<std::string> data_dirs;
};

int visit(dl_phdr_info *info, size_t, void *arg) {
  auto &found = *static_cast<Found *>(arg);
  const std::string path = info->dlpi_name ? info->dlpi_name : "";
  const std::size_t slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.rfind("libpocl", 0) != 0 && base.rfind("libLLVM", 0) != 0) return 0;
  found.lines.push_back(fileIdentity(path) + " build-id " + buildId(info));
  if (base.rfind("libpocl.so", 0) == 0 && slash != std::string::npos) {
    const std::string dir = path.substr(0, slash);
    found.data_dirs.insert(dir + "/../share/pocl");
    found.data_dirs.insert(dir + "/../../share/pocl");
  }
  return 0;
}

std::string compute() {
  Found found;
  found.data_dirs.insert("/usr/share/pocl");
  dl_iterate_phdr(visit, &found);
  std::set<std::string> dirs;  // each directory once, by its real path
  for (const std::string &dir : found.data_dirs)
    if (char *real = ::realpath(dir.c_str(), nullptr)) {
      dirs.insert(real);
      std::free(real);
    }
  for (const std::string &dir : dirs) {
    DIR *d = ::opendir(dir.c_str());
    if (!d) continue;
    while (const dirent *e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind("kernel-", 0) == 0 && name.size() > 3 &&
          name.compare(name.size() - 3, 3, ".bc") == 0)
        found.lines.push_back(fileIdentity(dir + "/" + name));
    }
    ::closedir(d);
  }
  std::sort(found.lines.begin(), found.lines.end());
  std::string s;
  for (const std::string &line : found.lines) s += line + "\n";
  return s;
}

}  // namespace

const std::string &compilerIdentity() {
  static const std::string identity = compute();
  return identity;
}

}  // namespace hk::pocl
