// The program cache's clean-up (docs/cache.md, "Size"): temporary files of writers that
// died before their rename, entries unused for long, and the size bound, least recently
// used first. Ages are set with utimensat, never waited for.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "program/cache_dir.hpp"
#include "program/program_cache.hpp"
#include "support/dir_entries.hpp"
#include "support/temp_dir.hpp"

namespace {

using hk::program::CacheDir;
using hk::program::CacheKey;
using hk::program::ProgramCache;

void writeFile(const std::string &path, std::size_t bytes) {
  std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
}

// Sets the file's modification time to `age_s` seconds ago.
void age(const std::string &path, std::int64_t age_s) {
  struct timespec t[2];
  ::clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= age_s;
  t[1] = t[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), t, AT_SYMLINK_NOFOLLOW), 0) << path;
}

TEST(CacheSweep, RemovesOldTemporaryFilesAndUnusedEntriesOnly) {
  TempDir dir("hk-sweep-test");
  CacheDir cd;
  std::string why;
  ASSERT_EQ(CacheDir::open(dir.path, true, cd, why), CacheDir::Opened::Yes) << why;
  writeFile(dir.path + "/.tmp-a.hkc-dead00", 10);
  age(dir.path + "/.tmp-a.hkc-dead00", 2 * 3600);
  writeFile(dir.path + "/.tmp-b.hkc-live00", 10);  // a writer still at work
  writeFile(dir.path + "/old.hkc", 10);
  age(dir.path + "/old.hkc", 40 * 24 * 3600);
  writeFile(dir.path + "/new.hkc", 10);
  writeFile(dir.path + "/README", 10);  // not the cache's: left alone
  age(dir.path + "/README", 400 * 24 * 3600);
  EXPECT_EQ(cd.sweep(1 << 20, 3600, 30 * 24 * 3600), 2u);
  EXPECT_EQ(DirEntryNames(dir.path),
            (std::vector<std::string>{hk::program::kSecretKeyName, ".tmp-b.hkc-live00", "README",
                                      "new.hkc"}));
}

TEST(CacheSweep, SizeBoundEvictsLeastRecentlyUsedFirst) {
  TempDir dir("hk-sweep-test");
  CacheDir cd;
  std::string why;
  ASSERT_EQ(CacheDir::open(dir.path, true, cd, why), CacheDir::Opened::Yes) << why;
  for (int i = 0; i < 5; ++i) {
    const std::string e = dir.path + "/e" + std::to_string(i) + ".hkc";
    writeFile(e, 1000);
    age(e, 100 * (5 - i));  // e0 the least recently used
  }
  EXPECT_EQ(cd.sweep(2500, 3600, 30 * 24 * 3600), 3u);
  EXPECT_EQ(DirEntryNames(dir.path),
            (std::vector<std::string>{hk::program::kSecretKeyName, "e3.hkc", "e4.hkc"}));
}

// Issue 24: a writer killed before its rename left its temporary file for ever, and
// nothing bounded the cache. A process's first write cleans up.
TEST(CacheSweep, FirstStoreOfAProcessCleansUp) {
  TempDir dir("hk-sweep-test");
  {
    ProgramCache warm(dir.path);  // makes the directory and its key
    CacheKey k{"first", "first.hkc"};
    ASSERT_TRUE(warm.store(k, std::vector<std::uint8_t>(100, 1)));
  }
  writeFile(dir.path + "/.tmp-x.hkc-000000", 10);
  age(dir.path + "/.tmp-x.hkc-000000", 2 * 3600);
  const std::string big = dir.path + "/big.hkc";
  writeFile(big, 10);
  ASSERT_EQ(::truncate(big.c_str(), static_cast<off_t>(hk::program::kMaxCacheBytes)), 0);
  age(big, 3600);
  ProgramCache cache(dir.path);
  CacheKey k{"second", "second.hkc"};
  ASSERT_TRUE(cache.store(k, std::vector<std::uint8_t>(100, 2)));
  EXPECT_EQ(DirEntryNames(dir.path),
            (std::vector<std::string>{hk::program::kSecretKeyName, "first.hkc", "second.hkc"}));
}

TEST(CacheSweep, UsingAnEntryMakesItRecent) {
  TempDir dir("hk-sweep-test");
  ProgramCache cache(dir.path);
  CacheKey k{"used", "used.hkc"};
  ASSERT_TRUE(cache.store(k, std::vector<std::uint8_t>(100, 3)));
  age(cache.entryPath(k), 10 * 24 * 3600);
  std::vector<std::uint8_t> out;
  ASSERT_TRUE(cache.load(k, out));
  struct stat st;
  ASSERT_EQ(::stat(cache.entryPath(k).c_str(), &st), 0);
  struct timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  EXPECT_LT(now.tv_sec - st.st_mtim.tv_sec, 24 * 3600);
}

}  // namespace
