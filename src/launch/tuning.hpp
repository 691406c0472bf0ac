// Work-group size for launches with a NULL local size, and whether a work-group fits the
// stack of the thread that runs it. Decided when a kernel's launch geometry changes (the
// kernel's PlanCache keeps the decision), never on the launch path.
//
// The size is PoCL's own choice (choosePoclLocalSize) whenever its stack estimate fits:
// results that depend on the work-group size are then bit-identical to PoCL's queue. When
// it does not fit, capLocalSize shrinks it to the largest power of two of work-items whose
// estimate fits (docs/stack.md):
//
//   std::uint64_t cap = image.stack.largestPow2Fitting(stackRoomForLaunch(ts.stackRoom()));
//   std::size_t local[3];
//   choosePoclLocalSize(dev, global, local);
//   capLocalSize(global, local, cap, dev.preferred_multiple);
#pragma once

#include <cstddef>
#include <cstdint>

namespace hk::launch {

// Shrinks `local` (a valid uniform local size for `global`) until it has at most
// `max_items` work-items (>= 1), keeping it a divisor of `global` in every dimension:
//   1. the first dimension, down to no less than 16 vectors of `vector_width` items;
//   2. the third, then the second dimension, down to 1;
//   3. the first dimension below 16 vectors, only to multiples of `vector_width`;
//   4. the first dimension to any divisor (only when nothing else fits).
// In each step the largest size that fits is taken. Unchanged if it already fits.
void capLocalSize(const std::size_t global[3], std::size_t local[3], std::uint64_t max_items,
                  std::size_t vector_width);

// Stack a work-group may use on a launch from a thread with `caller_room` bytes left:
// the team's workers run groups of the same launch, so their (fixed) stacks bound it too.
std::uint64_t stackRoomForLaunch(std::uint64_t caller_room);

// The stack of PoCL's worker threads: PoCL 3.1's pthread driver creates them with default
// attributes, so this is the process's default thread stack size (RLIMIT_STACK, usually
// 8 MiB), less a reserve for PoCL's own frames. A launch sent to PoCL's queue whose
// work-group needs more would crash PoCL: it gets CL_OUT_OF_RESOURCES instead.
std::uint64_t poclWorkerStackRoom();

}  // namespace hk::launch
