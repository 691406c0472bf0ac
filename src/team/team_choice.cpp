#include "team/team_choice.hpp"

#include <algorithm>

#include "base/log.hpp"

namespace hk::team {
namespace {

using Pick = TeamChoice::Pick;

Pick other(Pick p) { return p == Pick::OpenMP ? Pick::Own : Pick::OpenMP; }
unsigned index(Pick p) { return p == Pick::Own ? 1 : 0; }

// A trial wins when its median cycle is below 7/8 of the settled team's: a smaller gain
// is within what two windows of the same team differ by, and the settled team keeps the
// threads it has warm.
std::uint64_t winBelow(std::uint64_t baseline_ns) { return baseline_ns - baseline_ns / 8; }

}  // namespace

// The lower median: a trial wins exactly when more than half its cycles are below the
// threshold, so it can be given up as soon as half of them are not.
std::uint64_t TeamChoice::median() {
  std::nth_element(cycles_.begin(), cycles_.begin() + (kWindow - 1) / 2, cycles_.end());
  count_ = 0;
  return cycles_[(kWindow - 1) / 2];
}

// The two mistakes cost differently, and the rule is lopsided to match. The own workers
// between the application's OpenMP loops cost a step tens of times its length, so a few
// such cycles in a row end their time at once (a trial of them is lost, a settled time
// of them gets a trial of OpenMP's threads). OpenMP's threads where the own workers
// would do cost a fraction of a launch, so a trial of the own workers waits for its
// interval and is judged on a whole window.
TeamChoice::Picked TeamChoice::pick(std::uint64_t now_ns) {
  if (measuring_.load(std::memory_order_relaxed) ||
      measuring_.exchange(true, std::memory_order_acquire))
    return {pick_.load(std::memory_order_relaxed), false, false};
  // The cycle that ends now belongs to the team the last launch used. Another thread's
  // later clock reading may have come first: that one is not a cycle.
  const std::uint64_t cycle = last_ns_ && now_ns > last_ns_ ? now_ns - last_ns_ : 0;
  last_ns_ = std::max(last_ns_, now_ns);
  const Pick current = pick_.load(std::memory_order_relaxed);
  if (cycle && skip_ > 0) {
    --skip_;
  } else if (cycle) {
    // kHurtsInRow such cycles in a row: fewer are as likely a time slice lost to another
    // process, or the application pausing and the workers parking meanwhile.
    const bool hurts = current == Pick::Own && baseline_ns_ && cycle > kOwnHurts * baseline_ns_;
    own_slow_cycles_ = hurts ? own_slow_cycles_ + 1 : 0;
    // The shortest of the row.
    own_slow_shortest_ns_ = hurts ? std::min(own_slow_shortest_ns_, cycle) : UINT64_MAX;
    const bool own_hurts = own_slow_cycles_ >= kHurtsInRow;
    const std::uint64_t hurt_ns = own_slow_shortest_ns_;
    cycles_[count_++] = cycle;
    if (trial_) {
      losses_ += cycle >= winBelow(baseline_ns_);
      if (own_hurts || losses_ > kWindow / 2) endTrial(now_ns, false, 0);
      else if (count_ == kWindow) endTrial(now_ns, true, median());
    } else if (own_hurts) {
      startTrial(hurt_ns);
    } else if (count_ == kWindow) {
      const std::uint64_t m = median();
      // Twice as slow as the last window: what the application does between launches
      // changed, so the other team gets a trial now. The own workers only where their
      // cheaper dispatch can matter: in a longer cycle it is less than the eighth a trial
      // must win by, and a trial could only lose.
      const bool due = now_ns >= probe_at_ns_ || (baseline_ns_ && m > 2 * baseline_ns_);
      if (due && (current == Pick::Own || m <= kOwnWorthNs)) startTrial(m);
      else baseline_ns_ = m;
    }
  }
  const Pick p = pick_.load(std::memory_order_relaxed);
  const Picked picked{p, current == Pick::Own && p == Pick::OpenMP, skip_ > 0};
  measuring_.store(false, std::memory_order_release);
  return picked;
}

void TeamChoice::startTrial(std::uint64_t baseline_ns) {
  baseline_ns_ = baseline_ns;
  trial_ = true;
  losses_ = 0;
  own_slow_shortest_ns_ = UINT64_MAX;
  own_slow_cycles_ = 0;
  count_ = 0;
  skip_ = kSkip;
  trials_.fetch_add(1, std::memory_order_relaxed);
  pick_.store(other(settled_.load(std::memory_order_relaxed)), std::memory_order_relaxed);
}

void TeamChoice::endTrial(std::uint64_t now_ns, bool won, std::uint64_t median_ns) {
  const Pick tried = pick_.load(std::memory_order_relaxed);
  const std::uint64_t last_cycle = count_ ? cycles_[count_ - 1] : 0;  // when ended early
  trial_ = false;
  count_ = 0;
  skip_ = kSkip;
  own_slow_shortest_ns_ = UINT64_MAX;
  own_slow_cycles_ = 0;
  won = won && median_ns < winBelow(baseline_ns_);
  logf(LogLevel::Debug, "team: trial of %s %s (%s %llu ns against %llu ns)",
       tried == Pick::Own ? "the own workers" : "OpenMP's threads", won ? "won" : "lost",
       median_ns ? "median cycle" : "ended early, last cycle",
       (unsigned long long)(median_ns ? median_ns : last_cycle),
       (unsigned long long)baseline_ns_);
  std::uint64_t &interval = interval_ns_[index(tried)];
  if (won) {
    settled_.store(tried, std::memory_order_relaxed);
    switches_.fetch_add(1, std::memory_order_relaxed);
    baseline_ns_ = median_ns;
    interval = std::max(interval / 2, kFirstProbeNs);
  } else {
    pick_.store(settled_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    interval = std::min(interval * 2, kLongestProbeNs);
  }
  // The next trial is of the team not in force now.
  probe_at_ns_ = now_ns + interval_ns_[index(other(settled_.load(std::memory_order_relaxed)))];
}

}  // namespace hk::team
