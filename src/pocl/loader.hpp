// Loads a shared object from memory: memfd_create + dlopen("/proc/self/fd/N").
// The fd stays open as long as the library is loaded: closing it lets the next memfd
// reuse the number, and glibc would then return the *previous* library for that path.
//
//   std::string err;
//   auto lib = hk::pocl::LoadedLibrary::load(bytes, "axpy", err);
//   auto fn = lib ? lib->symbol("_pocl_kernel_axpy_workgroup") : nullptr;
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace hk::pocl {

class LoadedLibrary {
 public:
  // Returns null and sets `error` if the bytes cannot be written or loaded.
  static std::unique_ptr<LoadedLibrary> load(std::span<const std::uint8_t> bytes,
                                             const std::string &name, std::string &error);
  ~LoadedLibrary();
  LoadedLibrary(const LoadedLibrary &) = delete;
  LoadedLibrary &operator=(const LoadedLibrary &) = delete;

  void *symbol(const char *name) const;

 private:
  LoadedLibrary(int fd, void *handle) : fd_(fd), handle_(handle) {}
  int fd_;
  void *handle_;
};

}  // namespace hk::pocl
