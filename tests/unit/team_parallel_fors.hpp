// For the ForeignTeam tests: parallel-fors to hand a ForeignTeam. poolFor runs the tasks on
// a ThreadPool (tests/integration/thread_pool.hpp); the others break the "every task, once"
// expectation, which the rescue rule must cover. HandedTeam is a ForeignTeam that holds one
// of them for its lifetime.
//
//   ThreadPool pool(4);
//   HandedTeam team(poolFor(pool));
//   ASSERT_TRUE(team.run(job));
#pragma once

#include "integration/thread_pool.hpp"
#include "team/foreign_team.hpp"

inline hk::team::ParallelFor poolFor(ThreadPool &pool) {
  return hk::team::ParallelFor{
      [](void *user, unsigned n, void (*task)(void *, unsigned), void *ctx) {
        static_cast<ThreadPool *>(user)->parallelFor(n, task, ctx);
      },
      &pool, [](void *) -> int { return ThreadPool::onWorker(); }, pool.size()};
}

// Only task 0, no task at all, every task one after the other on the caller, or tasks
// whose indices all lie outside [0, n).
inline void onlyTaskZero(void *, unsigned, void (*task)(void *, unsigned), void *ctx) {
  task(ctx, 0);
}
inline void noTask(void *, unsigned, void (*)(void *, unsigned), void *) {}
inline void inTurn(void *, unsigned n, void (*task)(void *, unsigned), void *ctx) {
  for (unsigned i = n; i-- > 0;) task(ctx, i);
}
inline void outOfRange(void *, unsigned n, void (*task)(void *, unsigned), void *ctx) {
  for (unsigned i = 0; i < n; ++i) task(ctx, n + i);
}

// A ForeignTeam handed `pf` (threads with 1 MiB of stack) on construction, and no
// parallel-for on destruction. The destructor waits for a running job (ForeignTeam::reset):
// a pool behind `pf` must be declared before the team, so that it outlives the job.
class HandedTeam : public hk::team::ForeignTeam {
 public:
  explicit HandedTeam(const hk::team::ParallelFor &pf) { reset(&pf, 1u << 20); }
  ~HandedTeam() { reset(nullptr, 0); }
};
