// Settings from HOSTKERNEL_* environment variables, read once at first use.
//
//   if (hk::config().disable) return forwardToQueue();
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/log.hpp"

namespace hk {

enum class PinMode { None, Cores, Pus };

// Whose threads run the team's work-groups (docs/team.md): Auto takes the application's
// OpenMP threads when an OpenMP runtime is loaded, else hostkernel's own workers.
enum class TeamMode { Auto, Own, OpenMP };

struct Config {
  bool disable = false;                // HOSTKERNEL_DISABLE=1: every launch uses the queue
  bool report = false;                 // HOSTKERNEL_REPORT=1: per-kernel counts at exit
  unsigned num_threads = 0;            // HOSTKERNEL_NUM_THREADS: team cap (0: all CPUs)
  PinMode pin = PinMode::None;         // HOSTKERNEL_PIN=none|cores|pus
  TeamMode team = TeamMode::Auto;      // HOSTKERNEL_TEAM=auto|own|openmp
  // HOSTKERNEL_SPIN_US: how long team threads (and a launching thread waiting for them)
  // spin before parking, in microseconds; 0 parks at once. At most kMaxSpinUs.
  std::uint32_t spin_us = 100;
  std::size_t inline_max_items = 8192; // HOSTKERNEL_INLINE_MAX_ITEMS
  // HOSTKERNEL_ALWAYS_TEAM=1: launches large enough for the team always run on it, without
  // measuring whether the calling thread alone is faster (launch/team_gain.hpp).
  bool always_team = false;
  // HOSTKERNEL_SPECIALIZE_MS: team work (ms) after which a kernel gets PoCL's work-group
  // function specialized for its local size (docs/specialized.md); 0: never.
  std::uint64_t specialize_ms = 200;
  // HOSTKERNEL_BACKGROUND_US: a direct launch whose kernel's last launch took at least
  // this long runs on the background launch thread while the caller goes on
  // (docs/background.md); 0: every direct launch runs before its call returns.
  std::uint64_t background_us = 5;
  // HOSTKERNEL_FIRST_LAUNCH=queue|direct: whether the first launch of a kernel whose
  // program is not prepared yet goes to PoCL's queue (docs/first-launch.md).
  bool first_launch_on_queue = true;
  std::string cache_dir;               // HOSTKERNEL_CACHE_DIR, resolved; empty: no cache
  // HOSTKERNEL_PERF_MAP=1: work-group functions are named in /tmp/perf-<pid>.map
  // (docs/profiling.md).
  bool perf_map = false;
  // HOSTKERNEL_TRACE=FILE.json: a Chrome trace-event timeline of the launches, written at
  // exit (docs/profiling.md); empty: none.
  std::string trace_file;
  LogLevel log_level = LogLevel::Warn; // HOSTKERNEL_LOG=error|warn|info|debug
};

// The longest HOSTKERNEL_SPIN_US taken (1 s); larger values are reduced to it.
constexpr std::uint32_t kMaxSpinUs = 1'000'000;

// The process's configuration; the environment is read on the first call.
const Config &config();

// Parses the environment as given (for tests); config() uses the process environment.
Config parseConfig(const char *(*getenv_fn)(const char *));

}  // namespace hk
