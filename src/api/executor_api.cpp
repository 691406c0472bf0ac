// hkSetTeamExecutor (include/hostkernel/executor.h): the application's parallel-for as the
// team (team/dispatch.hpp).
#include <hostkernel/executor.h>

#include "kernel/thread_state.hpp"
#include "queue/background.hpp"
#include "team/dispatch.hpp"

extern "C" {

cl_int hkSetTeamExecutor(const hk_team_executor *executor) {
  // Inside a work-group the launch holding the pool waits for this thread: never ending.
  if (hk::kernel::threadState().depth != 0) return CL_INVALID_OPERATION;
  hk::queue::settleAny();  // a launch in the background may run on the pool
  if (!executor) {
    hk::team::setExecutor(nullptr, 0);
    return CL_SUCCESS;
  }
  if (!executor->parallel_for) return CL_INVALID_VALUE;
  const std::uint64_t stack =
      executor->stack_bytes ? executor->stack_bytes : hk::team::defaultThreadStackBytes();
  const hk::team::ParallelFor pf{executor->parallel_for, executor->user, executor->on_worker,
                                 hk::team::executorThreads(executor->threads)};
  hk::team::setExecutor(&pf, stack);
  return CL_SUCCESS;
}

}  // extern "C"
