// Paths for the step cases (steps/*): one operation is a whole step of a program, the
// commands around a launch included (write, launch, read; fill or copy first; map; events;
// a new buffer or kernel object per step), made twice in the same run:
//
//   hostkernel: every command through hk* (HkCalls: what -include hostkernel/replace.h gives)
//   queue:      every command through cl* (ClCalls: PoCL alone; the layer under OPENCL_LAYERS)
//
// Every step runs guarded_copy(in, out, n): out[i] = in[i] * 2 + 1, on `items` ints. A step
// that moves data checks one element of its result against the host's expectation (so a
// step that ran out of order, or not at all, stops the case), and the case's check compares
// the whole `out` after three steps from the same start with what the host computes.
//
//   const Register kMine{stepCase("steps/mine/4k", "one op = ...", Step::kWriteLaunchRead,
//                                 kSmallItems)};
#pragma once

#include "case_list.hpp"

#include <cstddef>
#include <string>

namespace hkbench {

enum class Step {
  kArgsLaunchFinish,  // 3 x set argument, launch, finish
  kWriteLaunchRead,   // non-blocking write of `in`, launch, blocking read of `out`
  kFillLaunchRead,    // fill `in` with one value, launch, blocking read
  kCopyLaunchRead,    // copy one of two source buffers into `in`, launch, blocking read
  kWriteLaunchMap,    // non-blocking write, launch, blocking map of `out`, unmap, finish
  kEventChain,        // write, launch, read, each waiting for the previous one's event;
                      // the events released
  kSvmLaunch,         // SVM memcpy into `in`, launch, blocking SVM memcpy out of `out`
  kOutOfOrder,        // out-of-order queue: write, launch, read, ordered by events
  kNewBuffer,         // create `out`, set it, launch, blocking read, release `out`
  kNewKernel,         // create the kernel from the built program, set its 3 arguments,
                      // launch, blocking read, release the kernel
};

inline constexpr std::size_t kSmallItems = 1024;         // 4 KB of ints: inline launch
inline constexpr std::size_t kLargeItems = 256 * 1024;   // 1 MB of ints: team size

// A case of category "applications" whose paths run `step` on `items` ints (local size
// 64 for 4 KB, 256 above) through HkCalls and ClCalls.
Case stepCase(std::string name, std::string description, Step step, std::size_t items);

}  // namespace hkbench
