#include "team/dispatch.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>

#include "base/clock.hpp"
#include "base/config.hpp"
#include "base/log.hpp"
#include "team/openmp_runtime.hpp"
#include "team/team_choice.hpp"
#include "team/topology.hpp"

namespace hk::team {
namespace {

// The pool from hkSetTeamExecutor, and OpenMP's threads. Never destroyed: a launch may
// run while the process exits.
ForeignTeam &foreignTeam() {
  static ForeignTeam *t = new ForeignTeam;
  return *t;
}

unsigned allowedCount() {
  static const unsigned n = std::max<unsigned>(1, static_cast<unsigned>(allowedCpus().size()));
  return n;
}

// OpenMP's threads, when HOSTKERNEL_TEAM asks for them (auto: when a runtime is loaded);
// null for the own workers. Decided at the first team launch.
ForeignTeam *openmpTeam() {
  static ForeignTeam *team = [] () -> ForeignTeam * {
    const TeamMode mode = config().team;
    if (mode == TeamMode::Own) return nullptr;
    const OpenMPRuntime *omp = findOpenMP();
    if (!omp) {
      if (mode == TeamMode::OpenMP)
        logf(LogLevel::Warn, "team: HOSTKERNEL_TEAM=openmp, but no OpenMP runtime is loaded; "
                             "using hostkernel's own threads");
      return nullptr;
    }
    ParallelFor pf = omp->parallel_for;
    pf.threads = std::min(executorThreads(pf.threads), allowedCount());
    auto *t = new ForeignTeam;
    t->reset(&pf, omp->stack_bytes);
    logf(LogLevel::Info, "team: on the application's OpenMP threads (%u)", pf.threads);
    return t;
  }();
  return team;
}

// auto's choice for jobs that bring none (Job::choice). Never destroyed, as above.
TeamChoice &choice() {
  static TeamChoice *c = new TeamChoice;
  return *c;
}

// Set in a forked child, cleared by hkSetTeamExecutor there: the pool handed over before
// the fork has no threads in the child (only the forking thread is copied), and a job
// given to it would wait for them for ever. The own workers, remade in the child, run it.
// A job the pool ran on another thread at fork() ends in the parent only: the child's
// executor team is not busy.
std::atomic<bool> g_executor_forked{false};
[[maybe_unused]] const int g_executor_atfork = pthread_atfork(nullptr, nullptr, [] {
  g_executor_forked.store(true, std::memory_order_relaxed);
  foreignTeam().afterForkInChild();
});

bool executorLostToFork() { return g_executor_forked.load(std::memory_order_relaxed); }

}  // namespace

unsigned executorThreads(unsigned requested) {
  unsigned n = requested ? requested : allowedCount();
  const unsigned cap = config().num_threads;
  if (cap > 0 && cap < n) n = cap;
  return std::max(1u, n);
}

bool runJob(const Job &job) {
  if (job.from_background) return Team::instance().run(job);
  ForeignTeam &pool = foreignTeam();
  if (pool.active() && job.stack_bytes <= pool.stackBytes() && !executorLostToFork())
    return pool.run(job);
  // After fork, OpenMP's pool is not used (openmpLostToFork): the own workers, which
  // are remade in the child, run the job.
  if (ForeignTeam *omp = openmpLostToFork() ? nullptr : openmpTeam()) {
    // Inside the application's parallel region: inline, whichever team would take it.
    const ParallelFor &region = findOpenMP()->parallel_for;
    if (region.on_worker(region.user)) return false;
    if (job.stack_bytes <= omp->stackBytes()) {
      if (config().team == TeamMode::OpenMP) return omp->run(job);
      // auto: the team whose launches make the application's loop faster (TeamChoice).
      // While OpenMP's threads are the choice but one was kept from running (another
      // process on its CPU: ForeignTeam::slow), the own workers for a while, unmeasured.
      // Not the caller alone: on a machine where one CPU is taken, the others are free,
      // and the own team's caller never waits for a worker that has not started (its
      // stealing split runs a late worker's share; docs/team.md). OpenMP's join waits
      // for every thread, so its jobs wait for the busy CPU's time slice.
      TeamChoice &c = job.choice ? *job.choice : choice();
      const std::uint64_t now = nowNs();
      if (c.settled() == TeamChoice::Pick::OpenMP && omp->slow(now))
        return Team::instance().run(job);
      const TeamChoice::Picked p = c.pick(now);
      if (p.team == TeamChoice::Pick::OpenMP) {
        if (p.left_own) Team::instance().parkSpinners();
        return omp->run(job, now, !p.handing_over);
      }
    }
  }
  return Team::instance().run(job);
}

void setExecutor(const ParallelFor *pf, std::uint64_t stack_bytes) {
  foreignTeam().reset(pf, stack_bytes);
  g_executor_forked.store(false, std::memory_order_relaxed);
}

ActiveTeam activeTeam() {
  if (foreignTeam().active() && !executorLostToFork()) return ActiveTeam::Executor;
  return !openmpLostToFork() && openmpTeam() ? ActiveTeam::OpenMP : ActiveTeam::Own;
}

const char *activeTeamName() {
  switch (activeTeam()) {
    case ActiveTeam::Executor: return "executor";
    case ActiveTeam::OpenMP: return "openmp";
    case ActiveTeam::Own: break;
  }
  return "own";
}

}  // namespace hk::team
