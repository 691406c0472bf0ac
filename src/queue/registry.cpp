#include "queue/registry.hpp"

#include <vector>

#include "base/config.hpp"
#include "base/exit_guard.hpp"
#include "base/next.hpp"
#include "base/thread_safety.hpp"
#include "pocl/object_id.hpp"

namespace hk::queue {
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

constinit ObjectTable<KernelEntry> g_kernels;

Registry &registry() {
  // Never destroyed: entries may be used by other threads or atexit handlers while the
  // process exits.
  static Registry *r = new Registry();
  return *r;
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
  k->program_id = pocl::objectId(k->program);
  std::unique_ptr<KernelEntry> kept;
  {
    MutexLock lock(mutex_);
    kept = takeReleased(k->program, k->program_id, k->name, num_args, k->context);
  }
  const bool taken = kept != nullptr;
  if (taken) {
    kept->startOver(kernel, k->id, num_args);  // after mutex_: k.mutex comes first
    k = std::move(kept);
  } else {
    k->args.reset(num_args);
    prepareNew(*k, kernel, num_args);
  }
  KernelEntry *raw = k.get();
  KernelEntry *old = nullptr;
  {
    MutexLock lock(mutex_);
    if (!taken) seedFromProgram(*k);
    if (KernelEntry *other = kernels.find(kernel); isEntry(other) && other->id == k->id)
      return other;
    old = kernels.insert(kernel, raw);
    if (old == raw) return nullptr;  // table full: stays unknown
    k.release();
  }
  if (isEntry(old)) {
    retireCounts(*old);
    delete old;
  }
  return raw;
}

void Registry::prepareNew(KernelEntry &k, cl_kernel kernel, cl_uint num_args) {
  if ((k.native = nativeProgram(k.program)) && num_args > 0) {
    char type[64] = {};
    if (next().clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof type - 1, type,
                                  nullptr) == CL_SUCCESS &&
        program::isNdrangeTypeName(type)) {
      k.hidden_ndrange = true;
      // A placeholder so that binding succeeds: each launch points argument 0 at its own
      // plan's ndrange (launch/run_groups.hpp), or sets it on PoCL's kernel for the queue.
      const std::uint64_t zero[3] = {};
      k.args.record(0, sizeof zero, zero);
    }
  }
  if (!k.native) findArgMeta(k);
}

namespace {

template <typename Slots>
std::shared_ptr<program::ProgramImage> imageIn(Slots &slots, cl_program program,
                                               std::uint64_t id) {
  if (auto it = slots.find(program); it != slots.end() && it->second.id == id)
    return it->second.image;
  return nullptr;
}

}  // namespace

void Registry::findArgMeta(KernelEntry &k) {
  MutexLock lock(mutex_);
  auto it = programs_.find(k.program);
  if (it == programs_.end() || !it->second.image || it->second.id != k.program_id)
    return;
  const pocl::KernelRecord *meta = it->second.image->argRecord(k.name);
  if (!meta || meta->num_args != k.args.numArgs() || meta->args.size() != meta->num_args)
    return;
  k.arg_meta_owner = it->second.image;
  k.arg_meta.store(meta, std::memory_order_release);
}

// The image another thread stored meanwhile, else `img`, which is stored. Null stays null.
std::shared_ptr<program::ProgramImage> Registry::keep(
    cl_program program, std::uint64_t id, std::shared_ptr<program::ProgramImage> img) {
  if (!img) return nullptr;
  MutexLock lock(mutex_);
  auto &slot = programs_[program];
  if (slot.id == id && slot.image) return slot.image;
  slot = ProgramSlot{id, img, true, {}};
  return img;
}

std::shared_ptr<program::ProgramImage> Registry::programImage(cl_program program,
                                                              cl_device_id device,
                                                              std::string &error) {
  const std::uint64_t id = pocl::objectId(program);
  {
    MutexLock lock(mutex_);
    if (auto img = imageIn(programs_, program, id)) return img;
  }
  // Taking the binary can compile (tens of ms): not under the registry's lock.
  return keep(program, id,
              program::ProgramImage::create(program, device, error,
                                            /*per_kernel=*/config().first_launch_on_queue));
}

std::shared_ptr<program::ProgramImage> Registry::existingImage(cl_program program,
                                                               cl_device_id device,
                                                               std::string &error) {
  const std::uint64_t id = pocl::objectId(program);
  bool launched_before = false;
  {
    MutexLock lock(mutex_);
    auto &slot = programs_[program];
    if (slot.id != id) slot = ProgramSlot{id, nullptr, false, {}};
    if (slot.image) return slot.image;
    launched_before = slot.launched;
    slot.launched = true;
  }
  if (launched_before) return programImage(program, device, error);
  return keep(program, id, program::ProgramImage::fromCache(program, device));
}

void Registry::keepHistory(const KernelEntry &k) {
  const launch::Sampler::Estimate e = k.sampler.estimate();
  if (!e.serial_ns || k.native) return;
  // The program may be gone already (released with its last kernel): its id as read
  // when the kernel was made tells whether the slot is still that program's.
  auto it = programs_.find(k.program);
  if (it != programs_.end() && it->second.id == k.program_id)
    it->second.histories[k.name] = {e, k.specialization()};
}

void Registry::seedFromProgram(KernelEntry &k) {
  auto it = programs_.find(k.program);
  if (it == programs_.end() || it->second.id != k.program_id) return;
  if (auto h = it->second.histories.find(k.name); h != it->second.histories.end()) {
    k.sampler.seed(h->second.estimate);
    k.inheritSpecialization(h->second.specialization);
  }
}

void Registry::dropKernel(cl_kernel kernel, bool released) {
  KernelEntry *old = kernels.remove(kernel, released);
  if (!old) return;
  retireCounts(*old);
  if (released) {
    MutexLock lock(mutex_);
    keepHistory(*old);
    if (keepReleased(old)) return;
  }
  delete old;
}

bool Registry::keepReleased(KernelEntry *k) {
  // Native kernels have a hidden argument and variants of their own: made anew.
  if (k->native || k->hidden_ndrange || !k->id || !k->program_id ||
      !k->image.load(std::memory_order_relaxed))
    return false;
  auto slot = programs_.find(k->program);
  if (slot == programs_.end() || slot->second.id != k->program_id || !slot->second.image)
    return false;
  ReleasedKey key{k->program, k->name};
  auto [it, added] = released_.try_emplace(key);
  it->second.reset(k);  // replaces an older one of the same kernel
  if (added) released_order_.push_back(std::move(key));
  while (released_.size() > kMaxReleasedEntries) {
    released_.erase(released_order_.front());
    released_order_.pop_front();
  }
  return true;
}

std::unique_ptr<KernelEntry> Registry::takeReleased(cl_program program,
                                                    std::uint64_t program_id,
                                                    const std::string &name, cl_uint num_args,
                                                    cl_context context) {
  if (released_.empty()) return nullptr;
  auto it = released_.find(ReleasedKey{program, name});
  if (it == released_.end()) return nullptr;
  std::unique_ptr<KernelEntry> k = std::move(it->second);
  for (auto o = released_order_.begin(); o != released_order_.end(); ++o)
    if (*o == it->first) {
      released_order_.erase(o);
      break;
    }
  released_.erase(it);
  // Another program at a released one's address: its kernels are not these.
  if (k->program_id != program_id || k->args.numArgs() != num_args || k->context != context)
    return nullptr;
  return k;
}

void Registry::dropReleased(cl_program program) {
  for (auto it = released_.lower_bound(ReleasedKey{program, std::string()});
       it != released_.end() && it->first.first == program;)
    it = released_.erase(it);
  std::erase_if(released_order_, [program](const ReleasedKey &k) { return k.first == program; });
}

void Registry::dropProgram(cl_program program) {
  MutexLock lock(mutex_);
  programs_.erase(program);
  dropReleased(program);  // a rebuilt program has new code; a released one, none
}

void Registry::programCreated(cl_program program) {
  waitForCompilesAtThreadExit();  // a thread that creates programs may call exit
  dropProgram(program);
  MutexLock lock(mutex_);
  program_references_[program] = {pocl::objectId(program), 1};
}

int Registry::countProgramReference(cl_program program, int delta) {
  MutexLock lock(mutex_);
  auto it = program_references_.find(program);
  if (it == program_references_.end() || it->second.first != pocl::objectId(program))
    return -1;
  it->second.second += delta;
  const int left = it->second.second;
  if (left <= 0) program_references_.erase(it);
  return left;
}

void Registry::addNative(cl_program program, std::shared_ptr<program::NativeProgram> native) {
  // The id must be read as later lookups read it: settle whether ids are usable first.
  cl_context context = nullptr;
  if (next().clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context,
                              nullptr) == CL_SUCCESS)
    pocl::checkObjectIds(context);
  MutexLock lock(mutex_);
  natives_[program] = NativeSlot{pocl::objectId(program), std::move(native)};
}

std::shared_ptr<program::NativeProgram> Registry::nativeProgram(cl_program program) {
  MutexLock lock(mutex_);
  auto it = natives_.find(program);
  if (it == natives_.end()) return nullptr;
  if (it->second.id != pocl::objectId(program)) {  // a new program at a released address
    natives_.erase(it);
    return nullptr;
  }
  return it->second.native;
}

void Registry::dropNative(cl_program program) {
  MutexLock lock(mutex_);
  natives_.erase(program);
}

void Registry::retireCounts(const KernelEntry &k) {
  MutexLock lock(mutex_);
  Retired &r = retired_[k.name];
  for (int p = 0; p < 3; ++p) r.by_path[p] += k.counts.by_path[p].load();
  for (int i = 0; i < HK_REASON_COUNT; ++i) r.by_reason[i] += k.counts.by_reason[i].load();
  r.background += k.counts.background.load();
}

}  // namespace hk::queue
