#include "base/fd_io.hpp"

#include <unistd.h>

#include <cerrno>

namespace hk {
namespace {

// Calls `io(done)`, a read or write of the bytes after the first `done`, until all `n`
// have moved, it returns 0 (then `*ended`: the file ends or takes no more) or it fails
// with an error other than EINTR. Returns the bytes moved.
template <class Io>
std::size_t moveUpTo(std::size_t n, Io io, bool *ended = nullptr) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = io(done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (ended) *ended = r == 0;
      break;
    }
    done += static_cast<std::size_t>(r);
  }
  return done;
}

}  // namespace

bool writeAll(int fd, const void *buf, std::size_t n) {
  const auto *p = static_cast<const char *>(buf);
  bool ended = false;
  if (moveUpTo(n, [&](std::size_t done) { return ::write(fd, p + done, n - done); },
               &ended) == n)
    return true;
  if (ended) errno = ENOSPC;
  return false;
}

std::size_t readUpTo(int fd, void *buf, std::size_t n) {
  auto *p = static_cast<char *>(buf);
  return moveUpTo(n, [&](std::size_t done) { return ::read(fd, p + done, n - done); });
}

std::size_t preadUpTo(int fd, void *buf, std::size_t n, std::uint64_t offset) {
  auto *p = static_cast<char *>(buf);
  return moveUpTo(n, [&](std::size_t done) {
    return ::pread(fd, p + done, n - done, static_cast<off_t>(offset + done));
  });
}

}  // namespace hk
