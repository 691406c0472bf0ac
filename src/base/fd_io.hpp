// Moving whole buffers through file descriptors. A read or write may move fewer bytes than
// asked (a pipe, a signal mid-transfer) or fail with EINTR; these loop until every byte
// has moved, the file ends or a real error occurs. Only system calls: safe in a child
// between fork() and exec().
//
//   if (!hk::writeAll(fd, bytes.data(), bytes.size())) ... // errno says why
//   if (hk::readUpTo(fd, buf, n) != n) ...                 // short: end of file or error
#pragma once

#include <cstddef>
#include <cstdint>

namespace hk {

// Writes all `n` bytes of `buf`. False on an error, with errno set (ENOSPC when the file
// took no more bytes without an error).
bool writeAll(int fd, const void *buf, std::size_t n);

// Reads up to `n` bytes into `buf` from the file position on; returns how many: fewer
// than `n` only at the end of the file or on an error.
std::size_t readUpTo(int fd, void *buf, std::size_t n);

// The same from `offset`, leaving the file position alone (pread).
std::size_t preadUpTo(int fd, void *buf, std::size_t n, std::uint64_t offset);

}  // namespace hk
