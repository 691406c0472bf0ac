// Per-kernel estimate of how long a launch takes, which decides inline vs team for
// launches below the size threshold, and whether the team may steal.
//
// Timing costs two clock reads (~40 ns here), so a kernel whose last timed launch took
// under 1 µs is timed only one launch in 16; a launch with no estimate yet or a changed
// group count is always timed. The trade-off: work that varies with the sampling period
// (e.g. a kernel that is slow exactly every 16th launch) can evade the sampler.
//
//   bool timed = s.shouldTime(groups);
//   std::uint64_t t0 = timed ? nowNs() : 0;
//   ... run ...
//   if (timed) s.record(nowNs() - t0, serial_ns, groups);
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>

namespace hk::launch {

inline std::uint64_t nowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(t.tv_nsec);
}

class Sampler {
 public:
  static constexpr std::uint64_t kFastNs = 1'000;        // below: sample 1 in 16
  static constexpr std::uint32_t kPeriod = 16;
  static constexpr std::uint64_t kStealNs = 50'000;      // last launch this slow: steal
  static constexpr std::uint64_t kTeamSerialNs = 20'000; // serial work worth the team

  bool shouldTime(std::uint64_t groups) {
    if (groups != get(groups_) || get(serial_ns_) == 0 || get(last_ns_) >= kFastNs) return true;
    const std::uint32_t n = skipped_.load(std::memory_order_relaxed) + 1;
    skipped_.store(n < kPeriod ? n : 0, std::memory_order_relaxed);
    return n >= kPeriod;
  }
  // The launch took `wall_ns`; its work-groups took `serial_ns` of thread time (on the
  // team: the sum of each thread's time in its groups, so that waking the team, which
  // can cost tens of µs here, never makes a kernel look slow).
  void record(std::uint64_t wall_ns, std::uint64_t serial_ns, std::uint64_t groups) {
    set(last_ns_, wall_ns);
    set(serial_ns_, serial_ns + 1);  // +1: a measured 0 still counts as an estimate
    set(groups_, groups);
  }
  // The kernel's recent launches were slow enough to be worth splitting.
  bool slow() const { return get(serial_ns_) >= kTeamSerialNs; }
  std::uint64_t lastNs() const { return get(last_ns_); }
  std::uint64_t serialNs() const { return get(serial_ns_); }

 private:
  // Heuristics shared by threads launching the same kernel: relaxed atomics (plain moves
  // on x86), a lost update only shifts a sample.
  static std::uint64_t get(const std::atomic<std::uint64_t> &a) {
    return a.load(std::memory_order_relaxed);
  }
  static void set(std::atomic<std::uint64_t> &a, std::uint64_t v) {
    a.store(v, std::memory_order_relaxed);
  }
  std::atomic<std::uint64_t> serial_ns_{0};  // 0: no estimate
  std::atomic<std::uint64_t> last_ns_{0};
  std::atomic<std::uint64_t> groups_{0};
  std::atomic<std::uint32_t> skipped_{0};
};

}  // namespace hk::launch
