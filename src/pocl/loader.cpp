#include "pocl/loader.hpp"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/config.hpp"
#include "base/fd_io.hpp"
#include "pocl/perf_map.hpp"

namespace hk::pocl {

std::unique_ptr<LoadedLibrary> LoadedLibrary::load(std::span<const std::uint8_t> bytes,
                                                   const std::string &name,
                                                   std::string &error) {
  static constexpr std::uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (bytes.size() < 64 || std::memcmp(bytes.data(), kElfMagic, 4) != 0) {
    error = "work-group library of '" + name + "' is not an ELF file";
    return nullptr;
  }
  int fd = memfd_create(("hostkernel-" + name).c_str(), MFD_CLOEXEC);
  if (fd < 0) {
    error = std::string("memfd_create failed: ") + std::strerror(errno);
    return nullptr;
  }
  if (!writeAll(fd, bytes.data(), bytes.size())) {
    error = std::string("writing work-group library failed: ") + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  // RTLD_LOCAL: kernels of different programs may share symbol names.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    error = std::string("dlopen of work-group library failed: ") + (why ? why : "?");
    ::close(fd);
    return nullptr;
  }
  // Before any of its code runs: publishing replaces its code pages.
  if (config().perf_map && !publishToPerfMap(handle, bytes, name, error)) {
    dlclose(handle);
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<LoadedLibrary>(new LoadedLibrary(fd, handle));
}

LoadedLibrary::~LoadedLibrary() {
  dlclose(handle_);
  ::close(fd_);
}

void *LoadedLibrary::symbol(const char *name) const { return dlsym(handle_, name); }

}  // namespace hk::pocl
