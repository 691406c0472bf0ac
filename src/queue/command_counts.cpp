#include "queue/command_counts.hpp"

#include <atomic>
#include <cstdint>

namespace hk::queue {
namespace {

// CL_COMMAND_NDRANGE_KERNEL (0x11F0) to CL_COMMAND_SVM_MIGRATE_MEM (0x120E) and a few
// beyond: every command type of OpenCL 3.0.
constexpr cl_command_type kFirst = CL_COMMAND_NDRANGE_KERNEL;
constexpr unsigned kSlots = 32;

struct Counts {
  std::atomic<std::uint64_t> direct{0};
  std::atomic<std::uint64_t> queue{0};
  std::atomic<std::uint64_t> by_reason[HK_REASON_COUNT] = {};
};
constinit Counts g_counts[kSlots];

Counts *slot(cl_command_type type) {
  return type >= kFirst && type - kFirst < kSlots ? &g_counts[type - kFirst] : nullptr;
}

void bump(std::atomic<std::uint64_t> &c) { c.fetch_add(1, std::memory_order_relaxed); }

}  // namespace

void countDirect(cl_command_type type) {
  if (Counts *c = slot(type)) bump(c->direct);
}

void countQueue(cl_command_type type, hk_reason reason) {
  Counts *c = slot(type);
  if (!c) return;
  bump(c->queue);
  if (reason >= 0 && reason < HK_REASON_COUNT) bump(c->by_reason[reason]);
}

bool commandCounts(cl_command_type type, hk_command_counts *out) {
  const Counts *c = slot(type);
  if (!c) return false;
  out->direct = c->direct.load(std::memory_order_relaxed);
  out->queue = c->queue.load(std::memory_order_relaxed);
  for (int r = 0; r < HK_REASON_COUNT; ++r)
    out->by_reason[r] = c->by_reason[r].load(std::memory_order_relaxed);
  return true;
}

}  // namespace hk::queue
