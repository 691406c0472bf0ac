// A kernel's arguments as the work-group function wants them. hkSetKernelArg records the
// raw value (any time, even before the kernel is prepared); bind() turns the recorded
// values into the `void **args` array once the kernel's metadata is known, and again
// only after an argument changed.
//
//   KernelArgs a;  a.reset(num_args);
//   a.record(0, sizeof(cl_mem), &buf);                   // from hkSetKernelArg
//   if (a.dirty()) reason = a.bind(image, resolveBuffer);
//   fn(a.array(), &pc, gx, gy, gz);                      // no __local memory
//   a.placeLocals(arena, slots, scratch);                 // with __local memory
#pragma once

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/function_ref.hpp"
#include "program/program_image.hpp"

namespace hk::kernel {

// Storage for one recorded value, aligned like PoCL aligns copied arguments (up to 128).
class ArgValue {
 public:
  enum class Kind : std::uint8_t { Unset, Value, Local, Svm };
  ArgValue() = default;
  ArgValue(const ArgValue &) = delete;
  ArgValue &operator=(const ArgValue &) = delete;
  ~ArgValue();

  void setValue(std::size_t size, const void *value);  // value may be null (local size)
  void setSvm(const void *ptr);

  Kind kind = Kind::Unset;
  std::size_t size = 0;
  void *data = nullptr;  // Value: the bytes; Svm: the pointer is stored here too
  const void *svm = nullptr;

 private:
  std::size_t capacity_ = 0;
};

// Resolves a cl_mem to its device pointer; returns false if it cannot.
using BufferResolver = FunctionRef<bool(cl_mem, void **)>;

class KernelArgs {
 public:
  void reset(cl_uint num_args);
  cl_uint numArgs() const { return static_cast<cl_uint>(values_.size()); }

  void record(cl_uint index, std::size_t size, const void *value);
  void recordSvm(cl_uint index, const void *ptr);
  // The recorded values of `other` (a cloned kernel starts with its source's arguments).
  void copyFrom(const KernelArgs &other);
  // Makes this a bound copy of `bound` (after its successful bind()): its values, buffer
  // pointers, buffers and __local layout, with array() pointing into this object's own
  // storage. For a launch that runs after its call returned (queue/background.cpp):
  // the kernel's arguments may change meanwhile, the copy does not. Allocates only when a
  // value is larger than any this object held before.
  void copyBound(const KernelArgs &bound);
  bool dirty() const { return dirty_; }
  void markDirty() { dirty_ = true; }

  // Arguments recorded here but not given to PoCL (hkSetKernelArg checked them itself).
  // They must reach PoCL's kernel before PoCL runs it: takePendingForPocl calls
  // give(index, size, value) for each (value null for a __local size) and forgets them.
  void setPendingForPocl(cl_uint index, bool pending);
  bool anyPendingForPocl() const { return pending_count_ != 0; }
  template <typename Give>
  cl_int takePendingForPocl(Give give) {
    for (cl_uint i = 0; pending_count_ && i < pending_.size(); ++i) {
      if (!pending_[i]) continue;
      const ArgValue &v = values_[i];
      if (cl_int err = give(i, v.size, v.kind == ArgValue::Kind::Local ? nullptr : v.data);
          err != CL_SUCCESS)
        return err;
      setPendingForPocl(i, false);
    }
    return CL_SUCCESS;
  }

  // Whether PoCL's clSetKernelArg (lib/CL/clSetKernelArg.c, 3.1 to 7.1) certainly
  // accepts `size` and `value` for an argument described by `arg`: a __local size, a
  // scalar of exactly its type's size, a buffer argument holding NULL or a buffer for
  // which `known_buffer` is true. Anything else (images, samplers, structs, vec3 sizes,
  // unknown objects) PoCL checks itself.
  template <typename KnownBuffer>
  static bool acceptedLikePocl(const pocl::ArgRecord &arg, std::size_t size, const void *value,
                               KnownBuffer known_buffer) {
    if (arg.address_qualifier == CL_KERNEL_ARG_ADDRESS_LOCAL)
      return !value && size > 0;
    if (arg.kind == pocl::ArgKind::Pointer) {
      if (size != sizeof(cl_mem)) return false;
      const cl_mem mem = value ? *static_cast<const cl_mem *>(value) : nullptr;
      return !mem || known_buffer(mem);
    }
    return arg.kind == pocl::ArgKind::Scalar && arg.type_size && size == arg.type_size && value;
  }

  // Builds the argument array. Returns HK_REASON_NONE, or why the kernel must use the
  // queue with these arguments (unset argument, image/sampler/pipe, unresolvable buffer).
  hk_reason bind(const program::KernelImage &image, const BufferResolver &resolve,
                 std::string &detail);

  // The argument array; valid after a successful bind(). For kernels with __local memory
  // use placeLocals() to get a per-thread copy instead.
  void **array() { return args_.data(); }
  std::size_t arrayLength() const { return args_.size(); }

  // The buffers the bound arguments name (non-null cl_mem values), valid after a
  // successful bind(): what a launch that outlives its call must keep alive.
  const std::vector<cl_mem> &buffers() const { return buffers_; }

  bool hasLocals() const { return !local_index_.empty(); }
  std::size_t localBytes() const { return local_total_; }

  // Writes into `scratch` (arrayLength() entries) the argument array for a thread whose
  // local memory starts at `arena` (128-byte aligned, localBytes() long); `slots` holds
  // one pointer per local region (local_count() entries).
  void placeLocals(char *arena, void **slots, void **scratch) const;
  std::size_t localCount() const { return local_index_.size(); }

 private:
  std::vector<ArgValue> values_;
  bool dirty_ = true;
  std::vector<std::uint8_t> pending_;  // per argument: recorded here only
  std::size_t pending_count_ = 0;
  std::vector<void *> args_;         // num_args + num_locals + 1 entries
  std::vector<void *> pointer_slot_; // one per argument: a buffer's device pointer
  std::vector<cl_mem> buffers_;      // the buffers of the bound arguments
  std::vector<std::uint32_t> local_index_;   // args_ index of each __local region
  std::vector<std::size_t> local_offset_;    // its offset in the arena
  std::size_t local_total_ = 0;
};

}  // namespace hk::kernel
