#include "program/cache_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>
#include <vector>

#include "base/fd_io.hpp"

namespace hk::program {
namespace {

std::string errorText(int e) { return std::strerror(e); }

// mkdir -p; the directories it creates are private to the user (like ~/.cache's).
bool makeDirectories(const std::string &dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return true;
    errno = ENOTDIR;
    return false;
  }
  auto slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0 && !makeDirectories(dir.substr(0, slash)))
    return false;
  return ::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST;
}

bool randomBytes(void *out, std::size_t n) {
  auto *p = static_cast<std::uint8_t *>(out);
  while (n) {
    const ssize_t r = ::getrandom(p, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool endsWith(const std::string &s, const char *tail) {
  const std::size_t n = std::strlen(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

}  // namespace

CacheDir::~CacheDir() {
  if (fd_ >= 0) ::close(fd_);
}

CacheDir::Opened CacheDir::open(const std::string &path, bool create, CacheDir &out,
                                std::string &why) {
  if (create && !makeDirectories(path)) {
    why = "cannot create the directory: " + errorText(errno);
    return Opened::Failed;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if ((errno == ENOENT || errno == ENOTDIR) && !create) return Opened::Missing;
    why = "cannot open the directory: " + errorText(errno);
    return Opened::Failed;
  }
  if (out.fd_ >= 0) ::close(out.fd_);
  out.fd_ = fd;
  // Another user who can write the directory could plant an entry whose code then runs
  // in this user's processes: the directory is the user's alone, or it is not used.
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    why = "cannot check the directory: " + errorText(errno);
    return Opened::Failed;
  }
  if (st.st_uid != ::geteuid()) {
    why = "the directory belongs to uid " + std::to_string(st.st_uid) + ", not to uid " +
          std::to_string(::geteuid());
    return Opened::Refused;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    why = "the directory is writable by its group or others";
    return Opened::Refused;
  }
  if (!out.loadKey(create, why)) return why.empty() ? Opened::Missing : Opened::Refused;
  return Opened::Yes;
}

// The secret key is made once per cache directory: 16 random bytes written to a file of
// its own (O_EXCL, mode 0600) and linked under kSecretKeyName, so that concurrent first
// writers agree on one key and no reader sees a partly written one (link fails when the
// name exists).
bool CacheDir::loadKey(bool create, std::string &why) {
  int fd = ::openat(fd_, kSecretKeyName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    SipHash128::Key fresh{};
    std::string tmp;
    const int w = createTemp(".tmp-key-", tmp);
    if (w < 0) {
      why = "cannot create the secret key: " + errorText(errno);
      return false;
    }
    const bool written = randomBytes(fresh.data(), fresh.size()) &&
                         writeAll(w, fresh.data(), fresh.size());
    ::close(w);
    const bool linked =
        written && (::linkat(fd_, tmp.c_str(), fd_, kSecretKeyName, 0) == 0 || errno == EEXIST);
    const int saved = errno;
    ::unlinkat(fd_, tmp.c_str(), 0);
    if (!linked) {
      why = "cannot create the secret key: " + errorText(written ? saved : EIO);
      return false;
    }
    fd = ::openat(fd_, kSecretKeyName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  }
  if (fd < 0) {
    if (errno == ENOENT) return false;  // no key yet: nothing can have been written
    why = std::string("cannot open the secret key ") + kSecretKeyName + ": " + errorText(errno);
    return false;
  }
  // Whoever can read the key can make entries this process accepts: it is the user's
  // alone (no group or other permission at all), and exactly one key long.
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0;
  if (!ok || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) ||
      st.st_size != static_cast<off_t>(key_.size())) {
    why = std::string("the secret key ") + kSecretKeyName +
          " is not a private file of the user (regular, mode 0600, 16 bytes)";
    ok = false;
  } else if (readUpTo(fd, key_.data(), key_.size()) != key_.size()) {
    why = std::string("cannot read the secret key ") + kSecretKeyName;
    ok = false;
  }
  ::close(fd);
  return ok;
}

int CacheDir::openEntry(const std::string &name, std::uint64_t max_bytes, struct stat &st,
                        std::string &why) const {
  why.clear();
  const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return -1;
    why = errno == ELOOP ? "a symbolic link" : errorText(errno);
    return -1;
  }
  if (::fstat(fd, &st) != 0) why = errorText(errno);
  else if (!S_ISREG(st.st_mode)) why = "not a regular file";
  else if (st.st_uid != ::geteuid())
    why = "owned by uid " + std::to_string(st.st_uid) + ", not by the user";
  else if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    why = "larger than " + std::to_string(max_bytes) + " bytes";
  if (!why.empty()) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int CacheDir::createTemp(const std::string &prefix, std::string &name) const {
  static const char digits[] = "0123456789abcdef";
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::uint8_t r[8];
    if (!randomBytes(r, sizeof r)) return -1;
    name = prefix;
    for (std::uint8_t b : r) {
      name += digits[b >> 4];
      name += digits[b & 15];
    }
    const int fd = ::openat(fd_, name.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

unsigned CacheDir::sweep(std::uint64_t max_total_bytes, std::int64_t tmp_age_s,
                         std::int64_t unused_age_s) const {
  const int dup = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
  DIR *d = dup >= 0 ? ::fdopendir(dup) : nullptr;
  if (!d) {
    if (dup >= 0) ::close(dup);
    return 0;
  }
  ::rewinddir(d);
  struct timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  unsigned removed = 0;
  auto remove = [&](const std::string &name) { removed += ::unlinkat(fd_, name.c_str(), 0) == 0; };
  std::vector<std::tuple<std::int64_t, std::uint64_t, std::string>> entries;  // mtime, size, name
  std::uint64_t total = 0;
  while (const dirent *e = ::readdir(d)) {
    const std::string name = e->d_name;
    const bool tmp = name.rfind(".tmp-", 0) == 0, entry = endsWith(name, ".hkc");
    struct stat st;
    if ((!tmp && !entry) || ::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      continue;
    const std::int64_t age = now.tv_sec - st.st_mtim.tv_sec;
    if (tmp) {
      if (age > tmp_age_s) remove(name);
    } else if (!S_ISREG(st.st_mode) || age > unused_age_s) {
      remove(name);
    } else {
      entries.emplace_back(st.st_mtim.tv_sec, static_cast<std::uint64_t>(st.st_size), name);
      total += static_cast<std::uint64_t>(st.st_size);
    }
  }
  ::closedir(d);
  // Least recently used first: an entry's time is touched when it is used (program_cache.cpp).
  std::sort(entries.begin(), entries.end());
  for (const auto &[mtime, size, name] : entries) {
    if (total <= max_total_bytes) break;
    remove(name);
    total -= size;
  }
  return removed;
}

}  // namespace hk::program
