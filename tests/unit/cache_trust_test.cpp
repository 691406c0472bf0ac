// Who may feed the program cache (docs/cache.md, "Trust"): its entries hold machine code
// that the process loads, so only the effective user may have made them. The attacker is
// a second uid (65534, through setpriv) in a directory it can write or read; the tests
// run as root, as hostkernel does inside other people's processes, and skip otherwise.
// HOSTKERNEL_LOG=info (cache_trust.cmake): the reasons for refusals are read from stderr.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "program/cache_dir.hpp"
#include "program/program_cache.hpp"
#include "support/temp_dir.hpp"

namespace {

using hk::program::CacheKey;
using hk::program::ProgramCache;

constexpr unsigned kAttacker = 65534;

// Runs `command` with sh as the attacker's uid and gid, without supplementary groups.
int asAttacker(const std::string &command) {
  const std::string line = "setpriv --reuid=" + std::to_string(kAttacker) + " --regid=" +
                           std::to_string(kAttacker) + " --clear-groups sh -c '" + command + "'";
  return std::system(line.c_str());
}

class CacheTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to act as a second user (setpriv)";
    if (std::system("command -v setpriv > /dev/null") != 0) GTEST_SKIP() << "no setpriv";
    ::chmod(root.path.c_str(), 0755);  // the attacker may traverse, not write
  }
  TempDir root{"hk-trust-test"};
  CacheKey key = [] {
    CacheKey k;
    k.material = "hostkernel program cache test key";
    k.file_name = "0123456789abcdef.hkc";
    return k;
  }();
  std::vector<std::uint8_t> payload = std::vector<std::uint8_t>(4000, 0x5a);

  // A valid entry for `key`, written by the user's own cache in `dir`.
  std::string entryIn(const std::string &dir) {
    ProgramCache cache(dir);
    EXPECT_TRUE(cache.store(key, payload));
    return cache.entryPath(key);
  }
  // Loads `key` from `dir` with a fresh cache object; the log goes to `log`.
  bool loads(const std::string &dir, std::string &log, ProgramCache::Stats *stats = nullptr) {
    ProgramCache cache(dir);
    std::vector<std::uint8_t> out;
    ::testing::internal::CaptureStderr();
    const bool ok = cache.load(key, out);
    log = ::testing::internal::GetCapturedStderr();
    if (stats) *stats = cache.stats();
    return ok && out == payload;
  }
};

std::size_t count(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (std::size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

// Issue 24: a directory hostkernel did not create was used whatever its owner: another
// user's (HOSTKERNEL_CACHE_DIR shared, sudo -E keeping HOME) fed root's process.
TEST_F(CacheTrust, DirectoryOfAnotherUserIsNotUsed) {
  const std::string mine = root.path + "/mine", theirs = root.path + "/theirs";
  const std::string entry = entryIn(mine);
  ::chmod(mine.c_str(), 0755);
  ::chmod(entry.c_str(), 0644);
  ::chmod(root.path.c_str(), 0777);
  ASSERT_EQ(asAttacker("mkdir -m 0755 " + theirs + " && cp " + entry + " " + theirs + "/"), 0);
  ::chmod(root.path.c_str(), 0755);
  std::string log;
  EXPECT_FALSE(loads(theirs, log));
  EXPECT_EQ(count(log, "not used (the directory belongs to uid 65534"), 1u) << log;
  // Nothing is written there either.
  ProgramCache cache(theirs);
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.store(key, payload));
  EXPECT_FALSE(cache.store(key, payload));
  log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(log, "not used"), 1u) << log;  // one warning per cache
  struct stat st;
  EXPECT_NE(::stat((theirs + "/" + hk::program::kSecretKeyName).c_str(), &st), 0);
}

TEST_F(CacheTrust, DirectoryWritableByGroupOrOthersIsNotUsed) {
  const std::string dir = root.path + "/shared";
  entryIn(dir);
  for (mode_t mode : {0777, 01777, 0770, 0720}) {
    ::chmod(dir.c_str(), mode);
    std::string log;
    EXPECT_FALSE(loads(dir, log)) << std::oct << mode;
    EXPECT_NE(log.find("writable by its group or others"), std::string::npos) << log;
  }
  ::chmod(dir.c_str(), 0755);  // readable by others is fine
  std::string log;
  EXPECT_TRUE(loads(dir, log)) << log;
}

// Issue 24: an entry was opened whoever owned it.
TEST_F(CacheTrust, EntryOwnedByAnotherUserIsRefused) {
  const std::string dir = root.path + "/c";
  const std::string entry = entryIn(dir);
  ::chmod(entry.c_str(), 0644);
  ::chmod(dir.c_str(), 0777);  // for a moment, as a careless chmod -R would leave it
  ASSERT_EQ(asAttacker("cp " + entry + " " + entry + ".copy && mv -f " + entry + ".copy " +
                       entry),
            0);
  ::chmod(dir.c_str(), 0700);
  struct stat st;
  ASSERT_EQ(::stat(entry.c_str(), &st), 0);
  ASSERT_EQ(st.st_uid, kAttacker);
  std::string log;
  EXPECT_FALSE(loads(dir, log));
  EXPECT_NE(log.find("owned by uid 65534"), std::string::npos) << log;
}

// Issue 24: an entry was opened without O_NOFOLLOW.
TEST_F(CacheTrust, SymbolicLinkEntryIsRefused) {
  const std::string dir = root.path + "/c";
  const std::string entry = entryIn(dir);
  ASSERT_EQ(std::rename(entry.c_str(), (root.path + "/elsewhere").c_str()), 0);
  ASSERT_EQ(::symlink((root.path + "/elsewhere").c_str(), entry.c_str()), 0);
  std::string log;
  EXPECT_FALSE(loads(dir, log));
  EXPECT_NE(log.find("a symbolic link"), std::string::npos) << log;
}

// Issue 24: the entry's checksum was an unkeyed hash, so anyone who could read entries
// could make one. An entry valid in every byte but made with another directory's secret
// key (the attacker's own cache) is refused.
TEST_F(CacheTrust, EntryMadeWithoutTheSecretKeyIsRefused) {
  const std::string dir = root.path + "/c", other = root.path + "/other";
  entryIn(dir);
  const std::string forged = entryIn(other);
  ASSERT_EQ(std::rename(forged.c_str(), (dir + "/" + key.file_name).c_str()), 0);
  std::string log;
  EXPECT_FALSE(loads(dir, log));
  EXPECT_NE(log.find("tag mismatch"), std::string::npos) << log;
}

TEST_F(CacheTrust, SecretKeyThatIsNotPrivateDisablesTheCache) {
  const std::string dir = root.path + "/c";
  entryIn(dir);
  const std::string secret = dir + "/" + hk::program::kSecretKeyName;
  ::chmod(secret.c_str(), 0644);  // readable by others: anyone could tag entries
  std::string log;
  EXPECT_FALSE(loads(dir, log));
  EXPECT_NE(log.find("not a private file of the user"), std::string::npos) << log;
  ::chmod(secret.c_str(), 0600);
  ASSERT_EQ(::chown(secret.c_str(), kAttacker, kAttacker), 0);
  EXPECT_FALSE(loads(dir, log));
  ASSERT_EQ(std::rename(secret.c_str(), (root.path + "/key").c_str()), 0);
  ASSERT_EQ(::symlink((root.path + "/key").c_str(), secret.c_str()), 0);
  EXPECT_FALSE(loads(dir, log));
  EXPECT_NE(log.find("cannot open the secret key"), std::string::npos) << log;
}

// Issue 24: a FIFO in place of an entry blocked open() for ever. The load runs in a child
// whose alarm ends it only if it hangs.
TEST_F(CacheTrust, FifoEntryDoesNotBlock) {
  const std::string dir = root.path + "/c";
  const std::string entry = entryIn(dir);
  ASSERT_EQ(::unlink(entry.c_str()), 0);
  ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    ::alarm(120);
    std::string log;
    _exit(loads(dir, log) ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the load hung (ended by signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// An entry whose header claims `claimed` bytes, in a sparse file of exactly that size:
// consistent in every size field, so only a bound on the file's size refuses it.
void makeSparseClaim(const std::string &entry, std::uint64_t claimed) {
  std::ifstream in(entry, std::ios::binary);
  std::vector<char> header(48);
  in.read(header.data(), 48);
  std::uint64_t key_size = 0;
  std::memcpy(&key_size, header.data() + 16, 8);
  const std::uint64_t payload_size = claimed - 48 - key_size;
  std::memcpy(header.data() + 24, &payload_size, 8);
  const int fd = ::open(entry.c_str(), O_WRONLY | O_TRUNC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, header.data(), 48, 0), 48);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(claimed)), 0);
  ::close(fd);
}

// Issue 24: a 1 TiB claim threw bad_alloc out of load() (and a C entry point).
TEST_F(CacheTrust, TebibyteClaimIsRefusedWithoutThrowing) {
  const std::string dir = root.path + "/c";
  const std::string entry = entryIn(dir);
  makeSparseClaim(entry, std::uint64_t{1} << 40);
  std::string log;
  bool ok = true;
  EXPECT_NO_THROW(ok = loads(dir, log));
  EXPECT_FALSE(ok);
  EXPECT_NE(log.find("larger than"), std::string::npos) << log;
}

// Issue 24: a 512 MiB claim was read and hashed before it was refused.
TEST_F(CacheTrust, OversizedClaimIsRefusedBeforeItIsRead) {
  const std::string dir = root.path + "/c";
  const std::string entry = entryIn(dir);
  makeSparseClaim(entry, std::uint64_t{512} << 20);
  std::string log;
  EXPECT_FALSE(loads(dir, log));
  EXPECT_NE(log.find("larger than " + std::to_string(hk::program::kMaxEntryBytes)),
            std::string::npos)
      << log;
}

}  // namespace
