/* hostkernel team executor: the application's own parallel-for, handed to hostkernel to
 * run the work-groups of large launches on the application's threads (a TBB arena, a
 * custom pool) instead of hostkernel's worker threads. docs/team.md says which thread
 * runs which work-groups.
 *
 * A launch split over the team becomes one call of parallel_for(user, n, task, task_ctx)
 * with n = `threads`. Task i runs block i of the launch's work-groups (block i is meant
 * for the pool's thread i: give task i to thread i where the pool can, so that repeated
 * launches find their data in that thread's cache). A task that finishes its block runs
 * the blocks whose tasks have not started yet, so a task that starts late, or never,
 * does not hold up the launch. parallel_for must return only after every task it started
 * has returned.
 *
 * Usage, with a pool that runs task i on its thread i:
 *
 *   static void poolFor(void *pool, unsigned n, void (*task)(void *, unsigned), void *ctx) {
 *     my_pool_run(pool, n, task, ctx);          // task(ctx, i) for i in [0, n), then join
 *   }
 *   static int poolOwns(void *pool) { return my_pool_on_worker(pool); }
 *
 *   hk_team_executor e = {0};
 *   e.parallel_for = poolFor;
 *   e.on_worker = poolOwns;                     // optional
 *   e.threads = my_pool_size(pool);             // 0: one per allowed CPU
 *   e.user = pool;
 *   hkSetTeamExecutor(&e);                      // large launches now run on the pool
 *   ...
 *   hkSetTeamExecutor(NULL);                    // back to the default; the pool may go
 *
 * A complete pool: tests/integration/thread_pool.hpp (used by team_executor_test.cpp).
 */
#ifndef HOSTKERNEL_EXECUTOR_H
#define HOSTKERNEL_EXECUTOR_H

#include <stddef.h>

#include <hostkernel/hostkernel.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hk_team_executor {
  /* Runs task(task_ctx, i) for every i in [0, n), in parallel where it can, and returns
   * when all have returned. Called by the launching thread, one launch at a time. */
  void (*parallel_for)(void *user, unsigned n, void (*task)(void *task_ctx, unsigned index),
                       void *task_ctx);
  /* Optional: nonzero when called on one of the pool's own threads. A launch made there
   * (from inside a task of the application's) then runs on the calling thread alone, so
   * that parallel_for is never entered from inside itself. NULL: launches from any
   * thread use the pool. */
  int (*on_worker)(void *user);
  /* Tasks per launch (n above), normally the pool's size; 0: one per CPU the process may
   * use. Capped by HOSTKERNEL_NUM_THREADS. */
  unsigned threads;
  /* Optional: usable stack bytes of the pool's threads; 0: the process's default thread
   * stack size. Kernels that need a deeper stack run on hostkernel's own workers. */
  size_t stack_bytes;
  void *user; /* passed to parallel_for and on_worker */
} hk_team_executor;

/* Makes `executor` (copied) the team for launches that start after this returns; NULL
 * restores the default (HOSTKERNEL_TEAM). Waits for a launch running on the previous
 * executor to finish, so that the application may destroy that pool afterwards.
 * CL_INVALID_VALUE when executor->parallel_for is NULL; CL_INVALID_OPERATION when called
 * from inside a kernel (a launch's work-group, where that wait could not end). */
HK_API cl_int hkSetTeamExecutor(const hk_team_executor *executor);

#ifdef __cplusplus
}
#endif

#endif /* HOSTKERNEL_EXECUTOR_H */
