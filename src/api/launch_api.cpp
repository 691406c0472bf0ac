// The launch entry points, translated to the queue layer (queue/launch_command.hpp).
#include <hostkernel/hostkernel.h>

#include "queue/launch_command.hpp"

extern "C" cl_int hkEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel,
                                         cl_uint dim, const size_t *offset,
                                         const size_t *global, const size_t *local,
                                         cl_uint nwait, const cl_event *waits,
                                         cl_event *event) {
  return hk::queue::enqueueNDRangeKernel(queue, kernel, dim, offset, global, local, nwait,
                                         waits, event);
}

extern "C" cl_int hkEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint nwait,
                                const cl_event *waits, cl_event *event) {
  static const size_t one = 1;
  return hk::queue::enqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, nwait, waits,
                                         event);
}
