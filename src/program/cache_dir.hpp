// The program cache's directory, held open, and the only way the cache touches files
// (docs/cache.md, "Trust"). Its code is loaded into the process and run, so only the
// effective user may have fed it: the directory must belong to that user and be writable
// by no one else, and every file in it is opened relative to the directory's descriptor,
// without following symbolic links and without blocking, and checked (a regular file,
// owned by the user, of bounded size) before a byte is read.
//
//   CacheDir dir;
//   std::string why;
//   if (CacheDir::open("/home/me/.cache/hostkernel", /*create=*/true, dir, why) ==
//       CacheDir::Opened::Yes) {
//     struct stat st;
//     int fd = dir.openEntry("0123456789abcdef.hkc", kMaxEntryBytes, st, why);
//   }
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "base/siphash.hpp"

namespace hk::program {

// The name of the per-user secret key in the cache directory (entries' tags).
inline constexpr char kSecretKeyName[] = ".hostkernel-key";

class CacheDir {
 public:
  CacheDir() = default;
  CacheDir(const CacheDir &) = delete;
  CacheDir &operator=(const CacheDir &) = delete;
  ~CacheDir();

  enum class Opened {
    Yes,
    Missing,    // the directory (or its key) does not exist, and `create` was false
    Refused,    // exists but is not the user's alone: `why`
    Failed,     // cannot be created or opened: `why`
  };
  // Opens `path` (made with its parents, mode 0700, when missing and `create`); checks
  // that it is a directory owned by the effective user and not writable by group or
  // others, and loads its secret key (made when missing and `create`).
  static Opened open(const std::string &path, bool create, CacheDir &out, std::string &why);

  int fd() const { return fd_; }
  const SipHash128::Key &secretKey() const { return key_; }

  // An entry opened for reading: O_NOFOLLOW | O_NONBLOCK (a symbolic link or a FIFO
  // cannot redirect or block the read), a regular file owned by the user, with at most
  // `max_bytes` bytes. -1 with `why` empty when there is no such file; -1 with `why`
  // when the file is refused.
  int openEntry(const std::string &name, std::uint64_t max_bytes, struct stat &st,
                std::string &why) const;

  // A new file for writing, mode 0600, created with O_EXCL under a fresh random name that
  // starts with `prefix`. -1 (errno set) on failure.
  int createTemp(const std::string &prefix, std::string &name) const;

  // Removes temporary files older than `tmp_age_s` (their writer died before its rename),
  // entries ("*.hkc") not used for `unused_age_s`, then the least recently used entries
  // until the entries take at most `max_total_bytes`. Returns the number of files removed.
  unsigned sweep(std::uint64_t max_total_bytes, std::int64_t tmp_age_s,
                 std::int64_t unused_age_s) const;

 private:
  bool loadKey(bool create, std::string &why);
  int fd_ = -1;
  SipHash128::Key key_{};
};

}  // namespace hk::program
