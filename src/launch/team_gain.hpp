// Whether a kernel's launches that are large enough for the team run faster on it than on
// the calling thread alone, by measurement. Not every kernel gains from more threads:
// one whose work-items update the same few words with atomics (a histogram) runs several
// times slower on two threads than on one, as the words' cache lines move between CPUs
// on every update; and beside a busy process a short launch can lose more to a worker's
// late start than the worker saves.
//
// The preferred way (the team, at first) runs the kernel's launches; now and then one
// launch runs the other way as a probe, and it becomes the preferred way when its cost
// per work-group is lower by more than an eighth than the preferred way's lowest since
// the last probe. A probe is due once the preferred
// way has run kBudget times as long as the probe is expected to cost over it (the team's
// thread time stands for the first inline probe: its groups never take longer on one
// thread), and at least kBudget launches; the budget doubles with each probe that loses, up
// to kLongestBudget. A kernel whose team pays thus spends at most 1/kBudget of its time
// on its first probe, and less and less after. A probe of the calling thread on a launch
// of at least kSplitMinGroups groups runs only every kSplitShare-th group there, the
// others on the team (splitProbeDue): their cost per group is the probe's; a smaller
// launch's probe runs whole, and waits kWholeProbeWait times as long.
// HOSTKERNEL_ALWAYS_TEAM=1: no probes, the team always.
//
//   bool eligible = teamSized(plan, sampler);   // launch/launcher.hpp
//   bool on_team = eligible && k.team_gain.team();
//   ... run ...
//   if (timed && eligible) k.team_gain.note(ran_on_team, wall_ns, serial_ns, groups);
//   // a split probe: note(false, sampled_ns, sampled_ns, sampled) for its sampled groups
#pragma once

#include <atomic>
#include <cstdint>

namespace hk::launch {

class TeamGain {
 public:
  static constexpr std::uint32_t kBudget = 8;
  static constexpr std::uint32_t kLongestBudget = 1024;
  static constexpr std::uint64_t kSplitShare = 8, kSplitMinGroups = 2 * kSplitShare;
  // A probe of the calling thread on fewer than kSplitMinGroups groups runs the whole
  // launch there: it is due after kWholeProbeWait times the budget. sasmodels' cylinder
  // model (two work-groups of 17 ms) spent 6% of 31 launches on two whole probes.
  static constexpr std::uint32_t kWholeProbeWait = kSplitShare;

  // True: this launch runs on the team (the team is preferred and no probe is due, or
  // the calling thread is preferred and a probe of the team is due).
  bool team() const {
    const std::uint8_t f = flags_.load(std::memory_order_relaxed);
    return ((f & kPreferInline) != 0) == ((f & kProbeDue) != 0);
  }
  // True: a probe of the calling thread is due and the launch is large enough to split it
  // (launch::runSplit: every kSplitShare-th group on the calling thread, the others on the
  // team). A split probe costs a launch an eighth of what a whole one does, which matters
  // for long launches: a whole probe of a 58 ms kernel took 110 ms on one of two threads.
  bool splitProbeDue(std::uint64_t groups) const {
    return flags_.load(std::memory_order_relaxed) == kProbeDue && groups >= kSplitMinGroups;
  }
  bool prefersInline() const {
    return (flags_.load(std::memory_order_relaxed) & kPreferInline) != 0;
  }
  // Probes that changed the preferred way, since the kernel was made.
  std::uint64_t switches() const { return switches_.load(std::memory_order_relaxed); }

  // A timed launch that could have run on the team ran on it (`on_team`) or on the
  // calling thread: `wall_ns` from start to end, `serial_ns` its groups' thread time.
  void note(bool on_team, std::uint64_t wall_ns, std::uint64_t serial_ns, std::uint64_t groups);

  // Back to a new kernel's state: the team preferred, nothing measured. A kernel object
  // that takes over a released one's entry (queue::KernelEntry::startOver) learns it
  // again, as a new object did before entries were kept: a verdict of "the calling thread
  // is as fast" would otherwise keep its launches on the generic function, off the team
  // that runs the specialized one.
  void reset() {
    flags_.store(0, std::memory_order_relaxed);
    budget_.store(kBudget, std::memory_order_relaxed);
    since_probe_.store(0, std::memory_order_relaxed);
    spent_ns_.store(0, std::memory_order_relaxed);
    team_per_group_.store(0, std::memory_order_relaxed);
    inline_per_group_.store(0, std::memory_order_relaxed);
    best_since_probe_.store(UINT64_MAX, std::memory_order_relaxed);
    switches_.store(0, std::memory_order_relaxed);
  }

 private:
  static constexpr std::uint8_t kPreferInline = 1, kProbeDue = 2;
  // Shared by threads launching the same kernel: relaxed atomics, as the Sampler's; a
  // lost update only shifts a sample.
  std::atomic<std::uint8_t> flags_{0};
  std::atomic<std::uint32_t> budget_{kBudget};
  std::atomic<std::uint32_t> since_probe_{0};      // preferred launches since the last probe
  std::atomic<std::uint64_t> spent_ns_{0};         // their wall time
  std::atomic<std::uint64_t> team_per_group_{0};   // ns per group << kShift, last on the team
  std::atomic<std::uint64_t> inline_per_group_{0}; // the same, last on the calling thread
  std::atomic<std::uint64_t> best_since_probe_{UINT64_MAX};  // the preferred way's lowest
  std::atomic<std::uint64_t> switches_{0};
};

}  // namespace hk::launch
