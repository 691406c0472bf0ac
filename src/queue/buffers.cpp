#include "queue/buffers.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "base/config.hpp"
#include "base/next.hpp"
#include "base/object_table.hpp"
#include "base/thread_safety.hpp"
#include "pocl/object_id.hpp"
#include "queue/device.hpp"
#include "queue/queue.hpp"

namespace hk::queue {
namespace {

constinit ObjectTable<Buffer> g_buffers;

// The flags clCreateBuffer accepts that hostkernel can serve with memory of its own.
constexpr cl_mem_flags kAccessFlags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_mem_flags kHostAccessFlags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
constexpr cl_mem_flags kHostPtrFlags =
    CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

bool atMostOne(cl_mem_flags bits) { return (bits & (bits - 1)) == 0; }

// A request PoCL would accept and hostkernel can serve with its own memory. Anything
// else goes to PoCL as it is, which reports the error or serves it.
bool ownable(cl_mem_flags flags, std::size_t size, const void *host_ptr) {
  if (size == 0) return false;
  if (flags & ~(kAccessFlags | kHostAccessFlags | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))
    return false;
  if (!atMostOne(flags & kAccessFlags) || !atMostOne(flags & kHostAccessFlags)) return false;
  return (flags & CL_MEM_COPY_HOST_PTR) ? host_ptr != nullptr : host_ptr == nullptr;
}

// Whether every device of `context` runs direct commands (never with HOSTKERNEL_DISABLE:
// PoCL then allocates every buffer, as without hostkernel). Remembered per context (by
// PoCL's object id, so a new context at a freed one's address is asked again).
bool contextSupported(cl_context context) {
  if (config().disable) return false;
  static auto *mutex = new Mutex;
  static auto *known GUARDED_BY(*mutex) = new std::map<cl_context, std::pair<std::uint64_t, bool>>;
  const std::uint64_t id = pocl::objectId(context);
  {
    MutexLock lock(*mutex);
    if (auto it = known->find(context); it != known->end() && id && it->second.first == id)
      return it->second.second;
  }
  size_t bytes = 0;
  bool ok = next().clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, nullptr, &bytes) ==
                CL_SUCCESS &&
            bytes >= sizeof(cl_device_id);
  std::vector<cl_device_id> devices(ok ? bytes / sizeof(cl_device_id) : 0);
  ok = ok && next().clGetContextInfo(context, CL_CONTEXT_DEVICES, bytes, devices.data(),
                                     nullptr) == CL_SUCCESS;
  for (cl_device_id d : devices) ok = ok && device(d)->probe.supported;
  if (ok) pocl::checkObjectIds(context);
  MutexLock lock(*mutex);
  (*known)[context] = {pocl::objectId(context), ok};
  return ok;
}

// allocate() gives a buffer's memory, aligned at least as PoCL aligns buffers
// (MAX_EXTENDED_ALIGNMENT, 128 bytes), holding `initial`'s `size` bytes or else zeros.
// Free it with release(), never std::free.
//
// Zeros, where PoCL's own allocation (posix_memalign) gives whatever the heap held: fresh
// pages (zeros) or the bytes of a block freed earlier. A kernel that reads a buffer the
// program never wrote (pyFAI's integrators read their variance buffer without an error
// model, and discard what they compute from it) reads those bytes, and old bytes read as
// floats are often denormal: each multiplication with one then takes a microcode assist,
// and the program ran slower than on PoCL alone, whose heap happened to give fresh pages.
// calloc() clears only memory that is not fresh from the kernel, so large buffers cost
// nothing more; a small one costs a memset of what it would have held.
//
// A large buffer starts half a page in (kLargeSkew). The application's reads and writes
// are memcpy()s between the buffer and its own memory, and glibc's copies of large blocks
// (non-temporal stores) run at a third of their speed when the destination's offset in
// its page lies a little above the source's: each load waits for an earlier store whose
// address matches in its low 12 bits (4K aliasing). malloc() gives large blocks 16
// bytes into a page; PoCL's buffers start 128 bytes in, and a write into one is slow; a
// page-aligned buffer makes reads slow. Half a page from either keeps both directions
// fast. The raw block's address is kept in the word before the aligned pointer.
constexpr std::size_t kLargeBytes = std::size_t{64} << 10;
constexpr std::size_t kLargeSkew = 2048;
char *allocate(std::size_t size, const void *initial) {
  const bool large = size >= kLargeBytes;
  const std::size_t align = large ? 4096 : 128;
  const std::size_t extra = align + (large ? kLargeSkew : 0);
  if (size > SIZE_MAX - extra) return nullptr;
  void *raw = initial ? std::malloc(size + extra) : std::calloc(1, size + extra);
  if (!raw) return nullptr;
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(raw) + sizeof(void *);
  char *memory = reinterpret_cast<char *>((first + align - 1) & ~(align - 1)) +
                 (large ? kLargeSkew : 0);
  reinterpret_cast<void **>(memory)[-1] = raw;
  if (initial) std::memcpy(memory, initial, size);
  return memory;
}
void release(char *memory) {
  if (memory) std::free(reinterpret_cast<void **>(memory)[-1]);
}

// What CL_MEM_FLAGS reports for a buffer whose memory hostkernel gave PoCL: PoCL's own
// normalisation of the flags, with the host-pointer flags the application asked for.
cl_mem_flags reportedFlags(cl_mem mem, cl_mem_flags asked_host_ptr_flags) {
  cl_mem_flags f = 0;
  next().clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof f, &f, nullptr);
  return (f & ~kHostPtrFlags) | asked_host_ptr_flags;
}

// Direct maps by buffer and pointer.
struct DirectMaps {
  Mutex mutex;
  std::map<std::pair<cl_mem, void *>, unsigned> counts GUARDED_BY(mutex);
};
DirectMaps &directMaps() {
  static auto *m = new DirectMaps;
  return *m;
}
unsigned directMapCount(cl_mem mem) {
  DirectMaps &d = directMaps();
  MutexLock lock(d.mutex);
  unsigned n = 0;
  for (auto it = d.counts.lower_bound({mem, nullptr}); it != d.counts.end() && it->first.first == mem; ++it)
    n += it->second;
  return n;
}
void forgetDirectMaps(cl_mem mem) {
  DirectMaps &d = directMaps();
  MutexLock lock(d.mutex);
  auto it = d.counts.lower_bound({mem, nullptr});
  while (it != d.counts.end() && it->first.first == mem) it = d.counts.erase(it);
}

// Guards Buffer::watched: whether a buffer's end is left to PoCL's destructor callback
// is decided once, by one releasing thread at a time.
Mutex &releaseMutex() {
  static auto *m = new Mutex;
  return *m;
}

// Frees what hostkernel holds for `b` (its record, and the memory hostkernel allocated
// for it), once PoCL has destroyed the buffer or is about to with a last release.
void forget(cl_mem mem, Buffer *b) {
  forgetDirectMaps(mem);
  if (g_buffers.find(mem) == b) g_buffers.remove(mem, false);
  if (b->own_memory && b->root == mem) release(b->pointer);
  delete b;
}

// PoCL destroys a watched buffer (after its last release and its last command).
void CL_CALLBACK destroyed(cl_mem mem, void *user) { forget(mem, static_cast<Buffer *>(user)); }

// Leaves the end of `b` to PoCL's destructor callback. False if PoCL refused it (not
// expected): the record and its memory then stay for good, as PoCL may still use them.
std::atomic<std::uint64_t> g_watched{0};
bool watch(Buffer *b) REQUIRES(releaseMutex()) {
  if (b->watched) return true;
  if (next().clSetMemObjectDestructorCallback(b->handle, destroyed, b) != CL_SUCCESS)
    return false;
  b->watched = true;
  g_watched.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// Publishes `b` (owned by the table from now on). No destructor callback yet: on PoCL
// 7.1 a buffer with one is destroyed on PoCL's callback thread (pocl_mem_cb_push), a
// wake-up and a switch to another thread for every buffer a program makes and drops.
// releaseBuffer() frees most buffers itself and watches only the others.
void publish(Buffer *b) {
  Buffer *old = g_buffers.insert(b->handle, b);
  if (old == b) {  // table full: commands on it go to PoCL; the callback frees it
    MutexLock lock(releaseMutex());
    if (!watch(b)) delete b;
    return;
  }
  // `old`: a record whose buffer died without passing through releaseBuffer() (released
  // by PoCL's own entry point); it and its memory are leaked, not freed under a reader.
}
}  // namespace

cl_mem createBuffer(cl_context context, bool with_properties,
                    const cl_mem_properties *properties, cl_mem_flags flags, std::size_t size,
                    void *host_ptr, cl_int *err) {
  // PoCL's clCreateBuffer, or clCreateBufferWithProperties when the application called it.
  auto create = [&](cl_mem_flags f, void *host, cl_int *e) {
    return with_properties
               ? next().clCreateBufferWithProperties(context, properties, f, size, host, e)
               : next().clCreateBuffer(context, f, size, host, e);
  };
  if (properties && properties[0] != 0) return create(flags, host_ptr, err);  // not ours to read
  if (context && (flags & CL_MEM_USE_HOST_PTR) && host_ptr && contextSupported(context)) {
    cl_mem m = create(flags, host_ptr, err);
    if (m) {
      auto *b = new Buffer{m, pocl::objectId(m), context, static_cast<char *>(host_ptr), size,
                           reportedFlags(m, flags & kHostPtrFlags), m, 0, false};
      publish(b);
    }
    return m;
  }
  if (!context || !ownable(flags, size, host_ptr) || !contextSupported(context))
    return create(flags, host_ptr, err);
  char *memory = allocate(size, flags & CL_MEM_COPY_HOST_PTR ? host_ptr : nullptr);
  if (!memory) return create(flags, host_ptr, err);
  // PoCL reads no flags as CL_MEM_READ_WRITE (clCreateBuffer.c, 3.1 to 7.1); with
  // USE_HOST_PTR added they would no longer be none.
  const cl_mem_flags access = flags & ~kHostPtrFlags ? flags & ~kHostPtrFlags : CL_MEM_READ_WRITE;
  const cl_mem_flags given = access | CL_MEM_USE_HOST_PTR;
  cl_int e = CL_SUCCESS;
  cl_mem m = create(given, memory, &e);
  if (!m) {  // PoCL's error for the request as the application made it
    release(memory);
    return create(flags, host_ptr, err);
  }
  if (err) *err = CL_SUCCESS;
  auto *b = new Buffer{m, pocl::objectId(m), context, memory, size,
                       reportedFlags(m, flags & kHostPtrFlags), m, 0, true};
  publish(b);
  return m;
}

cl_mem createSubBuffer(cl_mem parent, cl_mem_flags flags, cl_buffer_create_type type,
                       const void *info, cl_int *err) {
  cl_mem m = next().clCreateSubBuffer(parent, flags, type, info, err);
  if (!m || type != CL_BUFFER_CREATE_TYPE_REGION || !info) return m;
  const Buffer *p = findBuffer(parent);
  if (!p) return m;
  const auto *region = static_cast<const cl_buffer_region *>(info);
  auto *b = new Buffer{m, pocl::objectId(m), p->context, p->pointer + region->origin,
                       region->size, reportedFlags(m, p->flags & kHostPtrFlags), p->root,
                       p->origin + region->origin, p->own_memory};
  publish(b);
  return m;
}

const Buffer *findBuffer(cl_mem mem) {
  Buffer *b = g_buffers.find(mem);
  return isEntry(b) && b->id == pocl::objectId(mem) ? b : nullptr;
}

namespace {

// Pointers learned with a map, for buffers hostkernel did not create.
struct Learned {
  Mutex mutex;
  std::map<cl_mem, std::pair<std::uint64_t, void *>> pointers GUARDED_BY(mutex);
};
Learned &learned() {
  static auto *l = new Learned;
  return *l;
}

}  // namespace

bool bufferPointer(cl_mem mem, Queue &queue, void **out) {
  if (const Buffer *b = findBuffer(mem)) {
    if (b->context != queue.context) return false;  // PoCL reports CL_INVALID_CONTEXT
    *out = b->pointer;
    return true;
  }
  const std::uint64_t id = pocl::objectId(mem);
  Learned &l = learned();
  {
    MutexLock lock(l.mutex);
    if (auto it = l.pointers.find(mem); it != l.pointers.end() && it->second.first == id) {
      *out = it->second.second;
      return true;
    }
  }
  const auto &cl = next();
  cl_mem_object_type type = 0;
  cl_mem parent = nullptr;
  size_t offset = 0, size = 0;
  if (cl.clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, nullptr) != CL_SUCCESS ||
      type != CL_MEM_OBJECT_BUFFER ||
      cl.clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent,
                            nullptr) != CL_SUCCESS ||
      cl.clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof offset, &offset, nullptr) !=
          CL_SUCCESS ||
      cl.clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr) != CL_SUCCESS)
    return false;
  void *ptr = nullptr;
  if (parent) {
    // A sub-buffer's device memory is its parent's at the sub-buffer's origin.
    if (!bufferPointer(parent, queue, &ptr)) return false;
    ptr = static_cast<char *>(ptr) + offset;
  } else {
    // Mapping returns the device memory (zero copy), and makes PoCL allocate a buffer
    // that no command has used yet.
    cl_int err = CL_SUCCESS;
    ptr = cl.clEnqueueMapBuffer(queue.handle, mem, CL_TRUE, CL_MAP_READ, 0, size, 0,
                                nullptr, nullptr, &err);
    if (err != CL_SUCCESS)  // e.g. CL_MEM_HOST_WRITE_ONLY
      ptr = cl.clEnqueueMapBuffer(queue.handle, mem, CL_TRUE, CL_MAP_WRITE, 0, size, 0,
                                  nullptr, nullptr, &err);
    if (err != CL_SUCCESS || !ptr) return false;
    queue.enqueued.fetch_add(1, std::memory_order_acq_rel);
    if (cl.clEnqueueUnmapMemObject(queue.handle, mem, ptr, 0, nullptr, nullptr) !=
        CL_SUCCESS)
      return false;
  }
  MutexLock lock(l.mutex);
  l.pointers[mem] = {id, ptr};
  *out = ptr;
  return true;
}

cl_int releaseBuffer(cl_mem mem) {
  Buffer *b = g_buffers.find(mem);
  if (!isEntry(b) || b->id != pocl::objectId(mem)) return next().clReleaseMemObject(mem);
  MutexLock lock(releaseMutex());
  if (!b->watched) {
    // PoCL's count holds the application's references, a sub-buffer's hold on its
    // parent, and every command (of PoCL's queue, or a background launch) that still
    // uses the buffer. At 1 this release destroys it, at once and on this thread.
    cl_uint refs = 0;
    if (next().clGetMemObjectInfo(mem, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs,
                                  nullptr) == CL_SUCCESS &&
        refs == 1) {
      const cl_int err = next().clReleaseMemObject(mem);
      if (err == CL_SUCCESS) forget(mem, b);
      return err;
    }
    // Still used elsewhere: PoCL destroys it later; the callback frees it then. If PoCL
    // refuses the callback the buffer's memory stays allocated for good.
    watch(b);
  }
  return next().clReleaseMemObject(mem);
}

std::uint64_t buffersLeftToPocl() { return g_watched.load(std::memory_order_relaxed); }

void forgetLearnedPointer(cl_mem mem) {
  Learned &l = learned();
  MutexLock lock(l.mutex);
  l.pointers.erase(mem);
}

cl_int reportedMemInfo(cl_mem mem, cl_mem_info name, std::size_t size, void *value,
                       std::size_t *size_ret) {
  const Buffer *b = mem ? findBuffer(mem) : nullptr;
  if (!b) return next().clGetMemObjectInfo(mem, name, size, value, size_ret);
  auto answer = [&](const auto &v) -> cl_int {
    if (value) {
      if (size < sizeof v) return CL_INVALID_VALUE;
      std::memcpy(value, &v, sizeof v);
    }
    if (size_ret) *size_ret = sizeof v;
    return CL_SUCCESS;
  };
  switch (name) {
    case CL_MEM_FLAGS:
      return answer(b->flags);
    case CL_MEM_HOST_PTR:
      if (!b->own_memory) break;
      return answer(static_cast<void *>(nullptr));
    case CL_MEM_MAP_COUNT: {
      cl_uint n = 0;
      cl_int err = next().clGetMemObjectInfo(mem, name, sizeof n, &n, nullptr);
      if (err != CL_SUCCESS) return err;
      return answer(static_cast<cl_uint>(n + directMapCount(mem)));
    }
    default:
      break;
  }
  return next().clGetMemObjectInfo(mem, name, size, value, size_ret);
}

void noteDirectMap(cl_mem mem, void *pointer) {
  DirectMaps &d = directMaps();
  MutexLock lock(d.mutex);
  ++d.counts[{mem, pointer}];
}

bool takeDirectMap(cl_mem mem, void *pointer) {
  DirectMaps &d = directMaps();
  MutexLock lock(d.mutex);
  auto it = d.counts.find({mem, pointer});
  if (it == d.counts.end()) return false;
  if (--it->second == 0) d.counts.erase(it);
  return true;
}

}  // namespace hk::queue
