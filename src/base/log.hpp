// Logging to stderr, filtered by HOSTKERNEL_LOG (error|warn|info|debug, default warn).
// Never used on the launch path: only preparation, fallbacks seen for the first time and
// shutdown log.
//
//   hk::logf(hk::LogLevel::Warn, "program %p: %s", prog, reason.c_str());
#pragma once

namespace hk {

enum class LogLevel { Error = 0, Warn = 1, Info = 2, Debug = 3 };

bool logEnabled(LogLevel level);

[[gnu::format(printf, 2, 3)]] void logf(LogLevel level, const char *fmt, ...);

}  // namespace hk
