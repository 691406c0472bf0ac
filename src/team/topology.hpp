// Where the team's threads run: the CPUs the process may use (affinity mask, which a
// cpuset cgroup narrows) and, from hwloc, which of them share a core, a cache or a NUMA
// node. The team reads this once, when its threads start.
//
//   std::vector<int> cpus = allowedCpus();                    // sched_getaffinity
//   std::vector<CpuPlace> places = discoverPlaces(cpus, n, sched_getcpu());
//   std::vector<unsigned> order = stealOrder(places);        // row t: thread t's victims
#pragma once

#include <cstdint>
#include <vector>

namespace hk::team {

// One team thread's CPU and what it shares with others. Ids are hwloc's (gp_index),
// kNone where hwloc knows no such object (or hwloc failed): kNone never matches.
struct CpuPlace {
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  int cpu = -1;                   // OS index of the PU (as in sched_setaffinity)
  std::uint64_t core = kNone;
  std::uint64_t l2 = kNone;
  std::uint64_t l3 = kNone;
  std::uint64_t numa = kNone;
  std::uint64_t package = kNone;
  std::vector<int> core_cpus;     // allowed PUs of the same core (HOSTKERNEL_PIN=cores)
};

// OS indices of the CPUs in the calling thread's affinity mask, ascending. Never empty.
std::vector<int> allowedCpus();

// Places for `count` threads (count <= cpus.size()), thread 0 first. Thread 0 (the caller)
// gets `caller_cpu` if it is allowed; the others take the remaining CPUs spreading over
// cores first: one PU per core, then the second PUs of cores (SMT siblings).
std::vector<CpuPlace> discoverPlaces(const std::vector<int> &cpus, unsigned count,
                                     int caller_cpu);

// How near two places are: 0 same core, 1 same L2, 2 same L3, 3 same NUMA node,
// 4 same package, 5 nothing shared (or unknown).
unsigned distance(const CpuPlace &a, const CpuPlace &b);

// For each thread t, the other threads in the order a thief on t tries them: nearest
// first (distance()), equal distances in ring order t+1, t+2, ... so that thieves spread.
// Flattened: row t is [t*(n-1), (t+1)*(n-1)).
std::vector<unsigned> stealOrder(const std::vector<CpuPlace> &places);

}  // namespace hk::team
