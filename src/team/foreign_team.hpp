// A team made of the application's threads: each job becomes one call of a parallel-for
// the application provides (its OpenMP runtime, or a pool handed over with
// hkSetTeamExecutor), task k running block k of the groups. See docs/team.md.
//
//   hk::team::ForeignTeam team;
//   team.reset(&pool_for, stack_bytes);      // ParallelFor{poolFor, pool, poolOwns, 4}
//   if (!team.run(job))                      // busy, or called on one of the pool's threads
//     job.run(job.ctx, 0, job.total, 0);     // run it inline instead
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "team/team.hpp"

namespace hk::team {

// The application's parallel-for: run task(task_ctx, i) for every i in [0, n), then
// return (hk_team_executor in include/hostkernel/executor.h).
struct ParallelFor {
  void (*parallel_for)(void *user, unsigned n, void (*task)(void *, unsigned), void *task_ctx);
  void *user;
  int (*on_worker)(void *user);  // optional: nonzero on the pool's own threads
  unsigned threads;              // tasks per job
};

// The process's default thread stack size (pthread_getattr_default_np): what the threads
// of a pool get unless it sets their stacks.
std::uint64_t defaultThreadStackBytes();

class ForeignTeam {
 public:
  ForeignTeam() = default;
  ForeignTeam(const ForeignTeam &) = delete;
  ForeignTeam &operator=(const ForeignTeam &) = delete;

  // Makes `pf` (copied) the team's parallel-for, with threads of `stack_bytes` usable
  // stack; null: none (run() returns false). Waits for a job running on the previous one
  // to finish, so that its pool may go once this returns.
  void reset(const ParallelFor *pf, std::uint64_t stack_bytes);
  bool active() const { return active_.load(std::memory_order_acquire); }
  // afterForkInChild() frees busy_ in a forked child. Must be called from the child's
  // fork handler only: a job that ran on another thread at fork() has no thread in the
  // child to end it, and reset() (hkSetTeamExecutor) would wait for busy_ for ever.
  void afterForkInChild() { busy_.store(false, std::memory_order_relaxed); }
  // Jobs whose Job::stack_bytes is larger do not fit the pool's threads.
  std::uint64_t stackBytes() const { return stack_bytes_.load(std::memory_order_relaxed); }

  // Runs the job as pf.threads tasks and returns when every group ran exactly once, true.
  // False WITHOUT running anything when another job is running on this team (busy), when
  // called on one of the pool's threads (pf.on_worker), or with no parallel-for: the
  // caller then runs the job inline. One thread, or one group, runs on the caller.
  // `now_ns`: hk::nowNs() read just before, when the caller has it (0: read here).
  // `judged`: false leaves the job out of slow()'s account (its threads were known to be
  // waking: team/team_choice.hpp).
  bool run(const Job &job, std::uint64_t now_ns = 0, bool judged = true);

  // True for a while after a job whose parallel-for returned long after its last group
  // finished: one of the pool's threads was kept from running (a busy CPU). Jobs meant
  // for a team that answers promptly go elsewhere meanwhile (team/dispatch.cpp).
  bool slow() const;
  bool slow(std::uint64_t now_ns) const;  // the same, with hk::nowNs() read by the caller
  // Jobs that made slow() true, since the team was made.
  std::uint64_t slowJoins() const { return slow_periods_.load(std::memory_order_relaxed); }

  // What the parallel-for runs: task(run, i) runs task i of the job run() published. A
  // parallel-for that knows it (OpenMP's, team/openmp_runtime.cpp) calls it directly.
  static void task(void *run, unsigned index);

 private:
  void noteJoin(std::uint64_t start_ns, std::uint64_t all_done_ns, std::uint64_t work_ns);
  // Block k: groups [next, end) not yet claimed. A static job claims a whole block with
  // one exchange; a stealing one claims chunks with fetch_add, as the own team does.
  // Task k reports in block k's line when it ran groups: when its last ones finished and
  // its time in groups.
  struct alignas(64) Block {
    std::atomic<std::uint64_t> next{0};
    std::uint64_t end = 0;
    std::atomic<std::uint64_t> finished_ns{0};
    std::atomic<std::uint64_t> work_ns{0};
  };
  // The job being run, in the team's own cache lines: a task reaches everything it
  // needs in one step from its argument. The tasks' threads read these lines after the
  // caller wrote them, one transfer each; on the caller's stack they would sit among the
  // frames the caller keeps writing, and behind one pointer more each.
  struct alignas(64) Run {
    Job job;
    Block *blocks = nullptr;
    unsigned n = 0;
    // Tasks outside [0, n) (a parallel-for that runs more) report here, in a line of its own.
    alignas(64) std::atomic<std::uint64_t> stray_finished_ns{0};
    std::atomic<std::uint64_t> stray_work_ns{0};
  };

  std::atomic<bool> busy_{false};    // a job runs, or reset() holds the team
  std::atomic<bool> active_{false};  // pf_ is set
  std::atomic<std::uint64_t> stack_bytes_{0};
  ParallelFor pf_{};                 // written and read with busy_ held
  Run run_;                          // written with busy_ held
  std::unique_ptr<Block[]> blocks_;  // one per task; grown with busy_ held
  unsigned nblocks_ = 0;
  std::uint64_t pause_ns_ = 0;                   // the last slow() period (busy_ held)
  unsigned late_in_row_ = 0;                     // late jobs since the last prompt one
  std::atomic<std::uint64_t> slow_until_ns_{0};
  std::atomic<std::uint64_t> slow_periods_{0};  // how many slow() periods began (slowJoins())
};

}  // namespace hk::team
