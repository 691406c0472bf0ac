// Whether a kernel's long launches gain from running in the background, by measurement
// of what the application sees: the time from one launch of the kernel to its next, on
// the calling thread. A launch in the background returns at once and the caller's own
// work overlaps it, but the background thread needs a CPU of its own for that: beside a
// busy process (or on a host that runs other virtual machines' CPUs) it shares one with
// the caller or the other process, and a launch it runs costs the caller time slices.
// Beside a busy shell loop PyOpenCL's array code ran its loop 1.7 times slower with its
// launches in the background than with them run before their calls returned, though no
// launch was late by the rules of queue/background.cpp.
//
// So a trial: after a warm-up of kWindow launches in the background, uncounted (a
// kernel's first launches there pay for what the background thread touches first: its
// stack, the kernel's code and data in its CPU's caches; they made the background lose
// the first trial of PyOpenCL's array loop), kWindow launches in the background, then
// kWindow run before their calls return, each interval counted for the route of the
// launch that began it. The background wins unless the direct launches' mean interval is
// shorter, each interval counted up to kOutlierFactor times the lesser of the two
// routes' medians: a few long intervals (a garbage collection, a file read, a
// benchmark's other path between two batches) say nothing about the route and, counted
// in full, outweighed its difference in a window of 64; the mean, not the median,
// because a kernel launched several times in a loop has intervals of several lengths,
// and beside a busy process the background's cost is in the body of its distribution
// (its slower tenth), which a median misses. A win keeps the next
// kKeepLaunches long launches in the background; else the kernel's next kKeepLaunches
// long launches run before their calls return (decide() makes it the kernel's background
// pause), twice as many after each further trial the background loses, up to
// kKeepLaunches << kLongestKeepShift. Then a new trial. A kernel launched a few times
// only never leaves its warm-up and first window: its launches go to the background, as
// before the trial existed.
//
//   switch (k.overlap_trial.next(nowNs())) {  // in decide()
//     case OverlapTrial::Route::Background: ...     // to the background
//     case OverlapTrial::Route::Direct: ...         // before the call returns
//   }
//   if (std::uint32_t n = k.overlap_trial.takePause()) k.background_pause.store(n);
#pragma once

#include <atomic>
#include <cstdint>

namespace hk::launch {

class OverlapTrial {
 public:
  static constexpr std::uint32_t kWindow = 64;
  static constexpr std::uint32_t kKeepLaunches = 4096;
  static constexpr std::uint32_t kLongestKeepShift = 4;
  static constexpr std::uint64_t kOutlierFactor = 8;

  enum class Route : std::uint8_t { Background, Direct };

  // The route of the kernel's long launch that starts at `now_ns`.
  Route next(std::uint64_t now_ns);
  // The launches to run before their calls return that the last trial's verdict asks
  // for (0: none, or already taken): decide() sets them as the kernel's pause.
  std::uint32_t takePause();
  // A new trial from the next launch.
  void reset();

 private:
  enum Phase : std::uint32_t { kWarmUp, kBackground, kDirect, kKept };
  // Heuristics shared by threads launching the same kernel: relaxed atomics.
  template <typename T>
  static T get(const std::atomic<T> &a) { return a.load(std::memory_order_relaxed); }
  template <typename T>
  static void set(std::atomic<T> &a, T v) { a.store(v, std::memory_order_relaxed); }

  std::atomic<std::uint32_t> phase_{kWarmUp};
  std::atomic<std::uint32_t> launches_{0};      // in this phase
  std::atomic<std::uint64_t> last_ns_{0};       // the last launch's start, 0: none
  std::atomic<std::uint32_t> last_route_{0};    // its route
  // The median of the intervals counted for `route`, and their mean with each one counted
  // up to `cap` (count_[route] > 0).
  std::uint64_t median(int route) const;
  std::uint64_t cappedMean(int route, std::uint64_t cap) const;

  // Intervals by route, this trial (ns, at most UINT32_MAX).
  std::atomic<std::uint32_t> intervals_[2][kWindow] = {};
  std::atomic<std::uint32_t> count_[2] = {};
  std::atomic<std::uint32_t> losses_{0};        // trials the background lost, in a row
  std::atomic<std::uint32_t> pause_{0};         // for takePause()
};

}  // namespace hk::launch
