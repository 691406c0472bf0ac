#include "pocl/perf_map.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/log.hpp"
#include "pocl/elf_symbols.hpp"

namespace hk::pocl {
namespace {

std::uintptr_t pageSize() { return static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE)); }

// Replaces [begin, end) (page-aligned, mapped read+execute) by anonymous memory with the
// same bytes: the fresh executable mapping is what perf sees as generated code. The copy
// is taken first, so the range is without its code only between the fixed mmap and the
// copy back, before anything can call into it.
enum class Remap { Done, Unchanged, Lost };  // Lost: the range may have no code left

Remap makeAnonymous(std::uintptr_t begin, std::uintptr_t end, std::string &error) {
  const std::size_t len = end - begin;
  void *copy = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy == MAP_FAILED) {
    error = std::string("no memory to copy the code: ") + std::strerror(errno);
    return Remap::Unchanged;
  }
  std::memcpy(copy, reinterpret_cast<void *>(begin), len);
  void *at = reinterpret_cast<void *>(begin);
  bool ok = ::mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                   -1, 0) == at;
  if (ok) {
    std::memcpy(at, copy, len);
    ok = ::mprotect(at, len, PROT_READ | PROT_EXEC) == 0;
  }
  if (!ok) error = std::string("perf map: re-mapping the code failed: ") + std::strerror(errno);
  ::munmap(copy, len);
  return ok ? Remap::Done : Remap::Lost;
}

// Opens the map for appending. perf names the file (/tmp/perf-<pid>.map) and other code
// generators in the process append to it too, so an existing file is appended to, not
// replaced (no O_EXCL) — but only a regular file of the effective user with one link: a
// symbolic link or a hard link planted in /tmp for a guessed pid is refused, not written
// through. A new file is 0600: perf reads maps as their owner or as root, and the names
// and addresses are nobody else's business. -1 with `why`.
int openMap(const std::string &path, std::string &why) {
  const int fd = ::open(path.c_str(),
                        O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = errno == ELOOP ? "it is a symbolic link" : std::strerror(errno);
    return -1;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      st.st_nlink != 1) {
    why = "it is not a regular file of this user with one link";
    ::close(fd);
    return -1;
  }
  return fd;
}

// Appends `text` to the map in one write (O_APPEND: lines of concurrent loads, or of other
// writers of the map, do not interleave). The first failure is logged, later ones not.
void appendToMap(const std::string &text) {
  static std::atomic<bool> reported{false};
  const std::string path = perfMapPath();
  std::string why;
  const int fd = openMap(path, why);
  bool ok = fd >= 0;
  if (ok && ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    ok = false;
    why = std::strerror(errno);
  }
  if (fd >= 0) ::close(fd);
  if (!ok && !reported.exchange(true))
    logf(LogLevel::Warn, "HOSTKERNEL_PERF_MAP: not writing %s: %s (kernels stay unnamed)",
         path.c_str(), why.c_str());
}

}  // namespace

std::string perfMapPath() { return "/tmp/perf-" + std::to_string(::getpid()) + ".map"; }

bool publishToPerfMap(void *handle, std::span<const std::uint8_t> bytes, const std::string &name,
                      std::string &error) {
  ElfImage elf;
  std::string why;
  if (!readElfImage(bytes, elf, why)) {
    logf(LogLevel::Info, "perf map: work-group library of '%s' not published: %s", name.c_str(),
         why.c_str());
    return true;
  }
  link_map *lm = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
    logf(LogLevel::Info, "perf map: no load address for '%s'", name.c_str());
    return true;
  }
  const std::uintptr_t base = lm->l_addr, page = pageSize();
  for (const ElfSegment &s : elf.executable) {
    const std::uintptr_t begin = (base + s.vaddr) & ~(page - 1);
    const std::uintptr_t end = (base + s.vaddr + s.memsz + page - 1) & ~(page - 1);
    switch (makeAnonymous(begin, end, error)) {
      case Remap::Done: break;
      case Remap::Lost: return false;
      case Remap::Unchanged:
        logf(LogLevel::Info, "perf map: '%s' not published: %s", name.c_str(), error.c_str());
        error.clear();
        return true;
    }
  }
  std::string lines;
  char line[64];
  for (const ElfFunction &f : elf.functions) {
    std::snprintf(line, sizeof line, "%llx %llx ", (unsigned long long)(base + f.value),
                  (unsigned long long)f.size);
    lines += line;
    lines += f.name;
    lines += '\n';
  }
  appendToMap(lines);
  logf(LogLevel::Debug, "perf map: %zu functions of '%s' at %#llx", elf.functions.size(),
       name.c_str(), (unsigned long long)base);
  return true;
}

}  // namespace hk::pocl
