#include "base/config.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hk {
namespace {

bool parseBool(const char *v) {
  return v && *v && std::strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0 &&
         strcasecmp(v, "no") != 0 && strcasecmp(v, "off") != 0;
}

// A malformed number keeps the default: a typo in an environment variable must not
// change behaviour silently, so it is reported (stderr: logging is not set up yet).
template <typename T>
void parseNumber(const char *name, const char *v, T &out) {
  if (!v || !*v) return;
  char *end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (*end != '\0' || v[0] == '-') {
    std::fprintf(stderr, "hostkernel warning: ignoring %s=%s (not a number)\n", name, v);
    return;
  }
  out = static_cast<T>(n);
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
  c.disable = parseBool(getenv_fn("HOSTKERNEL_DISABLE"));
  c.report = parseBool(getenv_fn("HOSTKERNEL_REPORT"));
  c.perf_map = parseBool(getenv_fn("HOSTKERNEL_PERF_MAP"));
  if (const char *trace = getenv_fn("HOSTKERNEL_TRACE")) c.trace_file = trace;
  parseNumber("HOSTKERNEL_NUM_THREADS", getenv_fn("HOSTKERNEL_NUM_THREADS"), c.num_threads);
  parseNumber("HOSTKERNEL_INLINE_MAX_ITEMS", getenv_fn("HOSTKERNEL_INLINE_MAX_ITEMS"),
              c.inline_max_items);
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
  if (const char *pin = getenv_fn("HOSTKERNEL_PIN")) {
    if (!std::strcmp(pin, "cores")) c.pin = PinMode::Cores;
    else if (!std::strcmp(pin, "pus")) c.pin = PinMode::Pus;
    else if (*pin && std::strcmp(pin, "none"))
      std::fprintf(stderr, "hostkernel warning: ignoring HOSTKERNEL_PIN=%s\n", pin);
  }
  if (const char *team = getenv_fn("HOSTKERNEL_TEAM")) {
    if (!std::strcmp(team, "own")) c.team = TeamMode::Own;
    else if (!std::strcmp(team, "openmp")) c.team = TeamMode::OpenMP;
    else if (*team && std::strcmp(team, "auto"))
      std::fprintf(stderr, "hostkernel warning: ignoring HOSTKERNEL_TEAM=%s\n", team);
  }
  if (const char *first = getenv_fn("HOSTKERNEL_FIRST_LAUNCH")) {
    if (!std::strcmp(first, "direct")) c.first_launch_on_queue = false;
    else if (*first && std::strcmp(first, "queue"))
      std::fprintf(stderr, "hostkernel warning: ignoring HOSTKERNEL_FIRST_LAUNCH=%s\n", first);
  }
  c.cache_dir = cacheDir(getenv_fn);
  if (const char *lv = getenv_fn("HOSTKERNEL_LOG")) {
    if (!std::strcmp(lv, "error")) c.log_level = LogLevel::Error;
    else if (!std::strcmp(lv, "warn")) c.log_level = LogLevel::Warn;
    else if (!std::strcmp(lv, "info")) c.log_level = LogLevel::Info;
    else if (!std::strcmp(lv, "debug")) c.log_level = LogLevel::Debug;
  }
  return c;
}

const Config &config() {
  static const Config c = parseConfig([](const char *n) -> const char * { return std::getenv(n); });
  return c;
}

}  // namespace hk
