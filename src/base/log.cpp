#include "base/log.hpp"

#include <cstdarg>
#include <cstdio>

#include "base/config.hpp"

namespace hk {

bool logEnabled(LogLevel level) {
  return static_cast<int>(level) <= static_cast<int>(config().log_level);
}

void logf(LogLevel level, const char *fmt, ...) {
  if (!logEnabled(level)) return;
  static const char *const kNames[] = {"error", "warning", "info", "debug"};
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  // One fprintf per line so that lines from several threads do not interleave.
  std::fprintf(stderr, "hostkernel %s: %s\n", kNames[static_cast<int>(level)], line);
}

}  // namespace hk
