// Finish, flush, wait, and every other command: forwarded to PoCL, and counted on the
// queue so that direct launches know when PoCL still holds work.
#include <hostkernel/hostkernel.h>

#include "api/queue_sync.hpp"
#include "api/registry.hpp"
#include "base/next.hpp"
#include "pocl/object_id.hpp"

using namespace hk::api;
using hk::next;

namespace {

void noteCommand(cl_command_queue queue, cl_uint nwait, const cl_event *waits,
                 bool blocking) {
  cl_int err = CL_SUCCESS;
  if (QueueEntry *q = registry().queueEntry(queue, &err))
    noteEnqueued(*q, nwait, waits, blocking);
}

// Forwards an enqueue call returning cl_int and notes it on success.
#define HK_FORWARD(name, blocking, nwait, waits, ...)       \
  if (!waitListValid(nwait, waits)) return CL_INVALID_EVENT_WAIT_LIST; \
  cl_int err = next().cl##name(__VA_ARGS__);                  \
  if (err == CL_SUCCESS) noteCommand(queue, nwait, waits, blocking); \
  return err

}  // namespace

extern "C" {

cl_int hkFinish(cl_command_queue queue) {
  if (!queue) return CL_INVALID_COMMAND_QUEUE;
  // The common case of a program that only launches directly: nothing to wait for.
  if (QueueEntry *q = g_queues.find(queue); isEntry(q) && q->id == hk::pocl::objectId(queue)) {
    if (q->idle()) return CL_SUCCESS;
    return drainQueue(*q);
  }
  cl_int err = CL_SUCCESS;
  QueueEntry *q = registry().queueEntry(queue, &err);
  if (!q) return next().clFinish(queue);
  return drainQueue(*q);
}

cl_int hkFlush(cl_command_queue queue) {
  if (!queue) return CL_INVALID_COMMAND_QUEUE;
  if (QueueEntry *q = g_queues.find(queue);
      isEntry(q) && q->id == hk::pocl::objectId(queue) && q->idle())
    return CL_SUCCESS;
  return next().clFlush(queue);
}

cl_int hkWaitForEvents(cl_uint n, const cl_event *events) {
  if (n == 0 || !events) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; ++i)
    if (!events[i]) return CL_INVALID_EVENT;
  return next().clWaitForEvents(n, events);
}

cl_int hkEnqueueReadBuffer(cl_command_queue queue, cl_mem m, cl_bool blocking, size_t off,
                           size_t size, void *ptr, cl_uint nwait, const cl_event *waits,
                           cl_event *ev) {
  HK_FORWARD(EnqueueReadBuffer, blocking, nwait, waits, queue, m, blocking, off, size, ptr,
             nwait, waits, ev);
}
cl_int hkEnqueueWriteBuffer(cl_command_queue queue, cl_mem m, cl_bool blocking, size_t off,
                            size_t size, const void *ptr, cl_uint nwait,
                            const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueWriteBuffer, blocking, nwait, waits, queue, m, blocking, off, size, ptr,
             nwait, waits, ev);
}
cl_int hkEnqueueReadBufferRect(cl_command_queue queue, cl_mem m, cl_bool blocking,
                               const size_t *bo, const size_t *ho, const size_t *region,
                               size_t brp, size_t bsp, size_t hrp, size_t hsp, void *ptr,
                               cl_uint nwait, const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueReadBufferRect, blocking, nwait, waits, queue, m, blocking, bo, ho,
             region, brp, bsp, hrp, hsp, ptr, nwait, waits, ev);
}
cl_int hkEnqueueWriteBufferRect(cl_command_queue queue, cl_mem m, cl_bool blocking,
                                const size_t *bo, const size_t *ho, const size_t *region,
                                size_t brp, size_t bsp, size_t hrp, size_t hsp,
                                const void *ptr, cl_uint nwait, const cl_event *waits,
                                cl_event *ev) {
  HK_FORWARD(EnqueueWriteBufferRect, blocking, nwait, waits, queue, m, blocking, bo, ho,
             region, brp, bsp, hrp, hsp, ptr, nwait, waits, ev);
}
cl_int hkEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t so,
                           size_t dof, size_t size, cl_uint nwait, const cl_event *waits,
                           cl_event *ev) {
  HK_FORWARD(EnqueueCopyBuffer, false, nwait, waits, queue, src, dst, so, dof, size, nwait,
             waits, ev);
}
cl_int hkEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst,
                               const size_t *so, const size_t *dof, const size_t *region,
                               size_t srp, size_t ssp, size_t drp, size_t dsp, cl_uint nwait,
                               const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueCopyBufferRect, false, nwait, waits, queue, src, dst, so, dof, region,
             srp, ssp, drp, dsp, nwait, waits, ev);
}
cl_int hkEnqueueFillBuffer(cl_command_queue queue, cl_mem m, const void *pattern,
                           size_t psize, size_t off, size_t size, cl_uint nwait,
                           const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueFillBuffer, false, nwait, waits, queue, m, pattern, psize, off, size,
             nwait, waits, ev);
}
void *hkEnqueueMapBuffer(cl_command_queue queue, cl_mem m, cl_bool blocking,
                         cl_map_flags flags, size_t off, size_t size, cl_uint nwait,
                         const cl_event *waits, cl_event *ev, cl_int *errp) {
  cl_int err = CL_SUCCESS;
  if (!waitListValid(nwait, waits)) {
    if (errp) *errp = CL_INVALID_EVENT_WAIT_LIST;
    return nullptr;
  }
  void *p = next().clEnqueueMapBuffer(queue, m, blocking, flags, off, size, nwait, waits, ev,
                                      &err);
  if (err == CL_SUCCESS) noteCommand(queue, nwait, waits, blocking);
  if (errp) *errp = err;
  return p;
}
cl_int hkEnqueueUnmapMemObject(cl_command_queue queue, cl_mem m, void *p, cl_uint nwait,
                               const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueUnmapMemObject, false, nwait, waits, queue, m, p, nwait, waits, ev);
}
cl_int hkEnqueueReadImage(cl_command_queue queue, cl_mem im, cl_bool blocking,
                          const size_t *origin, const size_t *region, size_t rp, size_t sp,
                          void *ptr, cl_uint nwait, const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueReadImage, blocking, nwait, waits, queue, im, blocking, origin, region,
             rp, sp, ptr, nwait, waits, ev);
}
cl_int hkEnqueueWriteImage(cl_command_queue queue, cl_mem im, cl_bool blocking,
                           const size_t *origin, const size_t *region, size_t rp, size_t sp,
                           const void *ptr, cl_uint nwait, const cl_event *waits,
                           cl_event *ev) {
  HK_FORWARD(EnqueueWriteImage, blocking, nwait, waits, queue, im, blocking, origin, region,
             rp, sp, ptr, nwait, waits, ev);
}
cl_int hkEnqueueCopyImage(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t *so,
                          const size_t *dof, const size_t *region, cl_uint nwait,
                          const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueCopyImage, false, nwait, waits, queue, src, dst, so, dof, region, nwait,
             waits, ev);
}
cl_int hkEnqueueFillImage(cl_command_queue queue, cl_mem im, const void *color,
                          const size_t *origin, const size_t *region, cl_uint nwait,
                          const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueFillImage, false, nwait, waits, queue, im, color, origin, region, nwait,
             waits, ev);
}
cl_int hkEnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src, cl_mem dst,
                                  const size_t *so, const size_t *region, size_t dof,
                                  cl_uint nwait, const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueCopyImageToBuffer, false, nwait, waits, queue, src, dst, so, region, dof,
             nwait, waits, ev);
}
cl_int hkEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src, cl_mem dst, size_t so,
                                  const size_t *dof, const size_t *region, cl_uint nwait,
                                  const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueCopyBufferToImage, false, nwait, waits, queue, src, dst, so, dof, region,
             nwait, waits, ev);
}
void *hkEnqueueMapImage(cl_command_queue queue, cl_mem im, cl_bool blocking,
                        cl_map_flags flags, const size_t *origin, const size_t *region,
                        size_t *rp, size_t *sp, cl_uint nwait, const cl_event *waits,
                        cl_event *ev, cl_int *errp) {
  cl_int err = CL_SUCCESS;
  if (!waitListValid(nwait, waits)) {
    if (errp) *errp = CL_INVALID_EVENT_WAIT_LIST;
    return nullptr;
  }
  void *p = next().clEnqueueMapImage(queue, im, blocking, flags, origin, region, rp, sp,
                                     nwait, waits, ev, &err);
  if (err == CL_SUCCESS) noteCommand(queue, nwait, waits, blocking);
  if (errp) *errp = err;
  return p;
}
cl_int hkEnqueueMigrateMemObjects(cl_command_queue queue, cl_uint n, const cl_mem *mems,
                                  cl_mem_migration_flags flags, cl_uint nwait,
                                  const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueMigrateMemObjects, false, nwait, waits, queue, n, mems, flags, nwait,
             waits, ev);
}
cl_int hkEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint nwait,
                                   const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueMarkerWithWaitList, false, nwait, waits, queue, nwait, waits, ev);
}
cl_int hkEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint nwait,
                                    const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueBarrierWithWaitList, false, nwait, waits, queue, nwait, waits, ev);
}
cl_int hkEnqueueMarker(cl_command_queue queue, cl_event *ev) {
  HK_FORWARD(EnqueueMarker, false, 0, nullptr, queue, ev);
}
cl_int hkEnqueueBarrier(cl_command_queue queue) {
  HK_FORWARD(EnqueueBarrier, false, 0, nullptr, queue);
}
cl_int hkEnqueueWaitForEvents(cl_command_queue queue, cl_uint n, const cl_event *events) {
  HK_FORWARD(EnqueueWaitForEvents, false, n, events, queue, n, events);
}
cl_int hkEnqueueNativeKernel(cl_command_queue queue, void(CL_CALLBACK *fn)(void *),
                             void *args, size_t cb, cl_uint nmem, const cl_mem *mems,
                             const void **locs, cl_uint nwait, const cl_event *waits,
                             cl_event *ev) {
  HK_FORWARD(EnqueueNativeKernel, false, nwait, waits, queue, fn, args, cb, nmem, mems, locs,
             nwait, waits, ev);
}
cl_int hkEnqueueSVMFree(cl_command_queue queue, cl_uint n, void *ptrs[],
                        void(CL_CALLBACK *fn)(cl_command_queue, cl_uint, void *[], void *),
                        void *user, cl_uint nwait, const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueSVMFree, false, nwait, waits, queue, n, ptrs, fn, user, nwait, waits,
             ev);
}
cl_int hkEnqueueSVMMemcpy(cl_command_queue queue, cl_bool blocking, void *dst,
                          const void *src, size_t size, cl_uint nwait, const cl_event *waits,
                          cl_event *ev) {
  HK_FORWARD(EnqueueSVMMemcpy, blocking, nwait, waits, queue, blocking, dst, src, size,
             nwait, waits, ev);
}
cl_int hkEnqueueSVMMemFill(cl_command_queue queue, void *p, const void *pattern,
                           size_t psize, size_t size, cl_uint nwait, const cl_event *waits,
                           cl_event *ev) {
  HK_FORWARD(EnqueueSVMMemFill, false, nwait, waits, queue, p, pattern, psize, size, nwait,
             waits, ev);
}
cl_int hkEnqueueSVMMap(cl_command_queue queue, cl_bool blocking, cl_map_flags flags,
                       void *p, size_t size, cl_uint nwait, const cl_event *waits,
                       cl_event *ev) {
  HK_FORWARD(EnqueueSVMMap, blocking, nwait, waits, queue, blocking, flags, p, size, nwait,
             waits, ev);
}
cl_int hkEnqueueSVMUnmap(cl_command_queue queue, void *p, cl_uint nwait,
                         const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueSVMUnmap, false, nwait, waits, queue, p, nwait, waits, ev);
}
cl_int hkEnqueueSVMMigrateMem(cl_command_queue queue, cl_uint n, const void **ptrs,
                              const size_t *sizes, cl_mem_migration_flags flags,
                              cl_uint nwait, const cl_event *waits, cl_event *ev) {
  HK_FORWARD(EnqueueSVMMigrateMem, false, nwait, waits, queue, n, ptrs, sizes, flags, nwait,
             waits, ev);
}

}  // extern "C"
