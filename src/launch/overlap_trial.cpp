#include "launch/overlap_trial.hpp"

#include <algorithm>
#include <array>
#include <climits>

namespace hk::launch {

namespace {
constinit OverlapTrial g_process_trial;
}  // namespace

OverlapTrial &processTrial() { return g_process_trial; }

OverlapTrial::Decision OverlapTrial::next(std::uint64_t now_ns) {
  const std::uint32_t n = get(launches_) + 1;
  set(launches_, n);
  switch (get(phase_)) {
    case kWarmUp:
      if (n >= kWindow) reset();  // the trial from the next launch
      return {Route::Background, 0};
    case kKept:
      // kKeepLaunches, and kKeepPerTrial times as long as the trial took: a trial's direct
      // chunks cost the overlap they give up, a few percent at most.
      if (n >= kKeepLaunches && now_ns - get(phase_start_ns_) >= get(keep_ns_)) {
        set(losses_, 0u);  // kept to its end: the next loss pauses it for the shortest time
        reset();
        return {Route::Background, 0};
      }
      // The kept background's own intervals, after its first chunk, against the trial's
      // direct launches, each kKeepCheck launches: a background that loses in the long
      // run loses as a trial would.
      if (n > kChunk) countKept(now_ns);
      set(last_ns_, now_ns);
      if (n % kKeepCheck == 0 && get(kept_count_) >= kWindow) {
        const bool lost = get(kept_sum_) / get(kept_count_) > get(direct_wide_mean_);
        set(kept_sum_, std::uint64_t{0});
        set(kept_count_, 0u);
        if (lost) return lose();
      }
      return {Route::Background, 0};
    case kLost: {
      // This launch and the kPauseChunk after it, which the kernel runs on the fast path.
      const std::uint32_t left = get(lost_left_);
      const std::uint32_t taken = 1 + kPauseChunk;
      if (left <= taken) reset();
      else set(lost_left_, left - taken);
      return {Route::Direct, kPauseChunk};
    }
    case kTrial:
      break;
  }
  if (get(phase_start_ns_) == 0) set(phase_start_ns_, now_ns);
  count(now_ns);
  if (get(count_[0]) >= kWindow && get(count_[1]) >= kWindow &&
      now_ns - get(phase_start_ns_) >= kTrialNs) {
    // This launch's interval would be the first one after the trial: none is counted.
    set(last_ns_, std::uint64_t{0});
    set(launches_, 0u);
    if (backgroundWins()) {
      set(keep_ns_, kKeepPerTrial * (now_ns - get(phase_start_ns_)));
      set(phase_start_ns_, now_ns);
      set(kept_sum_, std::uint64_t{0});
      set(kept_count_, 0u);
      set(phase_, std::uint32_t{kKept});
      return {Route::Background, 0};
    }
    return lose();
  }
  const Route route = ((n - 1) / kChunk) % 2 == 0 ? Route::Background : Route::Direct;
  const bool drains = route == Route::Direct && get(last_ns_) != 0 &&
                      get(last_route_) == static_cast<std::uint32_t>(Route::Background);
  set(last_ns_, now_ns);
  set(last_route_, static_cast<std::uint32_t>(route));
  set(last_drains_, std::uint32_t{drains});
  return {route, 0};
}

OverlapTrial::Decision OverlapTrial::lose() {
  const std::uint32_t losses = get(losses_);
  set(losses_, losses + 1);
  set(lost_left_, kKeepLaunches << std::min(losses, kLongestKeepShift));
  set(launches_, 0u);
  set(phase_, std::uint32_t{kLost});
  return {Route::Direct, kPauseChunk};
}

void OverlapTrial::countKept(std::uint64_t now_ns) {
  const std::uint64_t last = get(last_ns_);
  if (!last || now_ns <= last) return;
  const std::uint64_t cap = kPendingLaunches * get(cap_[static_cast<int>(Route::Background)]);
  set(kept_sum_, get(kept_sum_) + std::min(now_ns - last, cap));
  set(kept_count_, get(kept_count_) + 1);
}

void OverlapTrial::count(std::uint64_t now_ns) {
  const std::uint64_t last = get(last_ns_);
  if (!last || now_ns <= last) return;
  const std::uint32_t r = get(last_route_);
  const std::uint32_t interval =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(now_ns - last, UINT32_MAX));
  if (get(last_drains_)) {
    // The wait for the background's pending launches, and one direct launch's interval:
    // backgroundWins() takes the direct route's median off.
    std::uint64_t drain = interval;
    if (const std::uint64_t cap = get(cap_[static_cast<int>(Route::Background)]))
      drain = std::min(drain, kPendingLaunches * cap);
    set(drain_sum_, get(drain_sum_) + drain);
    set(drains_, get(drains_) + 1);
    return;
  }
  const std::uint32_t i = get(count_[r]);
  if (i < kWindow) {
    set(intervals_[r][i], interval);
    set(count_[r], i + 1);
    if (i + 1 == kWindow) set(cap_[r], kOutlierFactor * median(r));
    return;
  }
  set(later_sum_[r], get(later_sum_[r]) + std::min<std::uint64_t>(interval, get(cap_[r])));
  if (r == static_cast<std::uint32_t>(Route::Direct))
    set(direct_wide_sum_,
        get(direct_wide_sum_) + std::min<std::uint64_t>(interval, kPendingLaunches * get(cap_[r])));
  set(count_[r], i + 1);
}

bool OverlapTrial::backgroundWins() {
  std::uint64_t mean[2] = {};
  for (int r = 0; r < 2; ++r) {
    const std::uint32_t n = get(count_[r]);
    const std::uint64_t cap = get(cap_[r]);
    std::uint64_t sum = get(later_sum_[r]);
    for (std::uint32_t i = 0; i < std::min(n, kWindow); ++i)
      sum += std::min<std::uint64_t>(get(intervals_[r][i]), cap);
    if (r == static_cast<int>(Route::Background) && get(drains_)) {
      const std::uint64_t direct =
          get(drains_) * std::uint64_t{median(static_cast<int>(Route::Direct))};
      sum += get(drain_sum_) > direct ? get(drain_sum_) - direct : 0;
    }
    mean[r] = n ? sum / n : 0;
  }
  // The direct mean a kept background is checked against, with its wider cap.
  constexpr int kDirect = static_cast<int>(Route::Direct);
  const std::uint32_t n = get(count_[kDirect]);
  std::uint64_t wide_sum = get(direct_wide_sum_);
  for (std::uint32_t i = 0; i < std::min(n, kWindow); ++i)
    wide_sum += std::min<std::uint64_t>(get(intervals_[kDirect][i]),
                                        kPendingLaunches * get(cap_[kDirect]));
  set(direct_wide_mean_, n ? wide_sum / n : 0);
  return mean[0] <= mean[1];
}

std::uint64_t OverlapTrial::median(int r) const {
  const std::uint32_t n = std::min(get(count_[r]), kWindow);
  std::array<std::uint32_t, kWindow> v;
  for (std::uint32_t i = 0; i < n; ++i) v[i] = get(intervals_[r][i]);
  std::nth_element(v.begin(), v.begin() + n / 2, v.begin() + n);
  return v[n / 2];
}

void OverlapTrial::reset() {
  set(phase_, std::uint32_t{kTrial});
  set(launches_, 0u);
  set(phase_start_ns_, std::uint64_t{0});
  set(last_ns_, std::uint64_t{0});
  set(last_drains_, 0u);
  set(drain_sum_, std::uint64_t{0});
  set(drains_, 0u);
  set(direct_wide_sum_, std::uint64_t{0});
  for (int r = 0; r < 2; ++r) {
    set(count_[r], 0u);
    set(cap_[r], std::uint64_t{0});
    set(later_sum_[r], std::uint64_t{0});
  }
}

}  // namespace hk::launch
