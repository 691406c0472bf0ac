// Kernel arguments. An argument hostkernel can check as PoCL's clSetKernelArg would
// (KernelArgs::acceptedLikePocl: a scalar of its type's size, a __local size, NULL or a
// buffer hostkernel knows) is only recorded: direct launches need nothing else, and the
// value reaches PoCL's kernel only if a launch of it goes to PoCL's queue
// (launch_api.cpp, giveArgsToPocl). Any other argument goes to PoCL first, so that its
// errors are PoCL's own, and is recorded after.
#include <hostkernel/hostkernel.h>

#include <mutex>

#include "api/registry.hpp"
#include "base/next.hpp"
#include "queue/background.hpp"
#include "queue/buffers.hpp"

using namespace hk::api;

namespace {

KernelEntry *entryForSet(cl_kernel kernel) {
  cl_int err = CL_SUCCESS;
  KernelEntry *k = registry().kernelEntry(kernel, &err);
  if (k) {
    k->plans_valid.store(false, std::memory_order_release);
    hk::queue::settleKernel(k);  // a background launch of it uses its arguments
  }
  return k;
}

// The metadata to check `k`'s arguments against; looked for again once the kernel was
// prepared (its program's image exists from then on).
const hk::pocl::KernelRecord *argMeta(KernelEntry &k) {
  const hk::pocl::KernelRecord *meta = k.arg_meta.load(std::memory_order_acquire);
  if (!meta && !k.native && k.image.load(std::memory_order_acquire)) {
    registry().findArgMeta(k);
    meta = k.arg_meta.load(std::memory_order_acquire);
  }
  return meta;
}

bool recordedOnly(KernelEntry &k, cl_uint index, size_t size, const void *value) {
  const hk::pocl::KernelRecord *meta = argMeta(k);
  if (!meta || index >= meta->args.size()) return false;
  return hk::kernel::KernelArgs::acceptedLikePocl(meta->args[index], size, value, [&](cl_mem m) {
    const hk::queue::Buffer *b = hk::queue::findBuffer(m);
    return b && b->context == k.context;
  });
}

}  // namespace

extern "C" cl_int hkSetKernelArg(cl_kernel kernel, cl_uint index, size_t size,
                                 const void *value) {
  if (!kernel) return CL_INVALID_KERNEL;
  if (registry().kernels.find(kernel) == registry().kernels.released())
    return CL_INVALID_KERNEL;
  KernelEntry *k = entryForSet(kernel);
  const bool ours = k && index < k->args.numArgs();
  if (ours && recordedOnly(*k, index, size, value)) {
    std::scoped_lock lock(k->mutex, k->queue_arg_mutex);
    k->args.record(index, size, value);
    k->args.setPendingForPocl(index, true);
    return CL_SUCCESS;
  }
  cl_int err = hk::next().clSetKernelArg(kernel, index, size, value);
  if (err != CL_SUCCESS || !ours) return err;
  std::scoped_lock lock(k->mutex, k->queue_arg_mutex);
  k->args.record(index, size, value);
  k->args.setPendingForPocl(index, false);
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
    std::scoped_lock lock(k->mutex, k->queue_arg_mutex);
    k->args.recordSvm(index, value);
    k->args.setPendingForPocl(index, false);
  }
  return CL_SUCCESS;
}
