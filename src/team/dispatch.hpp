// Which threads run a team job (docs/team.md): the application's pool when it handed one
// over (hkSetTeamExecutor), else by HOSTKERNEL_TEAM its OpenMP threads or hostkernel's
// own workers (Team::instance()); auto, with an OpenMP runtime loaded, lets the job's
// TeamChoice pick between the two.
//
//   hk::team::Job job{runRange, &ctx, total_groups, steal, stack_bytes};
//   if (!hk::team::runJob(job))               // busy, nested, or on a team thread
//     runRange(&ctx, 0, total_groups, 0);      // run it inline instead
#pragma once

#include <cstdint>

#include "team/foreign_team.hpp"
#include "team/team.hpp"

namespace hk::team {

// Runs the job on the process's team; the contract of Team::run (false: nothing ran, run
// it inline). A job needing more stack than the application's threads have runs on the
// own workers.
bool runJob(const Job &job);

// hkSetTeamExecutor: `pf` (copied) runs later jobs; null restores HOSTKERNEL_TEAM. Waits
// for a job running on the previous pool. In a forked child, a pool set before the fork
// is not used (its threads are not in the child) until this is called there again.
void setExecutor(const ParallelFor *pf, std::uint64_t stack_bytes);

// Tasks per job for an executor of `requested` threads (0: the allowed CPUs), capped by
// HOSTKERNEL_NUM_THREADS; at least 1.
unsigned executorThreads(unsigned requested);

// The threads runJob() gives team jobs to now: the application's pool (hkSetTeamExecutor),
// its OpenMP threads (HOSTKERNEL_TEAM openmp, or auto with an OpenMP runtime loaded), or
// hostkernel's own workers.
enum class ActiveTeam { Executor, OpenMP, Own };
ActiveTeam activeTeam();

// activeTeam() for logs and tests: "executor", "openmp", "own".
const char *activeTeamName();

}  // namespace hk::team
