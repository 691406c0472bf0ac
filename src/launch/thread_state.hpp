// launch/'s names for the thread's work-group execution state, which lives below the team
// (kernel/thread_state.hpp) because team threads set their team id in it.
#pragma once

#include "kernel/thread_state.hpp"

namespace hk::launch {
using kernel::ThreadState;
using kernel::threadState;
}  // namespace hk::launch
