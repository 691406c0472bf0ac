// enqueueOnPocl (queue/commands.hpp): a template, so that each entry point passes PoCL's
// call as it is.
#pragma once

#include "queue/background.hpp"
#include "queue/command_counts.hpp"
#include "queue/ordering.hpp"

namespace hk::queue {

// Records a command given to PoCL on its queue (when hostkernel knows the queue).
void noteForwarded(cl_command_queue queue, cl_uint nwait, const cl_event *waits,
                   bool blocking);

template <typename Forward>
cl_int enqueueOnPocl(cl_command_queue queue, cl_command_type type, cl_bool blocking,
                     cl_uint nwait, const cl_event *waits, Forward forward) {
  if (!waitListValid(nwait, waits)) return CL_INVALID_EVENT_WAIT_LIST;
  // PoCL knows nothing of a background launch: it must have completed first.
  if (const Queue *q = queue ? findKnown(queue) : nullptr) settleQueue(*q);
  settleWaitList(nwait, waits);
  const cl_int err = forward();
  countQueue(type, HK_REASON_MEM_KIND);
  if (err == CL_SUCCESS) noteForwarded(queue, nwait, waits, blocking);
  return err;
}

}  // namespace hk::queue
