// hk::Local<T>: a kernel's __local argument.
// Part of hostkernel's C++ API (hostkernel.hpp includes every part).
#pragma once

#include <cstddef>

namespace hk {

// A __local argument of n elements of T (the kernel's pointer gets n * sizeof(T) bytes of
// local memory per work-group).
//
//   // kernel void reduce(global const float *in, global float *out, local float *tmp)
//   reduce.launch({4096}, {64}, in, out, hk::Local<float>(64));
template <class T>
struct Local {
  explicit Local(std::size_t n) : count(n) {}
  std::size_t count;
  std::size_t bytes() const { return count * sizeof(T); }
};

}  // namespace hk
