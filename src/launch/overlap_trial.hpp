// Whether long launches gain from running in the background, by measurement of what the
// application sees: the time from one long launch to the next, on the calling threads. A
// launch in the background returns at once and the caller's own work overlaps it, but the
// background thread needs a CPU of its own for that: beside a busy process (or on a host
// that runs other virtual machines' CPUs) it shares one with the caller or the other
// process, and a launch it runs costs the caller time slices. Beside a busy shell loop
// PyOpenCL's array code ran its loop 1.5 times slower with its launches in the background
// than with them run before their calls returned, though no launch was late by the rules
// of queue/background.cpp.
//
// One trial for the process (processTrial()), not one per kernel: the background thread
// spins for the next job and competes for a CPU whichever kernel it ran, so a kernel's
// launches run before their calls return gain nothing while another kernel's keep the
// background busy. Trials per kernel, which ran in step for kernels launched in step,
// compared one kernel direct beside the other in the background against both in the
// background, and kept the background beside a busy loop.
//
// The trial: after a warm-up of kWindow launches in the background, uncounted (the first
// launches there pay for what the background thread touches first: its stack, the
// kernels' code and data in its CPU's caches), chunks of kChunk launches alternate
// between the background and before their calls return, so that both routes see the same
// phases of the program, until each route has kWindow intervals and the trial has run
// kTrialNs (a scheduler's time slice is milliseconds: a shorter trial may see no
// contention at all). Each interval counts for the route of the launch that began it, up
// to kOutlierFactor times that route's median over its first kWindow intervals: a few
// long intervals (a garbage collection, a file read, a benchmark's other path between
// two batches) say nothing about the route, and counted in full they outweighed its
// difference. The interval that the first direct launch after a background chunk begins
// holds the wait for the launches still pending in the background (up to
// kPendingLaunches of them, the work the chunk's caller did not wait for): it counts for
// the background, less the direct route's median interval, and as no interval of either
// route. Counted for the direct launch that waits, it charged the background's work to
// the direct route. A mean, not a median, decides, because a program launches at
// intervals of several lengths, and beside a busy process the background's cost is in
// the body of its distribution (its slower tenth), which a median misses. The background
// wins unless the direct launches' mean is shorter. A win keeps the next kKeepLaunches
// long launches in the background, and for kKeepPerTrial times as long as the trial took
// (a trial of fast launches lasts 20 ms, a thousand launches: half of them give up their
// overlap); a loss sends the next kKeepLaunches direct, twice as many after each further
// loss in a row, up to kKeepLaunches << kLongestKeepShift (each kernel that comes to
// decide() then runs its next kPauseChunk long launches on the fast path). Then a new
// trial. A process that makes few long launches never leaves the warm-up: its launches
// go to the background, as the rules of queue/background.cpp decide.
//
// A kept background is checked too: each kKeepCheck launches, its intervals' mean over
// them against the trial's direct mean, both with each interval up to kPendingLaunches
// times its route's cap (so that a wait for a full ring of pending launches counts, and
// a garbage collection does not); a longer mean is a loss, as a trial's is. Beside a busy
// process the scheduler gives the caller, the background thread and the other process a
// fair share of the two CPUs only over many time slices: in a trial's chunks of a
// millisecond the background thread, which has just slept, and its caller ran first, and
// PyOpenCL's array code measured 15 us a launch in the background against 19 direct,
// while kept it took 23 and filled the ring (0.59-0.71 s a loop against 0.44 direct).
// Only a background kept to its end makes the next loss the shortest again.
//
//   const OverlapTrial::Decision d = processTrial().next(nowNs());  // in decide()
//   if (d.route == OverlapTrial::Route::Background) ...   // to the background
//   else if (d.pause) k.background_pause.store(d.pause);   // direct, on the fast path
#pragma once

#include <atomic>
#include <cstdint>

namespace hk::launch {

class OverlapTrial {
 public:
  static constexpr std::uint32_t kWindow = 64;
  static constexpr std::uint32_t kChunk = 64;
  static constexpr std::uint64_t kTrialNs = 20'000'000;
  static constexpr std::uint32_t kKeepLaunches = 4096;
  static constexpr std::uint64_t kKeepPerTrial = 16;
  static constexpr std::uint32_t kLongestKeepShift = 4;
  static constexpr std::uint32_t kPauseChunk = 64;
  static constexpr std::uint64_t kOutlierFactor = 8;
  // The most launches of one queue pending in the background (queue::kBackgroundDepth).
  static constexpr std::uint64_t kPendingLaunches = 16;
  // A kept background checks its own intervals each kKeepCheck launches.
  static constexpr std::uint32_t kKeepCheck = 1024;

  enum class Route : std::uint8_t { Background, Direct };
  struct Decision {
    Route route;
    // With Route::Direct: how many of the kernel's next long launches run before their
    // calls return without asking again (its background_pause); 0: ask at the next one.
    std::uint32_t pause;
  };

  // The route of the long launch that starts at `now_ns`.
  Decision next(std::uint64_t now_ns);
  // A new trial from the next launch.
  void reset();

 private:
  enum Phase : std::uint32_t { kWarmUp, kTrial, kKept, kLost };
  // Heuristics shared by the launching threads: relaxed atomics.
  template <typename T>
  static T get(const std::atomic<T> &a) { return a.load(std::memory_order_relaxed); }
  template <typename T>
  static void set(std::atomic<T> &a, T v) { a.store(v, std::memory_order_relaxed); }

  void count(std::uint64_t now_ns);
  // Counts a kept background launch's interval, up to kPendingLaunches times the trial's
  // cap for the background.
  void countKept(std::uint64_t now_ns);
  // The background lost: the next launches run direct (kLost).
  Decision lose();
  // Whether the background's mean is no longer than the direct launches'; keeps the
  // latter's wide mean in direct_wide_mean_.
  bool backgroundWins();
  // The median of route r's first kWindow intervals (count_[r] >= 1).
  std::uint64_t median(int r) const;

  std::atomic<std::uint32_t> phase_{kWarmUp};
  std::atomic<std::uint32_t> launches_{0};      // in this phase
  std::atomic<std::uint64_t> phase_start_ns_{0};
  std::atomic<std::uint64_t> keep_ns_{0};       // kKept: its least duration
  std::atomic<std::uint64_t> last_ns_{0};       // the last launch's start, 0: none
  std::atomic<std::uint32_t> last_route_{0};    // its route
  std::atomic<std::uint32_t> last_drains_{0};   // it followed a background chunk
  // Per route, this trial: the first kWindow intervals (ns, at most UINT32_MAX), how many
  // intervals were counted, and the later ones' sum, each up to the route's cap.
  std::atomic<std::uint32_t> intervals_[2][kWindow] = {};
  std::atomic<std::uint32_t> count_[2] = {};
  std::atomic<std::uint64_t> cap_[2] = {};
  std::atomic<std::uint64_t> later_sum_[2] = {};
  // The intervals begun by the first direct launch after a background chunk, each up to
  // kPendingLaunches times the background's cap, and how many: less a direct median
  // each, they count for the background (see above).
  std::atomic<std::uint64_t> drain_sum_{0};
  std::atomic<std::uint32_t> drains_{0};
  // The direct route's later intervals' sum, each up to kPendingLaunches times its cap
  // (as a kept background's intervals count: a wait for a full ring counts in them).
  std::atomic<std::uint64_t> direct_wide_sum_{0};
  // kKept: the trial's direct mean with that cap, and the kept launches' intervals (sum,
  // count), with the same.
  std::atomic<std::uint64_t> direct_wide_mean_{0};
  std::atomic<std::uint64_t> kept_sum_{0};
  std::atomic<std::uint32_t> kept_count_{0};
  std::atomic<std::uint32_t> losses_{0};        // trials the background lost, in a row
  std::atomic<std::uint32_t> lost_left_{0};     // kLost: launches still to run direct
};

// The process's trial.
OverlapTrial &processTrial();

}  // namespace hk::launch
