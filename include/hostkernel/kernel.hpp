// hk::Kernel: a kernel of a program, launched with typed, checked arguments, and
// hk::KernelVariants, what hostkernel knows about its variants.
// Part of hostkernel's C++ API (hostkernel.hpp includes every part).
#pragma once

#include <hostkernel/buffer.hpp>
#include <hostkernel/error.hpp>
#include <hostkernel/hostkernel.h>
#include <hostkernel/local.hpp>
#include <hostkernel/ndrange.hpp>
#include <hostkernel/program.hpp>
#include <hostkernel/runtime.hpp>

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hk {

// What hostkernel knows about a kernel's variants (Kernel::variants(); each field is the
// value of the HK_KERNEL_VARIANT_* query of the same name, see hostkernel_ext.h).
//
//   hk::KernelVariants v = scale.variants();
//   if (v.native && v.unchecked_groups == 0) ...;   // no full group ran unchecked yet
struct KernelVariants {
  cl_bool native = CL_FALSE;
  cl_bool unchecked_built = CL_FALSE;
  cl_bool unchecked_used = CL_FALSE;
  cl_ulong checked_groups = 0;
  cl_ulong unchecked_groups = 0;
  std::size_t specialized_local_size[3] = {0, 0, 0};
  cl_ulong specialized_launches = 0;
  cl_bool group_free = CL_FALSE;
  std::size_t planned_local_size[3] = {0, 0, 0};
};

// A kernel of a program, launched with its arguments in order: hk::Buffer<T> (or a raw
// cl_mem) for global and constant pointers, hk::Local<T>(n) for local pointers, and values
// (scalars, vectors such as cl_float4, structs) by value. Argument kinds are checked
// against the kernel's signature before anything is set.
//
//   hk::Kernel axpy(program, "axpy");   // kernel void axpy(float a, global const float *x,
//                                       //                  global float *y)
//   axpy.launch({n}, 2.5f, x, y);                        // work-group size: hostkernel's pick
//   axpy.launch({n}, {64}, 2.5f, x, y);                  // work-group of 64
//   axpy.launch(hk::NDRange{n - 8}.offset({8}), 2.5f, x, y);
//   hk_launch_counts c = axpy.counts();                  // c.by_path[HK_PATH_INLINE] ...
//
// Not thread-safe: launch() sets the kernel's arguments; use one Kernel per thread.
class Kernel {
 public:
  Kernel(const Program &program, std::string_view name) : rt_(&program.runtime()), name_(name) {
    cl_int err = CL_SUCCESS;
    kernel_ = hkCreateKernel(program.get(), name_.c_str(), &err);
    if (err != CL_SUCCESS) detail::fail(err, "hk::Kernel: " + name_);
    cl_uint n = 0;
    clGetKernelInfo(kernel_, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr);
    // A native kernel's argument 0 is the hidden ndrange: hostkernel sets it.
    cl_bool native = CL_FALSE;
    if (hkGetKernelVariantInfo(kernel_, HK_KERNEL_VARIANT_NATIVE, sizeof native, &native,
                               nullptr) == CL_SUCCESS &&
        native)
      hidden_ = 1;
    args_.resize(n - hidden_);
    for (cl_uint i = hidden_; i < n; ++i) {
      ArgInfo &a = args_[i - hidden_];
      char text[256] = {};
      if (clGetKernelArgInfo(kernel_, i, CL_KERNEL_ARG_NAME, sizeof text - 1, text, nullptr) ==
          CL_SUCCESS)
        a.name = text;
      std::memset(text, 0, sizeof text);
      if (clGetKernelArgInfo(kernel_, i, CL_KERNEL_ARG_TYPE_NAME, sizeof text - 1, text,
                             nullptr) == CL_SUCCESS)
        a.type = text;
      cl_kernel_arg_address_qualifier q = 0;
      if (clGetKernelArgInfo(kernel_, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q,
                             nullptr) == CL_SUCCESS)
        a.address = q;
    }
  }
  Kernel(Kernel &&other) noexcept
      : rt_(other.rt_), kernel_(std::exchange(other.kernel_, nullptr)),
        name_(std::move(other.name_)), args_(std::move(other.args_)), hidden_(other.hidden_) {}
  Kernel &operator=(Kernel &&other) noexcept {
    std::swap(rt_, other.rt_);
    std::swap(kernel_, other.kernel_);
    std::swap(name_, other.name_);
    std::swap(args_, other.args_);
    std::swap(hidden_, other.hidden_);
    return *this;
  }
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  ~Kernel() {
    if (kernel_) hkReleaseKernel(kernel_);
  }

  // Sets the arguments and launches over `global`; the work-group size is hostkernel's
  // (PoCL's) choice.
  template <class... Args>
  void launch(const NDRange &global, Args &&...args) {
    launchWith(global, nullptr, std::forward<Args>(args)...);
  }
  // ... with work-groups of `local` (as many dimensions as `global`, no offset).
  template <class... Args>
  void launch(const NDRange &global, const NDRange &local, Args &&...args) {
    launchWith(global, &local, std::forward<Args>(args)...);
  }

  // Launches so far by path (inline, team, PoCL's queue) and queue launches by reason,
  // asked count by count (hkGetKernelLaunchInfo), so that the struct is this header's.
  hk_launch_counts counts() const {
    hk_launch_counts c{};
    for (int p = HK_PATH_INLINE; p <= HK_PATH_QUEUE; ++p)
      launchQuery(HK_KERNEL_LAUNCHES_ON_PATH(p), c.by_path[p]);
    for (int r = HK_REASON_NONE + 1; r < HK_REASON_COUNT; ++r)
      launchQuery(HK_KERNEL_LAUNCHES_FOR_REASON(r), c.by_reason[r]);
    return c;
  }
  // What hostkernel knows about the kernel's variants: work-groups run by each variant
  // for native kernels (hk::Program::native), its specialized and planned local sizes.
  KernelVariants variants() const {
    KernelVariants v;
    variantQuery(HK_KERNEL_VARIANT_NATIVE, v.native);
    variantQuery(HK_KERNEL_VARIANT_UNCHECKED_BUILT, v.unchecked_built);
    variantQuery(HK_KERNEL_VARIANT_UNCHECKED_USED, v.unchecked_used);
    variantQuery(HK_KERNEL_VARIANT_CHECKED_GROUPS, v.checked_groups);
    variantQuery(HK_KERNEL_VARIANT_UNCHECKED_GROUPS, v.unchecked_groups);
    variantQuery(HK_KERNEL_VARIANT_SPECIALIZED_LOCAL_SIZE, v.specialized_local_size);
    variantQuery(HK_KERNEL_VARIANT_SPECIALIZED_LAUNCHES, v.specialized_launches);
    variantQuery(HK_KERNEL_VARIANT_GROUP_FREE, v.group_free);
    variantQuery(HK_KERNEL_VARIANT_PLANNED_LOCAL_SIZE, v.planned_local_size);
    return v;
  }
  const std::string &name() const { return name_; }
  // Arguments launch() takes (a native kernel's hidden ndrange is not one of them).
  std::size_t numArgs() const { return args_.size(); }
  bool isNative() const { return hidden_ != 0; }
  cl_kernel get() const { return kernel_; }

 private:
  struct ArgInfo {
    std::string name, type;               // empty when the program has no argument info
    cl_kernel_arg_address_qualifier address = 0;  // 0: unknown
  };

  template <class V>
  void variantQuery(hk_kernel_variant_info name, V &value) const {
    detail::check(hkGetKernelVariantInfo(kernel_, name, sizeof value, &value, nullptr),
                  name_ + ": hkGetKernelVariantInfo");
  }
  void launchQuery(hk_kernel_launch_info name, cl_ulong &count) const {
    detail::check(hkGetKernelLaunchInfo(kernel_, name, sizeof count, &count, nullptr),
                  name_ + ": hkGetKernelLaunchInfo");
  }

  template <class X> struct IsBuffer : std::false_type {};
  template <class X> struct IsBuffer<Buffer<X>> : std::true_type {};
  template <class X> struct IsLocal : std::false_type {};
  template <class X> struct IsLocal<Local<X>> : std::true_type {};

  // "axpy: argument 1 (x)"
  std::string where(cl_uint i) const {
    std::string s = name_ + ": argument " + std::to_string(i);
    return args_[i].name.empty() ? s : s + " (" + args_[i].name + ")";
  }
  std::string expects(cl_uint i) const {
    const ArgInfo &a = args_[i];
    const char *space = a.address == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? "global "
                        : a.address == CL_KERNEL_ARG_ADDRESS_CONSTANT ? "constant "
                        : a.address == CL_KERNEL_ARG_ADDRESS_LOCAL    ? "local "
                                                                      : "";
    return a.type.empty() ? std::string("") : std::string("the kernel expects ") + space + a.type;
  }

  // Kind check against the signature, then hkSetKernelArg.
  template <class A>
  void setArg(cl_uint i, const A &value) {
    using T = std::remove_cv_t<std::remove_reference_t<A>>;
    static_assert(!std::is_same_v<T, NDRange>,
                  "hk::Kernel::launch: an NDRange among the kernel arguments (the work-group "
                  "size goes right after the grid)");
    static_assert(IsBuffer<T>::value || IsLocal<T>::value || std::is_same_v<T, cl_mem> ||
                      !std::is_pointer_v<T>,
                  "hk::Kernel::launch: pass buffers as hk::Buffer<T> (or a cl_mem), not pointers");
    static_assert(IsBuffer<T>::value || IsLocal<T>::value || std::is_trivially_copyable_v<T>,
                  "hk::Kernel::launch: arguments by value must be trivially copyable");
    const cl_kernel_arg_address_qualifier q = args_[i].address;
    const bool memory = q == CL_KERNEL_ARG_ADDRESS_GLOBAL || q == CL_KERNEL_ARG_ADDRESS_CONSTANT;
    cl_int err = CL_SUCCESS;
    std::string passed;
    if constexpr (IsBuffer<T>::value || std::is_same_v<T, cl_mem>) {
      cl_mem mem;
      if constexpr (IsBuffer<T>::value) {
        mem = value.get();
        passed = "a buffer of " + std::to_string(value.bytes()) + " bytes";
      } else {
        mem = value;
        passed = "a cl_mem";
      }
      if (q != 0 && !memory)
        detail::fail(CL_INVALID_ARG_VALUE, where(i), "(passed " + passed + "; " + expects(i) + ")");
      err = hkSetKernelArg(kernel_, i + hidden_, sizeof(cl_mem), &mem);
    } else if constexpr (IsLocal<T>::value) {
      passed = "hk::Local of " + std::to_string(value.bytes()) + " bytes";
      if (q != 0 && q != CL_KERNEL_ARG_ADDRESS_LOCAL)
        detail::fail(CL_INVALID_ARG_VALUE, where(i), "(passed " + passed + "; " + expects(i) + ")");
      err = hkSetKernelArg(kernel_, i + hidden_, value.bytes(), nullptr);
    } else {
      passed = "a value of " + std::to_string(sizeof(T)) + " bytes";
      if (q != 0 && q != CL_KERNEL_ARG_ADDRESS_PRIVATE)
        detail::fail(CL_INVALID_ARG_VALUE, where(i), "(passed " + passed + "; " + expects(i) + ")");
      err = hkSetKernelArg(kernel_, i + hidden_, sizeof(T), &value);
    }
    if (err != CL_SUCCESS) {
      std::string e = expects(i);
      detail::fail(err, where(i), "(passed " + passed + (e.empty() ? "" : "; " + e) + ")");
    }
  }

  template <class... Args>
  void launchWith(const NDRange &global, const NDRange *local, Args &&...args) {
    if (sizeof...(Args) != args_.size())
      throw Error(CL_INVALID_KERNEL_ARGS, name_ + ": " + std::to_string(sizeof...(Args)) +
                                              " arguments given, the kernel takes " +
                                              std::to_string(args_.size()));
    if (local && (local->dims() != global.dims() || local->offsets()))
      throw Error(CL_INVALID_WORK_DIMENSION,
                  name_ + ": work-group " + local->str() + " for a grid of " + global.str() +
                      " (same number of dimensions, no offset)");
    cl_uint i = 0;
    (setArg(i++, args), ...);
    cl_int err = hkEnqueueNDRangeKernel(rt_->queue(), kernel_, global.dims(), global.offsets(),
                                        global.sizes(), local ? local->sizes() : nullptr, 0,
                                        nullptr, nullptr);
    if (err != CL_SUCCESS)
      detail::fail(err, name_ + ": launch of " + global.str() +
                            (local ? " in work-groups of " + local->str() : ""));
  }

  Runtime *rt_;
  cl_kernel kernel_ = nullptr;
  std::string name_;
  std::vector<ArgInfo> args_;  // the arguments launch() takes
  cl_uint hidden_ = 0;         // 1 for native kernels: launch() argument i is kernel argument i + 1
};

}  // namespace hk
