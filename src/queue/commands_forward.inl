// enqueueOnPocl (queue/commands.hpp): a template, so that each entry point passes PoCL's
// call as it is.
#pragma once

#include "queue/background.hpp"
#include "queue/command_counts.hpp"
#include "queue/ordering.hpp"

namespace hk::queue {

// Records a command given to PoCL on `q` (null: a queue hostkernel does not know);
// `given_before` is givenSoFar(*q) from before the command was given.
void noteForwarded(Queue *q, cl_uint nwait, const cl_event *waits, bool blocking,
                   std::uint64_t given_before);

template <typename Forward>
cl_int enqueueOnPocl(cl_command_queue queue, cl_command_type type, cl_bool blocking,
                     cl_uint nwait, const cl_event *waits, Forward forward) {
  if (!waitListValid(nwait, waits)) return CL_INVALID_EVENT_WAIT_LIST;
  // PoCL knows nothing of a background launch: it must have completed first.
  cl_int err = CL_SUCCESS;
  Queue *q = queue ? find(queue, &err) : nullptr;
  if (q) settleQueue(*q);
  settleWaitList(nwait, waits);
  const std::uint64_t given = q ? givenSoFar(*q) : 0;
  err = forward();
  countQueue(type, HK_REASON_MEM_KIND);
  if (err == CL_SUCCESS) noteForwarded(q, nwait, waits, blocking, given);
  return err;
}

}  // namespace hk::queue
