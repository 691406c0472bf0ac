#include "queue/commands.hpp"

#include <cstdint>
#include <cstring>

#include "base/next.hpp"
#include "queue/background.hpp"
#include "queue/buffers.hpp"
#include "queue/command_counts.hpp"
#include "queue/events.hpp"
#include "queue/ordering.hpp"

namespace hk::queue {

void noteForwarded(Queue *q, cl_uint nwait, const cl_event *waits, bool blocking,
                   std::uint64_t given_before) {
  if (!q) return;
  if (blocking)
    noteCompleted(*q, given_before);
  else
    noteEnqueued(*q, nwait, waits);
}

namespace {

// One command as offered: its queue, type and wait list.
struct Command {
  cl_command_queue queue;
  cl_command_type type;
  bool blocking;
  cl_uint nwait;
  const cl_event *waits;
  cl_event *event;
};

// The one path of every command: `check(q)` says whether hostkernel can run it directly
// (HK_REASON_NONE) and `work()` runs it; `forward()` gives it to PoCL. The arguments are
// checked before the wait list is waited for, so a request PoCL refuses never waits.
template <typename Check, typename Work, typename Forward>
cl_int run(const Command &c, Check check, Work work, Forward forward) {
  if (!waitListValid(c.nwait, c.waits)) return CL_INVALID_EVENT_WAIT_LIST;
  Queue *q = c.queue ? findKnown(c.queue) : nullptr;
  cl_int err = CL_SUCCESS;
  if (!q && c.queue) q = find(c.queue, &err);
  if (q) settleQueue(*q);  // after a background launch of its queue
  settleWaitList(c.nwait, c.waits);
  hk_reason why = HK_REASON_POCL_CHECKS;  // an unknown queue: PoCL reports it
  if (q && (why = check(*q)) == HK_REASON_NONE) {
    const Admission a = admit(*q, c.nwait, c.waits, c.blocking);
    if (a.direct) {
      CommandTimes times;
      if (c.event && q->profiling) times = CommandTimes::begin(), times.start = times.queued;
      work();
      countDirect(c.type);
      return c.event ? completeEvent(*q, c.event, c.type, &times) : CL_SUCCESS;
    }
    why = a.reason;
  }
  const std::uint64_t given = q ? givenSoFar(*q) : 0;
  err = forward();
  countQueue(c.type, why);
  if (err == CL_SUCCESS) noteForwarded(q, c.nwait, c.waits, c.blocking, given);
  return err;
}

// A buffer of the queue's context whose range [offset, offset + size) is inside it and
// not empty, else null.
const Buffer *bufferFor(const Queue &q, cl_mem mem, size_t offset, size_t size) {
  const Buffer *b = mem ? findBuffer(mem) : nullptr;
  if (!b || b->context != q.context || size == 0 || offset > b->size || size > b->size - offset)
    return nullptr;
  return b;
}

bool hostMayRead(const Buffer &b) {
  return !(b.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
}
bool hostMayWrite(const Buffer &b) {
  return !(b.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
}

// Whether [a, a + n) and [b, b + m) share a byte.
bool overlap(const char *a, size_t n, const char *b, size_t m) { return a < b + m && b < a + n; }

// A rectangle in memory of `bytes` bytes (SIZE_MAX: host memory, unbounded), with
// pitches as OpenCL defaults them (0: tightly packed); false if PoCL would refuse them.
struct Rect {
  size_t origin[3];
  size_t row, slice;
  bool settle(const size_t *o, const size_t *region, size_t row_pitch, size_t slice_pitch,
              size_t bytes) {
    if (!o) return false;
    row = row_pitch ? row_pitch : region[0];
    if (row_pitch && row_pitch < region[0]) return false;
    slice = slice_pitch ? slice_pitch : region[1] * row;
    if (slice_pitch && (slice_pitch < region[1] * row || slice_pitch % row)) return false;
    for (int i = 0; i < 3; ++i) origin[i] = o[i];
    if (bytes == SIZE_MAX) return true;
    // The last byte touched, in 128-bit arithmetic so that no product wraps.
    const unsigned __int128 last =
        static_cast<unsigned __int128>(origin[2] + region[2] - 1) * slice +
        static_cast<unsigned __int128>(origin[1] + region[1] - 1) * row + origin[0] + region[0] - 1;
    return last < bytes;
  }
  size_t at(size_t y, size_t z) const {
    return (origin[2] + z) * slice + (origin[1] + y) * row + origin[0];
  }
};

bool regionValid(const size_t *region) {
  return region && region[0] && region[1] && region[2];
}

void copyRect(char *dst, const Rect &d, const char *src, const Rect &s, const size_t *region) {
  for (size_t z = 0; z < region[2]; ++z)
    for (size_t y = 0; y < region[1]; ++y)
      std::memcpy(dst + d.at(y, z), src + s.at(y, z), region[0]);
}

bool patternSizeValid(size_t n) { return n && n <= 128 && (n & (n - 1)) == 0; }

// Fills `size` bytes (a multiple of `pattern_size`) with the pattern: the first copy,
// then doubling copies of what is filled already.
void fillPattern(char *dst, const void *pattern, size_t pattern_size, size_t size) {
  std::memcpy(dst, pattern, pattern_size);
  size_t done = pattern_size;
  while (done < size) {
    const size_t n = done < size - done ? done : size - done;
    std::memcpy(dst + done, dst, n);
    done += n;
  }
}

bool mapFlagsValid(cl_map_flags f) {
  if (f & ~(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) return false;
  return !((f & CL_MAP_WRITE_INVALIDATE_REGION) && (f & (CL_MAP_READ | CL_MAP_WRITE)));
}

constexpr hk_reason kOk = HK_REASON_NONE;
constexpr hk_reason kPocl = HK_REASON_POCL_CHECKS;

// A read (CL_COMMAND_READ_BUFFER: `size` bytes at `offset` of `buffer` to `host`) or a write
// (from `host`): directly when the buffer's flags allow that host access, else `forward()`.
template <typename Forward>
cl_int moveWithHost(const Command &c, cl_mem buffer, size_t offset, size_t size, void *host,
                    Forward forward) {
  const bool read = c.type == CL_COMMAND_READ_BUFFER;
  const Buffer *b = nullptr;
  return run(
      c,
      [&](const Queue &q) {
        b = bufferFor(q, buffer, offset, size);
        return b && host && (read ? hostMayRead(*b) : hostMayWrite(*b)) ? kOk : kPocl;
      },
      [&] {
        char *mem = b->pointer + offset;
        if (read) std::memmove(host, mem, size);
        else std::memmove(mem, host, size);
      },
      forward);
}

}  // namespace

cl_int enqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                         size_t offset, size_t size, void *ptr, cl_uint nwait,
                         const cl_event *waits, cl_event *event) {
  auto forward = [&] {
    return next().clEnqueueReadBuffer(queue, buffer, blocking, offset, size, ptr, nwait, waits,
                                      event);
  };
  return moveWithHost({queue, CL_COMMAND_READ_BUFFER, blocking != CL_FALSE, nwait, waits, event},
                      buffer, offset, size, ptr, forward);
}

cl_int enqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                          size_t offset, size_t size, const void *ptr, cl_uint nwait,
                          const cl_event *waits, cl_event *event) {
  auto forward = [&] {
    return next().clEnqueueWriteBuffer(queue, buffer, blocking, offset, size, ptr, nwait, waits,
                                       event);
  };
  return moveWithHost({queue, CL_COMMAND_WRITE_BUFFER, blocking != CL_FALSE, nwait, waits, event},
                      buffer, offset, size, const_cast<void *>(ptr), forward);  // only read
}

namespace {

// A rect read (`to_host`) or write between a buffer and host memory: the one body of
// enqueueReadBufferRect and enqueueWriteBufferRect.
template <typename Forward>
cl_int bufferRect(const Command &c, bool to_host, cl_mem buffer, const size_t *buffer_origin,
                  const size_t *host_origin, const size_t *region, size_t buffer_row_pitch,
                  size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch,
                  char *host, Forward forward) {
  const Buffer *b = nullptr;
  Rect br{}, hr{};
  return run(
      c,
      [&](const Queue &q) {
        if (!regionValid(region) || !host) return kPocl;
        b = bufferFor(q, buffer, 0, 1);
        return b && (to_host ? hostMayRead(*b) : hostMayWrite(*b)) &&
                       br.settle(buffer_origin, region, buffer_row_pitch, buffer_slice_pitch,
                                 b->size) &&
                       hr.settle(host_origin, region, host_row_pitch, host_slice_pitch,
                                 SIZE_MAX)
                   ? kOk
                   : kPocl;
      },
      [&] {
        if (to_host) copyRect(host, hr, b->pointer, br, region);
        else copyRect(b->pointer, br, host, hr, region);
      },
      forward);
}

}  // namespace

cl_int enqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                             const size_t *buffer_origin, const size_t *host_origin,
                             const size_t *region, size_t buffer_row_pitch,
                             size_t buffer_slice_pitch, size_t host_row_pitch,
                             size_t host_slice_pitch, void *ptr, cl_uint nwait,
                             const cl_event *waits, cl_event *event) {
  return bufferRect(
      {queue, CL_COMMAND_READ_BUFFER_RECT, blocking != CL_FALSE, nwait, waits, event}, true,
      buffer, buffer_origin, host_origin, region, buffer_row_pitch, buffer_slice_pitch,
      host_row_pitch, host_slice_pitch, static_cast<char *>(ptr), [&] {
        return next().clEnqueueReadBufferRect(queue, buffer, blocking, buffer_origin,
                                              host_origin, region, buffer_row_pitch,
                                              buffer_slice_pitch, host_row_pitch,
                                              host_slice_pitch, ptr, nwait, waits, event);
      });
}

cl_int enqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                              const size_t *buffer_origin, const size_t *host_origin,
                              const size_t *region, size_t buffer_row_pitch,
                              size_t buffer_slice_pitch, size_t host_row_pitch,
                              size_t host_slice_pitch, const void *ptr, cl_uint nwait,
                              const cl_event *waits, cl_event *event) {
  // The host memory is only read: the cast serves the shared body.
  return bufferRect(
      {queue, CL_COMMAND_WRITE_BUFFER_RECT, blocking != CL_FALSE, nwait, waits, event}, false,
      buffer, buffer_origin, host_origin, region, buffer_row_pitch, buffer_slice_pitch,
      host_row_pitch, host_slice_pitch, static_cast<char *>(const_cast<void *>(ptr)), [&] {
        return next().clEnqueueWriteBufferRect(queue, buffer, blocking, buffer_origin,
                                               host_origin, region, buffer_row_pitch,
                                               buffer_slice_pitch, host_row_pitch,
                                               host_slice_pitch, ptr, nwait, waits, event);
      });
}

cl_int enqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                         size_t dst_offset, size_t size, cl_uint nwait, const cl_event *waits,
                         cl_event *event) {
  const Buffer *s = nullptr, *d = nullptr;
  return run(
      {queue, CL_COMMAND_COPY_BUFFER, false, nwait, waits, event},
      [&](const Queue &q) {
        s = bufferFor(q, src, src_offset, size);
        d = bufferFor(q, dst, dst_offset, size);
        // Overlap within one allocation is CL_MEM_COPY_OVERLAP: PoCL says so.
        return s && d && !overlap(s->pointer + src_offset, size, d->pointer + dst_offset, size)
                   ? kOk
                   : kPocl;
      },
      [&] { std::memcpy(d->pointer + dst_offset, s->pointer + src_offset, size); },
      [&] {
        return next().clEnqueueCopyBuffer(queue, src, dst, src_offset, dst_offset, size,
                                          nwait, waits, event);
      });
}

cl_int enqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst,
                             const size_t *src_origin, const size_t *dst_origin,
                             const size_t *region, size_t src_row_pitch,
                             size_t src_slice_pitch, size_t dst_row_pitch,
                             size_t dst_slice_pitch, cl_uint nwait, const cl_event *waits,
                             cl_event *event) {
  const Buffer *s = nullptr, *d = nullptr;
  Rect sr{}, dr{};
  return run(
      {queue, CL_COMMAND_COPY_BUFFER_RECT, false, nwait, waits, event},
      [&](const Queue &q) {
        if (!regionValid(region)) return kPocl;
        s = bufferFor(q, src, 0, 1);
        d = bufferFor(q, dst, 0, 1);
        // Copies within one allocation: PoCL's overlap rules decide.
        return s && d && s->root != d->root &&
                       sr.settle(src_origin, region, src_row_pitch, src_slice_pitch, s->size) &&
                       dr.settle(dst_origin, region, dst_row_pitch, dst_slice_pitch, d->size)
                   ? kOk
                   : kPocl;
      },
      [&] { copyRect(d->pointer, dr, s->pointer, sr, region); },
      [&] {
        return next().clEnqueueCopyBufferRect(queue, src, dst, src_origin, dst_origin, region,
                                              src_row_pitch, src_slice_pitch, dst_row_pitch,
                                              dst_slice_pitch, nwait, waits, event);
      });
}

cl_int enqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern,
                         size_t pattern_size, size_t offset, size_t size, cl_uint nwait,
                         const cl_event *waits, cl_event *event) {
  const Buffer *b = nullptr;
  return run(
      {queue, CL_COMMAND_FILL_BUFFER, false, nwait, waits, event},
      [&](const Queue &q) {
        b = bufferFor(q, buffer, offset, size);
        return b && pattern && patternSizeValid(pattern_size) && offset % pattern_size == 0 &&
                       size % pattern_size == 0
                   ? kOk
                   : kPocl;
      },
      [&] { fillPattern(b->pointer + offset, pattern, pattern_size, size); },
      [&] {
        return next().clEnqueueFillBuffer(queue, buffer, pattern, pattern_size, offset, size,
                                          nwait, waits, event);
      });
}

void *enqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                       cl_map_flags flags, size_t offset, size_t size, cl_uint nwait,
                       const cl_event *waits, cl_event *event, cl_int *errcode_ret) {
  const Buffer *b = nullptr;
  void *mapped = nullptr;
  const cl_int err = run(
      {queue, CL_COMMAND_MAP_BUFFER, blocking != CL_FALSE, nwait, waits, event},
      [&](const Queue &q) {
        b = bufferFor(q, buffer, offset, size);
        if (!b || !flags || !mapFlagsValid(flags)) return kPocl;
        if ((flags & CL_MAP_READ) && !hostMayRead(*b)) return kPocl;
        if ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) && !hostMayWrite(*b))
          return kPocl;
        return kOk;
      },
      [&] {
        // Zero copy, as PoCL maps on its CPU device: the buffer's own memory.
        mapped = b->pointer + offset;
        noteDirectMap(buffer, mapped);
      },
      [&] {
        cl_int e = CL_SUCCESS;
        mapped = next().clEnqueueMapBuffer(queue, buffer, blocking, flags, offset, size, nwait,
                                           waits, event, &e);
        return e;
      });
  if (errcode_ret) *errcode_ret = err;
  return err == CL_SUCCESS ? mapped : nullptr;
}

cl_int enqueueUnmapMemObject(cl_command_queue queue, cl_mem mem, void *mapped, cl_uint nwait,
                             const cl_event *waits, cl_event *event) {
  if (!waitListValid(nwait, waits)) return CL_INVALID_EVENT_WAIT_LIST;
  cl_int err = CL_SUCCESS;
  Queue *q = queue ? find(queue, &err) : nullptr;
  const Buffer *b = q && mem ? findBuffer(mem) : nullptr;
  // Only a direct map is unmapped here; PoCL's maps, and errors, are PoCL's.
  if (!b || b->context != q->context || !takeDirectMap(mem, mapped)) {
    err = next().clEnqueueUnmapMemObject(queue, mem, mapped, nwait, waits, event);
    countQueue(CL_COMMAND_UNMAP_MEM_OBJECT, b ? kPocl : HK_REASON_MEM_KIND);
    if (q && err == CL_SUCCESS) noteEnqueued(*q, nwait, waits);
    return err;
  }
  const Admission a = admit(*q, nwait, waits, false);
  if (a.direct) {
    CommandTimes times;
    if (event && q->profiling) times = CommandTimes::begin(), times.start = times.queued;
    countDirect(CL_COMMAND_UNMAP_MEM_OBJECT);
    return event ? completeEvent(*q, event, CL_COMMAND_UNMAP_MEM_OBJECT, &times) : CL_SUCCESS;
  }
  // The unmap of zero-copy memory does nothing but take its place in the queue's order:
  // PoCL's marker with the same wait list takes that place.
  err = next().clEnqueueMarkerWithWaitList(queue, nwait, waits, event);
  countQueue(CL_COMMAND_UNMAP_MEM_OBJECT, a.reason);
  if (err != CL_SUCCESS) {
    noteDirectMap(mem, mapped);  // still mapped
    return err;
  }
  if (event) recordDirectEvent(*event, queue, CL_COMMAND_UNMAP_MEM_OBJECT, nullptr, 0);
  noteEnqueued(*q, nwait, waits);
  return CL_SUCCESS;
}

cl_int enqueueMigrateMemObjects(cl_command_queue queue, cl_uint num_mems, const cl_mem *mems,
                                cl_mem_migration_flags flags, cl_uint nwait,
                                const cl_event *waits, cl_event *event) {
  return run(
      {queue, CL_COMMAND_MIGRATE_MEM_OBJECTS, false, nwait, waits, event},
      [&](const Queue &q) {
        if (!num_mems || !mems ||
            (flags & ~(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)))
          return kPocl;
        for (cl_uint i = 0; i < num_mems; ++i)
          if (!bufferFor(q, mems[i], 0, 1)) return kPocl;
        return kOk;
      },
      [] {},  // one memory for host and device: nothing moves
      [&] {
        return next().clEnqueueMigrateMemObjects(queue, num_mems, mems, flags, nwait, waits,
                                                 event);
      });
}

cl_int enqueueMarkerWithWaitList(cl_command_queue queue, cl_uint nwait, const cl_event *waits,
                                 cl_event *event) {
  return run(
      {queue, CL_COMMAND_MARKER, false, nwait, waits, event}, [](const Queue &) { return kOk; },
      [] {},
      [&] { return next().clEnqueueMarkerWithWaitList(queue, nwait, waits, event); });
}

cl_int enqueueBarrierWithWaitList(cl_command_queue queue, cl_uint nwait,
                                  const cl_event *waits, cl_event *event) {
  return run(
      {queue, CL_COMMAND_BARRIER, false, nwait, waits, event}, [](const Queue &) { return kOk; },
      [] {},
      [&] { return next().clEnqueueBarrierWithWaitList(queue, nwait, waits, event); });
}

cl_int enqueueMarker(cl_command_queue queue, cl_event *event) {
  return run(
      {queue, CL_COMMAND_MARKER, false, 0, nullptr, event},
      [&](const Queue &) { return event ? kOk : kPocl; }, [] {},
      [&] { return next().clEnqueueMarker(queue, event); });
}

cl_int enqueueBarrier(cl_command_queue queue) {
  return run(
      {queue, CL_COMMAND_BARRIER, false, 0, nullptr, nullptr}, [](const Queue &) { return kOk; },
      [] {}, [&] { return next().clEnqueueBarrier(queue); });
}

cl_int enqueueWaitForEvents(cl_command_queue queue, cl_uint num_events, const cl_event *events) {
  // The OpenCL 1.1 form of a barrier on a wait list.
  return run(
      {queue, CL_COMMAND_BARRIER, false, num_events, events, nullptr},
      [&](const Queue &) { return num_events && events ? kOk : kPocl; }, [] {},
      [&] { return next().clEnqueueWaitForEvents(queue, num_events, events); });
}

cl_int enqueueSVMMemcpy(cl_command_queue queue, cl_bool blocking, void *dst, const void *src,
                        size_t size, cl_uint nwait, const cl_event *waits, cl_event *event) {
  return run(
      {queue, CL_COMMAND_SVM_MEMCPY, blocking != CL_FALSE, nwait, waits, event},
      [&](const Queue &) {
        return dst && src && size &&
                       !overlap(static_cast<const char *>(dst), size,
                                static_cast<const char *>(src), size)
                   ? kOk
                   : kPocl;
      },
      [&] { std::memcpy(dst, src, size); },
      [&] {
        return next().clEnqueueSVMMemcpy(queue, blocking, dst, src, size, nwait, waits, event);
      });
}

cl_int enqueueSVMMemFill(cl_command_queue queue, void *ptr, const void *pattern,
                         size_t pattern_size, size_t size, cl_uint nwait,
                         const cl_event *waits, cl_event *event) {
  return run(
      {queue, CL_COMMAND_SVM_MEMFILL, false, nwait, waits, event},
      [&](const Queue &) {
        return ptr && pattern && patternSizeValid(pattern_size) && size &&
                       size % pattern_size == 0 &&
                       reinterpret_cast<std::uintptr_t>(ptr) % pattern_size == 0
                   ? kOk
                   : kPocl;
      },
      [&] { fillPattern(static_cast<char *>(ptr), pattern, pattern_size, size); },
      [&] {
        return next().clEnqueueSVMMemFill(queue, ptr, pattern, pattern_size, size, nwait,
                                          waits, event);
      });
}

cl_int enqueueSVMMap(cl_command_queue queue, cl_bool blocking, cl_map_flags flags, void *ptr,
                     size_t size, cl_uint nwait, const cl_event *waits, cl_event *event) {
  return run(
      {queue, CL_COMMAND_SVM_MAP, blocking != CL_FALSE, nwait, waits, event},
      [&](const Queue &) { return ptr && size && flags && mapFlagsValid(flags) ? kOk : kPocl; },
      [] {},  // SVM is host memory on the CPU device: nothing to map
      [&] {
        return next().clEnqueueSVMMap(queue, blocking, flags, ptr, size, nwait, waits, event);
      });
}

cl_int enqueueSVMUnmap(cl_command_queue queue, void *ptr, cl_uint nwait,
                       const cl_event *waits, cl_event *event) {
  return run(
      {queue, CL_COMMAND_SVM_UNMAP, false, nwait, waits, event},
      [&](const Queue &) { return ptr ? kOk : kPocl; }, [] {},
      [&] { return next().clEnqueueSVMUnmap(queue, ptr, nwait, waits, event); });
}

cl_int enqueueSVMMigrateMem(cl_command_queue queue, cl_uint num_ptrs, const void **ptrs,
                            const size_t *sizes, cl_mem_migration_flags flags, cl_uint nwait,
                            const cl_event *waits, cl_event *event) {
  return run(
      {queue, CL_COMMAND_SVM_MIGRATE_MEM, false, nwait, waits, event},
      [&](const Queue &) {
        if (!num_ptrs || !ptrs ||
            (flags & ~(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)))
          return kPocl;
        for (cl_uint i = 0; i < num_ptrs; ++i)
          if (!ptrs[i]) return kPocl;
        return kOk;
      },
      [] {},
      [&] {
        return next().clEnqueueSVMMigrateMem(queue, num_ptrs, ptrs, sizes, flags, nwait, waits,
                                             event);
      });
}

}  // namespace hk::queue
