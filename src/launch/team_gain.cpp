#include "launch/team_gain.hpp"

#include <algorithm>

#include "base/config.hpp"

namespace hk::launch {
namespace {

constexpr unsigned kShift = 8;  // per-group costs in 1/256 ns: short groups keep their digits

std::uint64_t perGroup(std::uint64_t ns, std::uint64_t groups) {
  return groups ? (std::min<std::uint64_t>(ns, UINT64_MAX >> kShift) << kShift) / groups : 0;
}

}  // namespace

void TeamGain::note(bool on_team, std::uint64_t wall_ns, std::uint64_t serial_ns,
                    std::uint64_t groups) {
  if (groups == 0 || config().always_team) return;
  const std::uint8_t f = flags_.load(std::memory_order_relaxed);
  const bool prefer_inline = (f & kPreferInline) != 0;
  const std::uint64_t cost = perGroup(wall_ns, groups);
  (on_team ? team_per_group_ : inline_per_group_).store(cost, std::memory_order_relaxed);
  const std::uint32_t budget = budget_.load(std::memory_order_relaxed);
  if (on_team == prefer_inline) {
    // The other way ran: a probe, or a team that refused (another thread had it). It
    // wins by more than an eighth of the preferred way's best cost per group since the
    // last probe, or the preferred way stays and waits longer for its next probe. The
    // best, not the last: beside a busy process one launch in a few waits for a worker
    // that lost its CPU, and a probe must not win by comparing with that one.
    if (!(f & kProbeDue)) return;
    const std::uint64_t preferred = best_since_probe_.load(std::memory_order_relaxed);
    const bool won = preferred != UINT64_MAX && cost < preferred - preferred / 8;
    flags_.store(won ? (on_team ? 0 : kPreferInline) : (f & kPreferInline),
                 std::memory_order_relaxed);
    budget_.store(won ? kBudget : std::min(budget * 2, kLongestBudget),
                  std::memory_order_relaxed);
    if (won) switches_.store(switches_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    since_probe_.store(0, std::memory_order_relaxed);
    spent_ns_.store(0, std::memory_order_relaxed);
    best_since_probe_.store(UINT64_MAX, std::memory_order_relaxed);
    return;
  }
  if (cost < best_since_probe_.load(std::memory_order_relaxed))
    best_since_probe_.store(cost, std::memory_order_relaxed);
  // The preferred way ran. What a probe would cost over it: the other way's last cost,
  // or before any, the team's thread time (a group never takes longer on one thread).
  std::uint64_t other =
      (prefer_inline ? team_per_group_ : inline_per_group_).load(std::memory_order_relaxed);
  if (other == 0) other = perGroup(serial_ns, groups);
  const std::uint64_t extra = other > cost ? ((other - cost) >> kShift) * groups : 0;
  const std::uint32_t since = since_probe_.load(std::memory_order_relaxed) + 1;
  const std::uint64_t spent = spent_ns_.load(std::memory_order_relaxed) + wall_ns;
  since_probe_.store(since, std::memory_order_relaxed);
  spent_ns_.store(spent, std::memory_order_relaxed);
  // A probe of the calling thread on a launch too small to split runs it whole: it waits
  // kWholeProbeWait times as long, so that it costs no larger a share of the kernel's time
  // than a split one.
  const std::uint64_t wait =
      !prefer_inline && groups < kSplitMinGroups ? std::uint64_t{budget} * kWholeProbeWait : budget;
  if (since >= wait && spent / wait >= extra && !(f & kProbeDue))
    flags_.store(f | kProbeDue, std::memory_order_relaxed);
}

}  // namespace hk::launch
