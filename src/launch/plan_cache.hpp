// A kernel's last plan, shared by every thread that launches the kernel. One writer at a
// time (under the kernel's mutex, on the slow path), readers without a lock: a sequence
// count around word-sized relaxed atomics, so a reader either gets one writer's complete
// request and plan or notices the change and takes the slow path. One kernel object may
// be launched from several threads at once with different geometries (OpenCL allows it):
// each launch must run with its own plan, never another thread's.
//
//   Plan p;
//   if (cache.lookup(dim, offset, global, local, p)) run(p);   // launch path
//   cache.store(request, plan);                                 // slow path, locked
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "launch/geometry.hpp"

namespace hk::launch {

class PlanCache {
 public:
  // True, with `plan` filled, if the cached request is exactly this one.
  [[gnu::always_inline]] bool lookup(std::uint32_t dim, const std::size_t *offset, const std::size_t *global,
              const std::size_t *local, Plan &plan) const {
    const std::uint32_t s1 = seq_.load(std::memory_order_acquire);
    if ((s1 & 1) != 0 || s1 == 0) return false;
    const std::uint64_t head = word(kHead);
    if (head != ((std::uint64_t{dim} << 1) | (local != nullptr))) return false;
    for (std::uint32_t i = 0; i < dim; ++i) {
      if (word(kGlobal + i) != global[i]) return false;
      if (word(kOffset + i) != (offset ? offset[i] : 0)) return false;
      if (local && word(kLocal + i) != local[i]) return false;
    }
    std::uint64_t p[kPlanWords];
    // Unrolled: loops over atomics are not unrolled by the compiler, and this is the
    // launch path (14 loads instead of ~100 instructions of loop).
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((p[I] = word(kPlan + I)), ...);
    }(std::make_index_sequence<kPlanWords>{});
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq_.load(std::memory_order_relaxed) != s1) return false;
    std::memcpy(&plan, p, sizeof plan);
    return true;
  }

  void store(const LaunchRequest &r, const Plan &plan) {
    const std::uint32_t s = seq_.load(std::memory_order_relaxed);
    seq_.store(s + 1, std::memory_order_relaxed);  // odd: being written
    std::atomic_thread_fence(std::memory_order_release);
    put(kHead, (std::uint64_t{r.dim} << 1) | (r.has_local ? 1 : 0));
    for (int i = 0; i < 3; ++i) {
      put(kGlobal + i, r.global[i]);
      put(kOffset + i, r.offset[i]);
      put(kLocal + i, r.local[i]);
    }
    std::uint64_t p[kPlanWords] = {};
    std::memcpy(p, &plan, sizeof plan);
    for (std::size_t i = 0; i < kPlanWords; ++i) put(kPlan + i, p[i]);
    seq_.store(s + 2, std::memory_order_release);
  }

 private:
  static constexpr std::size_t kHead = 0, kGlobal = 1, kOffset = 4, kLocal = 7, kPlan = 10;
  static constexpr std::size_t kPlanWords = (sizeof(Plan) + 7) / 8;
  static_assert(std::is_trivially_copyable_v<Plan>);

  std::uint64_t word(std::size_t i) const { return words_[i].load(std::memory_order_relaxed); }
  void put(std::size_t i, std::uint64_t v) { words_[i].store(v, std::memory_order_relaxed); }

  std::atomic<std::uint32_t> seq_{0};
  std::atomic<std::uint64_t> words_[kPlan + kPlanWords] = {};
};

}  // namespace hk::launch
