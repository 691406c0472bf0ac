// The ordering rule between commands that run directly and the commands PoCL holds for a
// queue. A command runs directly only when the queue is idle (queue/queue.hpp) and every
// event it waits for has completed: then everything it must follow has happened, and it
// is complete when its call returns. Otherwise it goes to PoCL's queue, which orders it,
// and the queue holds PoCL work until that work is known complete.
//
//   Admission a = admit(q, nwait, waits, blocking);   // before a command other than a launch
//   if (!a.direct) { forward to PoCL; noteEnqueued(q, nwait, waits); }  // or noteCompleted
//   if (!q.idle()) err = drainQueue(q);               // before a direct launch
#pragma once

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

#include "queue/queue.hpp"

namespace hk::queue {

// Waits until PoCL has completed every command given so far for the queue.
cl_int drainQueue(Queue &q);

// Whether a command may run directly now, and why not.
struct Admission {
  bool direct = false;
  hk_reason reason = HK_REASON_NONE;  // when !direct
};
// The rule for every command but a launch: the queue must be direct and idle, and every
// event of the wait list complete. An incomplete event that may wait for a user event
// sends the command to PoCL (HK_REASON_USER_EVENT), as does one still running when the
// command is not blocking (HK_REASON_QUEUE_BUSY: PoCL waits for it without blocking the
// caller); a blocking command waits for a running one and then runs directly. An event
// that failed sends the command to PoCL, which reports it.
Admission admit(Queue &q, cl_uint num_events, const cl_event *events, bool blocking);

// False for a wait list that PoCL 3.1 crashes on instead of returning
// CL_INVALID_EVENT_WAIT_LIST: a NULL list with a nonzero count.
bool waitListValid(cl_uint num_events, const cl_event *events);

// True if every event of the list is a valid event of `context`. PoCL answers any other
// list with an error (CL_INVALID_CONTEXT, CL_INVALID_EVENT_WAIT_LIST) before it waits:
// such a command must go to PoCL, not wait and run.
bool waitListOfContext(cl_context context, cl_uint num_events, const cl_event *events);

// True if the wait list holds an incomplete user event, or an incomplete command of a
// blocked queue (one holding a command that waits for a user event).
bool hasIncompleteUserEvent(cl_uint num_events, const cl_event *events);

// Waits a bounded time (~50 ms) for every event of the list to be submitted by PoCL (so
// that waiting for it to finish cannot deadlock); false if one has not (the launch then
// goes to PoCL's queue, which waits without blocking the caller).
bool awaitWaitList(cl_uint num_events, const cl_event *events);

// How many commands PoCL had been given for the queue: taken before a blocking command is
// given to PoCL (noteCompleted).
std::uint64_t givenSoFar(const Queue &q);

// Records a command given to PoCL that may still be pending: the queue holds PoCL work
// until drainQueue.
void noteEnqueued(Queue &q, cl_uint num_events, const cl_event *events);

// Records a blocking command given to PoCL, which has completed (with its wait list) when
// its call returned; `given_before` is givenSoFar(q) from before the call. On an in-order
// queue every command PoCL was given before it has completed too: exactly those counted in
// `given_before`, since a command is counted only after its call returned. The command
// itself is not counted: counting it and claiming the prefix up to it would also claim
// the commands other threads gave PoCL meanwhile, which may still run (a direct read
// would then miss their results).
void noteCompleted(Queue &q, std::uint64_t given_before);

}  // namespace hk::queue
