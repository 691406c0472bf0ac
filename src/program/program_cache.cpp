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
#include <cstring>
#include <map>
#include <utility>

#include "base/config.hpp"
#include "base/log.hpp"
#include "base/next.hpp"
#include "pocl/environment.hpp"
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

// An #include directive, or -include in the options: the program then depends on files
// whose contents are not part of the key.
bool readsFiles(const std::string &source, const std::string &options) {
  if (options.find("-include") != std::string::npos) return true;
  for (std::size_t at = 0; at < source.size();) {
    std::size_t i = source.find_first_not_of(" \t", at);
    if (i != std::string::npos && source[i] == '#') {
      i = source.find_first_not_of(" \t", i + 1);
      if (i != std::string::npos && source.compare(i, 7, "include") == 0) return true;
    }
    const std::size_t nl = source.find('\n', at);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return false;
}

// Binaries programs were created from, by program and device (noteProgramBinaryInput).
struct BinaryInput {
  std::uint64_t program_id;
  std::string digest;  // size and two 64-bit hashes
};
std::mutex g_inputs_mutex;
std::map<std::pair<cl_program, cl_device_id>, BinaryInput> g_inputs;

bool binaryInput(cl_program program, cl_device_id device, std::string &digest) {
  std::lock_guard lock(g_inputs_mutex);
  auto it = g_inputs.find({program, device});
  if (it == g_inputs.end() || it->second.program_id != pocl::objectId(program)) return false;
  digest = it->second.digest;
  return true;
}

// Entry file: header, key material, payload (docs/cache.md, "Entry format").
constexpr char kMagic[8] = {'h', 'k', 'c', 'a', 'c', 'h', 'e', '\0'};
constexpr std::uint32_t kFormatVersion = 2;  // 2: the payload carries stack estimates
struct EntryHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t reserved;
  std::uint64_t key_size;
  std::uint64_t payload_size;
  std::uint64_t key_hash;
  std::uint64_t payload_hash;
};
static_assert(sizeof(EntryHeader) == 48);
constexpr std::uint64_t kKeySeed = 0x686b2d6b6579ull, kPayloadSeed = 0x686b2d646174ull;

bool readFully(int fd, void *buf, std::size_t n, std::uint64_t offset) {
  auto *p = static_cast<char *>(buf);
  while (n) {
    ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
  return true;
}

bool writeFully(int fd, const void *buf, std::size_t n) {
  auto *p = static_cast<const char *>(buf);
  while (n) {
    ssize_t r = ::write(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = ENOSPC;
      return false;
    }
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

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
  std::lock_guard lock(g_inputs_mutex);
  g_inputs[{program, device}] = BinaryInput{pocl::objectId(program), std::move(digest)};
}

void forgetProgramBinaryInput(cl_program program) {
  std::lock_guard lock(g_inputs_mutex);
  std::erase_if(g_inputs, [&](const auto &e) { return e.first.first == program; });
}

ProgramCache &ProgramCache::process() {
  static ProgramCache *cache = new ProgramCache(config().cache_dir);  // never destroyed
  return *cache;
}

ProgramCache::ProgramCache(std::string dir) : dir_(std::move(dir)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
}

bool ProgramCache::load(const CacheKey &key, std::vector<std::uint8_t> &payload) {
  if (!enabled()) return false;
  const std::string path = entryPath(key);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    misses_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  const char *bad = nullptr;
  struct stat st;
  EntryHeader h{};
  std::string stored_key;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    bad = "not a regular file";
  } else if (static_cast<std::uint64_t>(st.st_size) < sizeof h ||
             !readFully(fd, &h, sizeof h, 0)) {
    bad = "truncated header";
  } else if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    bad = "not a hostkernel cache entry";
  } else if (h.version != kFormatVersion) {
    bad = "another entry format version";
  } else if (h.key_size > static_cast<std::uint64_t>(st.st_size) ||
             h.payload_size > static_cast<std::uint64_t>(st.st_size) ||
             sizeof h + h.key_size + h.payload_size != static_cast<std::uint64_t>(st.st_size)) {
    bad = "truncated or over-long";
  } else if (h.key_size != key.material.size() || h.key_hash != hash64(asBytes(key.material), kKeySeed)) {
    bad = "written for another program, device or PoCL version";
  } else {
    stored_key.resize(h.key_size);
    if (!readFully(fd, stored_key.data(), stored_key.size(), sizeof h)) {
      bad = "unreadable";
    } else if (stored_key != key.material) {
      bad = "written for another program, device or PoCL version";
    } else {
      payload.resize(h.payload_size);
      if (!readFully(fd, payload.data(), payload.size(), sizeof h + h.key_size))
        bad = "unreadable";
      else if (hash64(payload, kPayloadSeed) != h.payload_hash)
        bad = "corrupt (checksum mismatch)";
    }
  }
  ::close(fd);
  if (bad) {
    payload.clear();
    noteRejected(key, bad);
    return false;
  }
  hits_.fetch_add(1, std::memory_order_relaxed);
  logf(LogLevel::Debug, "program cache: using %s", path.c_str());
  return true;
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
  h.key_hash = hash64(asBytes(key.material), kKeySeed);
  h.payload_hash = hash64(payload, kPayloadSeed);
  if (exceedsFileSizeLimit(sizeof h + h.key_size + h.payload_size)) {
    writeFailed("the entry exceeds the process's file size limit (RLIMIT_FSIZE)");
    return false;
  }
  if (!makeDirectories(dir_)) {
    writeFailed(std::string("cannot create the directory: ") + std::strerror(errno));
    return false;
  }
  std::string tmp = dir_ + "/.tmp-" + key.file_name + "-XXXXXX";
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    writeFailed(std::string("cannot create a file: ") + std::strerror(errno));
    return false;
  }
  bool ok = writeFully(fd, &h, sizeof h) &&
            writeFully(fd, key.material.data(), key.material.size()) &&
            writeFully(fd, payload.data(), payload.size());
  int saved = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  // rename() replaces the entry in one step: readers never see a partial file.
  if (ok && ::rename(tmp.c_str(), entryPath(key).c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    writeFailed(std::string("cannot write an entry: ") + std::strerror(saved));
    return false;
  }
  stored_.fetch_add(1, std::memory_order_relaxed);
  logf(LogLevel::Debug, "program cache: wrote %s", entryPath(key).c_str());
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
