#include "api/registry.hpp"

#include <vector>

#include "base/config.hpp"
#include "base/log.hpp"
#include "base/next.hpp"
#include "pocl/object_id.hpp"

namespace hk::api {
namespace {

std::string kernelName(cl_kernel k, cl_int *err) {
  size_t n = 0;
  *err = next().clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &n);
  if (*err != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  *err = next().clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, n, s.data(), nullptr);
  s.resize(n - 1);
  return s;
}

}  // namespace

QueueEntry::~QueueEntry() {
  for (cl_event e : blockers) next().clReleaseEvent(e);
}

void QueueEntry::addBlockers(cl_uint n, const cl_event *events) {
  std::lock_guard lock(blockers_mutex);
  for (cl_uint i = 0; i < n; ++i) {
    cl_int status = CL_COMPLETE;
    if (events[i] &&
        next().clGetEventInfo(events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                              &status, nullptr) == CL_SUCCESS &&
        status > CL_COMPLETE && next().clRetainEvent(events[i]) == CL_SUCCESS)
      blockers.push_back(events[i]);
  }
  blocked.store(true, std::memory_order_release);
}

bool QueueEntry::stillBlocked() {
  if (!blocked.load(std::memory_order_acquire)) return false;
  std::lock_guard lock(blockers_mutex);
  std::erase_if(blockers, [](cl_event e) {
    cl_int status = CL_SUBMITTED;
    next().clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                          nullptr);
    if (status > CL_COMPLETE) return false;
    next().clReleaseEvent(e);
    return true;
  });
  if (!blockers.empty()) return true;
  blocked.store(false, std::memory_order_release);
  return false;
}

void QueueEntry::completedUpTo(std::uint64_t upto) {
  std::uint64_t c = completed.load(std::memory_order_relaxed);
  while (c < upto &&
         !completed.compare_exchange_weak(c, upto, std::memory_order_acq_rel)) {
  }
}

constinit ObjectTable<KernelEntry> g_kernels;
constinit ObjectTable<QueueEntry> g_queues;

Registry &registry() {
  // Never destroyed: entries may be used by other threads or atexit handlers while the
  // process exits.
  static Registry *r = new Registry();
  return *r;
}

const DeviceEntry *Registry::deviceEntry(cl_device_id device) {
  std::lock_guard lock(mutex_);
  auto &slot = devices_[device];
  if (!slot) {
    auto d = std::make_unique<DeviceEntry>();
    d->handle = device;
    d->probe = pocl::probeDevice(device);
    for (int i = 0; i < 3; ++i) d->limits.max_item_sizes[i] = d->probe.max_item_sizes[i];
    d->limits.max_group_size = d->probe.max_group_size;
    d->limits.preferred_multiple = d->probe.preferred_multiple;
    d->limits.compute_units = d->probe.compute_units;
    if (!d->probe.supported)
      logf(LogLevel::Warn, "launches on '%s' use PoCL's queue: %s", d->probe.name.c_str(),
           d->probe.reason.c_str());
    slot = std::move(d);
  }
  return slot.get();
}

QueueEntry *Registry::queueEntry(cl_command_queue queue, cl_int *err) {
  *err = CL_SUCCESS;
  if (QueueEntry *q = queues.find(queue); isEntry(q)) {
    if (q->id == pocl::objectId(queue)) return q;
    dropQueue(queue);  // a new queue at a released one's address
  }
  auto q = std::make_unique<QueueEntry>();
  q->handle = queue;
  cl_device_id device = nullptr;
  cl_command_queue_properties props = 0;
  const auto &cl = next();
  if ((*err = cl.clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof q->context,
                                       &q->context, nullptr)) != CL_SUCCESS ||
      (*err = cl.clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device,
                                       nullptr)) != CL_SUCCESS ||
      (*err = cl.clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props,
                                       nullptr)) != CL_SUCCESS)
    return nullptr;
  pocl::checkObjectIds(q->context);
  q->id = pocl::objectId(queue);
  q->device = deviceEntry(device);
  q->in_order = !(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  q->profiling = props & CL_QUEUE_PROFILING_ENABLE;
  if (config().disable) {
    q->reason = HK_REASON_DISABLED;
  } else if (!q->device->probe.supported) {
    q->reason = HK_REASON_DEVICE;
  }
  q->direct = q->reason == HK_REASON_NONE;
  std::lock_guard lock(mutex_);
  if (QueueEntry *other = queues.find(queue); isEntry(other) && other->id == q->id)
    return other;  // another thread was first
  QueueEntry *raw = q.get();
  QueueEntry *old = queues.insert(queue, raw);
  if (old == raw) return nullptr;  // table full: stays unknown
  if (isEntry(old)) delete old;
  q.release();
  return raw;
}

KernelEntry *Registry::kernelEntry(cl_kernel kernel, cl_int *err) {
  *err = CL_SUCCESS;
  if (KernelEntry *k = kernels.find(kernel)) {
    if (k == kernels.released()) {
      *err = CL_INVALID_KERNEL;
      return nullptr;
    }
    if (k->id == pocl::objectId(kernel)) return k;
    dropKernel(kernel, false);  // a new kernel at a released one's address
  }
  auto k = std::make_unique<KernelEntry>();
  k->handle = kernel;
  cl_uint num_args = 0;
  const auto &cl = next();
  if ((*err = cl.clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof num_args, &num_args,
                                 nullptr)) != CL_SUCCESS ||
      (*err = cl.clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof k->program, &k->program,
                                 nullptr)) != CL_SUCCESS ||
      (*err = cl.clGetKernelInfo(kernel, CL_KERNEL_CONTEXT, sizeof k->context, &k->context,
                                 nullptr)) != CL_SUCCESS)
    return nullptr;
  k->name = kernelName(kernel, err);
  if (*err != CL_SUCCESS) return nullptr;
  pocl::checkObjectIds(k->context);
  k->id = pocl::objectId(kernel);
  k->args.reset(num_args);
  if ((k->native = nativeProgram(k->program)) && num_args > 0) {
    char type[64] = {};
    if (cl.clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof type - 1, type,
                              nullptr) == CL_SUCCESS &&
        program::isNdrangeTypeName(type)) {
      k->hidden_ndrange = true;
      // A placeholder so that binding succeeds: each launch points argument 0 at its own
      // plan's ndrange (launch/executor.hpp), or sets it on PoCL's kernel for the queue.
      const std::uint64_t zero[3] = {};
      k->args.record(0, sizeof zero, zero);
    }
  }
  std::unique_lock lock(mutex_);
  if (KernelEntry *other = kernels.find(kernel); isEntry(other) && other->id == k->id)
    return other;
  KernelEntry *raw = k.get();
  KernelEntry *old = kernels.insert(kernel, raw);
  if (old == raw) return nullptr;  // table full: stays unknown
  k.release();
  lock.unlock();
  if (isEntry(old)) {
    retireCounts(*old);
    delete old;
  }
  return raw;
}

namespace {

template <typename Slots>
std::shared_ptr<program::ProgramImage> imageIn(Slots &slots, cl_program program,
                                               std::uint64_t id) {
  if (auto it = slots.find(program); it != slots.end() && it->second.id == id)
    return it->second.image.lock();
  return nullptr;
}

}  // namespace

// The image another thread stored meanwhile, else `img`, which is stored. Null stays null.
std::shared_ptr<program::ProgramImage> Registry::keep(
    cl_program program, std::uint64_t id, std::shared_ptr<program::ProgramImage> img) {
  if (!img) return nullptr;
  std::lock_guard lock(mutex_);
  auto &slot = programs_[program];
  if (slot.id == id)
    if (auto existing = slot.image.lock()) return existing;
  slot = ProgramSlot{id, img};
  return img;
}

std::shared_ptr<program::ProgramImage> Registry::programImage(cl_program program,
                                                              cl_device_id device,
                                                              std::string &error) {
  const std::uint64_t id = pocl::objectId(program);
  {
    std::lock_guard lock(mutex_);
    if (auto img = imageIn(programs_, program, id)) return img;
  }
  // Taking the binary can compile (tens of ms): not under the registry's lock.
  return keep(program, id, program::ProgramImage::create(program, device, error));
}

std::shared_ptr<program::ProgramImage> Registry::existingImage(cl_program program,
                                                               cl_device_id device) {
  const std::uint64_t id = pocl::objectId(program);
  {
    std::lock_guard lock(mutex_);
    if (auto img = imageIn(programs_, program, id)) return img;
  }
  return keep(program, id, program::ProgramImage::fromCache(program, device));
}

bool Registry::bufferPointer(cl_mem mem, QueueEntry &queue, void **out) {
  const std::uint64_t id = pocl::objectId(mem);
  {
    std::lock_guard lock(mutex_);
    if (auto it = buffers_.find(mem); it != buffers_.end() && it->second.id == id) {
      *out = it->second.pointer;
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
    // On PoCL's CPU device a buffer's device memory is its host backing store, and
    // mapping returns exactly that (zero copy), for every kind of buffer. Mapping also
    // makes PoCL allocate a buffer that no command has used yet.
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
  std::lock_guard lock(mutex_);
  buffers_[mem] = BufferSlot{id, ptr};
  *out = ptr;
  return true;
}

void Registry::dropKernel(cl_kernel kernel, bool released) {
  KernelEntry *old = kernels.remove(kernel, released);
  if (!old) return;
  retireCounts(*old);
  delete old;
}

void Registry::dropQueue(cl_command_queue queue) {
  delete queues.remove(queue, false);
}

void Registry::dropProgram(cl_program program) {
  std::lock_guard lock(mutex_);
  programs_.erase(program);
}

void Registry::addNative(cl_program program, std::shared_ptr<program::NativeProgram> native) {
  // The id must be read as later lookups read it: settle whether ids are usable first.
  cl_context context = nullptr;
  if (next().clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context,
                              nullptr) == CL_SUCCESS)
    pocl::checkObjectIds(context);
  std::lock_guard lock(mutex_);
  natives_[program] = NativeSlot{pocl::objectId(program), std::move(native)};
}

std::shared_ptr<program::NativeProgram> Registry::nativeProgram(cl_program program) {
  std::lock_guard lock(mutex_);
  auto it = natives_.find(program);
  if (it == natives_.end()) return nullptr;
  if (it->second.id != pocl::objectId(program)) {  // a new program at a released address
    natives_.erase(it);
    return nullptr;
  }
  return it->second.native;
}

void Registry::dropNative(cl_program program) {
  std::lock_guard lock(mutex_);
  natives_.erase(program);
}

void Registry::dropBuffer(cl_mem mem) {
  std::lock_guard lock(mutex_);
  buffers_.erase(mem);
}

void Registry::retireCounts(const KernelEntry &k) {
  std::lock_guard lock(mutex_);
  Retired &r = retired_[k.name];
  for (int p = 0; p < 3; ++p) r.by_path[p] += k.counts.by_path[p].load();
  for (int i = 0; i < HK_REASON_COUNT; ++i) r.by_reason[i] += k.counts.by_reason[i].load();
}

}  // namespace hk::api
