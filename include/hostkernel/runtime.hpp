// hk::Runtime: PoCL's CPU device, a context and an in-order queue.
// Part of hostkernel's C++ API (hostkernel.hpp includes every part).
#pragma once

#include <hostkernel/error.hpp>
#include <hostkernel/hostkernel.h>

namespace hk {

// PoCL's CPU device with a context and an in-order queue: where programs are built,
// buffers live and kernels run. Runtime::get() is the process's default instance.
//
//   hk::Runtime &rt = hk::Runtime::get();   // made on first use, lives until exit
//   hk::Runtime own;                         // or one of your own (its own queue)
//   ... launches ...
//   rt.finish();                             // every launch and transfer done
class Runtime {
 public:
  // Finds PoCL's CPU device (hkGetPoclDevice); throws CL_DEVICE_NOT_FOUND without one.
  Runtime() : Runtime(findPoclCpu()) {}
  // A context and queue on `device`.
  explicit Runtime(cl_device_id device) : device_(device) {
    cl_int err = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    detail::check(err, "hk::Runtime: clCreateContext");
    queue_ = hkCreateCommandQueueWithProperties(context_, device_, nullptr, &err);
    if (err != CL_SUCCESS) {
      hkReleaseContext(context_);
      detail::fail(err, "hk::Runtime: creating the queue");
    }
  }
  ~Runtime() {
    if (queue_) {
      hkFinish(queue_);
      hkReleaseCommandQueue(queue_);
    }
    if (context_) hkReleaseContext(context_);
  }
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  // The default instance, made on first use and never destroyed (so that objects in
  // static storage may still use it at exit).
  static Runtime &get() {
    static Runtime *runtime = new Runtime();
    return *runtime;
  }

  // Waits until every launch and transfer on the queue is done (free when hostkernel ran
  // them directly and PoCL holds no work).
  void finish() const { detail::check(hkFinish(queue_), "hk::Runtime::finish"); }

  cl_device_id device() const { return device_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }

 private:
  static cl_device_id findPoclCpu() {
    cl_device_id device = nullptr;
    if (hkGetPoclDevice(nullptr, &device) == CL_SUCCESS) return device;
    throw Error(CL_DEVICE_NOT_FOUND,
                "hk::Runtime: no PoCL CPU device (is pocl-opencl-icd installed?)");
  }

  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

}  // namespace hk
