// The stack of PoCL's worker threads, which run the work-groups of launches given to
// PoCL's queue. PoCL has no stack check: a work-group that needs more than this would
// crash PoCL, so such a launch gets CL_OUT_OF_RESOURCES instead (docs/stack.md).
//
//   if (group_stack_bytes > hk::pocl::workerStackRoom()) return CL_OUT_OF_RESOURCES;
#pragma once

#include <cstdint>

namespace hk::pocl {

// Bytes a work-group may use on one of PoCL's workers. PoCL 3.1's pthread driver creates
// its workers with default attributes (lib/CL/devices/pthread/pthread_scheduler.c,
// pthread_create with a null attribute), so their stack is the process's default thread
// stack size (RLIMIT_STACK, usually 8 MiB), less a reserve for PoCL's own frames. Read
// once.
std::uint64_t workerStackRoom();

}  // namespace hk::pocl
