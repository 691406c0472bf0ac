// Kernel arguments. An argument hostkernel can check as PoCL's clSetKernelArg would
// (KernelArgs::acceptedLikePocl: a scalar of its type's size, a __local size, NULL or a
// buffer hostkernel knows) is only recorded: direct launches need nothing else, and the
// value reaches PoCL's kernel only if a launch of it goes to PoCL's queue
// (launch_command.cpp, giveArgsToPocl). Any other argument goes to PoCL first, so that
// its errors are PoCL's own, and is recorded after. Setting an argument first settles a
// background launch of the kernel (queue/background.hpp), which reads the arguments.
// The parameters are those of the OpenCL entry points of the same names.
//
//   cl_int err = queue::setKernelArg(kernel, 0, sizeof(cl_mem), &buffer);
#pragma once

#include <CL/cl.h>

namespace hk::queue {

cl_int setKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value);
cl_int setKernelArgSVMPointer(cl_kernel kernel, cl_uint index, const void *value);

}  // namespace hk::queue
