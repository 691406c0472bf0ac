// hk::Buffer<T>: device memory that the host reads and writes in place.
// Part of hostkernel's C++ API (hostkernel.hpp includes every part).
#pragma once

#include <hostkernel/error.hpp>
#include <hostkernel/hostkernel.h>
#include <hostkernel/runtime.hpp>

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <utility>

namespace hk {

// An array of n T in device memory that the host reads and writes in place: on PoCL's CPU
// device a buffer's memory is host memory, so a Buffer maps it once, for its lifetime, and
// data() is that memory (no copies, ever). Move-only.
//
//   hk::Buffer<float> x(rt, n);                   // uninitialised
//   hk::Buffer<float> y(rt, {1.0f, 2.0f, 3.0f});  // or copied from values / a span
//   for (float &v : x) v = 0.5f;                  // write, then launch
//   kernel.launch({n}, x, y);
//   rt.finish();                                  // then read
//   float first = y[0];
//
// The rule: touch data() only while no launch that uses the buffer may be running, that is
// after rt.finish() (or before the launch). A launch that hostkernel runs directly has
// finished when launch() returns, but a launch may go to PoCL's queue (non-uniform
// work-groups, for one), which runs asynchronously.
template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>, "hk::Buffer<T>: T must be trivially copyable");

 public:
  // `flags`: device access (CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY).
  Buffer(Runtime &rt, std::size_t n, cl_mem_flags flags = CL_MEM_READ_WRITE) : rt_(&rt), n_(n) {
    if (n == 0) throw Error(CL_INVALID_BUFFER_SIZE, "hk::Buffer: 0 elements");
    if (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_HOST_NO_ACCESS))
      throw Error(CL_INVALID_VALUE, "hk::Buffer: flags must leave host access to the Buffer");
    cl_int err = CL_SUCCESS;
    mem_ = hkCreateBuffer(rt.context(), flags | CL_MEM_ALLOC_HOST_PTR, bytes(), nullptr, &err);
    detail::check(err, "hk::Buffer: hkCreateBuffer");
    host_ = static_cast<T *>(hkEnqueueMapBuffer(rt.queue(), mem_, CL_TRUE,
                                                CL_MAP_READ | CL_MAP_WRITE, 0, bytes(), 0,
                                                nullptr, nullptr, &err));
    if (err != CL_SUCCESS || !host_) {
      hkReleaseMemObject(mem_);
      detail::fail(err != CL_SUCCESS ? err : CL_MAP_FAILURE, "hk::Buffer: mapping");
    }
  }
  Buffer(Runtime &rt, std::span<const T> values, cl_mem_flags flags = CL_MEM_READ_WRITE)
      : Buffer(rt, values.size(), flags) {
    std::memcpy(host_, values.data(), bytes());
  }
  Buffer(Runtime &rt, std::initializer_list<T> values, cl_mem_flags flags = CL_MEM_READ_WRITE)
      : Buffer(rt, std::span<const T>(values.begin(), values.size()), flags) {}

  Buffer(Buffer &&other) noexcept
      : rt_(other.rt_), mem_(std::exchange(other.mem_, nullptr)),
        host_(std::exchange(other.host_, nullptr)), n_(std::exchange(other.n_, 0)) {}
  Buffer &operator=(Buffer &&other) noexcept {
    if (this != &other) {
      release();
      rt_ = other.rt_;
      mem_ = std::exchange(other.mem_, nullptr);
      host_ = std::exchange(other.host_, nullptr);
      n_ = std::exchange(other.n_, 0);
    }
    return *this;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { release(); }

  T *data() { return host_; }
  const T *data() const { return host_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  T &operator[](std::size_t i) { return host_[i]; }
  const T &operator[](std::size_t i) const { return host_[i]; }
  T *begin() { return host_; }
  T *end() { return host_ + n_; }
  const T *begin() const { return host_; }
  const T *end() const { return host_ + n_; }
  std::span<T> span() { return {host_, n_}; }
  std::span<const T> span() const { return {host_, n_}; }
  // The cl_mem, for the C API (hk*/cl* calls see the same memory).
  cl_mem get() const { return mem_; }

 private:
  void release() {
    if (!mem_) return;
    hkEnqueueUnmapMemObject(rt_->queue(), mem_, host_, 0, nullptr, nullptr);
    hkReleaseMemObject(mem_);
    mem_ = nullptr;
    host_ = nullptr;
  }

  Runtime *rt_;
  cl_mem mem_ = nullptr;
  T *host_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace hk
