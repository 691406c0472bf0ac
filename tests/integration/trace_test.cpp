// HOSTKERNEL_TRACE=FILE.json: a child process makes a known set of launches (inline,
// team, one that goes to PoCL's queue) and exits; the trace it wrote at exit is read
// with nlohmann-json and checked: one complete event per launch with the kernel, path,
// queue reason and work-group count, Lane events of the team threads inside their
// launch, and a named lane (thread_name) for every thread that has events.
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/child_kernel.hpp"

namespace {

// `reps` rounds of work per item: 1 for most launches, more for the last large ones, which
// then take milliseconds: the team always steals, so in a short launch the calling thread
// may run every group before a worker of a loaded machine wakes. (Not so many that the
// kernel's team work reaches HOSTKERNEL_SPECIALIZE_MS, which sends a launch to PoCL.)
const char *kSource = R"CLC(
kernel void add_lid(global int *x, int reps) {
  int v = x[get_global_id(0)];
  for (int i = 0; i < reps; ++i) v = v * 3 + (int)get_local_id(0);
  x[get_global_id(0)] = v;
}
)CLC";

constexpr int kInline = 30, kTeam = 40, kLongTeam = 3, kLongReps = 200;
constexpr size_t kLocal = 64, kSmall = 256, kLarge = 64 * 1024, kOdd = 1000;

// The child: builds the kernel and launches it kInline times small (inline), kTeam times
// large (team) and once with a local size that does not divide the grid (queue). Exit
// status 0 when every other call succeeded.
int MakeLaunches() {
  ChildKernel run;
  if (int failed = run.open(kSource, "add_lid", kLarge)) return failed;
  const cl_kernel k = run.kernel;
  const cl_command_queue q = run.cl.hk_queue;
  const int one = 1, many = kLongReps;
  if (hkSetKernelArg(k, 1, sizeof one, &one) != CL_SUCCESS) return 12;
  for (int i = 0; i < kInline; ++i)
    if (hkEnqueueNDRangeKernel(q, k, 1, nullptr, &kSmall, &kLocal, 0, nullptr, nullptr))
      return 13;
  for (int i = 0; i < kTeam; ++i) {
    if (i == kTeam - kLongTeam && hkSetKernelArg(k, 1, sizeof many, &many) != CL_SUCCESS)
      return 12;
    if (hkEnqueueNDRangeKernel(q, k, 1, nullptr, &kLarge, &kLocal, 0, nullptr, nullptr))
      return 14;
  }
  // PoCL takes it or refuses it (OpenCL 1.2 programs have uniform groups): either way it
  // went to the queue.
  hkEnqueueNDRangeKernel(q, k, 1, nullptr, &kOdd, &kLocal, 0, nullptr, nullptr);
  if (hkFinish(q) != CL_SUCCESS) return 16;
  return 0;
}

// Runs MakeLaunches in a child and returns its exit status. The parent launches nothing,
// so only the child writes the trace.
int RunTracedChild() {
  const pid_t pid = fork();
  if (pid == 0) std::exit(MakeLaunches());  // exit, not _exit: the trace is written at exit
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST(Trace, OneEventPerLaunchAndALanePerTeamThread) {
  // HOSTKERNEL_TRACE is read when libhostkernel loads: trace.cmake sets it.
  const char *file = std::getenv("HOSTKERNEL_TRACE");
  ASSERT_TRUE(file && *file) << "run with HOSTKERNEL_TRACE=FILE.json";
  const std::string path = file;
  unlink(path.c_str());
  ASSERT_EQ(RunTracedChild(), 0);
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  const nlohmann::json doc = nlohmann::json::parse(in);  // throws (fails) if not JSON
  unlink(path.c_str());
  const nlohmann::json &events = doc.at("traceEvents");

  std::map<std::string, int> by_path;
  int small = 0, large = 0;  // inline or team launches of each size
  std::vector<nlohmann::json> launches, lanes;
  std::set<int> tids_with_events, named_tids;
  for (const nlohmann::json &e : events) {
    if (e.at("ph") == "M") {
      if (e.at("name") == "thread_name") named_tids.insert(e.at("tid").get<int>());
      continue;
    }
    ASSERT_EQ(e.at("ph"), "X") << e.dump();
    EXPECT_EQ(e.at("name"), "add_lid") << e.dump();
    EXPECT_GE(e.at("ts").get<double>(), 0.0) << e.dump();
    EXPECT_GE(e.at("dur").get<double>(), 0.0) << e.dump();
    EXPECT_EQ(e.at("pid").get<int>(), e.at("pid").get<int>());
    tids_with_events.insert(e.at("tid").get<int>());
    if (e.at("cat") == "launch") {
      launches.push_back(e);
      const std::string p = e.at("args").at("path");
      ++by_path[p];
      const std::uint64_t groups = e.at("args").at("groups");
      // A small launch whose kernel the sampler found slow (a sanitizer build, a loaded
      // machine) runs on the team too: the path follows timing, the groups do not.
      if (p == "inline") EXPECT_EQ(groups, kSmall / kLocal) << e.dump();
      if (p == "team")
        EXPECT_TRUE(groups == kLarge / kLocal || groups == kSmall / kLocal) << e.dump();
      if (p != "queue") ++(groups == kSmall / kLocal ? small : large);
      if (p == "queue") {
        EXPECT_EQ(e.at("args").at("reason"), "non_uniform") << e.dump();
        EXPECT_EQ(groups, (kOdd + kLocal - 1) / kLocal) << e.dump();
      } else {
        EXPECT_FALSE(e.at("args").contains("reason")) << e.dump();
      }
    } else {
      ASSERT_EQ(e.at("cat"), "team") << e.dump();
      lanes.push_back(e);
    }
  }
  EXPECT_EQ(small, kInline);
  EXPECT_EQ(large, kTeam);
  EXPECT_EQ(by_path["inline"] + by_path["team"], kInline + kTeam);
  EXPECT_GE(by_path["team"], kTeam);
  EXPECT_EQ(by_path["queue"], 1);
  EXPECT_EQ(launches.size(), std::size_t{kInline + kTeam + 1});
  for (int tid : tids_with_events) EXPECT_TRUE(named_tids.count(tid)) << "lane " << tid;

  // Every Lane lies inside a team launch; each team launch's lanes ran all its groups
  // once, on distinct threads' lanes or the same lane more than once (stealing).
  const double slack_us = 0.002;  // the JSON's times are rounded to ns
  std::size_t launches_on_two_lanes = 0;
  std::size_t placed = 0;
  for (const nlohmann::json &l : launches) {
    if (l.at("args").at("path") != "team") continue;
    const double begin = l.at("ts"), end = begin + l.at("dur").get<double>();
    std::uint64_t groups = 0, largest_lane = 0, lanes_of_launch = 0;
    std::set<int> tids;
    for (const nlohmann::json &lane : lanes) {
      const double lb = lane.at("ts"), le = lb + lane.at("dur").get<double>();
      if (lb + slack_us < begin || le > end + slack_us) continue;
      const std::uint64_t lane_groups = lane.at("args").at("groups");
      groups += lane_groups;
      largest_lane = std::max(largest_lane, lane_groups);
      ++lanes_of_launch;
      tids.insert(lane.at("tid").get<int>());
      ++placed;
    }
    EXPECT_EQ(groups, l.at("args").at("groups").get<std::uint64_t>())
        << "team launch at " << begin;
    // The launch path always steals (launch::execute): each claim is at most a quarter
    // of what is left of a block, so no lane holds half the groups, as a static split's
    // one block per thread of two would. (One lane: a job of one group.)
    if (lanes_of_launch > 1)
      EXPECT_LT(2 * largest_lane, l.at("args").at("groups").get<std::uint64_t>())
          << "team launch at " << begin << " split statically";
    if (tids.size() >= 2) ++launches_on_two_lanes;
  }
  EXPECT_EQ(placed, lanes.size()) << "a Lane event outside every team launch";
  if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
    EXPECT_GT(launches_on_two_lanes, 0u) << "no team launch ran on two threads' lanes";
}

}  // namespace
