// Creation and release of OpenCL objects. hostkernel's state for an object is dropped
// when the object dies, and any state left at an address is dropped when a new object is
// created there, so a new object that reuses a released handle's address never sees
// stale state.
#include <hostkernel/hostkernel.h>

#include "base/log.hpp"
#include "base/next.hpp"
#include "program/program_cache.hpp"
#include "program/program_image.hpp"
#include "queue/background.hpp"
#include "queue/buffers.hpp"
#include "queue/events.hpp"
#include "queue/queue.hpp"
#include "queue/registry.hpp"

using hk::queue::KernelEntry;
using hk::queue::Registry;
using hk::queue::registry;
using hk::next;

namespace {

template <typename Info, typename Handle, typename Fn>
cl_uint referenceCount(Fn info, Handle h, Info what) {
  cl_uint n = 0;
  return info(h, what, sizeof n, &n, nullptr) == CL_SUCCESS ? n : 0;
}

// A kernel made through hostkernel gets its entry now (launch counts start at zero),
// replacing any state left at its address.
void track(cl_kernel k) {
  registry().dropKernel(k, false);
  cl_int err = CL_SUCCESS;
  if (KernelEntry *e = registry().kernelEntry(k, &err))
    e->app_references.store(1, std::memory_order_relaxed);
}

}  // namespace

extern "C" {

cl_command_queue hkCreateCommandQueue(cl_context c, cl_device_id d,
                                      cl_command_queue_properties p, cl_int *err) {
  cl_command_queue q = next().clCreateCommandQueue(c, d, p, err);
  if (q) hk::queue::created(q);
  return q;
}

cl_command_queue hkCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                    const cl_queue_properties *p,
                                                    cl_int *err) {
  cl_command_queue q = next().clCreateCommandQueueWithProperties(c, d, p, err);
  if (q) hk::queue::created(q);
  return q;
}

cl_program hkCreateProgramWithSource(cl_context c, cl_uint n, const char **src,
                                     const size_t *len, cl_int *err) {
  cl_program p = next().clCreateProgramWithSource(c, n, src, len, err);
  if (p) registry().programCreated(p);
  return p;
}

cl_program hkCreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *devs,
                                     const size_t *lens, const unsigned char **bins,
                                     cl_int *status, cl_int *err) {
  for (cl_uint i = 0; lens && bins && i < n; ++i) {
    std::string why;
    if (!hk::program::binaryAcceptable(bins[i], lens[i], why)) {
      hk::logf(hk::LogLevel::Warn, "binary %u refused: %s", i, why.c_str());
      if (status) status[i] = CL_INVALID_BINARY;
      if (err) *err = CL_INVALID_BINARY;
      return nullptr;
    }
  }
  cl_program p = next().clCreateProgramWithBinary(c, n, devs, lens, bins, status, err);
  if (p) registry().programCreated(p);
  for (cl_uint i = 0; p && devs && lens && bins && i < n; ++i)  // the program cache's key
    hk::program::noteProgramBinaryInput(p, devs[i], {bins[i], bins[i] ? lens[i] : 0});
  return p;
}

cl_program hkCreateProgramWithIL(cl_context c, const void *il, size_t len, cl_int *err) {
  cl_program p = next().clCreateProgramWithIL(c, il, len, err);
  if (p) registry().programCreated(p);
  return p;
}

cl_int hkBuildProgram(cl_program p, cl_uint n, const cl_device_id *devs, const char *opts,
                      void(CL_CALLBACK *notify)(cl_program, void *), void *user) {
  registry().dropProgram(p);  // a rebuilt program has new code
  if (auto native = registry().nativeProgram(p)) {  // the checked variant
    const std::string checked = native->buildOptions(opts);
    return next().clBuildProgram(p, n, devs, checked.c_str(), notify, user);
  }
  return next().clBuildProgram(p, n, devs, opts, notify, user);
}

cl_int hkCompileProgram(cl_program p, cl_uint n, const cl_device_id *devs, const char *opts,
                        cl_uint nh, const cl_program *hs, const char **names,
                        void(CL_CALLBACK *notify)(cl_program, void *), void *user) {
  registry().dropProgram(p);
  return next().clCompileProgram(p, n, devs, opts, nh, hs, names, notify, user);
}

cl_program hkLinkProgram(cl_context c, cl_uint n, const cl_device_id *devs, const char *opts,
                         cl_uint np, const cl_program *ps,
                         void(CL_CALLBACK *notify)(cl_program, void *), void *user,
                         cl_int *err) {
  cl_program p = next().clLinkProgram(c, n, devs, opts, np, ps, notify, user, err);
  if (p) registry().programCreated(p);
  return p;
}

cl_kernel hkCreateKernel(cl_program p, const char *name, cl_int *err) {
  cl_kernel k = next().clCreateKernel(p, name, err);
  if (k) track(k);
  return k;
}

cl_int hkCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *ks, cl_uint *ret) {
  cl_uint made = 0;
  cl_int err = next().clCreateKernelsInProgram(p, n, ks, &made);
  if (err == CL_SUCCESS && ks)
    for (cl_uint i = 0; i < made && i < n; ++i) track(ks[i]);
  if (ret) *ret = made;
  return err;
}

cl_kernel hkCloneKernel(cl_kernel source, cl_int *err) {
  // PoCL copies its own arguments: first it gets those hostkernel only recorded.
  if (KernelEntry *from = registry().kernels.find(source); hk::isEntry(from)) {
    std::lock_guard lock(from->queue_arg_mutex);
    from->args.takePendingForPocl([&](cl_uint i, size_t size, const void *value) {
      return next().clSetKernelArg(source, i, size, value);
    });
  }
  cl_kernel k = next().clCloneKernel(source, err);
  if (!k) return k;
  track(k);
  // The clone has the source's arguments: PoCL copied them, hostkernel copies its record.
  cl_int e = CL_SUCCESS;
  KernelEntry *from = registry().kernels.find(source);
  if (from && from != registry().kernels.released())
    if (KernelEntry *to = registry().kernelEntry(k, &e)) {
      std::scoped_lock lock(from->mutex, to->mutex, from->queue_arg_mutex, to->queue_arg_mutex);
      to->args.copyFrom(from->args);
    }
  return k;
}

cl_int hkRetainKernel(cl_kernel k) {
  if (!k) return CL_INVALID_KERNEL;
  Registry &r = registry();
  if (r.kernels.find(k) == r.kernels.released()) return CL_INVALID_KERNEL;
  cl_int err = next().clRetainKernel(k);
  if (KernelEntry *e = r.kernels.find(k); err == CL_SUCCESS && hk::isEntry(e)) {
    int n = e->app_references.load(std::memory_order_relaxed);
    while (n >= 0 && !e->app_references.compare_exchange_weak(n, n + 1)) {
    }
  }
  return err;
}

cl_int hkRetainProgram(cl_program p) {
  if (!p) return CL_INVALID_PROGRAM;
  cl_int err = next().clRetainProgram(p);
  if (err == CL_SUCCESS) registry().countProgramReference(p, +1);
  return err;
}

cl_int hkReleaseKernel(cl_kernel k) {
  if (!k) return CL_INVALID_KERNEL;
  hk::queue::settleAny();  // a launch in the background may use what goes with it
  Registry &r = registry();
  KernelEntry *e = r.kernels.find(k);
  if (e == r.kernels.released()) return CL_INVALID_KERNEL;
  // The application's count when hostkernel made the kernel; else PoCL's, which a launch
  // still queued on PoCL keeps above 1.
  int app = -1;
  if (hk::isEntry(e) && e->id == hk::pocl::objectId(k)) {
    app = e->app_references.load(std::memory_order_relaxed);
    while (app > 0 && !e->app_references.compare_exchange_weak(app, app - 1)) {
    }
    if (app > 0) --app;
  }
  bool last = app >= 0 ? app == 0
                       : referenceCount(next().clGetKernelInfo, k, CL_KERNEL_REFERENCE_COUNT) == 1;
  cl_int err = next().clReleaseKernel(k);
  if (err == CL_SUCCESS && last) r.dropKernel(k, true);
  return err;
}

cl_int hkReleaseProgram(cl_program p) {
  if (!p) return CL_INVALID_PROGRAM;
  hk::queue::settleAny();
  // As for kernels: the application's count when hostkernel made the program.
  const int app = registry().countProgramReference(p, -1);
  bool last = app >= 0 ? app == 0
                       : referenceCount(next().clGetProgramInfo, p, CL_PROGRAM_REFERENCE_COUNT) == 1;
  cl_int err = next().clReleaseProgram(p);
  if (err == CL_SUCCESS && last) {
    registry().dropProgram(p);
    hk::program::forgetProgramBinaryInput(p);
    registry().dropNative(p);
  }
  return err;
}

cl_int hkReleaseMemObject(cl_mem m) {
  if (!m) return CL_INVALID_MEM_OBJECT;
  // No settle: a launch in the background holds its own references to its buffers
  // (queue/background.cpp), as a command on PoCL's queue does.
  // A pointer learned with a map is cheap to learn again: dropped on every release. A
  // buffer hostkernel gave memory to is forgotten when PoCL destroys it (queue/buffers.cpp).
  hk::queue::forgetLearnedPointer(m);
  return hk::queue::releaseBuffer(m);
}

cl_int hkReleaseCommandQueue(cl_command_queue q) {
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  hk::queue::settleAny();
  bool last =
      referenceCount(next().clGetCommandQueueInfo, q, CL_QUEUE_REFERENCE_COUNT) == 1;
  if (last) {
    // Releasing a queue waits for its commands, as clReleaseCommandQueue does.
    hk::queue::forget(q);
    // Spare events hold the context: the queue may have been the last thing that did.
    cl_context c = nullptr;
    if (next().clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c, nullptr) ==
        CL_SUCCESS)
      hk::queue::releaseSpareEvents(c);
  }
  return next().clReleaseCommandQueue(q);
}

cl_int hkReleaseContext(cl_context c) {
  if (!c) return CL_INVALID_CONTEXT;
  hk::queue::settleAny();
  hk::queue::releaseSpareEvents(c);  // else they would keep it alive
  return next().clReleaseContext(c);
}

cl_int hkReleaseEvent(cl_event e) {
  if (!e) return CL_INVALID_EVENT;
  return hk::queue::releaseEvent(e);  // a direct launch's event is forgotten with its last reference
}

cl_mem hkCreateBuffer(cl_context c, cl_mem_flags f, size_t size, void *host, cl_int *err) {
  cl_mem m = hk::queue::createBuffer(c, false, nullptr, f, size, host, err);
  if (m) hk::queue::forgetLearnedPointer(m);
  return m;
}

cl_mem hkCreateBufferWithProperties(cl_context c, const cl_mem_properties *props, cl_mem_flags f,
                                    size_t size, void *host, cl_int *err) {
  cl_mem m = hk::queue::createBuffer(c, true, props, f, size, host, err);
  if (m) hk::queue::forgetLearnedPointer(m);
  return m;
}

cl_mem hkCreateSubBuffer(cl_mem parent, cl_mem_flags f, cl_buffer_create_type t,
                         const void *info, cl_int *err) {
  cl_mem m = hk::queue::createSubBuffer(parent, f, t, info, err);
  if (m) hk::queue::forgetLearnedPointer(m);
  return m;
}

cl_int hkGetMemObjectInfo(cl_mem m, cl_mem_info name, size_t size, void *value,
                          size_t *size_ret) {
  return hk::queue::reportedMemInfo(m, name, size, value, size_ret);
}

}  // extern "C"
