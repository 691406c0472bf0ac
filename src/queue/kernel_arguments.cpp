#include "queue/kernel_arguments.hpp"

#include <mutex>

#include "base/next.hpp"
#include "queue/background.hpp"
#include "queue/buffers.hpp"
#include "queue/registry.hpp"

namespace hk::queue {
namespace {

KernelEntry *entryForSet(cl_kernel kernel) {
  cl_int err = CL_SUCCESS;
  KernelEntry *k = registry().kernelEntry(kernel, &err);
  // A launch of it in the background has its own copy of the arguments: nothing to wait
  // for.
  if (k) k->plans_valid.store(false, std::memory_order_release);
  return k;
}

// The metadata to check `k`'s arguments against; looked for again once the kernel was
// prepared (its program's image exists from then on).
const pocl::KernelRecord *argMeta(KernelEntry &k) {
  const pocl::KernelRecord *meta = k.arg_meta.load(std::memory_order_acquire);
  if (!meta && !k.native && k.image.load(std::memory_order_acquire)) {
    registry().findArgMeta(k);
    meta = k.arg_meta.load(std::memory_order_acquire);
  }
  return meta;
}

bool recordedOnly(KernelEntry &k, cl_uint index, size_t size, const void *value) {
  const pocl::KernelRecord *meta = argMeta(k);
  if (!meta || index >= meta->args.size()) return false;
  return kernel::KernelArgs::acceptedLikePocl(meta->args[index], size, value, [&](cl_mem m) {
    const Buffer *b = findBuffer(m);
    return b && b->context == k.context;
  });
}

}  // namespace

cl_int setKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value) {
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
  cl_int err = next().clSetKernelArg(kernel, index, size, value);
  if (err != CL_SUCCESS || !ours) return err;
  std::scoped_lock lock(k->mutex, k->queue_arg_mutex);
  k->args.record(index, size, value);
  k->args.setPendingForPocl(index, false);
  return CL_SUCCESS;
}

cl_int setKernelArgSVMPointer(cl_kernel kernel, cl_uint index, const void *value) {
  if (!kernel) return CL_INVALID_KERNEL;
  if (registry().kernels.find(kernel) == registry().kernels.released())
    return CL_INVALID_KERNEL;
  cl_int err = next().clSetKernelArgSVMPointer(kernel, index, value);
  if (err != CL_SUCCESS) return err;
  if (KernelEntry *k = entryForSet(kernel); k && index < k->args.numArgs()) {
    std::scoped_lock lock(k->mutex, k->queue_arg_mutex);
    k->args.recordSvm(index, value);
    k->args.setPendingForPocl(index, false);
  }
  return CL_SUCCESS;
}

}  // namespace hk::queue
