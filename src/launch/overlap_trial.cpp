#include "launch/overlap_trial.hpp"

#include <algorithm>

namespace hk::launch {

OverlapTrial::Route OverlapTrial::next(std::uint64_t now_ns, std::uint64_t duration_ns) {
  if (get(phase_) == kWarmUp) {
    const std::uint32_t n = get(launches_) + 1;
    set(launches_, n);
    if (n >= kWindow) reset();  // the trial from the next launch
    return Route::Background;
  }
  const std::uint64_t last = get(last_ns_);
  if (last && now_ns > last) {
    const std::uint32_t r = get(last_route_);
    // The duration at most about a second: the sums stay far from overflowing.
    const std::uint64_t duration = std::min(duration_ns, kLongestIntervalNs << 10);
    const std::uint64_t longest = std::max(kLongestIntervalNs, kIntervalsPerLaunch * duration);
    set(sum_ns_[r], get(sum_ns_[r]) + std::min(now_ns - last, longest));
    set(count_[r], get(count_[r]) + 1);
  }
  set(last_ns_, now_ns);
  const std::uint32_t n = get(launches_) + 1;
  set(launches_, n);
  Route route = Route::Background;
  switch (get(phase_)) {
    case kBackground:
      if (n >= kWindow) {
        set(phase_, std::uint32_t{kDirect});
        set(launches_, 0u);
      }
      break;
    case kDirect:
      route = Route::Direct;
      if (n >= kWindow) {
        // This launch's interval would be the first one after the trial: none is counted.
        const std::uint64_t b = get(count_[0]), d = get(count_[1]);
        const bool background_wins =
            !b || !d || get(sum_ns_[0]) * d <= get(sum_ns_[1]) * b;
        reset();
        if (background_wins) {
          set(phase_, std::uint32_t{kKept});
          set(losses_, 0u);
        } else {
          const std::uint32_t losses = get(losses_);
          set(losses_, losses + 1);
          set(pause_, kKeepLaunches << std::min(losses, kLongestKeepShift));
        }
        return route;
      }
      break;
    case kKept:
      if (n >= kKeepLaunches) reset();  // a new trial from the next launch
      return route;
  }
  set(last_route_, static_cast<std::uint32_t>(route));
  return route;
}

std::uint32_t OverlapTrial::takePause() {
  const std::uint32_t p = get(pause_);
  if (p) set(pause_, 0u);
  return p;
}

void OverlapTrial::reset() {
  set(phase_, std::uint32_t{kBackground});
  set(launches_, 0u);
  set(last_ns_, std::uint64_t{0});
  for (int r = 0; r < 2; ++r) {
    set(sum_ns_[r], std::uint64_t{0});
    set(count_[r], 0u);
  }
}

}  // namespace hk::launch
