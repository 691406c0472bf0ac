#include "launch/overlap_trial.hpp"

#include <algorithm>
#include <array>
#include <climits>

namespace hk::launch {

OverlapTrial::Route OverlapTrial::next(std::uint64_t now_ns) {
  if (get(phase_) == kWarmUp) {
    const std::uint32_t n = get(launches_) + 1;
    set(launches_, n);
    if (n >= kWindow) reset();  // the trial from the next launch
    return Route::Background;
  }
  const std::uint64_t last = get(last_ns_);
  if (last && now_ns > last) {
    const std::uint32_t r = get(last_route_);
    const std::uint32_t i = get(count_[r]);
    if (i < kWindow) {
      set(intervals_[r][i], static_cast<std::uint32_t>(std::min<std::uint64_t>(
                                now_ns - last, UINT32_MAX)));
      set(count_[r], i + 1);
    }
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
        bool background_wins = true;
        if (get(count_[0]) && get(count_[1])) {
          const std::uint64_t cap = kOutlierFactor * std::min(median(0), median(1));
          background_wins = cappedMean(0, cap) <= cappedMean(1, cap);
        }
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

std::uint64_t OverlapTrial::median(int route) const {
  const std::uint32_t n = std::min(get(count_[route]), kWindow);
  std::array<std::uint32_t, kWindow> v;
  for (std::uint32_t i = 0; i < n; ++i) v[i] = get(intervals_[route][i]);
  std::nth_element(v.begin(), v.begin() + n / 2, v.begin() + n);
  return v[n / 2];
}

std::uint64_t OverlapTrial::cappedMean(int route, std::uint64_t cap) const {
  const std::uint32_t n = std::min(get(count_[route]), kWindow);
  std::uint64_t sum = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    sum += std::min<std::uint64_t>(get(intervals_[route][i]), cap);
  return sum / n;
}

void OverlapTrial::reset() {
  set(phase_, std::uint32_t{kBackground});
  set(launches_, 0u);
  set(last_ns_, std::uint64_t{0});
  for (int r = 0; r < 2; ++r) set(count_[r], 0u);
}

}  // namespace hk::launch
