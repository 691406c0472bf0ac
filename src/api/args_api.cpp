// The kernel argument entry points, translated to the queue layer
// (queue/kernel_arguments.hpp).
#include <hostkernel/hostkernel.h>

#include "queue/kernel_arguments.hpp"

extern "C" cl_int hkSetKernelArg(cl_kernel kernel, cl_uint index, size_t size,
                                 const void *value) {
  return hk::queue::setKernelArg(kernel, index, size, value);
}

extern "C" cl_int hkSetKernelArgSVMPointer(cl_kernel kernel, cl_uint index,
                                           const void *value) {
  return hk::queue::setKernelArgSVMPointer(kernel, index, value);
}
