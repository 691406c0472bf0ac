// A launch as a command of its queue. A launch whose kernel, queue and geometry are as
// they were at the kernel's previous direct launch takes the fast path: two lock-free
// lookups (g_kernels, g_queues), one TLS access, launch::execute. Everything else (first
// launch, changed arguments or geometry, wait lists, pending PoCL work, a launch running
// in the background, kernels whose launches take long) takes the slow path, which settles
// a background launch it must follow (queue/background.hpp), applies the queue's
// ordering rule (queue/ordering.hpp), asks launch::decide (launch/launcher.hpp) where the
// launch runs, and carries that out: directly, in the background, or through PoCL's
// queue, with the kernel's recorded arguments given to PoCL first. The parameters are
// those of clEnqueueNDRangeKernel; api/ only translates the entry point to this.
//
//   cl_int err = queue::enqueueNDRangeKernel(q, k, 1, nullptr, &n, nullptr, 0, nullptr,
//                                            nullptr);
#pragma once

#include <CL/cl.h>

namespace hk::queue {

cl_int enqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dim,
                            const size_t *offset, const size_t *global, const size_t *local,
                            cl_uint nwait, const cl_event *waits, cl_event *event);

}  // namespace hk::queue
