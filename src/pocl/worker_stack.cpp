#include "pocl/worker_stack.hpp"

#include <pthread.h>

#include <cstddef>

namespace hk::pocl {
namespace {

constexpr std::uint64_t kWorkerReserve = 256 * 1024;  // PoCL's frames above the group's

}  // namespace

std::uint64_t workerStackRoom() {
  static const std::uint64_t room = [] {
    std::size_t size = 0;
    pthread_attr_t attr;
    if (pthread_getattr_default_np(&attr) == 0) {
      pthread_attr_getstacksize(&attr, &size);
      pthread_attr_destroy(&attr);
    }
    if (size == 0) size = std::size_t{8} << 20;
    return size > kWorkerReserve ? size - kWorkerReserve : 0;
  }();
  return room;
}

}  // namespace hk::pocl
