// Kernel arguments: PoCL checks and stores each value first (so the queue path keeps
// working and errors are PoCL's own), then hostkernel records it for direct launches.
#include <hostkernel/hostkernel.h>

#include "api/registry.hpp"
#include "base/next.hpp"

using namespace hk::api;

namespace {

KernelEntry *entryForSet(cl_kernel kernel) {
  cl_int err = CL_SUCCESS;
  KernelEntry *k = registry().kernelEntry(kernel, &err);
  if (k) k->fast.store(false, std::memory_order_release);
  return k;
}

}  // namespace

extern "C" cl_int hkSetKernelArg(cl_kernel kernel, cl_uint index, size_t size,
                                 const void *value) {
  if (!kernel) return CL_INVALID_KERNEL;
  if (registry().kernels.find(kernel) == registry().kernels.released())
    return CL_INVALID_KERNEL;
  cl_int err = hk::next().clSetKernelArg(kernel, index, size, value);
  if (err != CL_SUCCESS) return err;
  if (KernelEntry *k = entryForSet(kernel); k && index < k->args.numArgs()) {
    std::lock_guard lock(k->mutex);
    k->args.record(index, size, value);
  }
  return CL_SUCCESS;
}

extern "C" cl_int hkSetKernelArgSVMPointer(cl_kernel kernel, cl_uint index,
                                           const void *value) {
  if (!kernel) return CL_INVALID_KERNEL;
  if (registry().kernels.find(kernel) == registry().kernels.released())
    return CL_INVALID_KERNEL;
  cl_int err = hk::next().clSetKernelArgSVMPointer(kernel, index, value);
  if (err != CL_SUCCESS) return err;
  if (KernelEntry *k = entryForSet(kernel); k && index < k->args.numArgs()) {
    std::lock_guard lock(k->mutex);
    k->args.recordSvm(index, value);
  }
  return CL_SUCCESS;
}
