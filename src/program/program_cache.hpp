// Persistent cache of PoCL's program binaries (docs/cache.md). Taking a program's binary
// makes PoCL compile the generic work-group function of every kernel (a compile per kernel
// when PoCL's kernel cache is cold); an entry written by an earlier process holds those
// bytes, so a warm first launch reads one file instead. The key is built from what PoCL
// was given (source or binary, build options), the device and the PoCL version — all
// cheap to ask for — and is stored in full in the entry and compared byte for byte when it
// is read.
//
//   ProgramCache &cache = ProgramCache::process();       // HOSTKERNEL_CACHE_DIR
//   CacheKey key;
//   std::string why;
//   std::vector<std::uint8_t> bytes;
//   if (cache.enabled() && makeCacheKey(program, device, key, why)) {
//     if (!cache.load(key, bytes)) {                    // miss, or a bad entry (logged)
//       bytes = queryBinary(program);                   // the expensive way
//       cache.store(key, bytes);                        // atomic; failures logged once
//     }
//   }
#pragma once

#include <CL/cl.h>

#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "base/thread_safety.hpp"

namespace hk::program {

// What identifies a program's compiled output on one device (docs/cache.md, "Key").
struct CacheKey {
  std::string material;   // compared in full with the entry's copy
  std::string file_name;  // "<16 hex digits>.hkc", from a hash of `material`
};

// Builds the key of `program` (built) for `device` without asking PoCL for the binary.
// False, with `why`, for programs whose input PoCL cannot give back cheaply (linked
// programs, binaries not created through hostkernel).
bool makeCacheKey(cl_program program, cl_device_id device, CacheKey &key, std::string &why);

// Records the binary a program was created from (clCreateProgramWithBinary, SPIR bitcode
// made from SPIR-V): PoCL returns a program's input binary only by compiling it.
void noteProgramBinaryInput(cl_program program, cl_device_id device,
                            std::span<const std::uint8_t> binary);
// Drops what noteProgramBinaryInput recorded (the program was released).
void forgetProgramBinaryInput(cl_program program);

class CacheDir;

// Bounds (docs/cache.md, "Size"): an entry larger than kMaxEntryBytes is neither written
// nor read; after a process's first write the entries are trimmed to kMaxCacheBytes, least
// recently used first, entries unused for kUnusedEntryAgeS are removed, and so are
// temporary files older than kTempFileAgeS (their writer died).
inline constexpr std::uint64_t kMaxEntryBytes = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kMaxCacheBytes = std::uint64_t{512} << 20;
inline constexpr std::int64_t kTempFileAgeS = 3600;
inline constexpr std::int64_t kUnusedEntryAgeS = 30 * 24 * 3600;

class ProgramCache {
 public:
  // The process's cache, in config().cache_dir (empty: disabled).
  static ProgramCache &process();

  // A cache in `dir`, created on the first store; an empty `dir` disables it.
  explicit ProgramCache(std::string dir);
  ~ProgramCache();

  bool enabled() const { return !dir_.empty(); }
  const std::string &dir() const { return dir_; }
  std::string entryPath(const CacheKey &key) const { return dir_ + "/" + key.file_name; }

  // The payload stored for `key`. False when there is no entry, or when the entry is
  // truncated, corrupt, for another key, or not to be trusted (docs/cache.md, "Trust";
  // logged at info level; the caller rebuilds it and stores it again). False for every
  // key when the directory is not the user's alone (one warning).
  bool load(const CacheKey &key, std::vector<std::uint8_t> &payload);

  // Writes the entry: a temporary file in the same directory, renamed over the entry, so
  // a reader sees the old entry, no entry or the whole new one. False when the directory
  // cannot be created or written (full, read-only, ...): logged once per cache, never an
  // error for the caller.
  bool store(const CacheKey &key, std::span<const std::uint8_t> payload);

  // The caller found a loaded payload unusable (it does not parse): counted as rejected.
  void noteRejected(const CacheKey &key, const std::string &why);

  struct Stats {
    std::uint64_t hits = 0, misses = 0, rejected = 0, stored = 0, write_failures = 0;
  };
  Stats stats() const;

 private:
  void writeFailed(const std::string &what);
  // The directory, opened and checked on first use (created when `create`); null when it
  // is missing, cannot be opened, or was refused.
  CacheDir *directory(bool create);
  static void touch(int fd, const struct stat &st);

  std::string dir_;
  Mutex open_mutex_;
  std::unique_ptr<CacheDir> open_;  // guarded by open_mutex_ until set
  bool refused_ GUARDED_BY(open_mutex_) = false;
  std::once_flag write_failure_logged_, swept_;
  std::atomic<std::uint64_t> hits_{0}, misses_{0}, rejected_{0}, stored_{0},
      write_failures_{0};
};

namespace detail {
// 64-bit hash of `bytes` (not cryptographic): entry names.
std::uint64_t hash64(std::span<const std::uint8_t> bytes, std::uint64_t seed);
}  // namespace detail

}  // namespace hk::program
