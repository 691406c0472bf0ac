// HOSTKERNEL_TEAM=auto in a process with OpenMP: whether the next job runs on OpenMP's
// threads or on hostkernel's own workers, chosen by which of the two makes the
// application's loop faster (docs/team.md, "Choosing a team by measurement").
//
// The measure is the cycle: the time from one team launch to the next on the launching
// side, which holds the launch and whatever the application did before the next one (its
// own OpenMP loops, its queue launches). Neither team is better everywhere: between
// OpenMP loops, the own workers fight OpenMP's spinning threads for the CPUs and a step
// costs tens of times more; with no OpenMP work between launches, a job on OpenMP's
// threads pays OpenMP's fork and join on top of its own dispatch.
//
// Each kernel has its own (launch::LaunchableKernel): one launched between OpenMP loops
// and one in a loop of launches get different teams.
//
//   TeamChoice choice;                                 // starts with OpenMP's threads
//   if (choice.pick(nowNs()).team == TeamChoice::Pick::Own) ran = Team::instance().run(job);
//   else ran = openmp.run(job);
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace hk::team {

class TeamChoice {
 public:
  enum class Pick : std::uint8_t { OpenMP, Own };

  static constexpr unsigned kWindow = 8;  // cycles per measurement (their median)
  static constexpr unsigned kSkip = 2;    // cycles after a switch left out: the teams' hand-over
  // kHurtsInRow cycles in a row on the own workers, each more than kOwnHurts times the
  // baseline, end their time.
  static constexpr std::uint64_t kOwnHurts = 4;
  static constexpr unsigned kHurtsInRow = 3;
  // Cycles longer than this never try the own workers.
  static constexpr std::uint64_t kOwnWorthNs = 50'000;
  static constexpr std::uint64_t kFirstProbeNs = 10'000'000;
  static constexpr std::uint64_t kLongestProbeNs = 2'000'000'000;

  // What pick() decided for one job.
  struct Picked {
    Pick team;
    bool left_own;      // this job moves from the own workers to OpenMP's threads: the
                        // own workers should stop spinning (Team::parkSpinners)
    bool handing_over;  // one of the first jobs after a switch: the team's threads may
                        // have to wake or start, and the job is not theirs to be judged by
  };
  // The team for the job that starts at `now_ns` (hk::nowNs()). Notes the cycle that
  // ended now. Called by threads at once, only one of them measures; the others get the
  // team in force.
  Picked pick(std::uint64_t now_ns);

  // The team in force outside trials.
  Pick settled() const { return settled_.load(std::memory_order_relaxed); }
  std::uint64_t trials() const { return trials_.load(std::memory_order_relaxed); }
  std::uint64_t switches() const { return switches_.load(std::memory_order_relaxed); }

 private:
  std::uint64_t median();
  void startTrial(std::uint64_t baseline_ns);
  void endTrial(std::uint64_t now_ns, bool won, std::uint64_t median_ns);

  std::atomic<bool> measuring_{false};  // try-lock of the fields below
  std::atomic<Pick> pick_{Pick::OpenMP};
  std::atomic<Pick> settled_{Pick::OpenMP};
  bool trial_ = false;
  std::uint64_t last_ns_ = 0;      // the last measured launch's start
  std::uint64_t baseline_ns_ = 0;  // median cycle of the settled team's last window
  std::uint64_t probe_at_ns_ = 0;  // the next trial of the other team starts after this
  // Between trials of each team (index: Pick), doubled when a trial of it loses.
  std::array<std::uint64_t, 2> interval_ns_{kFirstProbeNs, kFirstProbeNs};
  unsigned skip_ = kSkip;
  unsigned count_ = 0;
  unsigned losses_ = 0;  // trial cycles no faster than the win needs
  // Cycles in a row on the own workers slower than kOwnHurts times the baseline, up to now,
  // and the shortest of them.
  unsigned own_slow_cycles_ = 0;
  std::uint64_t own_slow_shortest_ns_ = UINT64_MAX;
  std::array<std::uint64_t, kWindow> cycles_{};
  std::atomic<std::uint64_t> trials_{0}, switches_{0};
};

}  // namespace hk::team
