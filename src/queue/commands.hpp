// Every command of a queue other than a launch, run directly where the ordering rule
// (queue/ordering.hpp) allows it and hostkernel can check its arguments as PoCL would;
// given to PoCL's queue otherwise, with the reason counted (queue/command_counts.hpp).
// The parameters are those of the OpenCL entry point of the same name; api/ only
// translates the entry points to these.
//
// A direct command does its work on the calling thread with the buffers' memory
// (queue/buffers.hpp) and is complete when it returns, blocking or not; the event it
// hands out, if asked for, is complete, reports the command's type and queue and, on a
// profiling queue, its times (queue/events.hpp). Requests with anything hostkernel does
// not check itself (an unknown memory object, a bound it cannot prove, an overlapping
// copy) go to PoCL, so every error is PoCL's own.
//
//   cl_int err = queue::enqueueReadBuffer(q, mem, CL_TRUE, 0, n, dst, 0, nullptr, nullptr);
#pragma once

#include <CL/cl.h>

namespace hk::queue {

cl_int enqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                         size_t offset, size_t size, void *ptr, cl_uint nwait,
                         const cl_event *waits, cl_event *event);
cl_int enqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                          size_t offset, size_t size, const void *ptr, cl_uint nwait,
                          const cl_event *waits, cl_event *event);
cl_int enqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                             const size_t *buffer_origin, const size_t *host_origin,
                             const size_t *region, size_t buffer_row_pitch,
                             size_t buffer_slice_pitch, size_t host_row_pitch,
                             size_t host_slice_pitch, void *ptr, cl_uint nwait,
                             const cl_event *waits, cl_event *event);
cl_int enqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                              const size_t *buffer_origin, const size_t *host_origin,
                              const size_t *region, size_t buffer_row_pitch,
                              size_t buffer_slice_pitch, size_t host_row_pitch,
                              size_t host_slice_pitch, const void *ptr, cl_uint nwait,
                              const cl_event *waits, cl_event *event);
cl_int enqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                         size_t dst_offset, size_t size, cl_uint nwait, const cl_event *waits,
                         cl_event *event);
cl_int enqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst,
                             const size_t *src_origin, const size_t *dst_origin,
                             const size_t *region, size_t src_row_pitch,
                             size_t src_slice_pitch, size_t dst_row_pitch,
                             size_t dst_slice_pitch, cl_uint nwait, const cl_event *waits,
                             cl_event *event);
cl_int enqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern,
                         size_t pattern_size, size_t offset, size_t size, cl_uint nwait,
                         const cl_event *waits, cl_event *event);
void *enqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                       cl_map_flags flags, size_t offset, size_t size, cl_uint nwait,
                       const cl_event *waits, cl_event *event, cl_int *errcode_ret);
cl_int enqueueUnmapMemObject(cl_command_queue queue, cl_mem mem, void *mapped, cl_uint nwait,
                             const cl_event *waits, cl_event *event);
cl_int enqueueMigrateMemObjects(cl_command_queue queue, cl_uint num_mems, const cl_mem *mems,
                                cl_mem_migration_flags flags, cl_uint nwait,
                                const cl_event *waits, cl_event *event);
cl_int enqueueMarkerWithWaitList(cl_command_queue queue, cl_uint nwait, const cl_event *waits,
                                 cl_event *event);
cl_int enqueueBarrierWithWaitList(cl_command_queue queue, cl_uint nwait,
                                  const cl_event *waits, cl_event *event);
cl_int enqueueMarker(cl_command_queue queue, cl_event *event);
cl_int enqueueBarrier(cl_command_queue queue);
cl_int enqueueWaitForEvents(cl_command_queue queue, cl_uint num_events, const cl_event *events);
cl_int enqueueSVMMemcpy(cl_command_queue queue, cl_bool blocking, void *dst, const void *src,
                        size_t size, cl_uint nwait, const cl_event *waits, cl_event *event);
cl_int enqueueSVMMemFill(cl_command_queue queue, void *ptr, const void *pattern,
                         size_t pattern_size, size_t size, cl_uint nwait,
                         const cl_event *waits, cl_event *event);
cl_int enqueueSVMMap(cl_command_queue queue, cl_bool blocking, cl_map_flags flags, void *ptr,
                     size_t size, cl_uint nwait, const cl_event *waits, cl_event *event);
cl_int enqueueSVMUnmap(cl_command_queue queue, void *ptr, cl_uint nwait,
                       const cl_event *waits, cl_event *event);
cl_int enqueueSVMMigrateMem(cl_command_queue queue, cl_uint num_ptrs, const void **ptrs,
                            const size_t *sizes, cl_mem_migration_flags flags, cl_uint nwait,
                            const cl_event *waits, cl_event *event);

// Commands that always go to PoCL (images, native kernels, SVM frees): `forward` is
// PoCL's call; the command is counted with HK_REASON_MEM_KIND and noted on the queue.
template <typename Forward>
cl_int enqueueOnPocl(cl_command_queue queue, cl_command_type type, cl_bool blocking,
                     cl_uint nwait, const cl_event *waits, Forward forward);

}  // namespace hk::queue

#include "queue/commands_forward.inl"
