#include "base/config.hpp"

#include <strings.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace hk {
namespace {

// A yes/no setting. Only these words count; anything else (a typo, "nope", "verbose")
// keeps the default with a warning: a misspelt word must not switch a behaviour on.
// Unset or empty means the default (false).
bool parseBool(const char *name, const char *v) {
  if (!v || !*v) return false;
  for (const char *yes : {"1", "true", "yes", "on"})
    if (strcasecmp(v, yes) == 0) return true;
  for (const char *no : {"0", "false", "no", "off"})
    if (strcasecmp(v, no) == 0) return false;
  std::fprintf(stderr, "hostkernel warning: ignoring %s=%s (not 1/0, true/false, yes/no, on/off)\n",
               name, v);
  return false;
}

// A malformed or out-of-range number keeps the default: a typo in an environment variable
// must not change behaviour silently, so it is reported (stderr: logging is not set up
// yet). Only plain decimal digits are numbers: strtoull alone would take " -1" as 2^64-1,
// read "1e23" as 1, and wrap "4294967297" to 1 when narrowed.
template <typename T>
void parseNumber(const char *name, const char *v, T &out) {
  if (!v || !*v) return;
  bool digits = true;
  for (const char *p = v; *p; ++p) digits = digits && *p >= '0' && *p <= '9';
  if (!digits) {
    std::fprintf(stderr, "hostkernel warning: ignoring %s=%s (not a number)\n", name, v);
    return;
  }
  errno = 0;
  const unsigned long long n = std::strtoull(v, nullptr, 10);
  if (errno == ERANGE || n > std::numeric_limits<T>::max()) {
    std::fprintf(stderr, "hostkernel warning: ignoring %s=%s (more than %llu)\n", name, v,
                 static_cast<unsigned long long>(std::numeric_limits<T>::max()));
    return;
  }
  out = static_cast<T>(n);
}

// One of `words` (index into `values`), else the default with a warning.
template <typename T, std::size_t N>
void parseWord(const char *name, const char *v, const char *const (&words)[N],
               const T (&values)[N], T &out) {
  if (!v || !*v) return;
  for (std::size_t i = 0; i < N; ++i)
    if (std::strcmp(v, words[i]) == 0) {
      out = values[i];
      return;
    }
  std::string list;
  for (const char *w : words) list += (list.empty() ? "" : "|") + std::string(w);
  std::fprintf(stderr, "hostkernel warning: ignoring %s=%s (not %s)\n", name, v, list.c_str());
}

// The program cache's directory (docs/cache.md): HOSTKERNEL_CACHE_DIR; unset, the XDG
// cache directory; set to "" or "off", none (the cache is disabled).
std::string cacheDir(const char *(*getenv_fn)(const char *)) {
  if (const char *dir = getenv_fn("HOSTKERNEL_CACHE_DIR"))
    return std::strcmp(dir, "off") == 0 ? std::string() : std::string(dir);
  if (const char *xdg = getenv_fn("XDG_CACHE_HOME"); xdg && xdg[0] == '/')
    return std::string(xdg) + "/hostkernel";
  if (const char *home = getenv_fn("HOME"); home && *home)
    return std::string(home) + "/.cache/hostkernel";
  return {};
}

}  // namespace

Config parseConfig(const char *(*getenv_fn)(const char *)) {
  Config c;
  c.disable = parseBool("HOSTKERNEL_DISABLE", getenv_fn("HOSTKERNEL_DISABLE"));
  c.report = parseBool("HOSTKERNEL_REPORT", getenv_fn("HOSTKERNEL_REPORT"));
  c.perf_map = parseBool("HOSTKERNEL_PERF_MAP", getenv_fn("HOSTKERNEL_PERF_MAP"));
  c.always_team = parseBool("HOSTKERNEL_ALWAYS_TEAM", getenv_fn("HOSTKERNEL_ALWAYS_TEAM"));
  if (const char *trace = getenv_fn("HOSTKERNEL_TRACE")) c.trace_file = trace;
  parseNumber("HOSTKERNEL_NUM_THREADS", getenv_fn("HOSTKERNEL_NUM_THREADS"), c.num_threads);
  parseNumber("HOSTKERNEL_INLINE_MAX_ITEMS", getenv_fn("HOSTKERNEL_INLINE_MAX_ITEMS"),
              c.inline_max_items);
  parseNumber("HOSTKERNEL_BACKGROUND_US", getenv_fn("HOSTKERNEL_BACKGROUND_US"),
              c.background_us);
  parseNumber("HOSTKERNEL_SPECIALIZE_MS", getenv_fn("HOSTKERNEL_SPECIALIZE_MS"),
              c.specialize_ms);
  std::uint64_t spin_us = c.spin_us;
  parseNumber("HOSTKERNEL_SPIN_US", getenv_fn("HOSTKERNEL_SPIN_US"), spin_us);
  if (spin_us > kMaxSpinUs) {
    std::fprintf(stderr, "hostkernel warning: HOSTKERNEL_SPIN_US=%llu is more than %u: using %u\n",
                 static_cast<unsigned long long>(spin_us), kMaxSpinUs, kMaxSpinUs);
    spin_us = kMaxSpinUs;
  }
  c.spin_us = static_cast<std::uint32_t>(spin_us);
  parseWord("HOSTKERNEL_PIN", getenv_fn("HOSTKERNEL_PIN"), {"none", "cores", "pus"},
            {PinMode::None, PinMode::Cores, PinMode::Pus}, c.pin);
  parseWord("HOSTKERNEL_TEAM", getenv_fn("HOSTKERNEL_TEAM"), {"auto", "own", "openmp"},
            {TeamMode::Auto, TeamMode::Own, TeamMode::OpenMP}, c.team);
  parseWord("HOSTKERNEL_FIRST_LAUNCH", getenv_fn("HOSTKERNEL_FIRST_LAUNCH"),
            {"queue", "direct"}, {true, false}, c.first_launch_on_queue);
  c.cache_dir = cacheDir(getenv_fn);
  parseWord("HOSTKERNEL_LOG", getenv_fn("HOSTKERNEL_LOG"), {"error", "warn", "info", "debug"},
            {LogLevel::Error, LogLevel::Warn, LogLevel::Info, LogLevel::Debug}, c.log_level);
  return c;
}

const Config &config() {
  static const Config c = parseConfig([](const char *n) -> const char * { return std::getenv(n); });
  return c;
}

}  // namespace hk
