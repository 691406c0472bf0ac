#include "team/topology.hpp"

#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <tuple>

#include "base/log.hpp"

namespace hk::team {

std::vector<int> allowedCpus() {
  std::vector<int> cpus;
  // The mask may be larger than cpu_set_t (more than 1024 CPUs): grow until it fits.
  for (int ncpu = 1024; ncpu <= (1 << 20); ncpu *= 2) {
    cpu_set_t *set = CPU_ALLOC(ncpu);
    if (!set) break;
    std::size_t bytes = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(0, bytes, set) == 0) {
      for (int c = 0; c < ncpu; ++c)
        if (CPU_ISSET_S(c, bytes, set)) cpus.push_back(c);
      CPU_FREE(set);
      break;
    }
    CPU_FREE(set);
    if (errno != EINVAL) break;
  }
  if (cpus.empty()) cpus.push_back(0);  // cannot tell: behave as a single CPU
  return cpus;
}

unsigned distance(const CpuPlace &a, const CpuPlace &b) {
  auto same = [](std::uint64_t x, std::uint64_t y) { return x != CpuPlace::kNone && x == y; };
  if (same(a.core, b.core)) return 0;
  if (same(a.l2, b.l2)) return 1;
  if (same(a.l3, b.l3)) return 2;
  if (same(a.numa, b.numa)) return 3;
  if (same(a.package, b.package)) return 4;
  return 5;
}

std::vector<unsigned> stealOrder(const std::vector<CpuPlace> &places) {
  const unsigned n = static_cast<unsigned>(places.size());
  std::vector<unsigned> order;
  if (n < 2) return order;
  order.reserve(std::size_t{n} * (n - 1));
  std::vector<unsigned> row;
  for (unsigned t = 0; t < n; ++t) {
    row.clear();
    for (unsigned step = 1; step < n; ++step) row.push_back((t + step) % n);
    // Stable: equal distances keep ring order.
    std::stable_sort(row.begin(), row.end(), [&](unsigned x, unsigned y) {
      return distance(places[t], places[x]) < distance(places[t], places[y]);
    });
    order.insert(order.end(), row.begin(), row.end());
  }
  return order;
}

namespace {

std::uint64_t idOf(hwloc_obj_t o) { return o ? o->gp_index : CpuPlace::kNone; }

// Places without topology: the CPUs in mask order, caller's first.
std::vector<CpuPlace> plainPlaces(const std::vector<int> &cpus, unsigned count,
                                  int caller_cpu) {
  std::vector<int> order;
  if (std::find(cpus.begin(), cpus.end(), caller_cpu) != cpus.end()) order.push_back(caller_cpu);
  for (int c : cpus)
    if (c != caller_cpu) order.push_back(c);
  std::vector<CpuPlace> places(count);
  for (unsigned i = 0; i < count && i < order.size(); ++i) {
    places[i].cpu = order[i];
    places[i].core_cpus = {order[i]};
  }
  return places;
}

}  // namespace

std::vector<CpuPlace> discoverPlaces(const std::vector<int> &cpus, unsigned count,
                                     int caller_cpu) {
  if (count > cpus.size()) count = static_cast<unsigned>(cpus.size());
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return plainPlaces(cpus, count, caller_cpu);
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    logf(LogLevel::Info, "team: hwloc could not read the topology; stealing in ring order");
    return plainPlaces(cpus, count, caller_cpu);
  }

  struct Candidate {
    CpuPlace place;
    unsigned smt_rank;     // position of the PU within its core
    unsigned logical;      // hwloc's logical PU index: topology order
  };
  std::vector<Candidate> all;
  for (int c : cpus) {
    Candidate cand;
    cand.place.cpu = c;
    cand.smt_rank = 0;
    cand.logical = static_cast<unsigned>(c);
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, static_cast<unsigned>(c));
    if (pu) {
      hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
      cand.logical = pu->logical_index;
      cand.place.core = idOf(core);
      cand.place.l2 = idOf(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_L2CACHE, pu));
      cand.place.l3 = idOf(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_L3CACHE, pu));
      cand.place.package = idOf(hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu));
      // NUMA nodes hang off the tree as memory children: find the one covering the PU.
      hwloc_obj_t node = nullptr;
      while ((node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, node)))
        if (node->cpuset && hwloc_bitmap_isset(node->cpuset, static_cast<unsigned>(c))) {
          cand.place.numa = node->gp_index;
          break;
        }
      if (core && core->cpuset) {
        unsigned rank = 0;
        int id;
        hwloc_bitmap_foreach_begin(id, core->cpuset) {
          if (id == c) cand.smt_rank = rank;
          if (std::find(cpus.begin(), cpus.end(), id) != cpus.end()) {
            cand.place.core_cpus.push_back(id);
            ++rank;
          }
        }
        hwloc_bitmap_foreach_end();
      }
    }
    if (cand.place.core_cpus.empty()) cand.place.core_cpus = {c};
    all.push_back(std::move(cand));
  }
  hwloc_topology_destroy(topo);

  // Spread: first PU of every core in topology order, then the second ones, ...
  std::stable_sort(all.begin(), all.end(), [](const Candidate &a, const Candidate &b) {
    return std::tie(a.smt_rank, a.logical) < std::tie(b.smt_rank, b.logical);
  });
  auto caller = std::find_if(all.begin(), all.end(),
                             [&](const Candidate &x) { return x.place.cpu == caller_cpu; });
  if (caller != all.end()) std::rotate(all.begin(), caller, caller + 1);

  std::vector<CpuPlace> places;
  for (unsigned i = 0; i < count; ++i) places.push_back(std::move(all[i].place));
  return places;
}

}  // namespace hk::team
