#include "team/waiting.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace hk::team {

bool futexWait(std::atomic<std::uint32_t> &word, std::uint32_t expected) {
  timespec limit{0, 2'000'000};
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&word), FUTEX_WAIT_PRIVATE,
                 expected, &limit, nullptr, 0) != 0 &&
         errno == ETIMEDOUT;
}

void futexWake(std::atomic<std::uint32_t> &word, int count) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&word), FUTEX_WAKE_PRIVATE, count,
          nullptr, nullptr, 0);
}

}  // namespace hk::team
