// ProgramCache (src/program/program_cache.hpp) on its own, with made-up keys and payloads:
// entries round-trip; truncated, corrupt and foreign entries are refused (and can be
// written again); a directory that cannot be created or written, or a file size limit,
// makes store() fail quietly (one log line per cache) without ending the process; a failed
// write never damages the entry already there, and a reader never sees a partial entry.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "program/cache_dir.hpp"
#include "program/program_cache.hpp"
#include "support/dir_entries.hpp"
#include "support/temp_dir.hpp"

namespace {

using hk::program::CacheKey;
using hk::program::ProgramCache;

CacheKey makeKey(const std::string &material, const std::string &name) {
  CacheKey k;
  k.material = material;
  k.file_name = name;
  return k;
}

std::vector<std::uint8_t> makePayload(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 7 + (i >> 9));
  return v;
}

std::vector<char> readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void writeFile(const std::string &path, const std::vector<char> &bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A cache in a directory of its own, removed with what it holds after the test.
class ProgramCacheInDir : public ::testing::Test {
 protected:
  TempDir dir{"hk-cache-test"};
  ProgramCache cache{dir.path};
};

TEST(ProgramCache, StoredEntryLoadsBack) {
  TempDir dir("hk-cache-test");
  ProgramCache cache(dir.path + "/sub/dir");  // created on the first store
  auto key = makeKey("key material\nsource text", "0123456789abcdef.hkc");
  auto payload = makePayload(100000, 1);
  std::vector<std::uint8_t> out;
  EXPECT_FALSE(cache.load(key, out));
  EXPECT_EQ(cache.stats().misses, 1u);
  ASSERT_TRUE(cache.store(key, payload));
  ASSERT_TRUE(cache.load(key, out));
  EXPECT_EQ(out, payload);
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.stats().stored, 1u);
  // The entry and the cache's secret key.
  EXPECT_EQ(DirEntryNames(dir.path + "/sub/dir"),
            (std::vector<std::string>{hk::program::kSecretKeyName, key.file_name}));
}

TEST(ProgramCache, DisabledCacheNeitherReadsNorWrites) {
  ProgramCache cache("");
  EXPECT_FALSE(cache.enabled());
  auto key = makeKey("k", "k.hkc");
  std::vector<std::uint8_t> out;
  EXPECT_FALSE(cache.store(key, makePayload(10, 0)));
  EXPECT_FALSE(cache.load(key, out));
  EXPECT_EQ(cache.stats().write_failures, 0u);
}

TEST_F(ProgramCacheInDir, CorruptEntryIsRefusedAndRewritten) {
  auto key = makeKey("material", "e.hkc");
  auto payload = makePayload(5000, 3);
  ASSERT_TRUE(cache.store(key, payload));
  const std::string path = cache.entryPath(key);
  auto good = readFile(path);
  auto bad = good;
  bad[bad.size() - 100] ^= 0x40;  // one bit of the payload
  writeFile(path, bad);
  std::vector<std::uint8_t> out;
  EXPECT_FALSE(cache.load(key, out));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(cache.stats().rejected, 1u);
  ASSERT_TRUE(cache.store(key, payload));
  EXPECT_EQ(readFile(path), good);
  ASSERT_TRUE(cache.load(key, out));
  EXPECT_EQ(out, payload);
}

TEST_F(ProgramCacheInDir, TruncatedEntriesAreRefused) {
  auto key = makeKey("material", "t.hkc");
  ASSERT_TRUE(cache.store(key, makePayload(3000, 5)));
  auto good = readFile(cache.entryPath(key));
  int refused = 0;
  for (std::size_t len : {std::size_t{0}, std::size_t{7}, std::size_t{47}, std::size_t{48},
                          std::size_t{60}, good.size() / 2, good.size() - 1}) {
    writeFile(cache.entryPath(key), std::vector<char>(good.begin(), good.begin() + len));
    std::vector<std::uint8_t> out;
    EXPECT_FALSE(cache.load(key, out)) << "length " << len;
    ++refused;
  }
  auto longer = good;
  longer.push_back(0);
  writeFile(cache.entryPath(key), longer);
  std::vector<std::uint8_t> out;
  EXPECT_FALSE(cache.load(key, out));
  EXPECT_EQ(cache.stats().rejected, static_cast<std::uint64_t>(refused + 1));
}

TEST_F(ProgramCacheInDir, ForeignEntryIsRefused) {
  // Same length, different material (another device string, say): only the full
  // comparison can tell them apart.
  auto mine = makeKey("device-name: pthread-haswell\nsource", "a.hkc");
  auto other = makeKey("device-name: pthread-skylake\nsource", "b.hkc");
  ASSERT_EQ(mine.material.size(), other.material.size());
  ASSERT_TRUE(cache.store(other, makePayload(2000, 9)));
  std::rename(cache.entryPath(other).c_str(), cache.entryPath(mine).c_str());
  std::vector<std::uint8_t> out;
  EXPECT_FALSE(cache.load(mine, out));
  EXPECT_EQ(cache.stats().rejected, 1u);
  auto payload = makePayload(2000, 11);
  ASSERT_TRUE(cache.store(mine, payload));
  ASSERT_TRUE(cache.load(mine, out));
  EXPECT_EQ(out, payload);
}

TEST_F(ProgramCacheInDir, OtherFilesAreRefused) {
  ASSERT_TRUE(cache.store(makeKey("other", "o.hkc"), makePayload(10, 0)));  // makes the key
  auto key = makeKey("m", "x.hkc");
  writeFile(cache.entryPath(key), std::vector<char>(200, 'x'));
  std::vector<std::uint8_t> out;
  EXPECT_FALSE(cache.load(key, out));
  ::mkdir(cache.entryPath(makeKey("m", "d.hkc")).c_str(), 0700);
  EXPECT_FALSE(cache.load(makeKey("m", "d.hkc"), out));
  EXPECT_EQ(cache.stats().rejected, 2u);
}

TEST(ProgramCache, DirectoryThatCannotBeCreatedFailsQuietlyAndLogsOnce) {
  TempDir dir("hk-cache-test");
  writeFile(dir.path + "/file", {'x'});
  ProgramCache cache(dir.path + "/file/cache");  // a regular file on the path (even root)
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.store(makeKey("a", "a.hkc"), makePayload(100, 0)));
  EXPECT_FALSE(cache.store(makeKey("b", "b.hkc"), makePayload(100, 0)));
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(cache.stats().write_failures, 2u);
  std::size_t lines = 0;
  for (std::size_t p = 0; (p = log.find("not written", p)) != std::string::npos; ++p) ++lines;
  EXPECT_EQ(lines, 1u) << log;
  std::vector<std::uint8_t> out;
  EXPECT_FALSE(cache.load(makeKey("a", "a.hkc"), out));
}

TEST(ProgramCache, ReadOnlyDirectoryFailsQuietly) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  TempDir dir("hk-cache-test");
  ::chmod(dir.path.c_str(), 0500);
  ProgramCache cache(dir.path);
  EXPECT_FALSE(cache.store(makeKey("a", "a.hkc"), makePayload(100, 0)));
  ::chmod(dir.path.c_str(), 0700);
  EXPECT_TRUE(DirEntryNames(dir.path).empty());
}

// Runs `body` in a child process with RLIMIT_FSIZE = `limit` (a full file system, as far
// as the child's writes go); returns the child's wait status.
template <typename F>
int inChildWithFileSizeLimit(rlim_t limit, bool ignore_sigxfsz, F body) {
  pid_t pid = fork();
  if (pid == 0) {
    if (ignore_sigxfsz) signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {limit, limit};
    setrlimit(RLIMIT_FSIZE, &rl);
    _exit(body() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST_F(ProgramCacheInDir, FileSizeLimitIsRefusedInsteadOfEndingTheProcess) {
  auto key = makeKey("m", "f.hkc");
  // SIGXFSZ has its default action (end the process) in the child.
  int status = inChildWithFileSizeLimit(4096, false, [&] {
    return !cache.store(key, makePayload(100000, 1)) && cache.stats().write_failures == 1;
  });
  ASSERT_TRUE(WIFEXITED(status)) << "child ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(DirEntryNames(dir.path).empty());
}

TEST_F(ProgramCacheInDir, FailedWriteLeavesNoFileAndKeepsTheOldEntry) {
  auto key = makeKey("m", "w.hkc");
  auto old_payload = makePayload(3000, 2);
  ASSERT_TRUE(cache.store(key, old_payload));
  // SIGXFSZ ignored: the write itself fails (EFBIG) part way through the file, as on a
  // full file system.
  int status = inChildWithFileSizeLimit(65536, true, [&] {
    return !cache.store(key, makePayload(200000, 4)) && cache.stats().write_failures == 1;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // No temporary file: the entry and the cache's secret key only.
  EXPECT_EQ(DirEntryNames(dir.path),
            (std::vector<std::string>{hk::program::kSecretKeyName, key.file_name}));
  std::vector<std::uint8_t> out;
  ASSERT_TRUE(cache.load(key, out));
  EXPECT_EQ(out, old_payload);
}

TEST(ProgramCache, ReadersNeverSeeAPartialEntry) {
  TempDir dir("hk-cache-test");
  ProgramCache writer(dir.path), reader(dir.path);
  auto key = makeKey("m", "r.hkc");
  const auto a = makePayload(4 << 20, 1), b = makePayload(4 << 20, 2);
  ASSERT_TRUE(writer.store(key, a));
  std::atomic<bool> done{false};
  std::atomic<int> loads{0}, wrong{0};
  std::thread t([&] {
    std::vector<std::uint8_t> out;
    do {  // at least once, however the threads are scheduled
      if (reader.load(key, out)) {
        loads.fetch_add(1);
        if (out != a && out != b) wrong.fetch_add(1);
      }
    } while (!done.load());
  });
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(writer.store(key, i % 2 ? a : b));
  done.store(true);
  t.join();
  EXPECT_EQ(reader.stats().rejected, 0u);  // a partial file would be refused as truncated
  EXPECT_EQ(reader.stats().misses, 0u);    // and the entry is never missing
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(loads.load(), 0);
}

TEST(ProgramCache, HashSeparatesSmallChanges) {
  using hk::program::detail::hash64;
  std::vector<std::uint8_t> v(37, 0);
  const auto h0 = hash64(v, 0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = 1;
    EXPECT_NE(hash64(v, 0), h0) << i;
    v[i] = 0;
  }
  EXPECT_NE(hash64(v, 0), hash64(v, 1));
  v.push_back(0);
  EXPECT_NE(hash64(v, 0), h0);
}

}  // namespace
