// Buffers whose device memory hostkernel knows without asking PoCL. On PoCL's CPU device
// a buffer's device memory is its host backing store (pocl_driver_alloc_mem_obj, the same
// at 3.1, 6.0 and 7.1), but PoCL allocates it only when a first command uses the buffer,
// and tells no one where: learning it took a map on PoCL's queue. So hostkernel allocates
// the memory of the buffers it creates itself and gives it to PoCL as CL_MEM_USE_HOST_PTR
// storage; PoCL then uses that memory as the buffer's device memory from the start
// (clCreateBuffer.c: mem_host_ptr = host_ptr). What the application asked for stays what
// it sees: clGetMemObjectInfo reports its own flags and no host pointer
// (reportedMemInfo). The memory starts zeroed (or with CL_MEM_COPY_HOST_PTR's bytes),
// where PoCL's holds whatever its heap held (buffers.cpp, allocate). It is freed with the
// buffer's last release (releaseBuffer), or, when a command or a sub-buffer still holds
// the buffer then, by a destructor callback when PoCL destroys it.
//
// Buffers the application creates with CL_MEM_USE_HOST_PTR are known too (their memory
// is the application's), and sub-buffers of known buffers (parent + origin).
//
//   cl_mem m = queue::createBuffer(context, false, nullptr, flags, size, host_ptr, &err);
//   if (const queue::Buffer *b = queue::findBuffer(m)) memcpy(dst, b->pointer + off, n);
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

namespace hk::queue {

struct Queue;

struct Buffer {
  cl_mem handle = nullptr;
  std::uint64_t id = 0;  // PoCL's object id: tells a new buffer at the same address
  cl_context context = nullptr;
  char *pointer = nullptr;  // the device memory (= host backing store)
  std::size_t size = 0;
  cl_mem_flags flags = 0;   // CL_MEM_FLAGS as the application sees them
  cl_mem root = nullptr;    // the buffer that owns the memory (itself, or a sub-buffer's parent)
  std::size_t origin = 0;   // offset in `root` (sub-buffers)
  bool own_memory = false;  // hostkernel allocated `pointer` (USE_HOST_PTR hidden from view)
  bool watched = false;     // its end is left to PoCL's destructor callback (releaseBuffer)
};

// clCreateBuffer or (`with_properties`) clCreateBufferWithProperties through hostkernel:
// with memory of its own when the request is one it can serve (a context of supported
// devices only, valid flags, no USE_HOST_PTR, no properties), else PoCL's function as
// asked. Any error is PoCL's own for the request as given.
cl_mem createBuffer(cl_context context, bool with_properties,
                    const cl_mem_properties *properties, cl_mem_flags flags, std::size_t size,
                    void *host_ptr, cl_int *err);
// clCreateSubBuffer through hostkernel: PoCL's, then recorded when the parent is known.
cl_mem createSubBuffer(cl_mem parent, cl_mem_flags flags, cl_buffer_create_type type,
                       const void *info, cl_int *err);

// hkReleaseMemObject's work. A known buffer released for the last time (PoCL's count at 1)
// is forgotten and its memory freed at once; one that something else still holds is left
// to a destructor callback. Must be how every release of a known buffer reaches PoCL: a
// buffer PoCL's own clReleaseMemObject destroys leaks its record and its memory.
cl_int releaseBuffer(cl_mem mem);
// How many buffers releaseBuffer() has left to a destructor callback so far (for tests).
std::uint64_t buffersLeftToPocl();

// The record of a live buffer hostkernel knows, else null. Lock-free.
const Buffer *findBuffer(cl_mem mem);

// A buffer's device pointer: the record's, else learned from PoCL with a map on `queue`
// (a buffer hostkernel did not create; the map counts as a command given to PoCL). False
// if it cannot be had, or the buffer belongs to another context than the queue.
bool bufferPointer(cl_mem mem, Queue &queue, void **out);
// Forgets a pointer learned with a map (any release of `mem`: it is cheap to learn again).
void forgetLearnedPointer(cl_mem mem);

// clGetMemObjectInfo through hostkernel: the answer the application would get had it
// created the buffer on PoCL alone (flags as asked, no host pointer for memory hostkernel
// allocated, map counts including direct maps).
cl_int reportedMemInfo(cl_mem mem, cl_mem_info name, std::size_t size, void *value,
                       std::size_t *size_ret);

// Direct maps (clEnqueueMapBuffer run directly): PoCL does not know them, so their
// unmaps must not reach it. noteDirectMap counts one; takeDirectMap removes one for
// (mem, pointer) and says whether there was one.
void noteDirectMap(cl_mem mem, void *pointer);
bool takeDirectMap(cl_mem mem, void *pointer);

}  // namespace hk::queue
