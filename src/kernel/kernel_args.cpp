#include "kernel/kernel_args.hpp"

#include <cstdlib>
#include <cstring>

#include "pocl/abi.hpp"

namespace hk::kernel {
namespace {

std::size_t alignUp(std::size_t v, std::size_t a) { return (v + a - 1) & ~(a - 1); }

}  // namespace

ArgValue::~ArgValue() { std::free(data); }

void ArgValue::setValue(std::size_t n, const void *value) {
  size = n;
  svm = nullptr;
  if (!value) {  // a __local argument: only its size
    kind = Kind::Local;
    return;
  }
  kind = Kind::Value;
  if (n > capacity_) {
    std::free(data);
    capacity_ = alignUp(n, pocl::kLocalAlignment);
    data = std::aligned_alloc(pocl::kLocalAlignment, capacity_);
  }
  std::memcpy(data, value, n);
}

void ArgValue::setSvm(const void *ptr) {
  kind = Kind::Svm;
  size = sizeof(void *);
  svm = ptr;
}

void KernelArgs::reset(cl_uint num_args) {
  values_ = std::vector<ArgValue>(num_args);
  pending_.assign(num_args, 0);
  pending_count_ = 0;
  dirty_ = true;
}

void KernelArgs::setPendingForPocl(cl_uint index, bool pending) {
  if (index >= pending_.size() || pending_[index] == pending) return;
  pending_[index] = pending;
  pending ? ++pending_count_ : --pending_count_;
}

void KernelArgs::record(cl_uint index, std::size_t size, const void *value) {
  values_[index].setValue(size, value);
  dirty_ = true;
}

void KernelArgs::recordSvm(cl_uint index, const void *ptr) {
  values_[index].setSvm(ptr);
  dirty_ = true;
}

void KernelArgs::copyFrom(const KernelArgs &other) {
  reset(other.numArgs());
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const ArgValue &v = other.values_[i];
    if (v.kind == ArgValue::Kind::Value) values_[i].setValue(v.size, v.data);
    else if (v.kind == ArgValue::Kind::Local) values_[i].setValue(v.size, nullptr);
    else if (v.kind == ArgValue::Kind::Svm) values_[i].setSvm(v.svm);
  }
}

void KernelArgs::copyBound(const KernelArgs &bound) {
  const std::size_t n = bound.values_.size();
  if (values_.size() != n) values_ = std::vector<ArgValue>(n);
  args_ = bound.args_;
  pointer_slot_ = bound.pointer_slot_;
  buffers_ = bound.buffers_;
  local_index_ = bound.local_index_;
  local_offset_ = bound.local_offset_;
  local_total_ = bound.local_total_;
  for (std::size_t i = 0; i < n; ++i) {
    const ArgValue &v = bound.values_[i];
    if (v.kind == ArgValue::Kind::Value) values_[i].setValue(v.size, v.data);
    else if (v.kind == ArgValue::Kind::Local) values_[i].setValue(v.size, nullptr);
    else if (v.kind == ArgValue::Kind::Svm) values_[i].setSvm(v.svm);
    else values_[i].kind = ArgValue::Kind::Unset;
    // bind() points an argument at its buffer's pointer slot or at its value's bytes.
    if (i >= args_.size() || !args_[i]) continue;
    if (args_[i] == &bound.pointer_slot_[i]) args_[i] = &pointer_slot_[i];
    else if (args_[i] == v.data) args_[i] = values_[i].data;
  }
  pending_.assign(n, 0);
  pending_count_ = 0;
  dirty_ = bound.dirty_;
}

hk_reason KernelArgs::bind(const program::KernelImage &image, const BufferResolver &resolve,
                           std::string &detail) {
  const pocl::KernelRecord &meta = *image.meta;
  const std::size_t n = values_.size();
  if (meta.num_args != n || meta.args.size() != n) {
    detail = "argument count differs from the binary's";
    return HK_REASON_PREPARE_FAILED;
  }
  args_.assign(n + meta.num_locals + 1, nullptr);
  pointer_slot_.assign(n, nullptr);
  buffers_.clear();
  local_index_.clear();
  local_offset_.clear();
  local_total_ = 0;
  auto addLocal = [&](std::size_t index, std::size_t bytes) {
    local_index_.push_back(static_cast<std::uint32_t>(index));
    local_offset_.push_back(local_total_);
    local_total_ = alignUp(local_total_ + bytes, pocl::kLocalAlignment);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const ArgValue &v = values_[i];
    const pocl::ArgRecord &a = meta.args[i];
    if (v.kind == ArgValue::Kind::Unset) {
      detail = "argument " + std::to_string(i) + " is not set";
      return HK_REASON_ARG_UNSET;
    }
    if (a.kind == pocl::ArgKind::Image || a.kind == pocl::ArgKind::Sampler ||
        a.type_name.rfind("pipe", 0) == 0) {
      detail = "argument " + std::to_string(i) + " is an image, sampler or pipe";
      return HK_REASON_ARG_KIND;
    }
    if (a.address_qualifier == CL_KERNEL_ARG_ADDRESS_LOCAL) {
      if (v.kind != ArgValue::Kind::Local) {
        detail = "__local argument " + std::to_string(i) + " has a value";
        return HK_REASON_ARG_UNSET;
      }
      addLocal(i, v.size);
    } else if (a.kind == pocl::ArgKind::Pointer) {
      if (v.kind == ArgValue::Kind::Svm) {
        pointer_slot_[i] = const_cast<void *>(v.svm);
      } else if (v.kind == ArgValue::Kind::Local) {
        pointer_slot_[i] = nullptr;  // clSetKernelArg(k, i, sizeof(cl_mem), NULL)
      } else if (v.kind == ArgValue::Kind::Value && v.size == sizeof(cl_mem)) {
        cl_mem mem = *static_cast<const cl_mem *>(v.data);
        if (mem && !resolve(mem, &pointer_slot_[i])) {
          detail = "buffer of argument " + std::to_string(i) + " could not be resolved";
          return HK_REASON_PREPARE_FAILED;
        }
        if (mem) buffers_.push_back(mem);
      } else {
        detail = "pointer argument " + std::to_string(i) + " holds no buffer";
        return HK_REASON_ARG_UNSET;
      }
      args_[i] = &pointer_slot_[i];
    } else {
      if (v.kind != ArgValue::Kind::Value) {
        detail = "argument " + std::to_string(i) + " has no value";
        return HK_REASON_ARG_UNSET;
      }
      args_[i] = v.data;
    }
  }
  for (std::size_t j = 0; j < meta.num_locals; ++j) addLocal(n + j, meta.local_sizes[j]);
  dirty_ = false;
  return HK_REASON_NONE;
}

void KernelArgs::placeLocals(char *arena, void **slots, void **scratch) const {
  std::memcpy(scratch, args_.data(), args_.size() * sizeof(void *));
  for (std::size_t r = 0; r < local_index_.size(); ++r) {
    slots[r] = arena + local_offset_[r];
    scratch[local_index_[r]] = &slots[r];
  }
}

}  // namespace hk::kernel
