// A kernel's last plan, shared by every thread that launches the kernel. One writer at a
// time (under the kernel's mutex, on the slow path), readers without a lock: a sequence
// count around word-sized relaxed atomics, so a reader either gets one writer's complete
// request and plan or notices the change and takes the slow path. One kernel object may
// be launched from several threads at once with different geometries (OpenCL allows it):
// each launch must run with its own plan, never another thread's.
//
// The launch path copies the plan once, straight into the launch's own Plan (whose
// pocl_context is the one the work-group function is given), and compares the request's
// offset and local size against the words it has just copied: only the global size is kept
// as a separate key. The copy is what makes a concurrent re-plan harmless: the cache's
// words may be overwritten the moment the sequence check passes, the launch's copy may not.
//
//   Plan p;
//   if (cache.lookup(dim, offset, global, local, p)) run(p);   // launch path
//   cache.store(request, plan);                                 // slow path, locked
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "launch/geometry.hpp"

namespace hk::launch {

class PlanCache {
 public:
  // True, with `plan` filled (printf fields left alone), if the cached request is exactly
  // this one. `dim` must be 1..3 and `global` non-null (the caller checks).
  [[gnu::always_inline]] bool lookup(std::uint32_t dim, const std::size_t *offset,
                                     const std::size_t *global, const std::size_t *local,
                                     Plan &plan) const {
    const std::uint32_t s1 = seq_.load(std::memory_order_acquire);
    if ((s1 & 1) != 0) return false;
    // An empty cache has head 0, which no request (dim >= 1) matches.
    const std::uint64_t head = word(kHead);
    // Bits 1-3 of the head compared in place: no shift on the launch path.
    if ((head & 0xE) != head_of(dim, local != nullptr) << 1) return false;
    pocl::PoclContext &pc = plan.pc;
    // Unrolled: loops over atomics are not unrolled by the compiler, and this is the
    // launch path.
    pc.num_groups[0] = word(kGroups + 0);
    pc.num_groups[1] = word(kGroups + 1);
    pc.num_groups[2] = word(kGroups + 2);
    pc.global_offset[0] = word(kOffset + 0);
    pc.global_offset[1] = word(kOffset + 1);
    pc.global_offset[2] = word(kOffset + 2);
    pc.local_size[0] = word(kLocal + 0);
    pc.local_size[1] = word(kLocal + 1);
    pc.local_size[2] = word(kLocal + 2);
    pocl::setWorkDim(pc, dim);
    plan.total_groups = word(kTotalGroups);
    plan.total_items = word(kTotalItems);
    plan.team_sized = (head & 1) != 0;
    plan.pad[0] = static_cast<std::uint16_t>(head >> 16);
    plan.pad[1] = static_cast<std::uint16_t>(head >> 32);
    plan.pad[2] = static_cast<std::uint16_t>(head >> 48);
    plan.stack_kib = static_cast<std::uint32_t>(word(kStackKib));
    if (!matches(0, offset, global, local, pc)) return false;
    if (dim >= 2 && !matches(1, offset, global, local, pc)) return false;
    if (dim == 3 && !matches(2, offset, global, local, pc)) return false;
    std::atomic_thread_fence(std::memory_order_acquire);
    return seq_.load(std::memory_order_relaxed) == s1;
  }

  void store(const LaunchRequest &r, const Plan &plan) {
    const std::uint32_t s = seq_.load(std::memory_order_relaxed);
    seq_.store(s + 1, std::memory_order_relaxed);  // odd: being written
    std::atomic_thread_fence(std::memory_order_release);
    // Head word: bit 0 team_sized, bits 1-3 dim and has_local, bits 16-63 Plan::pad.
    put(kHead, (head_of(r.dim, r.has_local) << 1) | (plan.team_sized ? 1 : 0) |
                   (std::uint64_t{plan.pad[0]} << 16) | (std::uint64_t{plan.pad[1]} << 32) |
                   (std::uint64_t{plan.pad[2]} << 48));
    for (int i = 0; i < 3; ++i) {
      put(kGlobal + i, r.global[i]);
      put(kGroups + i, plan.pc.num_groups[i]);
      put(kOffset + i, plan.pc.global_offset[i]);
      put(kLocal + i, plan.pc.local_size[i]);
    }
    put(kTotalGroups, plan.total_groups);
    put(kTotalItems, plan.total_items);
    put(kStackKib, plan.stack_kib);
    put(kRequestedLocalX, r.has_local ? r.local[0] : 0);
    seq_.store(s + 2, std::memory_order_release);
  }

 private:
  // kRequestedLocalX: the request's first local size, which merged work-groups
  // (docs/launch.md) make differ from the planned one; the others are planned as asked.
  static constexpr std::size_t kHead = 0, kGlobal = 1, kGroups = 4, kOffset = 7, kLocal = 10,
                               kTotalGroups = 13, kTotalItems = 14, kStackKib = 15,
                               kRequestedLocalX = 16, kWords = 17;
  static_assert(std::is_trivially_copyable_v<Plan>);

  static std::uint64_t head_of(std::uint32_t dim, bool has_local) {
    return (std::uint64_t{dim} << 1) | (has_local ? 1 : 0);
  }
  // Dimension i of the request against the cache: the planned offset is the requested one,
  // and so is the planned local size when the request gives one (without one, the local
  // size follows from the global size), except in the first dimension, where merged
  // work-groups plan a larger one: that dimension compares the requested size.
  [[gnu::always_inline]] bool matches(int i, const std::size_t *offset,
                                      const std::size_t *global, const std::size_t *local,
                                      const pocl::PoclContext &pc) const {
    return word(kGlobal + i) == global[i] && pc.global_offset[i] == (offset ? offset[i] : 0) &&
           (!local || (i == 0 ? word(kRequestedLocalX) : pc.local_size[i]) == local[i]);
  }
  std::uint64_t word(std::size_t i) const { return words_[i].load(std::memory_order_relaxed); }
  void put(std::size_t i, std::uint64_t v) { words_[i].store(v, std::memory_order_relaxed); }

  std::atomic<std::uint32_t> seq_{0};
  std::atomic<std::uint64_t> words_[kWords] = {};
};

}  // namespace hk::launch
