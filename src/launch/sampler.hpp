// Per-kernel estimate of how long a launch takes, which decides inline vs team for
// launches below the size threshold.
//
// Timing a launch costs two clock reads. A kernel whose last timed launch was fast, less
// than fastNs() (16 times the cost of timing, and at least 1 µs), is timed only one launch
// in 16; a launch with no estimate yet or a changed group count is always timed, and so
// is every launch of a slower kernel, which timing slows by less than 1/16. The threshold
// follows the measured cost of a clock read, so the rule is the same on a machine (or
// under an instrumenting tool) where everything, clock reads included, runs slower. The
// trade-off: work that varies with the sampling period (e.g. a kernel that is slow
// exactly every 16th launch) can evade the sampler.
//
//   bool timed = s.shouldTime(groups);
//   std::uint64_t t0 = timed ? nowNs() : 0;
//   ... run ...
//   if (timed) s.record(nowNs() - t0, serial_ns, groups);
#pragma once

#include <atomic>
#include <cstdint>

#include "base/clock.hpp"

namespace hk::launch {

class Sampler {
 public:
  static constexpr std::uint32_t kPeriod = 16;           // a power of two
  static constexpr std::uint64_t kMinFastNs = 1'000;     // fastNs() is at least this
  static constexpr std::uint64_t kTeamSerialNs = 20'000; // serial work worth the team
  static_assert((kPeriod & (kPeriod - 1)) == 0);

  // Launches faster than this are timed one in kPeriod: kPeriod times the cost of timing
  // one launch (two clock reads), measured once per process, and at least kMinFastNs;
  // 0 (every launch timed) with HOSTKERNEL_TRACE.
  static std::uint64_t fastNs();

  Sampler() : fast_ns_(fastNs()) {}
  explicit Sampler(std::uint64_t fast_ns) : fast_ns_(fast_ns) {}  // for tests

  [[gnu::always_inline]] bool shouldTime(std::uint64_t groups) {
    // sampled_groups_ is 0 (never a group count) unless the last timed launch was fast.
    // Expected equal: the steady state of a fast kernel, whose launches the compiler must
    // lay out without a jump.
    if (__builtin_expect(groups != get(sampled_groups_), 0)) return true;
    const std::uint32_t n = skipped_.load(std::memory_order_relaxed) + 1;
    skipped_.store(n, std::memory_order_relaxed);
    return n % kPeriod == 0;
  }
  // The launch took `wall_ns`; its work-groups took `serial_ns` of thread time (on the
  // team: the sum of each thread's time in its groups, so that waking the team, which
  // can cost tens of µs, never makes a kernel look slow). The estimate is the lesser
  // of the last two launches' (the first launch's alone): a thread that lost its CPU for
  // one launch (another process, the application's own threads) must not send the next
  // launch of a short kernel to the team.
  [[gnu::always_inline]] void record(std::uint64_t wall_ns, std::uint64_t serial_ns, std::uint64_t groups) {
    const std::uint64_t sample = serial_ns + 1;  // +1: a measured 0 still counts
    const std::uint64_t previous = get(last_serial_ns_);
    set(last_ns_, wall_ns);
    set(last_serial_ns_, sample);
    set(serial_ns_, previous && previous < sample ? previous : sample);
    set(sampled_groups_, wall_ns < fast_ns_ ? groups : 0);
  }
  // What the sampler knows, to hand on to a new kernel object of the same kernel
  // (libraries that make one per call): seed() starts from it; the next launch is timed.
  struct Estimate {
    std::uint64_t serial_ns = 0, last_ns = 0;
  };
  Estimate estimate() const { return {get(serial_ns_), get(last_ns_)}; }
  void seed(const Estimate &e) {
    set(serial_ns_, e.serial_ns);
    set(last_serial_ns_, e.serial_ns);
    set(last_ns_, e.last_ns);
    set(sampled_groups_, 0);
  }

  // The kernel's recent launches were slow enough to be worth splitting.
  bool slow() const { return get(serial_ns_) >= kTeamSerialNs; }
  // slow(), or nothing known yet: a kernel's first direct launch may take as long as
  // any, and on the calling thread alone a long one takes the team's time twice over.
  // One compare: 0 (no estimate) wraps to the largest value.
  bool slowOrUnknown() const { return get(serial_ns_) - 1 >= kTeamSerialNs - 1; }
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
  std::atomic<std::uint64_t> last_serial_ns_{0};  // the last launch's sample alone
  std::atomic<std::uint64_t> last_ns_{0};
  std::atomic<std::uint64_t> sampled_groups_{0};
  std::atomic<std::uint32_t> skipped_{0};
  std::uint64_t fast_ns_;
};

}  // namespace hk::launch
