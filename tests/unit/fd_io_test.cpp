// Whole-buffer reads and writes (src/base/fd_io.hpp) through a pipe, which moves at most
// its capacity per call: every byte moves, and a short count says where the file ended.
#include "base/fd_io.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

std::vector<std::uint8_t> pattern(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i * 7 + i / 251);
  return v;
}

// More than a pipe holds: each side moves it in pieces.
constexpr std::size_t kBytes = std::size_t{1} << 20;

TEST(FdIo, MovesAWholeBufferThroughAPipeInPieces) {
  signal(SIGPIPE, SIG_IGN);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_GT(fcntl(fds[0], F_SETPIPE_SZ, 4096), 0);  // small: many pieces each way
  const std::vector<std::uint8_t> sent = pattern(kBytes);
  bool written = false;
  std::thread writer([&] {
    written = hk::writeAll(fds[1], sent.data(), sent.size());
    close(fds[1]);
  });
  std::vector<std::uint8_t> got(kBytes + 1, 0);
  // One more than was sent: the read ends where the pipe does.
  EXPECT_EQ(hk::readUpTo(fds[0], got.data(), got.size()), kBytes);
  close(fds[0]);  // a writer still blocked (the read stopped early) fails with EPIPE
  writer.join();
  EXPECT_TRUE(written);
  got.resize(kBytes);
  EXPECT_EQ(got, sent);
}

TEST(FdIo, PreadReadsFromTheOffsetToTheEnd) {
  FILE *f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  const int fd = fileno(f);
  const std::vector<std::uint8_t> data = pattern(10000);
  ASSERT_TRUE(hk::writeAll(fd, data.data(), data.size()));
  std::vector<std::uint8_t> got(200, 0);
  EXPECT_EQ(hk::preadUpTo(fd, got.data(), got.size(), 9900), 100u);  // 100 left after 9900
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + 100, data.begin() + 9900));
  EXPECT_EQ(hk::preadUpTo(fd, got.data(), got.size(), 20000), 0u);
  std::fclose(f);
}

TEST(FdIo, AWriteThatFailsSaysWhy) {
  const int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  const std::vector<std::uint8_t> data = pattern(100);
  errno = 0;
  EXPECT_FALSE(hk::writeAll(fd, data.data(), data.size()));
  EXPECT_EQ(errno, ENOSPC);
  close(fd);
  EXPECT_FALSE(hk::writeAll(fd, data.data(), data.size()));  // closed
  EXPECT_EQ(errno, EBADF);
}

}  // namespace
