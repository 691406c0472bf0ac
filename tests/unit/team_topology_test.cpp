// Team topology: how many threads the team gets, where they are placed, and the order in
// which a thief tries the other threads (nearest first: same core, same L2, same L3, same
// NUMA node, same package; ties in ring order).

#include "team/topology.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <set>
#include <vector>

#include "base/config.hpp"
#include "team/team.hpp"

namespace {

using hk::team::CpuPlace;
using hk::team::stealOrder;

CpuPlace place(int cpu, std::uint64_t core, std::uint64_t l2, std::uint64_t l3,
               std::uint64_t numa, std::uint64_t package = 0) {
  CpuPlace p;
  p.cpu = cpu;
  p.core = core;
  p.l2 = l2;
  p.l3 = l3;
  p.numa = numa;
  p.package = package;
  p.core_cpus = {cpu};
  return p;
}

std::vector<unsigned> row(const std::vector<unsigned> &order, unsigned n, unsigned t) {
  return std::vector<unsigned>(order.begin() + t * (n - 1), order.begin() + (t + 1) * (n - 1));
}

TEST(TeamTopology, ThiefTriesTheSameCoreFirst) {
  // Two cores with two SMT threads each, sharing the L3.
  std::vector<CpuPlace> p = {place(0, 10, 20, 30, 40), place(1, 11, 21, 30, 40),
                             place(2, 10, 20, 30, 40), place(3, 11, 21, 30, 40)};
  auto order = stealOrder(p);
  ASSERT_EQ(order.size(), 12u);
  EXPECT_EQ(row(order, 4, 0), (std::vector<unsigned>{2, 1, 3}));
  EXPECT_EQ(row(order, 4, 1), (std::vector<unsigned>{3, 2, 0}));
  EXPECT_EQ(row(order, 4, 3), (std::vector<unsigned>{1, 0, 2}));
}

TEST(TeamTopology, ThiefTriesTheSameCacheThenTheSameNumaNode) {
  // Eight cores: pairs share an L2, quads share an L3, two NUMA nodes of four cores, one
  // package. Thread t is on core t.
  std::vector<CpuPlace> p;
  for (unsigned c = 0; c < 8; ++c) p.push_back(place(c, c, 100 + c / 2, 200 + c / 4, 300 + c / 4));
  // Same L3 and NUMA for 0..3 here; make the NUMA level distinct from L3 for 4..7:
  // cores 4,5 have their own L3 (no sharing with 6,7) but the same node.
  p[4].l3 = 250;
  p[5].l3 = 250;
  p[6].l3 = 260;
  p[7].l3 = 260;
  auto order = stealOrder(p);
  EXPECT_EQ(row(order, 8, 0), (std::vector<unsigned>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(row(order, 8, 2), (std::vector<unsigned>{3, 0, 1, 4, 5, 6, 7}));
  EXPECT_EQ(row(order, 8, 5), (std::vector<unsigned>{4, 6, 7, 0, 1, 2, 3}));
  EXPECT_EQ(row(order, 8, 7), (std::vector<unsigned>{6, 4, 5, 0, 1, 2, 3}));
}

TEST(TeamTopology, UnknownPlacesFallBackToRingOrder) {
  std::vector<CpuPlace> p(5);  // hwloc failed or a team larger than the machine
  auto order = stealOrder(p);
  EXPECT_EQ(row(order, 5, 0), (std::vector<unsigned>{1, 2, 3, 4}));
  EXPECT_EQ(row(order, 5, 3), (std::vector<unsigned>{4, 0, 1, 2}));
  EXPECT_TRUE(stealOrder(std::vector<CpuPlace>(1)).empty());
}

TEST(TeamTopology, AllowedCpusAreTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  auto cpus = hk::team::allowedCpus();
  ASSERT_EQ(cpus.size(), static_cast<std::size_t>(CPU_COUNT(&set)));
  for (int c : cpus) EXPECT_TRUE(CPU_ISSET(c, &set)) << c;
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
}

TEST(TeamTopology, PlacesAreDistinctAllowedCpusWithTheCallerFirst) {
  auto cpus = hk::team::allowedCpus();
  int caller = sched_getcpu();
  auto places = hk::team::discoverPlaces(cpus, static_cast<unsigned>(cpus.size()), caller);
  ASSERT_EQ(places.size(), cpus.size());
  if (std::count(cpus.begin(), cpus.end(), caller)) EXPECT_EQ(places[0].cpu, caller);
  std::set<int> seen;
  for (const CpuPlace &p : places) {
    EXPECT_TRUE(std::count(cpus.begin(), cpus.end(), p.cpu)) << p.cpu;
    EXPECT_TRUE(seen.insert(p.cpu).second) << "cpu " << p.cpu << " twice";
    EXPECT_TRUE(std::count(p.core_cpus.begin(), p.core_cpus.end(), p.cpu));
    EXPECT_NE(p.core, CpuPlace::kNone) << "hwloc found no core for cpu " << p.cpu;
  }
  // Fewer threads than CPUs: a prefix.
  EXPECT_EQ(hk::team::discoverPlaces(cpus, 1, caller).size(), 1u);
}

TEST(TeamTopology, TeamSizeIsTheCpuCountCappedByNumThreads) {
  hk::Config c;
  EXPECT_EQ(hk::team::optionsFromConfig(c, 2).threads, 2u);
  c.num_threads = 1;
  EXPECT_EQ(hk::team::optionsFromConfig(c, 2).threads, 1u);
  c.num_threads = 8;  // never more threads than allowed CPUs
  EXPECT_EQ(hk::team::optionsFromConfig(c, 2).threads, 2u);
  c.num_threads = 3;
  c.pin = hk::PinMode::Cores;
  EXPECT_EQ(hk::team::optionsFromConfig(c, 16).threads, 3u);
  EXPECT_EQ(hk::team::optionsFromConfig(c, 16).pin, hk::PinMode::Cores);
  EXPECT_EQ(hk::team::optionsFromConfig(c, 0).threads, 1u);
}

TEST(TeamTopology, SpinComesFromTheConfig) {
  hk::Config c;
  EXPECT_EQ(hk::team::optionsFromConfig(c, 2).spin_ns, 100'000u);
  c.spin_us = 0;  // park at once
  EXPECT_EQ(hk::team::optionsFromConfig(c, 2).spin_ns, 0u);
  c.spin_us = hk::kMaxSpinUs;
  EXPECT_EQ(hk::team::optionsFromConfig(c, 2).spin_ns, 1'000'000'000u);
}

}  // namespace
