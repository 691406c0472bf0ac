#include "team/cpu_mover.hpp"

#include "base/clock.hpp"

namespace hk::team {

bool CpuMover::moveOff(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  const std::uint64_t now = nowNs();
  if (last_move_ns_ && now - last_move_ns_ < min_interval_ns_) return false;
  last_move_ns_ = now;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  cpu_set_t elsewhere = allowed;
  CPU_CLR(cpu, &elsewhere);
  if (CPU_COUNT(&elsewhere) == 0) return false;
  if (sched_setaffinity(0, sizeof elsewhere, &elsewhere) != 0) return false;
  sched_setaffinity(0, sizeof allowed, &allowed);
  ++moves_;
  return true;
}

}  // namespace hk::team
