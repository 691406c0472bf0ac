#include "program/program_cache.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <map>
#include <new>
#include <utility>

#include "base/config.hpp"
#include "base/fd_io.hpp"
#include "base/log.hpp"
#include "base/next.hpp"
#include "base/siphash.hpp"
#include "base/thread_safety.hpp"
#include "program/cache_dir.hpp"
#include "program/reads_files.hpp"
#include "pocl/environment.hpp"
#include "pocl/library_identity.hpp"
#include "pocl/object_id.hpp"

namespace hk::program {
namespace detail {

namespace {
std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}
}  // namespace

std::uint64_t hash64(std::span<const std::uint8_t> bytes, std::uint64_t seed) {
  std::uint64_t h = mix64(seed ^ (bytes.size() * 0x9e3779b97f4a7c15ull));
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = (h ^ mix64(w + seed)) * 0x9e3779b97f4a7c15ull;
    h = (h << 29) | (h >> 35);
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
  return mix64(h ^ mix64(tail ^ seed));
}

}  // namespace detail

namespace {

using detail::hash64;

std::span<const std::uint8_t> asBytes(const std::string &s) {
  return {reinterpret_cast<const std::uint8_t *>(s.data()), s.size()};
}

// 16 lower-case hex digits (not snprintf: a program's first launch makes several keys).
std::string hex64(std::uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 15];
  return s;
}

template <typename Getter, typename Object, typename Param>
bool infoString(Getter get, Object obj, Param param, std::string &out) {
  size_t n = 0;
  if (get(obj, param, 0, nullptr, &n) != CL_SUCCESS) return false;
  out.assign(n, '\0');
  if (n && get(obj, param, n, out.data(), nullptr) != CL_SUCCESS) return false;
  while (!out.empty() && out.back() == '\0') out.pop_back();
  return true;
}

// The CPU's feature bits: PoCL compiles for the host CPU, and a VM can hide features of
// the model PoCL names in its device strings.
std::string cpuFeatures() {
  std::string s;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) s += hex64((std::uint64_t{c} << 32) | d);
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
    s += "." + hex64((std::uint64_t{b} << 32) | c) + "." + hex64(d);
#endif
  return s;
}

// Binaries programs were created from, by program and device (noteProgramBinaryInput).
struct BinaryInput {
  std::uint64_t program_id;
  std::string digest;  // size and two 64-bit hashes
};
Mutex g_inputs_mutex;
std::map<std::pair<cl_program, cl_device_id>, BinaryInput> g_inputs GUARDED_BY(g_inputs_mutex);

bool binaryInput(cl_program program, cl_device_id device, std::string &digest) {
  MutexLock lock(g_inputs_mutex);
  auto it = g_inputs.find({program, device});
  if (it == g_inputs.end() || it->second.program_id != pocl::objectId(program)) return false;
  digest = it->second.digest;
  return true;
}

// Entry file: header, key material, payload (docs/cache.md, "Entry format"). The tag is
// SipHash-2-4-128 under the cache directory's secret key over the header's first 32 bytes,
// the key material and the payload: someone who can read entries but not the key cannot
// make one this process accepts.
constexpr char kMagic[8] = {'h', 'k', 'c', 'a', 'c', 'h', 'e', '\0'};
constexpr std::uint32_t kFormatVersion = 3;  // 3: keyed tag; 2: stack estimates
struct EntryHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t reserved;
  std::uint64_t key_size;
  std::uint64_t payload_size;
  SipHash128::Tag tag;
};
static_assert(sizeof(EntryHeader) == 48);
constexpr std::size_t kTaggedHeaderBytes = offsetof(EntryHeader, tag);
constexpr std::uint64_t kKeySeed = 0x686b2d6b6579ull;

SipHash128::Tag entryTag(const SipHash128::Key &secret, const EntryHeader &h,
                         std::span<const std::uint8_t> key, std::span<const std::uint8_t> payload) {
  SipHash128 mac(secret);
  mac.update({reinterpret_cast<const std::uint8_t *>(&h), kTaggedHeaderBytes});
  mac.update(key);
  mac.update(payload);
  return mac.finish();
}

// A write past RLIMIT_FSIZE raises SIGXFSZ, which ends the process unless it is ignored:
// refuse such a write instead of making it. A handler is no safer than the default: the
// one LLVM installs when PoCL builds a program ends the process too (seen with PoCL 7.1).
bool exceedsFileSizeLimit(std::uint64_t size) {
  struct rlimit rl;
  if (::getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
      size <= rl.rlim_cur)
    return false;
  struct sigaction sa;
  return ::sigaction(SIGXFSZ, nullptr, &sa) != 0 || sa.sa_handler != SIG_IGN;
}

}  // namespace

bool makeCacheKey(cl_program program, cl_device_id device, CacheKey &key, std::string &why) {
  const auto &cl = next();
  std::string platform_version, device_name, device_version, driver, options, input;
  cl_platform_id platform = nullptr;
  if (cl.clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) !=
          CL_SUCCESS ||
      !infoString(cl.clGetPlatformInfo, platform, CL_PLATFORM_VERSION, platform_version) ||
      !infoString(cl.clGetDeviceInfo, device, CL_DEVICE_NAME, device_name) ||
      !infoString(cl.clGetDeviceInfo, device, CL_DEVICE_VERSION, device_version) ||
      !infoString(cl.clGetDeviceInfo, device, CL_DRIVER_VERSION, driver)) {
    why = "device information unavailable";
    return false;
  }
  auto get_options = [&](cl_program p, cl_program_build_info param, size_t n, void *v,
                         size_t *r) { return cl.clGetProgramBuildInfo(p, device, param, n, v, r); };
  if (!infoString(get_options, program, CL_PROGRAM_BUILD_OPTIONS, options)) {
    why = "build options unavailable";
    return false;
  }
  std::string kind;
  if (infoString(cl.clGetProgramInfo, program, CL_PROGRAM_SOURCE, input) && !input.empty()) {
    kind = "source";
    if (readsFiles(input, options)) {
      why = "the program includes files (#include or -include), which the key cannot cover";
      return false;
    }
  } else if (binaryInput(program, device, input)) {
    kind = "binary";
  } else {
    why = "the program's input is unknown (linked, or created from a binary elsewhere)";
    return false;
  }
  static const std::string cpu = cpuFeatures();
  static const std::string env = pocl::compilerEnvironment();
  std::string &m = key.material;
  m.clear();
  m += "hostkernel program cache " + std::to_string(kFormatVersion) + "\n";
  m += "platform-version: " + platform_version + "\n";
  m += "device-name: " + device_name + "\n";
  m += "device-version: " + device_version + "\n";
  m += "driver-version: " + driver + "\n";
  m += "cpu-features: " + cpu + "\n";
  m += "pocl-environment: " + env + "\n";
  m += "pocl-libraries:\n" + pocl::compilerIdentity();
  m += "build-options: " + options + "\n";
  m += "input: " + kind + " " + std::to_string(input.size()) + "\n";
  m += input;
  key.file_name = hex64(hash64(asBytes(m), kKeySeed)) + ".hkc";
  return true;
}

void noteProgramBinaryInput(cl_program program, cl_device_id device,
                            std::span<const std::uint8_t> binary) {
  if (!program || !device || binary.empty()) return;
  cl_context context = nullptr;
  if (next().clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context,
                              nullptr) != CL_SUCCESS)
    return;
  pocl::checkObjectIds(context);
  // Without object ids a new program at a released one's address could inherit the
  // record: such programs are not cached.
  if (pocl::objectId(program) == 0) return;
  // Binaries are large; two independent 64-bit hashes and the size stand for them.
  std::string digest = std::to_string(binary.size()) + " " + hex64(hash64(binary, 1)) +
                       hex64(hash64(binary, 2));
  MutexLock lock(g_inputs_mutex);
  g_inputs[{program, device}] = BinaryInput{pocl::objectId(program), std::move(digest)};
}

void forgetProgramBinaryInput(cl_program program) {
  MutexLock lock(g_inputs_mutex);
  std::erase_if(g_inputs, [&](const auto &e) { return e.first.first == program; });
}

ProgramCache &ProgramCache::process() {
  static ProgramCache *cache = new ProgramCache(config().cache_dir);  // never destroyed
  return *cache;
}

ProgramCache::ProgramCache(std::string dir) : dir_(std::move(dir)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
}

ProgramCache::~ProgramCache() = default;

CacheDir *ProgramCache::directory(bool create) {
  MutexLock lock(open_mutex_);
  if (open_ || refused_) return open_.get();
  auto dir = std::make_unique<CacheDir>();
  std::string why;
  switch (CacheDir::open(dir_, create, *dir, why)) {
    case CacheDir::Opened::Yes:
      open_ = std::move(dir);
      break;
    case CacheDir::Opened::Missing:  // nothing to read yet; a store creates it
      break;
    case CacheDir::Opened::Refused:
      // Once per process, and for good: the directory's owner or mode does not change
      // because this process keeps asking.
      refused_ = true;
      logf(LogLevel::Warn, "program cache %s not used (%s); continuing without it",
           dir_.c_str(), why.c_str());
      break;
    case CacheDir::Opened::Failed:
      if (create) writeFailed(why);
      break;
  }
  return open_.get();
}

bool ProgramCache::load(const CacheKey &key, std::vector<std::uint8_t> &payload) {
  if (!enabled()) return false;
  CacheDir *dir = directory(false);
  struct stat st;
  std::string why;
  const int fd = dir ? dir->openEntry(key.file_name, kMaxEntryBytes, st, why) : -1;
  if (fd < 0) {
    if (!why.empty()) {
      noteRejected(key, why);
      return false;
    }
    misses_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  const char *bad = nullptr;
  EntryHeader h{};
  std::string stored_key;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < sizeof h || preadUpTo(fd, &h, sizeof h, 0) != sizeof h) {
    bad = "truncated header";
  } else if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    bad = "not a hostkernel cache entry";
  } else if (h.version != kFormatVersion) {
    bad = "another entry format version";
  } else if (h.key_size > size || h.payload_size > size ||
             sizeof h + h.key_size + h.payload_size != size) {
    bad = "truncated or over-long";
  } else if (h.key_size != key.material.size()) {
    bad = "written for another program, device or PoCL version";
  } else {
    // The sizes are bounded by the file's, and the file's by kMaxEntryBytes; a failed
    // allocation is still a refused entry, never an exception for the caller.
    try {
      stored_key.resize(h.key_size);
      payload.resize(h.payload_size);
    } catch (const std::bad_alloc &) {
      bad = "no memory to read it";
    }
    if (bad) {
    } else if (preadUpTo(fd, stored_key.data(), stored_key.size(), sizeof h) !=
               stored_key.size()) {
      bad = "unreadable";
    } else if (stored_key != key.material) {
      bad = "written for another program, device or PoCL version";
    } else if (preadUpTo(fd, payload.data(), payload.size(), sizeof h + h.key_size) !=
               payload.size()) {
      bad = "unreadable";
    } else if (!tagsEqual(entryTag(dir->secretKey(), h, asBytes(stored_key), payload), h.tag)) {
      bad = "corrupt, or not written with this cache's key (tag mismatch)";
    }
  }
  if (!bad) touch(fd, st);
  ::close(fd);
  if (bad) {
    payload.clear();
    payload.shrink_to_fit();
    noteRejected(key, bad);
    return false;
  }
  hits_.fetch_add(1, std::memory_order_relaxed);
  logf(LogLevel::Debug, "program cache: using %s", entryPath(key).c_str());
  return true;
}

// An entry's modification time is its last use, for eviction (CacheDir::sweep). Written
// at most once an hour per entry: a warm process reads many entries, and a write per
// read would cost more than the read.
void ProgramCache::touch(int fd, const struct stat &st) {
  struct timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  if (now.tv_sec - st.st_mtim.tv_sec < 3600) return;
  const struct timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
  ::futimens(fd, times);
}

void ProgramCache::noteRejected(const CacheKey &key, const std::string &why) {
  rejected_.fetch_add(1, std::memory_order_relaxed);
  logf(LogLevel::Info, "program cache: ignoring %s (%s); rebuilding it", entryPath(key).c_str(),
       why.c_str());
}

bool ProgramCache::store(const CacheKey &key, std::span<const std::uint8_t> payload) {
  if (!enabled()) return false;
  EntryHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kFormatVersion;
  h.key_size = key.material.size();
  h.payload_size = payload.size();
  const std::uint64_t size = sizeof h + h.key_size + h.payload_size;
  if (size > kMaxEntryBytes) {
    logf(LogLevel::Info, "program cache: %s not written (%llu bytes, more than %llu)",
         entryPath(key).c_str(), (unsigned long long)size, (unsigned long long)kMaxEntryBytes);
    return false;
  }
  if (exceedsFileSizeLimit(size)) {
    writeFailed("the entry exceeds the process's file size limit (RLIMIT_FSIZE)");
    return false;
  }
  CacheDir *dir = directory(true);
  if (!dir) return false;  // refused or not created: logged once
  h.tag = entryTag(dir->secretKey(), h, asBytes(key.material), payload);
  std::string tmp;
  int fd = dir->createTemp(".tmp-" + key.file_name + "-", tmp);
  if (fd < 0) {
    writeFailed(std::string("cannot create a file: ") + std::strerror(errno));
    return false;
  }
  bool ok = writeAll(fd, &h, sizeof h) &&
            writeAll(fd, key.material.data(), key.material.size()) &&
            writeAll(fd, payload.data(), payload.size());
  int saved = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  // rename() replaces the entry in one step: readers never see a partial file.
  if (ok && ::renameat(dir->fd(), tmp.c_str(), dir->fd(), key.file_name.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    ::unlinkat(dir->fd(), tmp.c_str(), 0);
    writeFailed(std::string("cannot write an entry: ") + std::strerror(saved));
    return false;
  }
  stored_.fetch_add(1, std::memory_order_relaxed);
  logf(LogLevel::Debug, "program cache: wrote %s", entryPath(key).c_str());
  // Once per process, after its first entry: leftovers of killed writers, entries unused
  // for long (written for a PoCL or a program no longer there), and the size bound.
  std::call_once(swept_, [&] {
    const unsigned n = dir->sweep(kMaxCacheBytes, kTempFileAgeS, kUnusedEntryAgeS);
    if (n) logf(LogLevel::Info, "program cache %s: removed %u old files", dir_.c_str(), n);
  });
  return true;
}

void ProgramCache::writeFailed(const std::string &what) {
  write_failures_.fetch_add(1, std::memory_order_relaxed);
  // Once per process: a full or read-only directory stays so, and every new program
  // would say it again. Launches are not affected (the binary was taken from PoCL).
  std::call_once(write_failure_logged_, [&] {
    logf(LogLevel::Warn, "program cache %s not written (%s); continuing without it",
         dir_.c_str(), what.c_str());
  });
}

ProgramCache::Stats ProgramCache::stats() const {
  Stats s;
  s.hits = hits_.load(std::memory_order_relaxed);
  s.misses = misses_.load(std::memory_order_relaxed);
  s.rejected = rejected_.load(std::memory_order_relaxed);
  s.stored = stored_.load(std::memory_order_relaxed);
  s.write_failures = write_failures_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace hk::program
