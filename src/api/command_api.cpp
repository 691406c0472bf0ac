// The enqueue entry points of every command but a launch: each is the queue layer's
// function of the same name (queue/commands.hpp), which runs it directly or gives it to
// PoCL. Images, native kernels and SVM frees always go to PoCL (enqueueOnPocl).
#include <hostkernel/hostkernel.h>

#include "base/next.hpp"
#include "queue/commands.hpp"

using hk::next;
namespace queue = hk::queue;

extern "C" {

cl_int hkEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t off,
                           size_t size, void *ptr, cl_uint nwait, const cl_event *waits,
                           cl_event *ev) {
  return queue::enqueueReadBuffer(q, m, blocking, off, size, ptr, nwait, waits, ev);
}
cl_int hkEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t off,
                            size_t size, const void *ptr, cl_uint nwait,
                            const cl_event *waits, cl_event *ev) {
  return queue::enqueueWriteBuffer(q, m, blocking, off, size, ptr, nwait, waits, ev);
}
cl_int hkEnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                               const size_t *bo, const size_t *ho, const size_t *region,
                               size_t brp, size_t bsp, size_t hrp, size_t hsp, void *ptr,
                               cl_uint nwait, const cl_event *waits, cl_event *ev) {
  return queue::enqueueReadBufferRect(q, m, blocking, bo, ho, region, brp, bsp, hrp, hsp, ptr,
                                      nwait, waits, ev);
}
cl_int hkEnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                const size_t *bo, const size_t *ho, const size_t *region,
                                size_t brp, size_t bsp, size_t hrp, size_t hsp,
                                const void *ptr, cl_uint nwait, const cl_event *waits,
                                cl_event *ev) {
  return queue::enqueueWriteBufferRect(q, m, blocking, bo, ho, region, brp, bsp, hrp, hsp,
                                       ptr, nwait, waits, ev);
}
cl_int hkEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t so, size_t dof,
                           size_t size, cl_uint nwait, const cl_event *waits, cl_event *ev) {
  return queue::enqueueCopyBuffer(q, src, dst, so, dof, size, nwait, waits, ev);
}
cl_int hkEnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst, const size_t *so,
                               const size_t *dof, const size_t *region, size_t srp,
                               size_t ssp, size_t drp, size_t dsp, cl_uint nwait,
                               const cl_event *waits, cl_event *ev) {
  return queue::enqueueCopyBufferRect(q, src, dst, so, dof, region, srp, ssp, drp, dsp, nwait,
                                      waits, ev);
}
cl_int hkEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pattern, size_t psize,
                           size_t off, size_t size, cl_uint nwait, const cl_event *waits,
                           cl_event *ev) {
  return queue::enqueueFillBuffer(q, m, pattern, psize, off, size, nwait, waits, ev);
}
void *hkEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
                         size_t off, size_t size, cl_uint nwait, const cl_event *waits,
                         cl_event *ev, cl_int *errp) {
  return queue::enqueueMapBuffer(q, m, blocking, flags, off, size, nwait, waits, ev, errp);
}
cl_int hkEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *p, cl_uint nwait,
                               const cl_event *waits, cl_event *ev) {
  return queue::enqueueUnmapMemObject(q, m, p, nwait, waits, ev);
}
cl_int hkEnqueueMigrateMemObjects(cl_command_queue q, cl_uint n, const cl_mem *mems,
                                  cl_mem_migration_flags flags, cl_uint nwait,
                                  const cl_event *waits, cl_event *ev) {
  return queue::enqueueMigrateMemObjects(q, n, mems, flags, nwait, waits, ev);
}
cl_int hkEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint nwait, const cl_event *waits,
                                   cl_event *ev) {
  return queue::enqueueMarkerWithWaitList(q, nwait, waits, ev);
}
cl_int hkEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint nwait, const cl_event *waits,
                                    cl_event *ev) {
  return queue::enqueueBarrierWithWaitList(q, nwait, waits, ev);
}
cl_int hkEnqueueMarker(cl_command_queue q, cl_event *ev) { return queue::enqueueMarker(q, ev); }
cl_int hkEnqueueBarrier(cl_command_queue q) { return queue::enqueueBarrier(q); }
cl_int hkEnqueueWaitForEvents(cl_command_queue q, cl_uint n, const cl_event *events) {
  return queue::enqueueWaitForEvents(q, n, events);
}
cl_int hkEnqueueSVMMemcpy(cl_command_queue q, cl_bool blocking, void *dst, const void *src,
                          size_t size, cl_uint nwait, const cl_event *waits, cl_event *ev) {
  return queue::enqueueSVMMemcpy(q, blocking, dst, src, size, nwait, waits, ev);
}
cl_int hkEnqueueSVMMemFill(cl_command_queue q, void *p, const void *pattern, size_t psize,
                           size_t size, cl_uint nwait, const cl_event *waits, cl_event *ev) {
  return queue::enqueueSVMMemFill(q, p, pattern, psize, size, nwait, waits, ev);
}
cl_int hkEnqueueSVMMap(cl_command_queue q, cl_bool blocking, cl_map_flags flags, void *p,
                       size_t size, cl_uint nwait, const cl_event *waits, cl_event *ev) {
  return queue::enqueueSVMMap(q, blocking, flags, p, size, nwait, waits, ev);
}
cl_int hkEnqueueSVMUnmap(cl_command_queue q, void *p, cl_uint nwait, const cl_event *waits,
                         cl_event *ev) {
  return queue::enqueueSVMUnmap(q, p, nwait, waits, ev);
}
cl_int hkEnqueueSVMMigrateMem(cl_command_queue q, cl_uint n, const void **ptrs,
                              const size_t *sizes, cl_mem_migration_flags flags, cl_uint nwait,
                              const cl_event *waits, cl_event *ev) {
  return queue::enqueueSVMMigrateMem(q, n, ptrs, sizes, flags, nwait, waits, ev);
}

// ---- always PoCL's
cl_int hkEnqueueReadImage(cl_command_queue q, cl_mem im, cl_bool blocking, const size_t *origin,
                          const size_t *region, size_t rp, size_t sp, void *ptr, cl_uint nwait,
                          const cl_event *waits, cl_event *ev) {
  return queue::enqueueOnPocl(q, CL_COMMAND_READ_IMAGE, blocking, nwait, waits, [&] {
    return next().clEnqueueReadImage(q, im, blocking, origin, region, rp, sp, ptr, nwait, waits,
                                      ev);
  });
}
cl_int hkEnqueueWriteImage(cl_command_queue q, cl_mem im, cl_bool blocking,
                           const size_t *origin, const size_t *region, size_t rp, size_t sp,
                           const void *ptr, cl_uint nwait, const cl_event *waits,
                           cl_event *ev) {
  return queue::enqueueOnPocl(q, CL_COMMAND_WRITE_IMAGE, blocking, nwait, waits, [&] {
    return next().clEnqueueWriteImage(q, im, blocking, origin, region, rp, sp, ptr, nwait,
                                       waits, ev);
  });
}
cl_int hkEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst, const size_t *so,
                          const size_t *dof, const size_t *region, cl_uint nwait,
                          const cl_event *waits, cl_event *ev) {
  return queue::enqueueOnPocl(q, CL_COMMAND_COPY_IMAGE, false, nwait, waits, [&] {
    return next().clEnqueueCopyImage(q, src, dst, so, dof, region, nwait, waits, ev);
  });
}
cl_int hkEnqueueFillImage(cl_command_queue q, cl_mem im, const void *color, const size_t *origin,
                          const size_t *region, cl_uint nwait, const cl_event *waits,
                          cl_event *ev) {
  return queue::enqueueOnPocl(q, CL_COMMAND_FILL_IMAGE, false, nwait, waits, [&] {
    return next().clEnqueueFillImage(q, im, color, origin, region, nwait, waits, ev);
  });
}
cl_int hkEnqueueCopyImageToBuffer(cl_command_queue q, cl_mem src, cl_mem dst, const size_t *so,
                                  const size_t *region, size_t dof, cl_uint nwait,
                                  const cl_event *waits, cl_event *ev) {
  return queue::enqueueOnPocl(q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, false, nwait, waits, [&] {
    return next().clEnqueueCopyImageToBuffer(q, src, dst, so, region, dof, nwait, waits, ev);
  });
}
cl_int hkEnqueueCopyBufferToImage(cl_command_queue q, cl_mem src, cl_mem dst, size_t so,
                                  const size_t *dof, const size_t *region, cl_uint nwait,
                                  const cl_event *waits, cl_event *ev) {
  return queue::enqueueOnPocl(q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, false, nwait, waits, [&] {
    return next().clEnqueueCopyBufferToImage(q, src, dst, so, dof, region, nwait, waits, ev);
  });
}
void *hkEnqueueMapImage(cl_command_queue q, cl_mem im, cl_bool blocking, cl_map_flags flags,
                        const size_t *origin, const size_t *region, size_t *rp, size_t *sp,
                        cl_uint nwait, const cl_event *waits, cl_event *ev, cl_int *errp) {
  void *p = nullptr;
  cl_int err = queue::enqueueOnPocl(q, CL_COMMAND_MAP_IMAGE, blocking, nwait, waits, [&] {
    cl_int e = CL_SUCCESS;
    p = next().clEnqueueMapImage(q, im, blocking, flags, origin, region, rp, sp, nwait, waits,
                                 ev, &e);
    return e;
  });
  if (errp) *errp = err;
  return err == CL_SUCCESS ? p : nullptr;
}
cl_int hkEnqueueNativeKernel(cl_command_queue q, void(CL_CALLBACK *fn)(void *), void *args,
                             size_t cb, cl_uint nmem, const cl_mem *mems, const void **locs,
                             cl_uint nwait, const cl_event *waits, cl_event *ev) {
  return queue::enqueueOnPocl(q, CL_COMMAND_NATIVE_KERNEL, false, nwait, waits, [&] {
    return next().clEnqueueNativeKernel(q, fn, args, cb, nmem, mems, locs, nwait, waits, ev);
  });
}
cl_int hkEnqueueSVMFree(cl_command_queue q, cl_uint n, void *ptrs[],
                        void(CL_CALLBACK *fn)(cl_command_queue, cl_uint, void *[], void *),
                        void *user, cl_uint nwait, const cl_event *waits, cl_event *ev) {
  return queue::enqueueOnPocl(q, CL_COMMAND_SVM_FREE, false, nwait, waits, [&] {
    return next().clEnqueueSVMFree(q, n, ptrs, fn, user, nwait, waits, ev);
  });
}

}  // extern "C"
